//go:build !stdio

// Tests of auth_tokens_http.go: the static bearer tokens and the check every
// token meets.

package main

import (
	"strings"
	"testing"
)

// TestCheckToken checks the bearer token rules: at least minTokenBytes,
// only what an Authorization header can carry (RFC 6750 b64token), and
// at least minTokenBits of entropy (tokenEntropy), with the way to make
// one in the error. The error never quotes the token.
func TestCheckToken(t *testing.T) {
	for _, tt := range []struct {
		name, token, wantErr string
	}{
		{"32 hex digits", testToken, ""},
		{"base64 with padding", "q3Zk8/Lw+T1mYc0Rn5Vx7Hb2Ja9Ue4Sg6Dp0Kf8=", ""},
		{"every b64token character", "abcXYZ019-._~+/" + testToken[:17], ""},
		{"32 times one letter", strings.Repeat("a", 32), "looks guessable (about 0 bits of entropy, want 80"},
		{"a word repeated", strings.Repeat("password", 4), "looks guessable"},
		{"hex digits in order, twice", "0123456789abcdef0123456789abcdef", "looks guessable"},
		{"the alphabet", "abcdefghijklmnopqrstuvwxyzABCDEF", "openssl rand -hex 32"},
		{"two letters", strings.Repeat("ab", 15) + "ba", "looks guessable"},
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
