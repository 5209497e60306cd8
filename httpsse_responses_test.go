package main

import (
	"bufio"
	"fmt"
	"net/http"
	"strings"
	"testing"
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
