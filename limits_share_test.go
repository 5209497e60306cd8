// Tests of the fair shares (limits_share.go): the rule that sizes a share
// and the order waiters are served in. The bound itself is driven with
// its waits (TestShareLimit, limits_share_http_test.go).

package main

import "testing"

// TestShareOf checks the one rule for every share: pct percent of the
// bound, at least the floor, never more than the bound.
func TestShareOf(t *testing.T) {
	for _, tt := range []struct {
		name                string
		total, floor, share int64
		pct                 int
	}{
		{"a quarter of the requests", 256, shareFloor, 64, 25},
		{"a quarter of the listens", 32, shareFloor, 8, 25},
		{"a quarter of the sessions", 1000, shareFloor, 250, 25},
		{"the floor of a small bound", 8, shareFloor, 4, 25},
		{"the whole of a bound under the floor", 3, shareFloor, 3, 25},
		{"a byte budget: at least one item", 64 << 20, 32 << 20, 32 << 20, 25},
		{"shares off", 256, shareFloor, 256, 100},
	} {
		if got := shareOf(tt.total, tt.pct, tt.floor); got != tt.share {
			t.Errorf("%s: shareOf(%d, %d, %d) = %d, want %d", tt.name, tt.total, tt.pct, tt.floor, got, tt.share)
		}
	}
}

// TestShareLimitWaiters checks the queue of waiters: units given back go
// to the first waiter that may take them (a waiter whose own share is
// full is passed over), and only those are woken.
func TestShareLimitWaiters(t *testing.T) {
	l := newShareLimit(4, 2)
	l.take("a", 2)
	l.take("b", 2)
	full := l.enqueue("a", 1) // a's share is full: it must wait for a's own
	first := l.enqueue("c", 1)
	second := l.enqueue("d", 1)
	if full == nil || first == nil || second == nil {
		t.Fatal("took units from a full bound")
	}
	l.give("b", 1)
	select {
	case <-first.ready:
	default:
		t.Fatal("the first waiter that may take the unit was not served")
	}
	for _, w := range []*shareWaiter{full, second} {
		select {
		case <-w.ready:
			t.Errorf("waiter of %s served with nothing to take", w.share)
		default:
		}
	}
	l.give("a", 1)
	<-full.ready // a's own unit: the total has room for it again
}
