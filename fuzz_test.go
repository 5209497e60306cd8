// Fuzz targets for the two peer-input parsers: the JSON-RPC envelope
// decoder (rpc.go, jsondecode.go) and the URI template matcher
// (uritemplate.go). Their seed corpora in testdata/fuzz run as ordinary
// tests; go test -fuzz FuzzParseMessage explores further.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzParseMessage(f *testing.F) {
	for _, seed := range []string{
		req("1", "tools/call", `"name":"echo","arguments":{"message":"hi"}`),
		req(`"\u00e9"`, "resources/read", `"uri":"demo://items/1"`),
		`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"server/discover"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":1,"method":"a","METHOD":"b"}`,
		`{"jsonrpc":"2.0","id":1,"method":"a","\u006dethod":"b"}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"a"}]`,
		`{"a":` + strings.Repeat("[", 80),
		"{\"k\xff\":1}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// checkJSON agrees with encoding/json on syntax. It also refuses
		// invalid UTF-8, which json.Valid lets through.
		verdict := checkJSON(data)
		valid := json.Valid(data)
		switch {
		case !utf8.Valid(data):
			if !errors.Is(verdict, errJSONSyntax) {
				t.Errorf("checkJSON(%q) = %v on invalid UTF-8", data, verdict)
			}
		case verdict == nil && !valid:
			t.Errorf("checkJSON(%q) accepted what json.Valid refuses", data)
		case errors.Is(verdict, errJSONSyntax) && valid:
			t.Errorf("checkJSON(%q) refused what json.Valid accepts", data)
		}

		m, rerr := parseMessage(data)
		if rerr != nil {
			if out := encodeError(m.id, rerr); !json.Valid(out) {
				t.Errorf("error response %q is not JSON", out)
			}
			return
		}
		if verdict != nil {
			t.Fatalf("parseMessage(%q) accepted what checkJSON refused: %v", data, verdict)
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatalf("parseMessage(%q) accepted a non-object: %v", data, err)
		}
		if m.hasMethod {
			var method string
			if err := json.Unmarshal(raw["method"], &method); err != nil || method != m.method {
				t.Errorf("method = %q, encoding/json reads %q (%v)", m.method, method, err)
			}
		}
		if m.id == nil {
			return
		}
		if want := bytes.TrimSpace(raw["id"]); !bytes.Equal(m.id, want) {
			t.Errorf("id = %s, want %s", m.id, want)
		}
		// The id round-trips byte for byte into a response.
		out := encodeError(m.id, errInternal)
		var resp map[string]json.RawMessage
		if err := json.Unmarshal(out, &resp); err != nil || !bytes.Equal(resp["id"], m.id) {
			t.Errorf("response %s does not echo id %s (%v)", out, m.id, err)
		}
		if !m.hasMethod {
			return
		}
		// Dispatching an accepted message never panics and answers with
		// the same id (or not at all, for a notification).
		var logs syncBuffer
		s := newTestServer(t, withRegistry(), withLogs(&logs))
		s.addTool(tool{Name: "echo", InputSchema: `{"type":"object","properties":{"message":{"type":"string"}}}`,
			Call: func(ctx context.Context, req *request) (*toolResult, error) {
				return textResult(req.String("message")), nil
			}})
		s.addTemplate(resourceTemplate{URITemplate: "x://{a}/{b}", Name: "t",
			Read: func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
				return []resourceContents{{URI: uri, Text: vars["a"]}}, nil
			}})
		reply := s.dispatch(context.Background(), &m, exchange{send: func([]byte) {}})
		if strings.Contains(logs.String(), "panic") {
			t.Fatalf("dispatch(%q) panicked: %s", data, logs.String())
		}
		if reply == nil {
			return
		}
		var r map[string]json.RawMessage
		if err := json.Unmarshal(reply, &r); err != nil || !bytes.Equal(r["id"], m.id) {
			t.Errorf("dispatch(%q) = %s, not JSON with id %s (%v)", data, reply, m.id, err)
		}
	})
}

func FuzzTemplateMatch(f *testing.F) {
	for _, seed := range [][2]string{
		{"demo://items/{id}", "demo://items/42"},
		{"x://{owner}/repos/{repo}", "x://a/repos/b/repos/c"},
		{"x://files/{path}.json", "x://files/a.json.json"},
		{"x://{a}.{b}.end", "x://1.2.end.end"},
		{"x://{a}-{b}-{c}", "x://-------"},
		{"{a}/{b}", "//"},
		{"x://{a}?q={b}", "x://%20?q=%41"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, template, uri string) {
		ut, err := compileTemplate(template)
		if err != nil || len(uri) > maxURILength {
			return
		}
		vars, ok := ut.match(uri)
		if !ok {
			return
		}
		var b strings.Builder
		for i, v := range ut.vars {
			if vars[v] == "" {
				t.Errorf("match(%q, %q): variable %s is empty", template, uri, v)
			}
			b.WriteString(ut.literals[i] + vars[v])
		}
		b.WriteString(ut.literals[len(ut.vars)])
		if b.String() != uri {
			t.Errorf("match(%q, %q) = %v, which expands to %q", template, uri, vars, b.String())
		}
	})
}
