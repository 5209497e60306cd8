//go:build !stdio

// Tests of JWT access-token verification (auth_jwt_http.go): one row per
// rule, each naming the reason the token must be refused for, so that a
// row fails when its rule is removed (the token is then accepted, or
// refused for another reason); the key set parser; the verified-token
// cache; and the fuzz target of the verifier.

package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// jwtTestIssuer is the issuer of the tokens of TestJWTRules.
const jwtTestIssuer = "https://as.example.com/tenant"

// jwtTestNow is the verification time of TestJWTRules.
var jwtTestNow = time.Unix(1_900_000_000, 0)

// newTestVerifier returns a verifier for jwtTestIssuer and testResource
// (and the alias audience api://baremcp) holding the keys kids, as if
// fetched already: TestJWTRules needs no network.
func newTestVerifier(tb testing.TB, kids ...string) *oauthVerifier {
	tb.Helper()
	cfg := authConfig{issuer: jwtTestIssuer, audiences: []string{"api://baremcp"}, now: func() time.Time { return jwtTestNow }}
	v := newOAuthVerifier(slog.New(slog.NewTextHandler(io.Discard, nil)), &cfg, testResource, maxIntrospections)
	tb.Cleanup(v.keys.close)
	keys := testKeys()
	for _, kid := range kids {
		k, ok := parseJWK(keys[kid].jwk())
		if !ok {
			tb.Fatalf("parseJWK(%s) refused the test key", kid)
		}
		v.keys.keys = append(v.keys.keys, k)
	}
	v.keys.loaded, v.keys.staleAt = true, jwtTestNow.Add(time.Hour)
	return v
}

// jwtTestToken is a good token of the test issuer: signed by kid, with
// edit applied to its header and claims first.
func jwtTestToken(tb testing.TB, kid string, edit func(h, c map[string]any)) string {
	tb.Helper()
	k := testKeys()[kid]
	now := jwtTestNow.Unix()
	h := map[string]any{"alg": k.alg, "kid": k.kid, "typ": "at+jwt"}
	c := map[string]any{"iss": jwtTestIssuer, "sub": "alice", "aud": testResource, "client_id": "c1",
		"iat": now - 60, "exp": now + 600, "scope": "mcp:tools"}
	if edit != nil {
		edit(h, c)
	}
	hb, _ := json.Marshal(h)
	cb, _ := json.Marshal(c)
	return mintRaw(tb, k, "", string(hb), string(cb))
}

// jwtTestRaw signs raw header and claims JSON with kid's key (and alg).
func jwtTestRaw(tb testing.TB, kid, alg, header, claims string) string {
	tb.Helper()
	return mintRaw(tb, testKeys()[kid], alg, header, claims)
}

