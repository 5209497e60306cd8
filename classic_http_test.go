//go:build !stdio

// Tests of the classic era over Streamable HTTP (the transcripts in
// testdata/classic are played over HTTP too): the session lifecycle, the GET stream, and
// -modern-only.

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// classicHTTPClient is a classic client of a test server: after initialize
// it sends the session id on every request, and the negotiated version in
// MCP-Protocol-Version when the revision defines that header (2025-06-18
// on), as the official clients do. Lines carrying the modern _meta are sent as
// a modern client sends them, without session.
type classicHTTPClient struct {
	tb      testing.TB
	ts      *testHTTP
	sid     string
	version string
	always  []string // edits applied to every request first (a credential)
}

// newTestClassicClient returns a client of ts without a session.
func newTestClassicClient(tb testing.TB, ts *testHTTP) *classicHTTPClient {
	return &classicHTTPClient{tb: tb, ts: ts}
}

// request builds the POST of body (or, for body "GET" or "DELETE", that
// method) with edits applied as newTestHTTPRequest does.
func (c *classicHTTPClient) request(ctx context.Context, body string, edits ...string) *http.Request {
	c.tb.Helper()
	edits = append(slices.Clip(c.always), edits...)
	if !isClassicLine(body) {
		return newTestHTTPRequest(c.tb, ctx, c.ts, "", body, edits)
	}
	method := http.MethodPost
	if body == http.MethodGet || body == http.MethodDelete {
		method, body = body, ""
	}
	req, err := http.NewRequestWithContext(ctx, method, c.ts.URL+httpPath, strings.NewReader(body))
	if err != nil {
		c.tb.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else if method == http.MethodGet {
		req.Header.Set("Accept", "text/event-stream")
	}
	if c.sid != "" {
		req.Header.Set(headerSessionID, c.sid)
		if atLeast(c.version, version20250618) {
			// The header exists from 2025-06-18; a 2025-03-26 client
			// (the revision of Mcp-Session-Id) sends none.
			req.Header.Set(headerProtocolVersion, c.version)
		}
	}
	for _, e := range edits {
		if name, ok := strings.CutPrefix(e, "-"); ok {
			req.Header.Del(name)
			continue
		}
		name, value, _ := strings.Cut(e, ":")
		req.Header.Set(name, strings.TrimSpace(value))
	}
	return req
}

// post sends body and returns the status, the headers, and the messages
// of the response (a JSON body, or each SSE event's data).
func (c *classicHTTPClient) post(body string, edits ...string) (int, http.Header, []string) {
	c.tb.Helper()
	resp, err := c.ts.Client().Do(c.request(c.tb.Context(), body, edits...))
	if err != nil {
		c.tb.Fatal(err)
	}
	defer resp.Body.Close()
	var lines []string
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		lines = readSSE(c.tb, resp.Body)
	} else if b, _ := io.ReadAll(resp.Body); len(strings.TrimSpace(string(b))) > 0 {
		lines = []string{strings.TrimSpace(string(b))}
	}
	return resp.StatusCode, resp.Header, lines
}

// open sends a request and returns the response unread.
func (c *classicHTTPClient) open(body string) *http.Response {
	c.tb.Helper()
	return c.openContext(c.tb.Context(), body)
}

// openContext sends a request with ctx and returns the response unread.
func (c *classicHTTPClient) openContext(ctx context.Context, body string, edits ...string) *http.Response {
	c.tb.Helper()
	resp, err := c.ts.Client().Do(c.request(ctx, body, edits...))
	if err != nil {
		c.tb.Fatal(err)
	}
	return resp
}

// initialize sends an initialize line and keeps the session it opens.
func (c *classicHTTPClient) initialize(line string) []string {
	c.tb.Helper()
	c.sid = ""
	status, h, out := c.post(line)
	if status != http.StatusOK || h.Get(headerSessionID) == "" {
		c.tb.Fatalf("initialize: status %d, session %q: %v", status, h.Get(headerSessionID), out)
	}
	c.sid = h.Get(headerSessionID)
	c.version = classicVersionOf(out)
	if status, _, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != http.StatusAccepted {
		c.tb.Fatalf("notifications/initialized: status %d, want 202", status)
	}
	return out
}

// protocolVersionRE finds the version an initialize result negotiated.
var protocolVersionRE = regexp.MustCompile(`"protocolVersion":"([^"]+)"`)

