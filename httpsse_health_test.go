//go:build !stdio

// Tests of the health probes (httpsse_health.go): what they answer and to
// whom, and the order of a graceful shutdown under load: /readyz fails
// before any request is refused, and a request in flight is still
// answered.

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
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// TestHealthProbes checks both probes on an endpoint that requires a
// token and sees a hostile Origin and Host: they answer anyway, with one
// word and nothing about the server, never cached; other methods get 405.
func TestHealthProbes(t *testing.T) {
	ts := newTestHTTP(t, newTestServer(t), &httpConfig{auth: authConfig{tokens: mustSingleToken(t, testToken)}})
	for _, tt := range []struct {
		name, method, path string
		edits              []string
		status             int
		body               string
	}{
		{"healthz", "GET", healthPath, nil, 200, "ok\n"},
		{"readyz", "GET", readyPath, nil, 200, "ready\n"},
		{"healthz without token, foreign origin and host", "GET", healthPath, []string{"Origin: http://evil.example", "Host: evil.example"}, 200, "ok\n"},
		{"readyz without token, foreign origin and host", "GET", readyPath, []string{"Origin: http://evil.example", "Host: evil.example"}, 200, "ready\n"},
		{"HEAD readyz", "HEAD", readyPath, nil, 200, ""},
		{"POST healthz", "POST", healthPath, nil, 405, ""},
		{"subpath", "GET", healthPath + "/x", nil, 404, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := mustDo(t, ts.Client(), newTestHTTPGet(t, t.Context(), ts, tt.method, tt.path, tt.edits))
			if got.status != tt.status {
				t.Fatalf("%s %s = %d %q, want %d", tt.method, tt.path, got.status, got.body, tt.status)
			}
			if tt.status != 200 {
				return
			}
			if string(got.body) != tt.body || got.header.Get("Cache-Control") != "no-store" {
				t.Errorf("%s %s = %q (Cache-Control %q), want %q, no-store", tt.method, tt.path, got.body, got.header.Get("Cache-Control"), tt.body)
			}
			for name := range got.header {
				if name != "Content-Type" && name != "Cache-Control" && name != "X-Content-Type-Options" && name != "Content-Length" && name != "Date" {
					t.Errorf("probe answered with header %s: %q", name, got.header.Get(name))
				}
			}
		})
	}
	ts.tr.beginDrain()
	r, _ := http.NewRequestWithContext(t.Context(), "GET", ts.URL+readyPath, nil)
	if got := mustDo(t, ts.Client(), r); got.status != http.StatusServiceUnavailable || string(got.body) != "draining\n" {
		t.Errorf("readyz while draining = %d %q, want 503 draining", got.status, got.body)
	}
	r, _ = http.NewRequestWithContext(t.Context(), "GET", ts.URL+healthPath, nil)
	if got := mustDo(t, ts.Client(), r); got.status != 200 {
		t.Errorf("healthz while draining = %d, want 200: the process still serves", got.status)
	}
}

