//go:build !stdio

// The authorization server's signing keys: its metadata (RFC 8414, or
// OpenID Connect discovery) found lazily from -oauth-issuer, its key set
// (RFC 7517) parsed strictly, and the key cache that serves requests: keys
// kept for a TTL, refreshed in the background when stale, refetched at
// most once per gap for an unknown kid, and never waited for longer than
// a bound. An authorization server that is slow, down or answers garbage
// leaves the keys held in place.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/authorization-server-discovery,
// RFC 8414 §3 (metadata, issuer identical), OpenID Connect Discovery 1.0
// §4, RFC 7517 §4-5 (JWK, JWK Set), RFC 7518 §6 (key parameters), RFC 8037
// §2 (OKP), RFC 8725 §3.1.

package main

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	// maxJWKSBytes bounds a key set document: room for a few dozen keys
	// with certificate chains (x5c), which are ignored but still read.
	maxJWKSBytes = 256 << 10

	// maxMetadataBytes bounds an authorization server metadata document
	// and an introspection answer.
	maxMetadataBytes = 64 << 10

	// maxKeys bounds the keys kept from one key set; providers publish two
	// or three (the current key and the next or previous).
	maxKeys = 32

	// RSA moduli outside these bounds are skipped: below 2048 bits is
	// forbidden by RFC 7518 §3.3; above 8192 only costs verification time.
	minRSABits = 2048
	maxRSABits = 8192

	// defaultKeyWait is the longest a request waits for keys being
	// fetched; past it, it is answered with what is held (401 for an
	// unknown kid, 503 when nothing was ever fetched).
	defaultKeyWait = 2 * time.Second

	// defaultRefetchGap is the least time between two fetches of the key
	// set: a flood of tokens with made-up kids costs the authorization
	// server one fetch per gap, and a server that is down is not hammered.
	defaultRefetchGap = 10 * time.Second

	// defaultFetchTimeout bounds one exchange with the authorization
	// server (metadata, key set, introspection).
	defaultFetchTimeout = 5 * time.Second

	// Keys are kept for the key set's Cache-Control max-age, clamped to
	// [minKeyTTL, maxKeyTTL], or defaultKeyTTL without one; then refreshed
	// in the background while the old ones keep serving. A key the
	// provider withdrew (an emergency rotation after a compromise) verifies
	// new tokens until that refresh, so the TTL is at most an hour, not
	// the day a provider's max-age may ask for (review B, finding 4): one
	// fetch an hour costs nothing.
	defaultKeyTTL = time.Hour
	minKeyTTL     = 5 * time.Minute
	maxKeyTTL     = time.Hour
)

// jwk is one verification key of the authorization server.
type jwk struct {
	kid string
	alg string           // the JWK's own "alg"; "" when it names none
	pub crypto.PublicKey // *rsa.PublicKey, *ecdsa.PublicKey on P-256, or ed25519.PublicKey
}

// parseJWKS reads a key set. Keys that cannot verify a token here are
// skipped one by one, never failing the set (Keycloak publishes an
// encryption key beside its signing keys): use other than "sig", key_ops
// without "verify", a private key, a type or curve outside the allow-list,
// RSA moduli out of bounds, a point off the curve, an alg the key cannot
// do. skipped counts them.
func parseJWKS(doc []byte) (keys []jwk, skipped int, err error) {
	if len(doc) > maxJWKSBytes {
		return nil, 0, errors.New("key set larger than the limit")
	}
	if err := checkJSON(doc); err != nil {
		return nil, 0, fmt.Errorf("key set: %w", err)
	}
	v, err := decodeChecked(doc)
	if err != nil {
		return nil, 0, fmt.Errorf("key set: %w", err)
	}
	set, _ := v.(map[string]any)
	list, ok := set["keys"].([]any)
	if !ok {
		return nil, 0, errors.New(`key set has no "keys" array`)
	}
	for _, item := range list {
		m, _ := item.(map[string]any)
		k, ok := parseJWK(m)
		if !ok || len(keys) == maxKeys {
			skipped++
			continue
		}
		keys = append(keys, k)
	}
	return keys, skipped, nil
}