// classicVersionOf returns the protocolVersion of an initialize result
// among out, or "".
func classicVersionOf(out []string) string {
	for _, l := range out {
		if m := protocolVersionRE.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	return ""
}

// mustSession returns the classic session sid that ts holds.
func mustSession(tb testing.TB, ts *testHTTP, sid string) *session {
	tb.Helper()
	ts.tr.sessions.mu.Lock()
	defer ts.tr.sessions.mu.Unlock()
	e, ok := ts.tr.sessions.byID[sid]
	if !ok {
		tb.Fatalf("no session %q", sid)
	}
	return e.sess
}

// liveSessions counts the classic sessions st holds.
func liveSessions(st *sessionStore) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.byID)
}

// fakeClock is a clock tests advance by hand.
type fakeClock struct {
	mu  sync.Mutex // guards now
	now time.Time
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

// TestClassicHTTPSessions checks the session rules one per row: each row
// gets a fresh server and an initialized 2025-11-25 session, then sends
// its requests; the last one's status and error code are checked.
func TestClassicHTTPSessions(t *testing.T) {
	const (
		list = `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`
		init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	)
	for _, tt := range []struct {
		name   string
		cfg    httpConfig
		setup  func(c *classicHTTPClient, clock *fakeClock)
		body   string
		edits  []string
		status int
		code   int
	}{
		{name: "session request is served", body: list, status: 200},
		{name: "absent version header uses the session's", body: list, edits: []string{"-MCP-Protocol-Version"}, status: 200},
		{name: "missing session id is 400", body: list, edits: []string{"-Mcp-Session-Id"}, status: 400, code: -32600},
		{name: "unknown session id is 404", body: list, edits: []string{"Mcp-Session-Id: nope"}, status: 404, code: -32600},
		{name: "another served version header is forgiven", body: list, edits: []string{"MCP-Protocol-Version: 2025-06-18"}, status: 200},
		{name: "2025-03-26 header is forgiven", body: list, edits: []string{"MCP-Protocol-Version: 2025-03-26"}, status: 200},
		{name: "modern header in a session is forgiven", body: list, edits: []string{"MCP-Protocol-Version: 2026-07-28"}, status: 200},
		{name: "unknown version header is 400", body: list, edits: []string{"MCP-Protocol-Version: 2024-10-07"}, status: 400, code: -32600},
		{name: "malformed version header is 400", body: list, edits: []string{"MCP-Protocol-Version: latest"}, status: 400, code: -32600},
		{name: "empty version header is 400", body: list, edits: []string{"MCP-Protocol-Version:"}, status: 400, code: -32600},
		{name: "JSON-RPC errors in a session are 200", body: `{"jsonrpc":"2.0","id":5,"method":"nope"}`, status: 200, code: -32601},
		{name: "notification is 202", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, status: 202},
		{name: "unmatched response is 202", body: `{"jsonrpc":"2.0","id":"baremcp-9","result":{}}`, status: 202},
		{name: "response without session is 400", body: `{"jsonrpc":"2.0","id":"baremcp-9","result":{}}`, edits: []string{"-Mcp-Session-Id", "-MCP-Protocol-Version"}, status: 400, code: -32600},
		{name: "initialize with a session id is 400", body: init, status: 400, code: -32600},
		{name: "modern initialize is 404", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"},"_meta":` + metaJSON + `}}`, status: 404, code: -32601},
		{name: "DELETE ends the session", body: http.MethodDelete, status: 204},
		{name: "deleted session is 404", setup: func(c *classicHTTPClient, _ *fakeClock) { c.post(http.MethodDelete) }, body: list, status: 404, code: -32600},
		{name: "deleted session DELETE is 404", setup: func(c *classicHTTPClient, _ *fakeClock) { c.post(http.MethodDelete) }, body: http.MethodDelete, status: 404, code: -32600},
		{name: "DELETE without session is 400", body: http.MethodDelete, edits: []string{"-Mcp-Session-Id"}, status: 400, code: -32600},
		{name: "used session does not expire", cfg: httpConfig{sessionIdle: time.Minute},
			setup: func(c *classicHTTPClient, clock *fakeClock) {
				clock.advance(50 * time.Second)
				c.post(list)
				clock.advance(50 * time.Second)
			}, body: list, status: 200},
		{name: "idle session expires", cfg: httpConfig{sessionIdle: time.Minute},
			setup: func(c *classicHTTPClient, clock *fakeClock) { clock.advance(61 * time.Second) }, body: list, status: 404, code: -32600},
		// The store is capped; a full one makes room by ending its least
		// recently used idle session (TestSessionStoreEviction: 503 only
		// when every session has a request running).
		{name: "a full store ends its idle session", cfg: httpConfig{maxSessions: 1}, body: init, edits: []string{"-Mcp-Session-Id"}, status: 200},
		{name: "the ended session is 404", cfg: httpConfig{maxSessions: 1},
			setup: func(c *classicHTTPClient, _ *fakeClock) {
				other := *c
				other.sid = ""
				other.post(init)
			}, body: list, status: 404, code: -32600},
		{name: "expired sessions free their slot", cfg: httpConfig{maxSessions: 1, sessionIdle: time.Minute},
			setup: func(c *classicHTTPClient, clock *fakeClock) { clock.advance(2 * time.Minute) }, body: init, edits: []string{"-Mcp-Session-Id"}, status: 200},
		{name: "failed initialize opens no session", cfg: httpConfig{maxSessions: 2},
			setup: func(c *classicHTTPClient, _ *fakeClock) {
				c.sid = ""
				c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
			}, body: init, status: 200},
		{name: "GET without session is 405", body: http.MethodGet, edits: []string{"-Mcp-Session-Id"}, status: 405, code: -32600},
		{name: "GET without SSE accept is 406", body: http.MethodGet, edits: []string{"Accept: application/json"}, status: 406, code: -32600},
		{name: "GET with unknown session is 404", body: http.MethodGet, edits: []string{"Mcp-Session-Id: nope"}, status: 404, code: -32600},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			cfg := tt.cfg
			cfg.now = clock.Now
			ts := newTestHTTP(t, newTestServer(t), &cfg)
			c := newTestClassicClient(t, ts)
			c.initialize(init)
			if tt.setup != nil {
				tt.setup(c, clock)
			}
			status, _, out := c.post(tt.body, tt.edits...)
			if status != tt.status {
				t.Errorf("status = %d, want %d\n%v", status, tt.status, out)
			}
			code := 0
			if len(out) == 1 {
				if m := regexp.MustCompile(`"error":\{"code":(-?\d+)`).FindStringSubmatch(out[0]); m != nil {
					fmt.Sscan(m[1], &code)
				}
			}
			if code != tt.code {
				t.Errorf("error code = %d, want %d\n%v", code, tt.code, out)
			}
		})
	}
}

