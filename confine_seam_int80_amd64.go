//go:build confinetest && linux && amd64

// x86's 32-bit system call entry point, reached from a 64-bit process by
// int 0x80 (confine_seam_int80_amd64.s), for the confinetest build's int80
// tool (confine_seam_attacks.go): the seccomp filter must refuse every
// call that comes in through it.
//
// Spec: arch/x86/entry/entry_64_compat.S (entry_INT80_compat),
// arch/x86/entry/syscalls/syscall_32.tbl.

package main

// int80x is int 0x80 with eax = nr and ebx, ecx, edx = a1, a2, a3; it
// returns eax.
func int80x(nr, a1, a2, a3 uintptr) uintptr

// int80 makes the 32-bit call nr; ok is true on this architecture.
func int80(nr, a1, a2, a3 uintptr) (r uintptr, ok bool) { return int80x(nr, a1, a2, a3), true }

// Numbers package syscall lacks on amd64 (syscall_64.tbl).
const (
	sysSetns          = 308
	sysProcessVMReadv = 310
)
