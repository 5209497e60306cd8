// Tests of classic_ping.go: keep-alive pings to classic clients, and a
// client that stops answering them noticed within the interval (the
// transcript testdata/classic/ping.txt shows the exchange on each
// transport).

package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestKeepAlivePings pings a classic stdio client every second: it
// answers the first ping, then falls silent; the silence is logged when
// the next ping is due, one interval after the unanswered one, and the
// session goes on (stdio's decision).
func TestKeepAlivePings(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs bytes.Buffer
		s := newTestServer(t, withRegistry(), withFlags("-ping-interval", "1s"), withLogs(&logs))
		c := newTestConn(t, s)
		c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"quiet","version":"1"}}}`)
		c.recv()
		start := time.Now()
		c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		ping := c.recv()
		if want := `{"jsonrpc":"2.0","id":"baremcp-ping-1","method":"ping","params":{}}`; ping != want {
			t.Fatalf("first ping %s, want %s", ping, want)
		}
		if d := time.Since(start); d != time.Second {
			t.Errorf("first ping after %v, want 1s", d)
		}
		c.send(`{"jsonrpc":"2.0","id":"baremcp-ping-1","result":{}}`)
		unanswered := c.recv() // the second ping, left unanswered
		sent := time.Now()
		c.recv() // the third: by now the silence is noticed
		synctest.Wait()
		if d := time.Since(sent); d > time.Second {
			t.Errorf("the silence was noticed %v after the unanswered ping, want at most the interval (1s)", d)
		}
		if n := strings.Count(logs.String(), "did not answer a ping"); n != 1 {
			t.Errorf("the logs say %d times that the client did not answer, want 1 (for %s):\n%s", n, unanswered, logs.String())
		}
		if !strings.Contains(logs.String(), `client=quiet`) {
			t.Errorf("the warning does not name the client:\n%s", logs.String())
		}
		// The session goes on: requests are still served.
		c.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		for line := c.recv(); !strings.Contains(line, `"id":2`); line = c.recv() {
		}
	})
}

// TestPingIntervalFlag checks -ping-interval's bounds through run: 0
// (never) and minPingInterval or more start; anything shorter, negative
// included, is refused with a message naming the flag and its bound.
func TestPingIntervalFlag(t *testing.T) {
	for _, tt := range []struct {
		value   string
		wantErr string // "" starts
	}{
		{"0", ""},
		{"1s", ""},
		{"2m", ""},
		{"999ms", "-ping-interval must be 0 (never) or at least 1s, not 999ms"},
		{"1ns", "-ping-interval must be 0 (never) or at least 1s, not 1ns"},
		{"-1s", "-ping-interval must be 0 (never) or at least 1s, not -1s"},
	} {
		t.Run(tt.value, func(t *testing.T) {
			args := []string{"-ping-interval", tt.value}
			err := run(t.Context(), args, strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr) {
				t.Errorf("run(%q) = %v, want %q", args, err, tt.wantErr)
			}
		})
	}
}

// TestKeepAliveOncePerSession: notifications/initialized sent again starts
// no second ping loop (each repeat started one: over HTTP, a goroutine a
// POST for as long as the session lives). One loop pings once an
// interval: the first ping after 1s, the next after 2s.
func TestKeepAliveOncePerSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, withRegistry(), withFlags("-ping-interval", "1s"))
		c := newTestConn(t, s)
		c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"again","version":"1"}}}`)
		c.recv()
		start := time.Now()
		for range 3 {
			c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		}
		for i, want := range []time.Duration{time.Second, 2 * time.Second} {
			ping := c.recv()
			if !strings.Contains(ping, `"method":"ping"`) {
				t.Fatalf("line %d: %s, want a ping", i+1, ping)
			}
			if d := time.Since(start); d != want {
				t.Errorf("ping %d after %v, want %v: a ping loop per notifications/initialized", i+1, d, want)
			}
		}
	})
}
