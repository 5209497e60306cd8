// Tests of trace context (trace.go): the W3C grammar of traceparent and
// tracestate, where a request's trace comes from (_meta, the HTTP header,
// or afresh), what a handler reads, and that a malformed one is never
// fatal.

package main

import (
	"context"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"
)

// TestParseTraceparent checks one W3C rule per row.
// [§traceparent Header]: https://www.w3.org/TR/trace-context/#traceparent-header
func TestParseTraceparent(t *testing.T) {
	const (
		id     = "0af7651916cd43dd8448eb211c80319c"
		parent = "b7ad6b7169203331"
	)
	for _, tt := range []struct {
		name, in string
		ok       bool
		flags    byte
	}{
		{"version 00, sampled", "00-" + id + "-" + parent + "-01", true, 1},
		{"version 00, not sampled", "00-" + id + "-" + parent + "-00", true, 0},
		{"unknown flags kept", "00-" + id + "-" + parent + "-ff", true, 0xff},
		{"later version read as 00", "cc-" + id + "-" + parent + "-01", true, 1},
		{"later version with more fields", "cc-" + id + "-" + parent + "-01-what-the-future-holds", true, 1},
		{"later version, no dash after the flags", "cc-" + id + "-" + parent + "-01x", false, 0},
		{"version 00 with more fields", "00-" + id + "-" + parent + "-01-x", false, 0},
		{"version ff", "ff-" + id + "-" + parent + "-01", false, 0},
		{"uppercase hex", "00-" + strings.ToUpper(id) + "-" + parent + "-01", false, 0},
		{"zero trace id", "00-" + strings.Repeat("0", 32) + "-" + parent + "-01", false, 0},
		{"zero parent id", "00-" + id + "-" + strings.Repeat("0", 16) + "-01", false, 0},
		{"short trace id", "00-" + id[:31] + "-" + parent + "-01", false, 0},
		{"not hex", "00-" + id[:31] + "g-" + parent + "-01", false, 0},
		{"underscores", "00_" + id + "_" + parent + "_01", false, 0},
		{"empty", "", false, 0},
		{"spaces around", " 00-" + id + "-" + parent + "-01 ", false, 0},
		{"huge", "cc-" + id + "-" + parent + "-01-" + strings.Repeat("x", 300), false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tid, pid, flags, ok := parseTraceparent(tt.in)
			if ok != tt.ok {
				t.Fatalf("parseTraceparent(%q) ok = %v, want %v", tt.in, ok, tt.ok)
			}
			if ok && (hex.EncodeToString(tid[:]) != id || hex.EncodeToString(pid[:]) != parent || flags != tt.flags) {
				t.Errorf("parseTraceparent(%q) = %x %x %x", tt.in, tid, pid, flags)
			}
		})
	}
}

// TestValidTracestate checks one W3C rule per row.
// [§tracestate Header]: https://www.w3.org/TR/trace-context/#tracestate-header
func TestValidTracestate(t *testing.T) {
	many := func(n int) string {
		var parts []string
		for i := range n {
			parts = append(parts, "k"+string(rune('a'+i%26))+strings.Repeat("x", i/26)+"=v")
		}
		return strings.Join(parts, ",")
	}
	for _, tt := range []struct {
		name, in string
		ok       bool
	}{
		{"none", "", true},
		{"one member", "congo=t61rcWkgMzE", true},
		{"two members, blanks", "rojo=00f067aa0ba902b7 ,\tcongo=t61rcWkgMzE", true},
		{"empty members", "a=1,,b=2,", true},
		{"multi-tenant key", "tenant1@vendor=x", true},
		{"tenant starting with a digit", "1tenant@vendor=x", true},
		{"key chars", "a_-*/0=x", true},
		{"value with spaces inside", "a=b c", true},
		{"32 members", many(32), true},
		{"33 members", many(33), false},
		{"uppercase key", "Congo=x", false},
		{"key starting with a digit", "1a=x", false},
		{"no equals", "congo", false},
		{"empty value", "a=", false},
		{"value ending in a space", "a=b ,c=d", true}, // trimmed as blank around the member
		{"value with comma impossible, with equals", "a=b=c", false},
		{"control character", "a=b\x01", false},
		{"duplicate key", "a=1,b=2,a=3", false},
		{"system too long", "t@" + strings.Repeat("s", 15) + "=x", false},
		{"too long", "a=" + strings.Repeat("x", 256) + ",b=" + strings.Repeat("y", 256), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := validTracestate(tt.in); got != tt.ok {
				t.Errorf("validTracestate(%q) = %v, want %v", tt.in, got, tt.ok)
			}
		})
	}
}

