// The Streamable HTTP transport's checks before any method: the
// DNS-rebinding defences (Host on a loopback bind, Origin), cross-origin
// protection and CORS for the origins the operator allows, and bearer
// token authentication.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security-%26-endpoint,
// RFC 6454 (Origin), RFC 6750 (Bearer).

package main

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// normalizeOrigin returns an Origin (RFC 6454) as browsers serialise it:
// lower case, default port dropped; ok is false for anything else,
// including the opaque origin "null".
func normalizeOrigin(v string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	host := strings.ToLower(u.Host)
	if port := u.Port(); (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		host = strings.TrimSuffix(host, ":"+port)
	}
	return u.Scheme + "://" + host, true
}

// isLoopbackHost reports whether the Host header names this machine's
// loopback interface: localhost or a loopback IP, any port.
func isLoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// guard applies the checks every request meets before its method, in
// order: the DNS-rebinding defences (Host, Origin), CORS for allowed
// origins (a preflight is answered here), then authentication. It
// returns the caller, or false once it has answered.
// [§Security]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security-%26-endpoint
func (t *httpTransport) guard(w http.ResponseWriter, r *http.Request) (who caller, ok bool) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if t.loopback && !isLoopbackHost(r.Host) {
		writeHTTPError(w, http.StatusForbidden, newError(codeInvalidRequest, "forbidden: host not allowed"))
		return caller{}, false
	}
	if origins := r.Header.Values("Origin"); len(origins) > 0 {
		o, ok := normalizeOrigin(origins[0])
		if len(origins) > 1 || !ok || !t.origins[o] {
			writeHTTPError(w, http.StatusForbidden, newError(codeInvalidRequest, "forbidden: origin not allowed"))
			return caller{}, false
		}
	}
	if err := t.cop.Check(r); err != nil {
		writeHTTPError(w, http.StatusForbidden, newError(codeInvalidRequest, "forbidden: cross-origin request"))
		return caller{}, false
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		// An allowed foreign origin is a browser app the operator trusts
		// (-allow-origin); without CORS its POSTs would never leave the
		// browser. Preflights carry no credentials, so they come before
		// authentication.
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		if !t.s.modernOnly {
			h.Set("Access-Control-Expose-Headers", headerSessionID)
		}
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			if t.s.modernOnly {
				h.Set("Access-Control-Allow-Methods", http.MethodPost)
			} else {
				h.Set("Access-Control-Allow-Methods", "POST, GET, DELETE")
			}
			h.Set("Access-Control-Allow-Headers", r.Header.Get("Access-Control-Request-Headers"))
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return caller{}, false
		}
	}
	principal, ok := t.authenticate(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", "Bearer realm="+strconv.Quote(t.s.info.Name))
		writeHTTPError(w, http.StatusUnauthorized, newError(codeInvalidRequest, "unauthorized: a valid bearer token is required"))
		return caller{}, false
	}
	return caller{principal: principal, share: shareKey(principal, r.RemoteAddr), addr: remoteIP(r.RemoteAddr)}, true
}

// remoteIP is the IP address of a connection's peer (RemoteAddr without
// its port).
func remoteIP(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		return remoteAddr
	}
	return host
}

// shareKey is the key of a caller's share of the server's limits: its
// principal when it authenticated, otherwise the IP address it connects
// from (not the port: one client opens many connections).
func shareKey(principal, remoteAddr string) string {
	if principal != "" {
		return principal
	}
	return "addr:" + remoteIP(remoteAddr)
}

// authenticate checks the bearer token when one is configured. Both sides
// are hashed first so the comparison takes the same time whatever the
// length or content of the guess. Each failure is counted by reason
// (metrics.authFailed).
func (t *httpTransport) authenticate(r *http.Request) (principal string, ok bool) {
	if t.cfg.token == "" {
		return "", true
	}
	auth := r.Header.Get("Authorization")
	if auth == "" {
		t.s.metrics.authFailed(authMissing)
		return "", false
	}
	scheme, cred, _ := strings.Cut(auth, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		t.s.metrics.authFailed(authMalformed)
		return "", false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(cred)))
	if subtle.ConstantTimeCompare(sum[:], t.tokenSum[:]) != 1 {
		t.s.metrics.authFailed(authInvalid)
		return "", false
	}
	return t.principal, true
}
