// Tests of the Streamable HTTP checks before any method
// (httpsse_security.go) beyond the Host and Origin rows of TestHTTPRules:
// bearer token authentication.

package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestHTTPBearerToken checks the optional static token: 401 with a
// challenge without it, the principal derived from it with it.
func TestHTTPBearerToken(t *testing.T) {
	ts := newTestHTTP(t, newTestServer(t, withRegistry("base", "http")), &httpConfig{auth: authConfig{tokens: mustSingleToken(t, testToken)}})
	who := req("1", "tools/call", `"name":"who"`)
	for _, tt := range []struct {
		name   string
		edits  []string
		status int
	}{
		{"no authorization is 401", nil, 401},
		{"wrong token is 401", []string{"Authorization: Bearer " + testToken[1:]}, 401},
		{"other scheme is 401", []string{"Authorization: Basic " + testToken}, 401},
		{"right token", []string{"Authorization: Bearer " + testToken}, 200},
		{"scheme is case-insensitive", []string{"Authorization: bearer " + testToken}, 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", who, tt.edits))
			if got.status != tt.status {
				t.Fatalf("status = %d, want %d\n%s", got.status, tt.status, got.body)
			}
			if tt.status == 401 && !strings.HasPrefix(got.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("WWW-Authenticate = %q, want a Bearer challenge", got.header.Get("WWW-Authenticate"))
			}
			if tt.status == 200 {
				if bytes.Contains(got.body, []byte(testToken)) || !bytes.Contains(got.body, []byte("principal=bearer:")) {
					t.Errorf("principal not derived from the token: %s", got.body)
				}
			}
		})
	}
}

// TestShareKey: a caller's share of the limits is its principal when it
// authenticated, else the IP it connects from, whatever the port.
func TestShareKey(t *testing.T) {
	for _, tt := range []struct{ principal, remote, want string }{
		{"bearer:ab12", "127.0.0.1:5000", "bearer:ab12"},
		{"", "127.0.0.1:5000", "addr:127.0.0.1"},
		{"", "127.0.0.1:6000", "addr:127.0.0.1"},
		{"", "[::1]:5000", "addr:::1"},
		{"", "not an address", "addr:not an address"},
	} {
		if got := shareKey(tt.principal, tt.remote); got != tt.want {
			t.Errorf("shareKey(%q, %q) = %q, want %q", tt.principal, tt.remote, got, tt.want)
		}
	}
}

// mustSingleToken is the token set of one unrestricted token, as
// $BAREMCP_TOKEN or a one-word -token-file gives it.
func mustSingleToken(tb testing.TB, tok string) *tokenSet {
	tb.Helper()
	set, err := singleToken("test", tok)
	if err != nil {
		tb.Fatal(err)
	}
	return set
}
