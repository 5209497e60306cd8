//go:build !loadtest && !stdio

// The load-test build's debug routes are absent here: every build but
// -tags loadtest (httpsse_debug.go) serves the transport's own routes
// (routes, httpsse.go: /mcp, the health probes, the metadata document,
// the 2024-11-05 transport's) and nothing else.
//
// Spec: none (a test hook of the Streamable HTTP transport).

package main

import "net/http"

// debugRoutes adds nothing outside the load-test build.
func debugRoutes(mux *http.ServeMux, s *server) {}
