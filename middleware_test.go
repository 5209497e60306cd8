// Tests of the middleware hook (middleware.go) and of what it and
// handlers read from the request: the principal, the trace context, the
// allowed HTTP headers.

package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// recorder is a middleware that records each call it wraps and what the
// call's request carried.
type recorder struct {
	mu    sync.Mutex // guards calls
	calls []string
}

// middleware records "kind name principal trace-id" then runs the call.
func (rec *recorder) middleware(ctx context.Context, call callInfo, next func(context.Context) error) error {
	tc, _ := traceFromContext(ctx)
	rec.mu.Lock()
	rec.calls = append(rec.calls, fmt.Sprintf("%s %s %q %s", call.Kind, call.Name, call.Request.Principal(), tc.TraceIDString()))
	rec.mu.Unlock()
	return next(ctx)
}

// TestMiddlewareWrapsEveryCall checks that the middleware runs around a
// tool, a prompt, a static resource and a template's resource, with the
// request's principal and trace, and around nothing else (lists,
// completion, a call refused before its handler).
func TestMiddlewareWrapsEveryCall(t *testing.T) {
	rec := &recorder{}
	s := newTestServer(t, withSetup(func(s *server) { s.addMiddleware(rec.middleware) }))
	const trace = "0af7651916cd43dd8448eb211c80319c"
	tp := `"traceparent":"00-` + trace + `-00f067aa0ba902b7-01"`
	c := newTestConn(t, s)
	for i, line := range []string{
		reqMeta("1", "tools/call", `"name":"echo","arguments":{"message":"x"}`, tp),
		reqMeta("2", "prompts/get", `"name":"greet","arguments":{"name":"Ann"}`, tp),
		reqMeta("3", "resources/read", `"uri":"demo://readme"`, tp),
		reqMeta("4", "resources/read", `"uri":"demo://items/42"`, tp),
		req("5", "tools/list", ""),
		req("6", "tools/call", `"name":"nope"`),
		req("7", "tools/call", `"name":"echo","arguments":{}`),
	} {
		c.send(line)
		if got := c.recv(); !strings.Contains(got, fmt.Sprintf(`"id":%d`, i+1)) {
			t.Fatalf("reply %s", got)
		}
	}
	c.close()
	want := []string{
		`tool echo "" ` + trace,
		`prompt greet "" ` + trace,
		`resource demo://readme "" ` + trace,
		`resource demo://items/42 "" ` + trace,
	}
	if !slices.Equal(rec.calls, want) {
		t.Errorf("middleware saw\n%q\nwant\n%q", rec.calls, want)
	}
}

// TestMiddlewareOrderAndContext checks that middleware nest in the order
// added, that a context value one adds reaches the handler, and that a
// middleware sees the handler's error.
func TestMiddlewareOrderAndContext(t *testing.T) {
	type key struct{}
	var order []string
	var seen error
	s := newTestServer(t, withRegistry("base", "extras"), withSetup(func(s *server) {
		s.addMiddleware(func(ctx context.Context, call callInfo, next func(context.Context) error) error {
			order = append(order, "outer in")
			err := next(context.WithValue(ctx, key{}, "from outer"))
			seen = err
			order = append(order, "outer out")
			return err
		})
		s.addMiddleware(func(ctx context.Context, call callInfo, next func(context.Context) error) error {
			order = append(order, "inner in")
			defer func() { order = append(order, "inner out") }()
			return next(ctx)
		})
		s.addTool(tool{Name: "ctxval", Call: func(ctx context.Context, req *request) (*toolResult, error) {
			v, _ := ctx.Value(key{}).(string)
			return textResult(v), nil
		}})
	}))
	if got := dispatchLine(t, s, req("1", "tools/call", `"name":"ctxval"`)); !strings.Contains(got, `"text":"from outer"`) {
		t.Errorf("handler did not see the middleware's context value: %s", got)
	}
	if want := []string{"outer in", "inner in", "inner out", "outer out"}; !slices.Equal(order, want) {
		t.Errorf("order %q, want %q", order, want)
	}
	dispatchLine(t, s, req("2", "tools/call", `"name":"fail"`))
	if seen == nil || !strings.Contains(seen.Error(), "jammed") {
		t.Errorf("middleware saw %v, want the tool's error", seen)
	}
}

// TestMiddlewareRefuses checks what a refusal becomes for each kind of
// call: a protocol error when it is an *rpcError; otherwise a tool error
// for a tool and -32603 for a prompt or a resource; and that the handler
// never ran.
func TestMiddlewareRefuses(t *testing.T) {
	ran := false
	for _, tt := range []struct {
		name string
		err  error
		line string
		want string
	}{
		{"tool, plain error", errors.New("not for you"), req("1", "tools/call", `"name":"probe"`),
			`"content":[{"type":"text","text":"not for you"}],"isError":true`},
		{"tool, protocol error", newError(codeInvalidParams, "forbidden tool"), req("1", "tools/call", `"name":"probe"`),
			`"error":{"code":-32602,"message":"forbidden tool"}`},
		{"prompt, plain error", errors.New("not for you"), req("1", "prompts/get", `"name":"greet","arguments":{"name":"x"}`),
			`"error":{"code":-32603,"message":"internal error"`},
		{"resource, protocol error", newError(codeInvalidParams, "forbidden resource"), req("1", "resources/read", `"uri":"demo://readme"`),
			`"error":{"code":-32602,"message":"forbidden resource"}`},
		{"no error, no call", nil, req("1", "tools/call", `"name":"probe"`),
			`"error":{"code":-32603,"message":"internal error"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withSetup(func(s *server) {
				s.addTool(tool{Name: "probe", Call: func(ctx context.Context, req *request) (*toolResult, error) {
					ran = true
					return textResult("ran"), nil
				}})
				s.addMiddleware(func(ctx context.Context, call callInfo, next func(context.Context) error) error { return tt.err })
			}))
			if got := dispatchLine(t, s, tt.line); !strings.Contains(got, tt.want) {
				t.Errorf("reply %s\nwant it to contain %s", got, tt.want)
			}
			if ran {
				t.Errorf("the handler ran although the middleware refused")
			}
		})
	}
}

// TestMiddlewareEachRound checks that a multi round-trip tool call runs
// the middleware on each round, and that input_required passes through
// it.
func TestMiddlewareEachRound(t *testing.T) {
	rec := &recorder{}
	s := newTestServer(t, withSetup(func(s *server) { s.addMiddleware(rec.middleware) }))
	caps := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}`
	first := dispatchLine(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/x"},"_meta":{`+caps+`}}}`)
	state, _ := jsonPath(mustDecode(t, first), "result.requestState").(string)
	if state == "" {
		t.Fatalf("first round: %s", first)
	}
	retry := dispatchLine(t, s, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/x"},`+
		`"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}},"requestState":"`+state+`","_meta":{`+caps+`}}}`)
	if !strings.Contains(retry, "deleted /x") {
		t.Fatalf("second round: %s", retry)
	}
	if len(rec.calls) != 2 {
		t.Errorf("middleware ran %d times over two rounds: %q", len(rec.calls), rec.calls)
	}
}

// dispatchLine serves one request line as stdio does and returns the
// reply.
func dispatchLine(tb testing.TB, s *server, line string) string {
	tb.Helper()
	msg, rerr := parseMessage([]byte(line))
	if rerr != nil {
		tb.Fatalf("parseMessage(%s) = %v", line, rerr)
	}
	return string(s.dispatch(tb.Context(), &msg, exchange{}))
}