// TestClassicHTTPSessionID checks that session ids are visible ASCII and
// differ between sessions.
func TestClassicHTTPSessionID(t *testing.T) {
	ts := newTestHTTP(t, newTestServer(t), nil)
	seen := map[string]bool{}
	for range 20 {
		c := newTestClassicClient(t, ts)
		c.initialize(bridgeInit(version20251125, `{}`))
		if !regexp.MustCompile(`^[\x21-\x7e]{16,}$`).MatchString(c.sid) || seen[c.sid] {
			t.Fatalf("session id %q: want 16+ visible ASCII characters, unique", c.sid)
		}
		seen[c.sid] = true
	}
}

// TestClassicHTTPGetStream checks the standalone stream: what the session
// pushes arrives as events, a second stream is refused, and DELETE ends
// the stream.
func TestClassicHTTPGetStream(t *testing.T) {
	ts := newTestHTTP(t, newTestServer(t), nil)
	c := newTestClassicClient(t, ts)
	c.initialize(bridgeInit(version20251125, `{}`))
	sess := mustSession(t, ts, c.sid)
	// Queued before the stream opens: delivered when it does.
	sess.push(encodeNotification("notifications/tools/list_changed", struct{}{}))
	resp := c.open(http.MethodGet)
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET: status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	r := bufio.NewReader(resp.Body)
	for _, want := range []string{"notifications/tools/list_changed", "notifications/resources/list_changed"} {
		if want != "notifications/tools/list_changed" {
			sess.push(encodeNotification(want, struct{}{}))
		}
		ev, ok := nextSSE(r)
		if !ok || ev != `{"jsonrpc":"2.0","method":"`+want+`","params":{}}` {
			t.Fatalf("event = %q, want %s", ev, want)
		}
	}
	if status, _, _ := c.post(http.MethodGet); status != http.StatusConflict {
		t.Errorf("second GET: status %d, want 409", status)
	}
	if status, _, _ := c.post(http.MethodDelete); status != http.StatusNoContent {
		t.Errorf("DELETE: status %d, want 204", status)
	}
	if ev, ok := nextSSE(r); ok {
		t.Errorf("after DELETE the stream carried %q, want its end", ev)
	}
}