// parseJWK reads one key of a set; ok is false when it must be skipped.
func parseJWK(m map[string]any) (k jwk, ok bool) {
	if m == nil {
		return k, false
	}
	str := func(name string) (string, bool) {
		v, present := m[name]
		if !present {
			return "", true
		}
		s, isString := v.(string)
		return s, isString
	}
	b64 := func(name string) []byte {
		s, ok := str(name)
		if !ok || s == "" {
			return nil
		}
		b, err := jwsB64.DecodeString(s)
		if err != nil || strings.ContainsAny(s, "\r\n") {
			return nil
		}
		return b
	}
	kty, ok1 := str("kty")
	use, ok2 := str("use")
	alg, ok3 := str("alg")
	kid, ok4 := str("kid")
	crv, ok5 := str("crv")
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || (use != "" && use != "sig") {
		return k, false
	}
	if ops, present := m["key_ops"]; present {
		list, _ := ops.([]any)
		if !slices.Contains(list, any("verify")) {
			return k, false
		}
	}
	if _, private := m["d"]; private {
		return k, false
	}
	k = jwk{kid: kid, alg: alg}
	switch kty {
	case "RSA":
		n, e := b64("n"), b64("e")
		if len(n) == 0 || n[0] == 0 || len(e) == 0 || len(e) > 4 || e[0] == 0 {
			return k, false
		}
		N := new(big.Int).SetBytes(n)
		E := 0
		for _, b := range e {
			E = E<<8 | int(b)
		}
		if N.BitLen() < minRSABits || N.BitLen() > maxRSABits || E < 3 || E%2 == 0 {
			return k, false
		}
		k.pub = &rsa.PublicKey{N: N, E: E}
	case "EC":
		x, y := b64("x"), b64("y")
		if crv != "P-256" || len(x) != 32 || len(y) != 32 {
			return k, false
		}
		// ParseUncompressedPublicKey refuses a point off the curve.
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		if err != nil {
			return k, false
		}
		k.pub = pub
	case "OKP":
		x := b64("x")
		if crv != "Ed25519" || len(x) != ed25519.PublicKeySize {
			return k, false
		}
		k.pub = ed25519.PublicKey(x)
	default:
		return k, false
	}
	if alg != "" && (!jwsAlgorithms[alg] || !algFitsKey(alg, k.pub)) {
		return k, false
	}
	return k, true
}

// sameKeys reports whether two key sets hold the same keys in the same order.
func sameKeys(a, b []jwk) bool {
	return slices.EqualFunc(a, b, func(x, y jwk) bool {
		eq, ok := x.pub.(interface{ Equal(crypto.PublicKey) bool })
		return x.kid == y.kid && x.alg == y.alg && ok && eq.Equal(y.pub)
	})
}

// keyCache holds the authorization server's keys for the verifier. Its
// only goroutine is the fetch in flight, which close ends and waits for.
type keyCache struct {
	log     *slog.Logger
	issuer  string // -oauth-issuer
	jwksURL string // -oauth-jwks; "" means the metadata's jwks_uri
	client  *http.Client
	now     func() time.Time
	wait    time.Duration // defaultKeyWait
	gap     time.Duration // defaultRefetchGap
	timeout time.Duration // defaultFetchTimeout
	changed func()        // called when a fetch replaced keys with different ones

	ctx    context.Context // cancelled by close: ends the fetch in flight
	cancel context.CancelFunc
	wg     sync.WaitGroup // the fetch in flight

	mu         sync.Mutex // guards keys, loaded, staleAt, lastTry, lastOK, inflight, discovered, closed
	keys       []jwk
	loaded     bool          // a fetch has succeeded once
	staleAt    time.Time     // when keys should be refreshed
	lastTry    time.Time     // when the last fetch started
	lastOK     bool          // the last fetch that ended succeeded
	inflight   chan struct{} // closed when the fetch in flight ends; nil when none
	discovered string        // jwks_uri from the metadata
	closed     bool
}

