package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// newTestSubHTTP serves newTestSubServer's registry over a loopback
// httptest server with cfg and hcfg.
func newTestSubHTTP(t *testing.T, cfg config, hcfg *httpConfig) (*server, *httptest.Server) {
	t.Helper()
	s, stopDemo := newTestSubServer(t, cfg)
	t.Cleanup(stopDemo)
	ts, _ := newTestHTTPTransport(t, s, hcfg)
	return s, ts
}

// newTestSubServeHTTP is newTestSubHTTP through serveHTTP, so that
// shutdown is real: stop begins it, served yields serveHTTP's result.
// The returned server value only carries the URL: use http.DefaultClient.
func newTestSubServeHTTP(t *testing.T, hcfg *httpConfig) (s *server, ts *httptest.Server, stop context.CancelFunc, served <-chan error) {
	t.Helper()
	s, stopDemo := newTestSubServer(t, config{})
	t.Cleanup(stopDemo)
	hcfg.maxBody, hcfg.drainTimeout = defaultMaxBodyBytes, time.Minute
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.serveHTTP(ctx, ln, hcfg) }()
	t.Cleanup(cancel)
	return s, &httptest.Server{URL: "http://" + ln.Addr().String(), Listener: ln}, cancel, errc
}

// sseStream reads one open event stream as a client does, an event at a
// time, on its own goroutine so that a missing event fails the test.
type sseStream struct {
	resp   *http.Response
	events chan string // closed at the end of the stream
}

