//go:build stdio

// The stdio build (go build -tags stdio): baremcp without its HTTP wing.
// It links no net/http, TLS, X.509, RSA or ECDSA, no OAuth, metrics or
// health code (TestStdioBuildDeps), and knows none of the wing's flags
// (TestStdioBuildKnowsNoHTTPFlag). The names below stand in for the
// wing's, as net/http's omithttp2.go does for its HTTP/2 bundle.
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

// serveTransport serves stdio, the only transport of this build, once
// confine has confined the process.
func (s *server) serveTransport(ctx context.Context, stdin io.Reader, stdout io.Writer, confine func() error) error {
	if err := confine(); err != nil {
		return err
	}
	return s.serveStdio(ctx, stdin, stdout)
}

// metrics counts nothing in this build; its methods do nothing on the
// nil *metrics newMetrics returns.
type metrics struct{}

func newMetrics(*server) *metrics                                      { return nil }
func (*metrics) started()                                              {}
func (*metrics) served(string, era, transport, outcome, time.Duration) {}

// authorize has no scoped caller to check in this build: stdio
// authenticates no one (scopes_http.go).
func (*server) authorize(*request) *rpcError { return nil }

// filteredList is never reached in this build, where no caller is scoped
// (registry.go list).
func (*server) filteredList(string, *request) (result, error) { return result{}, nil }