// TestShutdownReadinessFirst drives SIGTERM into a server under load, as
// main does (signal.NotifyContext), with -shutdown-delay: /readyz turns
// 503 before any request is refused, new requests are still served while
// it says so, a request in flight across the whole shutdown is answered,
// and serveHTTP returns nil. Events are numbered in the order the clients
// observe them.
func TestShutdownReadinessFirst(t *testing.T) {
	self, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Skip(err)
	}
	ctx, stopSignals := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stopSignals()
	g := newTestGates()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() {
		served <- newTestServer(t, withGates(g)).serveHTTP(ctx, ln, &httpConfig{maxBody: defaultMaxBodyBytes, drainTimeout: time.Minute, shutdownDelay: time.Second})
	}()
	ts := &testHTTP{URL: "http://" + ln.Addr().String()}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()

	inFlight := make(chan testHTTPReply, 1)
	go func() {
		r, err := doTestHTTP(client, newTestHTTPRequest(t, context.Background(), ts, "", req("1", "tools/call", `"name":"gate"`), nil))
		if err != nil {
			r.body = []byte(err.Error())
		}
		inFlight <- r
	}()
	mustReceive(t, g.started)

	var (
		seq                             atomic.Int64
		firstNotReady, firstRefused     atomic.Int64 // sequence numbers; 0 while none
		readyAfterNotReady, okAfterFlip atomic.Int64
		loaded                          = make(chan struct{})
		loadedOnce                      sync.Once
		wg                              sync.WaitGroup
	)
	setFirst := func(v *atomic.Int64, n int64) { v.CompareAndSwap(0, n) }
	echo := req("2", "tools/call", `"name":"echo","arguments":{"message":"x"}`)
	for range 4 {
		wg.Go(func() {
			for {
				r, err := doTestHTTP(client, newTestHTTPRequest(t, context.Background(), ts, "", echo, nil))
				n := seq.Add(1)
				if err != nil || r.status != 200 {
					setFirst(&firstRefused, n)
					return
				}
				if fr := firstNotReady.Load(); fr != 0 && fr < n {
					okAfterFlip.Add(1)
				}
				loadedOnce.Do(func() { close(loaded) })
			}
		})
	}
	wg.Go(func() {
		for {
			r, err := http.NewRequest("GET", ts.URL+readyPath, nil)
			if err != nil {
				t.Error(err)
				return
			}
			resp, err := client.Do(r)
			n := seq.Add(1)
			if err != nil {
				return // the listener has closed
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			switch {
			case resp.StatusCode == http.StatusServiceUnavailable:
				setFirst(&firstNotReady, n)
			case firstNotReady.Load() != 0:
				readyAfterNotReady.Add(1)
			}
		}
	})
	mustReceive(t, loaded)
	if err := self.Signal(syscall.SIGTERM); err != nil {
		t.Skipf("cannot signal this process: %v", err)
	}
	wg.Wait()
	close(g.release)
	if got := mustReceive(t, inFlight); got.status != 200 || !bytes.Contains(got.body, []byte("released")) {
		t.Errorf("request in flight across the shutdown: %d %s", got.status, got.body)
	}
	if err := mustReceive(t, served); err != nil {
		t.Errorf("serveHTTP = %v, want nil", err)
	}
	nr, rf := firstNotReady.Load(), firstRefused.Load()
	t.Logf("first 503 from /readyz at event %d, first refused request at %d, %d requests served in between", nr, rf, okAfterFlip.Load())
	switch {
	case nr == 0:
		t.Errorf("/readyz never answered 503 before the listener closed")
	case rf == 0:
		t.Errorf("no request was refused: the listener never closed")
	case rf < nr:
		t.Errorf("a request was refused (event %d) before /readyz answered 503 (event %d)", rf, nr)
	}
	if readyAfterNotReady.Load() != 0 {
		t.Errorf("/readyz answered 200 %d times after its first 503", readyAfterNotReady.Load())
	}
	if okAfterFlip.Load() == 0 {
		t.Errorf("no request was served while /readyz said 503: -shutdown-delay did not keep serving")
	}
}

// TestDrainClosesConnections checks the keep-alive connections of a
// draining server (-shutdown-delay): an answer before shutdown keeps its
// connection; once shutdown has begun, the next request on that idle
// connection is still answered, with Connection: close, and the one after
// it comes on a new connection, answered the same way, so that a load
// balancer's pool empties while the listener still accepts rather than
// when the drain ends.
func TestDrainClosesConnections(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ln := &memListener{conns: make(chan net.Conn), closed: make(chan struct{})}
		ctx, shutdown := context.WithCancel(t.Context())
		defer shutdown()
		served := make(chan error, 1)
		go func() {
			served <- newTestServer(t).serveHTTP(ctx, ln, &httpConfig{maxBody: defaultMaxBodyBytes, drainTimeout: time.Minute, shutdownDelay: time.Minute})
		}()
		var dials atomic.Int64
		client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return ln.dial(ctx, network, addr)
		}}}
		defer client.CloseIdleConnections()
		ts := &testHTTP{URL: "http://127.0.0.1:" + strconv.Itoa(testHTTPPort)}
		echo := req("1", "tools/call", `"name":"echo","arguments":{"message":"x"}`)
		call := func() *http.Response {
			t.Helper()
			resp, err := client.Do(newTestHTTPRequest(t, t.Context(), ts, "", echo, nil))
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d, want 200: the server still answers while it drains", resp.StatusCode)
			}
			synctest.Wait() // the connection is back in the pool, or closed
			return resp
		}
		for _, step := range []struct {
			name      string
			shutdown  bool  // shutdown begins before this request
			wantClose bool  // the answer says Connection: close
			wantDials int64 // connections dialled so far
		}{
			{"before shutdown, the connection is kept", false, false, 1},
			{"draining: the idle connection is used once more, and closed", true, true, 1},
			{"draining: a new connection, closed after its answer", false, true, 2},
		} {
			if step.shutdown {
				shutdown()
				synctest.Wait() // serveHTTP waits out -shutdown-delay
			}
			resp := call()
			if resp.Close != step.wantClose || dials.Load() != step.wantDials {
				t.Errorf("%s: Connection: close %v, %d connections dialled; want %v, %d", step.name, resp.Close, dials.Load(), step.wantClose, step.wantDials)
			}
		}
		if err := <-served; err != nil {
			t.Errorf("serveHTTP = %v, want nil", err)
		}
	})
}