// openTestListen POSTs a modern request and returns its open stream.
func openTestListen(t *testing.T, ctx context.Context, ts *httptest.Server, body string) *sseStream {
	t.Helper()
	resp, err := http.DefaultClient.Do(newTestHTTPRequest(t, ctx, ts, "", subExpand(body), nil))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("listen: status %d, type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	st := &sseStream{resp: resp, events: make(chan string, 64)}
	go func() {
		defer close(st.events)
		r := bufio.NewReader(resp.Body)
		for {
			ev, ok := nextSSE(r)
			if !ok {
				return
			}
			st.events <- ev
		}
	}()
	t.Cleanup(func() { resp.Body.Close() })
	return st
}

// next returns the next event; ok is false when the stream ended.
func (st *sseStream) next(t *testing.T) (ev string, ok bool) {
	t.Helper()
	select {
	case ev, ok = <-st.events:
		return ev, ok
	case <-time.After(testWait):
		t.Fatal("no event within the deadline")
		return "", false
	}
}

// waitUntil polls cond until it holds. Polling is unavoidable where the
// server notices a disconnect on its own schedule.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(testWait); !cond(); runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}

// mustPostModern sends one modern request and returns its body.
func mustPostModern(t *testing.T, ts *httptest.Server, body string) testHTTPReply {
	t.Helper()
	return mustDo(t, http.DefaultClient, newTestHTTPRequest(t, t.Context(), ts, "", subExpand(body), nil))
}

// TestSubscriptionsListenHTTP opens a listen stream per row, runs the
// row's triggers, and reads the stream as a client would: the
// acknowledgement first, then only the requested notifications, each
// tagged. The request timeout (1ms) does not apply to listen. Closing the
// stream drops the subscription.
func TestSubscriptionsListenHTTP(t *testing.T) {
	for _, tt := range []struct {
		name, listen string
		triggers     []string // tools/call lines, in order
		want         []string // events after the acknowledgement, in order
	}{
		{name: "acknowledgement first, then a tagged tools change",
			listen:   `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{$M,"notifications":{"toolsListChanged":true}}}`,
			triggers: []string{triggerTools9},
			want:     []string{toolsChanged1}},
		{name: "filter honoured: prompts not requested are not sent",
			listen:   `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{$M,"notifications":{"toolsListChanged":true}}}`,
			triggers: []string{triggerPrompts, triggerTools9},
			want:     []string{toolsChanged1}},
		{name: "a watched resource, tagged with a string id",
			listen: `{"jsonrpc":"2.0","id":"w","method":"subscriptions/listen","params":{$M,"notifications":{"resourceSubscriptions":["test://watched-resource"]}}}`,
			triggers: []string{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{$M,"name":"touch","arguments":{"uri":"test://other"}}}`,
				`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{$M,"name":"touch","arguments":{"uri":"test://watched-resource"}}}`},
			want: []string{`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"w"},"uri":"test://watched-resource"}}`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, ts := newTestSubHTTP(t, config{}, &httpConfig{requestTimeout: time.Millisecond})
			ctx, disconnect := context.WithCancel(t.Context())
			st := openTestListen(t, ctx, ts, tt.listen)
			ack, ok := st.next(t)
			if !ok || !strings.Contains(ack, `"method":"notifications/subscriptions/acknowledged"`) {
				t.Fatalf("first event = %q, want the acknowledgement", ack)
			}
			for _, line := range tt.triggers {
				if r := mustPostModern(t, ts, line); r.status != 200 {
					t.Fatalf("trigger: status %d %s", r.status, r.body)
				}
			}
			for _, w := range tt.want {
				if ev, _ := st.next(t); ev != subExpand(w) {
					t.Errorf("event = %s\nwant %s", ev, subExpand(w))
				}
			}
			disconnect()
			waitUntil(t, "the subscription is dropped", func() bool { return s.subs.count() == 0 })
		})
	}
}

// TestSubscriptionsListenHTTPShutdown checks graceful closure over HTTP:
// on shutdown the listen stream gets its graceful-closure result, then
// ends, and the open stream does not hold the drain (a minute here).
func TestSubscriptionsListenHTTPShutdown(t *testing.T) {
	s, ts, stop, served := newTestSubServeHTTP(t, &httpConfig{})
	st := openTestListen(t, t.Context(), ts, listenTools)
	if ack, _ := st.next(t); ack != subExpand(ackTools1) {
		t.Fatalf("first event = %s, want the acknowledgement", ack)
	}
	stop()
	if ev, _ := st.next(t); ev != subExpand(closure1) {
		t.Errorf("on shutdown: %s\nwant %s", ev, subExpand(closure1))
	}
	if ev, ok := st.next(t); ok {
		t.Errorf("after the closure result: %s, want the end of the stream", ev)
	}
	if err := mustReceive(t, served); err != nil {
		t.Errorf("serveHTTP = %v, want nil", err)
	}
	if n := s.subs.count(); n != 0 {
		t.Errorf("%d subscriptions open after shutdown", n)
	}
}

// TestSubscriptionsListenHTTPLimit checks -max-subscriptions over HTTP: a
// server-wide cap, refused with -32603 (HTTP 500) naming the limit, and
// a slot is free again once a stream closes.
func TestSubscriptionsListenHTTPLimit(t *testing.T) {
	s, ts := newTestSubHTTP(t, config{maxSubscriptions: 1, maxSubscriptionURIs: 1}, &httpConfig{})
	ctx, disconnect := context.WithCancel(t.Context())
	st := openTestListen(t, ctx, ts, listenTools)
	st.next(t)
	for _, tt := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"one subscription open at most", strings.ReplaceAll(listenTools, `"id":1`, `"id":2`), 500,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"subscriptions/listen: too many open subscriptions (limit 1)","data":{"maxSubscriptions":1}}}`},
		{"one URI per subscription at most", `{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{$M,"notifications":{"resourceSubscriptions":["a://1","a://2"]}}}`, 400,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"invalid params: notifications.resourceSubscriptions: more than 1 URIs","data":{"maxUris":1}}}`},
	} {
		r := mustPostModern(t, ts, tt.body)
		if r.status != tt.status || strings.TrimSpace(string(r.body)) != tt.want {
			t.Errorf("%s: %d %s\nwant %d %s", tt.name, r.status, r.body, tt.status, tt.want)
		}
	}
	disconnect()
	waitUntil(t, "the slot is free", func() bool { return s.subs.count() == 0 })
	st = openTestListen(t, t.Context(), ts, listenTools)
	if ack, _ := st.next(t); ack != subExpand(ackTools1) {
		t.Errorf("listen after a stream closed: %s, want the acknowledgement", ack)
	}
}

// chanWriter is a ResponseWriter (and Flusher) that hands each Write to
// a channel, so a test sees writes as they happen.
type chanWriter struct {
	header http.Header
	writes chan string
}

func (w *chanWriter) Header() http.Header         { return w.header }
func (w *chanWriter) WriteHeader(int)             {}
func (w *chanWriter) Flush()                      {}
func (w *chanWriter) Write(b []byte) (int, error) { w.writes <- string(b); return len(b), nil }

// TestHTTPCallKeepAlive checks the listen stream's keep-alive on a fake
// clock: nothing before the stream opens, then a comment every interval,
// and the timer's goroutine gone when the call stops it (the bubble
// would report it otherwise).
func TestHTTPCallKeepAlive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &chanWriter{header: http.Header{}, writes: make(chan string, 16)}
		call := &httpCall{w: w, rc: http.NewResponseController(w), conn: t.Context()}
		start := time.Now()
		stop := call.keepAlive(15 * time.Second)
		<-time.After(20 * time.Second)
		synctest.Wait()
		if len(w.writes) != 0 {
			t.Fatalf("%d writes before the stream opened, want none", len(w.writes))
		}
		call.notify([]byte(ackTools1 + "\n"))
		if got := <-w.writes; !strings.HasPrefix(got, "event: message\ndata: ") {
			t.Fatalf("first write = %q, want the event", got)
		}
		for _, at := range []time.Duration{30 * time.Second, 45 * time.Second} {
			if got := <-w.writes; got != sseKeepAlive {
				t.Errorf("write = %q, want %q", got, sseKeepAlive)
			}
			if el := time.Since(start); el != at {
				t.Errorf("comment at %v, want %v", el, at)
			}
		}
		stop()
		call.finish([]byte(closure1+"\n"), 0)
		<-w.writes
		<-time.After(time.Minute)
		synctest.Wait()
		if len(w.writes) != 0 {
			t.Errorf("written after the call ended: %q", <-w.writes)
		}
	})
}

// TestHTTPKeepAliveOnStreams checks that the real transport sends the
// comments on a listen stream and on a classic GET stream (a 1ms interval;
// the wait is for bytes on the wire).
func TestHTTPKeepAliveOnStreams(t *testing.T) {
	_, ts := newTestSubHTTP(t, config{}, &httpConfig{keepAlive: time.Millisecond})
	c := newClassicHTTPClient(t, ts)
	c.initialize(bridgeInit(version20251125, `{}`))
	for _, tt := range []struct {
		name string
		open func() *http.Response
	}{
		{"listen stream", func() *http.Response {
			resp, err := http.DefaultClient.Do(newTestHTTPRequest(t, t.Context(), ts, "", subExpand(listenTools), nil))
			if err != nil {
				t.Fatal(err)
			}
			return resp
		}},
		{"classic GET stream", func() *http.Response { return c.open(http.MethodGet) }},
	} {
		resp := tt.open()
		r := bufio.NewReader(resp.Body)
		seen := false
		for range 8 {
			line, err := r.ReadString('\n')
			if err != nil {
				break
			}
			if line == ": keep-alive\n" {
				seen = true
				break
			}
		}
		resp.Body.Close()
		if !seen {
			t.Errorf("%s: no keep-alive comment", tt.name)
		}
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
		_, hc, err := parseFlags(tt.args, io.Discard, func(string) string { return "" })
		if (err != nil) != tt.err || (err == nil && hc.keepAlive != tt.want) {
			t.Errorf("parseFlags(%q) = %v, %v; want %v, error %v", tt.args, hc, err, tt.want, tt.err)
		}
	}
}

// classicStep is one step of a classic exchange: send a line, then read
// exactly want, in any order. A want ending in "*" matches by prefix.
type classicStep struct {
	send  string
	want  []string
	quiet bool // then nothing more is written once all is idle
}

// Lines of the classic scripts.
const (
	classicInit        = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	classicInitReply   = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"completions":{}},*`
	classicInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	classicToggle      = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"toggle_extra_tool","arguments":{}}}`
	classicToggled     = `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"added the tool extra"}]*`
	classicToolsChange = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	classicSubWatched  = `{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"test://watched-resource"}}`
	classicUnsub       = `{"jsonrpc":"2.0","id":3,"method":"resources/unsubscribe","params":{"uri":"test://watched-resource"}}`
	classicEmpty3      = `{"jsonrpc":"2.0","id":3,"result":{}}`
	classicTouch       = `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"test://watched-resource"}}}`
	classicTouched     = `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"touched"}]*`
	classicUpdated     = `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://watched-resource"}}`
)