// TestClassicHTTPQueueBounded checks that push never blocks and drops what
// does not fit.
func TestClassicHTTPQueueBounded(t *testing.T) {
	sess := newHTTPSession("", caller{})
	for i := range sessionQueueLen {
		if !sess.push([]byte("x\n")) {
			t.Fatalf("push %d dropped, want queued", i)
		}
	}
	if sess.push([]byte("x\n")) {
		t.Error("push past the bound was queued, want dropped")
	}
	sess.end()
	if sess.push([]byte("x\n")) {
		t.Error("push after end was queued")
	}
}

// TestClassicHTTPModernOnly checks -modern-only on HTTP: initialize is the
// -32601 naming the supported versions, session ids are ignored, GET and
// DELETE are 405.
func TestClassicHTTPModernOnly(t *testing.T) {
	ts := newTestHTTP(t, newTestServer(t, withFlags("-modern-only")), nil)
	c := newTestClassicClient(t, ts)
	status, h, out := c.post(bridgeInit(version20251125, `{}`))
	if status != 404 || h.Get(headerSessionID) != "" || len(out) != 1 ||
		!strings.Contains(out[0], `"code":-32601`) || !strings.Contains(out[0], `supported protocol versions: 2026-07-28`) {
		t.Errorf("initialize: status %d, session %q, %v", status, h.Get(headerSessionID), out)
	}
	status, _, out = c.post(req("1", "tools/list", ""), "Mcp-Session-Id: abc")
	if status != 200 {
		t.Errorf("modern request with a session id: status %d, want 200 (id ignored)\n%v", status, out)
	}
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		if status, _, _ := c.post(m, "Mcp-Session-Id: abc"); status != 405 {
			t.Errorf("%s: status %d, want 405", m, status)
		}
	}
}

// TestClassicHTTPShutdownEndsStreams checks that closing the store ends an
// open GET stream, so a graceful shutdown does not wait for it.
func TestClassicHTTPShutdownEndsStreams(t *testing.T) {
	ts := newTestHTTP(t, newTestServer(t), nil)
	c := newTestClassicClient(t, ts)
	c.initialize(bridgeInit(version20251125, `{}`))
	resp := c.open(http.MethodGet)
	defer resp.Body.Close()
	ts.tr.sessions.closeAll()
	if _, ok := nextSSE(bufio.NewReader(resp.Body)); ok {
		t.Error("stream carried an event, want its end")
	}
	c.sid = ""
	status, h, out := c.post(bridgeInit(version20251125, `{}`))
	if status != 503 || h.Get("Retry-After") == "" || len(out) != 1 || !strings.Contains(out[0], fmt.Sprintf(`"code":%d`, codeServerBusy)) {
		t.Errorf("initialize after shutdown: status %d, Retry-After %q, %v; want 503 -31503 as every overload answer", status, h.Get("Retry-After"), out)
	}
}

// TestClassicHTTPCancelled checks notifications/cancelled over HTTP: the
// request is cancelled and its stream ends without a response.
func TestClassicHTTPCancelled(t *testing.T) {
	g := newTestGates()
	ts := newTestHTTP(t, newTestServer(t, withGates(g)), nil)
	c := newTestClassicClient(t, ts)
	c.initialize(bridgeInit(version20251125, `{}`))
	done := make(chan []string)
	go func() {
		_, _, out := c.post(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"gate"}}`)
		done <- out
	}()
	mustReceive(t, g.started)
	if status, _, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`); status != 202 {
		t.Fatalf("cancel: status %d, want 202", status)
	}
	if err := mustReceive(t, g.cancelled); err == nil {
		t.Error("handler context not cancelled")
	}
	if out := mustReceive(t, done); len(out) != 0 {
		t.Errorf("cancelled request answered %v, want nothing", out)
	}
}

