// Tests of the named limits (limits.go): each at its limit and one past
// it, in-flight requests on stdio and over HTTP, connections, the
// tools/call rate limit, request timeouts, panics, and the limits' flags.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// mustDispatchError parses and dispatches one line and returns the reply's
// error code (0 for a result) and message.
func mustDispatchError(tb testing.TB, s *server, principal, line string) (int, string) {
	tb.Helper()
	msg, rerr := parseMessage([]byte(line))
	if rerr != nil {
		return rerr.Code, rerr.Message
	}
	reply := s.dispatch(tb.Context(), &msg, exchange{send: func([]byte) {}, caller: caller{principal: principal, share: principal}})
	return replyError(tb, reply)
}

// replyError returns the error code and message of a response line, 0 and
// "" for a result.
func replyError(tb testing.TB, reply []byte) (int, string) {
	tb.Helper()
	var r struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(reply, &r); err != nil {
		tb.Fatalf("reply %q is not JSON: %v", reply, err)
	}
	if r.Error == nil {
		return 0, ""
	}
	return r.Error.Code, r.Error.Message
}

// nested returns a value nested depth levels deep ([[...]]).
func nested(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

// objectWithKeys returns a JSON object with n distinct members.
func objectWithKeys(n int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":0`, i)
	}
	b.WriteByte('}')
	return b.String()
}

// TestLimitsAtBoundary sends each named limit's largest accepted input and
// one more: the first is served, the second refused with a message naming
// the limit.
func TestLimitsAtBoundary(t *testing.T) {
	s := newTestServer(t)
	for _, tt := range []struct {
		name     string
		line     string
		wantCode int
		wantMsg  string // substring of the error message; "" with code 0
	}{
		// Tool arguments sit at depth 3 (message, params, arguments).
		{"depth at maxJSONDepth", req("1", "tools/call", `"name":"echo","arguments":{"message":"x","d":`+nested(maxJSONDepth-3)+`}`), 0, ""},
		{"depth over maxJSONDepth", req("1", "tools/call", `"name":"echo","arguments":{"message":"x","d":`+nested(maxJSONDepth-2)+`}`), codeInvalidRequest, "nested deeper than 64"},
		// The checker stops at the level that is too deep: what follows is
		// never read (here it is not even JSON).
		{"depth refused before the rest is read", `{"a":` + strings.Repeat("[", maxJSONDepth+1) + "\x01 not json", codeInvalidRequest, "nested deeper"},
		{"keys at maxObjectKeys", req("1", "tools/call", `"name":"echo","arguments":`+strings.Replace(objectWithKeys(maxObjectKeys), `"k0":0`, `"message":"x"`, 1)), 0, ""},
		{"keys over maxObjectKeys", req("1", "tools/call", `"name":"echo","arguments":`+objectWithKeys(maxObjectKeys+1)), codeInvalidRequest, "more than 10000 members"},
		{"name at maxParamStringBytes", req("1", "tools/call", `"name":"`+strings.Repeat("n", maxParamStringBytes)+`"`), codeInvalidParams, "unknown tool"},
		{"name over maxParamStringBytes", req("1", "tools/call", `"name":"`+strings.Repeat("n", maxParamStringBytes+1)+`"`), codeInvalidParams, "name longer than 8192 bytes"},
		{"uri at maxURILength", req("1", "resources/read", `"uri":"demo://`+strings.Repeat("u", maxURILength-7)+`"`), codeInvalidParams, "resource not found"},
		{"uri over maxURILength", req("1", "resources/read", `"uri":"demo://`+strings.Repeat("u", maxURILength-6)+`"`), codeInvalidParams, "uri longer than 8192 bytes"},
		{"id at maxIDBytes", req(`"`+strings.Repeat("i", maxIDBytes-2)+`"`, "tools/call", `"name":"echo","arguments":{"message":"x"}`), 0, ""},
		{"id over maxIDBytes", req(`"`+strings.Repeat("i", maxIDBytes-1)+`"`, "tools/call", `"name":"echo","arguments":{"message":"x"}`), codeInvalidRequest, "id longer than 1024 bytes"},
		{"integer id over maxIDBytes", req(strings.Repeat("9", maxIDBytes+1), "tools/call", `"name":"echo","arguments":{"message":"x"}`), codeInvalidRequest, "id longer than 1024 bytes"},
		{"progressToken at maxProgressTokenBytes", reqMeta("1", "tools/call", `"name":"echo","arguments":{"message":"x"}`, `"progressToken":"`+strings.Repeat("p", maxProgressTokenBytes-2)+`"`), 0, ""},
		{"progressToken over maxProgressTokenBytes", reqMeta("1", "tools/call", `"name":"echo","arguments":{"message":"x"}`, `"progressToken":"`+strings.Repeat("p", maxProgressTokenBytes-1)+`"`), codeInvalidParams, "progressToken longer than 1024 bytes"},
		{"escaped progressToken over maxProgressTokenBytes as written", reqMeta("1", "tools/call", `"name":"echo","arguments":{"message":"x"}`, `"progressToken":"`+strings.Repeat(`\u0070`, maxProgressTokenBytes/6+1)+`"`), codeInvalidParams, "progressToken longer than 1024 bytes"},
		{"integer progressToken over maxProgressTokenBytes", reqMeta("1", "tools/call", `"name":"echo","arguments":{"message":"x"}`, `"progressToken":`+strings.Repeat("9", maxProgressTokenBytes+1)), codeInvalidParams, "progressToken longer than 1024 bytes"},
		{"requestState at maxRequestStateBytes", req("1", "tools/call", `"name":"confirm_delete","arguments":{"path":"p"},"inputResponses":{},"requestState":"`+strings.Repeat("A", maxRequestStateBytes)+`"`), codeInvalidParams, "requestState is malformed"}, // read, not refused for its size
		{"requestState over maxRequestStateBytes", req("1", "tools/call", `"name":"confirm_delete","arguments":{"path":"p"},"inputResponses":{},"requestState":"`+strings.Repeat("A", maxRequestStateBytes+1)+`"`), codeInvalidParams, "requestState longer than"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, msg := mustDispatchError(t, s, "", tt.line)
			if code != tt.wantCode || !strings.Contains(msg, tt.wantMsg) {
				t.Errorf("got %d %q, want %d containing %q", code, msg, tt.wantCode, tt.wantMsg)
			}
		})
	}
}

