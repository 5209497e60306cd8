// Tests of the fair shares (limits_share.go): the rule that sizes a share,
// and the bound that enforces a total and a share per client.

package main

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

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

// TestShareLimit checks the bound: a share stops at its part, another
// share still takes, the total stops everyone, "" meets the total alone,
// giving back makes room (and wakes a waiter), and a wait gives up.
func TestShareLimit(t *testing.T) {
	l := newShareLimit(10, 4)
	for i := range 4 {
		if !l.take("a", 1) {
			t.Fatalf("take %d of a's 4 refused", i+1)
		}
	}
	if l.take("a", 1) || !l.shareFull("a", 1) {
		t.Errorf("a fifth unit for a: taken, or not its share that is full")
	}
	if !l.take("b", 4) {
		t.Errorf("b's 4 refused while a holds its 4")
	}
	if !l.take("", 2) {
		t.Errorf(`"" refused while the total has 2 left`)
	}
	if l.take("c", 1) || l.shareFull("c", 1) {
		t.Errorf("c took a unit of a full total, or was told its share is full")
	}
	if mine, all := l.held("a"); mine != 4 || all != 10 {
		t.Errorf("held(a) = %d, %d; want 4, 10", mine, all)
	}
	got := make(chan bool)
	go func() { got <- l.wait(t.Context(), "c", 1, testWait) }()
	l.give("a", 1)
	if !mustReceive(t, got) {
		t.Errorf("a waiter was not given the unit given back")
	}
	if l.wait(t.Context(), "c", 1, time.Millisecond) {
		t.Errorf("wait on a full total succeeded")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if l.wait(ctx, "c", 1, testWait) {
		t.Errorf("wait with an ended context succeeded")
	}
	l.give("b", 4)
	if mine, all := l.held("b"); mine != 0 || all != 6 || len(l.by) != 2 {
		t.Errorf("after b gave all back: held(b) = %d, %d, %d shares remembered; want 0, 6, 2", mine, all, len(l.by))
	}
}

// TestShareLimitWaiters checks the queue of waiters: units given back go
// to the first waiter that may take them (a waiter whose own share is
// full is passed over), only those are woken, and an abandoned wait
// that was served meanwhile keeps its units.
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
	if l.abandon(second) {
		t.Errorf("abandon of a waiter never served = true")
	}
	late := l.enqueue("e", 1)
	l.give("c", 1)
	if !l.abandon(late) {
		t.Errorf("abandon of a waiter served meanwhile = false, want its units kept")
	}
	if mine, all := l.held("e"); mine != 1 || all != 4 {
		t.Errorf("held(e) = %d, %d; want 1, 4", mine, all)
	}
}

// TestShareLimitWaitForTotal: a share whose own part is full is refused
// at once, however long it may wait, and in the same step as it would
// have taken (introspection slots: a client past its share is never
// queued behind itself); a share with room waits for the total and gets
// the units given back.
func TestShareLimitWaitForTotal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newShareLimit(2, 1)
		if !l.waitForTotal(t.Context(), "a", 1, time.Hour) {
			t.Fatal("a's first unit refused")
		}
		start := time.Now()
		if l.waitForTotal(t.Context(), "a", 1, time.Hour) || time.Since(start) != 0 {
			t.Errorf("a past its share: taken, or refused after %v; want refused at once", time.Since(start))
		}
		l.take("b", 1)
		got := make(chan bool, 1)
		go func() { got <- l.waitForTotal(context.Background(), "c", 1, time.Hour) }()
		synctest.Wait()
		l.give("a", 1)
		if !<-got || time.Since(start) != 0 {
			t.Errorf("c waiting for the total: not given a's unit")
		}
	})
}