// classicNotificationScripts are the classic rules, each a script played on
// stdio and over HTTP (where notifications arrive on the GET stream).
var classicNotificationScripts = []struct {
	name  string
	cfg   config
	steps []classicStep
}{
	{"list changes only after notifications/initialized", config{}, []classicStep{
		{send: classicInit, want: []string{classicInitReply}},
		{send: classicToggle, want: []string{classicToggled}, quiet: true},
		{send: classicInitialized},
		{send: strings.ReplaceAll(classicToggle, `"id":2`, `"id":5`), want: []string{classicToolsChange, `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"removed the tool extra"}]*`}},
	}},
	{"subscribe, updated, unsubscribe", config{}, []classicStep{
		{send: classicInit, want: []string{classicInitReply}},
		{send: classicInitialized},
		{send: classicTouch, want: []string{classicTouched}, quiet: true},
		{send: classicSubWatched, want: []string{classicEmpty3}},
		{send: classicTouch, want: []string{classicUpdated, classicTouched}},
		{send: classicUnsub, want: []string{classicEmpty3}},
		{send: classicTouch, want: []string{classicTouched}, quiet: true},
		{send: classicUnsub, want: []string{classicEmpty3}},
	}},
	{"subscribe before initialized is served", config{}, []classicStep{
		{send: classicInit, want: []string{classicInitReply}},
		{send: classicSubWatched, want: []string{classicEmpty3}},
		{send: classicTouch, want: []string{classicUpdated, classicTouched}},
	}},
	{"subscribe errors", config{maxSubscriptionURIs: 1}, []classicStep{
		{send: classicInit, want: []string{classicInitReply}},
		{send: classicInitialized},
		{send: `{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"test://nope"}}`,
			want: []string{`{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"resource not found","data":{"uri":"test://nope"}}}`}},
		{send: `{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{}}`,
			want: []string{`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,*`}},
		{send: classicSubWatched, want: []string{classicEmpty3}},
		{send: classicSubWatched, want: []string{classicEmpty3}},
		{send: `{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"demo://items/7"}}`,
			want: []string{`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"invalid params: resources/subscribe: this session already watches 1 URIs","data":{"maxUris":1}}}`}},
		{send: `{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{$M,"uri":"test://watched-resource"}}`,
			want: []string{`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,*`}},
	}},
}

