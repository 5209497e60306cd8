//go:build !stdio

// Tests of the 2024-11-05 HTTP+SSE transport (classic_sse_http.go): a whole
// conversation over the stream and the endpoint it announces, the rules
// of each endpoint, and the end of a stream.

package main

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// classicSSEClient is a client of the 2024-11-05 transport: the stream
// it opened, read on a goroutine into events (closed at the stream's
// end), and the endpoint the stream announced.
type classicSSEClient struct {
	tb       testing.TB
	ts       *testHTTP
	cancel   context.CancelFunc // closes the stream
	events   chan string
	endpoint string
}

// newTestClassicSSEClient opens GET /sse and reads the endpoint event,
// which must come first.
func newTestClassicSSEClient(tb testing.TB, ts *testHTTP) *classicSSEClient {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := ts.Client().Do(newTestHTTPGet(tb, ctx, ts, "", classicSSEPath, []string{"Accept: text/event-stream"}))
	if err != nil {
		tb.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		tb.Fatalf("GET %s: status %d, type %q", classicSSEPath, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	r := bufio.NewReader(resp.Body)
	var head []string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			tb.Fatalf("GET %s: the stream ended before the endpoint event: %q", classicSSEPath, head)
		}
		if line = strings.TrimRight(line, "\r\n"); line == "" {
			break
		}
		head = append(head, line)
	}
	if len(head) != 2 || head[0] != "event: endpoint" || !strings.HasPrefix(head[1], "data: ") {
		tb.Fatalf("first event = %q, want an endpoint event", head)
	}
	c := &classicSSEClient{tb: tb, ts: ts, cancel: cancel, events: make(chan string, 64), endpoint: strings.TrimPrefix(head[1], "data: ")}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer resp.Body.Close()
		defer close(c.events)
		for {
			ev, ok := nextSSE(r)
			if !ok {
				return
			}
			c.events <- ev
		}
	}()
	tb.Cleanup(func() {
		cancel()
		<-done
	})
	return c
}

// post sends body to the announced endpoint (path overrides it when not
// "") and returns the status.
func (c *classicSSEClient) post(path, body string, headers ...string) int {
	c.tb.Helper()
	if path == "" {
		path = c.endpoint
	}
	req, err := http.NewRequestWithContext(c.tb.Context(), http.MethodPost, c.ts.URL+path, strings.NewReader(body))
	if err != nil {
		c.tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	applyEdits(req, headers)
	return mustDo(c.tb, c.ts.Client(), req).status
}

// next returns the next event of the stream; "" when it ended.
func (c *classicSSEClient) next() string {
	c.tb.Helper()
	select {
	case ev := <-c.events:
		return ev
	case <-time.After(testWait):
		c.tb.Fatalf("no event within %v", testWait)
	}
	return ""
}

// TestClassicSSE plays a 2024-11-05 client's conversation over the
// HTTP+SSE transport: every POST is 202 and everything it asks for comes
// back on the stream, in the negotiated revision's dialect: the
// initialize result, a tool result, progress before the result it
// belongs to, a bridged sampling request whose answer is POSTed back, and
// a cancelled request that is never answered. A POST right behind
// initialize finds the session negotiated.
// [§HTTP with SSE]: https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse
func TestClassicSSE(t *testing.T) {
	ts := newTestHTTP(t, newTestServer(t, withRegistry("base", "bridge")), nil)
	c := newTestClassicSSEClient(t, ts)
	if !strings.HasPrefix(c.endpoint, classicMessagesPath+"?sessionId=") {
		t.Fatalf("endpoint = %q, want %s?sessionId=...", c.endpoint, classicMessagesPath)
	}
	for _, tt := range []struct {
		name, body string
		want       []string // a part of each event the POST causes, in order
	}{
		{"initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}`,
			[]string{`"id":1,"result":{"protocolVersion":"2024-11-05"`}},
		{"right behind initialize", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, []string{`"id":2,"result":{"tools":[{"name":"echo"`}},
		{"initialized", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil},
		{"tool call", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`,
			[]string{`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\"sum\":3}"}]}}`}},
		{"progress", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"slow","arguments":{"steps":2},"_meta":{"progressToken":"p"}}}`,
			[]string{`"progress":1,"total":2}`, `"progress":2,"total":2}`, `"id":4,"result"`}},
		{"bridged sampling", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask_model","arguments":{"question":"6x7?"}}}`,
			[]string{`"id":"baremcp-1","method":"sampling/createMessage"`}},
		{"the client's answer", `{"jsonrpc":"2.0","id":"baremcp-1","result":{"role":"assistant","content":{"type":"text","text":"42"},"model":"m"}}`,
			[]string{`"id":5,"result":{"content":[{"type":"text","text":"model said: 42"}]}`}},
		{"an error", `{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"demo://missing"}}`,
			[]string{`"id":6,"error":{"code":-32002`}},
		{"not JSON is answered on the POST", `{"jsonrpc":`, nil},
	} {
		status := c.post("", tt.body)
		want := http.StatusAccepted
		if tt.name == "not JSON is answered on the POST" {
			want = http.StatusBadRequest
		}
		if status != want {
			t.Fatalf("%s: POST status %d, want %d", tt.name, status, want)
		}
		for _, w := range tt.want {
			if ev := c.next(); !strings.Contains(ev, w) {
				t.Fatalf("%s: event %s, want it to contain %s", tt.name, ev, w)
			}
		}
	}
	// A cancelled request is never answered; the ping after it is.
	if status := c.post("", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{"steps":100},"_meta":{"progressToken":"q"}}}`); status != http.StatusAccepted {
		t.Fatalf("slow: status %d", status)
	}
	if ev := c.next(); !strings.Contains(ev, `"progressToken":"q"`) {
		t.Fatalf("first event after the slow call = %s, want its progress", ev)
	}
	c.post("", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
	c.post("", `{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	for {
		ev := c.next()
		if strings.Contains(ev, `"id":7,`) {
			t.Fatalf("the cancelled request was answered: %s", ev)
		}
		if strings.Contains(ev, `"id":8,`) {
			break
		}
	}
}

