// Tests of the request's context against the Context contract and the
// standard contexts it replaces (WithCancel, WithTimeoutCause, WithValue).

package main

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// parentKey is a value key the tests' parents carry.
type parentKey struct{}

// TestRequestContextEnds checks every way a request's context ends, each
// with and without a waiter on Done: its Err, its cause (context.Cause),
// Done closed, a derived context and an AfterFunc run, and no goroutine
// left behind (synctest fails on one).
func TestRequestContextEnds(t *testing.T) {
	errGone := errors.New("client gone")
	for _, tt := range []struct {
		name      string
		end       func(parentCancel context.CancelCauseFunc, c *requestContext)
		wantErr   error
		wantCause func(error) bool
	}{
		{"parent cancelled", func(pc context.CancelCauseFunc, c *requestContext) { pc(errGone) },
			context.Canceled, func(e error) bool { return e == errGone }},
		{"request cancelled", func(pc context.CancelCauseFunc, c *requestContext) { c.cancel() },
			context.Canceled, func(e error) bool { return e == context.Canceled }},
		{"request timeout", func(pc context.CancelCauseFunc, c *requestContext) { time.Sleep(time.Minute) },
			context.DeadlineExceeded, func(e error) bool { var tc *timeoutCause; return errors.As(e, &tc) && tc.after == time.Minute }},
	} {
		for _, waited := range []bool{false, true} {
			t.Run(tt.name+map[bool]string{false: "", true: ", waited on"}[waited], func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					parent, parentCancel := context.WithCancelCause(context.WithValue(t.Context(), parentKey{}, "p"))
					defer parentCancel(nil)
					req := &request{}
					ctx := req.bind(parent)
					req.rctx.setTimeout(time.Minute)
					if err := ctx.Err(); err != nil {
						t.Fatalf("Err() = %v before the end, want nil", err)
					}
					if cause := context.Cause(ctx); cause != nil {
						t.Fatalf("Cause() = %v before the end, want nil", cause)
					}
					ran := make(chan struct{})
					var derived context.Context
					if waited {
						var stop context.CancelFunc
						derived, stop = context.WithCancel(ctx)
						defer stop()
						context.AfterFunc(ctx, func() { close(ran) })
						_ = ctx.Done()
					}
					tt.end(parentCancel, &req.rctx)
					if err := ctx.Err(); err != tt.wantErr {
						t.Errorf("Err() = %v, want %v", err, tt.wantErr)
					}
					if cause := context.Cause(ctx); !tt.wantCause(cause) {
						t.Errorf("Cause() = %v", cause)
					}
					select {
					case <-ctx.Done():
					default:
						t.Error("Done() not closed after the end")
					}
					if waited {
						<-ran
						<-derived.Done()
						if cause := context.Cause(derived); !tt.wantCause(cause) {
							t.Errorf("derived context's Cause() = %v", cause)
						}
					}
					if v := ctx.Value(parentKey{}); v != "p" {
						t.Errorf("Value(parentKey) = %v after the end, want the parent's", v)
					}
					req.rctx.cancel() // what serve does when the request is answered
					if err := ctx.Err(); err != tt.wantErr {
						t.Errorf("Err() = %v after serve's cancel, want the first end's %v", err, tt.wantErr)
					}
				})
			})
		}
	}
}

// TestRequestContextValuesAndDeadline checks the trace context, the
// parent's values and the earlier of the two deadlines.
func TestRequestContextValuesAndDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		parent, cancel := context.WithTimeout(context.WithValue(t.Context(), parentKey{}, "p"), time.Hour)
		defer cancel()
		req := &request{trace: traceContext{TraceID: [16]byte{1}}}
		ctx := req.bind(parent)
		if tc, ok := traceFromContext(ctx); !ok || tc.TraceID != req.trace.TraceID {
			t.Errorf("traceFromContext = %v, %v; want the request's", tc, ok)
		}
		if v := ctx.Value(parentKey{}); v != "p" {
			t.Errorf("Value(parentKey) = %v, want the parent's", v)
		}
		if d, ok := ctx.Deadline(); !ok || !d.Equal(time.Now().Add(time.Hour)) {
			t.Errorf("Deadline() = %v, %v; want the parent's", d, ok)
		}
		req.rctx.setTimeout(time.Minute)
		if d, ok := ctx.Deadline(); !ok || !d.Equal(time.Now().Add(time.Minute)) {
			t.Errorf("Deadline() = %v, %v; want the request timeout's", d, ok)
		}
		req.rctx.cancel()
	})
}

// TestRequestContextLazy checks that a request whose handler never waits
// costs no allocation: no timer, no registration with its parent.
func TestRequestContextLazy(t *testing.T) {
	parent, cancel := context.WithCancel(t.Context())
	defer cancel()
	reqs := make([]request, 101) // AllocsPerRun's warm-up run, then 100
	n := 0
	allocs := testing.AllocsPerRun(100, func() {
		req := &reqs[n]
		n++
		ctx := req.bind(parent)
		req.rctx.setTimeout(time.Minute)
		if ctx.Err() != nil {
			t.Fatal("ended early")
		}
		req.rctx.cancel()
	})
	if allocs != 0 {
		t.Errorf("a request context that nobody waited on allocated %v times, want 0", allocs)
	}
}
