// Authorization over Streamable HTTP: the flags of the resource server,
// who a caller is (a static token, or an OAuth access token from the
// authorization server), what it was granted (scopes, widened by their
// hierarchy), what each tool, prompt and resource needs, the check that
// runs before every handler, and the audit line. Authorization applies to
// HTTP only: on stdio the principal is the process, as the spec says.
//
// The parts: auth_tokens.go (static tokens), auth_jwt.go (JWT access
// tokens), auth_jwks.go (the authorization server's metadata and keys),
// auth_introspect.go (RFC 7662), httpsse_auth.go (metadata document,
// challenges).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/security-considerations,
// RFC 9728 (protected resource metadata), RFC 6750 (Bearer), RFC 8707
// (resource indicators), RFC 9068 (JWT access tokens), RFC 7662.

package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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

// codeInsufficientScope answers a request whose caller lacks a scope the
// request needs. Like -31429 and -31503 (limits.go) it lies outside the
// JSON-RPC reserved range and ends in the HTTP status that carries it: 403
// with an insufficient_scope challenge, in both eras, since that status is
// what a client's step-up authorization reacts to.
// [§Runtime Insufficient Scope Errors]: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#runtime-insufficient-scope-errors
const codeInsufficientScope = -31403

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
	fs.StringVar(&c.jwks, "oauth-jwks", "", "the authorization server's JWKS `url`; default: from its metadata")
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
		b, err := readSecretFile("-oauth-introspect-credentials", c.introspectCredentials, warn)
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

