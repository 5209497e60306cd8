//go:build !stdio

// Tests of limits.go that need the HTTP wing (absent from the stdio build).

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestHTTPBodyLimit checks -max-body at the limit and one byte over.
func TestHTTPBodyLimit(t *testing.T) {
	body := func(n int) string {
		b := req("1", "tools/call", `"name":"echo","arguments":{"message":"PAD"}`)
		return strings.Replace(b, "PAD", strings.Repeat("x", n-len(b)+3), 1)
	}
	const limit = 4096
	ts := newTestHTTP(t, newTestServer(t), &httpConfig{maxBody: limit})
	for _, tt := range []struct {
		name   string
		size   int
		status int
	}{
		{"body at -max-body", limit, 200},
		{"body over -max-body", limit + 1, 413},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", body(tt.size), nil))
			if got.status != tt.status {
				t.Errorf("status %d, want %d: %s", got.status, tt.status, got.body)
			}
		})
	}
}

// TestHTTPMaxRequests checks the server-wide bound over HTTP: n requests
// run at once; the n+1st waits for a slot, then gets 503 -31503 with
// Retry-After.
func TestHTTPMaxRequests(t *testing.T) {
	const n = 2
	ht := newTestGates()
	ts := newTestHTTP(t, newTestServer(t, withGates(ht), withFlags("-max-requests", fmt.Sprint(n), "-max-subscriptions", "1")), nil)
	ts.tr.queueWait = 10 * time.Millisecond
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			got, err := doTestHTTP(ts.Client(), newTestHTTPRequest(t, context.Background(), ts, "", req("1", "tools/call", `"name":"gate"`), nil))
			if err != nil || got.status != 200 {
				t.Errorf("request within the limit: %v %d", err, got.status)
			}
		})
	}
	for range n {
		mustReceive(t, ht.started)
	}
	got := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", req("1", "tools/call", `"name":"echo","arguments":{"message":"x"}`), nil))
	if got.status != 503 || got.code != codeServerBusy || got.header.Get("Retry-After") == "" {
		t.Errorf("request over the limit: status %d code %d Retry-After %q, want 503 %d set", got.status, got.code, got.header.Get("Retry-After"), codeServerBusy)
	}
	for range n {
		ht.release <- struct{}{}
	}
	wg.Wait()
	got = mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", req("1", "tools/call", `"name":"echo","arguments":{"message":"x"}`), nil))
	if got.status != 200 {
		t.Errorf("after the burst: status %d, want 200", got.status)
	}
}

