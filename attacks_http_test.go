//go:build !stdio

// Attacks over HTTP: the hostile peers of attacks_test.go that need the HTTP
// wing (absent from the stdio build).

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	if int64(listens) != s.subs.listens.per || int64(bridged) != s.bridged.per {
		t.Errorf("one client holds %d listens and %d unanswered elicitations, want its shares: %d and %d", listens, bridged, s.subs.listens.per, s.bridged.per)
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

// mustBigTask creates, as ts's client, a task of the test registry's big
// tool whose result holds size bytes, waits until it has completed, and
// returns its id and a raw HTTP request (head and body) that fetches it.
func mustBigTask(tb testing.TB, ts *testHTTP, size int) (id string, get []byte) {
	tb.Helper()
	r, err := doTestHTTP(ts.Client(), newTestHTTPRequest(tb, tb.Context(), ts, "", taskLine(1, "tools/call", fmt.Sprintf(`"name":"big","arguments":{"bytes":%d}`, size)), nil))
	if err != nil || r.status != http.StatusOK {
		tb.Fatalf("big: %v, status %d: %.200s", err, r.status, r.body)
	}
	id = mustTaskID(tb, mustDecode(tb, string(r.body)))
	body := taskLine(2, "tasks/get", fmt.Sprintf(`"taskId":%q`, id))
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, err := doTestHTTP(ts.Client(), newTestHTTPRequest(tb, tb.Context(), ts, "", body, nil))
		if err != nil {
			tb.Fatal(err)
		}
		if bytes.Contains(r.body, []byte(`"status":"completed"`)) {
			break
		}
		if time.Now().After(deadline) {
			tb.Fatalf("task %s did not complete: %.300s", id, r.body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var buf bytes.Buffer
	if err := newTestHTTPRequest(tb, tb.Context(), ts, "", body, nil).Write(&buf); err != nil {
		tb.Fatal(err)
	}
	return id, buf.Bytes()
}

// sendQueued returns the bytes the kernel holds, sent but not yet taken
// by the peer, on the server's side of every TCP connection to port
// (the tx_queue column of /proc/net/tcp), and false where the kernel
// does not say (not Linux).
func sendQueued(port int) (int64, bool) {
	data, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return 0, false
	}
	local := fmt.Sprintf(":%04X", port)
	var sum int64
	for _, line := range strings.Split(string(data), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 5 || !strings.HasSuffix(f[1], local) {
			continue
		}
		tx, _, _ := strings.Cut(f[4], ":")
		n, err := strconv.ParseInt(tx, 16, 64)
		if err == nil {
			sum += n
		}
	}
	return sum, true
}

// waitFor polls cond every 20 ms until it holds or d has passed, and
// reports whether it held.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// Answers held for clients that never read them: a client fetched a
// task's 1.8 MiB result on every request slot of its share, from four
// addresses, three times on each connection without waiting (pipelined),
// and read nothing. Every answer was a fresh copy of the
// result, held with its slot for the write timeout (30 s); the kernel
// grew each connection's send buffer towards 4 MiB. Now the result is
// written without a copy, at most a client's share of the answer budget
// is being written for it (the rest is refused -31503 at once and frees
// its slot), each connection's send buffer is bounded, and another
// client's call is served meanwhile.
func TestAttackUnreadAnswers(t *testing.T) {
	s := newTestServer(t, withRegistry("base", "tasks"), withFlags("-max-requests", "64"))
	ts := newTestLoopback(t, s, loopbackConfig(t, "-rate-limit", "0"))
	const size = 1800 << 10
	_, get := mustBigTask(t, ts, size)
	heap0 := heapInUse()
	var conns []net.Conn
	for a := range 4 {
		ip := fmt.Sprintf("127.0.0.%d", a+1)
		for range s.share(int64(s.limits.maxRequests), shareFloor) {
			c := dialFrom(t, ts, ip)
			if _, err := c.Write(bytes.Repeat(get, 3)); err != nil { // pipelined
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
	}
	// Each address may have as many answers written at once as its share
	// of the budget holds; the others are answered at once.
	perClient := ts.tr.answers.per / size
	writing := func() int64 { _, n := ts.tr.slots.held(""); return n }
	settled := waitFor(10*time.Second, func() bool { return writing() <= 4*perClient })
	mustCallWithin(t, ts.from(t, "127.0.0.5"), "another client", time.Second)
	held := int64(heapInUse()) - int64(heap0)
	queued, known := sendQueued(ts.port)
	_, budget := ts.tr.answers.held("")
	t.Logf("%d connections asking: %d requests still writing, answer budget %d KiB in use, heap +%d KiB, kernel send queues %d KiB", len(conns), writing(), budget>>10, held>>10, queued>>10)
	if !settled {
		t.Errorf("%d requests hold a slot writing an unread answer, want at most %d (each address's share of the answer budget)", writing(), 4*perClient)
	}
	if max := ts.tr.answers.total; held > max {
		t.Errorf("%d unread answers hold %d MiB of heap, want at most the answer budget, %d MiB", len(conns), held>>20, max>>20)
	}
	if max := int64(len(conns)) * 2 * httpSendBuffer; known && queued > max {
		t.Errorf("the kernel holds %d KiB unsent for %d connections, want at most %d KiB (twice httpSendBuffer each)", queued>>10, len(conns), max>>10)
	}
}

// A connection left idle after a large answer closes after
// httpLargeAnswerIdle (shortened here), not httpIdleTimeout: the end of
// the answer may sit unread in the kernel's buffer. After a small
// answer it stays open.
func TestAttackIdleAfterLargeAnswer(t *testing.T) {
	s := newTestServer(t, withRegistry("base", "tasks"))
	hcfg := loopbackConfig(t, "-rate-limit", "0")
	hcfg.largeAnswerIdle = 200 * time.Millisecond
	ts := newTestLoopback(t, s, hcfg)
	_, getBig := mustBigTask(t, ts, 256<<10)
	var small bytes.Buffer
	if err := newTestHTTPRequest(t, t.Context(), ts, "", req("1", "ping", ""), nil).Write(&small); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name       string
		get        []byte
		wantClosed bool
	}{
		{"large answer", getBig, true},
		{"small answer", small.Bytes(), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := dialFrom(t, ts, "127.0.0.1")
			if _, err := c.Write(tt.get); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			start := time.Now()
			_ = c.SetReadDeadline(start.Add(time.Second))
			_, err = br.ReadByte()
			var ne net.Error
			closed := err != nil && !(errors.As(err, &ne) && ne.Timeout())
			if closed != tt.wantClosed {
				t.Errorf("idle after the answer: %v after %v, want closed %v", err, time.Since(start).Round(time.Millisecond), tt.wantClosed)
			}
		})
	}
}

// TestAnonymousIdle: on a server that asks for a credential, a
// connection whose last request showed no valid one (a 401, the probes
// aside: they close theirs) closes after httpAnonymousIdle (shortened
// here), not httpIdleTimeout; one whose last request authenticated stays
// open, as does any connection on a server that asks for no credential
// (the fourth review, R4-8: idle connections without a credential were
// free to hold).
func TestAnonymousIdle(t *testing.T) {
	echo := req("1", "tools/call", `"name":"echo","arguments":{"message":"x"}`)
	for _, tt := range []struct {
		name       string
		auth       bool
		edits      []string
		status     int
		wantClosed bool
	}{
		{"no token", true, nil, http.StatusUnauthorized, true},
		{"a wrong token", true, []string{bearer(strings.Repeat("w", 43))}, http.StatusUnauthorized, true},
		{"a valid token", true, []string{bearer(testToken)}, http.StatusOK, false},
		{"no credential asked", false, nil, http.StatusOK, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hcfg := loopbackConfig(t)
			if tt.auth {
				hcfg.auth.tokens = mustSingleToken(t, testToken)
			}
			hcfg.anonIdle = 200 * time.Millisecond
			ts := newTestLoopback(t, newTestServer(t), hcfg)
			c := dialFrom(t, ts, "127.0.0.1")
			br := bufio.NewReader(c)
			// Two requests on the one connection, the first authenticated
			// where a credential is asked: what the last one showed counts.
			first := []string(nil)
			if tt.auth {
				first = []string{bearer(testToken)}
			}
			for i, step := range []struct {
				edits  []string
				status int
			}{{first, http.StatusOK}, {tt.edits, tt.status}} {
				if err := newTestHTTPRequest(t, t.Context(), ts, "", echo, step.edits).Write(c); err != nil {
					t.Fatal(err)
				}
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != step.status {
					t.Fatalf("request %d: status %d, want %d", i+1, resp.StatusCode, step.status)
				}
			}
			start := time.Now()
			_ = c.SetReadDeadline(start.Add(time.Second))
			_, err := br.ReadByte()
			var ne net.Error
			closed := err != nil && !(errors.As(err, &ne) && ne.Timeout())
			if closed != tt.wantClosed {
				t.Errorf("idle after the answer: %v after %v, want closed %v", err, time.Since(start).Round(time.Millisecond), tt.wantClosed)
			}
		})
	}
}

// Introspection amplification: one address without any credential sent
// made-up opaque tokens, each introspected under the server's own client
// credentials, bounded only in concurrency (thousands a second). Now one
// address causes at most introspectBurst, then introspectRate a second;
// a token introspection refused is refused again without asking; and
// another client's valid opaque token is served during the flood.
func TestAttackIntrospectionFlood(t *testing.T) {
	as := newTestAS(t, "", "rsa-1")
	hcfg := loopbackConfig(t, "-rate-limit", "0")
	hcfg.auth = as.authConfig()
	hcfg.auth.resource = testResource
	hcfg.auth.introspect, hcfg.auth.introspectID, hcfg.auth.introspectPass = as.issuer+"/introspect", "rs", "rs-secret"
	ts := newTestLoopback(t, newTestServer(t, withAuthRegistry(new(atomic.Int64))), hcfg)
	as.activate("op-good", `{"active":true,"sub":"svc","aud":"`+testResource+`"}`)
	call := func(ts *testHTTP, tok string) testHTTPReply {
		r, err := doTestHTTP(ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", callLine("open"), []string{bearer(tok)}))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	const flood = 2 * time.Second
	start := time.Now()
	var sent atomic.Int64
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := 0; time.Since(start) < flood; i++ {
				call(ts, fmt.Sprintf("made-up-%d-%d", w, i))
				sent.Add(1)
			}
		})
	}
	time.Sleep(flood / 2)
	legit := call(ts.from(t, "127.0.0.2"), "op-good")
	wg.Wait()
	elapsed := time.Since(start)
	caused := int64(as.count("/introspect")) - 1 // the valid token's
	limit := int64(introspectBurst + introspectRate*elapsed.Seconds() + 1)
	t.Logf("one address sent %d made-up tokens in %v: %d introspected (at most %d); another client's valid token: status %d", sent.Load(), elapsed.Round(time.Millisecond), caused, limit, legit.status)
	if caused > limit {
		t.Errorf("one address caused %d introspections in %v, want at most %d (introspectBurst, then introspectRate a second)", caused, elapsed.Round(time.Millisecond), limit)
	}
	if legit.status != http.StatusOK {
		t.Errorf("another client's valid opaque token during the flood: status %d, want 200: %.200s", legit.status, legit.body)
	}
	// A refused token sent again is refused from the cache.
	n := as.count("/introspect")
	other := ts.from(t, "127.0.0.3")
	for range 20 {
		if r := call(other, "revoked"); r.status != http.StatusUnauthorized {
			t.Fatalf("a refused token: status %d, want 401", r.status)
		}
	}
	if got := as.count("/introspect") - n; got != 1 {
		t.Errorf("one refused token sent 20 times was introspected %d times, want 1", got)
	}
}

