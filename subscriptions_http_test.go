//go:build !stdio

// Tests of subscriptions.go that need the HTTP wing (absent from the stdio build).

package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// sseStream reads one open event stream as a client does, an event at a
// time, on its own goroutine so that a missing event fails the test.
type sseStream struct {
	resp   *http.Response
	events chan string // closed at the end of the stream
}

// next returns the next event; ok is false when the stream ended.
func (st *sseStream) next(t testing.TB) (ev string, ok bool) {
	t.Helper()
	select {
	case ev, ok = <-st.events:
		return ev, ok
	case <-time.After(testWait):
		t.Fatal("no event within the deadline")
		return "", false
	}
}

// mustOpenListen POSTs a modern request and returns its open stream.
func mustOpenListen(t testing.TB, ctx context.Context, ts *testHTTP, body string) *sseStream {
	t.Helper()
	resp, err := ts.Client().Do(newTestHTTPRequest(t, ctx, ts, "", subExpand(body), nil))
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

// mustPostModern sends one modern request and returns its body.
func mustPostModern(t testing.TB, ts *testHTTP, body string) testHTTPReply {
	t.Helper()
	return mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", subExpand(body), nil))
}

// TestSubscriptionsListenHTTPShutdown checks graceful closure over HTTP:
// on shutdown the listen stream gets its graceful-closure result, then
// ends, and the open stream does not hold the drain (a minute here).
func TestSubscriptionsListenHTTPShutdown(t *testing.T) {
	s := newTestServer(t, withRegistry("base", "subscriptions"))
	ts, stop, served := mustServeHTTP(t, s, &httpConfig{maxBody: defaultMaxBodyBytes, drainTimeout: time.Minute})
	st := mustOpenListen(t, t.Context(), ts, listenTools)
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
	s := newTestServer(t, withFlags("-max-subscriptions", "1", "-max-subscription-uris", "1"))
	ts := newTestHTTP(t, s, nil)
	ctx, disconnect := context.WithCancel(t.Context())
	st := mustOpenListen(t, ctx, ts, listenTools)
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
	mustWaitUntil(t, "the slot is free", func() bool { return s.subs.count() == 0 })
	st = mustOpenListen(t, t.Context(), ts, listenTools)
	if ack, _ := st.next(t); ack != subExpand(ackTools1) {
		t.Errorf("listen after a stream closed: %s, want the acknowledgement", ack)
	}
}
