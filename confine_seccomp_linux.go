//go:build linux && !(mips || mipsle || mips64 || mips64le)

// The seccomp filter of self-confinement: the system calls Landlock does
// not see, refused on every thread once the process serves. Landlock's
// TCP rules cover IPPROTO_TCP sockets alone, so the filter refuses the
// other socket kinds that carry a stream (MPTCP, which falls back to
// TCP; SCTP; SMC and the families beyond unix, IP and netlink), and
// listen, which binds an ephemeral port without a bind; it refuses
// io_uring (its operations bypass system-call filters), memfd_create and
// memfd_secret (a file no Landlock rule covers, which could then be
// executed), execveat (nothing here needs it), and setting the setuid or
// setgid bit (metadata Landlock does not restrict). Calls of another
// architecture's numbering (the x86 32-bit and x32 entry points) are
// refused whole. It is a classic BPF program over struct seccomp_data.
//
// Spec: https://docs.kernel.org/userspace-api/seccomp_filter.html,
// seccomp(2), include/uapi/linux/seccomp.h, include/uapi/linux/filter.h,
// include/uapi/linux/audit.h (AUDIT_ARCH_*), the system call tables
// arch/x86/entry/syscalls/syscall_64.tbl and
// include/uapi/asm-generic/unistd.h (arm64).

package main

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"unsafe"
)

// The seccomp interface, from include/uapi/linux/seccomp.h and prctl.h.
const (
	seccompSetModeFilter   = 1
	seccompGetActionAvail  = 2
	seccompFilterFlagTSync = 1 << 0
	seccompRetAllow        = 0x7fff0000
	seccompRetErrno        = 0x00050000
	seccompModeFilter      = 2 // what prctl(PR_GET_SECCOMP) answers under a filter
	prGetSeccomp           = 21
)

// Classic BPF, from include/uapi/linux/filter.h and bpf_common.h: the
// four instructions the filter uses.
const (
	bpfLoadWord = 0x00 | 0x00 | 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJumpEq   = 0x05 | 0x10 | 0x00 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJumpGE   = 0x05 | 0x30 | 0x00 // BPF_JMP | BPF_JGE | BPF_K
	bpfJumpSet  = 0x05 | 0x40 | 0x00 // BPF_JMP | BPF_JSET | BPF_K
	bpfReturn   = 0x06 | 0x00        // BPF_RET | BPF_K
)

// Offsets in struct seccomp_data: the call's number, the architecture,
// and the low 32 bits of an argument (the architectures here are little
// endian, and every argument checked is an int).
const (
	seccompNr   = 0
	seccompArch = 4
)

// seccompArg is the offset of argument i's low 32 bits.
func seccompArg(i int) uint32 { return uint32(16 + 8*i) }

// The values the filter compares arguments with (socket(2), inode(7)).
const (
	afUnix       = 1
	afInet       = 2
	afInet6      = 10
	afNetlink    = 16
	ipprotoIP    = 0 // the family's default protocol: TCP for a stream, UDP for datagrams
	ipprotoICMP  = 1
	ipprotoTCP   = 6
	ipprotoUDP   = 17
	ipprotoICMP6 = 58
	ipprotoSCTP  = 132
	ipprotoMPTCP = 262
	modeSetID    = 0o6000 // S_ISUID | S_ISGID
)

// seccompCalls are the numbers of the calls the filter looks at, on one
// architecture; zero is "this architecture has no such call".
type seccompCalls struct {
	audit    uint32 // AUDIT_ARCH_*: seccomp_data.arch of a native call
	x32      bool   // numbers at and above 0x40000000 are another ABI's (x86-64's x32)
	socket   uint32
	listen   uint32
	chmod    uint32
	fchmod   uint32
	fchmodat uint32
	memfd    uint32
	execveat uint32
	seccomp  uint32 // seccomp(2) itself, which package syscall does not number everywhere
}