// TestClassicSessionEndReleases checks that every way a session ends
// releases its hub registration: idle expiry and shutdown on HTTP (EOF
// on stdio and DELETE are in the script tests), and that a session that
// ended cannot register again.
func TestClassicSessionEndReleases(t *testing.T) {
	s := newTestServer(t)
	clock := &fakeClock{now: time.Unix(0, 0)}
	ts := newTestHTTP(t, s, &httpConfig{sessionIdle: time.Minute, now: clock.Now})
	for range 3 {
		c := newTestClassicClient(t, ts)
		c.initialize(bridgeInit(version20251125, `{}`))
	}
	if n := s.subs.classicCount(); n != 3 {
		t.Fatalf("%d sessions watched, want 3", n)
	}
	clock.advance(2 * time.Minute)
	c := newTestClassicClient(t, ts)
	c.initialize(bridgeInit(version20251125, `{}`)) // sweeps the expired ones
	if n := s.subs.classicCount(); n != 1 {
		t.Errorf("after idle expiry: %d sessions watched, want 1", n)
	}
	ts.tr.sessions.closeAll()
	if n := s.subs.classicCount(); n != 0 {
		t.Errorf("after shutdown: %d sessions watched, want 0", n)
	}
	sess := newHTTPSession("", caller{})
	sess.end()
	if w := s.watchSession(sess); w != nil || s.subs.classicCount() != 0 {
		t.Errorf("an ended session registered")
	}
}

// TestClassicHTTPSessionEra checks which era answers a POST in a classic
// session whose params do not parse: _meta decides, read to its end even
// after the first problem. With a modern version it is a modern request,
// whose mirrored MCP-Protocol-Version (the session's) does not match:
// -32020 with the modern status, 400. Without, the session answers the
// problem (-32602) in a 200 response.
func TestClassicHTTPSessionEra(t *testing.T) {
	ts := newTestHTTP(t, newTestServer(t), nil)
	c := newTestClassicClient(t, ts)
	c.initialize(bridgeInit(version20251125, `{}`))
	for _, tt := range []struct {
		name, body   string
		status, code int
	}{
		{"modern _meta after the problem", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":5,"_meta":` + metaJSON + `}}`, 400, codeHeaderMismatch},
		{"no _meta", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":5}}`, 200, codeInvalidParams},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustDo(t, ts.Client(), c.request(t.Context(), tt.body, headerSessionID+": "+c.sid, headerProtocolVersion+": "+c.version)); got.status != tt.status || got.code != tt.code {
				t.Errorf("POST %s: status %d code %d, want %d %d\n%s", tt.body, got.status, got.code, tt.status, tt.code, got.body)
			}
		})
	}
}

// TestClassicHTTPVersionHeaderForgiven checks the MCP-Protocol-Version
// header inside a classic session (issue 17): another served version is
// served at the negotiated version and logged once per session; a version
// this server does not serve, or the header twice, is 400; a modern
// request of the session keeps its modern header rules.
func TestClassicHTTPVersionHeaderForgiven(t *testing.T) {
	logs := &syncBuffer{}
	ts := newTestHTTP(t, newTestServer(t, withLogs(logs)), nil)
	c := newTestClassicClient(t, ts)
	c.initialize(classicInitialize(1, version20241105))
	const list = `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`
	modernList := `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":` + metaJSON + `}}`
	for _, tt := range []struct {
		name, body string
		headers    []string
		status     int
		code       int
		want       string // a part of the body
		notWant    string
	}{
		{name: "newer header served in 2024-11-05", body: list, headers: []string{"MCP-Protocol-Version: 2025-11-25"}, status: 200, want: `"name":"add"`, notWant: `"title"`},
		{name: "another newer header", body: list, headers: []string{"MCP-Protocol-Version: 2025-06-18"}, status: 200, notWant: `"title"`},
		{name: "the negotiated version", body: list, headers: []string{"MCP-Protocol-Version: 2024-11-05"}, status: 200, notWant: `"title"`},
		{name: "unknown version", body: list, headers: []string{"MCP-Protocol-Version: 2024-10-07"}, status: 400, code: codeInvalidRequest, want: `not a protocol version this server serves`},
		{name: "not a version", body: list, headers: []string{"MCP-Protocol-Version: 2025-11-25, 2025-06-18"}, status: 400, code: codeInvalidRequest},
		{name: "twice", body: list, headers: []string{"MCP-Protocol-Version: 2025-11-25", "+MCP-Protocol-Version: 2025-11-25"}, status: 400, code: codeInvalidRequest, want: `appears more than once`},
		{name: "modern request in the session keeps its header rules", body: modernList, headers: []string{"MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/list"}, status: 200, want: `"resultType":"complete"`},
		{name: "modern request with a classic header is a mismatch", body: modernList, headers: []string{"MCP-Protocol-Version: 2025-11-25", "Mcp-Method: tools/list"}, status: 400, code: codeHeaderMismatch},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := c.request(t.Context(), tt.body)
			req.Header.Set(headerSessionID, c.sid)
			for _, h := range tt.headers {
				add := strings.HasPrefix(h, "+")
				name, value, _ := strings.Cut(strings.TrimPrefix(h, "+"), ":")
				if add {
					req.Header.Add(name, strings.TrimSpace(value))
				} else {
					req.Header.Set(name, strings.TrimSpace(value))
				}
			}
			got := mustDo(t, ts.Client(), req)
			if got.status != tt.status || got.code != tt.code {
				t.Errorf("POST %s with %q: status %d code %d, want %d %d\n%s", tt.body, tt.headers, got.status, got.code, tt.status, tt.code, got.body)
			}
			if !strings.Contains(string(got.body), tt.want) || (tt.notWant != "" && strings.Contains(string(got.body), tt.notWant)) {
				t.Errorf("POST %s with %q = %s, want %q in it and not %q", tt.body, tt.headers, got.body, tt.want, tt.notWant)
			}
		})
	}
	if n := strings.Count(logs.String(), "despite its version header"); n != 1 {
		t.Errorf("forgiven headers logged %d times in one session, want once:\n%s", n, logs)
	}
	if !strings.Contains(logs.String(), "header=2025-11-25") || !strings.Contains(logs.String(), "negotiated=2024-11-05") || !strings.Contains(logs.String(), "client=t") {
		t.Errorf("the log line does not say which header, version and client:\n%s", logs)
	}
	other := newTestClassicClient(t, ts)
	other.initialize(classicInitialize(1, version20250618))
	other.post(list, "MCP-Protocol-Version: 2025-11-25")
	if n := strings.Count(logs.String(), "despite its version header"); n != 2 {
		t.Errorf("a second session's forgiven header logged %d lines in all, want 2", n)
	}
}

