//go:build !stdio

// Benchmarks of the HTTP wing (absent from the stdio build): SSE events.

package main

import (
	"testing"
)

// BenchmarkSSEEvent frames a typical tools/call reply as one SSE event,
// as httpCall.eventLocked does for a request that streamed notifications.
func BenchmarkSSEEvent(b *testing.B) {
	s := newTestServer(b, withBenchTools(20))
	msg, rerr := parseMessage([]byte(benchCall))
	if rerr != nil {
		b.Fatal(rerr)
	}
	reply := s.dispatch(b.Context(), &msg, exchange{})
	b.ReportAllocs()
	b.SetBytes(int64(len(reply)))
	for b.Loop() {
		if ev := sseEvent(reply); len(ev) <= len(reply) {
			b.Fatalf("sseEvent = %q", ev)
		}
	}
}