// validScope reports whether s is a scope token (RFC 6749 §3.3):
// 1*( %x21 / %x23-5B / %x5D-7E ). The same bytes are what a challenge's
// quoted scope may carry (RFC 6750 §3), so a scope can never break one.
func validScope(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// holds returns granted widened by s.scopeImplies, transitively: the
// scopes a caller effectively has.
// [§Step-Up Authorization Flow]: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#step-up-authorization-flow
func (s *server) holds(granted []string) map[string]bool {
	have := make(map[string]bool, len(granted))
	todo := slices.Clone(granted)
	for len(todo) > 0 {
		sc := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if have[sc] {
			continue
		}
		have[sc] = true
		todo = append(todo, s.scopeImplies[sc]...)
	}
	return have
}

// allowed reports whether who may do what needs: always for a caller
// whose credential carries no scope limit.
func (s *server) allowed(who caller, need []string) bool {
	if !who.scoped || len(need) == 0 {
		return true
	}
	have := s.holds(who.scopes)
	for _, sc := range need {
		if !have[sc] {
			return false
		}
	}
	return true
}

// challengeScopes is the scope of an insufficient_scope challenge: every
// scope the operation needs, in one challenge (the 2026-07-28 SHOULD), and
// then the scopes the caller holds that this server uses: a client that
// replaces its scope with the challenge's (the 1.x TypeScript SDK) keeps
// what it had, and the union the spec asks of clients is unchanged.
// [§Runtime Insufficient Scope Errors]: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#runtime-insufficient-scope-errors
func (s *server) challengeScopes(who caller, need []string) string {
	out := slices.Clone(need)
	known := s.knownScopes()
	for _, sc := range who.scopes {
		if known[sc] && !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return strings.Join(out, " ")
}

// knownScopes is every scope this server uses: the base scopes and each
// scope a tool, prompt, resource or template of the registry declares.
func (s *server) knownScopes() map[string]bool {
	known := map[string]bool{}
	add := func(list []string) {
		for _, sc := range list {
			known[sc] = true
		}
	}
	add(s.baseScopes)
	reg := s.registry()
	for _, t := range reg.tools {
		add(t.Scopes)
	}
	for _, p := range reg.prompts {
		add(p.Scopes)
	}
	for _, r := range reg.resources {
		add(r.Scopes)
	}
	for _, t := range reg.templates {
		add(t.Scopes)
	}
	return known
}

// insufficientScope is the answer to a request its caller may not make:
// the words of the 403 challenge, and its scope in data.
func insufficientScope(scope string) *rpcError {
	return &rpcError{Code: codeInsufficientScope,
		Message: fmt.Sprintf("forbidden: insufficient scope: request a token with scope %q", scope),
		Data:    map[string]string{"scope": scope}}
}

// authorize is the scope check serve runs before every handler, in both
// eras: the base scopes (-oauth-scopes) and those the request's target
// declares. Unknown targets need only the base scopes; the handler then
// answers that they are unknown.
func (s *server) authorize(req *request) *rpcError {
	if !req.caller.scoped {
		return nil
	}
	need := slices.Clone(s.baseScopes)
	for _, sc := range s.requiredScopes(req) {
		if !slices.Contains(need, sc) {
			need = append(need, sc)
		}
	}
	if s.allowed(req.caller, need) {
		return nil
	}
	return insufficientScope(s.challengeScopes(req.caller, need))
}

// requiredScopes returns the scopes the target of req declares: the tool
// of tools/call, the prompt of prompts/get, the resource (or else the
// first matching template, as resources/read finds it) of a resource
// request, the prompt or template a completion refers to (completions
// reveal values), and every resource a subscriptions/listen watches.
func (s *server) requiredScopes(req *request) []string {
	reg := s.snapshot(req)
	name := func(p string) string {
		v, _ := jsonString(req.param(p))
		return v
	}
	switch req.method {
	case "tools/call":
		if t := reg.tool(name("name")); t != nil {
			return t.Scopes
		}
	case "prompts/get":
		if p := reg.prompt(name("name")); p != nil {
			return p.Scopes
		}
	case "resources/read", methodResourcesSubscribe, methodResourcesUnsubscribe:
		return reg.uriScopes(name("uri"))
	case "completion/complete":
		ref, rerr := objectParam(req.param("ref"), "ref", "type", "name", "uri")
		if rerr != nil {
			return nil
		}
		switch ref["type"] {
		case "ref/prompt":
			if p := reg.prompt(ref["name"]); p != nil {
				return p.Scopes
			}
		case "ref/resource":
			for _, t := range reg.templates {
				if t.URITemplate == ref["uri"] {
					return t.Scopes
				}
			}
		}
	case methodSubscriptionsListen:
		f, rerr := parseSubscriptionFilter(req.param("notifications"), s.subs.maxURIs)
		if rerr != nil {
			return nil
		}
		var need []string
		for _, u := range f.uris {
			for _, sc := range reg.uriScopes(u) {
				if !slices.Contains(need, sc) {
					need = append(need, sc)
				}
			}
		}
		return need
	}
	return nil
}

// uriScopes returns the scopes of what resources/read would read at uri.
func (r *registry) uriScopes(uri string) []string {
	switch res, tmpl, _ := r.resolveURI(uri); {
	case res != nil:
		return res.Scopes
	case tmpl != nil:
		return tmpl.Scopes
	}
	return nil
}

// checkScopes panics on a scope a registration declares that is not a
// scope token: the first run reveals it.
func checkScopes(what string, scopes []string) {
	for _, sc := range scopes {
		if !validScope(sc) {
			panic(fmt.Sprintf("%s: %q is not a scope token (RFC 6749 §3.3)", what, sc))
		}
	}
}

// scopedCache is the cache hint of a read whose resource declares
// scopes: private even when the resource's own hint says public, so that
// no shared cache hands it to a caller without them. (Without a hint a
// read is private anyway.) The server still checks every read; this only
// keeps honest caches honest.
// [§Security Considerations]: https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching#security-considerations
func scopedCache(hint *cacheHint, scopes []string) *cacheHint {
	if len(scopes) == 0 || hint == nil {
		return hint
	}
	h := *hint
	h.Scope = scopePrivate
	return &h
}

// filteredList answers a list method with only the items the caller's
// scopes allow (-scope-filter-lists). Pages are offsets into the filtered
// list and encoded per request; the result is cacheScope private, since
// it differs between callers.
func (s *server) filteredList(kind string, req *request) (result, error) {
	cursor, rerr := req.cursorParam()
	if rerr != nil {
		return result{}, rerr
	}
	reg := s.snapshot(req)
	var keep []int
	for i := range reg.count(kind) {
		var need []string
		switch kind {
		case "tools":
			need = reg.tools[i].Scopes
		case "prompts":
			need = reg.prompts[i].Scopes
		case "resources":
			need = reg.resources[i].Scopes
		default:
			need = reg.templates[i].Scopes
		}
		if s.allowed(req.caller, need) {
			keep = append(keep, i)
		}
	}
	start := 0
	if cursor != "" {
		var ok bool
		if start, ok = decodeCursor(cursor); !ok || start <= 0 || start >= len(keep) {
			return result{}, invalidParams("invalid cursor")
		}
	}
	end := len(keep)
	if s.pageSize > 0 && start+s.pageSize < end {
		end = start + s.pageSize
	}
	b := append(make([]byte, 0, 256), `{"`...)
	b = append(b, kind...)
	b = append(b, `":[`...)
	for n, i := range keep[start:end] {
		if n > 0 {
			b = append(b, ',')
		}
		item, err := reg.encodeItem(kind, i, req.version)
		if err != nil {
			return result{}, err
		}
		b = append(b, item...)
	}
	b = append(b, ']')
	if end < len(keep) {
		b = append(b, `,"nextCursor":"`...)
		b = append(b, encodeCursor(end)...)
		b = append(b, '"')
	}
	b = append(b, '}')
	return result{body: json.RawMessage(b), cache: &cacheHint{TTL: s.cache.TTL, Scope: scopePrivate}}, nil
}

// Principal returns who sent the request: the subject of its OAuth
// access token as issuer "#" sub, the name of its static token, or
// "bearer:" and a digest for the single static token; "" when no one was
// authenticated (stdio, or HTTP without authentication). The same
// principal keeps its classic sessions and requestState across token
// refreshes.
func (r *request) Principal() string { return r.caller.principal }

// Scopes returns the scopes the principal holds, widened by -scope-implies,
// sorted; nil when its credential carries no scope limit (see HasScope).
func (r *request) Scopes() []string {
	if !r.caller.scoped {
		return nil
	}
	have := r.server.holds(r.caller.scopes)
	out := make([]string, 0, len(have))
	for sc := range have {
		out = append(out, sc)
	}
	slices.Sort(out)
	return out
}

// HasScope reports whether the principal may act with scope: it holds it
// (or a broader scope implying it), or its credential is not limited by
// scopes at all.
func (r *request) HasScope(scope string) bool {
	return r.server.allowed(r.caller, []string{scope})
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

// maxAuditName bounds the tool name or URI an audit line quotes.
const maxAuditName = 256

// audit writes the audit line of a request an authenticated caller made:
// who, what (method and the tool, prompt or resource it names), the
// outcome and how long it took. Never the token: only its principal.
// Values are quoted by the log handler, so a hostile name cannot forge a
// line. The access line (logging.go) carries all of this and more; audit
// writes its line only when access lines are off (-access-log=false), so
// that an authenticated request leaves exactly one line either way.
func (s *server) audit(req *request, who caller, took time.Duration, code int) {
	name := ""
	for _, p := range []string{"name", "uri"} {
		if v, ok := jsonString(req.param(p)); ok {
			name = v
			break
		}
	}
	if req.method == "completion/complete" {
		if ref, rerr := objectParam(req.param("ref"), "ref", "type", "name", "uri"); rerr == nil {
			name = ref["name"] + ref["uri"]
		}
	}
	if len(name) > maxAuditName {
		name = name[:maxAuditName] + "..."
	}
	// The outcome and the trace ids are the access line's, so that both
	// lines, and the metrics, say the same of a request (review B,
	// finding 12: the audit line had a vocabulary of its own).
	s.log.LogAttrs(context.Background(), slog.LevelInfo, "audit",
		slog.String("principal", who.principal), slog.String("method", req.method), slog.String("name", name),
		slog.String("outcome", outcomeNames[outcomeOf(req, code)]), slog.Int("code", code), slog.Duration("duration", took),
		slog.String("trace_id", hex.EncodeToString(req.trace.TraceID[:])), slog.String("span_id", hex.EncodeToString(req.trace.SpanID[:])))
}
