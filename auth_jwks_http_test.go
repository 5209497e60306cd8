//go:build !stdio

// Tests of the authorization server's metadata and keys (auth_jwks_http.go)
// against the test authorization server: discovery in each of its forms,
// and the key cache when the server rotates keys, is slow, down or
// answers garbage: requests keep being served with the keys held and
// never wait longer than the bound. The slow cases run in a synctest
// bubble, so the bound is asserted to the nanosecond of its clock.

package main

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// newASVerifier returns a verifier of testResource for the test
// authorization server as, with edit applied to its settings.
func newASVerifier(tb testing.TB, as *testAS, edit func(c *authConfig)) *oauthVerifier {
	tb.Helper()
	cfg := as.authConfig()
	if edit != nil {
		edit(&cfg)
	}
	v := newOAuthVerifier(slog.New(slog.NewTextHandler(io.Discard, nil)), &cfg, testResource, maxIntrospections)
	tb.Cleanup(v.keys.close)
	return v
}

// TestAuthDiscovery: the key set is found from -oauth-issuer in each form
// the MCP spec lists (or taken from -oauth-jwks); metadata naming another
// issuer, or none at all, leaves the token unverifiable (503), not invalid.
func TestAuthDiscovery(t *testing.T) {
	for _, tt := range []struct {
		name, path, metaMode string
		jwks                 bool // give -oauth-jwks
		want                 string
		metaHits             string // the metadata path that must have been read
	}{
		{name: "RFC 8414 at the root", metaHits: "/.well-known/oauth-authorization-server"},
		{name: "RFC 8414 with the path inserted", path: "/tenant1", metaHits: "/.well-known/oauth-authorization-server/tenant1"},
		{name: "OpenID Connect with the path inserted", path: "/tenant1", metaMode: "oidc", metaHits: "/.well-known/openid-configuration/tenant1"},
		{name: "OpenID Connect appended (Keycloak)", path: "/realms/r", metaMode: "oidc appended", metaHits: "/realms/r/.well-known/openid-configuration"},
		{name: "OpenID Connect at the root", metaMode: "oidc", metaHits: "/.well-known/openid-configuration"},
		{name: "-oauth-jwks: no discovery", metaMode: "down", jwks: true},
		{name: "metadata of another issuer", metaMode: "wrong issuer", want: "keys unavailable"},
		{name: "a jwks_uri on another origin", metaMode: "other origin", want: "keys unavailable"},
		{name: "metadata down", metaMode: "down", want: "keys unavailable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as := newTestAS(t, tt.path, "rsa-1")
			as.set(func(as *testAS) { as.metaMode = tt.metaMode })
			v := newASVerifier(t, as, func(c *authConfig) {
				if tt.jwks {
					c.jwks = as.issuer + "/jwks"
				}
			})
			_, err := v.verify(authContext(t), as.mint(t, "rsa-1", "alice", "", nil), "")
			got := ""
			if err != nil {
				got = err.reason
			}
			if got != tt.want {
				t.Fatalf("verify = %q (%v), want %q", got, err, tt.want)
			}
			if tt.metaHits != "" && as.count(tt.metaHits) != 1 {
				t.Errorf("metadata %s read %d times, want 1", tt.metaHits, as.count(tt.metaHits))
			}
			if tt.jwks && as.count("/.well-known/oauth-authorization-server") != 0 {
				t.Error("metadata read although -oauth-jwks was given")
			}
		})
	}
}

