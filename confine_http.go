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
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
		n.preloads = append(n.preloads, preload{what: "CA certificates", load: func() { _, _ = x509.SystemCertPool() }, reads: caFiles})
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

// caFiles are where crypto/x509 looks for the system's roots on Linux
// (root_linux.go): $SSL_CERT_FILE or the distributions' bundles, and
// $SSL_CERT_DIR or their directories; a relaunched image reads them
// itself.
func caFiles(getenv func(string) string) []string {
	files := []string{"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/ca-bundle.pem", "/etc/pki/tls/cacert.pem", "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", "/etc/ssl/cert.pem"}
	if f := getenv("SSL_CERT_FILE"); f != "" {
		files = []string{f}
	}
	dirs := []string{"/etc/ssl/certs", "/etc/pki/tls/certs"}
	if d := getenv("SSL_CERT_DIR"); d != "" {
		dirs = filepath.SplitList(d)
	}
	return append(files, dirs...)
}

// secretFiles are the secret files the HTTP wing reads at start, by
// flag: none unless it serves.
func (c *httpConfig) secretFiles() [][2]string {
	var files [][2]string
	if c == nil || c.addr == "" {
		return nil
	}
	if c.tokenFile != "" {
		files = append(files, [2]string{"-token-file", c.tokenFile})
	}
	if c.auth.introspect != "" && c.auth.introspectCredentials != "" {
		files = append(files, [2]string{"-oauth-introspect-credentials", c.auth.introspectCredentials})
	}
	return files
}

// bindListeners binds what cfg serves on (-metrics, -http), for a
// relaunch to hand over: a descriptor each (close-on-exec), by flag. Its
// errors are those serveTransport would return.
func bindListeners(cfg config) (map[string]*os.File, error) {
	bound := map[string]*os.File{}
	bind := func(flagName, addr string) error {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return err
		}
		defer ln.Close()
		f, err := ln.(*net.TCPListener).File()
		if err != nil {
			return err
		}
		bound[flagName] = f
		return nil
	}
	if cfg.http == nil {
		return bound, nil
	}
	if cfg.http.metricsAddr != "" {
		if err := bind("-metrics", cfg.http.metricsAddr); err != nil {
			return nil, fmt.Errorf("-metrics: %w", err)
		}
	}
	if cfg.transport == transportHTTP {
		if err := bind("-http", cfg.http.addr); err != nil {
			return nil, err
		}
	}
	return bound, nil
}

// listen is net.Listen("tcp", addr), except in a relaunched image, which
// takes the listener its launcher bound for flagName instead (once
// confined, it may neither bind nor listen), and after a relaunch that
// failed, which takes the one it bound itself.
func (c *confineConfig) listen(flagName, addr string) (net.Listener, error) {
	if f, ok := c.bound[flagName]; ok {
		delete(c.bound, flagName)
		defer f.Close()
		return net.FileListener(f)
	}
	if c.handoff != nil {
		if fd, ok := c.handoff.listeners[flagName]; ok {
			delete(c.handoff.listeners, flagName)
			f := os.NewFile(uintptr(fd), strings.TrimPrefix(flagName, "-"))
			defer f.Close()
			return net.FileListener(f)
		}
	}
	return net.Listen("tcp", addr)
}
