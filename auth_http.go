//go:build !stdio

// Authentication over Streamable HTTP: the flags of the resource server,
// and who a caller is (a static token, or an OAuth access token from the
// authorization server) with what it was granted. Authorization applies to
// HTTP only: on stdio the principal is the process, as the spec says. What
// a caller may do with its scopes is checked before every handler
// (scopes_http.go).
//
// The parts: auth_tokens_http.go (static tokens), auth_jwt_http.go (JWT access
// tokens), auth_jwks_http.go (the authorization server's metadata and keys),
// auth_introspect_http.go (RFC 7662), httpsse_auth.go (metadata document,
// challenges).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/security-considerations,
// RFC 9728 (protected resource metadata), RFC 6750 (Bearer), RFC 8707
// (resource indicators), RFC 9068 (JWT access tokens), RFC 7662.

package main

import (
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// authConfig is the authorization settings, from the command line. The
// zero value authenticates no one.
type authConfig struct {
	issuer     string   // -oauth-issuer, kept verbatim: the metadata and iss must equal it
	resource   string   // -oauth-resource; "" derives it from -http (newAuthenticator)
	audiences  []string // -oauth-audience: aud values accepted besides the resource
	jwks       string   // -oauth-jwks: skip metadata discovery for keys
	introspect string   // -oauth-introspect: RFC 7662 endpoint for opaque tokens
	// introspectCredentials is the file of the resource server's own
	// client id and secret at the introspection endpoint (two lines).
	introspectCredentials string
	scopes                []string            // -oauth-scopes: needed for any request
	implies               map[string][]string // -scope-implies: broad scope → narrower ones
	filterLists           bool                // -scope-filter-lists

	// Set by finish: the static tokens, and the introspection client.
	tokens                       *tokenSet
	introspectID, introspectPass string

	// Tests set these; zero means the default.
	transport    http.RoundTripper // the client of the authorization server
	now          func() time.Time  // the clock of token validity
	keyWait      time.Duration     // the longest a request waits for keys (defaultKeyWait)
	refetchGap   time.Duration     // least time between two key fetches (defaultRefetchGap)
	fetchTimeout time.Duration     // bound of one fetch from the authorization server
}

// authFlags registers the authorization flags on fs, landing in c.
// -token-file is registered with the other HTTP flags.
func authFlags(fs *flag.FlagSet, c *authConfig) {
	fs.StringVar(&c.issuer, "oauth-issuer", "", "act as an OAuth 2.1 resource server for the authorization server whose issuer is `url` (https, or http on loopback)")
	fs.StringVar(&c.resource, "oauth-resource", "", "this server's canonical resource URI, the audience of its tokens (`url`); default http://HOST:PORT/mcp from a loopback -http")
	fs.Func("oauth-audience", "also accept tokens whose aud is `value` (repeatable; for providers whose audience is not the resource URI)", func(v string) error {
		if v == "" {
			return errors.New("empty audience")
		}
		c.audiences = append(c.audiences, v)
		return nil
	})
	fs.StringVar(&c.jwks, "oauth-jwks", "", "the authorization server's JWKS `url`; default: from its metadata, which must name one on the issuer's origin")
	fs.StringVar(&c.introspect, "oauth-introspect", "", "RFC 7662 introspection endpoint `url` for tokens that are not JWTs")
	fs.StringVar(&c.introspectCredentials, "oauth-introspect-credentials", "", "`path` of the file holding this server's client id and secret (two lines) for -oauth-introspect")
	fs.Func("oauth-scopes", "scopes every request needs (`scopes`, space-separated); advertised in the metadata and challenges", func(v string) error {
		for _, sc := range strings.Fields(v) {
			if !validScope(sc) {
				return fmt.Errorf("%q is not a scope token (RFC 6749 §3.3)", sc)
			}
			if sc == "offline_access" {
				return errors.New("offline_access is not a resource's scope: refresh tokens are the client's business")
			}
			if !slices.Contains(c.scopes, sc) {
				c.scopes = append(c.scopes, sc)
			}
		}
		return nil
	})
	fs.Func("scope-implies", "`broad=narrow[,narrow...]`: a token with scope broad also holds the narrower scopes (repeatable)", func(v string) error {
		broad, list, ok := strings.Cut(v, "=")
		if !ok || !validScope(broad) || list == "" {
			return fmt.Errorf("want broad=narrow[,narrow...], got %q", v)
		}
		for _, narrow := range strings.Split(list, ",") {
			if !validScope(narrow) || narrow == broad {
				return fmt.Errorf("%q: %q is not a narrower scope token", v, narrow)
			}
			if c.implies == nil {
				c.implies = map[string][]string{}
			}
			c.implies[broad] = append(c.implies[broad], narrow)
		}
		return nil
	})
	fs.BoolVar(&c.filterLists, "scope-filter-lists", false, "list only the tools, prompts and resources the caller's scopes allow (results become cacheScope private)")
}

// oauthFlagsSet reports whether a flag of the resource server was given.
func (c *authConfig) oauthFlagsSet() bool {
	return c.issuer != "" || c.resource != "" || len(c.audiences) > 0 || c.jwks != "" ||
		c.introspect != "" || c.introspectCredentials != ""
}

// scopeFlagsSet reports whether a scope flag was given.
func (c *authConfig) scopeFlagsSet() bool {
	return len(c.scopes) > 0 || len(c.implies) > 0 || c.filterLists
}

// finish checks the authorization flags of a server listening on addr
// (host:port, completed by httpListenAddr) and loads the static tokens
// (loadTokens: from tokenFile, else from the environment) and the
// introspection credentials; warn hears of secret files others may read.
func (c *authConfig) finish(tokenFile, addr string, getenv func(string) string, warn warnFunc) error {
	var err error
	if c.tokens, err = loadTokens(tokenFile, getenv, warn); err != nil {
		return err
	}
	if c.issuer == "" {
		if c.oauthFlagsSet() {
			return errors.New("-oauth-resource, -oauth-audience, -oauth-jwks and -oauth-introspect need -oauth-issuer")
		}
		if c.scopeFlagsSet() && c.tokens == nil {
			return errors.New("-oauth-scopes, -scope-implies and -scope-filter-lists need -oauth-issuer or -token-file")
		}
		return nil
	}
	if err := checkServerURL("-oauth-issuer", c.issuer, true); err != nil {
		return err
	}
	if c.resource == "" {
		host, _, _ := net.SplitHostPort(addr)
		if !isLoopbackHost(host) {
			return errors.New("-oauth-resource is required when -http does not bind a loopback address: it is the URL clients use, which only the operator knows")
		}
	} else if err := checkServerURL("-oauth-resource", c.resource, true); err != nil {
		return err
	}
	if c.jwks != "" {
		if err := checkServerURL("-oauth-jwks", c.jwks, false); err != nil {
			return err
		}
	}
	if (c.introspect == "") != (c.introspectCredentials == "") {
		return errors.New("-oauth-introspect and -oauth-introspect-credentials go together")
	}
	if c.introspect != "" {
		if err := checkServerURL("-oauth-introspect", c.introspect, false); err != nil {
			return err
		}
		b, err := readSecretFile("-oauth-introspect-credentials", c.introspectCredentials, getenv, warn)
		if err != nil {
			return err
		}
		lines := strings.Fields(string(b))
		if len(lines) != 2 {
			return fmt.Errorf("-oauth-introspect-credentials %s: want two lines, the client id and the secret", c.introspectCredentials)
		}
		c.introspectID, c.introspectPass = lines[0], lines[1]
	}
	return nil
}

// checkServerURL checks a URL of the authorization server or of this
// resource: absolute, https unless its host is a loopback address (a local
// identity provider, tests), no user information or fragment; an issuer
// or resource identifier has no query either (RFC 8414 §2, RFC 8707 §2).
// [§Communication Security]: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/security-considerations#communication-security
func checkServerURL(flagName, raw string, identifier bool) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || u.Opaque != "":
		return fmt.Errorf("%s %q: want an absolute URL", flagName, raw)
	case u.User != nil || u.Fragment != "" || strings.Contains(raw, "#"):
		return fmt.Errorf("%s %q: no user information or fragment", flagName, raw)
	case identifier && (u.RawQuery != "" || u.ForceQuery):
		return fmt.Errorf("%s %q: an identifier has no query", flagName, raw)
	case strings.EqualFold(u.Scheme, "https"):
		return nil
	case strings.EqualFold(u.Scheme, "http") && isLoopbackHost(u.Host):
		return nil
	}
	return fmt.Errorf("%s %q: must be https (http only on a loopback address)", flagName, raw)
}