// classicMatch reports whether got and want hold the same lines in any
// order, a want ending in "*" matching by prefix.
func classicMatch(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	used := make([]bool, len(got))
	for _, w := range want {
		found := false
		for i, g := range got {
			p, prefix := strings.CutSuffix(w, "*")
			if !used[i] && (g == w || (prefix && strings.HasPrefix(g, p))) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// TestClassicNotificationsStdio plays the classic scripts on stdio: the
// notifications are lines between the responses. EOF releases the
// session's registration.
func TestClassicNotificationsStdio(t *testing.T) {
	for _, tt := range classicNotificationScripts {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, stop := newTestSubServer(t, tt.cfg)
				defer stop()
				p := newTestServeConn(t, s.serveStdio)
				defer p.finish()
				for i, st := range tt.steps {
					p.send(subExpand(st.send))
					var got []string
					for range st.want {
						got = append(got, p.recv())
					}
					if st.send == classicInitialized {
						synctest.Wait()
					}
					if !classicMatch(got, st.want) {
						t.Fatalf("step %d (%.60s):\n got: %q\nwant: %q", i, st.send, got, st.want)
					}
					if st.quiet {
						synctest.Wait()
						select {
						case l := <-p.lines:
							t.Fatalf("step %d: unexpected %s", i, l)
						default:
						}
					}
				}
				if err := p.finish(); err != nil {
					t.Errorf("serveStdio = %v", err)
				}
				if n := s.subs.classicCount(); n != 0 {
					t.Errorf("%d classic sessions still watched after EOF", n)
				}
			})
		})
	}
}

