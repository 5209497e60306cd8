//go:build !stdio

// Attacks over HTTP: the hostile peers of attacks_test.go that need the HTTP
// wing (absent from the stdio build).

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// newTestLoopback serves s over real TCP on 127.0.0.1 as run does
// (connection limit, timeouts, shutdown), with hcfg. Its client connects
// from 127.0.0.1; from gives one that connects from another loopback
// address. The server stops when the test ends.
func newTestLoopback(tb testing.TB, s *server, hcfg *httpConfig) *testHTTP {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tr := newHTTPTransport(s, hcfg, ln.Addr())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- tr.serve(ctx, ln) }()
	tb.Cleanup(func() {
		cancel()
		<-done
	})
	port := ln.Addr().(*net.TCPAddr).Port
	ts := &testHTTP{URL: fmt.Sprintf("http://127.0.0.1:%d", port), port: port, tr: tr}
	return ts.from(tb, "127.0.0.1")
}

// from returns ts as a client connecting from ip sees it.
func (ts *testHTTP) from(tb testing.TB, ip string) *testHTTP {
	tb.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr := &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 1024}
	tb.Cleanup(tr.CloseIdleConnections)
	c := *ts
	c.client = &http.Client{Transport: tr}
	return &c
}

// dialFrom opens a raw TCP connection from ip to ts, closed when the test
// ends.
func dialFrom(tb testing.TB, ts *testHTTP, ip string) net.Conn {
	tb.Helper()
	return mustDial(tb, strings.TrimPrefix(ts.URL, "http://"), ip)
}

// rawPost is the head of a POST to ts with a body of n bytes; extra
// header lines (each ending in CRLF) go before the blank line.
func rawPost(ts *testHTTP, n int, extra string) string {
	return fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n%s\r\n", ts.port, n, extra)
}

// mustCallWithin calls echo as a modern client of ts and fails unless the
// answer is a result that came within limit.
func mustCallWithin(tb testing.TB, ts *testHTTP, who string, limit time.Duration) {
	tb.Helper()
	start := time.Now()
	r, err := doTestHTTP(ts.Client(), newTestHTTPRequest(tb, tb.Context(), ts, "", req(`"probe"`, "tools/call", `"name":"echo","arguments":{"message":"hi"}`), nil))
	took := time.Since(start)
	switch {
	case err != nil:
		tb.Errorf("%s: echo failed after %v: %v", who, took.Round(time.Millisecond), err)
	case r.status != http.StatusOK || r.code != 0:
		tb.Errorf("%s: echo answered %d (code %d) after %v: %.200s", who, r.status, r.code, took.Round(time.Millisecond), r.body)
	case took > limit:
		tb.Errorf("%s: echo took %v, want at most %v", who, took.Round(time.Millisecond), limit)
	default:
		tb.Logf("%s: echo answered in %v", who, took.Round(time.Microsecond))
	}
}