// authFailure is why the HTTP transport refused a request before its
// method: what it answers (httpsse_auth.go) and the reason it counts.
type authFailure struct {
	status int    // 400, 401, 403 or 503
	code   string // RFC 6750 §3.1 error code; "" when no credential came at all
	reason string // a fixed word for logs and counters, never sent
	detail string // more for the log (claim values, never the token)
	scope  string // the scope of a 403 challenge
	retry  time.Duration
}

// The failures of authentication, by status.
func noCredential() *authFailure { return &authFailure{status: 401, reason: "no bearer token"} }

func malformedCredential(reason string) *authFailure {
	return &authFailure{status: 400, code: "invalid_request", reason: reason}
}

func invalidCredential(reason string) *authFailure {
	return &authFailure{status: 401, code: "invalid_token", reason: reason}
}

// authenticator names the caller of an HTTP request from its bearer
// token: a static token first, then the authorization server's (oauth).
// It is immutable once built but for the caches and counters inside its
// parts, which are safe for concurrent use.
type authenticator struct {
	s        *server
	tokens   *tokenSet      // static tokens; nil when none
	oauth    *oauthVerifier // nil when no authorization server is configured
	failures failureLog
}

// newAuthenticator builds the authenticator of a transport bound to
// bound, deriving the resource URI from it when cfg names none.
func newAuthenticator(s *server, cfg *authConfig, addr string, bound net.Addr) *authenticator {
	a := &authenticator{s: s, tokens: cfg.tokens, failures: failureLog{log: s.log, msg: "authentication refused"}}
	if cfg.issuer != "" {
		a.oauth = newOAuthVerifier(s.log, cfg, derivedResource(cfg.resource, addr, bound), s.share(maxIntrospections, 1))
	}
	return a
}

