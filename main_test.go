// Tests of run's flags (main.go): the defaults derived from the flags the
// operator set, and the contradictions that are refused. Issue 20,
// findings 5 and 6.

package main

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// TestFlagDerivation checks that a default depending on another flag
// follows the flags the operator set, and that only a contradiction
// between flags the operator wrote is refused: -max-requests 4 alone used
// to refuse to start ("-max-subscriptions must be between 1 and 2"). The
// tools/call rate limit is on by default over HTTP only.
func TestFlagDerivation(t *testing.T) {
	for _, tt := range []struct {
		name          string
		args          []string
		requests      int
		subscriptions int
		rate          float64
		burst         int
		wantErr       string
	}{
		{"defaults on stdio", nil, defaultMaxRequests, defaultMaxSubscriptions, 0, 0, ""},
		{"-max-requests 4 alone starts", []string{"-max-requests", "4"}, 4, 2, 0, 0, ""},
		{"-max-requests 40: half for subscriptions", []string{"-max-requests", "40"}, 40, 20, 0, 0, ""},
		{"-max-requests 64: the default still fits", []string{"-max-requests", "64"}, 64, defaultMaxSubscriptions, 0, 0, ""},
		{"-max-requests 1: no subscriptions", []string{"-max-requests", "1"}, 1, noSubscriptions, 0, 0, ""},
		{"-max-subscriptions 200 alone raises -max-requests", []string{"-max-subscriptions", "200"}, 400, 200, 0, 0, ""},
		{"-max-subscriptions 10 alone", []string{"-max-subscriptions", "10"}, defaultMaxRequests, 10, 0, 0, ""},
		{"both, consistent", []string{"-max-subscriptions", "3", "-max-requests", "6"}, 6, 3, 0, 0, ""},
		{"both, contradicting", []string{"-max-subscriptions", "4", "-max-requests", "6"}, 0, 0, 0, 0,
			"-max-subscriptions 4 needs -max-requests 8 or more, not 6"},
		{"-max-subscriptions 0", []string{"-max-subscriptions", "0"}, 0, 0, 0, 0, "-max-subscriptions must be at least 1"},

		{"HTTP: rate limited by default", []string{"-http", "8080"}, defaultMaxRequests, defaultMaxSubscriptions, defaultHTTPRate, defaultHTTPBurst, ""},
		{"HTTP: burst alone keeps the default rate", []string{"-http", "8080", "-rate-burst", "10"}, defaultMaxRequests, defaultMaxSubscriptions, defaultHTTPRate, 10, ""},
		{"HTTP: rate alone, burst derived by the limiter", []string{"-http", "8080", "-rate-limit", "5"}, defaultMaxRequests, defaultMaxSubscriptions, 5, 0, ""},
		{"HTTP: rate limiting turned off", []string{"-http", "8080", "-rate-limit", "0"}, defaultMaxRequests, defaultMaxSubscriptions, 0, 0, ""},
		{"stdio: rate limiting asked for", []string{"-rate-limit", "5/s", "-rate-burst", "7"}, defaultMaxRequests, defaultMaxSubscriptions, 5, 7, ""},
		{"stdio: a burst without a rate does nothing", []string{"-rate-burst", "10"}, 0, 0, 0, 0,
			"-rate-burst has no effect on stdio without -rate-limit"},
		{"a burst with rate limiting off does nothing", []string{"-http", "8080", "-rate-limit", "0", "-rate-burst", "3"}, 0, 0, 0, 0,
			"-rate-burst has no effect with -rate-limit 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			skipFlagsOfTheHTTPWing(t, tt.args)
			cfg, err := parseFlags(tt.args, io.Discard, func(string) string { return "" })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("parseFlags(%q) = %v, want an error containing %q", tt.args, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseFlags(%q) = %v", tt.args, err)
			}
			if cfg.limits.maxRequests != tt.requests || cfg.maxSubscriptions != tt.subscriptions || cfg.limits.rate != tt.rate || cfg.limits.burst != tt.burst {
				t.Errorf("parseFlags(%q): -max-requests %d, -max-subscriptions %d, rate %v, burst %d; want %d, %d, %v, %d",
					tt.args, cfg.limits.maxRequests, cfg.maxSubscriptions, cfg.limits.rate, cfg.limits.burst, tt.requests, tt.subscriptions, tt.rate, tt.burst)
			}
		})
	}
}

// TestLinkedVersion checks that a version set at link time (-ldflags -X
// main.linkedVersion=...) is the one -version prints and serverInfo
// carries; harness/release/check.sh builds it so from git archive.
func TestLinkedVersion(t *testing.T) {
	defer func(v string) { linkedVersion = v }(linkedVersion)
	linkedVersion = "v9.8.7"
	if got := readBuild().version; got != "v9.8.7" {
		t.Errorf("readBuild().version = %q, want the linked v9.8.7", got)
	}
	var out bytes.Buffer
	if err := run(t.Context(), []string{"-version"}, strings.NewReader(""), &out, io.Discard, func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), serverName+" v9.8.7 ") {
		t.Errorf("-version printed %q, want %s v9.8.7 ...", out.String(), serverName)
	}
	if got := newServer(config{}, slog.New(slog.DiscardHandler)).info.Version; got != "v9.8.7" {
		t.Errorf("serverInfo.version = %q, want v9.8.7", got)
	}
}
