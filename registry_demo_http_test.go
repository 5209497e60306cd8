//go:build demo && !stdio

// The product registry beside the HTTP wing: the load-test build's debug
// routes (httpsse_debug.go) add nothing to it in any other build.

package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestProductDebugRoutes: outside the load-test build, debugRoutes leaves
// the product's tools as they are (no flood tool).
func TestProductDebugRoutes(t *testing.T) {
	s := newTestServer(t, withRegistry("product"))
	debugRoutes(http.NewServeMux(), s)
	if got := strings.Join(toolNames(t, s.registry()), " "); got != "echo add slow confirm_delete ask_model list_roots toggle_extra_tool tally" {
		t.Errorf("after debugRoutes the tools are %s", got)
	}
}