// TestJWTRules: every rule of JWT access-token validation, one row each.
// want is the reason the verifier gives, "" for a token it accepts.
func TestJWTRules(t *testing.T) {
	now := jwtTestNow.Unix()
	claims := func(extra string) string {
		return `{"iss":"` + jwtTestIssuer + `","sub":"alice","aud":"` + testResource + `","exp":` + itoa(now+600) + extra + `}`
	}
	edit := func(kid string, f func(h, c map[string]any)) func(t *testing.T) string {
		return func(t *testing.T) string { return jwtTestToken(t, kid, f) }
	}
	raw := func(kid, alg, header, claims string) func(t *testing.T) string {
		return func(t *testing.T) string { return jwtTestRaw(t, kid, alg, header, claims) }
	}
	mangle := func(kid string, f func(tok string) string) func(t *testing.T) string {
		return func(t *testing.T) string { return f(jwtTestToken(t, kid, nil)) }
	}
	for _, tt := range []struct {
		name  string
		kids  []string // the keys the verifier holds; default rsa-1
		token func(t *testing.T) string
		at    time.Duration // verification time after jwtTestNow
		want  string
	}{
		// Accepted: the algorithms, the typ values deployed providers
		// send, the audience forms, the leeway.
		{name: "RS256", token: edit("rsa-1", nil)},
		{name: "PS256 with salt length = hash length", kids: []string{"pss-1"}, token: edit("pss-1", nil)},
		{name: "ES256 on P-256", kids: []string{"ec-1"}, token: edit("ec-1", nil)},
		{name: "EdDSA on Ed25519", kids: []string{"ed-1"}, token: edit("ed-1", nil)},
		{name: "Ed25519, RFC 9864's name", kids: []string{"ed-1"}, token: edit("ed-1", func(h, c map[string]any) { h["alg"] = "Ed25519" })},
		{name: "typ application/at+jwt", token: edit("rsa-1", func(h, c map[string]any) { h["typ"] = "application/at+jwt" })},
		{name: "typ JWT (Entra, Keycloak)", token: edit("rsa-1", func(h, c map[string]any) { h["typ"] = "JWT" })},
		{name: "no typ", token: edit("rsa-1", func(h, c map[string]any) { delete(h, "typ") })},
		{name: "aud array with the resource", token: edit("rsa-1", func(h, c map[string]any) { c["aud"] = []string{"https://other", testResource} })},
		{name: "aud with upper-case scheme and host", token: edit("rsa-1", func(h, c map[string]any) { c["aud"] = "HTTP://127.0.0.1:39217/mcp" })},
		{name: "aud with a trailing slash", token: edit("rsa-1", func(h, c map[string]any) { c["aud"] = testResource + "/" })},
		{name: "aud an -oauth-audience alias", token: edit("rsa-1", func(h, c map[string]any) { c["aud"] = "api://baremcp" })},
		{name: "no kid and one key fits", kids: []string{"rsa-1", "ec-1"}, token: edit("rsa-1", func(h, c map[string]any) { delete(h, "kid") })},
		{name: "fractional exp", token: edit("rsa-1", func(h, c map[string]any) { c["exp"] = float64(now) + 0.5 })},
		{name: "expired within the leeway", token: edit("rsa-1", func(h, c map[string]any) { c["exp"] = now - 29 })},
		{name: "nbf within the leeway", token: edit("rsa-1", func(h, c map[string]any) { c["nbf"] = now + 29 })},
		{name: "unknown header members ignored (jku is never fetched)", token: edit("rsa-1", func(h, c map[string]any) { h["jku"] = "https://evil.example/jwks" })},

		// Time.
		{name: "expired", token: edit("rsa-1", func(h, c map[string]any) { c["exp"] = now - 60 }), want: "expired"},
		{name: "expired at the leeway", token: edit("rsa-1", func(h, c map[string]any) { c["exp"] = now - 30 }), want: "expired"},
		{name: "expired later", token: edit("rsa-1", nil), at: 631 * time.Second, want: "expired"},
		{name: "no exp", token: edit("rsa-1", func(h, c map[string]any) { delete(c, "exp") }), want: "expired"},
		{name: "exp as a string", token: edit("rsa-1", func(h, c map[string]any) { c["exp"] = itoa(now + 600) }), want: "malformed claims"},
		{name: "not yet valid (nbf)", token: edit("rsa-1", func(h, c map[string]any) { c["nbf"] = now + 60 }), want: "not yet valid"},
		{name: "issued in the future (iat)", token: edit("rsa-1", func(h, c map[string]any) { c["iat"] = now + 60 }), want: "not yet valid"},

		// Audience (RFC 8707) and issuer.
		{name: "wrong audience", token: edit("rsa-1", func(h, c map[string]any) { c["aud"] = "http://127.0.0.1:39217/other" }), want: "wrong audience"},
		{name: "audience the origin only", token: edit("rsa-1", func(h, c map[string]any) { c["aud"] = "http://127.0.0.1:39217" }), want: "wrong audience"},
		{name: "audience path case differs", token: edit("rsa-1", func(h, c map[string]any) { c["aud"] = "http://127.0.0.1:39217/MCP" }), want: "wrong audience"},
		{name: "no audience", token: edit("rsa-1", func(h, c map[string]any) { delete(c, "aud") }), want: "wrong audience"},
		{name: "audience a number", token: edit("rsa-1", func(h, c map[string]any) { c["aud"] = 7 }), want: "malformed claims"},
		{name: "wrong issuer", token: edit("rsa-1", func(h, c map[string]any) { c["iss"] = "https://evil.example.com/tenant" }), want: "wrong issuer"},
		{name: "issuer with a trailing slash", token: edit("rsa-1", func(h, c map[string]any) { c["iss"] = jwtTestIssuer + "/" }), want: "wrong issuer"},
		{name: "no issuer", token: edit("rsa-1", func(h, c map[string]any) { delete(c, "iss") }), want: "wrong issuer"},
		{name: "no subject", token: edit("rsa-1", func(h, c map[string]any) { delete(c, "sub") }), want: "no subject"},
		{name: "sender-constrained (DPoP cnf)", token: edit("rsa-1", func(h, c map[string]any) {
			c["cnf"] = map[string]string{"jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}
		}), want: "sender-constrained token"},

		// Algorithms and keys.
		{name: "alg none", token: func(t *testing.T) string {
			return b64url([]byte(`{"alg":"none","kid":"rsa-1"}`)) + "." + b64url([]byte(claims(""))) + ".AAAA"
		}, want: "algorithm not allowed"},
		{name: "alg None (case)", token: func(t *testing.T) string {
			return b64url([]byte(`{"alg":"None","kid":"rsa-1"}`)) + "." + b64url([]byte(claims(""))) + ".AAAA"
		}, want: "algorithm not allowed"},
		{name: "alg none without signature", token: func(t *testing.T) string {
			return b64url([]byte(`{"alg":"none"}`)) + "." + b64url([]byte(claims(""))) + "."
		}, want: "malformed JWT"},
		{name: "HS256 keyed with the RSA public key (algorithm confusion)", token: func(t *testing.T) string {
			input := b64url([]byte(`{"alg":"HS256","kid":"rsa-1"}`)) + "." + b64url([]byte(claims("")))
			return input + "." + b64url(hmacSHA256([]byte(testKeys()["rsa-1"].jwk()["n"].(string)), input))
		}, want: "algorithm not allowed"},
		{name: "RS384 is not on the list", token: raw("rsa-1", "RS256", `{"alg":"RS384","kid":"rsa-1"}`, claims("")), want: "algorithm not allowed"},
		{name: "ES256 header on an RSA key (algorithm confusion)", token: raw("rsa-1", "RS256", `{"alg":"ES256","kid":"rsa-1"}`, claims("")), want: "unknown key"},
		{name: "EdDSA header on an RSA key (algorithm confusion)", token: raw("rsa-1", "RS256", `{"alg":"EdDSA","kid":"rsa-1"}`, claims("")), want: "unknown key"},
		{name: "RS256 on a key whose JWK says PS256", kids: []string{"pss-1"}, token: raw("pss-1", "RS256", `{"alg":"RS256","kid":"pss-1"}`, claims("")), want: "unknown key"},
		{name: "PS256 with salt length 0", kids: []string{"pss-1"}, token: raw("pss-1", "PS256-salt0", `{"alg":"PS256","kid":"pss-1"}`, claims("")), want: "bad signature"},
		{name: "ES256 with a DER signature", kids: []string{"ec-1"}, token: raw("ec-1", "ES256-DER", `{"alg":"ES256","kid":"ec-1"}`, claims("")), want: "bad signature"},
		// The key set cannot be fetched here (no authorization server):
		// the key may be new, so 503 (TestKeyCacheMisbehaviour).
		{name: "unknown kid", token: raw("rsa-2", "", `{"alg":"RS256","kid":"rsa-2"}`, claims("")), want: "key not yet known"},
		{name: "no kid and two keys fit", kids: []string{"rsa-1", "rsa-2"}, token: edit("rsa-1", func(h, c map[string]any) { delete(h, "kid") }), want: "unknown key"},
		{name: "right kid, another key's signature", token: edit("rsa-1b", nil), want: "bad signature"},
		{name: "claims changed after signing", token: mangle("rsa-1", func(tok string) string {
			parts := strings.Split(tok, ".")
			parts[1] = b64url([]byte(claims(`,"scope":"admin"`)))
			return strings.Join(parts, ".")
		}), want: "bad signature"},

		// Shape and encoding.
		{name: "oversize token", token: edit("rsa-1", func(h, c map[string]any) { c["pad"] = strings.Repeat("x", maxTokenBytes) }), want: "oversize token"},
		{name: "CR LF inside the signature", token: mangle("rsa-1", func(tok string) string { return tok[:len(tok)-10] + "\r\n" + tok[len(tok)-10:] }), want: "malformed JWT"},
		{name: "LF inside the payload", token: mangle("rsa-1", func(tok string) string {
			i := strings.Index(tok, ".") + 5
			return tok[:i] + "\n" + tok[i:]
		}), want: "malformed JWT"},
		{name: "standard base64 alphabet", token: mangle("rsa-1", func(tok string) string { return strings.NewReplacer("-", "+", "_", "/").Replace(tok) + "+" }), want: "malformed JWT"},
		{name: "padding", token: mangle("rsa-1", func(tok string) string { return tok + "==" }), want: "malformed JWT"},
		{name: "signature with non-zero trailing bits", token: mangle("rsa-1", func(tok string) string {
			// 256 signature bytes are 342 characters, the last holding 4
			// unused bits: flip one of them.
			last := tok[len(tok)-1]
			i := strings.IndexByte(b64Alphabet, last)
			return tok[:len(tok)-1] + string(b64Alphabet[i^1])
		}), want: "malformed JWT"},
		{name: "two segments", token: mangle("rsa-1", func(tok string) string { return tok[:strings.LastIndex(tok, ".")] }), want: "malformed JWT"},
		{name: "JWE: five segments", token: mangle("rsa-1", func(tok string) string { return tok + ".AAAA.AAAA" }), want: "malformed JWT"},
		{name: "header not an object", token: raw("rsa-1", "", `["RS256"]`, claims("")), want: "malformed JWT"},
		{name: "duplicate alg in the header", token: raw("rsa-1", "", `{"alg":"none","alg":"RS256","kid":"rsa-1"}`, claims("")), want: "malformed JWT"},
		{name: "case-variant ALG in the header", token: raw("rsa-1", "", `{"alg":"RS256","ALG":"none","kid":"rsa-1"}`, claims("")), want: "malformed JWT"},
		{name: "crit in the header", token: raw("rsa-1", "", `{"alg":"RS256","kid":"rsa-1","crit":["exp"]}`, claims("")), want: "unsupported JWT"},
		{name: "b64 false in the header", token: raw("rsa-1", "", `{"alg":"RS256","kid":"rsa-1","b64":false}`, claims("")), want: "unsupported JWT"},
		{name: "typ dpop+jwt", token: edit("rsa-1", func(h, c map[string]any) { h["typ"] = "dpop+jwt" }), want: "wrong token type"},
		{name: "payload not JSON", token: raw("rsa-1", "", `{"alg":"RS256","kid":"rsa-1"}`, `not json`), want: "malformed claims"},
		{name: "duplicate sub, signed", token: raw("rsa-1", "", `{"alg":"RS256","kid":"rsa-1"}`, claims(`,"sub":"root"`)), want: "malformed claims"},
		{name: "case-variant AUD only", token: raw("rsa-1", "", `{"alg":"RS256","kid":"rsa-1"}`,
			`{"iss":"`+jwtTestIssuer+`","sub":"alice","AUD":"`+testResource+`","exp":`+itoa(now+600)+`}`), want: "malformed claims"},
		{name: "scope not a string", token: edit("rsa-1", func(h, c map[string]any) { c["scope"] = []string{"mcp:tools"} }), want: "malformed claims"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			kids := tt.kids
			if kids == nil {
				kids = []string{"rsa-1"}
			}
			v := newTestVerifier(t, kids...)
			tok := tt.token(t)
			c, err := v.verifyJWT(t.Context(), tok, jwtTestNow.Add(tt.at))
			got := ""
			if err != nil {
				got = err.reason
			}
			if got != tt.want {
				t.Fatalf("verifyJWT = %q (%v), want %q", got, err, tt.want)
			}
			if tt.want == "" && (c.sub != "alice" || c.iss != jwtTestIssuer) {
				t.Errorf("claims = %+v, want sub alice of %s", c, jwtTestIssuer)
			}
		})
	}
}

