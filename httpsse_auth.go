//go:build !stdio

// The Streamable HTTP side of authorization: the protected resource
// metadata document (RFC 9728) clients discover the authorization server
// from, and the answers to requests that are refused: 401 with a Bearer
// challenge naming that document, 400 for a malformed credential, 403
// with the scope needed, 503 while the authorization server cannot be
// asked. Each answer's JSON-RPC body says the same in words.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/authorization-server-discovery#protected-resource-metadata-discovery-requirements,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#error-handling,
// RFC 9728 §2, §3.1, §5.1; RFC 6750 §3, §3.1.

package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// wellKnownResourceMetadata is the well-known path of the protected
// resource metadata (RFC 9728 §3).
const wellKnownResourceMetadata = "/.well-known/oauth-protected-resource"

// resourceMetadataURL is where the metadata of resource is (RFC 9728
// §3.1): the well-known path inserted between the host and the path of
// the resource identifier, whose terminating slash is dropped. It is
// built from the configuration, never from a request's Host.
func resourceMetadataURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host + wellKnownResourceMetadata + strings.TrimSuffix(u.EscapedPath(), "/")
}

// routesResourceMetadata registers, with an authorization server, the
// metadata document on mux at the path the resource identifier gives
// (RFC 9728 §3.1), at the one this endpoint gives when a proxy maps
// another path onto it, and at the root (the fallback the MCP spec names).
func (t *httpTransport) routesResourceMetadata(mux *http.ServeMux) {
	if t.auth.oauth == nil {
		return
	}
	paths := []string{wellKnownResourceMetadata, wellKnownResourceMetadata + httpPath}
	if u, err := url.Parse(t.auth.oauth.resource); err == nil {
		if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" && p != httpPath {
			paths = append(paths, wellKnownResourceMetadata+p)
		}
	}
	for _, p := range paths {
		mux.HandleFunc(p, t.serveResourceMetadata)
	}
}

// resourceMetadata is the protected resource metadata document.
type resourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported,omitempty"`
	BearerMethods        []string `json:"bearer_methods_supported"`
	ResourceName         string   `json:"resource_name"`
}

// serveResourceMetadata serves the metadata document: public, readable
// by any origin (browser clients discover with it before they have a
// token), unauthenticated. On a loopback bind the Host is still checked,
// as for the endpoint. scopes_supported is the base scopes: what basic
// use needs (the spec's "minimal set"); the authorization server is named
// exactly as -oauth-issuer, since clients compare it with the issuer of
// its metadata.
// [§Protected Resource Metadata Discovery Requirements]: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/authorization-server-discovery#protected-resource-metadata-discovery-requirements
func (t *httpTransport) serveResourceMetadata(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	if t.loopback && !isLoopbackHost(r.Host) {
		writeHTTPError(w, http.StatusForbidden, newError(codeInvalidRequest, "forbidden: host not allowed"))
		return
	}
	h.Set("Access-Control-Allow-Origin", "*")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		h.Set("Access-Control-Allow-Methods", "GET")
		h.Set("Access-Control-Allow-Headers", r.Header.Get("Access-Control-Request-Headers"))
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		h.Set("Allow", "GET")
		writeHTTPError(w, http.StatusMethodNotAllowed, newError(codeInvalidRequest, "method not allowed: use GET"))
		return
	}
	v := t.auth.oauth
	doc, err := json.Marshal(resourceMetadata{
		Resource:             v.resource,
		AuthorizationServers: []string{v.issuer},
		ScopesSupported:      t.s.baseScopes,
		BearerMethods:        []string{"header"},
		ResourceName:         t.s.info.Name,
	})
	if err != nil {
		writeHTTPError(w, http.StatusInternalServerError, errInternal)
		return
	}
	h.Set("Cache-Control", "max-age=300")
	writeJSON(w, http.StatusOK, append(doc, '\n'))
}

// The error descriptions of the challenges: fixed text the server wrote,
// never anything from the request (RFC 6750 §3 limits the characters).
const (
	describeInvalidToken      = "the access token is not valid for this server"
	describeInvalidRequest    = "send one Authorization header with a Bearer token, never a token in the URL"
	describeInsufficientScope = "this request needs more scope"
)

// challenge is a WWW-Authenticate value: the Bearer scheme with realm,
// the error code (none when no credential came), resource_metadata when
// an authorization server is configured (2025-06-18 made it a MUST on
// 401; every revision accepts it), the scope, and the description last:
// clients find parameters by unanchored search, so free text goes last.
func (t *httpTransport) challenge(code, scope, description string) string {
	var b strings.Builder
	b.WriteString("Bearer realm=")
	b.WriteString(strconv.Quote(t.s.info.Name))
	if code != "" {
		b.WriteString(`, error="` + code + `"`)
	}
	if v := t.auth.oauth; v != nil {
		b.WriteString(`, resource_metadata="` + resourceMetadataURL(v.resource) + `"`)
	}
	if scope != "" {
		b.WriteString(`, scope="` + scope + `"`)
	}
	if description != "" {
		b.WriteString(`, error_description="` + description + `"`)
	}
	return b.String()
}

// refuse answers a request whose credential authenticate refused.
// [§Error Handling]: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#error-handling
func (t *httpTransport) refuse(w http.ResponseWriter, f *authFailure) {
	h := w.Header()
	base := strings.Join(t.s.baseScopes, " ")
	switch f.status {
	case http.StatusUnauthorized:
		if f.code == "" {
			h.Set("WWW-Authenticate", t.challenge("", base, ""))
			writeHTTPError(w, f.status, newError(codeInvalidRequest, "unauthorized: a valid bearer token is required"))
			return
		}
		h.Set("WWW-Authenticate", t.challenge(f.code, base, describeInvalidToken))
		writeHTTPError(w, f.status, newError(codeInvalidRequest, "unauthorized: %s", describeInvalidToken))
	case http.StatusBadRequest:
		h.Set("WWW-Authenticate", t.challenge(f.code, "", describeInvalidRequest))
		writeHTTPError(w, f.status, newError(codeInvalidRequest, "bad request: malformed authorization: %s", describeInvalidRequest))
	case http.StatusForbidden:
		h.Set("WWW-Authenticate", t.challenge(f.code, f.scope, describeInsufficientScope))
		writeHTTPError(w, f.status, insufficientScope(f.scope))
	default:
		// Not the token's fault: the authorization server cannot be
		// asked. A 401 would send the client into a pointless new
		// authorization.
		h.Set("Retry-After", strconv.Itoa(int(max(f.retry, time.Second).Seconds())))
		writeHTTPError(w, http.StatusServiceUnavailable, newError(codeServerBusy, "authorization server unavailable: the token cannot be checked now; retry later"))
	}
}

// scopeChallenge is the WWW-Authenticate of a request serve refused for
// insufficient scope (codeInsufficientScope): scope is the one the
// reply's error.data carries (reply.scope), so the header and the body
// agree.
func (t *httpTransport) scopeChallenge(scope string) string {
	if !validScopeList(scope) {
		scope = ""
	}
	return t.challenge("insufficient_scope", scope, describeInsufficientScope)
}

// validScopeList reports whether s is scope tokens separated by single
// spaces: what may stand in a challenge's quoted scope.
func validScopeList(s string) bool {
	for sc := range strings.SplitSeq(s, " ") {
		if !validScope(sc) {
			return false
		}
	}
	return true
}