// TestHTTPShares checks the per-client parts of the HTTP bounds over
// loopback, a client at 127.0.0.1 against one at 127.0.0.2: request slots
// (-max-requests 16: a share of 4) and request body bytes (-max-body 4096:
// a budget of 32 KiB, a share of 8 KiB). Past its share a client gets
// 503 naming its share; the other client is served.
func TestHTTPShares(t *testing.T) {
	t.Run("request slots", func(t *testing.T) {
		g := newTestGates()
		args := []string{"-max-requests", "16", "-max-subscriptions", "2"}
		ts := newTestLoopback(t, newTestServer(t, withGates(g), withFlags(args...)), loopbackConfig(t, args...))
		ts.tr.queueWait = 10 * time.Millisecond
		for i := range 4 {
			go func() {
				_, _ = doTestHTTP(ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", req(fmt.Sprint(i), "tools/call", `"name":"gate"`), nil))
			}()
			mustReceive(t, g.started)
		}
		got := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", req("9", "tools/call", `"name":"echo","arguments":{"message":"x"}`), nil))
		if got.status != 503 || got.code != codeServerBusy || !strings.Contains(string(got.body), "its share of 16") {
			t.Errorf("a fifth request of one client: %d %s, want 503 naming its share", got.status, got.body)
		}
		mustCallWithin(t, ts.from(t, "127.0.0.2"), "another client", time.Second)
		close(g.release)
	})
	t.Run("body bytes", func(t *testing.T) {
		args := []string{"-max-body", "4096"}
		ts := newTestLoopback(t, newTestServer(t, withFlags(args...)), loopbackConfig(t, args...))
		ts.tr.queueWait = 10 * time.Millisecond
		for range 2 { // 8 KiB announced, a few bytes sent
			c := dialFrom(t, ts, "127.0.0.1")
			if _, err := io.WriteString(c, rawPost(ts, 4096, "Expect: 100-continue\r\n")); err != nil {
				t.Fatal(err)
			}
			if status, err := bufio.NewReader(c).ReadString('\n'); err != nil || !strings.HasPrefix(status, "HTTP/1.1 100") {
				t.Fatalf("status line %q, %v; want 100 Continue", status, err)
			}
		}
		got := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", req("1", "ping", ""), nil))
		if got.status != 503 || got.code != codeServerBusy || !strings.Contains(string(got.body), "its share") {
			t.Errorf("a body past the client's share: %d %s, want 503 naming its share", got.status, got.body)
		}
		mustCallWithin(t, ts.from(t, "127.0.0.2"), "another client", time.Second)
	})
}

// newTestLimitListener serves newLimitListener(n, perAddr, exempt) on a
// loopback port and returns it, its address and the connections it
// accepts. It closes when the test ends. No server tells it when a
// connection turns busy (connState): each stays quiet unless the test
// says otherwise.
func newTestLimitListener(tb testing.TB, n, perAddr int, exempt func(netip.Addr) bool) (*limitListener, string, <-chan net.Conn) {
	tb.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	ln := newLimitListener(inner, n, perAddr, exempt)
	tb.Cleanup(func() { ln.Close() })
	accepted := make(chan net.Conn, 4*n+1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	return ln, inner.Addr().String(), accepted
}

// mustAcceptFrom receives the next connection accepted and fails unless
// it came from ip.
func mustAcceptFrom(tb testing.TB, accepted <-chan net.Conn, ip string) net.Conn {
	tb.Helper()
	c := mustReceive(tb, accepted)
	if got := remoteIP(c.RemoteAddr().String()); got != ip {
		tb.Fatalf("accepted a connection from %s, want %s", got, ip)
	}
	return c
}

// mustBeEvicted fails unless the listener closed c, a connection it
// accepted, to make room: its place is free (Close again is a no-op) and
// its peer reads the end.
func mustBeEvicted(tb testing.TB, c net.Conn, what string) {
	tb.Helper()
	if _, err := c.Write([]byte("x")); err == nil {
		tb.Errorf("%s: still open, want it closed to make room", what)
	}
}

// TestLimitListenerPerAddress checks the cap per client address: a
// newcomer from an address that has its share open takes the place of
// that address's quietest connection; when all of them are busy it is
// closed at once, without taking a place; another address is accepted
// all along.
func TestLimitListenerPerAddress(t *testing.T) {
	ln, addr, accepted := newTestLimitListener(t, 4, 2, nil)
	mustDial(t, addr, "127.0.0.1")
	first := mustAcceptFrom(t, accepted, "127.0.0.1")
	mustDial(t, addr, "127.0.0.1")
	second := mustAcceptFrom(t, accepted, "127.0.0.1")
	mustDial(t, addr, "127.0.0.1")
	third := mustAcceptFrom(t, accepted, "127.0.0.1")
	mustBeEvicted(t, first, "the quietest connection of an address at its share")
	ln.connState(second, http.StateActive)
	ln.connState(third, http.StateActive)
	mustBeClosed(t, mustDial(t, addr, "127.0.0.1"), "a newcomer from an address whose connections are all busy")
	mustDial(t, addr, "127.0.0.2")
	mustAcceptFrom(t, accepted, "127.0.0.2")
	ln.connState(third, http.StateIdle)
	mustDial(t, addr, "127.0.0.1")
	mustAcceptFrom(t, accepted, "127.0.0.1")
	mustBeEvicted(t, third, "the connection that fell quiet")
	if n := ln.open(); n != 3 {
		t.Errorf("%d connections open, want 3 (two of 127.0.0.1, one of 127.0.0.2)", n)
	}
}

// TestLimitListenerTrustedProxy: a trusted proxy's connections carry many
// clients, so they are bound by the total alone, not by one address's
// share; every other address keeps its cap.
func TestLimitListenerTrustedProxy(t *testing.T) {
	proxy := netip.MustParseAddr("127.0.0.1")
	ln, addr, accepted := newTestLimitListener(t, 5, 1, func(a netip.Addr) bool { return a == proxy })
	for range 3 {
		mustDial(t, addr, "127.0.0.1")
		ln.connState(mustAcceptFrom(t, accepted, "127.0.0.1"), http.StateActive)
	}
	mustDial(t, addr, "127.0.0.2")
	ln.connState(mustAcceptFrom(t, accepted, "127.0.0.2"), http.StateActive)
	mustBeClosed(t, mustDial(t, addr, "127.0.0.2"), "a second connection from an address that is not a proxy")
}

// TestLimitListener checks -max-connections: the n+1st connection takes
// the place of the quiet connection of the address holding the most (the
// one quiet longest among them); with every connection busy it waits
// until one closes or falls quiet.
func TestLimitListener(t *testing.T) {
	ln, addr, accepted := newTestLimitListener(t, 3, 3, nil)
	mustDial(t, addr, "127.0.0.2")
	lone := mustAcceptFrom(t, accepted, "127.0.0.2")
	mustDial(t, addr, "127.0.0.1")
	older := mustAcceptFrom(t, accepted, "127.0.0.1")
	mustDial(t, addr, "127.0.0.1")
	newer := mustAcceptFrom(t, accepted, "127.0.0.1")
	mustDial(t, addr, "127.0.0.3")
	third := mustAcceptFrom(t, accepted, "127.0.0.3")
	mustBeEvicted(t, older, "the quietest connection of the address holding the most")
	for _, c := range []net.Conn{lone, newer, third} {
		ln.connState(c, http.StateActive)
	}
	mustDial(t, addr, "127.0.0.4")
	select {
	case c := <-accepted:
		t.Fatalf("a connection from %s accepted while every one was busy", c.RemoteAddr())
	case <-time.After(50 * time.Millisecond):
	}
	ln.connState(lone, http.StateIdle)
	mustAcceptFrom(t, accepted, "127.0.0.4")
	mustBeEvicted(t, lone, "the connection that fell quiet")
	third.Close()
	mustDial(t, addr, "127.0.0.5")
	mustAcceptFrom(t, accepted, "127.0.0.5")
	if n := ln.open(); n != 3 {
		t.Errorf("%d connections open, want 3", n)
	}
}

// TestTrustedProxyConnections is the deployment of docs/DEPLOY.md:
// behind -trusted-proxy, the proxy holds more connections than one
// client's share of -max-connections (long-lived streams pin them), and
// its next connection still carries a client's call and the proxy's
// health check (review A, finding 1: both were reset).
func TestTrustedProxyConnections(t *testing.T) {
	ts := newTestLoopback(t, newTestServer(t), loopbackConfig(t, "-max-connections", "16", "-trusted-proxy", "127.0.0.1"))
	for range 8 { // twice the share of one address
		dialFrom(t, ts, "127.0.0.1")
	}
	cl := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: testWait}
	r := newTestHTTPRequest(t, t.Context(), ts, "", req(`"probe"`, "tools/call", `"name":"echo","arguments":{"message":"hi"}`), []string{"X-Forwarded-For: 10.9.9.9"})
	if got, err := doTestHTTP(cl, r); err != nil || got.status != http.StatusOK {
		t.Errorf("a client's call through the proxy: %v, %d %s", err, got.status, got.body)
	}
	resp, err := cl.Get(ts.URL + readyPath)
	if err != nil {
		t.Fatalf("the proxy's health check: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the proxy's health check: status %d, want 200", resp.StatusCode)
	}
}

// TestRateLimitHTTP checks the HTTP face of a rate-limited call: 429 with
// Retry-After and the JSON-RPC error.
func TestRateLimitHTTP(t *testing.T) {
	ts := newTestHTTP(t, newTestServer(t, withFlags("-rate-limit", "0.1", "-rate-burst", "1")), nil)
	body := req("1", "tools/call", `"name":"echo","arguments":{"message":"x"}`)
	if got := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", body, nil)); got.status != 200 {
		t.Fatalf("first call: %d %s", got.status, got.body)
	}
	got := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", body, nil))
	if got.status != 429 || got.code != codeRateLimited || got.header.Get("Retry-After") != "10" {
		t.Errorf("second call: status %d code %d Retry-After %q, want 429 %d 10", got.status, got.code, got.header.Get("Retry-After"), codeRateLimited)
	}
}

