//go:build !stdio

// Tests of middleware.go that need the HTTP wing (absent from the stdio build).

package main

import (
	"context"
	"testing"
)

// TestRequestHeaders checks the allow-list of HTTP headers a handler may
// read: listed headers are readable (repeated ones joined), anything else
// (Authorization, Cookie, the session id) reads as empty, and nothing is
// readable on stdio.
func TestRequestHeaders(t *testing.T) {
	var got map[string]string
	probe := func(ctx context.Context, req *request) (*toolResult, error) {
		got = map[string]string{}
		for _, h := range []string{"user-agent", "X-Forwarded-For", "Authorization", "Cookie", "Mcp-Session-Id", "MCP-Protocol-Version", "X-Request-Id"} {
			got[h] = req.Header(h)
		}
		return textResult("ok"), nil
	}
	s := newTestServer(t, withSetup(func(s *server) { s.addTool(tool{Name: "headers", Call: probe}) }))
	ts := newTestHTTP(t, s, &httpConfig{auth: authConfig{tokens: mustSingleToken(t, testToken)}})
	r := newTestHTTPRequest(t, t.Context(), ts, "", req("1", "tools/call", `"name":"headers"`),
		[]string{"Authorization: Bearer " + testToken, "User-Agent: probe/1.0", "X-Forwarded-For: 10.0.0.1", "X-Forwarded-For: 10.0.0.2", "Cookie: session=abc", "X-Request-Id: r-1"})
	if reply := mustDo(t, ts.Client(), r); reply.status != 200 {
		t.Fatalf("status %d %s", reply.status, reply.body)
	}
	for h, want := range map[string]string{
		"user-agent": "probe/1.0", "X-Forwarded-For": "10.0.0.1, 10.0.0.2", "X-Request-Id": "r-1",
		"Authorization": "", "Cookie": "", "Mcp-Session-Id": "", "MCP-Protocol-Version": "",
	} {
		if got[h] != want {
			t.Errorf("req.Header(%q) = %q, want %q", h, got[h], want)
		}
	}
	dispatchLine(t, s, req("2", "tools/call", `"name":"headers"`))
	for h, v := range got {
		if v != "" {
			t.Errorf("on stdio req.Header(%q) = %q, want empty", h, v)
		}
	}
}