// b64Alphabet is the base64url alphabet in value order.
const b64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// itoa formats n in decimal.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// hmacSHA256 is what a forger signs HS256 with.
func hmacSHA256(key []byte, input string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(input))
	return m.Sum(nil)
}

// TestJWTScopes: scope (space-separated) and scp (Entra's string, Okta's
// array) are the granted scopes.
func TestJWTScopes(t *testing.T) {
	v := newTestVerifier(t, "rsa-1")
	for _, tt := range []struct {
		name string
		edit func(h, c map[string]any)
		want []string
	}{
		{"scope", func(h, c map[string]any) { c["scope"] = "a  b" }, []string{"a", "b"}},
		{"scp string", func(h, c map[string]any) { delete(c, "scope"); c["scp"] = "a b" }, []string{"a", "b"}},
		{"scp array", func(h, c map[string]any) { delete(c, "scope"); c["scp"] = []string{"a", "b"} }, []string{"a", "b"}},
		{"none", func(h, c map[string]any) { delete(c, "scope") }, nil},
	} {
		c, err := v.verifyJWT(t.Context(), jwtTestToken(t, "rsa-1", tt.edit), jwtTestNow)
		if err != nil || !slices.Equal(c.scopes, tt.want) {
			t.Errorf("%s: scopes = %q, %v; want %q", tt.name, c.scopes, err, tt.want)
		}
	}
}

