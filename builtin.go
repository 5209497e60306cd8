//go:build !conformance

// The registry the product binary serves: the demo.

package main

// registerBuiltin fills s with what this build serves and starts what the
// registry runs in the background; stop ends it. The conformance build
// (-tags conformance) replaces it with the suite's fixtures.
func registerBuiltin(s *server) (stop func()) { return registerDemo(s) }