// TestClassicSSEReplicaID checks the id of a stream's session with
// -replica-id: the replica's name and a dot, then 26 base32 characters,
// so that a load balancer can route /messages by its sessionId; and the
// endpoint it names works.
func TestClassicSSEReplicaID(t *testing.T) {
	ts := newTestHTTP(t, newTestServer(t, withRegistry("base"), withFlags("-replica-id", "r2")), nil)
	c := newTestClassicSSEClient(t, ts)
	id, ok := strings.CutPrefix(c.endpoint, classicMessagesPath+"?sessionId=r2.")
	if !ok || len(id) != 26 || strings.Trim(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" {
		t.Fatalf("endpoint = %q, want %s?sessionId=r2. and 26 base32 characters", c.endpoint, classicMessagesPath)
	}
	if status := c.post("", `{"jsonrpc":"2.0","id":1,"method":"ping"}`); status != http.StatusAccepted {
		t.Fatalf("POST to %s: status %d, want 202", c.endpoint, status)
	}
	if ev := c.next(); !strings.Contains(ev, `"id":1,"result":{}`) {
		t.Fatalf("answer to ping = %s, want its result", ev)
	}
}

// TestClassicSSERules checks each endpoint's refusals: the shared checks
// (Host, Origin, token, body cap), the method and media type of each
// endpoint, unknown and foreign session ids both ways, and the session
// cap.
func TestClassicSSERules(t *testing.T) {
	for _, tt := range []struct {
		name    string
		cfg     httpConfig
		flags   []string
		method  string
		path    string // "ENDPOINT" is the announced endpoint; "STREAMABLE" posts on /mcp with the stream's id
		body    string
		headers []string
		status  int
	}{
		{name: "GET without an event-stream Accept", method: "GET", path: classicSSEPath, headers: []string{"Accept: application/json"}, status: 406},
		{name: "POST to the stream endpoint", method: "POST", path: classicSSEPath, body: `{}`, headers: []string{"Content-Type: application/json"}, status: 405},
		{name: "GET the message endpoint", method: "GET", path: "ENDPOINT", status: 405},
		{name: "unknown session", method: "POST", path: classicMessagesPath + "?sessionId=nope", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, headers: []string{"Content-Type: application/json"}, status: 404},
		{name: "no session", method: "POST", path: classicMessagesPath, body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, headers: []string{"Content-Type: application/json"}, status: 404},
		{name: "the stream's id is no Mcp-Session-Id", method: "POST", path: "STREAMABLE", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, headers: []string{"Content-Type: application/json", "Accept: application/json, text/event-stream"}, status: 404},
		{name: "wrong media type", method: "POST", path: "ENDPOINT", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, headers: []string{"Content-Type: text/plain"}, status: 415},
		{name: "body over the cap", cfg: httpConfig{maxBody: 64}, method: "POST", path: "ENDPOINT", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("x", 100) + `"}}`, headers: []string{"Content-Type: application/json"}, status: 413},
		{name: "unknown version header", method: "POST", path: "ENDPOINT", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, headers: []string{"Content-Type: application/json", "MCP-Protocol-Version: 2024-10-07"}, status: 400},
		{name: "a batch outside a 2025-03-26 session", method: "POST", path: "ENDPOINT", body: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, headers: []string{"Content-Type: application/json"}, status: 400},
		{name: "hostile Origin", method: "GET", path: classicSSEPath, headers: []string{"Accept: text/event-stream", "Origin: http://evil.example.com"}, status: 403},
		{name: "hostile Host", method: "GET", path: classicSSEPath, headers: []string{"Accept: text/event-stream", "Host: evil.example.com"}, status: 403},
		{name: "hostile Origin on the message endpoint", method: "POST", path: "ENDPOINT", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, headers: []string{"Content-Type: application/json", "Origin: http://evil.example.com"}, status: 403},
		{name: "token required", cfg: httpConfig{auth: authConfig{tokens: mustSingleToken(t, testToken)}}, method: "GET", path: classicSSEPath, headers: []string{"Accept: text/event-stream"}, status: 401},
		// A full store ends its least recently used idle session, the
		// stream's included (a stream does not keep its session alive).
		{name: "a full store makes room", cfg: httpConfig{maxSessions: 1}, method: "GET", path: classicSSEPath, headers: []string{"Accept: text/event-stream"}, status: 200},
		{name: "-modern-only serves no stream", flags: []string{"-modern-only"}, method: "GET", path: classicSSEPath, headers: []string{"Accept: text/event-stream"}, status: 404},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			ts := newTestHTTP(t, newTestServer(t, withFlags(tt.flags...)), &cfg)
			path := tt.path
			if (path == "ENDPOINT" || path == "STREAMABLE" || tt.cfg.maxSessions == 1) && tt.cfg.auth.tokens == nil {
				c := newTestClassicSSEClient(t, ts)
				switch path {
				case "ENDPOINT":
					path = c.endpoint
				case "STREAMABLE":
					path = httpPath
					tt.headers = append(tt.headers, headerSessionID+": "+strings.TrimPrefix(c.endpoint, classicMessagesPath+"?sessionId="))
				}
			}
			req, err := http.NewRequestWithContext(t.Context(), tt.method, ts.URL+path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			applyEdits(req, tt.headers)
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("%s %s: status %d, want %d", tt.method, path, resp.StatusCode, tt.status)
			}
		})
	}
}

