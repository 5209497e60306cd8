// Debug routes, compiled in only for the load and fault tests
// (tools/loadtest builds baremcp with -tags loadtest).

//go:build !loadtest

package main

import "net/http"

// debugRoutes adds nothing in a normal build.
func debugRoutes(mux *http.ServeMux, s *server) {}
