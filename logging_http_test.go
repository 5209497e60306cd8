//go:build !stdio

// Tests of logging.go that need the HTTP wing (absent from the stdio build).

package main

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestAccessLineHTTP checks the fields only HTTP has: the principal (a
// digest of the token, never the token) and the client's address, and
// the traceparent header.
func TestAccessLineHTTP(t *testing.T) {
	var logs syncBuffer
	ts := newTestHTTP(t, newTestServer(t, withLogs(&logs), withFlags("-log-format", "json")), &httpConfig{auth: authConfig{tokens: mustSingleToken(t, testToken)}})
	r := newTestHTTPRequest(t, t.Context(), ts, "", req("1", "tools/call", `"name":"echo","arguments":{"message":"hi"}`),
		[]string{"Authorization: Bearer " + testToken, "Traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"})
	if got := mustDo(t, ts.Client(), r); got.status != 200 {
		t.Fatalf("status %d: %s", got.status, got.body)
	}
	rec := accessRecords(parseLogLines(t, logFormatJSON, logs.String()))["1"]
	for key, want := range map[string]string{
		"transport": "http", "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "parent_span_id": "00f067aa0ba902b7",
		"client": "pipe", // the in-memory network's address; an IP on TCP
	} {
		if rec[key] != want {
			t.Errorf("access line %s = %q, want %q\n%s", key, rec[key], want, logs.String())
		}
	}
	if !strings.HasPrefix(rec["principal"], "bearer:") {
		t.Errorf("principal = %q, want the token's digest", rec["principal"])
	}
}

// TestLogsHoldNoSecret runs an authenticated HTTP session through every
// kind of request that touches a secret (a multi round-trip call whose
// requestState comes back, a wrong token, a failing and a panicking
// tool) at debug level, in both formats, and greps the whole log for the
// bearer token, the requestState and the state key.
func TestLogsHoldNoSecret(t *testing.T) {
	const token = "tok-0123456789-secret-bearer-0123456789"
	stateKey := strings.Repeat("K", 40) + "state-key-secret"
	for _, format := range []string{logFormatText, logFormatJSON} {
		t.Run(format, func(t *testing.T) {
			var logs syncBuffer
			s := newTestServer(t, withRegistry("base", "extras"), withLogs(&logs),
				withFlags("-log-format", format, "-log-level", "debug"),
				withEnv(func(k string) string {
					if k == envStateKey {
						return stateKey
					}
					return ""
				}))
			ts := newTestHTTP(t, s, &httpConfig{auth: authConfig{tokens: mustSingleToken(t, token)}})
			auth := []string{"Authorization: Bearer " + token}
			caps := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}`
			first := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "",
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/x"},"_meta":{`+caps+`}}}`, auth))
			state, _ := jsonPath(mustDecode(t, string(first.body)), "result.requestState").(string)
			if state == "" {
				t.Fatalf("no requestState in %s", first.body)
			}
			retry := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/x"},` +
				`"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}},"requestState":` + strconv.Quote(state) + `,"_meta":{` + caps + `}}}`
			if got := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", retry, auth)); got.status != 200 {
				t.Fatalf("retry: %d %s", got.status, got.body)
			}
			// The same state on another call: refused, and logged as such.
			bad := strings.Replace(retry, `"path":"/x"`, `"path":"/y"`, 1)
			mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", bad, auth))
			mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", req("4", "tools/call", `"name":"explode"`), auth))
			mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", req("5", "tools/call", `"name":"fail"`), auth))
			if got := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", req("6", "tools/list", ""), []string{"Authorization: Bearer " + token + "x"})); got.status != http.StatusUnauthorized {
				t.Fatalf("wrong token: status %d", got.status)
			}
			all := logs.String()
			if len(parseLogLines(t, format, all)) < 5 {
				t.Fatalf("too few log lines to mean anything:\n%s", all)
			}
			for what, secret := range map[string]string{"token": token, "requestState": state, "state key": stateKey, "state key prefix": stateKey[:16]} {
				if strings.Contains(all, secret) {
					t.Errorf("the log holds the %s:\n%s", what, all)
				}
			}
		})
	}
}
