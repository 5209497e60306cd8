//go:build !stdio

// What an HTTP server itself needs once confined (confine_http.go), in
// the start-up line.

package main

import "testing"

// TestConfinePlanHTTP: an OAuth resource server is allowed the ports of
// its authorization server, and the resolver when a host is a name; the
// CA certificates are read before instead; the metrics listener reads the
// process's own figures in /proc (the loadtest's promtool check scrapes
// them from a confined server).
func TestConfinePlanHTTP(t *testing.T) {
	checkConfinePlan(t, []confinePlanCase{
		{"HTTP without OAuth: nothing", []string{"-http", "127.0.0.1:0"}, nil,
			[]string{`read=none write=none run=none connect=none`, `preloaded="time zone"`}, nil},
		{"OAuth on loopback: its port only", []string{"-http", "127.0.0.1:0", "-oauth-issuer", "http://127.0.0.1:9000"}, nil,
			[]string{`read=none`, `connect="9000 (-oauth-issuer)"`, `preloaded="time zone"`}, nil},
		{"OAuth by name over https", []string{"-http", "127.0.0.1:0", "-oauth-issuer", "https://as.example.com", "-oauth-introspect", "https://as.example.com:8443/introspect", "-oauth-introspect-credentials", mustWriteFile(t, t.TempDir(), "credentials", []byte("id\nsecret\n"), 0o600)}, nil,
			[]string{`connect="443 (-oauth-issuer), 8443 (-oauth-introspect), 53 (DNS over TCP for as.example.com)"`,
				`read="/etc/resolv.conf (resolver for as.example.com), /etc/hosts (resolver for as.example.com), /etc/nsswitch.conf (resolver for as.example.com)"`,
				`preloaded="time zone, CA certificates"`}, nil},
		{"metrics: the process's own figures", []string{"-metrics", "127.0.0.1:0"}, nil,
			[]string{`read="/proc/self/stat (-metrics (process series)), /proc/self/fd (-metrics (process series))"`, `connect=none`}, nil},
	})
}
