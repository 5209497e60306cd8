//go:build !(demo || conformance || bench)

// The untagged build serves the product's registry: the demo's
// (registry_demo.go) in this repository, or your own once you have
// replaced it.

package main

// productRegistryTested reports whether transcripts that name the
// product's registry (registry: product) are played: in the untagged
// build, they are.
const productRegistryTested = true
