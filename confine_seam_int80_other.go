//go:build confinetest && linux && !amd64

// Only amd64 has a 32-bit entry point a 64-bit process can reach by an
// instruction of its own (confine_seam_int80_amd64.go).
//
// Spec: none (test seam).

package main

import "syscall"

// int80 is not on this architecture.
func int80(nr, a1, a2, a3 uintptr) (r uintptr, ok bool) { return 0, false }

// Numbers package syscall lacks on amd64 alone.
const (
	sysSetns          = syscall.SYS_SETNS
	sysProcessVMReadv = syscall.SYS_PROCESS_VM_READV
)
