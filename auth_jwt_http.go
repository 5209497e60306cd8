//go:build !stdio

// OAuth access tokens: the resource server's verifier (a cache of tokens
// already verified, then a JWT checked locally or an opaque token asked
// about by introspection), compact JWS verification with the standard
// library, and the claims every token must satisfy.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#token-handling,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/security-considerations#token-audience-binding-and-validation,
// RFC 9068 §4 (validating JWT access tokens), RFC 7515 (JWS), RFC 7518
// §3 (RS256, PS256, ES256), RFC 8037 §3.1 and RFC 9864 (EdDSA, Ed25519),
// RFC 7519 §4.1 (claims), RFC 8725 (JWT best practices), RFC 8707 §2.

package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"log/slog"
	"math"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	// maxTokenBytes bounds an access token the server looks at. Real JWT
	// access tokens are 1 to 4 KiB (Entra's with group claims the
	// largest); a bigger one is refused before any decoding or hashing
	// beyond its length.
	maxTokenBytes = 16 << 10

	// tokenLeeway is the clock skew allowed on exp, nbf and iat: enough
	// for clocks kept by NTP, small enough that an expired token is not
	// honoured for long.
	tokenLeeway = 30 * time.Second

	// verifiedTokenTTL bounds how long a verified JWT is remembered (never
	// past its exp): one SHA-256 of the token then stands for the 40 to 80
	// µs of a signature check.
	verifiedTokenTTL = 5 * time.Minute

	// introspectionTTL bounds how long an introspection answer is
	// remembered (RFC 7662 §4: caching trades revocation delay for load).
	introspectionTTL = time.Minute

	// maxVerifiedTokens bounds the verified-token cache.
	maxVerifiedTokens = 4096

	// maxNumericDate is the latest exp a token is taken to have:
	// 9999-12-31T23:59:59Z, which time.Unix and every log can hold.
	maxNumericDate = 253402300799
)

// jwsB64 is the only base64 a JWS segment may use: the URL alphabet,
// without padding, with zero trailing bits (RFC 7515 §2). Go's decoders
// skip CR and LF even in strict mode, so segments are checked against the
// alphabet first (isCompactJWS).
var jwsB64 = base64.RawURLEncoding.Strict()

// jwsAlgorithms is the algorithm allow-list: asymmetric signatures only.
// "none" and HMAC (HS256, keyed by whatever a forger claims is the
// public key) never verify. "Ed25519" is RFC 9864's fully specified name
// for what "EdDSA" means with an Ed25519 key.
var jwsAlgorithms = map[string]bool{"RS256": true, "PS256": true, "ES256": true, "EdDSA": true, "Ed25519": true}

// tokenError is why a token was refused: a fixed reason for counters and
// logs, a detail for the log (claim values, never the token), and whether
// the failure is the authorization server's (503) rather than the token's.
type tokenError struct {
	reason      string
	detail      string
	unavailable bool
	retry       time.Duration
}

func (e *tokenError) Error() string { return e.reason + ": " + e.detail }

// refuse builds the tokenError of a token that is not valid here.
func refuse(reason, detail string) *tokenError { return &tokenError{reason: reason, detail: detail} }

// tokenClaims are the claims the resource server reads, from a JWT or an
// introspection answer.
type tokenClaims struct {
	iss, sub string
	aud      []string
	exp      float64 // NumericDate, seconds since the epoch (hasExp)
	nbf, iat float64
	hasExp   bool
	hasNbf   bool
	hasIat   bool
	scopes   []string
	// bound says the token is sender-constrained (a cnf claim: DPoP,
	// mTLS), a binding a Bearer resource server cannot check.
	bound bool
	// clientID (RFC 9068 §2.2; RFC 7662 §2.2) and azp (OpenID Connect's
	// authorized party, what Entra, Keycloak and Google name the client
	// with) say which client the token was issued to (caller.client).
	clientID, azp string
}