// TestClassicSSEStreamEnd checks that the session lives as long as its
// stream: when the client closes the stream, the session leaves the store
// and its endpoint is 404; when the server shuts down (closeAll), the
// stream ends and a request it was running is cancelled and awaited.
func TestClassicSSEStreamEnd(t *testing.T) {
	t.Run("client closes", func(t *testing.T) {
		ts := newTestHTTP(t, newTestServer(t), nil)
		c := newTestClassicSSEClient(t, ts)
		c.post("", classicInitialize(1, version20241105))
		c.next()
		c.cancel()
		mustWaitUntil(t, "the session ends with its stream", func() bool { return liveSessions(ts.tr.sessions) == 0 })
		if status := c.post("", `{"jsonrpc":"2.0","id":2,"method":"ping"}`); status != http.StatusNotFound {
			t.Errorf("POST after the stream closed: status %d, want 404", status)
		}
	})
	t.Run("shutdown", func(t *testing.T) {
		g := newTestGates()
		ts := newTestHTTP(t, newTestServer(t, withGates(g)), nil)
		c := newTestClassicSSEClient(t, ts)
		c.post("", classicInitialize(1, version20241105))
		c.next()
		c.post("", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"gate","arguments":{}}}`)
		mustReceive(t, g.started)
		ts.tr.sessions.closeAll()
		for ev := c.next(); ev != ""; ev = c.next() {
			if strings.Contains(ev, `"id":2,"result"`) {
				t.Errorf("the request of an ended session was answered: %s", ev)
			}
		}
		if err := mustReceive(t, g.cancelled); err == nil {
			t.Error("the gate's context ended without an error")
		}
		mustWaitUntil(t, "the request gives its slot back", func() bool { _, all := ts.tr.slots.held(""); return all == 0 })
	})
}

// TestClassicSSEBusySessionKept: a session of this transport whose
// request is still running (its POST long answered 202) is not idle, as
// a Streamable HTTP session in the same state is not: a newcomer's
// stream finds no session to take the place of in a full store, and
// -session-idle does not end it (review A, finding 3: it was evicted or
// expired, and its request cancelled).
func TestClassicSSEBusySessionKept(t *testing.T) {
	for _, tt := range []struct {
		name    string
		cfg     httpConfig
		advance time.Duration // the clock moves on while the request runs
		status  int           // the newcomer's GET /sse
	}{
		{"a full store has no idle session to end", httpConfig{maxSessions: 1}, 0, http.StatusServiceUnavailable},
		{"a running request outlasts -session-idle", httpConfig{maxSessions: 2, sessionIdle: time.Minute}, 2 * time.Minute, http.StatusOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := newTestGates()
			clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			cfg := tt.cfg
			cfg.now = clock.Now
			ts := newTestHTTP(t, newTestServer(t, withGates(g)), &cfg)
			c := newTestClassicSSEClient(t, ts)
			c.post("", classicInitialize(1, version20241105))
			c.next()
			c.post("", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"gate","arguments":{}}}`)
			mustReceive(t, g.started)
			clock.advance(tt.advance)
			resp, err := ts.Client().Do(newTestHTTPGet(t, t.Context(), ts, "", classicSSEPath, []string{"Accept: text/event-stream"}))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close() // a stream that opened ends here
			if resp.StatusCode != tt.status {
				t.Errorf("the newcomer's GET %s: status %d, want %d", classicSSEPath, resp.StatusCode, tt.status)
			}
			close(g.release)
			if ev := c.next(); !strings.Contains(ev, `"id":2,"result"`) {
				t.Errorf("the running request's answer: %q, want its result (the session was ended)", ev)
			}
		})
	}
}