// Finding 1: a classic session kept the capabilities and clientInfo of
// its initialize as slices of the request body, so a 4 MiB body stayed
// in memory for the session's life. Four sessions opened with 4 MiB
// bodies must hold well under one body between them.
func TestAttackInitializeBodyKept(t *testing.T) {
	s := newTestServer(t)
	ts := newTestLoopback(t, s, loopbackConfig(t))
	pad := strings.Repeat("x", defaultMaxBodyBytes-1024)
	var sessions []*classicHTTPClient
	for i := range 4 {
		c := newTestClassicClient(t, ts)
		c.initialize(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"},"pad":%q}}`, i, pad))
		sessions = append(sessions, c)
	}
	if n := liveSessions(ts.tr.sessions); n != len(sessions) {
		t.Fatalf("%d sessions live, want %d", n, len(sessions))
	}
	held := mustHeapHeldBy(t, func() { mustEndSessions(t, sessions) })
	t.Logf("%d sessions opened with 4 MiB bodies hold %d KiB", len(sessions), held>>10)
	if held > 1<<20 {
		t.Errorf("%d sessions opened with 4 MiB bodies hold %.1f MiB, want under 1 MiB", len(sessions), float64(held)/(1<<20))
	}
}

// mustEndSessions ends each client's session with DELETE.
func mustEndSessions(tb testing.TB, sessions []*classicHTTPClient) {
	tb.Helper()
	for _, c := range sessions {
		if status, _, _ := c.post(http.MethodDelete); status != http.StatusNoContent {
			tb.Fatalf("DELETE: status %d, want 204", status)
		}
	}
}

// Finding 3: an HTTP request refused before its method ran was answered,
// echoing its id, by a write with no deadline while it held a request
// slot. Four clients that never read such answers (ids of 4 MiB) must
// not delay anyone's call.
func TestAttackUnreadErrorReplies(t *testing.T) {
	args := []string{"-max-requests", "4", "-max-subscriptions", "2"}
	s := newTestServer(t, withFlags(args...))
	ts := newTestLoopback(t, s, loopbackConfig(t, args...))
	body := `{"jsonrpc":"1.0","id":"` + strings.Repeat("x", defaultMaxBodyBytes-64) + `","method":"ping"}`
	for range 4 {
		c := dialFrom(t, ts, "127.0.0.1")
		if _, err := io.WriteString(c, rawPost(ts, len(body), "")+body); err != nil {
			t.Fatal(err)
		}
		// The answer has begun; the client reads no more of it.
		if status, err := bufio.NewReaderSize(c, 16).ReadString('\n'); err != nil || !strings.HasPrefix(status, "HTTP/1.1 4") {
			t.Fatalf("status line %q, %v; want a 4xx", status, err)
		}
	}
	mustCallWithin(t, ts.from(t, "127.0.0.2"), "another client", time.Second)
	mustCallWithin(t, ts, "the same address", time.Second)
}

// mustOpenGetStream opens c's GET stream and returns it open.
func mustOpenGetStream(tb testing.TB, c *classicHTTPClient) *http.Response {
	tb.Helper()
	resp := c.open(http.MethodGet)
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET: status %d", resp.StatusCode)
	}
	tb.Cleanup(func() { resp.Body.Close() })
	return resp
}

// Finding 5: an open GET stream kept its session from ever going idle, so
// streams held -max-sessions full for ever. A client holding every session
// with a stream open must not keep another client from opening one, and
// a session whose only use is its stream still expires.
func TestAttackSessionsHeldByStreams(t *testing.T) {
	t.Run("full store", func(t *testing.T) {
		s := newTestServer(t)
		ts := newTestLoopback(t, s, loopbackConfig(t, "-max-sessions", "3"))
		var streams []*http.Response
		for range 3 {
			c := newTestClassicClient(t, ts)
			c.initialize(classicInit)
			streams = append(streams, mustOpenGetStream(t, c))
		}
		other := newTestClassicClient(t, ts.from(t, "127.0.0.2"))
		other.sid = ""
		status, h, out := other.post(classicInit)
		if status != http.StatusOK || h.Get(headerSessionID) == "" {
			t.Fatalf("initialize with every session held by a stream: %d %v, want a new session", status, out)
		}
		// The least recently used session made room: its stream ended.
		mustEnd(t, "the evicted session's stream", streams[0].Body)
	})
	t.Run("idle with a stream open", func(t *testing.T) {
		s := newTestServer(t)
		clock := &fakeClock{now: time.Unix(1e9, 0)}
		hcfg := loopbackConfig(t)
		hcfg.now = clock.Now
		ts := newTestLoopback(t, s, hcfg)
		c := newTestClassicClient(t, ts)
		c.initialize(classicInit)
		stream := mustOpenGetStream(t, c)
		clock.advance(defaultSessionIdle + time.Minute)
		if status, _, _ := c.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); status != http.StatusNotFound {
			t.Errorf("a session unused for %v but for its stream: ping answered %d, want 404", defaultSessionIdle+time.Minute, status)
		}
		mustEnd(t, "the expired session's stream", stream.Body)
	})
}

// Finding 6: each connection could buffer 1 MiB of headers before any
// check, and idle sockets from one address used up -max-connections. A
// 64 KiB header block is refused (net/http answers 431, then lingers
// half a second before it closes: the test runs beside the others).
func TestAttackHeaderBlock(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	ts := newTestLoopback(t, s, loopbackConfig(t))
	r := newTestHTTPRequest(t, t.Context(), ts, "", req("1", "ping", ""), []string{"X-Pad: " + strings.Repeat("x", 64<<10)})
	resp, err := ts.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("64 KiB of headers: status %d, want 431", resp.StatusCode)
	}
}

