//go:build demo || !(conformance || bench)

// Interim (issue 18): the tests that still serve the demo registry reach it
// through these names, so that they compile in every build and skip in the
// builds without it (demo_shim_off_test.go). The tests' own registry
// replaces them.

package main

import "testing"

// runServesDemo reports that run serves the demo registry in this build.
const runServesDemo = true

// testDemoInstructions is the demo's instructions.
const testDemoInstructions = demoInstructions

// skipWithoutDemo skips a test that drives run with the demo's tools in
// a build whose run serves another registry; this one serves the demo.
func skipWithoutDemo(tb testing.TB) {}

// mustRegisterDemo registers the demo registry on s and returns its stop.
func mustRegisterDemo(tb testing.TB, s *server) (stop func()) {
	tb.Helper()
	return registerDemo(s)
}
