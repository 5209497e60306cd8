//go:build demo || !(conformance || bench)

// Tests of the demo registry (registry_demo.go), the product's registry
// in the default build: its own transcripts (testdata/demo, played by the
// one runner against buildRegistry), and the product registry as the
// binary serves it.

package main

import "testing"

// productRegistryTested reports that this build serves the product's own
// registry, so transcripts that name it (registry: product) are played.
const productRegistryTested = true

func TestDemoTranscripts(t *testing.T) {
	forEachTranscript(t, "testdata/demo", "")
}