// TestClassicNotificationsHTTP plays the classic scripts over HTTP: each
// line is a POST in the session, responses come back on the POST, and
// notifications on the session's GET stream. DELETE releases the
// session's registration.
func TestClassicNotificationsHTTP(t *testing.T) {
	for _, tt := range classicNotificationScripts {
		t.Run(tt.name, func(t *testing.T) {
			s, ts := newTestSubHTTP(t, tt.cfg, &httpConfig{})
			c := newClassicHTTPClient(t, ts)
			var get *sseStream
			for i, st := range tt.steps {
				line := subExpand(st.send)
				var got []string
				switch line {
				case classicInit:
					_, h, out := c.post(line)
					c.sid, c.version = h.Get(headerSessionID), classicVersionOf(out)
					got = out
					resp := c.open(http.MethodGet)
					get = &sseStream{resp: resp, events: make(chan string, 64)}
					go func() {
						defer close(get.events)
						r := bufio.NewReader(resp.Body)
						for {
							ev, ok := nextSSE(r)
							if !ok {
								return
							}
							get.events <- ev
						}
					}()
					t.Cleanup(func() { resp.Body.Close() })
				default:
					_, _, out := c.post(line)
					got = out
				}
				// The notifications this step caused are on the GET stream.
				for len(got) < len(st.want) {
					ev, ok := get.next(t)
					if !ok {
						t.Fatalf("step %d: GET stream ended", i)
					}
					got = append(got, ev)
				}
				if !classicMatch(got, st.want) {
					t.Fatalf("step %d (%.60s):\n got: %q\nwant: %q", i, line, got, st.want)
				}
				// A quiet step's stray notification would be read by a
				// later step or remain at the end: both fail.
			}
			if status, _, _ := c.post(http.MethodDelete); status != http.StatusNoContent {
				t.Errorf("DELETE: status %d", status)
			}
			if n := s.subs.classicCount(); n != 0 {
				t.Errorf("%d classic sessions still watched after DELETE", n)
			}
			if _, ok := get.next(t); ok {
				t.Errorf("GET stream carried an event after DELETE, want its end")
			}
		})
	}
}

// TestClassicSessionEndReleases checks that every way a session ends
// releases its hub registration: idle expiry and shutdown on HTTP (EOF
// on stdio and DELETE are in the script tests), and that a session that
// ended cannot register again.
func TestClassicSessionEndReleases(t *testing.T) {
	s, stop := newTestSubServer(t, config{})
	defer stop()
	clock := &fakeClock{now: time.Unix(0, 0)}
	ts, tr := newTestHTTPTransport(t, s, &httpConfig{sessionIdle: time.Minute, now: clock.Now})
	for range 3 {
		c := newClassicHTTPClient(t, ts)
		c.initialize(bridgeInit(version20251125, `{}`))
	}
	if n := s.subs.classicCount(); n != 3 {
		t.Fatalf("%d sessions watched, want 3", n)
	}
	clock.advance(2 * time.Minute)
	c := newClassicHTTPClient(t, ts)
	c.initialize(bridgeInit(version20251125, `{}`)) // sweeps the expired ones
	if n := s.subs.classicCount(); n != 1 {
		t.Errorf("after idle expiry: %d sessions watched, want 1", n)
	}
	tr.sessions.closeAll()
	if n := s.subs.classicCount(); n != 0 {
		t.Errorf("after shutdown: %d sessions watched, want 0", n)
	}
	sess := newSession()
	sess.end()
	if w := s.watchSession(sess); w != nil || s.subs.classicCount() != 0 {
		t.Errorf("an ended session registered")
	}
}