// openListen POSTs a listen request for tool changes as ts's client and
// reports whether it was acknowledged; an acknowledged stream stays open
// until the test ends.
func openListen(tb testing.TB, ts *testHTTP, id int) bool {
	tb.Helper()
	body := strings.Replace(subExpand(listenTools), `"id":1`, fmt.Sprintf(`"id":%d`, id), 1)
	resp, err := ts.Client().Do(newTestHTTPRequest(tb, tb.Context(), ts, "", body, nil))
	if err != nil {
		tb.Fatal(err)
	}
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		resp.Body.Close()
		return false
	}
	tb.Cleanup(func() { resp.Body.Close() })
	ev, ok := nextSSE(bufio.NewReader(resp.Body))
	return ok && strings.Contains(ev, methodSubscriptionsAcknowledged)
}

// startBridged starts a classic confirm_delete call in c's session and
// reports whether it is waiting for the client's answer (its stream
// carries the elicitation/create); the id of that request is returned.
func startBridged(tb testing.TB, c *classicHTTPClient, id int) (string, bool) {
	tb.Helper()
	resp := c.open(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/p"}}}`, id))
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		resp.Body.Close()
		return "", false
	}
	tb.Cleanup(func() { resp.Body.Close() })
	ev, ok := nextSSE(bufio.NewReader(resp.Body))
	if !ok || !strings.Contains(ev, methodElicit) {
		return "", false
	}
	ask, _ := jsonPath(mustDecode(tb, ev), "id").(string)
	return ask, true
}

// Finding 7: the global limits had no share per client: one client could
// open every subscription and hold every request slot with elicitations
// it never answered. With the defaults, a client that takes all it can
// of both leaves another client able to listen and to call.
func TestAttackOneClientTakesEverySlot(t *testing.T) {
	s := newTestServer(t)
	ts := newTestLoopback(t, s, loopbackConfig(t))
	listens := 0
	for id := range defaultMaxSubscriptions {
		if !openListen(t, ts, id+1) {
			break
		}
		listens++
	}
	c := newTestClassicClient(t, ts)
	c.initialize(classicInit)
	bridged := 0
	for id := 1; listens+bridged < defaultMaxRequests; id++ {
		if _, ok := startBridged(t, c, id); !ok {
			break
		}
		bridged++
	}
	// Its shares (limits_share.go), and no more.
	if listens != s.subs.perShare || int64(bridged) != s.bridged.per {
		t.Errorf("one client holds %d listens and %d unanswered elicitations, want its shares: %d and %d", listens, bridged, s.subs.perShare, s.bridged.per)
	}
	other := ts.from(t, "127.0.0.2")
	if !openListen(t, other, 1) {
		t.Errorf("another client's listen was refused")
	}
	mustCallWithin(t, other, "another client", time.Second)
}