// newKeyCache returns an empty cache for cfg's authorization server.
func newKeyCache(log *slog.Logger, cfg *authConfig, client *http.Client, now func() time.Time, changed func()) *keyCache {
	c := &keyCache{log: log, issuer: cfg.issuer, jwksURL: cfg.jwks, client: client, now: now, changed: changed,
		wait: cfg.keyWait, gap: cfg.refetchGap, timeout: cfg.fetchTimeout}
	if c.wait <= 0 {
		c.wait = defaultKeyWait
	}
	if c.gap <= 0 {
		c.gap = defaultRefetchGap
	}
	if c.timeout <= 0 {
		c.timeout = defaultFetchTimeout
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c
}

// lookup returns the keys that may have signed a token with kid (every
// key when kid is ""). Held keys answer at once, and stale ones start a
// refresh in the background. An unknown kid starts a fetch if none ran
// within the gap (key rotation) and waits for it at most c.wait; so does
// the first token, since nothing is fetched before it. The errors are the
// server's, not the token's (503): no key set could ever be fetched; or
// the kid is unknown and the server cannot tell yet whether its key is
// new (keyNotYetKnown): a fetch ran within the gap, or the one waited for
// began before the token came, failed or is still running. So made-up
// kids that keep the gap spent make a rotated key's first tokens wait,
// never fail (TestAttackMadeUpKids); an empty lookup after a fetch that
// began for this token, and succeeded, is the token's fault (401).
func (c *keyCache) lookup(ctx context.Context, kid string) ([]jwk, *tokenError) {
	c.mu.Lock()
	now := c.now()
	if c.loaded {
		found := keysWithKid(c.keys, kid)
		if !now.Before(c.staleAt) && c.canFetchLocked(now) {
			c.startLocked(now)
		}
		if len(found) > 0 || kid == "" {
			c.mu.Unlock()
			return found, nil
		}
		if !c.canFetchLocked(now) {
			retry := c.gap - now.Sub(c.lastTry)
			c.mu.Unlock()
			return nil, keyNotYetKnown(retry)
		}
	} else if !c.canFetchLocked(now) {
		retry := c.gap - now.Sub(c.lastTry)
		c.mu.Unlock()
		return nil, keysUnavailable(retry)
	}
	joined := c.inflight != nil // a fetch that began before this token
	done := c.startLocked(now)
	c.mu.Unlock()
	timer := time.NewTimer(c.wait)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	case <-ctx.Done():
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loaded {
		return nil, keysUnavailable(c.gap)
	}
	found := keysWithKid(c.keys, kid)
	if len(found) == 0 && kid != "" && (joined || c.inflight != nil || !c.lastOK) {
		return nil, keyNotYetKnown(c.gap - c.now().Sub(c.lastTry))
	}
	return found, nil
}

// keyNotYetKnown is the error of a token whose kid the keys held do not
// name while the server cannot tell yet whether its key is new (lookup):
// 503 with the time until the next fetch may begin, not 401, for the
// token may be good (a key just rotated in), and a client told its token
// is invalid starts a new authorization.
func keyNotYetKnown(retry time.Duration) *tokenError {
	return &tokenError{reason: "key not yet known", detail: "the token's key id is not in the key set held, which cannot be fetched again yet",
		unavailable: true, retry: max(retry, time.Second)}
}

// keysUnavailable is the error of a token that cannot be checked because
// no key set was ever fetched.
func keysUnavailable(retry time.Duration) *tokenError {
	return &tokenError{reason: "keys unavailable", detail: "the authorization server's key set could not be fetched",
		unavailable: true, retry: max(retry, time.Second)}
}

// keysWithKid returns the keys named kid, or all keys for "".
func keysWithKid(keys []jwk, kid string) []jwk {
	if kid == "" {
		return keys
	}
	var out []jwk
	for _, k := range keys {
		if k.kid == kid {
			out = append(out, k)
		}
	}
	return out
}

// canFetchLocked reports whether a caller may wait for a fetch: one is in
// flight, or none started within the gap.
func (c *keyCache) canFetchLocked(now time.Time) bool {
	return c.inflight != nil || c.lastTry.IsZero() || now.Sub(c.lastTry) >= c.gap
}

// startLocked starts a fetch unless one is in flight, and returns the
// channel closed when it ends (closed already once the cache is closed).
func (c *keyCache) startLocked(now time.Time) <-chan struct{} {
	if c.inflight != nil {
		return c.inflight
	}
	if c.closed {
		done := make(chan struct{})
		close(done)
		return done
	}
	c.lastTry = now
	c.inflight = make(chan struct{})
	done := c.inflight
	c.wg.Go(func() { c.refresh(done) })
	return done
}

// refresh fetches the key set and replaces the held keys with it, or
// keeps them when the fetch fails; then it closes done.
func (c *keyCache) refresh(done chan struct{}) {
	ctx, cancel := context.WithTimeout(c.ctx, c.timeout)
	keys, ttl, err := c.fetch(ctx)
	cancel()
	c.mu.Lock()
	changed := false
	if err == nil {
		changed = c.loaded && !sameKeys(c.keys, keys)
		c.keys, c.loaded, c.staleAt = keys, true, c.now().Add(ttl)
	}
	c.lastOK = err == nil
	held := len(c.keys)
	c.inflight = nil
	close(done)
	c.mu.Unlock()
	switch {
	case err != nil:
		c.log.Warn("authorization server keys not fetched; keeping those held", "issuer", c.issuer, "held", held, "err", err)
	case changed:
		c.log.Info("authorization server keys changed", "issuer", c.issuer, "keys", held)
		c.changed()
	}
}

// fetch gets the key set: from -oauth-jwks, else from the jwks_uri the
// metadata names (discovered once; forgotten when it stops answering, so
// that the next fetch discovers again).
func (c *keyCache) fetch(ctx context.Context) ([]jwk, time.Duration, error) {
	u := c.jwksURL
	if u == "" {
		c.mu.Lock()
		u = c.discovered
		c.mu.Unlock()
		if u == "" {
			var err error
			if u, err = c.discover(ctx); err != nil {
				return nil, 0, err
			}
			c.mu.Lock()
			c.discovered = u
			c.mu.Unlock()
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	status, h, body, err := authExchange(c.client, req, maxJWKSBytes)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("key set %s: status %d", u, status)
	}
	if err != nil {
		if c.jwksURL == "" && status != 0 {
			c.mu.Lock()
			c.discovered = ""
			c.mu.Unlock()
		}
		return nil, 0, err
	}
	keys, skipped, err := parseJWKS(body)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", u, err)
	}
	if len(keys) == 0 {
		return nil, 0, fmt.Errorf("%s: no usable signing key (%d skipped)", u, skipped)
	}
	return keys, keyTTL(h.Get("Cache-Control")), nil
}

// metadataURLs lists where the metadata of issuer may be, in the order
// the MCP spec gives clients: RFC 8414 with the path inserted, OpenID
// Connect with the path inserted, OpenID Connect appended.
// [§Authorization Server Metadata Discovery]: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/authorization-server-discovery#authorization-server-metadata-discovery
func metadataURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	if path == "" {
		return []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + path,
		origin + "/.well-known/openid-configuration" + path,
		origin + path + "/.well-known/openid-configuration",
	}
}