// derivedResource is -oauth-resource, or when it is not given the URL of
// this endpoint on the loopback address -http names, with the port the
// listener got: http://HOST:PORT/mcp.
func derivedResource(resource, addr string, bound net.Addr) string {
	if resource != "" {
		return resource
	}
	host, port, _ := net.SplitHostPort(addr)
	if tcp, ok := bound.(*net.TCPAddr); ok {
		if host == "" || net.ParseIP(host) != nil && net.ParseIP(host).IsUnspecified() {
			host = tcp.IP.String()
		}
		if port == "" || port == "0" {
			port = fmt.Sprint(tcp.Port)
		}
	}
	return "http://" + net.JoinHostPort(host, port) + httpPath
}

// on reports whether requests must authenticate.
func (a *authenticator) on() bool { return a != nil && (a.tokens != nil || a.oauth != nil) }

// close stops what the authenticator runs in the background (a key
// fetch, the refusal log's flush) and waits for it.
func (a *authenticator) close() {
	if a == nil {
		return
	}
	if a.oauth != nil {
		a.oauth.keys.close()
	}
	a.failures.close()
}

// authenticate returns the caller r's credential names, or why it is
// refused; client is the share key of r's address (shareKey), under
// which what judging the credential costs is counted (introspection
// slots). share is left for the transport to fill. The token is never
// logged or kept: the verified-token cache is keyed by its SHA-256.
// [§Token Handling]: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#token-handling
func (a *authenticator) authenticate(r *http.Request, client string) (caller, *authFailure) {
	if !a.on() {
		return caller{}, nil
	}
	who, f := a.identify(r, client)
	if f == nil && who.scoped && !a.s.allowed(who, a.s.baseScopes) {
		f = &authFailure{status: 403, code: "insufficient_scope", reason: "insufficient scope",
			scope: a.s.challengeScopes(who, a.s.baseScopes)}
	}
	if f != nil {
		if f.code != "" || f.status != 401 {
			// No credential at all is the first step of every client's
			// discovery (401, then the metadata): counted, not warned of.
			a.failures.add(f.reason, f.detail)
		}
		a.s.metrics.authFailed(authReasonOf(f))
		return caller{}, f
	}
	return who, nil
}

// identify is authenticate without the base scopes.
func (a *authenticator) identify(r *http.Request, client string) (caller, *authFailure) {
	tok, f := bearerToken(r)
	if f != nil {
		return caller{}, f
	}
	if st := a.tokens.lookup(tok); st != nil {
		return caller{principal: st.name, scopes: st.scopes, scoped: st.scopes != nil}, nil
	}
	if a.oauth == nil {
		return caller{}, invalidCredential("unknown static token")
	}
	who, err := a.oauth.verify(r.Context(), tok, client)
	if err != nil {
		if err.unavailable {
			return caller{}, &authFailure{status: 503, reason: err.reason, detail: err.detail, retry: err.retry}
		}
		f := invalidCredential(err.reason)
		f.detail = err.detail
		return caller{}, f
	}
	return who, nil
}

