//go:build !(stdio || loadtest)

// The product registry beside the HTTP wing: the load-test build's debug
// routes (httpsse_debug.go) add nothing to it in any other build.

package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestProductDebugRoutes: outside the load-test build, debugRoutes leaves
// the product's tools as they are (no flood tool), whichever registry the
// product serves (the demo, or a copy's own: README, "Make it yours").
func TestProductDebugRoutes(t *testing.T) {
	s := newTestServer(t, withRegistry("product"))
	before := strings.Join(toolNames(t, s.registry()), " ")
	debugRoutes(http.NewServeMux(), s)
	if got := strings.Join(toolNames(t, s.registry()), " "); got != before {
		t.Errorf("debugRoutes changed the tools from %s to %s", before, got)
	}
}