// discover finds the jwks_uri in the issuer's metadata: the first
// document found (a 4xx tries the next place). Its issuer must be
// -oauth-issuer exactly (RFC 8414 §3.3, OpenID Connect Discovery §4.3); a
// different one is an error, never a reason to look further.
func (c *keyCache) discover(ctx context.Context) (string, error) {
	for _, u := range metadataURLs(c.issuer) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return "", err
		}
		status, _, body, err := authExchange(c.client, req, maxMetadataBytes)
		switch {
		case err != nil:
			return "", err
		case status >= 400 && status < 500:
			continue
		case status != http.StatusOK:
			return "", fmt.Errorf("metadata %s: status %d", u, status)
		}
		if err := checkJSON(body); err != nil {
			return "", fmt.Errorf("metadata %s: %w", u, err)
		}
		v, err := decodeChecked(body)
		if err != nil {
			return "", fmt.Errorf("metadata %s: %w", u, err)
		}
		md, _ := v.(map[string]any)
		if iss, _ := md["issuer"].(string); iss != c.issuer {
			return "", fmt.Errorf("metadata %s: issuer %q is not -oauth-issuer %q", u, iss, c.issuer)
		}
		jwks, _ := md["jwks_uri"].(string)
		if jwks == "" {
			return "", fmt.Errorf("metadata %s: no jwks_uri (give -oauth-jwks)", u)
		}
		if err := checkServerURL("jwks_uri", jwks, false); err != nil {
			return "", fmt.Errorf("metadata %s: %w", u, err)
		}
		if !sameOrigin(jwks, c.issuer) {
			// A document that names its own issuer can still be a
			// spoofed one (a compromised or misconfigured host at that
			// path): its jwks_uri must not turn key fetches into requests
			// at any other service this server can reach.
			return "", fmt.Errorf("metadata %s: jwks_uri %q is not on the issuer's origin; if the provider serves its keys elsewhere, name them with -oauth-jwks", u, jwks)
		}
		return jwks, nil
	}
	return "", fmt.Errorf("no authorization server metadata for %s", c.issuer)
}

