// Tests of the JSON-RPC envelope (rpc.go, jsondecode.go) through the real
// stdio loop: error codes, smuggled keys, id echo, internal errors; and
// its fuzz target, FuzzParseMessage.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"
)

// tripwire is a tool that counts its calls in calls, to prove that a
// message never ran a method.
func tripwire(calls *atomic.Int32) tool {
	return tool{Name: "tripwire", Call: func(ctx context.Context, req *request) (*toolResult, error) {
		calls.Add(1)
		return textResult("tripped"), nil
	}}
}

func TestErrorCodes(t *testing.T) {
	const m = `"_meta":` + metaJSON
	for _, tt := range []struct {
		name   string
		line   string
		code   int
		wantID string // raw JSON of the response id
	}{
		{"parse error: truncated", `{"jsonrpc":"2.0","id":1,`, codeParseError, "null"},
		{"parse error: not JSON", `hello`, codeParseError, "null"},
		{"parse error: invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", codeParseError, "null"},
		{"parse error: two values", `{"jsonrpc":"2.0","id":1,"method":"server/discover"} {}`, codeParseError, "null"},
		{"parse error: trailing comma", `{"jsonrpc":"2.0","id":1,"method":"server/discover",}`, codeParseError, "null"},
		{"invalid request: jsonrpc missing", `{"id":1,"method":"server/discover","params":{` + m + `}}`, codeInvalidRequest, "1"},
		{"invalid request: jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"server/discover","params":{` + m + `}}`, codeInvalidRequest, "1"},
		{"invalid request: jsonrpc a number", `{"jsonrpc":2.0,"id":1,"method":"server/discover","params":{` + m + `}}`, codeInvalidRequest, "1"},
		{"invalid request: null id", `{"jsonrpc":"2.0","id":null,"method":"server/discover","params":{` + m + `}}`, codeInvalidRequest, "null"},
		{"invalid request: fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"server/discover","params":{` + m + `}}`, codeInvalidRequest, "null"},
		{"invalid request: exponent id", `{"jsonrpc":"2.0","id":1e3,"method":"server/discover","params":{` + m + `}}`, codeInvalidRequest, "null"},
		{"invalid request: boolean id", `{"jsonrpc":"2.0","id":true,"method":"server/discover","params":{` + m + `}}`, codeInvalidRequest, "null"},
		{"invalid request: object id", `{"jsonrpc":"2.0","id":{},"method":"server/discover","params":{` + m + `}}`, codeInvalidRequest, "null"},
		{"invalid request: method a number", `{"jsonrpc":"2.0","method":7,"id":2}`, codeInvalidRequest, "2"},
		{"invalid request: method null", `{"jsonrpc":"2.0","id":2,"method":null}`, codeInvalidRequest, "2"},
		{"invalid request: method missing", `{"jsonrpc":"2.0","id":2}`, codeInvalidRequest, "2"},
		{"invalid request: params an array", `{"jsonrpc":"2.0","id":3,"method":"server/discover","params":[]}`, codeInvalidRequest, "3"},
		{"invalid request: params a string", `{"jsonrpc":"2.0","id":3,"method":"server/discover","params":"x"}`, codeInvalidRequest, "3"},
		{"invalid request: params null", `{"jsonrpc":"2.0","id":3,"method":"server/discover","params":null}`, codeInvalidRequest, "3"},
		{"invalid request: batch", `[{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{` + m + `}}]`, codeInvalidRequest, "null"},
		{"invalid request: empty batch", `[]`, codeInvalidRequest, "null"},
		{"invalid request: a string message", `"server/discover"`, codeInvalidRequest, "null"},
		{"invalid request: nested too deep", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"arguments":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}}`, codeInvalidRequest, "null"},
		{"invalid request: a notification as a request", `{"jsonrpc":"2.0","id":6,"method":"notifications/cancelled","params":{"requestId":1}}`, codeInvalidRequest, "6"},
		{"method not found", `{"jsonrpc":"2.0","id":7,"method":"tools/destroy","params":{` + m + `}}`, codeMethodNotFound, "7"},
		{"method not found: empty name", `{"jsonrpc":"2.0","id":7,"method":"","params":{` + m + `}}`, codeMethodNotFound, "7"},
		{"method not found: initialize with modern _meta", `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{` + m + `}}`, codeMethodNotFound, "7"},
		{"invalid params: no _meta", `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`, codeInvalidParams, "8"},
		{"invalid params: unknown tool", req("8", "tools/call", `"name":"nope"`), codeInvalidParams, "8"},
		{"invalid params: tool name not a string", req("8", "tools/call", `"name":5`), codeInvalidParams, "8"},
		{"internal error: panicking tool", req("9", "tools/call", `"name":"explode"`), codeInternalError, "9"},
		{"unsupported version", `{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2024-11-05","io.modelcontextprotocol/clientCapabilities":{}}}}`, codeUnsupportedVersion, "10"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withRegistry("base", "extras"))
			got := mustServeOne(t, s, tt.line)
			if code := errorCode(t, got); code != tt.code {
				t.Errorf("serve(%s) = %s, want code %d", tt.line, got, tt.code)
			}
			if id := responseID(got); string(id) != tt.wantID {
				t.Errorf("serve(%s) id = %s, want %s", tt.line, id, tt.wantID)
			}
		})
	}
}

