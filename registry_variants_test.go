//go:build demo || conformance || bench

// The tagged builds serve a registry chosen by their tag (registry_demo.go,
// registry_conformance.go, registry_bench.go), which is not necessarily
// the product's: a copy of the repository that replaced the demo serves
// its own registry only in the untagged build.

package main

// productRegistryTested reports whether transcripts that name the
// product's registry (registry: product) are played: not in a tagged
// build. The demo's own transcripts (registry_demo_test.go) are played
// wherever the demo is built.
const productRegistryTested = false