// oauthVerifier verifies access tokens for one authorization server and
// one resource. Safe for concurrent use.
type oauthVerifier struct {
	issuer    string   // -oauth-issuer, compared byte for byte
	resource  string   // the canonical resource URI, as configured (the metadata's "resource")
	audiences []string // -oauth-audience, compared exactly
	now       func() time.Time
	keys      *keyCache     // the authorization server's signing keys
	intro     *introspector // nil without -oauth-introspect
	cache     grantCache    // tokens verified already, by digest
	// refusals are the tokens introspection refused, by digest
	// (introspectRefusalTTL): a refused token sent again costs the
	// authorization server nothing. A cache of its own, so that a flood
	// of made-up tokens never pushes a verified one out of cache.
	refusals grantCache
}

// newOAuthVerifier builds the verifier of cfg for resource; one client
// may hold introspectShare of the maxIntrospections in flight. It fetches
// nothing: metadata and keys are fetched at the first token (lazily), so
// an authorization server that is down does not stop the server starting.
func newOAuthVerifier(log *slog.Logger, cfg *authConfig, resource string, introspectShare int64) *oauthVerifier {
	now := cfg.now
	if now == nil {
		now = time.Now
	}
	client := authHTTPClient(cfg.transport)
	v := &oauthVerifier{issuer: cfg.issuer, resource: resource, audiences: cfg.audiences, now: now}
	v.keys = newKeyCache(log, cfg, client, now, v.cache.flush)
	if cfg.introspect != "" {
		v.intro = newIntrospector(cfg, client, introspectShare, now)
	}
	return v
}

// verify returns the caller an access token names. A token verified
// before and not yet expired is taken from the cache, and one
// introspection refused within introspectRefusalTTL is refused again at
// once; otherwise a compact JWS is verified locally and anything else
// asked about by introspection, when an endpoint is configured, as
// client's (the share key of the address that presented it).
func (v *oauthVerifier) verify(ctx context.Context, tok, client string) (caller, *tokenError) {
	if len(tok) > maxTokenBytes {
		return caller{}, refuse("oversize token", strconv.Itoa(len(tok))+" bytes")
	}
	now := v.now()
	sum := tokenDigest(tok)
	if e, ok := v.cache.get(sum, now); ok {
		return e.who, nil
	}
	if e, ok := v.refusals.get(sum, now); ok {
		return caller{}, e.refused
	}
	gen := v.cache.generation()
	var (
		c            tokenClaims
		err          *tokenError
		until        = now.Add(verifiedTokenTTL)
		introspected bool
	)
	switch {
	case isCompactJWS(tok):
		c, err = v.verifyJWT(ctx, tok, now)
	case v.intro != nil:
		c, err = v.intro.introspect(ctx, tok, client)
		if err == nil {
			err = v.checkClaims(&c, now, false)
		}
		until, introspected = now.Add(introspectionTTL), true
	default:
		err = refuse("not a JWT", "opaque token and no -oauth-introspect")
	}
	if err != nil {
		if introspected && !err.unavailable {
			v.refusals.put(sum, grantEntry{refused: err, until: now.Add(introspectRefusalTTL)}, now, v.refusals.generation())
		}
		return caller{}, err
	}
	who := caller{principal: c.iss + "#" + c.sub, scopes: c.scopes, scoped: true, client: cmp.Or(c.clientID, c.azp)}
	if c.hasExp {
		sec, frac := math.Modf(c.exp)
		who.expires = time.Unix(int64(sec), int64(frac*1e9))
		until = minTime(until, who.expires)
	}
	if introspected {
		// An introspected token is only known valid until its answer is
		// asked again: exp is optional (RFC 7662 §2.2), and revocation is
		// seen only by introspecting. Its long-lived streams end then, and
		// the client opens them again with its token, introspected anew
		// (review B, finding 5: without exp they never ended).
		who.expires = until
	}
	v.cache.put(sum, grantEntry{who: who, until: until}, now, gen)
	return who, nil
}

