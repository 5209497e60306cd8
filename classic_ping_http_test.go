//go:build !stdio

// Tests of classic_ping.go over Streamable HTTP, where a client silent to
// pings ends its session (sessionHTTP.silent).

package main

import (
	"testing"
	"time"
)

// TestPingSilenceEndsHTTPSession: a Streamable HTTP client that answers
// no ping loses its session within two intervals, and the session's
// requests in flight end with it, giving back their request slots, as
// when the session store ends one (DELETE, expiry, eviction).
func TestPingSilenceEndsHTTPSession(t *testing.T) {
	t.Parallel()
	g := newTestGates()
	ts := newTestHTTP(t, newTestServer(t, withGates(g), withFlags("-ping-interval", "1s")), nil)
	c := newTestClassicClient(t, ts)
	c.initialize(classicInitialize(0, version20251125))
	get := c.open("GET")
	defer get.Body.Close()
	posted := make(chan struct{})
	go func() {
		defer close(posted)
		c.post(`{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":"gate"}}`)
	}()
	defer func() { <-posted }() // its POST ends with the session
	mustReceive(t, g.started)
	start := time.Now()
	for buf := make([]byte, 4096); ; {
		if _, err := get.Body.Read(buf); err != nil {
			break // the GET stream ends with the session
		}
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the session of a client silent to pings ended after %v, want within two intervals (2s)", d)
	}
	select {
	case <-g.cancelled:
	case <-time.After(testWait):
		_, held := ts.tr.slots.held("")
		close(g.release) // so that its POST ends
		t.Fatalf("the session ended, but its request in flight runs on, holding %d request slot(s)", held)
	}
}