// TestJWKSParsing: keys that cannot verify a token here are skipped one
// by one; the set survives them.
func TestJWKSParsing(t *testing.T) {
	keys := testKeys()
	good := func(kid string) string {
		b, _ := json.Marshal(keys[kid].jwk())
		return string(b)
	}
	with := func(kid string, edit func(m map[string]any)) string {
		m := keys[kid].jwk()
		edit(m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	smallRSA := `{"kty":"RSA","kid":"small","n":"` + b64url(new(big.Int).Lsh(big.NewInt(1), 1023).Bytes()) + `","e":"AQAB"}`
	for _, tt := range []struct {
		name string
		key  string
		kept bool
	}{
		{"RSA", good("rsa-1"), true},
		{"EC P-256", good("ec-1"), true},
		{"OKP Ed25519", good("ed-1"), true},
		{"RSA with alg PS256", good("pss-1"), true},
		{"1024-bit RSA", smallRSA, false},
		{"use enc", with("rsa-1", func(m map[string]any) { m["use"] = "enc" }), false},
		{"key_ops without verify", with("rsa-1", func(m map[string]any) { m["key_ops"] = []string{"encrypt"} }), false},
		{"key_ops with verify", with("rsa-1", func(m map[string]any) { m["key_ops"] = []string{"verify"} }), true},
		{"a private key", with("rsa-1", func(m map[string]any) { m["d"] = "AQAB" }), false},
		{"alg that does not fit the key", with("rsa-1", func(m map[string]any) { m["alg"] = "ES256" }), false},
		{"alg not on the list", with("rsa-1", func(m map[string]any) { m["alg"] = "RS384" }), false},
		{"oct", `{"kty":"oct","kid":"h","k":"c2VjcmV0"}`, false},
		{"P-384", with("ec-1", func(m map[string]any) { m["crv"] = "P-384" }), false},
		{"EC point off the curve", with("ec-1", func(m map[string]any) { m["y"] = m["x"] }), false},
		{"padded e", with("rsa-1", func(m map[string]any) { m["e"] = "AAEAAQ" }), false},
		{"e with padding characters", with("rsa-1", func(m map[string]any) { m["e"] = "AQAB==" }), false},
		{"Ed25519 key of 31 bytes", with("ed-1", func(m map[string]any) { m["x"] = b64url(make([]byte, 31)) }), false},
		{"kid not a string", with("rsa-1", func(m map[string]any) { m["kid"] = 7 }), false},
		{"not an object", `"rsa"`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, skipped, err := parseJWKS([]byte(`{"keys":[` + good("ed-1") + `,` + tt.key + `]}`))
			if err != nil {
				t.Fatal(err)
			}
			want := 1
			if tt.kept {
				want = 2
			}
			if len(got) != want || skipped != 2-want {
				t.Errorf("kept %d, skipped %d; want %d kept", len(got), skipped, want)
			}
		})
	}
	for _, doc := range []string{`{}`, `{"keys":{}}`, `[]`, `{"keys":[],"keys":[]}`, `{"keys":[` + strings.Repeat(" ", maxJWKSBytes) + `]}`} {
		if _, _, err := parseJWKS([]byte(doc)); err == nil {
			t.Errorf("parseJWKS(%.40q) accepted", doc)
		}
	}
}

// TestVerifiedTokenCache: a verified token is remembered until its exp
// (never past it) and not at all once the key set changed; the cache is
// bounded.
func TestVerifiedTokenCache(t *testing.T) {
	now := jwtTestNow
	clock := &now
	v := newTestVerifier(t, "rsa-1")
	v.now = func() time.Time { return *clock }
	tok := jwtTestToken(t, "rsa-1", func(h, c map[string]any) { c["exp"] = jwtTestNow.Unix() + 60 })
	who, err := v.verify(t.Context(), tok, "")
	if err != nil || who.principal != jwtTestIssuer+"#alice" || !who.scoped || !slices.Equal(who.scopes, []string{"mcp:tools"}) {
		t.Fatalf("verify = %+v, %v", who, err)
	}
	if v.cache.size() != 1 {
		t.Fatalf("cache holds %d tokens, want 1", v.cache.size())
	}
	// A hit is not verified again: with no keys left, only the cache can
	// answer.
	v.keys.keys = nil
	if _, err := v.verify(t.Context(), tok, ""); err != nil {
		t.Fatalf("cached token refused: %v", err)
	}
	*clock = jwtTestNow.Add(60 * time.Second)
	if _, err := v.verify(t.Context(), tok, ""); err == nil {
		t.Fatal("the cache answered past the token's exp")
	}
	// A token verified while the key set changed (a flush between the
	// check and put) is not remembered: the key may be gone (review B,
	// finding 4).
	gen := v.cache.generation()
	v.cache.flush()
	v.cache.put(tokenDigest("checked before the flush"), grantEntry{until: jwtTestNow.Add(time.Hour)}, jwtTestNow, gen)
	if n := v.cache.size(); n != 0 {
		t.Errorf("a token verified before a flush was remembered after it: %d cached", n)
	}
	for i := range maxVerifiedTokens + 10 {
		v.cache.put(tokenDigest(itoa(int64(i))), grantEntry{until: jwtTestNow.Add(time.Hour)}, jwtTestNow, v.cache.generation())
	}
	if n := v.cache.size(); n > maxVerifiedTokens {
		t.Errorf("cache holds %d tokens, bound %d", n, maxVerifiedTokens)
	}
}

// FuzzVerifyJWT: no input makes the verifier panic or accept a token it
// did not see signed, and every input is judged within the budget.
func FuzzVerifyJWT(f *testing.F) {
	v := newTestVerifier(f, "rsa-1", "ec-1", "ed-1")
	good := jwtTestToken(f, "rsa-1", nil)
	f.Add(good)
	f.Add(jwtTestToken(f, "ec-1", nil))
	f.Add(jwtTestToken(f, "ed-1", nil))
	f.Add(b64url([]byte(`{"alg":"none"}`)) + "." + b64url([]byte(`{}`)) + ".")
	f.Add("a.b.c")
	f.Fuzz(func(t *testing.T, tok string) {
		start := time.Now()
		_, err := v.verifyJWT(t.Context(), tok, jwtTestNow)
		if el := time.Since(start); el > fuzzInputBudget {
			t.Errorf("verifyJWT took %v", el)
		}
		if err == nil && !isCompactJWS(tok) {
			t.Errorf("verifyJWT accepted %q, which is not a compact JWS", tok)
		}
	})
}

// FuzzJWKS: no key set makes the parser panic, and every key it keeps
// can verify with an allowed algorithm.
func FuzzJWKS(f *testing.F) {
	keys := testKeys()
	for _, kid := range []string{"rsa-1", "ec-1", "ed-1", "pss-1"} {
		b, _ := json.Marshal(map[string]any{"keys": []any{keys[kid].jwk()}})
		f.Add(string(b))
	}
	f.Add(`{"keys":[{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		got, _, err := parseJWKS([]byte(doc))
		if err != nil {
			return
		}
		for _, k := range got {
			fits := false
			for alg := range jwsAlgorithms {
				fits = fits || algFitsKey(alg, k.pub)
			}
			if !fits {
				t.Errorf("kept a key no allowed algorithm fits: %+v", k)
			}
		}
	})
}

// BenchmarkVerifyToken measures what a request's token costs the server:
// a signature check per algorithm, and a hit of the verified-token cache.
func BenchmarkVerifyToken(b *testing.B) {
	v := newTestVerifier(b, "rsa-1", "pss-1", "ec-1", "ed-1")
	for _, kid := range []string{"rsa-1", "pss-1", "ec-1", "ed-1"} {
		tok := jwtTestToken(b, kid, nil)
		b.Run(testKeys()[kid].alg, func(b *testing.B) {
			for b.Loop() {
				if _, err := v.verifyJWT(b.Context(), tok, jwtTestNow); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	tok := jwtTestToken(b, "rsa-1", nil)
	if _, err := v.verify(b.Context(), tok, ""); err != nil {
		b.Fatal(err)
	}
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			if _, err := v.verify(b.Context(), tok, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestExpClamped: an exp of 2^63 seconds or more is the last second of
// year 9999, so the caller's expiry (which ends its streams) is in the
// future; time.Unix wrapped it into the past, and streams opened with
// such a token ended at once.
func TestExpClamped(t *testing.T) {
	for _, exp := range []float64{1 << 63, 1e19, 1e300} {
		v := newTestVerifier(t, "rsa-1")
		tok := jwtTestToken(t, "rsa-1", func(h, c map[string]any) { c["exp"] = exp })
		who, err := v.verify(t.Context(), tok, "")
		if err != nil {
			t.Fatalf("exp %g: %v", exp, err)
		}
		if want := time.Unix(maxNumericDate, 0); !who.expires.Equal(want) {
			t.Errorf("exp %g: the caller expires %v, want %v", exp, who.expires, want)
		}
	}
}
