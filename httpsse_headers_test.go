//go:build !stdio

// Tests of the Streamable HTTP headers that mirror the body
// (httpsse_headers.go) beyond TestHTTPRules: their encoding, fuzzed, and
// the x-mcp-header declarations registration refuses.

package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

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

// TestAddToolHeaderDeclarations checks that registration refuses invalid
// x-mcp-header annotations, also on tools that validate their own
// arguments.
func TestAddToolHeaderDeclarations(t *testing.T) {
	for _, tt := range []struct {
		name, schema     string
		handlerValidates bool
		wantPanic        bool
	}{
		{"valid", `{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}`, false, false},
		{"space in name", `{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"My Region"}}}`, false, true},
		{"number type", `{"type":"object","properties":{"r":{"type":"number","x-mcp-header":"R"}}}`, false, true},
		{"duplicate ignoring case", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"R"},"b":{"type":"string","x-mcp-header":"r"}}}`, false, true},
		{"under items", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"R"}}}}`, false, true},
		{"handler-validated valid", `{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"R"}},"anyOf":[{"required":["r"]}]}`, true, false},
		{"handler-validated bad name", `{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"R:1"}},"anyOf":[{"required":["r"]}]}`, true, true},
		{"handler-validated under anyOf", `{"type":"object","anyOf":[{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}]}`, true, true},
		{"handler-validated under $defs", `{"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"R"}},"properties":{"r":{"$ref":"#/$defs/d"}}}`, true, true},
		{"handler-validated object type", `{"type":"object","properties":{"r":{"type":"object","x-mcp-header":"R"}},"anyOf":[{}]}`, true, true},
		{"handler-validated at root", `{"type":"object","x-mcp-header":"R","anyOf":[{}]}`, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withRegistry())
			defer func() {
				if p := recover(); (p != nil) != tt.wantPanic {
					t.Errorf("addTool(%s) panic = %v, want panic %v", tt.schema, p, tt.wantPanic)
				}
			}()
			s.addTool(tool{Name: "t", InputSchema: tt.schema, HandlerValidates: tt.handlerValidates,
				Call: func(ctx context.Context, req *request) (*toolResult, error) { return textResult(""), nil }})
		})
	}
}

// TestHTTPFraming checks what an HTTP request hands the core beside its
// message (httpFraming): the session hints only where the transport looks
// sessions up per message, the one traceparent header (a repeated one is
// ambiguous: none), the tracestate headers joined, blanks trimmed, and the
// header map itself for req.Header.
func TestHTTPFraming(t *testing.T) {
	const tp = "00-22222222222222222222222222222222-2222222222222222-00"
	for _, tt := range []struct {
		name          string
		h             http.Header
		hints         bool
		want          framing // header is always h
		wantHandlerUA string
	}{
		{"nothing", http.Header{}, true, framing{lateSession: true}, ""},
		{"session id and version", http.Header{"Mcp-Session-Id": {"abc"}, "Mcp-Protocol-Version": {" 2025-06-18\t"}}, true,
			framing{lateSession: true, namesSession: true, version: "2025-06-18"}, ""},
		{"no hints for a transport that hands its session over", http.Header{"Mcp-Session-Id": {"abc"}, "Mcp-Protocol-Version": {"2025-06-18"}}, false,
			framing{}, ""},
		{"one traceparent, tracestates joined", http.Header{"Traceparent": {" " + tp + "\t"}, "Tracestate": {"b=2", "c=3"}}, false,
			framing{traceparent: tp, tracestate: "b=2,c=3"}, ""},
		{"repeated traceparent ignored", http.Header{"Traceparent": {tp, tp}, "Tracestate": {"b=2"}}, false, framing{}, ""},
		{"handler headers, never Authorization", http.Header{"User-Agent": {"agent/1"}, "Authorization": {"Bearer x"}}, false, framing{}, "agent/1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := httpFraming(tt.h, tt.hints)
			if got.lateSession != tt.want.lateSession || got.namesSession != tt.want.namesSession || got.version != tt.want.version ||
				got.traceparent != tt.want.traceparent || got.tracestate != tt.want.tracestate {
				t.Errorf("httpFraming = %+v, want %+v", got, tt.want)
			}
			req := &request{header: got.header}
			if ua := req.Header("user-agent"); ua != tt.wantHandlerUA {
				t.Errorf("req.Header(user-agent) = %q, want %q", ua, tt.wantHandlerUA)
			}
			if a := req.Header("Authorization"); a != "" {
				t.Errorf("req.Header(Authorization) = %q, want nothing", a)
			}
		})
	}
}

// TestEveryPathCarriesFraming: a request's handler sees the trace context
// and the readable headers its transport carried, on every path that
// builds a request: a Streamable HTTP POST (modern, and in a classic
// session), a 2025-03-26 batch, a 2024-11-05 POST, and over stdio the
// trace context in _meta, where SEP-414 puts it.
func TestEveryPathCarriesFraming(t *testing.T) {
	const (
		traceID  = "4bf92f3577b34da6a3ce929d0e0e4736"
		carried  = "00-" + traceID + "-00f067aa0ba902b7-01"
		agent    = "probe/2.0"
		probeArg = `"name":"probe"`
	)
	type seen struct{ trace, agent string }
	saw := make(chan seen, 1)
	s := newTestServer(t, withSetup(func(s *server) {
		s.addTool(tool{Name: "probe", Call: func(ctx context.Context, req *request) (*toolResult, error) {
			saw <- seen{req.Trace().TraceIDString(), req.Header("User-Agent")}
			return textResult("ok"), nil
		}})
	}))
	ts := newTestHTTP(t, s, nil)
	headers := []string{"Traceparent: " + carried, "User-Agent: " + agent}
	call := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s}}`, id, probeArg)
	}
	for _, tt := range []struct {
		name      string
		send      func(t *testing.T)
		wantAgent string
	}{
		{"Streamable HTTP, modern", func(t *testing.T) {
			mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", req("1", "tools/call", probeArg), headers))
		}, agent},
		{"Streamable HTTP, classic session", func(t *testing.T) {
			c := newTestClassicClient(t, ts)
			c.initialize(classicInitialize(1, version20251125))
			c.post(call(2), headers...)
		}, agent},
		{"Streamable HTTP, 2025-03-26 batch", func(t *testing.T) {
			c := newTestClassicClient(t, ts)
			c.initialize(classicInitialize(1, version20250326))
			c.post("["+call(2)+"]", headers...)
		}, agent},
		{"2024-11-05 HTTP+SSE", func(t *testing.T) {
			c := newTestClassicSSEClient(t, ts)
			c.post("", classicInitialize(1, version20241105))
			c.next()
			c.post("", call(2), headers...)
			c.next()
		}, agent},
		{"stdio, _meta", func(t *testing.T) {
			mustServeOne(t, s, reqMeta("1", "tools/call", probeArg, `"traceparent":"`+carried+`"`))
		}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.send(t)
			select {
			case got := <-saw:
				if got.trace != traceID || got.agent != tt.wantAgent {
					t.Errorf("handler saw trace %s and User-Agent %q, want %s and %q", got.trace, got.agent, traceID, tt.wantAgent)
				}
			default:
				t.Fatal("the handler did not run")
			}
		})
	}
}