// TestClassicSSEBatch checks that a 2025-03-26 session on the 2024-11-05
// transport (a 1.11-1.12 TypeScript client configured with an /sse URL)
// receives batches too: 202, and one event with the array.
func TestClassicSSEBatch(t *testing.T) {
	ts := newTestHTTP(t, newTestServer(t), nil)
	c := newTestClassicSSEClient(t, ts)
	c.post("", classicInitialize(1, version20250326))
	c.next()
	if status := c.post("", `[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"nope"}]`); status != http.StatusAccepted {
		t.Fatalf("batch: status %d, want 202", status)
	}
	want := `[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"method not found: nope"}}]`
	if ev := c.next(); !sameJSON(t, ev, want) {
		t.Errorf("batch answer %s, want %s", ev, want)
	}
	if status := c.post("", `[]`); status != http.StatusBadRequest {
		t.Errorf("empty batch: status %d, want 400", status)
	}
}

// TestClassicSSEBatchAllCancelled: a batch whose every request the client
// cancelled is not answered, and the stream carries nothing for it (an
// answer of no bytes was once written as an event without its end, which
// ran into the next event).
func TestClassicSSEBatchAllCancelled(t *testing.T) {
	g := newTestGates()
	ts := newTestHTTP(t, newTestServer(t, withGates(g)), nil)
	c := newTestClassicSSEClient(t, ts)
	c.post("", classicInitialize(1, version20250326))
	c.next()
	c.post("", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if status := c.post("", `[{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"gate"}}]`); status != http.StatusAccepted {
		t.Fatalf("batch: status %d, want 202", status)
	}
	mustReceive(t, g.started)
	c.post("", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c"}}`)
	mustReceive(t, g.cancelled)
	// The batch's slot is given back after whatever it sent.
	for deadline := time.Now().Add(testWait); ; time.Sleep(time.Millisecond) {
		if _, all := ts.tr.slots.held(""); all == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the cancelled batch still holds its request slot")
		}
	}
	c.post("", `{"jsonrpc":"2.0","id":"probe","method":"ping"}`)
	if ev, want := c.next(), `{"jsonrpc":"2.0","id":"probe","result":{}}`; ev != want {
		t.Errorf("the event after a cancelled batch: %q, want only the probe's answer %q", ev, want)
	}
}