// TestSessionStoreEviction checks the store's bounds (issue 19, finding
// 5): a client past its share ends its own least recently used idle
// session; a full store ends the least recently used idle session of
// anyone, one only; a session with a request running is never ended;
// with every session busy, add fails. A GET stream (use) does not make a
// session busy.
func TestSessionStoreEviction(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1e9, 0)}
	st := newSessionStore(3, 2, time.Hour, clock.Now)
	open := func(id, share string) *session {
		t.Helper()
		sess := newHTTPSession("", caller{})
		sess.id, sess.share = id, share
		clock.advance(time.Second)
		if !st.add(sess) {
			t.Fatalf("add(%s of %s) = false", id, share)
		}
		return sess
	}
	ended := func(sess *session) bool {
		select {
		case <-sess.done:
			return true
		default:
			return false
		}
	}
	a1, a2 := open("a1", "a"), open("a2", "a")
	clock.advance(time.Second)
	st.use("a1", "") // a GET stream: a use, not a request
	a3 := open("a3", "a")
	if !ended(a2) || ended(a1) || ended(a3) {
		t.Errorf("a third session of a, whose share is 2: ended a1 %v, a2 %v, a3 %v; want a2 (its least recently used) alone", ended(a1), ended(a2), ended(a3))
	}
	b1 := open("b1", "b")
	if st.acquire("a1", "") != a1 {
		t.Fatal("acquire(a1) failed")
	}
	c1 := open("c1", "c")
	if !ended(a3) || ended(a1) || ended(b1) || liveSessions(st) != 3 {
		t.Errorf("a new client in a full store: ended a1 %v, a3 %v, b1 %v, %d live; want a3 alone (a1 is busy, b1 newer)", ended(a1), ended(a3), ended(b1), liveSessions(st))
	}
	st.acquire("b1", "")
	st.acquire("c1", "")
	d0 := newHTTPSession("", caller{})
	d0.id, d0.share = "d0", "d"
	if st.add(d0) {
		t.Errorf("add with every session busy = true, want false")
	}
	st.release(a1)
	d1 := newHTTPSession("", caller{})
	d1.id, d1.share = "d1", "d"
	if !st.add(d1) || !ended(a1) || ended(c1) {
		t.Errorf("after a1's request ended: add failed, or did not end a1 alone")
	}
}

// BenchmarkHTTPClassicToolsCall is BenchmarkHTTPToolsCall in a classic
// session (2025-11-25): the harness's HTTP legacy rows. allocs/op counts
// client and server together.
func BenchmarkHTTPClassicToolsCall(b *testing.B) {
	c := newTestClassicClient(b, newTestHTTP(b, newTestServer(b), nil))
	c.initialize(classicInitialize(0, version20251125))
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`
	base := c.request(context.Background(), body)
	benchHTTPRequests(b, c.ts.Client(), base, body)
}
