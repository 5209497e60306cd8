//go:build !stdio

// The Streamable HTTP transport's checks before any method: the
// DNS-rebinding defences (Host on a loopback bind, Origin), cross-origin
// protection and CORS for the origins the operator allows, bearer token
// authentication (auth_http.go, httpsse_auth.go), and who the caller is: its
// principal, and its address (behind a proxy the operator trusts, the
// client's, from X-Forwarded-For).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security-%26-endpoint,
// RFC 6454 (Origin), RFC 6750 (Bearer), RFC 7239 section 7.4 (the
// X-Forwarded-For convention and why only trusted hops may be believed).

package main

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// maxForwardedHops bounds the X-Forwarded-For entries clientAddr reads,
// right to left: more trusted proxies than this in a row is no real
// deployment, and the walk over a header of up to httpMaxHeaderBytes stays
// short. Past it, the last address read stands.
const maxForwardedHops = 16

// headerForwardedFor is the header a proxy appends the address of its own
// client to (HAProxy option forwardfor, nginx $proxy_add_x_forwarded_for).
const headerForwardedFor = "X-Forwarded-For"

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
	addr := t.clientAddr(r)
	who, f := caller{}, (*authFailure)(nil)
	if t.authOn {
		who, f = t.auth.authenticate(r, shareKey("", addr))
	}
	if f != nil {
		t.refuse(w, f)
		return caller{}, false
	}
	who.share = shareKey(who.principal, addr)
	who.addr = addr
	if t.authOn {
		// Asked for no credential, every connection keeps httpIdleTimeout (anonIdle is 0).
		credentialed(r)
	}
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
// principal when it authenticated, otherwise its network (clientAddr,
// addrNetwork; not the port: one client opens many connections).
func shareKey(principal, addr string) string {
	if principal != "" {
		return principal
	}
	return "addr:" + addrNetwork(addr)
}

// addrNetwork is the network one client controls at addr, an IP address:
// the address itself for IPv4, its /64 for IPv6, since one host is
// normally given a whole /64 and could otherwise be as many clients as it
// has addresses (review A, finding 4). Anything else is itself.
// [RFC 4291 §2.5.4]: https://www.rfc-editor.org/rfc/rfc4291#section-2.5.4
func addrNetwork(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil || a.Unmap().Is4() {
		return addr
	}
	return netip.PrefixFrom(a.WithZone(""), 64).Masked().String()
}

// clientAddr is the IP address of the client behind r. It is the
// connection's peer, unless the peer is a proxy the operator trusts
// (-trusted-proxy): then X-Forwarded-For is read from the right, each
// entry the address the hop to its right saw, and the first address that
// is not a trusted proxy is the client, as nginx's real_ip_recursive
// reads it. Entries left of it are the client's own claims and never
// read. A malformed entry, or more than maxForwardedHops, ends the walk
// at the last trusted address read: a broken chain never names a client
// the proxies did not see.
// [RFC 7239 §7.4]: https://www.rfc-editor.org/rfc/rfc7239#section-7.4
func (t *httpTransport) clientAddr(r *http.Request) string {
	host := remoteIP(r.RemoteAddr)
	if len(t.cfg.trustedProxies) == 0 {
		return host
	}
	addr, ok := parseForwardedAddr(host)
	if !ok || !t.cfg.trusts(addr) {
		return host
	}
	values := r.Header.Values(headerForwardedFor)
	hops := 0
	for i := len(values) - 1; i >= 0; i-- {
		rest := values[i]
		for {
			entry := rest
			comma := strings.LastIndexByte(rest, ',')
			if comma >= 0 {
				entry, rest = rest[comma+1:], rest[:comma]
			}
			if hops == maxForwardedHops {
				return addr.String()
			}
			hops++
			next, ok := parseForwardedAddr(strings.TrimSpace(entry))
			if !ok {
				return addr.String()
			}
			addr = next
			if !t.cfg.trusts(addr) {
				return addr.String()
			}
			if comma < 0 {
				break
			}
		}
	}
	return addr.String()
}

// parseForwardedAddr reads one X-Forwarded-For entry: an IPv4 or IPv6
// address, with a port or in brackets as some proxies write it. A zone
// (fe80::1%eth0) names no client and is refused; an IPv4-mapped IPv6
// address is read as the IPv4 address it carries.
func parseForwardedAddr(v string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(v)
	if err != nil {
		ap, perr := netip.ParseAddrPort(v)
		if perr != nil {
			inner, ok := strings.CutPrefix(v, "[")
			if inner, ok2 := strings.CutSuffix(inner, "]"); ok && ok2 {
				return parseForwardedAddr(inner)
			}
			return netip.Addr{}, false
		}
		a = ap.Addr()
	}
	if a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// parseTrustedProxy reads one -trusted-proxy value: a network in CIDR
// notation or one address. A network of every address (0.0.0.0/0, ::/0)
// is refused: it would let any client choose the address its share of the
// limits is counted under.
func parseTrustedProxy(v string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(v)
	if err != nil {
		a, aerr := netip.ParseAddr(v)
		if aerr != nil || a.Zone() != "" {
			return netip.Prefix{}, fmt.Errorf("want an address or a network in CIDR notation (10.0.0.0/8), got %q", v)
		}
		p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
	}
	if p.Addr().Is4In6() {
		if p.Bits() < 96 {
			return netip.Prefix{}, fmt.Errorf("%q: an IPv4-mapped network needs at least 96 bits", v)
		}
		p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
	}
	if p.Bits() == 0 {
		return netip.Prefix{}, fmt.Errorf("%q trusts every address: anyone could name the address their requests are counted under; name the proxies' own network", v)
	}
	return p.Masked(), nil
}