// The task byte budget had no share per client: one address filled it
// with tasks waiting for input, for the task timeout (an hour), and every
// other client's taskMust call got 503, with an error that blamed the
// task's own byte limit. Now a client may hold its share of the budget
// (a quarter), its refusal names that share, and another client's
// taskMust call still becomes a task.
func TestAttackTaskBytes(t *testing.T) {
	s := newTestServer(t, withRegistry("base", "tasks"))
	ts := newTestLoopback(t, s, loopbackConfig(t, "-rate-limit", "0"))
	item := strings.Repeat("i", 1400<<10) // the argument, and the question it asks
	var refused []byte                    // the refusal of a task, or the error it failed with
	created := 0
	for i := 0; refused == nil && i < 64; i++ {
		r, err := doTestHTTP(ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", taskLine(i+1, "tools/call", fmt.Sprintf(`"name":"approve","arguments":{"item":%q}`, item)), nil))
		if err != nil {
			t.Fatal(err)
		}
		if r.code != 0 {
			refused = r.body
			break
		}
		created++
		id := mustTaskID(t, mustDecode(t, string(r.body)))
		get := taskLine(2, "tasks/get", fmt.Sprintf(`"taskId":%q`, id))
		waitFor(5*time.Second, func() bool {
			r, err := doTestHTTP(ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", get, nil))
			switch {
			case err != nil || bytes.Contains(r.body, []byte(`"status":"working"`)):
				return false
			case bytes.Contains(r.body, []byte(`"status":"failed"`)):
				refused = r.body // its question did not fit
			}
			return true
		})
	}
	_, total := s.tasks.live()
	mine, _ := s.tasks.bytes.held(shareKey("", "127.0.0.1"))
	t.Logf("one address started %d tasks of about %d KiB each, holding %d KiB (its share %d KiB, the budget %d KiB), then: %.400s", created, 2*len(item)>>10, mine>>10, s.tasks.bytes.per>>10, s.tasks.bytes.total>>10, refused)
	if mine > s.tasks.bytes.per || total > s.tasks.bytes.total {
		t.Errorf("one address holds %d bytes of tasks (all %d), want at most its share %d", mine, total, s.tasks.bytes.per)
	}
	if !bytes.Contains(refused, []byte(`"code":-31503`)) || !bytes.Contains(refused, []byte(`"maxTaskBytesPerClient"`)) || bytes.Contains(refused, []byte(strconv.Itoa(defaultMaxTaskBytes))) {
		t.Errorf("the refusal: %.400s; want -31503 naming the client's share (maxTaskBytesPerClient), not the task's own limit", refused)
	}
	other := ts.from(t, "127.0.0.2")
	r, err := doTestHTTP(other.Client(), newTestHTTPRequest(t, t.Context(), other, "", taskLine(1, "tools/call", fmt.Sprintf(`"name":"approve","arguments":{"item":%q}`, item)), nil))
	if err != nil || !bytes.Contains(r.body, []byte(`"resultType":"task"`)) {
		t.Errorf("another client's taskMust call of the same size: %v, %.300s; want a task", err, r.body)
	}
}

// Made-up key ids kept the once-per-gap key refetch spent, so the first
// tokens of a freshly rotated key were refused 401 invalid_token for up to
// the gap, and their clients started a new authorization. Now a kid the
// server cannot yet tell about is 503 with Retry-After: a rotated key's
// first token, sent while another client sends made-up kids, is served or
// told to retry, never refused.
func TestAttackMadeUpKids(t *testing.T) {
	as := newTestAS(t, "", "rsa-1")
	hcfg := loopbackConfig(t, "-rate-limit", "0")
	hcfg.auth = as.authConfig()
	hcfg.auth.resource, hcfg.auth.refetchGap = testResource, time.Second
	ts := newTestLoopback(t, newTestServer(t, withAuthRegistry(new(atomic.Int64))), hcfg)
	call := func(ts *testHTTP, tok string) testHTTPReply {
		r, err := doTestHTTP(ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", callLine("open"), []string{bearer(tok)}))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := call(ts, as.mint(t, "rsa-1", "alice", "mcp:tools", nil)); r.status != http.StatusOK {
		t.Fatalf("a token of the first key: status %d", r.status)
	}
	// The attacker: a made-up kid every 200 ms, each a fetch when the gap
	// allows one.
	stop := make(chan struct{})
	sent := make(chan struct{}, 1)
	var attacks sync.WaitGroup
	attacks.Go(func() {
		for i := 0; ; i++ {
			call(ts, as.mint(t, "rsa-1", "mallory", "mcp:tools", func(h, c map[string]any) { h["kid"] = fmt.Sprint("made-up-", i) }))
			select {
			case sent <- struct{}{}:
			default:
			}
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	})
	defer func() { close(stop); attacks.Wait() }()
	<-sent
	<-sent // a made-up kid has just spent the gap
	as.publish("rsa-1", "rsa-2")
	other := ts.from(t, "127.0.0.2")
	tok := as.mint(t, "rsa-2", "bob", "mcp:tools", nil)
	start := time.Now()
	var answers []string
	for {
		r := call(other, tok)
		answers = append(answers, fmt.Sprintf("%d after %v", r.status, time.Since(start).Round(time.Millisecond)))
		if r.status == http.StatusOK {
			break
		}
		retry, err := strconv.Atoi(r.header.Get("Retry-After"))
		if r.status != http.StatusServiceUnavailable || err != nil || retry < 1 || time.Since(start) > 5*hcfg.auth.refetchGap {
			t.Fatalf("the rotated key's first token: %v, last %.200s (Retry-After %q); want 503 with Retry-After until served", answers, r.body, r.header.Get("Retry-After"))
		}
		time.Sleep(time.Duration(retry) * time.Second)
	}
	t.Logf("the rotated key's first token, made-up kids every 200 ms: %v", answers)
}
