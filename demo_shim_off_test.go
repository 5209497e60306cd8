//go:build !demo && (conformance || bench)

// Interim (issue 18): in the builds without the demo registry (-tags
// conformance, -tags bench), the tests that still serve it skip
// themselves. See demo_shim_test.go.

package main

import "testing"

// runServesDemo reports that run serves the demo registry in this build.
const runServesDemo = false

// testDemoInstructions stands in for the demo's instructions.
const testDemoInstructions = ""

// skipWithoutDemo skips a test that drives run with the demo's tools:
// this build's run serves another registry.
func skipWithoutDemo(tb testing.TB) {
	tb.Helper()
	tb.Skip("drives run, which serves the demo registry only in the default build")
}

// mustRegisterDemo skips the test: this build has no demo registry.
func mustRegisterDemo(tb testing.TB, s *server) (stop func()) {
	tb.Helper()
	tb.Skip("needs the demo registry, which this build does not carry")
	return func() {}
}