// TestConnectionsHeldByFourAddresses is the fourth review's R4-8: four
// addresses without a credential held every connection of the MCP
// listener (one GET /healthz each, then idle), and of the -metrics
// listener, so that an authenticated client got no answer in 40 s and a
// liveness probe failed. Here the four addresses (127.0.0.1-4) each try
// to hold twice their share of the MCP listener (-max-connections 16,
// a share of 4), and sixteen addresses (127.0.0.1-16) try to hold twice
// theirs of the metrics listener (64, 4 each), in each way a client
// can hold a connection: silent, idle after a probe, after a refusal,
// after an answer. Whatever they do, an authenticated client (from a
// fifth address, and from one of the four) and the probes on both
// listeners are answered within a second: a probe's connection closes
// after its answer, an address at its share gives up its own quietest
// connection for its newcomer, and at the total the quiet connection of
// the address holding the most makes room.
func TestConnectionsHeldByFourAddresses(t *testing.T) {
	for _, tt := range []struct {
		name string
		// mcp and metrics are what each held connection sends before it
		// idles ("" nothing); closed says the server closes it once
		// answered.
		mcp, metrics string
		closed       bool
	}{
		{"silent", "", "", false},
		{"idle after a probe", "GET " + healthPath, "GET " + healthPath, true},
		{"idle after a refusal", "POST without a token", "GET /metrics from evil.example", false},
		{"idle after an answer", "POST with a token", "GET /nowhere", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t)
			metricsAddr, stopMetrics, err := s.serveMetrics("127.0.0.1:0", false)
			if err != nil {
				t.Fatal(err)
			}
			defer stopMetrics()
			hcfg := loopbackConfig(t, "-max-connections", "16")
			hcfg.auth.tokens = mustSingleToken(t, testToken)
			ts := newTestLoopback(t, s, hcfg)
			mcpAddr := strings.TrimPrefix(ts.URL, "http://")
			raw := func(what, host string) []byte {
				var b bytes.Buffer
				switch what {
				case "":
					return nil
				case "POST without a token", "POST with a token":
					var edits []string
					if what == "POST with a token" {
						edits = []string{bearer(testToken)}
					}
					echo := req("1", "tools/call", `"name":"echo","arguments":{"message":"held"}`)
					if err := newTestHTTPRequest(t, t.Context(), ts, "", echo, edits).Write(&b); err != nil {
						t.Fatal(err)
					}
					return b.Bytes()
				}
				what, foreign, ok := strings.Cut(what, " from ")
				if ok {
					host = foreign // refused 403 (DNS rebinding)
				}
				method, path, _ := strings.Cut(what, " ")
				return []byte(method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n")
			}
			hold := func(addr, what string, ips, each int) {
				// One deadline for every answer: before the fix, those
				// past the listener's bounds never came.
				deadline := time.Now().Add(2 * time.Second)
				for i := range ips * each {
					c := mustDial(t, addr, fmt.Sprintf("127.0.0.%d", 1+i%ips))
					send := raw(what, addr)
					if send == nil {
						continue
					}
					if _, err := c.Write(send); err != nil {
						t.Fatal(err)
					}
					br := bufio.NewReader(c)
					_ = c.SetReadDeadline(deadline)
					resp, err := http.ReadResponse(br, nil)
					if err != nil {
						// Evicted by a later connection of its address
						// before it was answered: it holds nothing.
						continue
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if tt.closed {
						if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
							t.Errorf("%s on %s: the connection after the answer: %v, want it closed", what, addr, err)
						}
					}
				}
			}
			hold(mcpAddr, tt.mcp, 4, 2*4)
			hold(metricsAddr.String(), tt.metrics, 16, 2*metricsConnectionsPerAddr)

			from := func(ip string) *http.Client {
				d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
				tr := &http.Transport{DialContext: d.DialContext}
				t.Cleanup(tr.CloseIdleConnections)
				return &http.Client{Transport: tr, Timeout: time.Second}
			}
			for _, ip := range []string{"127.0.0.5", "127.0.0.1"} {
				start := time.Now()
				r, err := doTestHTTP(from(ip), newTestHTTPRequest(t, t.Context(), ts, "", req("1", "tools/call", `"name":"echo","arguments":{"message":"hi"}`), []string{bearer(testToken)}))
				if err != nil || r.status != http.StatusOK || r.code != 0 {
					t.Errorf("an authenticated client from %s: %v, %d %.200s; want an answer within 1s", ip, err, r.status, r.body)
				}
				t.Logf("an authenticated client from %s: %d in %v", ip, r.status, time.Since(start).Round(time.Microsecond))
			}
			for _, probe := range []struct{ listener, url string }{
				{"MCP", ts.URL + healthPath},
				{"MCP", ts.URL + readyPath},
				{"metrics", "http://" + metricsAddr.String() + healthPath},
				{"metrics", "http://" + metricsAddr.String() + readyPath},
			} {
				start := time.Now()
				resp, err := from("127.0.0.20").Get(probe.url)
				if err != nil {
					t.Errorf("%s on the %s listener: %v; want 200 within 1s", probe.url, probe.listener, err)
					continue
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || !resp.Close {
					t.Errorf("%s on the %s listener: %d, Connection: close %v; want 200, closed", probe.url, probe.listener, resp.StatusCode, resp.Close)
				}
				t.Logf("%s on the %s listener: %d in %v", probe.url, probe.listener, resp.StatusCode, time.Since(start).Round(time.Microsecond))
			}
		})
	}
}
