//go:build !stdio

// The authorization server the authorization tests run against, written
// for them with the standard library: it generates RSA, ECDSA (P-256) and
// Ed25519 keys, mints access tokens with them (and hostile ones from raw
// JSON), serves RFC 8414 or OpenID metadata, its key set and an RFC 7662
// introspection endpoint on an in-memory network, rotates keys, and can be
// told to misbehave: slow (until released), down, garbage, a wrong issuer.

package main

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// testKey is one signing key of the test authorization server.
type testKey struct {
	kid  string
	alg  string // the algorithm it signs with
	priv crypto.Signer
	// jwkAlg is the "alg" its JWK names ("" for none).
	jwkAlg string
}

// testKeyMaterial is generated once per test binary: RSA key generation
// takes a good part of a second under the race detector.
var testKeyMaterial = sync.OnceValue(func() (m struct {
	rsa1, rsa2 *rsa.PrivateKey
	ec         *ecdsa.PrivateKey
	ed         ed25519.PrivateKey
}) {
	var err error
	if m.rsa1, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		panic(err)
	}
	if m.rsa2, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		panic(err)
	}
	if m.ec, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		panic(err)
	}
	if _, m.ed, err = ed25519.GenerateKey(rand.Reader); err != nil {
		panic(err)
	}
	return m
})

// The test keys by kid.
func testKeys() map[string]*testKey {
	m := testKeyMaterial()
	return map[string]*testKey{
		"rsa-1":  {kid: "rsa-1", alg: "RS256", priv: m.rsa1},
		"rsa-2":  {kid: "rsa-2", alg: "RS256", priv: m.rsa2},
		"pss-1":  {kid: "pss-1", alg: "PS256", priv: m.rsa1, jwkAlg: "PS256"},
		"ec-1":   {kid: "ec-1", alg: "ES256", priv: m.ec},
		"ed-1":   {kid: "ed-1", alg: "EdDSA", priv: m.ed},
		"rsa-1b": {kid: "rsa-1", alg: "RS256", priv: m.rsa2}, // same kid, another key
	}
}

// testResource is the resource URI a testHTTP derives: its endpoint.
const testResource = "http://127.0.0.1:39217/mcp"

// testASPort is the port the test authorization server claims.
const testASPort = 39300

// testAS is the test authorization server. Its knobs may change while it
// serves.
type testAS struct {
	issuer    string            // http://127.0.0.1:39300 and path
	transport http.RoundTripper // reaches it: authConfig.transport

	mu           sync.Mutex // guards every field below
	published    []*testKey // in the key set, in order
	jwksMode     string     // "" ok, "down" (500), "garbage", "slow", "empty", "missing" (404), "redirect" (to a working copy)
	metaMode     string     // "" RFC 8414, "oidc" (OpenID discovery only), "oidc appended" (only that form), "down", "wrong issuer", "other origin" (jwks_uri on another port), "slow"
	introMode    string     // "" answer, "down", "garbage", "slow"
	cacheControl string     // of the key set
	release      chan struct{}
	hits         map[string]int    // requests by path
	active       map[string]string // introspection answers by token
	entered      chan string       // a slow handler reports its path here, when set
}

