// The Streamable HTTP transport's checks before any method: the
// DNS-rebinding defences (Host on a loopback bind, Origin), cross-origin
// protection and CORS for the origins the operator allows, and bearer
// token authentication (auth.go, httpsse_auth.go).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security-%26-endpoint,
// RFC 6454 (Origin), RFC 6750 (Bearer).

package main

import (
	"net"
	"net/http"
	"net/url"
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
		// Without WWW-Authenticate exposed a browser client never sees
		// the challenge that tells it where to authorize.
		switch {
		case !t.s.modernOnly && t.auth.on():
			h.Set("Access-Control-Expose-Headers", headerSessionID+", WWW-Authenticate")
		case !t.s.modernOnly:
			h.Set("Access-Control-Expose-Headers", headerSessionID)
		case t.auth.on():
			h.Set("Access-Control-Expose-Headers", "WWW-Authenticate")
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
	who, f := t.auth.authenticate(r)
	if f != nil {
		t.refuse(w, f)
		return caller{}, false
	}
	who.share = shareKey(who.principal, r.RemoteAddr)
	who.addr = remoteIP(r.RemoteAddr)
	return who, true
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