// isCompactJWS reports whether tok has the shape of a compact JWS: three
// non-empty segments of base64url characters. A JWE (five segments) or
// an opaque token has not.
func isCompactJWS(tok string) bool {
	dots := 0
	for i := 0; i < len(tok); i++ {
		switch c := tok[i]; {
		case c == '.':
			if i == 0 || i == len(tok)-1 || tok[i-1] == '.' {
				return false
			}
			dots++
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return dots == 2
}

// jwsHeaderNames are the protected-header members read, or refused.
var jwsHeaderNames = []string{"alg", "kid", "typ", "crit", "b64", "zip", "enc"}

// verifyJWT verifies a compact JWS access token and its claims. The
// order matters: the shape and alphabet before any decoding, the header
// and the algorithm before any key is looked up (so "none" never costs a
// fetch), the signature before the payload is parsed.
// [RFC 9068 §4]: https://www.rfc-editor.org/rfc/rfc9068#section-4
func (v *oauthVerifier) verifyJWT(ctx context.Context, tok string, now time.Time) (tokenClaims, *tokenError) {
	var c tokenClaims
	if len(tok) > maxTokenBytes {
		return c, refuse("oversize token", strconv.Itoa(len(tok))+" bytes")
	}
	if !isCompactJWS(tok) {
		return c, refuse("malformed JWT", "not three base64url segments")
	}
	hs, rest, _ := strings.Cut(tok, ".")
	ps, ss, _ := strings.Cut(rest, ".")
	hb, err := jwsB64.DecodeString(hs)
	if err != nil {
		return c, refuse("malformed JWT", "header is not base64url")
	}
	alg, kid, terr := parseJWSHeader(hb)
	if terr != nil {
		return c, terr
	}
	sig, err := jwsB64.DecodeString(ss)
	if err != nil {
		return c, refuse("malformed JWT", "signature is not base64url")
	}
	keys, terr := v.keys.lookup(ctx, kid)
	if terr != nil {
		return c, terr
	}
	var fit []jwk
	for _, k := range keys {
		// A key whose JWK names an algorithm is used with that one only;
		// and the header never chooses the key type (algorithm confusion).
		if (k.alg == "" || sameAlg(k.alg, alg)) && algFitsKey(alg, k.pub) {
			fit = append(fit, k)
		}
	}
	if kid == "" && len(fit) != 1 {
		return c, refuse("unknown key", strconv.Itoa(len(fit))+" keys fit a token without kid")
	}
	if len(fit) == 0 {
		return c, refuse("unknown key", "no "+alg+" key with kid "+strconv.Quote(kid))
	}
	// The signing input is the ASCII as received, never re-encoded.
	input := []byte(tok[:len(hs)+1+len(ps)])
	ok := false
	for _, k := range fit {
		if verifySignature(alg, k.pub, input, sig) {
			ok = true
			break
		}
	}
	if !ok {
		return c, refuse("bad signature", alg+" with kid "+strconv.Quote(kid))
	}
	pb, err := jwsB64.DecodeString(ps)
	if err != nil {
		return c, refuse("malformed JWT", "payload is not base64url")
	}
	if c, terr = parseClaims(pb); terr != nil {
		return c, terr
	}
	return c, v.checkClaims(&c, now, true)
}

// parseJWSHeader reads the protected header: alg on the allow-list, typ
// one an access token may carry, nothing that would change how the token
// is read (crit: no extension is understood, RFC 7515 §4.1.11; b64: RFC
// 7797; zip, enc: JWE). jku, jwk, x5u and x5c are ignored: keys come only
// from the authorization server's key set, never from the token.
func parseJWSHeader(b []byte) (alg, kid string, _ *tokenError) {
	members, err := authObject(b, jwsHeaderNames)
	if err != nil {
		return "", "", refuse("malformed JWT", "header: "+err.Error())
	}
	typ := ""
	for _, m := range members {
		var dst *string
		switch m.name {
		case "alg":
			dst = &alg
		case "kid":
			dst = &kid
		case "typ":
			dst = &typ
		case "crit", "b64", "zip", "enc":
			return "", "", refuse("unsupported JWT", "header member "+m.name)
		default:
			continue
		}
		s, ok := jsonString(m.value)
		if !ok {
			return "", "", refuse("malformed JWT", "header "+m.name+" is not a string")
		}
		*dst = s
	}
	if !jwsAlgorithms[alg] {
		return "", "", refuse("algorithm not allowed", strconv.Quote(alg))
	}
	// RFC 9068 §4 asks for at+jwt; deployed providers (Entra, Keycloak)
	// send JWT or nothing (docs/GAPS.md). Any other type (dpop+jwt, a
	// logout token, ...) is refused; aud is what refuses ID tokens.
	switch strings.ToLower(typ) {
	case "", "jwt", "at+jwt", "application/at+jwt":
	default:
		return "", "", refuse("wrong token type", "typ "+strconv.Quote(typ))
	}
	return alg, kid, nil
}

// claimNames are the claims read; a member imitating one by case is refused.
var claimNames = []string{"iss", "sub", "aud", "exp", "nbf", "iat", "scope", "scp", "client_id", "azp", "jti", "active", "token_type", "cnf"}

// parseClaims reads a JWT's claims or an introspection answer (the
// members of RFC 7662 §2.2 share the claim names). Types are exact:
// strings are strings, NumericDates numbers; scope is a space-separated
// string (RFC 9068 §2.2.3), scp a string (Entra) or an array (Okta).
func parseClaims(b []byte) (tokenClaims, *tokenError) {
	var c tokenClaims
	members, err := authObject(b, claimNames)
	if err != nil {
		return c, refuse("malformed claims", err.Error())
	}
	for _, m := range members {
		switch m.name {
		case "iss", "sub", "client_id", "azp", "jti", "token_type":
			s, ok := jsonString(m.value)
			if !ok {
				return c, refuse("malformed claims", m.name+" is not a string")
			}
			switch m.name {
			case "iss":
				c.iss = s
			case "sub":
				c.sub = s
			case "client_id":
				c.clientID = s
			case "azp":
				c.azp = s
			}
		case "aud":
			list, ok := stringOrStrings(m.value)
			if !ok {
				return c, refuse("malformed claims", "aud is neither a string nor an array of strings")
			}
			c.aud = list
		case "exp", "nbf", "iat":
			f, ok := numericDate(m.value)
			if !ok {
				return c, refuse("malformed claims", m.name+" is not a NumericDate")
			}
			switch m.name {
			case "exp":
				// Clamped: a later exp (2^63 seconds and more overflowed
				// time.Unix into the past, and ended the token's streams at
				// once) means the same as the last second of year 9999.
				c.exp, c.hasExp = min(f, maxNumericDate), true
			case "nbf":
				c.nbf, c.hasNbf = f, true
			case "iat":
				c.iat, c.hasIat = f, true
			}
		case "cnf":
			c.bound = true
		case "scope", "scp":
			list, ok := stringOrStrings(m.value)
			if !ok || (m.name == "scope" && jsonKind(m.value) != '"') {
				return c, refuse("malformed claims", m.name+" has the wrong type")
			}
			for _, s := range list {
				c.scopes = append(c.scopes, strings.Fields(s)...)
			}
		}
	}
	return c, nil
}

// checkClaims checks what makes a token valid here, now: issued by the
// configured issuer (byte for byte: RFC 9068 §4, RFC 8414 §3.3), for this
// resource (RFC 8707; or an -oauth-audience), current (exp, nbf, iat
// within tokenLeeway), naming its subject, and not bound to a sender
// (cnf) whose proof Bearer cannot carry. A JWT must carry iss and
// exp; an introspection answer may omit them (requireAll false), its
// issuer then being the one asked.
// [§Token Audience Binding and Validation]: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/security-considerations#token-audience-binding-and-validation
func (v *oauthVerifier) checkClaims(c *tokenClaims, now time.Time, requireAll bool) *tokenError {
	if c.iss == "" && !requireAll {
		c.iss = v.issuer
	}
	if c.iss != v.issuer {
		return refuse("wrong issuer", "iss "+strconv.Quote(c.iss))
	}
	if !v.audienceMatches(c.aud) {
		return refuse("wrong audience", "aud "+strings.Join(c.aud, " "))
	}
	t := float64(now.UnixNano()) / 1e9
	leeway := tokenLeeway.Seconds()
	switch {
	case !c.hasExp && requireAll:
		return refuse("expired", "no exp")
	case c.hasExp && t >= c.exp+leeway:
		return refuse("expired", "exp "+strconv.FormatFloat(c.exp, 'f', -1, 64))
	case c.hasNbf && t < c.nbf-leeway:
		return refuse("not yet valid", "nbf "+strconv.FormatFloat(c.nbf, 'f', -1, 64))
	case c.hasIat && c.iat > t+leeway:
		return refuse("not yet valid", "iat "+strconv.FormatFloat(c.iat, 'f', -1, 64))
	case c.sub == "":
		return refuse("no subject", "sub is missing or empty")
	case c.bound:
		// A stolen DPoP- or certificate-bound token must not work here as
		// a plain bearer token (RFC 9449 §7, RFC 8705 §3).
		return refuse("sender-constrained token", "cnf claim: the binding cannot be checked over Bearer")
	}
	return nil
}

// audienceMatches reports whether aud names this resource: the canonical
// URI compared with upper-case scheme and host and one trailing slash
// forgiven (the spec's SHOULD on robustness), or an -oauth-audience
// exactly. A bare origin does not name a resource with a path.
// [§Canonical Server URI]: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#canonical-server-uri
func (v *oauthVerifier) audienceMatches(aud []string) bool {
	want := canonicalResource(v.resource)
	for _, a := range aud {
		if canonicalResource(a) == want {
			return true
		}
		for _, alias := range v.audiences {
			if a == alias {
				return true
			}
		}
	}
	return false
}

// canonicalResource lower-cases the scheme and host of a URI and drops
// one trailing slash; the path keeps its case.
func canonicalResource(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	host, path, hasPath := strings.Cut(rest, "/")
	out := strings.ToLower(scheme) + "://" + strings.ToLower(host)
	if hasPath {
		out += "/" + path
	}
	return strings.TrimSuffix(out, "/")
}

// stringOrStrings decodes a JSON string, or an array of strings.
func stringOrStrings(raw []byte) ([]string, bool) {
	if s, ok := jsonString(raw); ok {
		return []string{s}, true
	}
	if jsonKind(raw) != '[' {
		return nil, false
	}
	v, err := decodeChecked(raw)
	if err != nil {
		return nil, false
	}
	items, _ := v.([]any)
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// numericDate decodes a NumericDate (RFC 7519 §2): a JSON number of
// seconds, possibly with a fraction.
func numericDate(raw []byte) (float64, bool) {
	raw = bytes.TrimSpace(raw)
	if jsonKind(raw) != '0' {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// sameAlg reports whether two algorithm names mean the same: EdDSA and
// Ed25519 do, with an Ed25519 key (RFC 9864).
func sameAlg(a, b string) bool {
	return a == b || isEdDSA(a) && isEdDSA(b)
}

func isEdDSA(alg string) bool { return alg == "EdDSA" || alg == "Ed25519" }

// algFitsKey reports whether alg can be verified with pub: the key type
// decides, never the token (RFC 8725 §3.1). Without this, a header
// claiming ES256 would send an RSA key to the ECDSA verifier.
func algFitsKey(alg string, pub crypto.PublicKey) bool {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return alg == "RS256" || alg == "PS256"
	case *ecdsa.PublicKey:
		return alg == "ES256" && k.Curve == elliptic.P256()
	case ed25519.PublicKey:
		return isEdDSA(alg)
	}
	return false
}

// verifySignature checks sig over input with pub, which algFitsKey has
// matched to alg.
func verifySignature(alg string, pub crypto.PublicKey, input, sig []byte) bool {
	digest := sha256.Sum256(input)
	switch alg {
	case "RS256":
		return rsa.VerifyPKCS1v15(pub.(*rsa.PublicKey), crypto.SHA256, digest[:], sig) == nil
	case "PS256":
		// RFC 7518 §3.5: MGF1 with SHA-256 and a salt as long as the hash;
		// PSSSaltLengthAuto would also accept other salts.
		return rsa.VerifyPSS(pub.(*rsa.PublicKey), crypto.SHA256, digest[:], sig,
			&rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash, Hash: crypto.SHA256}) == nil
	case "ES256":
		// RFC 7518 §3.4: R and S, 32 bytes each, not ASN.1 DER.
		if len(sig) != 64 {
			return false
		}
		r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
		return ecdsa.Verify(pub.(*ecdsa.PublicKey), digest[:], r, s)
	case "EdDSA", "Ed25519":
		// RFC 8037 §3.1: pure Ed25519 over the input itself.
		return len(sig) == ed25519.SignatureSize && ed25519.Verify(pub.(ed25519.PublicKey), input, sig)
	}
	return false
}

// authObject decodes a JSON object from a token or an authorization
// server strictly: valid UTF-8, no duplicate member (a signed duplicate
// "sub" must not let a reader choose), and no member imitating one of
// names by case (encoding/json would read "AUD" as "aud").
func authObject(b []byte, names []string) ([]member, error) {
	if err := checkJSON(b); err != nil {
		return nil, err
	}
	members, err := objectMembers(b)
	if err != nil {
		return nil, err
	}
	for _, m := range members {
		if known := foldedName(m.name, names...); known != "" {
			return nil, &jsonShapeError{msg: "member " + strconv.Quote(m.name) + " is not " + strconv.Quote(known)}
		}
	}
	return members, nil
}

// minTime returns the earlier of a and b.
func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// grantCache remembers the callers of tokens verified already, keyed by
// the token's SHA-256, each until min(its exp, a TTL): at most
// maxVerifiedTokens of them. Flushed when the key set changes; a
// verification that began before a flush is not remembered after it
// (gen), or a token checked against a key the flush was for would be.
type grantCache struct {
	mu  sync.Mutex // guards m, gen
	m   map[[sha256.Size]byte]grantEntry
	gen uint64 // flushes so far
}

// grantEntry is one judged token: the caller of a verified one, or the
// refusal of one introspection refused; and how long it stands.
type grantEntry struct {
	who     caller
	refused *tokenError
	until   time.Time
}

// get returns the entry of the token with digest sum, if it is cached
// and still stands at now.
func (g *grantCache) get(sum [sha256.Size]byte, now time.Time) (grantEntry, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, ok := g.m[sum]
	if !ok {
		return grantEntry{}, false
	}
	if !now.Before(e.until) {
		delete(g.m, sum)
		return grantEntry{}, false
	}
	return e, true
}

// generation returns the cache's count of flushes, taken before a token
// is verified and handed to put.
func (g *grantCache) generation() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.gen
}

// put remembers e for the token with digest sum until e.until, unless
// the cache was flushed since gen (generation) was taken: the token was
// verified against keys the flush forgot. A full cache (maxVerifiedTokens)
// first drops what has expired, then arbitrary entries (map order): a
// dropped token is only judged again.
func (g *grantCache) put(sum [sha256.Size]byte, e grantEntry, now time.Time, gen uint64) {
	if !now.Before(e.until) {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if gen != g.gen {
		return
	}
	if g.m == nil {
		g.m = map[[sha256.Size]byte]grantEntry{}
	}
	if len(g.m) >= maxVerifiedTokens {
		for k, e := range g.m {
			if !now.Before(e.until) {
				delete(g.m, k)
			}
		}
		for k := range g.m {
			if len(g.m) < maxVerifiedTokens*7/8 {
				break
			}
			delete(g.m, k)
		}
	}
	g.m[sum] = e
}

// flush forgets every verified token: the key set changed, and a key
// that signed some of them may be gone.
func (g *grantCache) flush() {
	g.mu.Lock()
	defer g.mu.Unlock()
	clear(g.m)
	g.gen++
}

// size returns the number of cached tokens.
func (g *grantCache) size() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.m)
}