// newTestAS starts the test authorization server with issuer path path
// ("" for none), publishing the keys kids. It stops with the test.
func newTestAS(tb testing.TB, path string, kids ...string) *testAS {
	tb.Helper()
	ln := &memListener{conns: make(chan net.Conn), closed: make(chan struct{})}
	as := &testAS{issuer: fmt.Sprintf("http://127.0.0.1:%d%s", testASPort, path),
		transport: &http.Transport{DialContext: ln.dial}, release: make(chan struct{}),
		hits: map[string]int{}, active: map[string]string{}}
	keys := testKeys()
	for _, k := range kids {
		as.published = append(as.published, keys[k])
	}
	srv := &http.Server{Handler: as, ReadHeaderTimeout: time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	tb.Cleanup(func() {
		as.unblock()
		as.transport.(*http.Transport).CloseIdleConnections()
		_ = srv.Close()
		<-served
	})
	return as
}

// set changes the server's knobs under its lock.
func (as *testAS) set(change func(as *testAS)) {
	as.mu.Lock()
	defer as.mu.Unlock()
	change(as)
}

// unblock releases the slow handlers, now and later.
func (as *testAS) unblock() {
	as.mu.Lock()
	defer as.mu.Unlock()
	select {
	case <-as.release:
	default:
		close(as.release)
	}
}

// count returns how many requests reached path.
func (as *testAS) count(path string) int {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.hits[path]
}

// authConfig returns the resource server's settings for this server.
func (as *testAS) authConfig() authConfig {
	return authConfig{issuer: as.issuer, transport: as.transport}
}

// ServeHTTP serves the metadata, the key set and introspection.
func (as *testAS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	as.mu.Lock()
	as.hits[r.URL.Path]++
	jwksMode, metaMode, introMode, release, entered := as.jwksMode, as.metaMode, as.introMode, as.release, as.entered
	keys, cc := as.published, as.cacheControl
	as.mu.Unlock()
	slow := func() {
		if entered != nil {
			entered <- r.URL.Path
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
	path := strings.TrimPrefix(as.issuer, fmt.Sprintf("http://127.0.0.1:%d", testASPort))
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server" + path, "/.well-known/openid-configuration" + path, path + "/.well-known/openid-configuration":
		form := "rfc8414"
		switch r.URL.Path {
		case path + "/.well-known/openid-configuration":
			form = "oidc appended"
		case "/.well-known/openid-configuration" + path:
			form = "oidc"
		}
		switch {
		case metaMode == "down":
			http.Error(w, "down", http.StatusBadGateway)
			return
		case metaMode == "slow":
			slow()
		case metaMode == "oidc" && form == "rfc8414",
			metaMode == "oidc appended" && form != "oidc appended",
			(metaMode == "" || metaMode == "wrong issuer" || metaMode == "other origin") && form != "rfc8414":
			http.NotFound(w, r)
			return
		}
		iss, jwksURI := as.issuer, as.issuer+"/jwks"
		switch metaMode {
		case "wrong issuer":
			iss += "/other"
		case "other origin":
			// Another service on the same host: a spoofed document
			// aiming the key fetches at it.
			jwksURI = fmt.Sprintf("http://127.0.0.1:%d/jwks", testASPort+1)
		}
		writeTestJSON(w, map[string]any{"issuer": iss, "jwks_uri": jwksURI,
			"token_endpoint": as.issuer + "/token", "authorization_endpoint": as.issuer + "/authorize",
			"introspection_endpoint": as.issuer + "/introspect", "response_types_supported": []string{"code"}})
	case path + "/jwks", path + "/jwks-moved":
		if r.URL.Path == path+"/jwks-moved" {
			jwksMode = ""
		}
		switch jwksMode {
		case "down":
			http.Error(w, "down", http.StatusInternalServerError)
			return
		case "missing":
			http.NotFound(w, r)
			return
		case "redirect":
			http.Redirect(w, r, as.issuer+"/jwks-moved", http.StatusFound)
			return
		case "garbage":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `<html>{"keys":`)
			return
		case "slow":
			slow()
		}
		list := []any{}
		if jwksMode != "empty" {
			for _, k := range keys {
				list = append(list, k.jwk())
			}
		}
		if cc != "" {
			w.Header().Set("Cache-Control", cc)
		}
		writeTestJSON(w, map[string]any{"keys": list})
	case path + "/introspect":
		if id, secret, ok := r.BasicAuth(); !ok || id != "rs" || secret != "rs-secret" || r.Method != http.MethodPost {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		switch introMode {
		case "down":
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		case "garbage":
			fmt.Fprint(w, `{"active":true,"active":false}`)
			return
		case "slow":
			slow()
		}
		as.mu.Lock()
		answer, ok := as.active[r.PostFormValue("token")]
		as.mu.Unlock()
		if !ok {
			answer = `{"active":false}`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, answer)
	default:
		http.NotFound(w, r)
	}
}

// writeTestJSON answers v as JSON.
func writeTestJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// jwk is the key's public JWK.
func (k *testKey) jwk() map[string]any {
	b64 := base64.RawURLEncoding.EncodeToString
	m := map[string]any{"kid": k.kid, "use": "sig"}
	if k.jwkAlg != "" {
		m["alg"] = k.jwkAlg
	}
	switch pub := k.priv.Public().(type) {
	case *rsa.PublicKey:
		m["kty"], m["n"], m["e"] = "RSA", b64(pub.N.Bytes()), b64(big.NewInt(int64(pub.E)).Bytes())
	case *ecdsa.PublicKey:
		raw, err := pub.Bytes()
		if err != nil {
			panic(err)
		}
		m["kty"], m["crv"], m["x"], m["y"] = "EC", "P-256", b64(raw[1:33]), b64(raw[33:])
	case ed25519.PublicKey:
		m["kty"], m["crv"], m["x"] = "OKP", "Ed25519", b64(pub)
	}
	return m
}

// sign returns the signature of input with the key's algorithm, or alg
// when given (a forger choosing its own).
func (k *testKey) sign(tb testing.TB, alg string, input []byte) []byte {
	tb.Helper()
	if alg == "" {
		alg = k.alg
	}
	digest := sha256.Sum256(input)
	var sig []byte
	var err error
	switch alg {
	case "RS256":
		sig, err = rsa.SignPKCS1v15(rand.Reader, k.priv.(*rsa.PrivateKey), crypto.SHA256, digest[:])
	case "PS256":
		sig, err = rsa.SignPSS(rand.Reader, k.priv.(*rsa.PrivateKey), crypto.SHA256, digest[:], &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash})
	case "PS256-salt0":
		sig, err = rsa.SignPSS(rand.Reader, k.priv.(*rsa.PrivateKey), crypto.SHA256, digest[:], &rsa.PSSOptions{SaltLength: 0})
	case "ES256":
		r, s, e := ecdsa.Sign(rand.Reader, k.priv.(*ecdsa.PrivateKey), digest[:])
		if e != nil {
			tb.Fatal(e)
		}
		sig = make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
	case "ES256-DER":
		sig, err = ecdsa.SignASN1(rand.Reader, k.priv.(*ecdsa.PrivateKey), digest[:])
	case "EdDSA":
		sig = ed25519.Sign(k.priv.(ed25519.PrivateKey), input)
	default:
		tb.Fatalf("sign: unknown algorithm %s", alg)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return sig
}

// b64url is base64url without padding, as JWS segments are.
func b64url(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// mintRaw returns the compact JWS of the given header and claims JSON,
// signed by k (with alg, when it is not k's own).
func mintRaw(tb testing.TB, k *testKey, alg, header, claims string) string {
	tb.Helper()
	input := b64url([]byte(header)) + "." + b64url([]byte(claims))
	return input + "." + b64url(k.sign(tb, alg, []byte(input)))
}

// testClaims returns the claims of a good token for testResource, issued
// by issuer to sub with scope, valid for an hour from now.
func testClaims(issuer, sub, scope string) map[string]any {
	now := time.Now().Unix()
	c := map[string]any{"iss": issuer, "sub": sub, "aud": testResource, "client_id": "c1",
		"iat": now, "exp": now + 3600, "jti": fmt.Sprint(now)}
	if scope != "" {
		c["scope"] = scope
	}
	return c
}

// mint returns a token signed by the key kid, after edit changes its
// header and claims (testClaims for sub with scope).
func (as *testAS) mint(tb testing.TB, kid, sub, scope string, edit func(h, c map[string]any)) string {
	tb.Helper()
	k := testKeys()[kid]
	h := map[string]any{"alg": k.alg, "kid": k.kid, "typ": "at+jwt"}
	c := testClaims(as.issuer, sub, scope)
	if edit != nil {
		edit(h, c)
	}
	hb, _ := json.Marshal(h)
	cb, _ := json.Marshal(c)
	return mintRaw(tb, k, "", string(hb), string(cb))
}

// activate makes the introspection endpoint answer answer for tok.
func (as *testAS) activate(tok, answer string) {
	as.set(func(as *testAS) { as.active[tok] = answer })
}

// publish replaces the key set with the keys kids (rotation).
func (as *testAS) publish(kids ...string) {
	keys := testKeys()
	as.set(func(as *testAS) {
		as.published = nil
		for _, k := range kids {
			as.published = append(as.published, keys[k])
		}
	})
}

// mustIntrospectCredentials writes the resource server's introspection
// credentials to a file and returns its path.
func mustIntrospectCredentials(tb testing.TB) string {
	tb.Helper()
	return mustWriteFile(tb, tb.TempDir(), "introspect", []byte("rs\nrs-secret\n"), 0o600)
}

// newTestAuthHTTP serves s over HTTP as a resource server for as, with
// edit applied to its settings; tokens may be nil.
func newTestAuthHTTP(tb testing.TB, s *server, as *testAS, edit func(c *authConfig)) *testHTTP {
	tb.Helper()
	cfg := as.authConfig()
	if edit != nil {
		edit(&cfg)
	}
	return newTestHTTP(tb, s, &httpConfig{auth: cfg})
}

// bearer is the Authorization edit of newTestHTTPRequest for tok.
func bearer(tok string) string { return "Authorization: Bearer " + tok }

// authContext is a context for one request in tests that do not run in
// a bubble.
func authContext(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(tb.Context(), testWait)
	tb.Cleanup(cancel)
	return ctx
}