// TestStdioLineLimit checks maxLineBytes on stdio: a line of exactly the
// limit is served, one byte more is refused, and the next line is served.
func TestStdioLineLimit(t *testing.T) {
	s := newTestServer(t)
	line := func(n int) string {
		l := req("1", "tools/call", `"name":"echo","arguments":{"message":"PAD"}`)
		return strings.Replace(l, "PAD", strings.Repeat("x", n-len(l)+3), 1)
	}
	in := line(maxLineBytes) + "\n" + line(maxLineBytes+1) + "\n" + req("2", "tools/call", `"name":"echo","arguments":{"message":"after"}`) + "\n"
	var out bytes.Buffer
	if err := s.serveStdio(t.Context(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	replies := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(replies) != 3 {
		t.Fatalf("%d replies, want 3", len(replies))
	}
	var codes []int
	for _, r := range replies {
		code, _ := replyError(t, []byte(r))
		codes = append(codes, code)
	}
	// Requests run concurrently: order the answers by kind.
	if fmt.Sprint(sortedInts(codes)) != fmt.Sprint([]int{codeInvalidRequest, 0, 0}) {
		t.Errorf("codes %v, want one -32600 (the long line) and two results", codes)
	}
}

func sortedInts(v []int) []int {
	out := append([]int(nil), v...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestStdioMaxRequests checks -max-requests on stdio: n requests run at
// once and the n+1st starts only when one of them ends.
func TestStdioMaxRequests(t *testing.T) {
	const n = 4
	ht := newTestGates()
	c := newTestConn(t, newTestServer(t, withGates(ht), withFlags("-max-requests", fmt.Sprint(n), "-max-subscriptions", "1")))
	for i := 1; i <= n+1; i++ {
		c.send(req(fmt.Sprint(i), "tools/call", `"name":"gate"`))
	}
	for range n {
		mustReceive(t, ht.started)
	}
	select {
	case <-ht.started:
		t.Fatalf("request %d started while %d were in flight", n+1, n)
	case <-time.After(50 * time.Millisecond):
		// Not proof of absence, but a wrong limit shows at once.
	}
	ht.release <- struct{}{}
	c.recv()
	mustReceive(t, ht.started) // the n+1st now runs
	for range n {
		ht.release <- struct{}{}
	}
	if count := 1 + len(c.close()); count != n+1 {
		t.Errorf("%d replies, want %d", count, n+1)
	}
}

// mustDial opens a TCP connection from ip (any when "") to addr, closed
// when the test ends.
func mustDial(tb testing.TB, addr, ip string) net.Conn {
	tb.Helper()
	d := &net.Dialer{}
	if ip != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(ip)}
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// mustBeClosed fails unless the server closed c at once.
func mustBeClosed(tb testing.TB, c net.Conn, what string) {
	tb.Helper()
	_ = c.SetReadDeadline(time.Now().Add(testWait))
	if n, err := c.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		tb.Errorf("%s: read %d bytes, %v; want it closed", what, n, err)
	}
}

// TestRateLimit checks the token bucket: burst calls pass, the next is
// -31429 with retryAfterMs, principals have their own buckets, time
// refills them, and other methods are not limited.
func TestRateLimit(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := newTestServer(t, withFlags("-rate-limit", "2", "-rate-burst", "3"), withClock(clock))
	call := req("1", "tools/call", `"name":"echo","arguments":{"message":"x"}`)
	for i := range 3 {
		if code, msg := mustDispatchError(t, s, "alice", call); code != 0 {
			t.Fatalf("call %d within burst: %d %s", i+1, code, msg)
		}
	}
	if code, msg := mustDispatchError(t, s, "alice", call); code != codeRateLimited || msg != "rate limited: retry after 500 ms" {
		t.Errorf("call over burst: %d %q, want %d %q", code, msg, codeRateLimited, "rate limited: retry after 500 ms")
	}
	if code, _ := mustDispatchError(t, s, "alice", req("2", "tools/list", "")); code != 0 {
		t.Errorf("tools/list is rate limited: %d", code)
	}
	if code, _ := mustDispatchError(t, s, "bob", call); code != 0 {
		t.Errorf("another principal shares alice's bucket: %d", code)
	}
	mu.Lock()
	now = now.Add(500 * time.Millisecond)
	mu.Unlock()
	if code, _ := mustDispatchError(t, s, "alice", call); code != 0 {
		t.Errorf("after refill: %d", code)
	}
}

// TestRateLimiterBounded checks that the bucket map never grows past its
// bound: refilled buckets are swept, and principals past the bound share
// the overflow bucket.
func TestRateLimiterBounded(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newRateLimiter(1, 1, func() time.Time { return now })
	l.maxBuckets = 4
	for i := range 4 {
		l.allow(fmt.Sprint("p", i))
	}
	if ok, _ := l.allow("p-new"); !ok {
		t.Errorf("first principal past the bound: refused by a fresh overflow bucket")
	}
	if ok, _ := l.allow("p-newer"); ok {
		t.Errorf("overflow bucket is not shared")
	}
	if len(l.buckets) != 4 {
		t.Errorf("%d buckets, want 4", len(l.buckets))
	}
	now = now.Add(time.Second) // every bucket refills and can be swept
	if ok, _ := l.allow("p-later"); !ok || len(l.buckets) != 1 {
		t.Errorf("after refill: ok %v, %d buckets, want true and 1", ok, len(l.buckets))
	}
}

// TestRequestTimeoutStdio checks -request-timeout on stdio: a handler that
// runs past it gets -32603 "request timed out" with a reference to the
// log, for that request only.
func TestRequestTimeoutStdio(t *testing.T) {
	var logs syncBuffer
	s := newTestServer(t, withGates(newTestGates()), withFlags("-request-timeout", "20ms"), withLogs(&logs))
	// A handler that answers the deadline with its own JSON-RPC error
	// gets that error through, and no timeout is logged for it (review
	// A, finding 9: the log named a reference the peer never saw).
	s.addTool(tool{Name: "own_error", Call: func(ctx context.Context, req *request) (*toolResult, error) {
		<-ctx.Done()
		return nil, newError(codeServerBusy, "own_error: the backend is busy")
	}})
	in := req("1", "tools/call", `"name":"gate"`) + "\n" + req("2", "tools/call", `"name":"echo","arguments":{"message":"fine"}`) + "\n" +
		req("3", "tools/call", `"name":"own_error"`) + "\n"
	var out bytes.Buffer
	if err := s.serveStdio(t.Context(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var sawTimeout, sawEcho bool
	for r := range strings.Lines(out.String()) {
		var m struct {
			ID    int `json:"id"`
			Error *struct {
				Code    int              `json:"code"`
				Message string           `json:"message"`
				Data    map[string]int64 `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(r), &m); err != nil {
			t.Fatal(err)
		}
		switch {
		case m.ID == 1 && m.Error != nil && m.Error.Code == codeInternalError && m.Error.Message == "request timed out after 20ms" && m.Error.Data["timeoutMs"] == 20:
			sawTimeout = true
			if want := fmt.Sprintf("ref=%d ", m.Error.Data["ref"]); !strings.Contains(logs.String(), want) {
				t.Errorf("log %q has no %q", logs.String(), want)
			}
			if strings.Contains(r, "gave up") {
				t.Errorf("handler's error text reached the peer: %s", r)
			}
		case m.ID == 2 && m.Error == nil:
			sawEcho = true
		case m.ID == 3 && m.Error != nil && m.Error.Code == codeServerBusy:
		default:
			t.Errorf("unexpected reply %s", r)
		}
	}
	if !sawTimeout || !sawEcho {
		t.Errorf("timeout answered %v, other request answered %v:\n%s", sawTimeout, sawEcho, out.String())
	}
	if n := strings.Count(logs.String(), "request timed out"); n != 1 {
		t.Errorf("%d timeouts logged, want the gate's alone:\n%s", n, logs.String())
	}
}

// TestPanicIsolated checks that a panicking handler costs only its own
// request: -32603 without internals, a log line with a reference, and the
// next request served.
func TestPanicIsolated(t *testing.T) {
	var logs syncBuffer
	s := newTestServer(t, withRegistry("base", "extras"), withLogs(&logs))
	in := req("1", "tools/call", `"name":"explode"`) + "\n" + req("2", "tools/call", `"name":"echo","arguments":{"message":"fine"}`) + "\n"
	var out bytes.Buffer
	if err := s.serveStdio(t.Context(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "secret") || strings.Contains(out.String(), "goroutine") {
		t.Errorf("internals reached the peer: %s", out.String())
	}
	if !strings.Contains(out.String(), `"id":1,"error":{"code":-32603,"message":"internal error"}`) || !strings.Contains(out.String(), `"text":"fine"`) {
		t.Errorf("replies:\n%s", out.String())
	}
	if l := logs.String(); !strings.Contains(l, `msg="handler panicked" id=1 method=tools/call trace_id=`) || !strings.Contains(l, ` ref=1 panic="secret internal detail`) {
		t.Errorf("log has no reference: %s", logs.String())
	}
}

// TestLimitFlags checks the limit flags' validation.
func TestLimitFlags(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"-max-requests", "0"}, "-max-requests must be positive"},
		{[]string{"-max-connections", "-1"}, "-max-connections must be positive"},
		{[]string{"-rate-limit", "x"}, "want a non-negative number"},
		{[]string{"-rate-limit", "-1"}, "want a non-negative number"},
		{[]string{"-rate-burst", "-1"}, "-rate-burst must not be negative"},
		{[]string{"-request-timeout", "-1s"}, "-request-timeout must not be negative"},
		{[]string{"-client-share", "0"}, "-client-share must be a percentage from 1 to 100"},
		{[]string{"-client-share", "101"}, "-client-share must be a percentage from 1 to 100"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			skipFlagsOfTheHTTPWing(t, tt.args)
			err := run(t.Context(), tt.args, strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("run(%q) = %v, want %q", tt.args, err, tt.wantErr)
			}
		})
	}
	if err := run(t.Context(), []string{"-rate-limit", "20/s", "-rate-burst", "40", "-max-requests", "64", "-client-share", "100"}, strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" }); err != nil {
		t.Errorf("valid limit flags: %v", err)
	}
}