// TestKeyCacheMisbehaviour: rotation, and an authorization server that is
// slow, down or garbled, first and after keys were fetched. Each step
// says the reason the token must get ("" accepted), how long the request
// may take on the bubble's clock, and how many times the key set must
// have been fetched by then.
func TestKeyCacheMisbehaviour(t *testing.T) {
	type step struct {
		do      func(as *testAS)          // before the request; may advance the clock
		kid     string                    // the token's key; "" skips the request
		edit    func(h, c map[string]any) // of the token
		again   bool                      // send the first step's token again
		want    string                    // reason, "" accepted
		took    time.Duration             // exactly, on the bubble's clock
		fetches int                       // key set fetches after the request (and synctest.Wait)
	}
	later := func(d time.Duration) func(as *testAS) { return func(*testAS) { <-time.After(d) } }
	mode := func(m string) func(as *testAS) {
		return func(as *testAS) { as.set(func(as *testAS) { as.jwksMode = m }) }
	}
	fresh := func(h, c map[string]any) { c["jti"] = time.Now().String() } // not in the verified-token cache
	madeUp := func(h, c map[string]any) { h["kid"] = "made-up-" + time.Now().String() }
	for _, tt := range []struct {
		name  string
		steps []step
	}{
		{"slow at first: the request waits the bound, then 503; the keys serve once they come", []step{
			{do: mode("slow"), kid: "rsa-1", want: "keys unavailable", took: defaultKeyWait, fetches: 1},
			{do: func(as *testAS) { as.unblock() }, kid: "rsa-1", fetches: 1},
		}},
		{"down at first: 503, no fetch again within the gap, one after it", []step{
			{do: mode("down"), kid: "rsa-1", want: "keys unavailable", fetches: 1},
			{kid: "rsa-1", want: "keys unavailable", fetches: 1},
			{do: later(defaultRefetchGap), kid: "rsa-1", want: "keys unavailable", fetches: 2},
			{do: func(as *testAS) { mode("")(as); <-time.After(defaultRefetchGap) }, kid: "rsa-1", fetches: 3},
		}},
		{"garbage at first: 503", []step{
			{do: mode("garbage"), kid: "rsa-1", want: "keys unavailable", fetches: 1},
		}},
		{"a redirect is not followed", []step{
			{do: mode("redirect"), kid: "rsa-1", want: "keys unavailable", fetches: 1},
		}},
		{"an empty key set is garbage", []step{
			{do: mode("empty"), kid: "rsa-1", want: "keys unavailable", fetches: 1},
		}},
		{"rotation: an unknown kid fetches once per gap; within it an unknown kid is 503 (the key may be new), after a fetch for it 401", []step{
			{kid: "rsa-1", fetches: 1},
			{do: func(as *testAS) { as.publish("rsa-1", "rsa-2") }, kid: "rsa-2", want: "key not yet known", fetches: 1},
			{do: later(defaultRefetchGap), kid: "rsa-2", fetches: 2},
			{kid: "rsa-2", edit: madeUp, want: "key not yet known", fetches: 2},
			{kid: "rsa-2", edit: madeUp, want: "key not yet known", fetches: 2},
			{do: later(defaultRefetchGap), kid: "rsa-2", edit: madeUp, want: "unknown key", fetches: 3},
		}},
		{"stale keys, server down: served from the keys held, at once", []step{
			{kid: "rsa-1", fetches: 1},
			{do: func(as *testAS) { mode("down")(as); <-time.After(defaultKeyTTL) }, kid: "rsa-1", edit: fresh, fetches: 2},
			{do: later(defaultRefetchGap), kid: "rsa-1", edit: fresh, fetches: 3},
		}},
		{"stale keys, server slow: nobody waits", []step{
			{kid: "rsa-1", fetches: 1},
			{do: func(as *testAS) { mode("slow")(as); <-time.After(defaultKeyTTL) }, kid: "rsa-1", edit: fresh, fetches: 2},
			{kid: "rsa-1", edit: fresh, fetches: 2},
			{do: func(as *testAS) { as.unblock() }, kid: "rsa-1", edit: fresh, fetches: 2},
		}},
		{"stale keys, garbage: the keys held stay", []step{
			{kid: "rsa-1", fetches: 1},
			{do: func(as *testAS) { mode("garbage")(as); <-time.After(defaultKeyTTL) }, kid: "rsa-1", edit: fresh, fetches: 2},
			{kid: "rsa-1", edit: fresh, fetches: 2},
		}},
		{"unknown kid while the server is down: 503 after the fetch fails, keys kept", []step{
			{kid: "rsa-1", fetches: 1},
			{do: func(as *testAS) { mode("down")(as); <-time.After(defaultRefetchGap) }, kid: "rsa-2", want: "key not yet known", fetches: 2},
			{kid: "rsa-1", edit: fresh, fetches: 2},
		}},
		{"unknown kid while the server is slow: the request waits the bound, then 503", []step{
			{kid: "rsa-1", fetches: 1},
			{do: func(as *testAS) { mode("slow")(as); <-time.After(defaultRefetchGap) }, kid: "rsa-2", want: "key not yet known", took: defaultKeyWait, fetches: 2},
			{kid: "rsa-1", edit: fresh, fetches: 2},
		}},
		{"a key removed: tokens it signed are forgotten by the cache, and refused once a fetch for them has not brought it back", []step{
			{do: func(as *testAS) { as.publish("rsa-1", "rsa-2") }, kid: "rsa-2", fetches: 1},
			{do: func(as *testAS) { as.publish("rsa-1"); <-time.After(defaultRefetchGap) }, kid: "rsa-1", edit: madeUp, want: "unknown key", fetches: 2},
			{again: true, want: "key not yet known", fetches: 2},
			{do: later(defaultRefetchGap), again: true, want: "unknown key", fetches: 3},
		}},
		{"a key withdrawn verifies new tokens until the key set is refreshed, an hour at most whatever max-age says", []step{
			{do: func(as *testAS) { as.set(func(as *testAS) { as.cacheControl = "max-age=86400" }) }, kid: "rsa-1", fetches: 1},
			{do: func(as *testAS) { as.publish("rsa-2") }, kid: "rsa-1", edit: fresh, fetches: 1},
			{do: later(time.Hour), kid: "rsa-1", edit: fresh, fetches: 2},
			{kid: "rsa-1", edit: fresh, want: "key not yet known", fetches: 2},
			{do: later(defaultRefetchGap), kid: "rsa-1", edit: fresh, want: "unknown key", fetches: 3},
		}},
		{"max-age sets the TTL, clamped to 5 minutes", []step{
			{do: func(as *testAS) { as.set(func(as *testAS) { as.cacheControl = "max-age=10" }) }, kid: "rsa-1", fetches: 1},
			{do: later(minKeyTTL - time.Second), kid: "rsa-1", edit: fresh, fetches: 1},
			{do: later(time.Second), kid: "rsa-1", edit: fresh, fetches: 2},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				as := newTestAS(t, "", "rsa-1")
				v := newASVerifier(t, as, nil)
				first := ""
				for i, st := range tt.steps {
					if st.do != nil {
						st.do(as)
					}
					synctest.Wait()
					tok := first
					if !st.again {
						tok = as.mint(t, st.kid, "alice", "", st.edit)
					}
					if i == 0 {
						first = tok
					}
					start := time.Now()
					_, err := v.verify(t.Context(), tok, "")
					took := time.Since(start)
					synctest.Wait()
					got := ""
					if err != nil {
						got = err.reason
					}
					if got != st.want || took != st.took {
						t.Fatalf("step %d: verify = %q (%v) after %v, want %q after %v", i, got, err, took, st.want, st.took)
					}
					if n := as.count("/jwks"); n != st.fetches {
						t.Fatalf("step %d: key set fetched %d times, want %d", i, n, st.fetches)
					}
				}
			})
		})
	}
}

