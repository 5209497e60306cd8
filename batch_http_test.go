//go:build !stdio

// Tests of batch.go that need the HTTP wing (absent from the stdio build).

package main

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestBatchOnlyIn20250326 sends one batch in every kind of session: only
// a 2025-03-26 session answers it (an array); everywhere else it is one
// -32600 and nothing of it is served (stdio: a line with id null; HTTP:
// 400, or 404 for a session that does not exist).
// [§Batching]: https://modelcontextprotocol.io/specification/2025-03-26/basic#batching
func TestBatchOnlyIn20250326(t *testing.T) {
	const batch = `[{"jsonrpc":"2.0","id":7,"method":"ping"}]`
	const refused = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: batches are accepted only in a 2025-03-26 session"}}`
	const served = `[{"jsonrpc":"2.0","id":7,"result":{}}]`
	t.Run("stdio", func(t *testing.T) {
		for _, tt := range []struct {
			name, version string // version "" sends no initialize
			flags         []string
			want          string
		}{
			{"before initialize", "", nil, refused},
			{"2024-11-05 session", version20241105, nil, refused},
			{"2025-03-26 session", version20250326, nil, served},
			{"2025-06-18 session", version20250618, nil, refused},
			{"2025-11-25 session", version20251125, nil, refused},
			{"-modern-only", "", []string{"-modern-only"}, refused},
		} {
			t.Run(tt.name, func(t *testing.T) {
				c := newTestConn(t, newTestServer(t, withFlags(tt.flags...)))
				if tt.version != "" {
					c.send(classicInitialize(1, tt.version))
					c.recv()
				}
				c.send(batch)
				if got := c.recv(); !sameJSON(t, got, tt.want) {
					t.Errorf("batch: got %s, want %s", got, tt.want)
				}
				c.send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
				if got := c.recv(); !strings.Contains(got, `"id":8`) {
					t.Errorf("after the batch a ping got %s", got)
				}
			})
		}
	})
	t.Run("http", func(t *testing.T) {
		for _, tt := range []struct {
			name, version string // version "" opens no session
			flags         []string
			sid           string // overrides the session id
			status        int
			want          string
		}{
			{"no session", "", nil, "", 400, refused},
			{"2024-11-05 session", version20241105, nil, "", 400, refused},
			{"2025-03-26 session", version20250326, nil, "", 200, served},
			{"2025-06-18 session", version20250618, nil, "", 400, refused},
			{"2025-11-25 session", version20251125, nil, "", 400, refused},
			{"unknown session", "", nil, "nope", 404, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"session not found: initialize a new session"}}`},
			{"-modern-only ignores the session id", "", []string{"-modern-only"}, "nope", 400, refused},
		} {
			t.Run(tt.name, func(t *testing.T) {
				ts := newTestHTTP(t, newTestServer(t, withFlags(tt.flags...)), nil)
				c := newTestClassicClient(t, ts)
				if tt.version != "" {
					c.initialize(classicInitialize(1, tt.version))
				}
				if tt.sid != "" {
					c.sid = tt.sid
				}
				got := mustDo(t, ts.Client(), c.request(t.Context(), batch))
				if got.status != tt.status || !sameJSON(t, string(got.body), tt.want) {
					t.Errorf("batch: status %d %s, want %d %s", got.status, got.body, tt.status, tt.want)
				}
			})
		}
	})
}

// TestBatchAttackBounds drives hostile batches into a 2025-03-26 session
// and asserts the bounds: ten thousand entries are refused after reading
// 65 of them (constant allocations, nothing served), an entry nested a
// hundred thousand levels deep is refused alone without recursion, and a
// batch larger than the request slots is served in one slot.
func TestBatchAttackBounds(t *testing.T) {
	huge := pingBatch(10000)
	deep := "[" + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `,{"jsonrpc":"2.0","id":1,"method":"ping"}]`
	t.Run("ten thousand entries", func(t *testing.T) {
		small := testing.AllocsPerRun(10, func() { splitBatch([]byte(pingBatch(maxBatchEntries + 1))) })
		big := testing.AllocsPerRun(10, func() { splitBatch([]byte(huge)) })
		if big > small {
			t.Errorf("splitBatch allocates %v times on 10000 entries, %v on %d: the work is not bounded", big, small, maxBatchEntries+1)
		}
		logs := &syncBuffer{}
		c := newTestConn(t, newTestServer(t, withLogs(logs)))
		c.send(classicInitialize(1, version20250326))
		c.recv()
		c.send(huge)
		want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a batch may hold at most 64 messages"}}`
		if got := c.recv(); !sameJSON(t, got, want) {
			t.Errorf("a batch of 10000: got %s, want %s", got, want)
		}
		c.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
		if got := c.recv(); !strings.Contains(got, `"id":"after"`) {
			t.Errorf("after a refused batch the next ping got %s: was anything of the batch served?", got)
		}
	})
	t.Run("nested arrays", func(t *testing.T) {
		allocs := testing.AllocsPerRun(5, func() { splitBatch([]byte(deep)) })
		if allocs > 10 {
			t.Errorf("splitBatch allocates %v times on 100000 nested arrays", allocs)
		}
		c := newTestConn(t, newTestServer(t))
		c.send(classicInitialize(1, version20250326))
		c.recv()
		c.send(deep)
		want := `[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a batch entry must be a JSON object"}},{"jsonrpc":"2.0","id":1,"result":{}}]`
		if got := c.recv(); !sameJSON(t, got, want) {
			t.Errorf("a batch with a deep entry: got %s, want %s", got, want)
		}
	})
	t.Run("more requests than slots", func(t *testing.T) {
		c := newTestConn(t, newTestServer(t, withFlags("-max-requests", "2", "-max-subscriptions", "1")))
		c.send(classicInitialize(1, version20250326))
		c.recv()
		c.send(pingBatch(maxBatchEntries))
		if got := c.recv(); strings.Count(got, `"result":{}`) != maxBatchEntries {
			t.Errorf("a batch of %d pings with one request slot got %.200s...", maxBatchEntries, got)
		}
	})
	t.Run("http", func(t *testing.T) {
		ts := newTestHTTP(t, newTestServer(t), nil)
		c := newTestClassicClient(t, ts)
		c.initialize(classicInitialize(1, version20250326))
		for _, tt := range []struct {
			name, body string
			status     int
			want       string
		}{
			{"ten thousand entries", huge, http.StatusBadRequest, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a batch may hold at most 64 messages"}}`},
			{"nested arrays", deep, http.StatusOK, `[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a batch entry must be a JSON object"}},{"jsonrpc":"2.0","id":1,"result":{}}]`},
		} {
			t.Run(tt.name, func(t *testing.T) {
				got := mustDo(t, ts.Client(), c.request(t.Context(), tt.body))
				if got.status != tt.status || !sameJSON(t, string(got.body), tt.want) {
					t.Errorf("status %d %s, want %d %s", got.status, got.body, tt.status, tt.want)
				}
			})
		}
	})
}

