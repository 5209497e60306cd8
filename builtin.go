//go:build !conformance

// The registry the product binary serves: the demo.

package main

// registerBuiltin fills s with what this build serves. The conformance
// build (-tags conformance) replaces it with the suite's fixtures.
func registerBuiltin(s *server) { registerDemo(s) }
