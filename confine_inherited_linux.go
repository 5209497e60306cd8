//go:build linux && !(mips || mipsle || mips64 || mips64le)

// What the process inherited and gives up before it serves: its
// capabilities (effective, permitted, inheritable, ambient, and the
// bounding set where it may empty it), and the descriptors its parent
// left open beyond standard input, output and error.
//
// Spec: capabilities(7) ("Thread capability sets", "Capability bounding
// set"), capset(2), prctl(2) PR_CAPBSET_READ and PR_CAPBSET_DROP;
// open(2) O_CLOEXEC, proc_pid_fd(5).

package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"unsafe"
)

// The capability interface, from include/uapi/linux/capability.h and
// prctl.h.
const (
	linuxCapabilityVersion3 = 0x20080522
	prCapbsetRead           = 23
	prCapbsetDrop           = 24
	capSetpcap              = 8
)

// capHeader and capData are struct __user_cap_header_struct and
// __user_cap_data_struct; version 3 takes two of the latter (the low and
// the high 32 capabilities).
type capHeader struct {
	version uint32
	pid     int32
}

type capData struct {
	effective, permitted, inheritable uint32
}

// heldCaps is what the calling thread holds. The ambient set is always
// within permitted and inheritable, so it is empty when they are.
type heldCaps struct {
	effective, permitted, inheritable, bounding uint64
}

// readCaps returns what the calling thread holds (every thread holds
// the same until one changes its own).
func readCaps() (heldCaps, error) {
	hdr := capHeader{version: linuxCapabilityVersion3}
	var data [2]capData
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); errno != 0 {
		return heldCaps{}, fmt.Errorf("confine: capget: %w", errno)
	}
	h := heldCaps{
		effective:   uint64(data[1].effective)<<32 | uint64(data[0].effective),
		permitted:   uint64(data[1].permitted)<<32 | uint64(data[0].permitted),
		inheritable: uint64(data[1].inheritable)<<32 | uint64(data[0].inheritable),
	}
	for c := range 64 {
		r, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prCapbsetRead, uintptr(c), 0)
		if errno != 0 {
			break // EINVAL: past the kernel's last capability
		}
		if r == 1 {
			h.bounding |= 1 << c
		}
	}
	return h, nil
}

// held reports whether the thread holds any capability it could use.
func (h heldCaps) held() bool { return h.effective|h.permitted|h.inheritable != 0 }

// mayEmptyBounding reports whether the thread may empty its bounding set
// (CAP_SETPCAP, as root has) and has one to empty. Only a thread can
// drop from its own, one capability at a time: the whole process at once
// means stopping the world once per capability (routeRelaunch instead).
func (h heldCaps) mayEmptyBounding() bool {
	return h.effective&(1<<capSetpcap) != 0 && h.bounding != 0
}

// emptyCapsThisThread drops every capability of the calling thread,
// which the caller holds (runtime.LockOSThread): the bounding set first,
// while CAP_SETPCAP is still effective, then the others (the ambient set
// with them). A thread that cannot empty its bounding set keeps it.
func emptyCapsThisThread(h heldCaps) error {
	if h.mayEmptyBounding() {
		for c := range 64 {
			if h.bounding&(1<<c) == 0 {
				continue
			}
			if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prCapbsetDrop, uintptr(c), 0); errno != 0 {
				return fmt.Errorf("confine: dropping capability %d from the bounding set: %w", c, errno)
			}
		}
	}
	hdr := capHeader{version: linuxCapabilityVersion3}
	var data [2]capData
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); errno != 0 {
		return fmt.Errorf("confine: capset: %w", errno)
	}
	return nil
}

// emptyCapsAllThreads drops the effective, permitted, inheritable and
// ambient capabilities of every thread at once (one stop of the world).
func emptyCapsAllThreads() error {
	hdr := capHeader{version: linuxCapabilityVersion3}
	var data [2]capData
	_, _, errno := syscall.AllThreadsSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
	runtime.KeepAlive(&hdr)
	runtime.KeepAlive(&data)
	if errno != 0 {
		return fmt.Errorf("confine: capset on every thread: %w", allThreadsErr(errno))
	}
	return nil
}

// capsReport is what the start-up line says of capabilities, h being
// what the process held before, dropped whether they were dropped and
// emptied whether the bounding set was emptied too: none kept, and,
// where the process held some and its bounding set stays (in process, or
// without CAP_SETPCAP), that it was kept: it grants nothing without a
// permitted capability, under no_new_privs (the state of every
// unprivileged process).
func capsReport(h heldCaps, dropped, emptied bool, r *confineReport) {
	switch {
	case !h.held():
		r.enforced = append(r.enforced, "no capabilities")
	case !dropped:
		r.missing = append(r.missing, "capabilities (this binary links cgo, whose every thread only a relaunch reaches)")
	default:
		r.enforced = append(r.enforced, "no capabilities")
		if h.bounding != 0 && !emptied {
			r.off = append(r.off, "the capability bounding set (kept: a thread empties only its own, and this process may not or did not relaunch; with nothing permitted and no new privileges it grants nothing)")
		}
	}
}

// fdCloexec is FD_CLOEXEC, which package syscall names only on some
// systems.
const fdCloexec = 1

// closeInherited closes every descriptor above standard error that the
// process did not open itself, and describes each as /proc/self/fd links
// it ("3 (pipe:[81])", "7 (/home/u/build.log)"). Go opens each of its own
// (os, net, the runtime's poller) with close-on-exec, so a descriptor
// without it came from the parent, still open across its exec; so would
// one the registry opened through package syscall without O_CLOEXEC,
// which would leak into every program the server ran anyway. keep are
// descriptors to leave open whatever their flag (a relaunch's own).
func closeInherited(keep ...int) ([]string, error) {
	dir, err := os.Open("/proc/self/fd")
	if err != nil {
		return nil, fmt.Errorf("confine: listing the descriptors: %w", err)
	}
	names, err := dir.Readdirnames(-1)
	dir.Close()
	if err != nil {
		return nil, fmt.Errorf("confine: listing the descriptors: %w", err)
	}
	var closed []string
	for _, name := range names {
		fd, err := strconv.Atoi(name)
		if err != nil || fd <= 2 || slices.Contains(keep, fd) {
			continue
		}
		flags, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
		if errno != 0 || flags&fdCloexec != 0 {
			continue // the listing's own descriptor, closed since, or ours
		}
		target, _ := os.Readlink("/proc/self/fd/" + name)
		if err := syscall.Close(fd); err != nil {
			return closed, fmt.Errorf("confine: closing inherited descriptor %d: %w", fd, err)
		}
		closed = append(closed, name+" ("+target+")")
	}
	return closed, nil
}

// inheritedReport is what the start-up line says of inherited
// descriptors.
func inheritedReport(closed []string, err error, r *confineReport) {
	switch {
	case err != nil:
		r.missing = append(r.missing, "inherited descriptors ("+err.Error()+")")
	case len(closed) == 0:
		r.enforced = append(r.enforced, "no inherited descriptors beyond standard streams")
	default:
		r.enforced = append(r.enforced, fmt.Sprintf("inherited descriptors closed (%s)", joinShort(closed)))
	}
}

// joinShort joins a list for the start-up line, saying how many past
// the eighth.
func joinShort(l []string) string {
	const most = 8
	s := ""
	for i, x := range l {
		if i == most {
			return s + fmt.Sprintf(" and %d more", len(l)-most)
		}
		if i > 0 {
			s += ", "
		}
		s += x
	}
	return s
}
