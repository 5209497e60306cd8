//go:build linux && !(mips || mipsle || mips64 || mips64le)

// The seccomp filter (confine_seccomp_linux.go), run here by a BPF
// interpreter over every call it decides, for each architecture it has
// numbers for: installing it would confine the test process.
// TestConfinedChild installs it in a child.

package main

import (
	"encoding/binary"
	"syscall"
	"testing"
)

// runSeccomp runs prog over a struct seccomp_data of the call nr with
// args on the architecture arch, as the kernel would, and returns the
// action; it fails the test on an instruction the filter should not use
// or a jump outside the program.
func runSeccomp(tb testing.TB, prog []sockFilter, arch, nr uint32, args [6]uint64) uint32 {
	tb.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[0:], nr)
	binary.LittleEndian.PutUint32(data[4:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[16+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.code {
		case bpfLoadWord:
			if in.k%4 != 0 || in.k+4 > uint32(len(data)) {
				tb.Fatalf("instruction %d loads at %d", pc, in.k)
			}
			acc = binary.LittleEndian.Uint32(data[in.k:])
		case bpfJumpEq, bpfJumpGE, bpfJumpSet:
			taken := map[uint16]bool{bpfJumpEq: acc == in.k, bpfJumpGE: acc >= in.k, bpfJumpSet: acc&in.k != 0}[in.code]
			if taken {
				pc += int(in.jt)
			} else {
				pc += int(in.jf)
			}
		case bpfReturn:
			return in.k
		default:
			tb.Fatalf("instruction %d has code %#x", pc, in.code)
		}
	}
	tb.Fatalf("the program ran off its end")
	return 0
}

func TestSeccompFilter(t *testing.T) {
	const (
		allow  = seccompRetAllow
		eacces = seccompRetErrno | uint32(syscall.EACCES)
		eperm  = seccompRetErrno | uint32(syscall.EPERM)
		enosys = seccompRetErrno | uint32(syscall.ENOSYS)
	)
	for _, goarch := range []string{"amd64", "arm64"} {
		n, ok := seccompCallsOf(goarch)
		if !ok {
			t.Fatalf("no numbers for %s", goarch)
		}
		prog := seccompFilter(n)
		const read, connect, bind = 1000, 1001, 1002 // numbers the filter does not name on either
		for _, tt := range []struct {
			name string
			arch uint32 // 0: native
			nr   uint32
			args [6]uint64
			want uint32
		}{
			{"another architecture's call", 0x40000003, n.socket, [6]uint64{afInet, 1, 0}, eperm},
			{"an unnamed call", 0, read, [6]uint64{}, allow},
			{"TCP socket", 0, n.socket, [6]uint64{afInet, syscall.SOCK_STREAM | syscall.SOCK_CLOEXEC, 0}, allow},
			{"TCP socket by number", 0, n.socket, [6]uint64{afInet6, syscall.SOCK_STREAM, ipprotoTCP}, allow},
			{"UDP socket", 0, n.socket, [6]uint64{afInet6, syscall.SOCK_DGRAM, ipprotoUDP}, allow},
			{"ping socket", 0, n.socket, [6]uint64{afInet, syscall.SOCK_DGRAM, ipprotoICMP}, allow},
			{"unix socket", 0, n.socket, [6]uint64{afUnix, syscall.SOCK_STREAM, 0}, allow},
			{"netlink socket", 0, n.socket, [6]uint64{afNetlink, syscall.SOCK_RAW, 0}, allow},
			{"netlink sock_diag socket", 0, n.socket, [6]uint64{afNetlink, syscall.SOCK_DGRAM, 4}, eacces},
			{"netlink netfilter socket", 0, n.socket, [6]uint64{afNetlink, syscall.SOCK_RAW, 12}, eacces},
			{"an int's high bits ignored", 0, n.socket, [6]uint64{1<<32 | afInet, syscall.SOCK_STREAM, 1<<40 | 0}, allow},
			{"MPTCP socket", 0, n.socket, [6]uint64{afInet, syscall.SOCK_STREAM, ipprotoMPTCP}, eacces},
			{"MPTCP socket over IPv6", 0, n.socket, [6]uint64{afInet6, syscall.SOCK_STREAM, ipprotoMPTCP}, eacces},
			{"SCTP socket", 0, n.socket, [6]uint64{afInet, syscall.SOCK_SEQPACKET, ipprotoSCTP}, eacces},
			{"raw IP socket", 0, n.socket, [6]uint64{afInet, syscall.SOCK_RAW, syscall.IPPROTO_RAW}, eacces},
			{"SMC socket", 0, n.socket, [6]uint64{43, syscall.SOCK_STREAM, 0}, eacces},
			{"packet socket", 0, n.socket, [6]uint64{syscall.AF_PACKET, syscall.SOCK_RAW, 0x300}, eacces},
			{"vsock", 0, n.socket, [6]uint64{40, syscall.SOCK_STREAM, 0}, eacces},
			{"listen", 0, n.listen, [6]uint64{3, 128}, eacces},
			{"connect", 0, connect, [6]uint64{}, allow},
			{"bind", 0, bind, [6]uint64{}, allow},
			{"memfd_create", 0, n.memfd, [6]uint64{}, eperm},
			{"memfd_secret", 0, sysMemfdSecret, [6]uint64{}, eperm},
			{"execveat", 0, n.execveat, [6]uint64{}, eperm},
			{"io_uring_setup", 0, sysIOURingSetup, [6]uint64{}, eperm},
			{"io_uring_enter", 0, sysIOURingEnter, [6]uint64{}, eperm},
			{"io_uring_register", 0, sysIOURingRegister, [6]uint64{}, eperm},
			{"fchmod 0755", 0, n.fchmod, [6]uint64{3, 0o755}, allow},
			{"fchmod setuid", 0, n.fchmod, [6]uint64{3, 0o4755}, eperm},
			{"fchmodat 0644", 0, n.fchmodat, [6]uint64{3, 0, 0o644}, allow},
			{"fchmodat setgid", 0, n.fchmodat, [6]uint64{3, 0, 0o2755}, eperm},
			{"fchmodat2 setuid", 0, sysFchmodat2, [6]uint64{3, 0, 0o4700, 0}, eperm},
			// The fifth review's doors (docs/SECURITY.md, "Fifth review").
			{"SOCK_SEQPACKET's default IP protocol (SCTP)", 0, n.socket, [6]uint64{afInet, syscall.SOCK_SEQPACKET | syscall.SOCK_CLOEXEC, 0}, eacces},
			{"SOCK_PACKET over AF_INET", 0, n.socket, [6]uint64{afInet, syscall.SOCK_PACKET, 0x300}, eacces},
			{"SOCK_DCCP", 0, n.socket, [6]uint64{afInet6, 6, 0}, eacces},
			{"TCP socket, non-blocking", 0, n.socket, [6]uint64{afInet, syscall.SOCK_STREAM | syscall.SOCK_NONBLOCK | syscall.SOCK_CLOEXEC, 0}, allow},
			{"sendto", 0, n.sendto, [6]uint64{3, 0, 1, syscall.MSG_NOSIGNAL}, allow},
			{"sendto MSG_FASTOPEN", 0, n.sendto, [6]uint64{3, 0, 1, msgFastOpen}, eacces},
			{"sendmsg", 0, n.sendmsg, [6]uint64{3, 0, syscall.MSG_DONTWAIT}, allow},
			{"sendmsg MSG_FASTOPEN", 0, n.sendmsg, [6]uint64{3, 0, msgFastOpen}, eacces},
			{"sendmmsg MSG_FASTOPEN", 0, n.sendmmsg, [6]uint64{3, 0, 1, msgFastOpen}, eacces},
			{"openat 0644", 0, n.openat, [6]uint64{3, 0, syscall.O_CREAT, 0o644}, allow},
			{"openat setuid", 0, n.openat, [6]uint64{3, 0, syscall.O_CREAT, 0o4755}, eperm},
			{"mknodat setgid", 0, n.mknodat, [6]uint64{3, 0, syscall.S_IFREG | 0o2755, 0}, eperm},
			{"openat2", 0, sysOpenat2, [6]uint64{3, 0, 0, 24}, enosys},
			{"ioctl TCGETS", 0, n.ioctl, [6]uint64{2, syscall.TCGETS}, allow},
			{"ioctl TIOCSTI", 0, n.ioctl, [6]uint64{2, syscall.TIOCSTI}, eperm},
			{"ioctl TIOCLINUX", 0, n.ioctl, [6]uint64{0, syscall.TIOCLINUX}, eperm},
			{"prlimit of itself", 0, n.prlimit, [6]uint64{0, syscall.RLIMIT_NOFILE}, allow},
			{"prlimit of another process", 0, n.prlimit, [6]uint64{1, syscall.RLIMIT_CPU}, eperm},
			{"sched_setaffinity of another process", 0, n.schedSetaffinity, [6]uint64{1 << 31, 8}, eperm},
			{"sched_setscheduler of itself", 0, n.schedSetscheduler, [6]uint64{0, 0}, allow},
			{"sched_setscheduler of another process", 0, n.schedSetscheduler, [6]uint64{42, 5}, eperm},
			{"sched_setparam of another process", 0, n.schedSetparam, [6]uint64{42}, eperm},
			{"sched_setattr of another process", 0, n.schedSetattr, [6]uint64{42}, eperm},
			{"setpriority of itself", 0, n.setpriority, [6]uint64{prioProcess, 0, 10}, allow},
			{"setpriority of another process", 0, n.setpriority, [6]uint64{prioProcess, 42, 19}, eperm},
			{"setpriority of its process group", 0, n.setpriority, [6]uint64{1, 0, 19}, eperm},
			{"setpriority of its user", 0, n.setpriority, [6]uint64{2, 0, 19}, eperm},
			{"ioprio_set of itself", 0, n.ioprioSet, [6]uint64{ioprioWhoProcess, 0, 0}, allow},
			{"ioprio_set of another process", 0, n.ioprioSet, [6]uint64{ioprioWhoProcess, 42, 0}, eperm},
			{"ioprio_set of its user", 0, n.ioprioSet, [6]uint64{3, 0, 0}, eperm},
			{"add_key", 0, n.addKey, [6]uint64{}, eperm},
			{"request_key", 0, n.requestKey, [6]uint64{}, eperm},
			{"keyctl", 0, n.keyctl, [6]uint64{0, 1<<32 - 4, 1}, eperm},
			{"clone of a thread", 0, n.clone, [6]uint64{0x3d0f00}, allow},
			{"clone into a new user namespace", 0, n.clone, [6]uint64{cloneNewUser | 17}, eperm},
			{"unshare of the mount namespace", 0, n.unshare, [6]uint64{syscall.CLONE_NEWNS}, allow},
			{"unshare of the user namespace", 0, n.unshare, [6]uint64{cloneNewUser}, eperm},
			{"clone3", 0, sysClone3, [6]uint64{0, 88}, enosys},
		} {
			t.Run(goarch+"/"+tt.name, func(t *testing.T) {
				arch := tt.arch
				if arch == 0 {
					arch = n.audit
				}
				if got := runSeccomp(t, prog, arch, tt.nr, tt.args); got != tt.want {
					t.Errorf("filter(arch %#x, call %d, %v) = %#x, want %#x", arch, tt.nr, tt.args, got, tt.want)
				}
			})
		}
		if n.chmod != 0 {
			for mode, want := range map[uint64]uint32{0o700: allow, 0o4700: eperm} {
				for _, c := range []struct {
					name string
					nr   uint32
					args [6]uint64
				}{
					{"chmod", n.chmod, [6]uint64{0, mode}},
					{"creat", n.creat, [6]uint64{0, mode}},
					{"mknod", n.mknod, [6]uint64{0, syscall.S_IFREG | mode}},
					{"open", n.open, [6]uint64{0, syscall.O_CREAT, mode}},
				} {
					if got := runSeccomp(t, prog, n.audit, c.nr, c.args); got != want {
						t.Errorf("%s: %s %o = %#x, want %#x", goarch, c.name, mode, got, want)
					}
				}
			}
		}
		if n.x32 {
			if got := runSeccomp(t, prog, n.audit, 0x40000000|n.socket, [6]uint64{afInet, 1, 0}); got != eperm {
				t.Errorf("%s: an x32 call = %#x, want EPERM", goarch, got)
			}
		}
	}
	if _, ok := seccompCallsOf("s390x"); ok {
		t.Errorf("an architecture without numbers written here has a filter")
	}
}