// TestTraceContextSources checks where a request's trace comes from:
// _meta first (SEP-414), then what the transport carried (framing: HTTP's
// headers, read by httpFraming, TestHTTPFraming), else a fresh trace; a
// malformed one is skipped, its tracestate with it.
func TestTraceContextSources(t *testing.T) {
	const (
		metaTP   = "00-11111111111111111111111111111111-1111111111111111-01"
		headerTP = "00-22222222222222222222222222222222-2222222222222222-00"
		bad      = "00-zz111111111111111111111111111111-1111111111111111-01"
	)
	for _, tt := range []struct {
		name                     string
		metaParent, metaSt       string
		carriedParent, carriedSt string
		wantTrace, wantState     string // wantTrace "" means fresh
	}{
		{"nothing: fresh", "", "", "", "", "", ""},
		{"_meta", metaTP, "a=1", "", "", "11111111111111111111111111111111", "a=1"},
		{"_meta wins over the transport's", metaTP, "", headerTP, "b=2", "11111111111111111111111111111111", ""},
		{"the transport's", "", "", headerTP, "b=2,c=3", "22222222222222222222222222222222", "b=2,c=3"},
		{"malformed _meta falls back to the transport's", bad, "a=1", headerTP, "", "22222222222222222222222222222222", ""},
		{"malformed _meta alone: fresh", bad, "a=1", "", "", "", ""},
		{"malformed carried alone: fresh", "", "", bad, "b=2", "", ""},
		{"bad tracestate dropped, traceparent kept", metaTP, "A=1", "", "", "11111111111111111111111111111111", ""},
		{"bad carried tracestate dropped", "", "", headerTP, "B=2", "22222222222222222222222222222222", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tc := newTraceContext(tt.metaParent, tt.metaSt, tt.carriedParent, tt.carriedSt)
			if tt.wantTrace == "" {
				if tc.Remote || tc.TraceID == [16]byte{} || tc.ParentID != [8]byte{} || tc.State != "" || tc.Flags != 0 {
					t.Errorf("got %+v, want a fresh trace", tc)
				}
			} else if got := tc.TraceIDString(); got != tt.wantTrace || !tc.Remote || tc.State != tt.wantState {
				t.Errorf("trace %s remote %v state %q, want %s %q", got, tc.Remote, tc.State, tt.wantTrace, tt.wantState)
			}
			if tc.SpanID == [8]byte{} || tc.SpanID == [8]byte(tc.ParentID) {
				t.Errorf("span id %x: want a fresh one of the server's", tc.SpanID)
			}
		})
	}
	a, b := newTraceContext("", "", "", ""), newTraceContext("", "", "", "")
	if a.TraceID == b.TraceID || a.SpanID == b.SpanID {
		t.Errorf("two fresh traces share ids: %+v %+v", a, b)
	}
}