// TestKeyWaitEndsWithTheRequest: a request waiting for keys stops waiting
// when its client goes away.
func TestKeyWaitEndsWithTheRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		as := newTestAS(t, "", "rsa-1")
		as.set(func(as *testAS) { as.jwksMode = "slow" })
		v := newASVerifier(t, as, nil)
		ctx, cancel := context.WithTimeout(t.Context(), time.Second/2)
		defer cancel()
		start := time.Now()
		_, err := v.verify(ctx, as.mint(t, "rsa-1", "alice", "", nil), "")
		if took := time.Since(start); err == nil || took != time.Second/2 {
			t.Errorf("verify = %v after %v, want unavailable after 500ms", err, took)
		}
	})
}

// TestKeyTTL: Cache-Control max-age within bounds, no-store and no-cache
// at the lower bound, nothing at the default.
func TestKeyTTL(t *testing.T) {
	for _, tt := range []struct {
		cc   string
		want time.Duration
	}{
		{"", defaultKeyTTL},
		{"public, max-age=3600", time.Hour},
		{"max-age=86400", time.Hour},
		{"max-age=60", minKeyTTL},
		{"max-age=999999999999999", maxKeyTTL},
		{"no-store", minKeyTTL},
		{"max-age=x", defaultKeyTTL},
	} {
		if got := keyTTL(tt.cc); got != tt.want {
			t.Errorf("keyTTL(%q) = %v, want %v", tt.cc, got, tt.want)
		}
	}
}

// TestMetadataURLs: the order of the places metadata is looked for.
func TestMetadataURLs(t *testing.T) {
	for _, tt := range []struct {
		issuer string
		want   []string
	}{
		{"https://as.example.com", []string{"https://as.example.com/.well-known/oauth-authorization-server", "https://as.example.com/.well-known/openid-configuration"}},
		{"https://tenant.auth0.com/", []string{"https://tenant.auth0.com/.well-known/oauth-authorization-server", "https://tenant.auth0.com/.well-known/openid-configuration"}},
		{"https://kc.example.com/realms/r", []string{
			"https://kc.example.com/.well-known/oauth-authorization-server/realms/r",
			"https://kc.example.com/.well-known/openid-configuration/realms/r",
			"https://kc.example.com/realms/r/.well-known/openid-configuration"}},
	} {
		if got := metadataURLs(tt.issuer); !slices.Equal(got, tt.want) {
			t.Errorf("metadataURLs(%q) = %q, want %q", tt.issuer, got, tt.want)
		}
	}
}
