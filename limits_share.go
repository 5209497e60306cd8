// Fair shares of the server's global limits: every bound all clients draw from also bounds what
// one client (caller.share; stdio's is "") may hold: -client-share percent, at least a floor
// (docs/RELIABILITY.md, "Fair shares"). shareLimit is the one mechanism (TestSharesOneMechanism).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/tools#security-considerations
// (servers MUST rate limit tool invocations; the same reasoning applies to
// every shared resource), https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security-%26-endpoint.

package main

import (
	"slices"
	"sync"
)

const (
	// defaultClientShare is one client's percent of each global bound: four clients exhaust one.
	defaultClientShare = 25

	// shareFloor is the least share of a count (or the whole, if smaller):
	// a lone client can hold a listen, wait for a bridged answer and call.
	shareFloor = 4
)

// shareOf returns one client's part of total at pct percent: at least floor, at most total.
func shareOf(total int64, pct int, floor int64) int64 {
	return min(total, max(total*int64(pct)/100, floor))
}

// shareLimit is one global bound and every client's share of it, in units (slots, bytes);
// the share "" is bound by the total alone. Units given back go to the waiters that can now
// take what they asked for, in arrival order; a newcomer takes free units at once, even past
// a waiter wanting more, which may time out rather than starve the small ones. Safe for
// concurrent use (TestShareLimit, TestShareLimitWaiters). Waits with a deadline are in
// limits_share_http.go.
type shareLimit struct {
	total int64 // the global bound
	per   int64 // one share's bound

	mu      sync.Mutex // guards used, by, waiters
	used    int64
	by      map[string]int64 // units held, by share; only shares holding some
	waiters []*shareWaiter   // in arrival order
}

// shareWaiter is one wait for units: ready is closed once they are taken.
type shareWaiter struct {
	share string
	n     int64
	ready chan struct{}
}

// newShareLimit returns a bound of total units, per of them for one share.
func newShareLimit(total, per int64) *shareLimit {
	return &shareLimit{total: total, per: min(per, total), by: map[string]int64{}}
}

// tryTakeLocked takes n units for share if the total and the share allow.
func (l *shareLimit) tryTakeLocked(share string, n int64) bool {
	if l.used+n > l.total || (share != "" && l.by[share]+n > l.per) {
		return false
	}
	l.used += n
	if share != "" {
		l.by[share] += n
	}
	return true
}

// take takes n units for share, or reports false at once.
func (l *shareLimit) take(share string, n int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tryTakeLocked(share, n)
}

// enqueue takes n units for share at once (nil), or returns a waiter to wait on or abandon.
func (l *shareLimit) enqueue(share string, n int64) *shareWaiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.enqueueLocked(share, n)
}

// enqueueLocked is enqueue with l.mu held.
func (l *shareLimit) enqueueLocked(share string, n int64) *shareWaiter {
	if l.tryTakeLocked(share, n) {
		return nil
	}
	w := &shareWaiter{share: share, n: n, ready: make(chan struct{})}
	l.waiters = append(l.waiters, w)
	return w
}

// give gives back n units share took, to the waiters in order.
func (l *shareLimit) give(share string, n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.used -= n
	if share != "" {
		if l.by[share] -= n; l.by[share] <= 0 {
			delete(l.by, share)
		}
	}
	for i := 0; i < len(l.waiters) && l.used < l.total; {
		if w := l.waiters[i]; l.tryTakeLocked(w.share, w.n) {
			close(w.ready)
			l.waiters = slices.Delete(l.waiters, i, i+1)
			continue
		}
		i++
	}
}

// held returns the units share holds, and in total.
func (l *shareLimit) held(share string) (mine, all int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.by[share], l.used
}

// shareFull reports whether share's own part, not the total, stops it taking n (errors say which).
func (l *shareLimit) shareFull(share string, n int64) bool {
	mine, _ := l.held(share)
	return share != "" && mine+n > l.per
}

// totalFull reports whether the total has no room for n more units.
func (l *shareLimit) totalFull(n int64) bool {
	_, all := l.held("")
	return all+n > l.total
}

// share returns one client's part of total at -client-share, at least floor.
func (s *server) share(total, floor int64) int64 {
	return shareOf(total, s.limits.clientShare, floor)
}

// abandon stops w waiting. It reports whether the units were taken for w
// meanwhile: they are then the caller's, to use or give back.
func (l *shareLimit) abandon(w *shareWaiter) (taken bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := slices.Index(l.waiters, w); i >= 0 {
		l.waiters = slices.Delete(l.waiters, i, i+1)
		return false
	}
	return true
}
