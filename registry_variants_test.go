//go:build !(demo || !(conformance || bench))

// In the conformance and bench builds run serves another registry than
// the product's (registry_conformance.go, registry_bench.go).

package main

// productRegistryTested reports that this build serves the product's own
// registry: here it does not, so transcripts that name it (registry:
// product) are skipped.
const productRegistryTested = false
