//go:build !stdio

// Tests of the Streamable HTTP transport's life (httpsse_listen.go): its
// flags, the listen address, and graceful shutdown through serveHTTP.

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// mustServeHTTP runs s.serveHTTP on a loopback listener until stop
// begins its graceful shutdown; served yields serveHTTP's result. Only
// serveHTTP shuts down gracefully, so the tests of shutdown go through it
// rather than newTestHTTP. The returned testHTTP has no transport.
func mustServeHTTP(tb testing.TB, s *server, hcfg *httpConfig) (ts *testHTTP, stop context.CancelFunc, served <-chan error) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc, done := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(done)
		errc <- s.serveHTTP(ctx, ln, hcfg)
	}()
	tb.Cleanup(func() {
		cancel()
		<-done
	})
	port := ln.Addr().(*net.TCPAddr).Port
	return &testHTTP{URL: fmt.Sprintf("http://127.0.0.1:%d", port), port: port, client: http.DefaultClient}, cancel, errc
}

// TestHTTPShutdownDrains checks graceful shutdown: after ctx ends the
// listener closes, a request in flight still gets its answer, and
// serveHTTP returns nil after it.
func TestHTTPShutdownDrains(t *testing.T) {
	g := newTestGates()
	ts, stop, errc := mustServeHTTP(t, newTestServer(t, withGates(g)), &httpConfig{maxBody: defaultMaxBodyBytes, drainTimeout: time.Minute})
	req := newTestHTTPRequest(t, context.Background(), ts, "", req("1", "tools/call", `"name":"gate"`), nil)
	replies := make(chan testHTTPReply, 1)
	go func() {
		r, err := doTestHTTP(http.DefaultClient, req)
		if err != nil {
			r.body = []byte(err.Error())
		}
		replies <- r
	}()
	mustReceive(t, g.started)
	stop()
	// Polling is unavoidable here: Shutdown closes the listener
	// asynchronously.
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("listener still accepting after shutdown began")
		}
		runtime.Gosched()
	}
	select {
	case err := <-errc:
		t.Fatalf("serveHTTP returned %v with a request in flight", err)
	default:
	}
	close(g.release)
	if got := mustReceive(t, replies); got.status != 200 || !bytes.Contains(got.body, []byte("released")) {
		t.Errorf("in-flight request: %d %s", got.status, got.body)
	}
	if err := mustReceive(t, errc); err != nil {
		t.Errorf("serveHTTP = %v, want nil", err)
	}
}

// TestHTTPShutdownCancels checks that requests still running when the
// drain time is over are cancelled and serveHTTP still returns nil.
func TestHTTPShutdownCancels(t *testing.T) {
	g := newTestGates()
	ts, stop, errc := mustServeHTTP(t, newTestServer(t, withGates(g)), &httpConfig{maxBody: defaultMaxBodyBytes, drainTimeout: time.Millisecond})
	req := newTestHTTPRequest(t, context.Background(), ts, "", req("1", "tools/call", `"name":"gate"`), nil)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
	}()
	mustReceive(t, g.started)
	stop()
	if err := mustReceive(t, g.cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("handler context ended with %v, want context.Canceled", err)
	}
	if err := mustReceive(t, errc); err != nil {
		t.Errorf("serveHTTP = %v, want nil", err)
	}
}

// TestHTTPListenAddr checks how -http completes an address.
func TestHTTPListenAddr(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"8080", "127.0.0.1:8080"},
		{":8080", "127.0.0.1:8080"},
		{"127.0.0.1:8080", "127.0.0.1:8080"},
		{"localhost:9", "localhost:9"},
		{"[::1]:8080", "[::1]:8080"},
		{"0.0.0.0:8080", "0.0.0.0:8080"},
		{"host", ""},
		{"99999", ""},
		{":http", ""},
	} {
		got, err := httpListenAddr(tt.in)
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("httpListenAddr(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestHTTPFlags checks the HTTP flags' validation through run.
func TestHTTPFlags(t *testing.T) {
	dir := t.TempDir()
	empty := mustWriteFile(t, dir, "empty", []byte("\n"), 0o600)
	short := mustWriteFile(t, dir, "short", []byte("s3cret\n"), 0o600)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"bad address", []string{"-http", "nohost"}, "want host:port"},
		{"bad origin", []string{"-http", "8080", "-allow-origin", "evil.example.com"}, "scheme://host"},
		{"origin with path", []string{"-http", "8080", "-allow-origin", "https://a.example/x"}, "scheme://host"},
		{"zero body cap", []string{"-http", "8080", "-max-body", "0"}, "-max-body"},
		{"body cap past its bound", []string{"-http", "8080", "-max-body", "1152921504606846976"}, "-max-body must be positive and at most 1073741824"},
		{"missing token file", []string{"-http", "8080", "-token-file", filepath.Join(dir, "none")}, "-token-file"},
		{"empty token file", []string{"-http", "8080", "-token-file", empty}, "is empty"},
		{"short token file", []string{"-http", "8080", "-token-file", short}, "-token-file " + short + ": the bearer token must be at least 32 bytes (it has 6)"},
		{"short token in the environment", []string{"-http", "8080"}, "$" + envToken + ": the bearer token must be at least 32 bytes (it has 5)"},
		// Issue 20, finding 3: a public bind without authentication
		// started silently, with the Host check off.
		{"all interfaces without authentication", []string{"-http", "0.0.0.0:8080"},
			"-http 0.0.0.0:8080 listens beyond loopback without authentication, so anyone who can reach it may call every tool: set -token-file (or $" + envToken + ") or -oauth-issuer, or add -allow-public-without-auth to accept that"},
		{"IPv6 any without authentication", []string{"-http", "[::]:8080"}, "add -allow-public-without-auth"},
		{"a LAN address without authentication", []string{"-http", "192.0.2.1:8080"}, "add -allow-public-without-auth"},
		{"a host name without authentication", []string{"-http", "mcp.example.com:8080"}, "add -allow-public-without-auth"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := func(name string) string {
				if name == envToken && tt.name == "short token in the environment" {
					return "short"
				}
				return ""
			}
			// Cancelled: a configuration that wrongly starts returns at
			// once instead of serving.
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			err := run(ctx, tt.args, strings.NewReader(""), io.Discard, io.Discard, env)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("run(%q) = %v, want an error containing %q", tt.args, err, tt.want)
			}
		})
	}
}

