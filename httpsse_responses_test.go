//go:build !stdio

package main

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestHTTPRefusals writes every refusal of httpRefusals (the table of
// docs/OPERATIONS.md) with a raw HTTP request on a fresh server, and
// checks its status, that baremcp_http_responses_total counted it with
// its reason, and its log line ("HTTP requests refused"; authentication
// refusals have their own, "authentication refused").
func TestHTTPRefusals(t *testing.T) {
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`
	post := func(headers, body string) string {
		return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers +
			fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)) + body
	}
	modern := "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n"
	for _, tt := range []struct {
		name    string
		flags   []string // of the server
		auth    bool     // the transport requires testToken
		maxBody int64
		raw     string
		status  int
		reason  httpReason
		logged  string // in the log line; "" for none
	}{
		{"host", nil, false, 0, strings.Replace(post(modern, call), "Host: 127.0.0.1", "Host: evil.example", 1), 403, reasonHost, "last=\"host: 403 POST /mcp from "},
		{"origin", nil, false, 0, post(modern+"Origin: https://evil.example\r\n", call), 403, reasonOrigin, "origin: 403 POST /mcp"},
		{"cross-origin", nil, false, 0, post(modern+"Sec-Fetch-Site: cross-site\r\n", call), 403, reasonOrigin, "origin: 403 POST /mcp"},
		{"no such path", nil, false, 0, "GET /nope HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 404, reasonNotFound, "not_found: 404 GET /nope"},
		{"method on /mcp", []string{"-modern-only"}, false, 0, "PUT /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n", 405, reasonMethod, "method: 405 PUT /mcp"},
		{"method on a probe", nil, false, 0, "POST /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n", 405, reasonMethod, "method: 405 POST /healthz"},
		{"not acceptable", nil, false, 0, post(strings.Replace(modern, "application/json, text/event-stream", "text/html", 1), call), 406, reasonNotAcceptable, "not_acceptable: 406"},
		{"media type", nil, false, 0, post(strings.Replace(modern, "Content-Type: application/json", "Content-Type: text/plain", 1), call), 415, reasonMediaType, "media_type: 415"},
		{"too large", nil, false, 64, post(modern, call), 413, reasonTooLarge, "too_large: 413"},
		{"unreadable", nil, false, 0, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" + modern + "Transfer-Encoding: chunked\r\n\r\nzz\r\n", 400, reasonUnreadable, "unreadable: 400"},
		{"not JSON", nil, false, 0, post(modern, "nope"), 400, reasonNotJSON, "not_json: 400"},
		{"invalid", nil, false, 0, post(modern, `{"jsonrpc":"2.0","id":1}`), 400, reasonInvalid, "invalid: 400"},
		{"bad request", nil, false, 0, post(strings.Replace(modern, "MCP-Protocol-Version: 2026-07-28\r\n", "", 1)+"Mcp-Session-Id: a\r\nMcp-Session-Id: b\r\n", call), 400, reasonInvalid, "invalid: 400"},
		{"session", nil, false, 0, post(strings.Replace(modern, "MCP-Protocol-Version: 2026-07-28\r\n", "", 1)+"Mcp-Session-Id: nosuch\r\n", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), 404, reasonSession, "session: 404"},
		{"unauthorized", nil, true, 0, post(modern, call), 401, reasonAuth, ""},
		{"malformed authorization", nil, true, 0, post(modern+"Authorization: Bearer a b\r\n", call), 400, reasonAuth, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var logs syncBuffer
			s := newTestServer(t, withRegistry("base"), withFlags(tt.flags...), withLogs(&logs))
			hcfg := &httpConfig{maxBody: tt.maxBody}
			if tt.auth {
				hcfg.auth.tokens = mustSingleToken(t, testToken)
			}
			ts := newTestHTTP(t, s, hcfg)
			resp := mustRawHTTP(t, ts, tt.raw)
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
			ts.client.CloseIdleConnections()
			if got := s.metrics.responses[statusIndex(tt.status)][tt.reason].Load(); got != 1 {
				t.Errorf("baremcp_http_responses_total{code=%q,reason=%q} = %d, want 1", fmt.Sprint(tt.status), httpReasonNames[tt.reason], got)
			}
			if !presetResponse(statusIndex(tt.status), tt.reason) {
				t.Errorf("(%d, %s) is not a row of httpRefusals", tt.status, httpReasonNames[tt.reason])
			}
			ts.tr.refused.close()
			log := logs.String()
			switch {
			case tt.logged == "" && strings.Contains(log, "HTTP requests refused"):
				t.Errorf("an authentication refusal in the refusal line:\n%s", log)
			case tt.logged != "" && (!strings.Contains(log, `msg="HTTP requests refused"`) || !strings.Contains(log, tt.logged)):
				t.Errorf("log has no refusal line with %q:\n%s", tt.logged, log)
			}
		})
	}
}

// mustRawHTTP writes raw on a new connection to ts and reads the response.
func mustRawHTTP(tb testing.TB, ts *testHTTP, raw string) *http.Response {
	tb.Helper()
	conn, err := ts.ln.dial(tb.Context(), "", "")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	go func() { _, _ = conn.Write([]byte(raw)) }()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		tb.Fatalf("reading the answer to %q: %v", raw, err)
	}
	resp.Body.Close()
	conn.Close()
	return resp
}

// TestHTTPRefusalsInState writes the refusals of httpRefusals that need
// a state to happen (a classic session's open stream, every request slot
// taken) with real requests, and those that need a failing authorization
// server or a failed encoding through the functions that write them, and
// checks each is counted with its reason.
func TestHTTPRefusalsInState(t *testing.T) {
	t.Run("conflict", func(t *testing.T) {
		s := newTestServer(t)
		ts := newTestHTTP(t, s, nil)
		c := newTestClassicClient(t, ts)
		c.initialize(classicInitialize(1, version20251125))
		resp := c.open(http.MethodGet)
		defer resp.Body.Close()
		if status, _, _ := c.post(http.MethodGet); status != http.StatusConflict {
			t.Errorf("second GET: %d, want 409", status)
		}
		if got := s.metrics.responses[statusIndex(409)][reasonConflict].Load(); got != 1 {
			t.Errorf("409 conflict counted %d times, want 1", got)
		}
	})
	t.Run("busy", func(t *testing.T) {
		g := newTestGates()
		s := newTestServer(t, withGates(g), withFlags("-max-requests", "1"))
		ts := newTestHTTP(t, s, nil)
		ts.tr.queueWait = time.Millisecond
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = doTestHTTP(ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", req("1", "tools/call", `"name":"gate"`), nil))
		}()
		mustReceive(t, g.started)
		got := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", req("2", "tools/list", ""), nil))
		close(g.release)
		<-done
		if got.status != http.StatusServiceUnavailable {
			t.Errorf("a call with every slot taken: %d, want 503", got.status)
		}
		if n := s.metrics.responses[statusIndex(503)][reasonBusy].Load(); n != 1 {
			t.Errorf("503 busy counted %d times, want 1", n)
		}
	})
	ts := newTestHTTP(t, newTestServer(t), nil)
	for _, tt := range []struct {
		name   string
		write  func(w http.ResponseWriter)
		status int
		reason httpReason
	}{
		{"insufficient scope", func(w http.ResponseWriter) {
			ts.tr.refuse(w, &authFailure{status: 403, code: "insufficient_scope", scope: "mcp:tools"})
		}, 403, reasonAuth},
		{"authorization server unavailable", func(w http.ResponseWriter) { ts.tr.refuse(w, &authFailure{status: 503}) }, 503, reasonAuth},
		{"internal", func(w http.ResponseWriter) { writeHTTPError(w, http.StatusInternalServerError, errInternal) }, 500, reasonInternal},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			cw := &countedWriter{ResponseWriter: rec}
			tt.write(cw)
			if cw.status != tt.status || !cw.given || cw.reason != tt.reason {
				t.Errorf("wrote %d for %s, want %d for %s", cw.status, httpReasonNames[cw.reason], tt.status, httpReasonNames[tt.reason])
			}
		})
	}
}
