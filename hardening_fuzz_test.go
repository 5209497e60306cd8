// End-to-end fuzz targets for what a hostile peer controls: bytes on
// stdin (line reader and the whole stdio server), an HTTP request (method,
// headers, body) through the transport, a resources/read URI against a
// template, and a Base64 header value. Their seed corpora in
// testdata/fuzz run as ordinary tests; tools/fuzz.sh runs each for a
// bounded time. The envelope decoder alone (FuzzParseMessage), the
// template matcher alone, requestState (FuzzRequestState) and the
// argument validator (FuzzSchemaValidate) have their own targets.
//
// Invariants everywhere: no panic (a recovered one shows in the log), a
// bound on time per input, and what is accepted comes back out unchanged.

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// fuzzInputBudget bounds the time one fuzz input may take end to end. It
// is generous (the race detector and a loaded machine slow things down);
// a blow-up shows as orders of magnitude, not a few milliseconds.
const fuzzInputBudget = 2 * time.Second

// newFuzzServer is the demo registry with a short request timeout, so that
// a fuzzed call to a slow or waiting tool ends quickly.
func newFuzzServer(tb testing.TB, logs io.Writer) *server {
	s := newServer(config{requestTimeout: 50 * time.Millisecond}, log.New(logs, "", 0))
	mustRegisterDemo(tb, s)
	return s
}

// chunkReader returns at most n bytes per Read, to exercise buffer seams.
type chunkReader struct {
	r io.Reader
	n int
}

func (c chunkReader) Read(p []byte) (int, error) {
	if len(p) > c.n {
		p = p[:c.n]
	}
	return c.r.Read(p)
}

func FuzzReadLines(f *testing.F) {
	for _, seed := range []struct {
		data  string
		chunk uint16
	}{
		{"a\nb\n", 1},
		{"a\r\nb", 2},
		{"\n\n \t\r\n{}\n", 3},
		{"x\r\r\n\ry", 1},
		{strings.Repeat("z", 70000) + "\nend", 4096},
		{"no newline at end", 5},
	} {
		f.Add([]byte(seed.data), seed.chunk)
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16) {
		lines := make(chan []byte)
		done := make(chan struct{})
		errc := make(chan error, 1)
		go func() {
			errc <- readLines(chunkReader{bytes.NewReader(data), int(chunk%8192) + 1}, lines, done)
			close(lines)
		}()
		var got [][]byte
		for l := range lines {
			got = append(got, l)
		}
		if err := <-errc; err != io.EOF {
			t.Fatalf("readLines ended with %v, want io.EOF", err)
		}
		// The reference: split on LF, strip trailing CR/LF, drop blank
		// lines. Every line is below maxLineBytes here.
		var want [][]byte
		for seg := range bytes.SplitSeq(data, []byte("\n")) {
			seg = bytes.TrimRight(seg, "\r\n")
			if len(bytes.TrimSpace(seg)) > 0 {
				want = append(want, seg)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("readLines(%q) = %q, want %q", data, got, want)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("line %d = %q, want %q", i, got[i], want[i])
			}
		}
	})
}

func FuzzStdioServe(f *testing.F) {
	for _, seed := range []string{
		hardLine(1, "tools/call", `"name":"echo","arguments":{"message":"hi"}`) + "\n" + hardLine(2, "tools/list", ""),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"steps":3},"_meta":{"progressToken":"p",` + hardMeta[len(`"_meta":{`):] + `}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		hardLine(1, "resources/read", `"uri":"demo://items/42"`) + "\r\n" + hardLine(1, "prompts/get", `"name":"greet","arguments":{"name":"x"}`),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","METHOD":"x"}` + "\n[1]\n{\n\"\xff\"",
		hardLine(7, "completion/complete", `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"a"}`),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var logs syncBuffer
		s := newFuzzServer(t, &logs)
		var out bytes.Buffer
		start := time.Now()
		if err := s.serveStdio(context.Background(), bytes.NewReader(data), &out); err != nil {
			t.Fatalf("serveStdio: %v", err)
		}
		if d := time.Since(start); d > fuzzInputBudget {
			t.Errorf("serveStdio took %v on %q", d, data)
		}
		if strings.Contains(logs.String(), "panic") {
			t.Fatalf("handler panicked on %q: %s", data, logs.String())
		}
		// Every request with a readable id is answered once, with that id;
		// nothing else is written but notifications.
		ids := map[string]int{}
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			if m, _ := parseMessage(bytes.TrimRight(line, "\r\n")); m.id != nil {
				ids[idKey(m.id)]++
			}
		}
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 2*maxLineBytes)
		for sc.Scan() {
			id, notification, ok := parseOutgoing(sc.Bytes())
			if !ok {
				t.Fatalf("server wrote %q", sc.Bytes())
			}
			if notification || string(id) == "null" {
				continue // notification, or an error for an unreadable id
			}
			// Each reply answers a request that was sent (a cancelled or
			// duplicate id may get fewer replies, never more).
			k := idKey(id)
			if ids[k] == 0 {
				t.Fatalf("reply %s answers no request in %q", sc.Bytes(), data)
			}
			ids[k]--
		}
	})
}