// Calls added since Linux 5.1 have one number on every architecture.
const (
	sysIOURingSetup    = 425
	sysIOURingEnter    = 426
	sysIOURingRegister = 427
	sysMemfdSecret     = 447
	sysFchmodat2       = 452
)

// seccompArchCalls returns this architecture's numbers, and false where
// none are written here: the filter is then not installed, and the
// start-up line says so (-confine=required refuses to start).
func seccompArchCalls() (seccompCalls, bool) { return seccompCallsOf(runtime.GOARCH) }

// seccompCallsOf returns the numbers of the architecture goarch.
func seccompCallsOf(goarch string) (seccompCalls, bool) {
	switch goarch {
	case "amd64":
		return seccompCalls{audit: 0xc000003e, x32: true, socket: 41, listen: 50, chmod: 90, fchmod: 91, fchmodat: 268, memfd: 319, execveat: 322, seccomp: 317}, true
	case "arm64":
		return seccompCalls{audit: 0xc00000b7, socket: 198, listen: 201, fchmod: 52, fchmodat: 53, memfd: 279, execveat: 281, seccomp: 277}, true
	}
	return seccompCalls{}, false
}

// sockFilter is struct sock_filter, one BPF instruction.
type sockFilter struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

// sockFprog is struct sock_fprog.
type sockFprog struct {
	len    uint16
	filter *sockFilter
}

// bpfAsm assembles a BPF program whose jumps name labels, all forward.
type bpfAsm struct {
	prog   []sockFilter
	labels map[string]int
	jumps  []bpfJump
}

// bpfJump is a jump to resolve: instruction at, to label when true
// (else the next instruction).
type bpfJump struct {
	at    int
	label string
}

func (a *bpfAsm) load(off uint32) { a.prog = append(a.prog, sockFilter{code: bpfLoadWord, k: off}) }
func (a *bpfAsm) ret(v uint32)    { a.prog = append(a.prog, sockFilter{code: bpfReturn, k: v}) }
func (a *bpfAsm) label(name string) {
	a.labels[name] = len(a.prog)
}

// jump appends a conditional jump (bpfJumpEq, GE or Set with k) to label
// when it holds.
func (a *bpfAsm) jump(code uint16, k uint32, label string) {
	a.jumps = append(a.jumps, bpfJump{len(a.prog), label})
	a.prog = append(a.prog, sockFilter{code: code, k: k})
}

// done resolves the jumps; it panics on a label that is missing or too
// far (a programming error TestSeccompFilter finds).
func (a *bpfAsm) done() []sockFilter {
	for _, j := range a.jumps {
		to, ok := a.labels[j.label]
		off := to - j.at - 1
		if !ok || off < 0 || off > 255 {
			panic(fmt.Sprintf("seccomp filter: jump to %q from %d unresolvable", j.label, j.at))
		}
		a.prog[j.at].jt = uint8(off)
	}
	return a.prog
}