// TestTraceReachesHandler checks that a handler reads the client's trace
// from req.Trace and from its context, that what it passes on continues
// the trace under the server's span, and that a malformed traceparent (or
// one of the wrong type, or under a case-folded key) is ignored: the
// request is served with a fresh trace.
func TestTraceReachesHandler(t *testing.T) {
	type seen struct {
		fromReq, fromCtx traceContext
		ok               bool
	}
	var got seen
	s := newTestServer(t, withSetup(func(s *server) {
		s.addTool(tool{Name: "tracer", Call: func(ctx context.Context, req *request) (*toolResult, error) {
			got.fromReq = req.Trace()
			got.fromCtx, got.ok = traceFromContext(ctx)
			return textResult(req.Trace().Traceparent()), nil
		}})
	}))
	const id = "4bf92f3577b34da6a3ce929d0e0e4736"
	for _, tt := range []struct {
		name, meta string
		remote     bool
	}{
		{"valid", `"traceparent":"00-` + id + `-00f067aa0ba902b7-03","tracestate":"rojo=1"`, true},
		{"malformed", `"traceparent":"00-` + id + `-00f067aa0ba902b7"`, false},
		{"not a string", `"traceparent":42`, false},
		{"case-folded key", `"TraceParent":"00-` + id + `-00f067aa0ba902b7-01"`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got = seen{}
			reply := dispatchLine(t, s, reqMeta("1", "tools/call", `"name":"tracer"`, tt.meta))
			if !strings.Contains(reply, `"result"`) {
				t.Fatalf("reply %s, want a result", reply)
			}
			if !got.ok || got.fromCtx != got.fromReq {
				t.Fatalf("context trace %+v (ok %v), request trace %+v: want the same", got.fromCtx, got.ok, got.fromReq)
			}
			tc := got.fromReq
			if tc.Remote != tt.remote || (tt.remote && tc.TraceIDString() != id) {
				t.Errorf("trace %s remote %v, want remote %v", tc.TraceIDString(), tc.Remote, tt.remote)
			}
			want := "00-" + tc.TraceIDString() + "-" + tc.SpanIDString() + "-0" + string("0123"[tc.Flags&3])
			if !strings.Contains(reply, want) {
				t.Errorf("handler passed on %s, want %s", reply, want)
			}
			if tt.remote && (tc.Tracestate() != "rojo=1" || tc.Flags != 3) {
				t.Errorf("tracestate %q flags %x, want rojo=1 and 03", tc.Tracestate(), tc.Flags)
			}
		})
	}
	if _, ok := traceFromContext(context.Background()); ok {
		t.Errorf("traceFromContext outside a request: ok")
	}
}

// TestTraceOfATask: a task's run continues the trace of the request that
// created it in a span of its own, whose parent is that request's span
// (review B, finding 14: it reused the request's span after it ended).
func TestTraceOfATask(t *testing.T) {
	logs := &syncBuffer{}
	runs := make(chan traceContext, 1)
	s := newTestServer(t, withLogs(logs), withSetup(func(s *server) {
		s.addTool(tool{Name: "traced_task", Task: taskMust, Call: func(ctx context.Context, req *request) (*toolResult, error) {
			runs <- req.Trace()
			return textResult("ok"), nil
		}})
	}))
	const id, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"traced_task","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},"traceparent":"00-` + id + `-` + parent + `-01"}}}`
	if reply := dispatchLine(t, s, line); !strings.Contains(reply, `"resultType":"task"`) {
		t.Fatalf("reply %s, want a task", reply)
	}
	run := mustReceive(t, runs)
	m := regexp.MustCompile(`method=tools/call .* span_id=([0-9a-f]{16})`).FindStringSubmatch(logs.String())
	if m == nil {
		t.Fatalf("no access line with the request's span:\n%s", logs.String())
	}
	if run.TraceIDString() != id || hex.EncodeToString(run.ParentID[:]) != m[1] || run.SpanIDString() == m[1] || !run.Remote {
		t.Errorf("the task's run: trace %s, parent %x, span %s; want trace %s under the request's span %s, in a span of its own",
			run.TraceIDString(), run.ParentID, run.SpanIDString(), id, m[1])
	}
}

// FuzzTraceparent checks the parser on any input: no panic, and an
// accepted value, written back as version 00, parses to the same ids.
func FuzzTraceparent(f *testing.F) {
	f.Add("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	f.Add("cc-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-x")
	f.Add("ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		tid, pid, flags, ok := parseTraceparent(s)
		validTracestate(s)
		if !ok {
			return
		}
		tc := traceContext{TraceID: tid, SpanID: pid, Flags: flags}
		tid2, pid2, flags2, ok := parseTraceparent(tc.Traceparent())
		if !ok || tid2 != tid || pid2 != pid || flags2 != flags&traceFlagsKnown {
			t.Errorf("%q: written back as %q, which reads %x %x %x %v", s, tc.Traceparent(), tid2, pid2, flags2, ok)
		}
	})
}