// TestRateLimitDefaults checks the default tools/call rate limit: over
// HTTP a caller gets defaultHTTPBurst calls at once and then -31429 (HTTP
// 429) until its bucket refills; on stdio, unless -rate-limit asks for it,
// nothing is limited. Issue 20, finding 5: rate limiting was off by
// default although the tools page says servers MUST rate-limit.
// [§Security Considerations]: https://modelcontextprotocol.io/specification/2026-07-28/server/tools#security-considerations
func TestRateLimitDefaults(t *testing.T) {
	stopped := withClock(stoppedClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	call := req("1", "tools/call", `"name":"echo","arguments":{"message":"x"}`)
	t.Run("HTTP", func(t *testing.T) {
		ts := newTestHTTP(t, newTestServer(t, withFlags("-http", "127.0.0.1:0"), stopped), nil)
		for i := range defaultHTTPBurst {
			if got := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", call, nil)); got.status != 200 {
				t.Fatalf("call %d within the default burst: %d %s", i+1, got.status, got.body)
			}
		}
		got := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", call, nil))
		if got.status != 429 || got.code != codeRateLimited || got.header.Get("Retry-After") != "1" {
			t.Errorf("call %d: status %d code %d Retry-After %q, want 429 %d 1", defaultHTTPBurst+1, got.status, got.code, got.header.Get("Retry-After"), codeRateLimited)
		}
		list := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", req("2", "tools/list", ""), nil))
		if list.status != 200 {
			t.Errorf("tools/list after the burst: %d, want 200 (only tools/call is limited)", list.status)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		s := newTestServer(t, stopped)
		for i := range 10 * defaultHTTPBurst {
			if code, msg := mustDispatchError(t, s, "", call); code != 0 {
				t.Fatalf("stdio call %d: %d %s, want no limit", i+1, code, msg)
			}
		}
	})
	t.Run("stdio with -rate-limit", func(t *testing.T) {
		s := newTestServer(t, withFlags("-rate-limit", "1", "-rate-burst", "2"), stopped)
		for i, want := range []int{0, 0, codeRateLimited} {
			if code, _ := mustDispatchError(t, s, "", call); code != want {
				t.Errorf("stdio call %d: code %d, want %d", i+1, code, want)
			}
		}
	})
}

// TestSharesOneMechanism checks that every per-client count (classic
// sessions, listens, tasks, connections) is a shareLimit: one client
// fills its part of each and is refused, the limit says it holds its
// part, and giving everything back leaves the limit holding nothing
// for it. The introspection slots are a shareLimit of their own
// (TestAuthIntrospectionBounds).
func TestSharesOneMechanism(t *testing.T) {
	type holder struct {
		name string
		// fill takes units for share "a" until refused, and returns how
		// many it took, the limit that counts them, and what gives them
		// back.
		fill func(t *testing.T) (took int64, lim *shareLimit, release func())
	}
	for _, h := range []holder{
		{"classic sessions", func(t *testing.T) (int64, *shareLimit, func()) {
			st := newSessionStore(8, 2, time.Hour, nil)
			var took int64
			for i := range 8 {
				sess := newHTTPSession("", caller{})
				sess.id, sess.share = fmt.Sprint(i), "a"
				if !st.add(sess) {
					break
				}
				st.acquire(sess.id, "") // busy: never evicted to make room
				took++
			}
			return took, st.open, st.closeAll
		}},
		{"listens", func(t *testing.T) (int64, *shareLimit, func()) {
			h := newSubscriptionHub(8, 0, 25)
			var subs []*subscription
			for range 8 {
				sub, rerr := h.open([]byte("1"), subscriptionFilter{}, "a")
				if rerr != nil {
					break
				}
				subs = append(subs, sub)
			}
			return int64(len(subs)), h.listens, func() {
				for _, sub := range subs {
					h.close(sub)
				}
			}
		}},
		{"tasks", func(t *testing.T) (int64, *shareLimit, func()) {
			st := newTaskStore(taskConfig{maxTasks: 8}, "", 25, nil, func(string) {})
			var took int64
			for range 8 {
				if _, _, rerr := st.create(caller{share: "a"}, 0, func(ctx context.Context, _ *task) { <-ctx.Done() }); rerr != nil {
					break
				}
				took++
			}
			return took, st.count, func() {
				st.shutdown()
				st.mu.Lock()
				for _, tk := range st.tasks {
					st.removeLocked(tk)
				}
				st.mu.Unlock()
			}
		}},
		{"connections", func(t *testing.T) (int64, *shareLimit, func()) {
			inner, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ln := newLimitListener(inner, 8, 2, nil)
			t.Cleanup(func() { ln.Close() })
			var conns []net.Conn
			for range 3 {
				mustDial(t, inner.Addr().String(), "127.0.0.1")
				c, err := ln.Accept()
				if err != nil {
					t.Fatal(err)
				}
				conns = append(conns, c)
				if len(conns) == 2 {
					break // a third is closed at once: Accept would wait
				}
			}
			return int64(len(conns)), ln.byAddr, func() {
				for _, c := range conns {
					c.Close()
				}
			}
		}},
	} {
		t.Run(h.name, func(t *testing.T) {
			took, lim, release := h.fill(t)
			mine, _ := lim.held(heldShare(h.name))
			if took != lim.per || mine != lim.per {
				t.Errorf("one client took %d and holds %d, want its part %d", took, mine, lim.per)
			}
			release()
			if mine, all := lim.held(heldShare(h.name)); mine != 0 || all != 0 {
				t.Errorf("after release: the client holds %d, all %d, want 0", mine, all)
			}
		})
	}
}

// heldShare is the share TestSharesOneMechanism's holder fills: the
// connections are counted by address.
func heldShare(holder string) string {
	if holder == "connections" {
		return addrNetwork("127.0.0.1")
	}
	return "a"
}