func TestSmuggledKeysNeverRunAMethod(t *testing.T) {
	const m = `"_meta":` + metaJSON
	const call = `"name":"tripwire","arguments":{}`
	for _, tt := range []struct {
		name, line string
	}{
		{"METHOD beside method", `{"jsonrpc":"2.0","id":1,"method":"tools/list","METHOD":"tools/call","params":{` + call + `,` + m + `}}`},
		{"METHOD alone", `{"jsonrpc":"2.0","id":1,"METHOD":"tools/call","params":{` + call + `,` + m + `}}`},
		{"Method alone", `{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{` + call + `,` + m + `}}`},
		{"duplicate method", `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{` + call + `,` + m + `}}`},
		{"duplicate method, escaped", `{"jsonrpc":"2.0","id":1,"method":"tools/list","\u006dethod":"tools/call","params":{` + call + `,` + m + `}}`},
		{"duplicate method, escaped first", `{"jsonrpc":"2.0","id":1,"\u006Dethod":"tools/call","method":"tools/list","params":{` + call + `,` + m + `}}`},
		{"duplicate params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo",` + m + `},"params":{` + call + `,` + m + `}}`},
		{"long s folds into params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","paramſ":{` + call + `,` + m + `}}`},
		{"long s folds into jsonrpc", `{"jſonrpc":"2.0","id":1,"method":"tools/call","params":{` + call + `,` + m + `}}`},
		{"upper-case ID", `{"jsonrpc":"2.0","ID":1,"method":"tools/call","params":{` + call + `,` + m + `}}`},
		{"NUL in a key", `{"jsonrpc":"2.0","id":1,"method":"tools/list","method\u0000":"tools/call","params":{` + call + `,` + m + `}}`},
		{"NUL in a params key", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + call + `,"x\u0000":1,` + m + `}}`},
		{"params NAME beside name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","NAME":"tripwire","arguments":{"message":"x"},` + m + `}}`},
		{"duplicate params name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","name":"tripwire",` + m + `}}`},
		{"long s folds into arguments", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tripwire","argumentſ":{},` + m + `}}`},
		{"_META beside _meta", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + call + `,` + m + `,"_META":{}}}`},
		{"_meta version folded", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + call + `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/PROTOCOLVERSION":"2025-06-18"}}}`},
		{"_meta capabilities folded", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + call + `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientcapabilities":{}}}}`},
		{"_meta progress token with long s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + call + `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progreſſToken":"t"}}}`},
		{"_meta duplicate version", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + call + `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2025-06-18"}}}`},
		{"as a notification", `{"jsonrpc":"2.0","method":"tools/call","params":{` + call + `,` + m + `}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			s := newTestServer(t)
			s.addTool(tripwire(&calls))
			got := mustServeAll(t, s, tt.line+"\n")
			if n := calls.Load(); n != 0 {
				t.Errorf("serve(%s) ran the tool %d times", tt.line, n)
			}
			for _, line := range got {
				if code := errorCode(t, line); code != codeInvalidRequest {
					t.Errorf("serve(%s) = %s, want code %d", tt.line, line, codeInvalidRequest)
				}
			}
		})
	}
	t.Run("control: the exact spelling runs", func(t *testing.T) {
		var calls atomic.Int32
		s := newTestServer(t)
		s.addTool(tripwire(&calls))
		mustServeOne(t, s, req("1", "tools/call", call))
		if calls.Load() != 1 {
			t.Errorf("tripwire ran %d times, want 1", calls.Load())
		}
	})
}

func TestResponseIDEchoedByteForByte(t *testing.T) {
	for _, tt := range []struct {
		name, id, want string
	}{
		{"small integer", `7`, `7`},
		{"zero", `0`, `0`},
		{"negative", `-12`, `-12`},
		{"huge integer", `123456789012345678901234567890`, `123456789012345678901234567890`},
		{"string", `"abc"`, `"abc"`},
		{"empty string", `""`, `""`},
		{"unicode string", `"été ☃"`, `"été ☃"`},
		{"escaped string", `"\u00e9t\u00e9"`, `"\u00e9t\u00e9"`},
		{"escaped surrogate pair", `"\ud83d\ude00"`, `"\ud83d\ude00"`},
		{"escaped quote and slash", `"a\"b\/c"`, `"a\"b\/c"`},
		{"white space around", ` 42 `, `42`},
	} {
		for _, method := range []string{"tools/call", "no/such/method"} {
			t.Run(tt.name+" "+method, func(t *testing.T) {
				s := newTestServer(t)
				line := req(tt.id, method, `"name":"echo","arguments":{"message":"m"}`)
				got := mustServeOne(t, s, line)
				prefix := `{"jsonrpc":"2.0","id":` + tt.want + `,`
				if !strings.HasPrefix(got, prefix) {
					t.Errorf("serve(%s) = %s, want prefix %s", line, got, prefix)
				}
			})
		}
	}
}

func TestInternalErrorsCarryNoInternals(t *testing.T) {
	var logs syncBuffer
	s := newTestServer(t, withRegistry("base", "extras"), withLogs(&logs))
	s.addResource(resource{
		URI:  "test://broken",
		Name: "broken",
		Read: func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
			return nil, errors.New("dial tcp 10.0.0.7:5432: password authentication failed")
		},
	})
	got := mustServeAll(t, s, req("1", "tools/call", `"name":"explode"`)+"\n"+
		req("2", "resources/read", `"uri":"test://broken"`)+"\n"+
		req("3", "tools/call", `"name":"echo","arguments":{"message":"alive"}`)+"\n")
	if len(got) != 3 {
		t.Fatalf("got %d lines, want 3:\n%s", len(got), strings.Join(got, "\n"))
	}
	byID := map[string]string{}
	for _, line := range got {
		byID[string(responseID(line))] = line
	}
	for _, id := range []string{"1", "2"} {
		line := byID[id]
		if errorCode(t, line) != codeInternalError {
			t.Errorf("id %s: %s, want -32603", id, line)
		}
		for _, secret := range []string{"secret", "shadow", "panic", "goroutine", "10.0.0.7", "password"} {
			if strings.Contains(line, secret) {
				t.Errorf("id %s: %s carries %q", id, line, secret)
			}
		}
	}
	if !strings.Contains(byID["3"], `"text":"alive"`) {
		t.Errorf("after the failures: %s, want the echo", byID["3"])
	}
	for _, want := range []string{"secret internal detail /etc/shadow", "password authentication failed"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
}

// TestRPCErrorIsMatchesCodes: errors.Is matches an *rpcError against the
// sentinel with the same code, whatever the message, and nothing else.
func TestRPCErrorIsMatchesCodes(t *testing.T) {
	sentinels := []*rpcError{errParse, errInvalidRequest, errMethodNotFound, errInvalidParams, errInternal}
	for _, tt := range []struct {
		name string
		err  error
		want *rpcError
	}{
		{"parse error", newError(codeParseError, "parse error: x"), errParse},
		{"invalid request", newError(codeInvalidRequest, "invalid request: batches are accepted only in a 2025-03-26 session"), errInvalidRequest},
		{"method not found", newError(codeMethodNotFound, "method not found: nope"), errMethodNotFound},
		{"invalid params", invalidParams("invalid params: x"), errInvalidParams},
		{"internal error", errCancelled, errInternal},
		{"wrapped", fmt.Errorf("dispatch: %w", invalidParams("invalid cursor")), errInvalidParams},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, s := range sentinels {
				if got := errors.Is(tt.err, s); got != (s == tt.want) {
					t.Errorf("errors.Is(%v, %v) = %v, want %v", tt.err, s, got, s == tt.want)
				}
			}
		})
	}
}

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

// TestWireStringsAreJSON: a string the server writes into a message
// itself (a method, a cacheScope, a bridged request's member names and
// ids) is a JSON string whatever it holds: Go's quoting writes DEL as
// \x7f and other bytes in forms JSON does not have.
func TestWireStringsAreJSON(t *testing.T) {
	odd := "m\x7f\x01\u2028é\xff"
	s := newTestServer(t)
	res, err := s.encodeResult([]byte("1"), result{cache: &cacheHint{TTL: 1, Scope: odd}}, version20260728)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		msg  []byte
	}{
		{"encodeRequest", encodeRequest([]byte("1"), odd, json.RawMessage(`{}`))},
		{"encodeNotification", encodeNotification(odd, map[string]any{})},
		{"encodeResult cacheScope", res.join()},
	} {
		if !json.Valid(tt.msg) {
			t.Errorf("%s wrote %q, not JSON", tt.name, tt.msg)
		}
	}
}
