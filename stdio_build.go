//go:build stdio

// The stdio build (go build -tags stdio): baremcp without its HTTP wing, linking no net/http,
// TLS, X.509, RSA, ECDSA, OAuth, metrics or health code (TestStdioBuildDeps) and knowing none
// of its flags (TestStdioBuildKnowsNoHTTPFlag). The names below stand in for the wing's.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#stdio.

package main

import (
	"context"
	"flag"
	"io"
	"time"
)

// httpConfig is the HTTP wing's settings: none in this build.
type httpConfig struct{}

// httpFlags registers no flag: the stdio build has no HTTP wing.
func httpFlags(*flag.FlagSet, *config) *httpConfig { return nil }

// settle has nothing to check: the transport stays stdio.
func (*httpConfig) settle(*config, map[string]bool, func(string) string, warnFunc) error {
	return nil
}

// serveTransport serves stdio once confine has confined the process.
func (s *server) serveTransport(ctx context.Context, stdin io.Reader, stdout io.Writer, confine func() error) error {
	if err := confine(); err != nil {
		return err
	}
	return s.serveStdio(ctx, stdin, stdout)
}

// metrics counts nothing in this build (newMetrics returns nil).
type metrics struct{}

func newMetrics(*server) *metrics                                      { return nil }
func (*metrics) started()                                              {}
func (*metrics) served(string, era, transport, outcome, time.Duration) {}

// Scopes returns nil: no stdio caller's credential carries a scope limit.
func (*request) Scopes() []string { return nil }

// HasScope reports true: stdio authenticates no one, and an unscoped caller holds every scope.
func (*request) HasScope(string) bool { return true }

// authorize has no scoped caller to check: stdio authenticates no one.
func (*server) authorize(*request) *rpcError { return nil }

// filteredList is never reached: no caller is scoped (registry.go list).
func (*server) filteredList(string, *request) (result, error) { return result{}, nil }