// Finding 9: classic resources/subscribe had no memory budget: 256 URIs
// of 4 KiB per session, and any URI a template matches. Sixteen sessions
// each subscribing 256 such URIs must hold a bounded amount.
func TestAttackSubscribeMemory(t *testing.T) {
	s := newTestServer(t)
	ts := newTestLoopback(t, s, loopbackConfig(t))
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted := 0
	var sessions []*classicHTTPClient
	for range 16 {
		c := newTestClassicClient(t, ts)
		c.initialize(classicInit)
		sessions = append(sessions, c)
		wg.Go(func() {
			for i := range defaultMaxSubscriptionURIs {
				status, _, out := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/subscribe","params":{"uri":%q}}`, i+1, watchURI(i)))
				if status != http.StatusOK || len(out) != 1 {
					t.Errorf("subscribe: status %d", status)
					return
				}
				if errorCode(t, out[0]) != 0 {
					return // refused: the session's budget is spent
				}
				mu.Lock()
				accepted++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	// One client: its share of the budget of watched URIs, which is what
	// the memory holds (within a quarter, and a MiB of noise).
	mine, _ := s.subs.watched.held("addr:127.0.0.1")
	if mine > s.subs.watched.per || int64(accepted)*watchedCost(watchURI(0)) != mine {
		t.Errorf("one client watches %d URIs costing %d bytes, want at most its share %d", accepted, mine, s.subs.watched.per)
	}
	held := mustHeapHeldBy(t, func() { mustEndSessions(t, sessions) })
	t.Logf("16 sessions: %d URIs of 4 KiB watched, holding %d KiB", accepted, held>>10)
	if limit := mine + mine/4 + 1<<20; held > limit {
		t.Errorf("16 sessions watching %d URIs of 4 KiB hold %.1f MiB, want under %.1f MiB", accepted, float64(held)/(1<<20), float64(limit)/(1<<20))
	}
	if mine, all := s.subs.watched.held("addr:127.0.0.1"); mine != 0 || all != 0 {
		t.Errorf("after the sessions ended the budget holds %d bytes (%d for the client), want none", all, mine)
	}
}

// Finding 10: over HTTP a client's answer to a bridged request (and a
// notifications/cancelled) needed a request slot, which the waiting calls
// held. With every slot held, the answer must get through at once.
func TestAttackAnswerNeedsNoSlot(t *testing.T) {
	g := newTestGates()
	args := []string{"-max-requests", "4", "-max-subscriptions", "2"}
	s := newTestServer(t, withFlags(args...), withGates(g))
	ts := newTestLoopback(t, s, loopbackConfig(t, args...))
	c := newTestClassicClient(t, ts)
	c.initialize(classicInit)
	resp := c.open(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/p"}}}`)
	defer resp.Body.Close()
	events := bufio.NewReader(resp.Body)
	ev, ok := nextSSE(events)
	if !ok || !strings.Contains(ev, methodElicit) {
		t.Fatalf("first event %q, want the elicitation", ev)
	}
	ask := jsonPath(mustDecode(t, ev), "id").(string)
	for id := range 2 {
		if !openListen(t, ts, id+1) {
			t.Fatalf("listen %d refused", id+1)
		}
	}
	go func() {
		_, _ = doTestHTTP(ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", req(`"g"`, "tools/call", `"name":"gate"`), nil))
	}()
	mustReceive(t, g.started)
	// Every slot is held: one bridged call, two listens, one gate.
	start := time.Now()
	status, _, out := c.post(`{"jsonrpc":"2.0","id":"` + ask + `","result":{"action":"accept","content":{"confirm":true}}}`)
	if took := time.Since(start); status != http.StatusAccepted || took > time.Second {
		t.Fatalf("the answer: status %d after %v (%v), want 202 at once", status, took.Round(time.Millisecond), out)
	}
	status, _, out = c.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`)
	if status != http.StatusAccepted {
		t.Errorf("notifications/cancelled: status %d (%v), want 202", status, out)
	}
	if ev, _ := nextSSE(events); !strings.Contains(ev, `"result"`) {
		t.Errorf("the bridged call ended with %s, want its result", ev)
	}
	close(g.release)
}

// Finding 4: a request slot was taken before the body was read, so slow
// bodies held every slot. Four bodies stalled after 10 of 100 bytes must
// not delay anyone's call.
func TestAttackSlowBodies(t *testing.T) {
	args := []string{"-max-requests", "4", "-max-subscriptions", "2"}
	s := newTestServer(t, withFlags(args...))
	ts := newTestLoopback(t, s, loopbackConfig(t, args...))
	for range 4 {
		c := dialFrom(t, ts, "127.0.0.1")
		if _, err := io.WriteString(c, rawPost(ts, 100, "Expect: 100-continue\r\n")); err != nil {
			t.Fatal(err)
		}
		// 100 Continue: the handler is reading the body.
		r := bufio.NewReader(c)
		if status, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(status, "HTTP/1.1 100") {
			t.Fatalf("status line %q, %v; want 100 Continue", status, err)
		}
		if _, err := io.WriteString(c, `{"jsonrpc":`); err != nil {
			t.Fatal(err)
		}
	}
	mustCallWithin(t, ts.from(t, "127.0.0.2"), "another client", time.Second)
	mustCallWithin(t, ts, "the same address", time.Second)
}

// Finding 6, continued: sixteen idle sockets from one address, with
// -max-connections 16, leave room for another client.
func TestAttackIdleSockets(t *testing.T) {
	s := newTestServer(t)
	ts := newTestLoopback(t, s, loopbackConfig(t, "-max-connections", "16"))
	for range 16 {
		dialFrom(t, ts, "127.0.0.1")
	}
	mustCallWithin(t, ts.from(t, "127.0.0.2"), "another client", time.Second)
}
