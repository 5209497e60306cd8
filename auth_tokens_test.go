//go:build !stdio

// Tests of auth_tokens.go: the static bearer tokens and the check every
// token meets.

package main

import (
	"strings"
	"testing"
)

// TestCheckToken checks the bearer token rules: at least minTokenBytes,
// and only what an Authorization header can carry (RFC 6750 b64token).
// The error never quotes the token.
func TestCheckToken(t *testing.T) {
	for _, tt := range []struct {
		name, token, wantErr string
	}{
		{"32 hex digits", testToken, ""},
		{"base64 with padding", strings.Repeat("Ab+/", 8) + "==", ""},
		{"every b64token character", "abcXYZ019-._~+/" + strings.Repeat("q", 17), ""},
		{"31 bytes", testToken[:31], "at least 32 bytes (it has 31)"},
		{"a word", "s3cret", "at least 32 bytes (it has 6)"},
		{"a space inside", testToken[:16] + " " + testToken[16:], "only letters, digits and -._~+/"},
		{"a quote", testToken + `"`, "only letters, digits and -._~+/"},
		{"padding in the middle", testToken[:16] + "=" + testToken[16:], "only letters, digits and -._~+/"},
		{"only padding", strings.Repeat("=", 32), "only padding"},
		{"non-ASCII", testToken + "é", "only letters, digits and -._~+/"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := checkToken("-token-file t", tt.token)
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("checkToken(%q) = %v, want %q", tt.token, err, tt.wantErr)
			}
			if err != nil && len(tt.token) >= 6 && strings.Contains(err.Error(), tt.token) {
				t.Errorf("checkToken's error quotes the token: %v", err)
			}
		})
	}
}

// TestTokenNameMatchesPattern checks validTokenName against the regular
// expression it replaced (mustMatchPattern, TestNameChecksMatchPatterns).
func TestTokenNameMatchesPattern(t *testing.T) {
	mustMatchPattern(t, validTokenName, `^[A-Za-z0-9._-]{1,64}$`, 64)
}
