//go:build !stdio

// Tests of the Streamable HTTP checks before any method
// (httpsse_security.go) beyond the Host and Origin rows of TestHTTPRules:
// bearer token authentication, and the caller's address behind trusted
// proxies.

package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// TestHTTPBearerToken checks the optional static token: 401 with a
// challenge without it, the principal derived from it with it.
func TestHTTPBearerToken(t *testing.T) {
	ts := newTestHTTP(t, newTestServer(t, withRegistry("base", "http")), &httpConfig{auth: authConfig{tokens: mustSingleToken(t, testToken)}})
	who := req("1", "tools/call", `"name":"who"`)
	for _, tt := range []struct {
		name   string
		edits  []string
		status int
	}{
		{"no authorization is 401", nil, 401},
		{"wrong token is 401", []string{"Authorization: Bearer " + testToken[1:]}, 401},
		{"other scheme is 401", []string{"Authorization: Basic " + testToken}, 401},
		{"right token", []string{"Authorization: Bearer " + testToken}, 200},
		{"scheme is case-insensitive", []string{"Authorization: bearer " + testToken}, 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", who, tt.edits))
			if got.status != tt.status {
				t.Fatalf("status = %d, want %d\n%s", got.status, tt.status, got.body)
			}
			if tt.status == 401 && !strings.HasPrefix(got.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("WWW-Authenticate = %q, want a Bearer challenge", got.header.Get("WWW-Authenticate"))
			}
			if tt.status == 200 {
				if bytes.Contains(got.body, []byte(testToken)) || !bytes.Contains(got.body, []byte("principal=bearer:")) {
					t.Errorf("principal not derived from the token: %s", got.body)
				}
			}
		})
	}
}

// TestShareKey: a caller's share of the limits is its principal when it
// authenticated, else the IP it connects from, whatever the port.
func TestShareKey(t *testing.T) {
	for _, tt := range []struct{ principal, remote, want string }{
		{"bearer:ab12", "127.0.0.1:5000", "bearer:ab12"},
		{"", "127.0.0.1:5000", "addr:127.0.0.1"},
		{"", "127.0.0.1:6000", "addr:127.0.0.1"},
		{"", "[::1]:5000", "addr:::/64"},
		// One IPv6 host is given a /64: its addresses are one client.
		{"", "[2001:db8:1:2::7]:5000", "addr:2001:db8:1:2::/64"},
		{"", "[2001:db8:1:2:aaaa:bbbb:cccc:dddd]:5000", "addr:2001:db8:1:2::/64"},
		{"", "[2001:db8:1:3::7]:5000", "addr:2001:db8:1:3::/64"},
		{"", "[::ffff:192.0.2.1]:5000", "addr:::ffff:192.0.2.1"},
		{"", "not an address", "addr:not an address"},
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.RemoteAddr = tt.remote
		if got := shareKey(tt.principal, (&httpTransport{cfg: &httpConfig{}}).clientAddr(r)); got != tt.want {
			t.Errorf("shareKey(%q, clientAddr(%q)) = %q, want %q", tt.principal, tt.remote, got, tt.want)
		}
	}
}