// seccompFilter is the filter for the architecture whose numbers are n.
// TestSeccompFilter runs it over every call it decides.
func seccompFilter(n seccompCalls) []sockFilter {
	a := &bpfAsm{labels: map[string]int{}}
	a.load(seccompArch)
	a.jump(bpfJumpEq, n.audit, "native")
	a.ret(seccompRetErrno | uint32(syscall.EPERM))
	a.label("native")
	a.load(seccompNr)
	if n.x32 {
		a.jump(bpfJumpGE, 0x40000000, "eperm")
	}
	calls := []struct {
		nr    uint32
		label string
	}{
		{n.socket, "socket"},
		{n.listen, "eacces"},
		{n.memfd, "eperm"},
		{sysMemfdSecret, "eperm"},
		{n.execveat, "eperm"},
		{sysIOURingSetup, "eperm"},
		{sysIOURingEnter, "eperm"},
		{sysIOURingRegister, "eperm"},
		{n.chmod, "mode1"},
		{n.fchmod, "mode1"},
		{n.fchmodat, "mode2"},
		{sysFchmodat2, "mode2"},
	}
	for _, c := range calls {
		if c.nr != 0 {
			a.jump(bpfJumpEq, c.nr, c.label)
		}
	}
	a.ret(seccompRetAllow)

	// socket(family, type, protocol): unix and netlink as they come; IP
	// with TCP, UDP, ICMP (ping sockets) or the default protocol; any
	// other family or protocol refused.
	a.label("socket")
	a.load(seccompArg(0))
	a.jump(bpfJumpEq, afUnix, "allow")
	a.jump(bpfJumpEq, afNetlink, "allow")
	a.jump(bpfJumpEq, afInet, "inet")
	a.jump(bpfJumpEq, afInet6, "inet")
	a.ret(seccompRetErrno | uint32(syscall.EACCES))
	a.label("inet")
	a.load(seccompArg(2))
	for _, proto := range []uint32{ipprotoIP, ipprotoTCP, ipprotoUDP, ipprotoICMP, ipprotoICMP6} {
		a.jump(bpfJumpEq, proto, "allow")
	}
	a.ret(seccompRetErrno | uint32(syscall.EACCES))

	// chmod(path, mode), fchmod(fd, mode): the mode is argument 1;
	// fchmodat(dirfd, path, mode[, flags]): argument 2.
	a.label("mode1")
	a.load(seccompArg(1))
	a.jump(bpfJumpSet, modeSetID, "eperm")
	a.ret(seccompRetAllow)
	a.label("mode2")
	a.load(seccompArg(2))
	a.jump(bpfJumpSet, modeSetID, "eperm")
	a.ret(seccompRetAllow)

	a.label("allow")
	a.ret(seccompRetAllow)
	a.label("eacces")
	a.ret(seccompRetErrno | uint32(syscall.EACCES))
	a.label("eperm")
	a.ret(seccompRetErrno | uint32(syscall.EPERM))
	return a.done()
}

// seccompSupport says why the filter cannot be installed here, or nil:
// no numbers for this architecture, or a kernel without seccomp filters
// (or one where a filter cannot answer with an errno).
func seccompSupport() error {
	n, ok := seccompArchCalls()
	if !ok {
		return fmt.Errorf("no filter written for %s", runtime.GOARCH)
	}
	action := uint32(seccompRetErrno)
	if _, _, errno := syscall.RawSyscall(uintptr(n.seccomp), seccompGetActionAvail, 0, uintptr(unsafe.Pointer(&action))); errno != 0 {
		return fmt.Errorf("this kernel has no seccomp filters (%w)", errno)
	}
	return nil
}

// installSeccomp installs the filter on the calling thread, or, with
// allThreads, on every thread of the process at once
// (SECCOMP_FILTER_FLAG_TSYNC, which also gives each the calling thread's
// no_new_privs). The caller has set no_new_privs on its thread and holds
// it (runtime.LockOSThread) across both calls.
func installSeccomp(allThreads bool) error {
	n, ok := seccompArchCalls()
	if !ok {
		return errors.New("confine: seccomp: no filter for this architecture")
	}
	prog := seccompFilter(n)
	fprog := sockFprog{len: uint16(len(prog)), filter: &prog[0]}
	flags := uintptr(0)
	if allThreads {
		flags = seccompFilterFlagTSync
	}
	r, _, errno := syscall.RawSyscall(uintptr(n.seccomp), seccompSetModeFilter, flags, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	switch {
	case errno != 0:
		return fmt.Errorf("confine: seccomp: %w", errno)
	case r != 0:
		return fmt.Errorf("confine: seccomp: thread %d could not take the filter", r)
	}
	return nil
}

// seccompEnforced names what the filter refuses, in the start-up line.
const seccompEnforced = "system calls (seccomp: MPTCP, SCTP and socket families beyond unix, IP and netlink; listen; io_uring; memfd; execveat; setuid and setgid bits)"
