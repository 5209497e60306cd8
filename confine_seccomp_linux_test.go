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
				if got := runSeccomp(t, prog, n.audit, n.chmod, [6]uint64{0, mode}); got != want {
					t.Errorf("%s: chmod %o = %#x, want %#x", goarch, mode, got, want)
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
