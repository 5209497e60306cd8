//go:build linux && !(mips || mipsle || mips64 || mips64le)

// The seccomp filter of self-confinement: the system calls Landlock does
// not see, refused on every thread once the process serves. Landlock's
// TCP rules cover IPPROTO_TCP sockets reached by connect and bind alone,
// so the filter refuses the other socket kinds that carry a stream
// (MPTCP, which falls back to TCP; SCTP, asked for by number or as
// SOCK_SEQPACKET's default; SMC and the families beyond unix, IP and
// netlink; netlink beyond its routing protocol, whose sock_diag lists
// every socket of the host as /proc/net/tcp would), listen, which binds an ephemeral port without a bind, and
// TCP Fast Open (MSG_FASTOPEN), whose sendto connects without connect;
// it refuses io_uring (its operations bypass system-call filters),
// memfd_create and memfd_secret (a file no Landlock rule covers, which
// could then be executed), execveat (nothing here needs it), and the
// setuid or setgid bit, set or created with (metadata Landlock does not
// restrict; openat2, whose mode the filter cannot read, answers ENOSYS,
// so that callers fall back to openat). It closes what Landlock does not
// scope outside the process: typing into a terminal (TIOCSTI,
// TIOCLINUX), another process's resource limits, priority, CPUs,
// scheduling and I/O priority (the pid must be 0: the caller), the
// kernel's keyrings (the user's keyring outlives the process and holds
// credentials), and new user namespaces (capabilities in a namespace of
// their own, the usual door to the kernel's less trodden code; clone3,
// whose flags the filter cannot read, answers ENOSYS, so that glibc
// falls back to clone). Calls of another architecture's numbering (the
// x86 32-bit and x32 entry points) are refused whole. It is a classic
// BPF program over struct seccomp_data.
//
// Spec: https://docs.kernel.org/userspace-api/seccomp_filter.html,
// seccomp(2), include/uapi/linux/seccomp.h, include/uapi/linux/filter.h,
// include/uapi/linux/audit.h (AUDIT_ARCH_*), the system call tables
// arch/x86/entry/syscalls/syscall_64.tbl and
// include/uapi/asm-generic/unistd.h (arm64); socket(2), tcp(7)
// (MSG_FASTOPEN), ioctl_tty(2) (TIOCSTI), prlimit(2), setpriority(2),
// ioprio_set(2), keyctl(2), user_namespaces(7).

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
	bpfJumpSet  = 0x05 | 0x40 | 0x00 // BPF_JMP | BPF_JSET | BPF_K; with k = ^0, "is not zero"
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
	netlinkRoute = 0 // NETLINK_ROUTE (netlink(7)); NETLINK_SOCK_DIAG, among others, lists the host's sockets
	ipprotoIP    = 0 // the family's default protocol: TCP for a stream, UDP for datagrams
	ipprotoICMP  = 1
	ipprotoTCP   = 6
	ipprotoUDP   = 17
	ipprotoICMP6 = 58
	ipprotoSCTP  = 132
	ipprotoMPTCP = 262
	modeSetID    = 0o6000 // S_ISUID | S_ISGID
	// sockTypeBeyondRaw is the bits of a socket type (its low four bits,
	// SOCK_TYPE_MASK) that SOCK_STREAM, SOCK_DGRAM and SOCK_RAW (1 to 3)
	// lack and every other type has: SOCK_SEQPACKET, whose default IP
	// protocol is SCTP; SOCK_DCCP; SOCK_PACKET, which AF_INET turns into
	// a packet socket.
	sockTypeBeyondRaw = 0xc
	msgFastOpen       = 0x20000000 // MSG_FASTOPEN: sendto and sendmsg connect
	tiocSTI           = 0x5412     // TIOCSTI: push a byte into a terminal's input
	tiocLinux         = 0x541c     // TIOCLINUX: a console's selection pasted into its input, among others
	prioProcess       = 0          // PRIO_PROCESS
	ioprioWhoProcess  = 1          // IOPRIO_WHO_PROCESS
	cloneNewUser      = 0x10000000 // CLONE_NEWUSER
	anyBit            = 0xffffffff // with bpfJumpSet: the value is not zero
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
	// Sending: sendto(fd, buf, len, flags, ...) and sendmmsg(fd, vec,
	// len, flags) have their flags in argument 3, sendmsg(fd, msg,
	// flags) in argument 2.
	sendto, sendmsg, sendmmsg uint32
	// Creating a file: open(path, flags, mode), creat(path, mode),
	// mknod(path, mode, dev) (amd64 alone); openat(dirfd, path, flags,
	// mode), mknodat(dirfd, path, mode, dev).
	open, creat, mknod, openat, mknodat uint32
	ioctl                               uint32
	// Calls on a process named by its pid, in argument 0: 0 is the
	// caller. setpriority and ioprio_set name it by (which, who).
	prlimit, schedSetparam, schedSetscheduler, schedSetaffinity, schedSetattr uint32
	setpriority, ioprioSet                                                    uint32
	addKey, requestKey, keyctl                                                uint32
	clone, unshare                                                            uint32 // flags in argument 0
}

