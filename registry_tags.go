//go:build (conformance && bench) || (conformance && demo) || (bench && demo)

// The registry build tags exclude each other: conformance
// (registry_conformance.go), bench (registry_bench.go) and demo
// (registry_demo.go) each choose the one registry a binary serves, so a
// build with two of them would have two or none. This file exists only in
// such a build, and stops it with an error whose identifier says why.
// Build with at most one of the three tags.
//
// Spec: none (build configuration).

package main

// The compiler reports this line as "undefined: ...": the name is the
// message.
var _ = build_tags_conformance_bench_and_demo_exclude_each_other_use_at_most_one