// sameOrigin reports whether URLs a and b have one origin (RFC 6454):
// scheme and host compared without case, the port with the scheme's
// default filled in.
func sameOrigin(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	if errA != nil || errB != nil {
		return false
	}
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		if strings.EqualFold(u.Scheme, "http") {
			return "80"
		}
		return "443"
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Hostname(), ub.Hostname()) && port(ua) == port(ub)
}

// keyTTL is how long a key set is fresh, from its Cache-Control.
func keyTTL(cacheControl string) time.Duration {
	for d := range strings.SplitSeq(cacheControl, ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), "=")
		switch strings.ToLower(name) {
		case "no-store", "no-cache":
			return minKeyTTL
		case "max-age":
			secs, err := strconv.ParseInt(strings.Trim(value, `"`), 10, 64)
			if err != nil || secs < 0 {
				continue
			}
			return min(max(time.Duration(min(secs, int64(maxKeyTTL/time.Second)))*time.Second, minKeyTTL), maxKeyTTL)
		}
	}
	return defaultKeyTTL
}

// close ends the fetch in flight, if any, and waits for it; no fetch
// starts afterwards, and the client's idle connections (and their
// goroutines) are closed.
func (c *keyCache) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait()
	c.client.CloseIdleConnections()
}

// errAuthRedirect refuses redirects from the authorization server: a
// configured https URL must not lead elsewhere (or to http).
var errAuthRedirect = errors.New("the authorization server answered with a redirect, which is not followed")

// authHTTPClient is the client of the authorization server: no
// redirects, each exchange bounded by its context.
func authHTTPClient(rt http.RoundTripper) *http.Client {
	if rt == nil {
		rt = http.DefaultTransport.(*http.Transport).Clone()
	}
	return &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error { return errAuthRedirect }}
}

// authExchange sends req and reads at most limit bytes of the answer
// (more is an error). status is 0 when no answer came.
func authExchange(client *http.Client, req *http.Request, limit int64) (status int, h http.Header, body []byte, err error) {
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", serverName+"/"+readBuild().version)
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err == nil && int64(len(body)) > limit {
		err = fmt.Errorf("%s: answer larger than %d bytes", req.URL, limit)
	}
	return resp.StatusCode, resp.Header, bytes.TrimSpace(body), err
}