// bearerToken returns the token of r's Authorization header. No header,
// or one with another scheme, is no credential at all (401 without an
// error code, RFC 6750 §3.1); a token in the query string, two headers, or
// a credential a Bearer token cannot be (RFC 6750 §2.1: visible ASCII) is
// a malformed request (400).
// [§Token Requirements]: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#token-requirements
func bearerToken(r *http.Request) (string, *authFailure) {
	if r.URL.RawQuery != "" && r.URL.Query().Has("access_token") {
		return "", malformedCredential("token in the query string")
	}
	values := r.Header.Values("Authorization")
	switch {
	case len(values) == 0:
		return "", noCredential()
	case len(values) > 1:
		return "", malformedCredential("two Authorization headers")
	}
	scheme, cred, _ := strings.Cut(values[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", noCredential()
	}
	cred = strings.Trim(cred, " \t")
	if !validCredential(cred) {
		return "", malformedCredential("malformed bearer credential")
	}
	return cred, nil
}

// validCredential reports whether cred can be a bearer token: visible
// ASCII without spaces. RFC 6750 §2.1's b64token is narrower; tokens are
// the authorization server's, and its choice of characters is not ours to
// refuse as malformed (they are refused as unknown).
func validCredential(cred string) bool {
	if cred == "" {
		return false
	}
	for i := 0; i < len(cred); i++ {
		if c := cred[i]; c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// tokenDigest keys the verified-token cache: the token itself is never kept.
func tokenDigest(tok string) [sha256.Size]byte { return sha256.Sum256([]byte(tok)) }

// failureLog counts refused credentials by reason and logs them at most
// once per failureLogEvery, so that a flood of bad tokens cannot flood the
// log. A line carries the counts since the previous one; counts that
// arrive within the interval are logged when it ends, by a timer, so the
// tail of a burst is not left for the next refusal, however late (review
// B, finding 11). The timer's callback is awaited by close. Lines are
// written outside the lock, so a slow log sink never holds a refusal.
type failureLog struct {
	log *slog.Logger
	msg string // the line's message

	mu      sync.Mutex // guards last, counts, lastOne, pending, closed
	last    time.Time  // when the last line was written
	counts  map[string]int
	lastOne string      // the last refusal counted, with its detail
	pending *time.Timer // the flush at the end of the interval; nil when none
	closed  bool
	flushes sync.WaitGroup // the pending flush
}

// failureLogEvery is the least time between two lines of failureLog.
const failureLogEvery = time.Second

// add counts one refusal for reason; detail says more (claim values,
// never a token) and is logged with the line it triggers.
func (l *failureLog) add(reason, detail string) {
	l.mu.Lock()
	if l.counts == nil {
		l.counts = map[string]int{}
	}
	l.counts[reason]++
	l.lastOne = reason
	if detail != "" {
		l.lastOne += ": " + detail
	}
	now := time.Now()
	if wait := l.last.Add(failureLogEvery).Sub(now); wait > 0 {
		if l.pending == nil && !l.closed {
			l.flushes.Add(1)
			l.pending = time.AfterFunc(wait, l.flush)
		}
		l.mu.Unlock()
		return
	}
	counts, last := l.takeLocked(now)
	l.mu.Unlock()
	l.write(counts, last)
}

// flush writes the counts gathered during an interval, when it ends.
func (l *failureLog) flush() {
	defer l.flushes.Done()
	l.mu.Lock()
	l.pending = nil
	counts, last := l.takeLocked(time.Now())
	l.mu.Unlock()
	l.write(counts, last)
}

// takeLocked returns the counts as a line's fields and starts a new
// interval at now; "" when there is nothing to log.
func (l *failureLog) takeLocked(now time.Time) (counts, last string) {
	if len(l.counts) == 0 {
		return "", ""
	}
	l.last = now
	reasons := make([]string, 0, len(l.counts))
	for r, n := range l.counts {
		reasons = append(reasons, fmt.Sprintf("%s: %d", r, n))
	}
	slices.Sort(reasons)
	clear(l.counts)
	return strings.Join(reasons, "; "), l.lastOne
}

// write logs one line of counts, unless there are none.
func (l *failureLog) write(counts, last string) {
	if counts != "" {
		l.log.Warn(l.msg, "counts", counts, "last", last)
	}
}

// close writes what is counted and not yet logged, and waits for a
// pending flush; nothing is scheduled after it.
func (l *failureLog) close() {
	l.mu.Lock()
	l.closed = true
	if l.pending != nil && l.pending.Stop() {
		l.pending = nil
		l.flushes.Done()
	}
	counts, last := l.takeLocked(time.Now())
	l.mu.Unlock()
	l.write(counts, last)
	l.flushes.Wait()
}