// TestHTTPBindStarts checks the binds that start: loopback in any
// spelling without authentication, any address with a token, and a public
// bind without one when -allow-public-without-auth says the operator means
// it, which is logged.
func TestHTTPBindStarts(t *testing.T) {
	token := mustWriteFile(t, t.TempDir(), "token", []byte(testToken+"\n"), 0o600)
	for _, tt := range []struct {
		name string
		args []string
		warn bool // the public-bind warning is logged
	}{
		{"bare port", []string{"-http", "0"}, false},
		{"IPv4 loopback", []string{"-http", "127.0.0.1:0"}, false},
		{"IPv6 loopback", []string{"-http", "[::1]:0"}, false},
		{"localhost", []string{"-http", "localhost:0"}, false},
		{"all interfaces with a token file", []string{"-http", "0.0.0.0:0", "-token-file", token}, false},
		{"all interfaces, the operator accepts it", []string{"-http", "0.0.0.0:0", "-allow-public-without-auth"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			logs := &syncBuffer{}
			if err := run(ctx, tt.args, strings.NewReader(""), io.Discard, logs, func(string) string { return "" }); err != nil {
				if strings.Contains(err.Error(), "cannot assign requested address") {
					t.Skipf("no such interface here: %v", err)
				}
				t.Fatalf("run(%q) = %v, want a clean start", tt.args, err)
			}
			warned := strings.Contains(logs.String(), "serving beyond loopback without authentication")
			if warned != tt.warn {
				t.Errorf("run(%q): public-bind warning %v, want %v; log: %s", tt.args, warned, tt.warn, logs.String())
			}
		})
	}
}

// TestRunHTTP serves through run and stops it with ctx: the exit is clean.
func TestRunHTTP(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := run(ctx, []string{"-http", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
	if err != nil {
		t.Errorf("run = %v, want nil", err)
	}
}

// TestHTTPFlagsKeepAlive checks -sse-keepalive.
func TestHTTPFlagsKeepAlive(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want time.Duration
		err  bool
	}{
		{[]string{"-http", "8080"}, defaultKeepAlive, false},
		{[]string{"-http", "8080", "-sse-keepalive", "30s"}, 30 * time.Second, false},
		{[]string{"-http", "8080", "-sse-keepalive", "0"}, 0, true},
	} {
		pcfg, err := parseFlags(tt.args, io.Discard, func(string) string { return "" })
		hc := pcfg.http
		if (err != nil) != tt.err || (err == nil && hc.keepAlive != tt.want) {
			t.Errorf("parseFlags(%q) = %v, %v; want %v, error %v", tt.args, hc, err, tt.want, tt.err)
		}
	}
}

// TestHTTPShutdownCut checks a request still running when
// -shutdown-timeout expires: it is cut, and answered, not left to an
// empty reply a proxy would replay on another replica: 500 with -32603
// "request cut ...", and its access line says outcome=cut.
func TestHTTPShutdownCut(t *testing.T) {
	g := newTestGates()
	var logs syncBuffer
	ts, stop, errc := mustServeHTTP(t, newTestServer(t, withGates(g), withLogs(&logs)), &httpConfig{maxBody: defaultMaxBodyBytes, drainTimeout: time.Millisecond})
	replies := make(chan testHTTPReply, 1)
	go func() {
		r, err := doTestHTTP(http.DefaultClient, newTestHTTPRequest(t, context.Background(), ts, "", req("1", "tools/call", `"name":"gate"`), nil))
		if err != nil {
			t.Errorf("the cut call got no answer: %v", err)
		}
		replies <- r
	}()
	mustReceive(t, g.started)
	stop()
	got := mustReceive(t, replies)
	if got.status != http.StatusInternalServerError || got.code != codeInternalError || !bytes.Contains(got.body, []byte("request cut")) {
		t.Errorf("the cut call: %d %s, want 500 with -32603 request cut", got.status, got.body)
	}
	if err := mustReceive(t, errc); err != nil {
		t.Errorf("serveHTTP = %v, want nil", err)
	}
	if !strings.Contains(logs.String(), "method=tools/call name=gate client=127.0.0.1 outcome=cut code=-32603") {
		t.Errorf("no access line with outcome=cut:\n%s", logs.String())
	}
}

// TestReplicaIDMatchesPattern checks validReplicaID against the regular
// expression it replaced (mustMatchPattern).
func TestReplicaIDMatchesPattern(t *testing.T) {
	mustMatchPattern(t, validReplicaID, `^[a-z0-9][a-z0-9-]{0,31}$`, 32)
}
