//go:build !stdio

// Tests of the fair shares' waits with a deadline (limits_share_http.go).

package main

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

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

// TestShareLimitAbandon checks abandon: a wait never served is dropped,
// and one served meanwhile keeps its units.
func TestShareLimitAbandon(t *testing.T) {
	l := newShareLimit(4, 2)
	l.take("a", 2)
	l.take("b", 2)
	second := l.enqueue("d", 1)
	if l.abandon(second) {
		t.Errorf("abandon of a waiter never served = true")
	}
	late := l.enqueue("e", 1)
	l.give("b", 1)
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
