//go:build !stdio

// What the HTTP server itself needs once confined: its listener is bound
// before, accepting is no bind, and it touches nothing else unless it is
// an OAuth resource server, which fetches the authorization server's
// metadata and keys and introspects tokens after start-up (auth_jwks_http.go,
// auth_introspect_http.go). Those connections are allowed by port, with the
// resolver's files and DNS over TCP when a host is a name, and the CA
// certificates are read before confining instead of being allowed.
// Every file a flag names (-token-file, -state-key-file,
// -oauth-introspect-credentials) is read at start-up, before confining;
// none is read again.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#authorization-server-discovery

package main

import (
	"crypto/x509"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
)

// resolverFiles are what Go's resolver reads when it looks a name up, and
// reads again when they change (net's dnsclient_unix.go, hosts.go,
// nss.go): they cannot be read once before confining.
var resolverFiles = []string{"/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf"}

// dnsPort is where a resolver is asked: Landlock restricts TCP only, and
// DNS falls back to TCP for a long answer.
const dnsPort = 53

// procFiles are what the metrics' process series read at every scrape
// (metrics_runtime_http_linux.go); a system without them has no such series.
var procFiles = []string{"/proc/self/stat", "/proc/self/fd"}

// ownNeeds is what the HTTP wing configured by c needs once confined: the
// metrics listener (-metrics) reads the process's own figures in /proc;
// the transport needs nothing over stdio (c nil or without -http) or
// without -oauth-issuer.
func (c *httpConfig) ownNeeds() serverNeeds {
	var n serverNeeds
	if c != nil && c.metricsAddr != "" {
		for _, f := range procFiles {
			n.grants = append(n.grants, grant{kind: grantRead, path: f, from: "-metrics (process series)", optional: true})
		}
	}
	if c == nil || c.addr == "" || c.auth.issuer == "" {
		return n
	}
	type endpoint struct{ raw, flag string }
	ends := []endpoint{{c.auth.issuer, "-oauth-issuer"}}
	if c.auth.jwks != "" {
		ends = append(ends, endpoint{c.auth.jwks, "-oauth-jwks"})
	}
	if c.auth.introspect != "" {
		ends = append(ends, endpoint{c.auth.introspect, "-oauth-introspect"})
	}
	ports := map[int]int{} // port → index of its grant in n.grants
	allowPort := func(port int, from string) {
		if i, ok := ports[port]; ok {
			n.grants[i].from += ", " + from
			return
		}
		ports[port] = len(n.grants)
		n.grants = append(n.grants, grant{kind: grantConnect, port: port, from: from})
	}
	var names []string
	secure := false
	for _, e := range ends {
		u, err := url.Parse(e.raw) // checked by authConfig.finish
		if err != nil {
			continue
		}
		secure = secure || u.Scheme == "https"
		allowPort(urlPort(u), e.flag)
		if proxy, err := http.ProxyFromEnvironment(&http.Request{URL: u}); err == nil && proxy != nil {
			// The authorization server's client is net/http's default
			// transport, which honours HTTP_PROXY, HTTPS_PROXY and NO_PROXY.
			allowPort(urlPort(proxy), "proxy of "+e.flag)
			u = proxy
		}
		if net.ParseIP(u.Hostname()) == nil && !slices.Contains(names, u.Hostname()) {
			names = append(names, u.Hostname())
		}
	}
	if len(names) > 0 {
		hosts := names[0]
		if len(names) > 1 {
			hosts += " and others"
		}
		for _, f := range resolverFiles {
			n.grants = append(n.grants, grant{kind: grantRead, path: f, from: "resolver for " + hosts, optional: true})
		}
		allowPort(dnsPort, "DNS over TCP for "+hosts)
	}
	if secure {
		// crypto/x509 loads the system's roots once, on the first
		// verification, and keeps them (SSL_CERT_FILE, SSL_CERT_DIR).
		// An error (no roots) would be the verification's error anyway.
		n.preloads = append(n.preloads, preload{what: "CA certificates", load: func() { _, _ = x509.SystemCertPool() }})
	}
	return n
}

// urlPort is u's port, or its scheme's.
func urlPort(u *url.URL) int {
	if p, err := strconv.Atoi(u.Port()); err == nil {
		return p
	}
	if u.Scheme == "https" {
		return 443
	}
	return 80
}