// parseOutgoing checks a message the server wrote: strict JSON, jsonrpc
// "2.0", and either a notification (method, no id) or a response (id, and
// exactly one of result and error). id is raw ("null" when unreadable).
func parseOutgoing(b []byte) (id []byte, notification, ok bool) {
	if checkJSON(b) != nil || jsonKind(b) != '{' {
		return nil, false, false
	}
	members, err := objectMembers(b)
	if err != nil {
		return nil, false, false
	}
	var version string
	var hasMethod, hasResult, hasError bool
	for _, m := range members {
		switch m.name {
		case "jsonrpc":
			version, _ = jsonString(m.value)
		case "id":
			id = bytes.TrimSpace(m.value)
		case "method":
			hasMethod = true
		case "result":
			hasResult = true
		case "error":
			hasError = true
		}
	}
	if version != "2.0" {
		return nil, false, false
	}
	if hasMethod {
		return nil, true, id == nil && !hasResult && !hasError
	}
	return id, false, id != nil && hasResult != hasError
}

func FuzzHTTPHandler(f *testing.F) {
	okHeaders := "Content-Type: application/json\nAccept: application/json, text/event-stream\nMCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\nMcp-Name: echo"
	for _, seed := range []struct{ method, headers, body string }{
		{"POST", okHeaders, rpcBody("tools/call", `"name":"echo","arguments":{"message":"hi"}`)},
		{"POST", strings.Replace(okHeaders, "Mcp-Name: echo", "Mcp-Name: =?base64?ZWNobw==?=", 1), rpcBody("tools/call", `"name":"echo","arguments":{"message":"hi"}`)},
		{"POST", strings.Replace(okHeaders, "tools/call", "tools/list", 1), rpcBody("tools/list", "")},
		{"POST", okHeaders + "\nOrigin: http://evil.example", rpcBody("tools/call", `"name":"echo"`)},
		{"POST", "Content-Type: text/plain", "{}"},
		{"GET", "", ""},
		{"OPTIONS", "Origin: http://localhost\nAccess-Control-Request-Method: POST", ""},
		{"POST", okHeaders, `{"jsonrpc":"2.0","method":"notifications/cancelled"}`},
		{"POST", strings.Replace(okHeaders, "Mcp-Name: echo", "Mcp-Name: slow\nMcp-Param-Region: =?base64?AA==?=", 1),
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"steps":2},"_meta":{"progressToken":1,` + testMeta[1:] + `}}`},
	} {
		f.Add(seed.method, seed.headers, []byte(seed.body))
	}
	s := newFuzzServer(f, io.Discard)
	tr := newHTTPTransport(s, &httpConfig{maxBody: 1 << 16}, nil)
	f.Fuzz(func(t *testing.T, method, headers string, body []byte) {
		req, err := http.NewRequest(method, "http://127.0.0.1/mcp", bytes.NewReader(body))
		if err != nil {
			return // not a request net/http would deliver
		}
		for line := range strings.Lines(headers) {
			name, value, ok := strings.Cut(strings.TrimRight(line, "\r\n"), ":")
			if ok && name != "" {
				req.Header.Add(name, strings.TrimSpace(value))
			}
		}
		rec := httptest.NewRecorder()
		start := time.Now()
		tr.ServeHTTP(rec, req)
		if d := time.Since(start); d > fuzzInputBudget {
			t.Errorf("ServeHTTP took %v", d)
		}
		res := rec.Result()
		switch ct := res.Header.Get("Content-Type"); {
		case res.StatusCode == http.StatusAccepted || res.StatusCode == http.StatusNoContent:
			if rec.Body.Len() != 0 {
				t.Errorf("status %d with a body %q", res.StatusCode, rec.Body)
			}
		case ct == "application/json":
			id, notification, ok := parseOutgoing(rec.Body.Bytes())
			if !ok || notification {
				t.Fatalf("status %d body %q is not a JSON-RPC response", res.StatusCode, rec.Body)
			}
			if sent, _ := parseMessage(body); string(id) != "null" && !bytes.Equal(id, sent.id) {
				t.Errorf("response id %s, request id %s", id, sent.id)
			}
		case ct == "text/event-stream":
			for ev := range strings.SplitSeq(strings.TrimSuffix(rec.Body.String(), "\n\n"), "\n\n") {
				data, ok := strings.CutPrefix(ev, "event: message\ndata: ")
				if !ok || !json.Valid([]byte(data)) {
					t.Fatalf("bad SSE event %q", ev)
				}
			}
		default:
			t.Fatalf("status %d with content type %q: %q", res.StatusCode, ct, rec.Body)
		}
	})
}

func FuzzTemplateRead(f *testing.F) {
	for _, seed := range [][2]string{
		{"x://items/{id}", "x://items/42"},
		{"x://{owner}/repos/{repo}", "x://a/repos/b/repos/c"},
		{"x://files/{path}.json", "x://files/a.json.json"},
		{"x://{a}-{b}-{c}", "x://-------"},
		{"x://{a}/{b}/{c}.json", "x://" + strings.Repeat("/", 2000)},
		{"{a}", "%00"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, template, uri string) {
		if _, err := compileTemplate(template); err != nil {
			return
		}
		s := newServer(config{}, log.New(io.Discard, "", 0))
		s.addTemplate(resourceTemplate{URITemplate: template, Name: "t",
			Read: func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
				b, _ := json.Marshal(vars)
				return []resourceContents{{URI: uri, Text: string(b)}}, nil
			}})
		line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "resources/read",
			"params": map[string]any{"uri": uri, "_meta": map[string]any{metaProtocolVersion: "2026-07-28", metaClientCapabilities: map[string]any{}}}})
		msg, rerr := parseMessage(line)
		if rerr != nil {
			t.Fatalf("parseMessage of an encoded request: %v", rerr)
		}
		start := time.Now()
		reply := s.dispatch(context.Background(), &msg, exchange{send: func([]byte) {}})
		if d := time.Since(start); d > fuzzInputBudget {
			t.Errorf("resources/read of %d bytes against %q took %v", len(uri), template, d)
		}
		var r struct {
			Result *struct {
				Contents []struct{ URI, Text string }
			}
			Error *struct{ Code int }
		}
		if err := json.Unmarshal(reply, &r); err != nil {
			t.Fatalf("reply %q: %v", reply, err)
		}
		if r.Error != nil {
			if r.Error.Code != codeInvalidParams {
				t.Errorf("resources/read error %d, want -32602", r.Error.Code)
			}
			return
		}
		// An accepted URI round-trips: the variables expand back to it.
		ut, _ := compileTemplate(template)
		var vars map[string]string
		if len(r.Result.Contents) != 1 || json.Unmarshal([]byte(r.Result.Contents[0].Text), &vars) != nil {
			t.Fatalf("contents %+v", r.Result.Contents)
		}
		var b strings.Builder
		for i, v := range ut.vars {
			b.WriteString(ut.literals[i] + vars[v])
		}
		b.WriteString(ut.literals[len(ut.vars)])
		// The server saw the URI as JSON carried it: each invalid UTF-8
		// byte became one U+FFFD.
		var want string
		_ = json.Unmarshal(mustMarshalString(uri), &want)
		if b.String() != want || r.Result.Contents[0].URI != want {
			t.Errorf("%q matched %q as %v, which expands to %q", uri, template, vars, b.String())
		}
	})
}

// mustMarshalString is the JSON encoding of s.
func mustMarshalString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

func FuzzBase64Header(f *testing.F) {
	for _, seed := range []string{"=?base64?ZWNobw==?=", "echo", "=?base64?AA==?=", "=?base64?ZW\nNobw==?=", "=?base64?ZWNobw=?=", "=?base64?_-?=", "=?BASE64?eA==?=", " \t=?base64??= ", "caf\xc3\xa9"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		h := http.Header{"Mcp-Name": {value}}
		got, present, valid := encodedHeader(h, "Mcp-Name")
		if !present {
			t.Fatalf("encodedHeader(%q): not present", value)
		}
		v := strings.Trim(value, " \t")
		if enc, ok := strings.CutPrefix(v, base64Prefix); ok && strings.HasSuffix(enc, base64Suffix) && len(v) >= len(base64Prefix)+len(base64Suffix) {
			enc = strings.TrimSuffix(enc, base64Suffix)
			if valid {
				// Accepted Base64 is canonical: it re-encodes to itself.
				if again := base64.StdEncoding.EncodeToString([]byte(got)); again != enc || !utf8.ValidString(got) {
					t.Errorf("encodedHeader(%q) = %q, which encodes to %q", value, got, again)
				}
			}
		} else if valid != isHeaderText(v) || (valid && got != v) {
			t.Errorf("encodedHeader(%q) = %q, %v", value, got, valid)
		}
		// Any UTF-8 string round-trips through the sentinel form.
		if utf8.ValidString(value) {
			h := http.Header{"Mcp-Name": {fmt.Sprintf("%s%s%s", base64Prefix, base64.StdEncoding.EncodeToString([]byte(value)), base64Suffix)}}
			if back, _, ok := encodedHeader(h, "Mcp-Name"); !ok || back != value {
				t.Errorf("round trip of %q = %q, %v", value, back, ok)
			}
		}
	})
}
