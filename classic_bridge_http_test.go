//go:build !stdio

// Tests of classic_bridge.go that need the HTTP wing (absent from the stdio build).

package main

import (
	"bufio"
	"context"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestBridgeHTTPDisconnect checks that a client leaving the POST aborts a
// waiting bridge and removes its pending entry.
func TestBridgeHTTPDisconnect(t *testing.T) {
	ts := newTestHTTP(t, newTestServer(t), nil)
	c := newTestClassicClient(t, ts)
	c.initialize(bridgeInit(version20251125, `{"roots":{}}`))
	ctx, cancel := context.WithCancel(t.Context())
	resp := c.openContext(ctx, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_roots"}}`)
	ev, ok := nextSSE(bufio.NewReader(resp.Body))
	if !ok || !strings.Contains(ev, `"roots/list"`) {
		t.Fatalf("first event = %q, want roots/list", ev)
	}
	sess := mustSession(t, ts, c.sid)
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(testWait)
	for {
		sess.mu.Lock()
		n := len(sess.pending)
		sess.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("pending request still registered after the client left")
		}
		runtime.Gosched() // polling with a deadline: the abort runs on the server's goroutine
	}
	if status, _, _ := c.post(`{"jsonrpc":"2.0","id":"baremcp-1","result":{"roots":[]}}`); status != http.StatusAccepted {
		t.Errorf("late answer: status %d, want 202", status)
	}
}
