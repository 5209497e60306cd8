//go:build !stdio

// The fair shares' waits with a deadline, which only the HTTP wing has:
// a request waits a while for its slot, a body or an answer for its
// budget, a token introspection for its slot, then is refused. A part of
// limits_share.go, whose lock these take too.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security-%26-endpoint.

package main

import (
	"context"
	"time"
)

// wait takes n units for share, waiting up to d while ctx lasts for them
// to be given back; false means they were not.
func (l *shareLimit) wait(ctx context.Context, share string, n int64, d time.Duration) bool {
	return l.await(ctx, l.enqueue(share, n), d)
}

// waitForTotal is wait, except that a share whose own part is full
// reports false at once: it would wait for units only it gives back.
func (l *shareLimit) waitForTotal(ctx context.Context, share string, n int64, d time.Duration) bool {
	l.mu.Lock()
	if share != "" && l.by[share]+n > l.per {
		l.mu.Unlock()
		return false
	}
	w := l.enqueueLocked(share, n)
	l.mu.Unlock()
	return l.await(ctx, w, d)
}

// await waits up to d while ctx lasts for w (nil: the units were taken
// at once) and reports whether its units were taken.
func (l *shareLimit) await(ctx context.Context, w *shareWaiter, d time.Duration) bool {
	if w == nil {
		return true
	}
	if d > 0 {
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-w.ready:
			return true
		case <-timer.C:
		case <-ctx.Done():
		}
	}
	return l.abandon(w)
}
