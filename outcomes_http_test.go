//go:build !stdio

// TestOutcomes: every way a client can go away, on every transport and
// era, ends its request as cancelled, in the access line and in
// baremcp_requests_total, never as server_error (issue 38; endedBy, rpc.go,
// decides it). Control rows: a graceful end is ok, a real failure is
// server_error.

package main

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// logWatch is a log writer that tells its reader when a line arrived.
type logWatch struct {
	mu    sync.Mutex // guards buf
	buf   bytes.Buffer
	wrote chan struct{} // capacity 1
}

func (w *logWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return w.buf.Write(p)
}

// access waits for the access line of the request id and returns it.
func (w *logWatch) access(tb testing.TB, id string) logRecord {
	tb.Helper()
	deadline := time.After(testWait)
	for {
		w.mu.Lock()
		logs := w.buf.String()
		w.mu.Unlock()
		if rec, ok := accessRecords(parseLogLines(tb, logFormatText, logs))[id]; ok {
			return rec
		}
		select {
		case <-w.wrote:
		case <-deadline:
			tb.Fatalf("no access line for id %s within %v:\n%s", id, testWait, logs)
		}
	}
}

func TestOutcomes(t *testing.T) {
	gate := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"gate"}}`
	}
	modernGate := func(id string) string { return req(id, "tools/call", `"name":"gate"`) }
	for _, tt := range []struct {
		name        string
		id          string // the request whose end is checked
		method, era string
		transport   string
		outcome     string
		run         func(t *testing.T, s *server, g *testGates)
	}{
		{"a listen whose POST stream the client closed", "1", "subscriptions/listen", "modern", "http", "cancelled", func(t *testing.T, s *server, g *testGates) {
			ts := newTestHTTP(t, s, nil)
			ctx, cancel := context.WithCancel(t.Context())
			st := mustOpenListen(t, ctx, ts, listenTools)
			st.next(t) // the acknowledgement
			cancel()
		}},
		{"a tools/call whose POST the client closed", "2", "tools/call", "modern", "http", "cancelled", func(t *testing.T, s *server, g *testGates) {
			ts := newTestHTTP(t, s, nil)
			ctx, cancel := context.WithCancel(t.Context())
			go func() { _, _ = doTestHTTP(ts.Client(), newTestHTTPRequest(t, ctx, ts, "", modernGate("2"), nil)) }()
			mustReceive(t, g.started)
			cancel()
		}},
		{"a classic session's request whose POST the client closed", "3", "tools/call", "classic", "http", "cancelled", func(t *testing.T, s *server, g *testGates) {
			c := newTestClassicClient(t, newTestHTTP(t, s, nil))
			c.initialize(classicInitialize(0, version20251125))
			ctx, cancel := context.WithCancel(t.Context())
			go func() {
				if resp, err := c.ts.Client().Do(c.request(ctx, gate("3"))); err == nil {
					resp.Body.Close()
				}
			}()
			mustReceive(t, g.started)
			cancel()
		}},
		{"a classic session DELETEd with a request in flight", "4", "tools/call", "classic", "http", "cancelled", func(t *testing.T, s *server, g *testGates) {
			c := newTestClassicClient(t, newTestHTTP(t, s, nil))
			c.initialize(classicInitialize(0, version20251125))
			answered := make(chan []string, 1)
			go func() {
				_, _, out := c.post(gate("4"))
				answered <- out
			}()
			mustReceive(t, g.started)
			if status, _, _ := c.post(http.MethodDelete); status != http.StatusNoContent {
				t.Fatalf("DELETE: status %d", status)
			}
			if out := mustReceive(t, answered); len(out) != 0 {
				t.Errorf("the request the DELETE ended was answered %q", out)
			}
		}},
		{"a 2024-11-05 stream the client closed with a request in flight", "5", "tools/call", "classic", "http", "cancelled", func(t *testing.T, s *server, g *testGates) {
			c := newTestClassicSSEClient(t, newTestHTTP(t, s, nil))
			c.post("", classicInitialize(0, version20241105))
			c.next()
			c.post("", gate("5"))
			mustReceive(t, g.started)
			c.cancel()
		}},
		{"stdio notifications/cancelled", "6", "tools/call", "modern", "stdio", "cancelled", func(t *testing.T, s *server, g *testGates) {
			c := newTestConn(t, s)
			c.send(modernGate("6"))
			mustReceive(t, g.started)
			c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}}`)
		}},
		{"a stdio listen the client cancelled", "1", "subscriptions/listen", "modern", "stdio", "cancelled", func(t *testing.T, s *server, g *testGates) {
			c := newTestConn(t, s)
			c.send(subExpand(listenTools))
			c.recv() // the acknowledgement
			c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
		}},
		{"stdio EOF under a request waiting for the client's answer", "7", "tools/call", "classic", "stdio", "cancelled", func(t *testing.T, s *server, g *testGates) {
			c := newTestConn(t, s)
			c.send(bridgeInit(version20251125, `{"elicitation":{}}`))
			c.recv()
			c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/a"}}}`)
			if ask := c.recv(); !strings.Contains(ask, "elicitation/create") {
				t.Fatalf("want the elicitation, got %s", ask)
			}
			c.closeInput()
		}},
		{"stdio shut down with a request in flight", "8", "tools/call", "modern", "stdio", "cancelled", func(t *testing.T, s *server, g *testGates) {
			c := newTestConn(t, s)
			c.send(modernGate("8"))
			mustReceive(t, g.started)
			c.cancel()
		}},
		{"a stdio listen ended at EOF: its graceful result", "1", "subscriptions/listen", "modern", "stdio", "ok", func(t *testing.T, s *server, g *testGates) {
			c := newTestConn(t, s)
			c.send(subExpand(listenTools))
			c.recv()
			c.closeInput()
		}},
		{"a handler's own failure is the server's", "9", "tools/call", "modern", "http", "server_error", func(t *testing.T, s *server, g *testGates) {
			s.addTool(tool{Name: "broken", Call: func(ctx context.Context, req *request) (*toolResult, error) {
				panic("disk on fire")
			}})
			ts := newTestHTTP(t, s, nil)
			mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", req("9", "tools/call", `"name":"broken"`), nil))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			logs := &logWatch{wrote: make(chan struct{}, 1)}
			g := newTestGates()
			s := newTestServer(t, withRegistry("base", "subscriptions"), withGates(g), withLogs(logs))
			before := mustParseExposition(t, string(s.metrics.exposition()))
			tt.run(t, s, g)
			rec := logs.access(t, tt.id)
			if rec["outcome"] != tt.outcome || rec["method"] != tt.method || rec["transport"] != tt.transport {
				t.Errorf("access line %v, want method %s transport %s outcome %s", rec, tt.method, tt.transport, tt.outcome)
			}
			after := mustParseExposition(t, string(s.metrics.exposition()))
			labels := []string{"method", tt.method, "era", tt.era, "transport", tt.transport, "outcome", tt.outcome}
			was, _ := metricValue(before, "baremcp_requests_total", labels...)
			now, _ := metricValue(after, "baremcp_requests_total", labels...)
			if now-was != 1 {
				t.Errorf("baremcp_requests_total%v moved by %v, want 1", labels, now-was)
			}
		})
	}
}