// Calls added since Linux 5.1 have one number on every architecture.
const (
	sysIOURingSetup    = 425
	sysIOURingEnter    = 426
	sysIOURingRegister = 427
	sysMemfdSecret     = 447
	sysFchmodat2       = 452
	sysClone3          = 435
	sysOpenat2         = 437
)

// seccompArchCalls returns this architecture's numbers, and false where
// none are written here: the filter is then not installed, and the
// start-up line says so (-confine=required refuses to start).
func seccompArchCalls() (seccompCalls, bool) { return seccompCallsOf(runtime.GOARCH) }

// seccompCallsOf returns the numbers of the architecture goarch.
func seccompCallsOf(goarch string) (seccompCalls, bool) {
	switch goarch {
	case "amd64":
		return seccompCalls{audit: 0xc000003e, x32: true, socket: 41, listen: 50, chmod: 90, fchmod: 91, fchmodat: 268, memfd: 319, execveat: 322, seccomp: 317,
			sendto: 44, sendmsg: 46, sendmmsg: 307, open: 2, creat: 85, mknod: 133, openat: 257, mknodat: 259, ioctl: 16,
			prlimit: 302, schedSetparam: 142, schedSetscheduler: 144, schedSetaffinity: 203, schedSetattr: 314, setpriority: 141, ioprioSet: 251,
			addKey: 248, requestKey: 249, keyctl: 250, clone: 56, unshare: 272}, true
	case "arm64":
		return seccompCalls{audit: 0xc00000b7, socket: 198, listen: 201, fchmod: 52, fchmodat: 53, memfd: 279, execveat: 281, seccomp: 277,
			sendto: 206, sendmsg: 211, sendmmsg: 269, openat: 56, mknodat: 33, ioctl: 29,
			prlimit: 261, schedSetparam: 118, schedSetscheduler: 119, schedSetaffinity: 122, schedSetattr: 274, setpriority: 140, ioprioSet: 30,
			addKey: 217, requestKey: 218, keyctl: 219, clone: 220, unshare: 97}, true
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
		{n.creat, "mode1"},
		{n.mknod, "mode1"},
		{n.open, "mode2"},
		{n.mknodat, "mode2"},
		{n.openat, "mode3"},
		{sysOpenat2, "enosys"},
		{n.sendto, "send3"},
		{n.sendmmsg, "send3"},
		{n.sendmsg, "send2"},
		{n.ioctl, "ioctl"},
		{n.prlimit, "self"},
		{n.schedSetparam, "self"},
		{n.schedSetscheduler, "self"},
		{n.schedSetaffinity, "self"},
		{n.schedSetattr, "self"},
		{n.setpriority, "setpriority"},
		{n.ioprioSet, "ioprio"},
		{n.addKey, "eperm"},
		{n.requestKey, "eperm"},
		{n.keyctl, "eperm"},
		{n.clone, "clone"},
		{n.unshare, "clone"},
		{sysClone3, "enosys"},
	}
	for _, c := range calls {
		if c.nr != 0 {
			a.jump(bpfJumpEq, c.nr, c.label)
		}
	}
	a.ret(seccompRetAllow)

	// socket(family, type, protocol): unix as it comes; netlink's
	// routing protocol (the interfaces Go and glibc list); IP of type
	// stream, datagram or raw with TCP, UDP, ICMP (ping sockets) or the
	// default protocol; any other family, type or protocol refused.
	a.label("socket")
	a.load(seccompArg(0))
	a.jump(bpfJumpEq, afUnix, "allow")
	a.jump(bpfJumpEq, afNetlink, "netlink")
	a.jump(bpfJumpEq, afInet, "inet")
	a.jump(bpfJumpEq, afInet6, "inet")
	a.ret(seccompRetErrno | uint32(syscall.EACCES))
	a.label("netlink")
	a.load(seccompArg(2))
	a.jump(bpfJumpEq, netlinkRoute, "allow")
	a.ret(seccompRetErrno | uint32(syscall.EACCES))
	a.label("inet")
	a.load(seccompArg(1))
	a.jump(bpfJumpSet, sockTypeBeyondRaw, "eacces")
	a.load(seccompArg(2))
	for _, proto := range []uint32{ipprotoIP, ipprotoTCP, ipprotoUDP, ipprotoICMP, ipprotoICMP6} {
		a.jump(bpfJumpEq, proto, "allow")
	}
	a.ret(seccompRetErrno | uint32(syscall.EACCES))

	// The mode of chmod(path, mode), fchmod(fd, mode), creat and mknod
	// is argument 1; of fchmodat(dirfd, path, mode[, flags]), open and
	// mknodat, argument 2; of openat, argument 3.
	for i, label := range []string{"mode1", "mode2", "mode3"} {
		a.label(label)
		a.load(seccompArg(i + 1))
		a.jump(bpfJumpSet, modeSetID, "eperm")
		a.ret(seccompRetAllow)
	}

	// sendto and sendmmsg's flags are argument 3, sendmsg's argument 2.
	a.label("send3")
	a.load(seccompArg(3))
	a.jump(bpfJumpSet, msgFastOpen, "eacces")
	a.ret(seccompRetAllow)
	a.label("send2")
	a.load(seccompArg(2))
	a.jump(bpfJumpSet, msgFastOpen, "eacces")
	a.ret(seccompRetAllow)

	// ioctl(fd, request, ...): no input pushed into a terminal.
	a.label("ioctl")
	a.load(seccompArg(1))
	a.jump(bpfJumpEq, tiocSTI, "eperm")
	a.jump(bpfJumpEq, tiocLinux, "eperm")
	a.ret(seccompRetAllow)

	// A call on a process by its pid: the caller's own (0) alone.
	a.label("self")
	a.load(seccompArg(0))
	a.jump(bpfJumpSet, anyBit, "eperm")
	a.ret(seccompRetAllow)
	// setpriority(which, who, prio): PRIO_PROCESS and 0 alone (a process
	// group or a user holds other processes).
	a.label("setpriority")
	a.load(seccompArg(0))
	a.jump(bpfJumpSet, anyBit, "eperm")
	a.load(seccompArg(1))
	a.jump(bpfJumpSet, anyBit, "eperm")
	a.ret(seccompRetAllow)
	// ioprio_set(which, who, ioprio): IOPRIO_WHO_PROCESS and 0 alone.
	a.label("ioprio")
	a.load(seccompArg(0))
	a.jump(bpfJumpEq, ioprioWhoProcess, "ioprioWho")
	a.ret(seccompRetErrno | uint32(syscall.EPERM))
	a.label("ioprioWho")
	a.load(seccompArg(1))
	a.jump(bpfJumpSet, anyBit, "eperm")
	a.ret(seccompRetAllow)

	// clone(flags, ...) and unshare(flags): no new user namespace.
	a.label("clone")
	a.load(seccompArg(0))
	a.jump(bpfJumpSet, cloneNewUser, "eperm")
	a.ret(seccompRetAllow)

	a.label("allow")
	a.ret(seccompRetAllow)
	a.label("eacces")
	a.ret(seccompRetErrno | uint32(syscall.EACCES))
	a.label("eperm")
	a.ret(seccompRetErrno | uint32(syscall.EPERM))
	a.label("enosys")
	a.ret(seccompRetErrno | uint32(syscall.ENOSYS))
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
const seccompEnforced = "system calls (seccomp: MPTCP, SCTP and socket families beyond unix, IP and netlink routing; listen; TCP Fast Open; io_uring; memfd; execveat; setuid and setgid bits; terminal input; other processes' limits and priorities; keyrings; user namespaces)"
