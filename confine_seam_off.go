//go:build !(confinetest && linux)

// The product, and any build but a Linux confinetest one, has no test
// seam for self-confinement: it takes the kernel's word, adds no tools
// and relaunches itself (confine_seam.go is the confinetest build's).
//
// Spec: none (build configuration).

package main

// simulatedLandlock never lowers what the kernel offers.
func simulatedLandlock(func(string) string) (abi int, why string, ok bool) { return 0, "", false }

// addConfineTestTools adds nothing.
func addConfineTestTools(*server, func(string) string) {}

// relaunchExecutable is this binary.
func relaunchExecutable(func(string) string) string { return selfExe }
