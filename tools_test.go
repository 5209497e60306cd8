package main

import (
	"context"
	"strings"
	"testing"
)

// TestStructuredContentMatchesOutputSchema: servers MUST provide structured
// results that conform to the tool's outputSchema; one that does not is a
// server bug, answered -32603 with no internals.
// [§Output Schema]: https://modelcontextprotocol.io/specification/2026-07-28/server/tools#output-schema
func TestStructuredContentMatchesOutputSchema(t *testing.T) {
	for _, tt := range []struct {
		name     string
		produced any
		isError  bool
		wantCode int // 0: a result
	}{
		{"conforming result", map[string]any{"sum": 3}, false, 0},
		{"wrong type", map[string]any{"sum": "three"}, false, codeInternalError},
		{"missing required member", map[string]any{"total": 3}, false, codeInternalError},
		{"no structuredContent", nil, false, codeInternalError},
		{"tool error needs no structuredContent", nil, true, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newEmptyServer(t)
			s.addTool(tool{
				Name:         "sum",
				OutputSchema: `{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`,
				Call: func(ctx context.Context, req *request) (*toolResult, error) {
					return &toolResult{Content: []content{textContent("x")}, StructuredContent: tt.produced, IsError: tt.isError}, nil
				},
			})
			got := serveOne(t, s, req("1", "tools/call", `"name":"sum"`))
			if code := errorCode(t, got); code != tt.wantCode {
				t.Errorf("tools/call = %s, want code %d", got, tt.wantCode)
			}
		})
	}
}

// TestCancelledHandlerIsNotAnInternalError: a handler that stops because
// the client cancelled is answered "request cancelled" (when an answer is
// still written at all) and is not logged as a server fault.
func TestCancelledHandlerIsNotAnInternalError(t *testing.T) {
	s, logs := newEmptyServer(t)
	s.addTool(tool{Name: "wait", Call: func(ctx context.Context, req *request) (*toolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	msg, rerr := parseMessage([]byte(req("1", "tools/call", `"name":"wait"`)))
	if rerr != nil {
		t.Fatal(rerr)
	}
	got := string(s.dispatch(ctx, &msg, exchange{}))
	if !strings.Contains(got, `"message":"request cancelled"`) {
		t.Errorf("dispatch = %s, want request cancelled", got)
	}
	if l := logs.String(); strings.Contains(l, "ref=") {
		t.Errorf("cancellation logged as an internal error: %s", l)
	}
}

// TestCompletionContextErrors: a malformed completion context is -32602
// with a message that names what is wrong.
func TestCompletionContextErrors(t *testing.T) {
	for _, tt := range []struct {
		name, context, want string
	}{
		{"context not an object", `[]`, "context must be an object"},
		{"arguments an array", `{"arguments":[]}`, "context.arguments must be an object of strings"},
		{"arguments a number", `{"arguments":5}`, "context.arguments must be an object of strings"},
		{"argument value not a string", `{"arguments":{"a":1}}`, "context.arguments must be an object of strings"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, false)
			got := serveOne(t, s, req("1", "completion/complete",
				`"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"A"},"context":`+tt.context))
			if errorCode(t, got) != codeInvalidParams || !strings.Contains(got, tt.want) {
				t.Errorf("completion/complete with context %s = %s, want -32602 %q", tt.context, got, tt.want)
			}
		})
	}
}

// TestUnknownLogLevelEchoBounded: the error for an unknown log level
// quotes at most a bounded prefix of what the client sent.
func TestUnknownLogLevelEchoBounded(t *testing.T) {
	s, _ := newTestServer(t, false)
	long := strings.Repeat("x", 10000)
	line := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"` + long + `"}}}`
	got := serveOne(t, s, line)
	if errorCode(t, got) != codeInvalidParams || len(got) > 300 {
		t.Errorf("unknown log level answered with %d bytes: %.200s", len(got), got)
	}
}