// TestBatchRefusedTakesNothing: over HTTP a batch refused 503 (no slot
// for it) has done nothing: its notifications/cancelled did not cancel
// the request it names, which is answered once released, on both HTTP
// transports (review A, finding 8: the batch's entries took effect, then
// the 503 told the client to send them again).
func TestBatchRefusedTakesNothing(t *testing.T) {
	const gateCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"gate"}}`
	const batch = `[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}},{"jsonrpc":"2.0","id":8,"method":"ping"}]`
	for _, tt := range []struct {
		name string
		// start opens a 2025-03-26 session, starts gateCall in it and
		// returns how to POST a body in it (its status) and its answer
		// to gateCall once released.
		start func(t *testing.T, ts *testHTTP) (post func(body string) int, answer func() string)
	}{
		{"streamable HTTP", func(t *testing.T, ts *testHTTP) (func(string) int, func() string) {
			c := newTestClassicClient(t, ts)
			c.initialize(classicInitialize(1, version20250326))
			done := make(chan []string, 1)
			go func() {
				_, _, out := c.post(gateCall)
				done <- out
			}()
			return func(body string) int { status, _, _ := c.post(body); return status },
				func() string { return strings.Join(mustReceive(t, done), "\n") }
		}},
		{"2024-11-05 transport", func(t *testing.T, ts *testHTTP) (func(string) int, func() string) {
			c := newTestClassicSSEClient(t, ts)
			c.post("", classicInitialize(1, version20250326))
			c.next()
			c.post("", gateCall)
			return func(body string) int { return c.post("", body) }, c.next
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := newTestGates()
			ts := newTestHTTP(t, newTestServer(t, withGates(g), withFlags("-max-requests", "1")), nil)
			ts.tr.queueWait = 10 * time.Millisecond
			post, answer := tt.start(t, ts)
			mustReceive(t, g.started)
			if status := post(batch); status != http.StatusServiceUnavailable {
				t.Errorf("a batch with every request slot taken: status %d, want 503", status)
			}
			close(g.release)
			if got := answer(); !strings.Contains(got, `"id":7,"result"`) {
				t.Errorf("the request the refused batch names: %q, want its result (cancelled by a batch answered 503)", got)
			}
		})
	}
}
