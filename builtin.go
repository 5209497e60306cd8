//go:build !conformance && !bench

// The registry the product binary serves: the demo.

package main

// registerBuiltin fills s with what this build serves and starts what the
// registry runs in the background; stop ends it. The conformance build
// (-tags conformance) replaces it with the suite's fixtures and the
// benchmark build (-tags bench, benchtools.go) adds filler tools; getenv is
// run's, for builds that read their setup from the environment.
// builtinIsDemo reports that run serves the demo registry; tests that
// drive run with demo tools skip themselves in other builds.
const builtinIsDemo = true

func registerBuiltin(s *server, getenv func(string) string) (stop func()) { return registerDemo(s) }