// mustTrustedProxies parses -trusted-proxy values.
func mustTrustedProxies(tb testing.TB, values ...string) []netip.Prefix {
	tb.Helper()
	var ps []netip.Prefix
	for _, v := range values {
		p, err := parseTrustedProxy(v)
		if err != nil {
			tb.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

// TestClientAddr is the rule of X-Forwarded-For: believed only from a
// trusted peer, read from the right, and only as far as the hops are
// trusted proxies; what the client wrote itself (left of the first
// untrusted address) is never read.
func TestClientAddr(t *testing.T) {
	for _, tt := range []struct {
		name    string
		trusted []string
		remote  string
		xff     []string // header lines, in order
		want    string
	}{
		{"no trusted proxy: the header is ignored", nil, "127.0.0.1:5000", []string{"192.0.2.1"}, "127.0.0.1"},
		{"untrusted peer: the header is ignored", []string{"10.0.0.0/8"}, "198.51.100.7:5000", []string{"192.0.2.1"}, "198.51.100.7"},
		{"trusted peer: the client it saw", []string{"127.0.0.1"}, "127.0.0.1:5000", []string{"192.0.2.1"}, "192.0.2.1"},
		{"trusted peer without the header: the peer", []string{"127.0.0.1"}, "127.0.0.1:5000", nil, "127.0.0.1"},
		{"a client's own claim left of its address is not read", []string{"127.0.0.1"}, "127.0.0.1:5000", []string{"203.0.113.9, 192.0.2.1"}, "192.0.2.1"},
		{"trusted hops are skipped", []string{"127.0.0.1", "10.0.0.0/8"}, "127.0.0.1:5000", []string{"192.0.2.1, 10.1.2.3, 10.0.0.9"}, "192.0.2.1"},
		{"header lines are one list, the last line last", []string{"127.0.0.1", "10.0.0.0/8"}, "127.0.0.1:5000", []string{"203.0.113.9, 192.0.2.1", "10.0.0.9"}, "192.0.2.1"},
		{"every hop trusted: the leftmost", []string{"127.0.0.1", "10.0.0.0/8"}, "127.0.0.1:5000", []string{"10.0.0.1, 10.0.0.2"}, "10.0.0.1"},
		{"malformed entry: the last trusted address", []string{"127.0.0.1", "10.0.0.0/8"}, "127.0.0.1:5000", []string{"192.0.2.1, garbage, 10.0.0.2"}, "10.0.0.2"},
		{"empty entry: the peer", []string{"127.0.0.1"}, "127.0.0.1:5000", []string{"192.0.2.1, "}, "127.0.0.1"},
		{"empty header: the peer", []string{"127.0.0.1"}, "127.0.0.1:5000", []string{""}, "127.0.0.1"},
		{"IPv4 with a port", []string{"127.0.0.1"}, "127.0.0.1:5000", []string{"192.0.2.1:4711"}, "192.0.2.1"},
		{"IPv6 in brackets with a port", []string{"127.0.0.1"}, "127.0.0.1:5000", []string{"[2001:db8::1]:4711"}, "2001:db8::1"},
		{"IPv6 in brackets", []string{"127.0.0.1"}, "127.0.0.1:5000", []string{"[2001:db8::1]"}, "2001:db8::1"},
		{"IPv6 bare", []string{"::1"}, "[::1]:5000", []string{"2001:db8::1"}, "2001:db8::1"},
		{"IPv4-mapped entry is the IPv4 address", []string{"127.0.0.1"}, "127.0.0.1:5000", []string{"::ffff:192.0.2.1"}, "192.0.2.1"},
		{"IPv4-mapped peer matches an IPv4 network", []string{"127.0.0.0/8"}, "[::ffff:127.0.0.1]:5000", []string{"192.0.2.1"}, "192.0.2.1"},
		{"a zone names no client", []string{"127.0.0.1"}, "127.0.0.1:5000", []string{"fe80::1%eth0"}, "127.0.0.1"},
		{"a host name names no client", []string{"127.0.0.1"}, "127.0.0.1:5000", []string{"client.example"}, "127.0.0.1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := &httpTransport{cfg: &httpConfig{trustedProxies: mustTrustedProxies(t, tt.trusted...)}}
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := tr.clientAddr(r); got != tt.want {
				t.Errorf("clientAddr(%s, X-Forwarded-For %q) = %q, want %q", tt.remote, tt.xff, got, tt.want)
			}
		})
	}
}

// TestClientAddrHopBound is the attack of a header as large as the
// server reads (1 MiB of trusted addresses): the walk stops after
// maxForwardedHops entries, at the last one read, and allocates the same
// whatever the header's size.
func TestClientAddrHopBound(t *testing.T) {
	tr := &httpTransport{cfg: &httpConfig{trustedProxies: mustTrustedProxies(t, "127.0.0.0/8")}}
	var b strings.Builder
	b.WriteString("192.0.2.77")
	for b.Len() < httpMaxHeaderBytes-64 {
		b.WriteString(", 127.9.9.9")
	}
	for i := maxForwardedHops; i >= 1; i-- {
		fmt.Fprintf(&b, ", 127.0.0.%d", i)
	}
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.RemoteAddr = "127.0.0.1:5000"
	r.Header.Set("X-Forwarded-For", b.String())
	want := fmt.Sprintf("127.0.0.%d", maxForwardedHops)
	if got := tr.clientAddr(r); got != want {
		t.Fatalf("clientAddr over %d bytes of trusted hops = %q, want %q (the walk's last entry)", b.Len(), got, want)
	}
	small := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	small.RemoteAddr = r.RemoteAddr
	small.Header.Set("X-Forwarded-For", "127.0.0.1")
	large := testing.AllocsPerRun(20, func() { tr.clientAddr(r) })
	base := testing.AllocsPerRun(20, func() { tr.clientAddr(small) })
	if large > base {
		t.Errorf("clientAddr allocates %v times over a 1 MiB header, %v over one entry: the work must not grow with the header", large, base)
	}
}

// TestParseTrustedProxy: -trusted-proxy takes an address or a network,
// and refuses one that trusts every address.
func TestParseTrustedProxy(t *testing.T) {
	for _, tt := range []struct{ in, want, err string }{
		{"127.0.0.1", "127.0.0.1/32", ""},
		{"10.1.2.3/8", "10.0.0.0/8", ""},
		{"::1", "::1/128", ""},
		{"fd00::/8", "fd00::/8", ""},
		{"::ffff:10.0.0.0/104", "10.0.0.0/8", ""},
		{"::ffff:10.0.0.1", "10.0.0.1/32", ""},
		{"0.0.0.0/0", "", "trusts every address"},
		{"::/0", "", "trusts every address"},
		{"::ffff:0.0.0.0/96", "", "trusts every address"},
		{"::ffff:0.0.0.0/64", "", "needs at least 96 bits"},
		{"proxy.example", "", "want an address or a network"},
		{"fe80::1%eth0", "", "want an address or a network"},
		{"10.0.0.0/33", "", "want an address or a network"},
		{"", "", "want an address or a network"},
	} {
		p, err := parseTrustedProxy(tt.in)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("parseTrustedProxy(%q) = %v, %v; want an error containing %q", tt.in, p, err, tt.err)
		case tt.err == "" && (err != nil || p.String() != tt.want):
			t.Errorf("parseTrustedProxy(%q) = %v, %v; want %s", tt.in, p, err, tt.want)
		}
	}
	if _, err := parseFlags([]string{"-http", "127.0.0.1:0", "-trusted-proxy", "0.0.0.0/0"}, &bytes.Buffer{}, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "trusts every address") {
		t.Errorf("parseFlags(-trusted-proxy 0.0.0.0/0) = %v, want the refusal", err)
	}
	pcfg, err := parseFlags([]string{"-http", "127.0.0.1:0", "-trusted-proxy", "127.0.0.1", "-trusted-proxy", "10.0.0.0/8"}, &bytes.Buffer{}, func(string) string { return "" })
	hcfg := pcfg.http
	if err != nil || fmt.Sprint(hcfg.trustedProxies) != "[127.0.0.1/32 10.0.0.0/8]" {
		t.Errorf("parseFlags(-trusted-proxy twice) = %v, %v; want both networks", hcfg.trustedProxies, err)
	}
}

// TestTrustedProxyShares drives the rate limiter (one call per share, no
// refill) through the transport: behind a trusted proxy each client has
// its own share, a client cannot borrow another's by writing its address
// into X-Forwarded-For, and a peer that is not a trusted proxy is counted
// by its own address whatever the header says. The access line names the
// same client the limiter counted.
func TestTrustedProxyShares(t *testing.T) {
	logs := &syncBuffer{}
	s := newTestServer(t, withRegistry("base", "http"), withFlags("-rate-limit", "1", "-rate-burst", "1"),
		withClock(stoppedClock(time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC))), withLogs(logs))
	ts := newTestHTTP(t, s, &httpConfig{trustedProxies: mustTrustedProxies(t, "127.0.0.1")})
	proxy, stranger := ts.clientFrom(t, "127.0.0.1:40000"), ts.clientFrom(t, "198.51.100.7:40000")
	call := req("1", "tools/call", `"name":"echo","arguments":{"message":"hi"}`)
	for _, step := range []struct {
		name   string
		client *http.Client
		xff    string // "" sends none
		status int
	}{
		{"client A's first call", proxy, "192.0.2.1", 200},
		{"client B has its own share", proxy, "192.0.2.2", 200},
		{"client A's share is spent", proxy, "192.0.2.1", 429},
		{"client A claiming to be B is still A", proxy, "192.0.2.2, 192.0.2.1", 429},
		{"the proxy's own call is the proxy's share", proxy, "", 200},
		{"an untrusted peer's first call", stranger, "192.0.2.9", 200},
		{"an untrusted peer's header is ignored", stranger, "192.0.2.10", 429},
	} {
		var edits []string
		if step.xff != "" {
			edits = []string{"X-Forwarded-For: " + step.xff}
		}
		got := mustDo(t, step.client, newTestHTTPRequest(t, t.Context(), ts, "", call, edits))
		if got.status != step.status {
			t.Errorf("%s: status = %d, want %d\n%s", step.name, got.status, step.status, got.body)
		}
	}
	for _, want := range []string{"client=192.0.2.1 ", "client=192.0.2.2 ", "client=127.0.0.1 ", "client=198.51.100.7 "} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("no access line with %q:\n%s", want, logs.String())
		}
	}
	if strings.Contains(logs.String(), "client=192.0.2.10") {
		t.Errorf("the access line names the address an untrusted peer claimed:\n%s", logs.String())
	}
}

// mustSingleToken is the token set of one unrestricted token, as
// $BAREMCP_TOKEN or a one-word -token-file gives it.
func mustSingleToken(tb testing.TB, tok string) *tokenSet {
	tb.Helper()
	set, err := singleToken("test", tok)
	if err != nil {
		tb.Fatal(err)
	}
	return set
}
