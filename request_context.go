// The request's context: the ctx a handler and the middleware receive.
// It is the transport's context with the request's trace context
// (traceFromContext), its timeout (-request-timeout) and its own
// cancellation (notifications/cancelled on stdio), in one value that lives
// inside the request and costs no allocation. It watches its parent and
// its deadline only once something waits on it (Done, or a context derived
// from it); until then Err reads the parent's and the clock, so a handler
// that never waits costs no timer and no registration with its parent.
// Kept for the stdio k=32 row of docs/PERFORMANCE.md: side by side with
// the standard library's leanest arrangement (context.WithValue for the
// trace, WithCancelCause where stdio reads the request, WithTimeoutCause
// at admission), stdio k=32 cost 13.0 against 15.9 µs of server CPU per
// request in the harness (9 rounds) and 14-20 against 16-25 µs per op in
// BenchmarkStdioPipelined (5 rounds, 15-19 % each), 28 allocations
// against 39; HTTP tools/call 142 against 151. context.Cause answers as
// for the standard contexts: the parent's cause, timeoutCause after the
// request timeout, else context.Canceled.
//
// Spec: https://pkg.go.dev/context (the Context contract),
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation

package main

import (
	"context"
	"slices"
	"sync"
	"time"
)

// requestContext is a request's context (request.rctx). bind sets its
// parent once, before it is shared; every other field is guarded.
type requestContext struct {
	parent context.Context
	trace  *traceContext

	mu       sync.Mutex    // guards deadline, timeout, done, err, cause, ended, stop, timer, afters
	deadline time.Time     // when the request timeout ends it; zero for none
	timeout  time.Duration // the request timeout, for its cause
	done     chan struct{} // made by the first Done; closed when the context ends
	err      error         // why it ended; nil while it lasts
	cause    error
	// ended is a cancelled standard context holding cause, made when
	// Value is asked after the end: context.Cause finds it there.
	ended context.Context
	// stop ends the watch on the parent and timer fires at the deadline;
	// both are made with done.
	stop   func() bool
	timer  *time.Timer
	afters []*requestAfter // functions to run at the end (AfterFunc)
}

// requestAfter is one function registered with AfterFunc.
type requestAfter struct{ f func() }

// bind returns r's context, a child of parent. The first call sets the
// parent (stdio binds before it registers the request for cancellation,
// serve otherwise); later calls return it unchanged.
func (r *request) bind(parent context.Context) context.Context {
	if r.rctx.parent == nil {
		r.rctx.parent, r.rctx.trace = parent, &r.trace
	}
	return &r.rctx
}

// setTimeout makes the context end d from now (d > 0): the request
// timeout, applied once the request is admitted; its cause is a
// timeoutCause, which answer recognises (requestTimedOut).
// [§Timeouts]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation#timeouts
func (c *requestContext) setTimeout(d time.Duration) {
	if d <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.timeout, c.deadline = d, time.Now().Add(d)
	if c.done != nil {
		c.timer = time.AfterFunc(d, c.expire)
	}
}

// Deadline returns the earlier of the parent's deadline and the request
// timeout's.
func (c *requestContext) Deadline() (time.Time, bool) {
	d, ok := c.parent.Deadline()
	c.mu.Lock()
	own := c.deadline
	c.mu.Unlock()
	if !own.IsZero() && (!ok || own.Before(d)) {
		return own, true
	}
	return d, ok
}

// Done returns a channel closed when the context ends. The first call
// starts watching the parent and the deadline.
func (c *requestContext) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		if c.err != nil {
			close(c.done)
			return c.done
		}
		// Both run their function on a goroutine of their own, which
		// takes c.mu after this call has released it.
		c.stop = context.AfterFunc(c.parent, c.parentEnded)
		if !c.deadline.IsZero() {
			c.timer = time.AfterFunc(time.Until(c.deadline), c.expire)
		}
	}
	return c.done
}

// Err returns why the context ended, nil while it lasts: the parent's
// error once the parent has ended, DeadlineExceeded once the request
// timeout has passed, Canceled once the request was cancelled or ended.
func (c *requestContext) Err() error {
	c.mu.Lock()
	err, deadline, timeout := c.err, c.deadline, c.timeout
	c.mu.Unlock()
	switch {
	case err != nil:
		return err
	case c.parent.Err() != nil:
		c.parentEnded()
	case !deadline.IsZero() && !time.Now().Before(deadline):
		c.end(context.DeadlineExceeded, &timeoutCause{after: timeout})
	default:
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Value returns the request's trace context for traceKey, and otherwise
// what the parent holds. Once the context has ended, the standard
// library's own key (through which context.Cause finds a cause) finds
// this context's cause first.
func (c *requestContext) Value(key any) any {
	if key == (traceKey{}) {
		return c.trace
	}
	if c.Err() != nil {
		c.mu.Lock()
		if c.ended == nil {
			ended, cancel := context.WithCancelCause(context.Background())
			cancel(c.cause)
			c.ended = ended
		}
		ended := c.ended
		c.mu.Unlock()
		// ended holds nothing but the standard library's key: any other
		// key is the parent's.
		if v := ended.Value(key); v != nil {
			return v
		}
	}
	return c.parent.Value(key)
}

// AfterFunc runs f on a goroutine of its own once the context ends; stop
// unregisters it and reports whether it did so before f started. The
// contexts derived from this one use it instead of a goroutine each
// waiting on Done.
func (c *requestContext) AfterFunc(f func()) (stop func() bool) {
	c.Done()
	a := &requestAfter{f: f}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	c.afters = append(c.afters, a)
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		i := slices.Index(c.afters, a)
		if i < 0 {
			return false
		}
		c.afters = slices.Delete(c.afters, i, i+1)
		return true
	}
}

// cancel ends the context with context.Canceled: the client cancelled the
// request, or it has been answered (serve).
func (c *requestContext) cancel() { c.end(context.Canceled, nil) }

// parentEnded ends the context with the parent's error and cause.
func (c *requestContext) parentEnded() {
	c.end(c.parent.Err(), context.Cause(c.parent))
}

// expire ends the context at the request timeout.
func (c *requestContext) expire() {
	c.mu.Lock()
	timeout := c.timeout
	c.mu.Unlock()
	c.end(context.DeadlineExceeded, &timeoutCause{after: timeout})
}

// end ends the context, once: the first err and cause stay (a nil cause
// is err), Done's channel is closed, the watches stop and the AfterFunc
// functions start.
func (c *requestContext) end(err, cause error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	if cause == nil {
		cause = err
	}
	c.err, c.cause = err, cause
	if c.done != nil {
		close(c.done)
	}
	stop, timer, afters := c.stop, c.timer, c.afters
	c.stop, c.timer, c.afters = nil, nil, nil
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
	if timer != nil {
		timer.Stop()
	}
	for _, a := range afters {
		go a.f()
	}
}
