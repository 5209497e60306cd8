//go:build linux && !(mips || mipsle || mips64 || mips64le)

// Self-confinement on Linux: every capability and inherited descriptor
// given up (confine_inherited_linux.go), then no_new_privs, the seccomp
// filter (confine_seccomp_linux.go) and Landlock, feature by feature at
// the kernel's ABI, on every thread: at once in process (enforce), or,
// where that cannot reach them all (cgo, a bounding set to empty), by a
// relaunch (confine_relaunch_linux.go).
//
// Spec: https://docs.kernel.org/userspace-api/landlock.html,
// include/uapi/linux/landlock.h, prctl(2) PR_SET_NO_NEW_PRIVS.
// MIPS numbers its system calls differently: it builds confine_other.go.

package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"unsafe"
)

// The Landlock system calls (one number on every architecture this file
// builds for) and their flags, from include/uapi/linux/landlock.h.
const (
	sysLandlockCreateRuleset = 444
	sysLandlockAddRule       = 445
	sysLandlockRestrictSelf  = 446

	landlockCreateRulesetVersion = 1 << 0
	landlockCreateRulesetErrata  = 1 << 1

	landlockRulePathBeneath = 1
	landlockRuleNetPort     = 2

	prSetNoNewPrivs = 38
	prGetNoNewPrivs = 39

	// oPath is O_PATH (asm-generic/fcntl.h, likewise): syscall lacks it.
	oPath = 0x200000
)

// Landlock's file-system access rights, and the ABI that brought each.
const (
	fsExecute    = 1 << 0
	fsWriteFile  = 1 << 1
	fsReadFile   = 1 << 2
	fsReadDir    = 1 << 3
	fsRemoveDir  = 1 << 4
	fsRemoveFile = 1 << 5
	fsMakeChar   = 1 << 6
	fsMakeDir    = 1 << 7
	fsMakeReg    = 1 << 8
	fsMakeSock   = 1 << 9
	fsMakeFifo   = 1 << 10
	fsMakeBlock  = 1 << 11
	fsMakeSym    = 1 << 12
	fsRefer      = 1 << 13 // ABI 2
	fsTruncate   = 1 << 14 // ABI 3
	fsIoctlDev   = 1 << 15 // ABI 5

	fsABI1 = fsMakeSym<<1 - 1

	netBindTCP    = 1 << 0 // ABI 4
	netConnectTCP = 1 << 1 // ABI 4

	scopeAbstractUnixSocket = 1 << 0 // ABI 6
	scopeSignal             = 1 << 1 // ABI 6

	// erratumSignalThreads is erratum 2's bit (erratum N is bit N-1): the
	// threads of one process may signal each other whatever their
	// domains. Each Go thread gets a domain of its own, and the runtime
	// signals its threads, so signal scoping needs it.
	erratumSignalThreads = 1 << 1
)

// grantRights are the rights a grant gives on a directory and on a file (the
// kernel refuses a file rule with directory rights). A written directory may
// have files and directories made, removed, renamed and truncated in it; not
// devices, pipes or sockets, and not symbolic links, which a tool could plant
// for the user to follow later, unconfined (a link named like a log file,
// pointing at ~/.bashrc): docs/SECURITY.md, "What it does not stop".
var grantRights = map[grantKind][2]uint64{
	grantRead:  {fsReadFile | fsReadDir, fsReadFile},
	grantWrite: {fsReadFile | fsReadDir | fsWriteFile | fsTruncate | fsRemoveDir | fsRemoveFile | fsMakeDir | fsMakeReg | fsRefer, fsReadFile | fsWriteFile | fsTruncate},
	grantRun:   {fsExecute | fsReadFile | fsReadDir, fsExecute | fsReadFile},
}

// landlockKernel is what the running kernel offers: the ABI (0 with err
// when there is no Landlock) and its errata.
type landlockKernel struct {
	abi    int
	errata uintptr
	err    error // why there is no Landlock
}

// probeKernel asks the kernel what Landlock it has, lowered by the
// confinetest seam (confine_seam.go). It changes nothing.
func probeKernel(getenv func(string) string) landlockKernel {
	var k landlockKernel
	r, _, errno := syscall.Syscall(sysLandlockCreateRuleset, 0, 0, landlockCreateRulesetVersion)
	switch {
	case errno == syscall.ENOSYS:
		k.err = errors.New("this kernel has no Landlock (ENOSYS)")
	case errno == syscall.EOPNOTSUPP:
		k.err = errors.New("Landlock is disabled at boot (EOPNOTSUPP: lsm= on the kernel command line)")
	case errno != 0:
		k.err = fmt.Errorf("Landlock: %w", errno)
	default:
		k.abi = int(r)
		if e, _, errno := syscall.Syscall(sysLandlockCreateRuleset, 0, 0, landlockCreateRulesetErrata); errno == 0 {
			k.errata = e
		}
	}
	if abi, why, ok := simulatedLandlock(getenv); ok && abi < k.abi {
		k.abi = abi
		if abi == 0 {
			k.err = errors.New(why)
		}
	}
	return k
}

// allThreadsErr is why a system call on every thread failed: ENOTSUP
// means the binary links cgo, and nothing was called.
func allThreadsErr(errno syscall.Errno) error {
	if errno == syscall.ENOTSUP {
		return errors.New("this binary links cgo, and Go can restrict every thread at once only without it")
	}
	return errno
}

// ruleset is what the kernel will be asked to enforce: the handled rights
// and scopes, and the features the report names.
type ruleset struct {
	fs, net, scoped uint64
	enforced        []string
	missing         []string
	off             []string
}

// rulesFor works out, feature by feature, what k can enforce for p.
// oneDomain says every thread shares one Landlock domain (a relaunched
// image); otherwise each thread has its own (AllThreadsSyscall).
func rulesFor(p *confinePlan, k landlockKernel, oneDomain bool) ruleset {
	var r ruleset
	feature := func(name string, abi int, rights *uint64, bits uint64) {
		switch {
		case k.abi == 0:
			r.missing = append(r.missing, name+" (Landlock)")
		case k.abi < abi:
			r.missing = append(r.missing, fmt.Sprintf("%s (Landlock ABI %d; this kernel has %d)", name, abi, k.abi))
		default:
			*rights |= bits
			r.enforced = append(r.enforced, name)
		}
	}
	feature("files read, written and executed", 1, &r.fs, fsABI1)
	if r.fs != 0 && k.abi >= 2 {
		// Renaming or linking across directories is refused under ABI 1;
		// handling refer (ABI 2) lets a written tree do it within itself.
		r.fs |= fsRefer
	}
	feature("truncation", 3, &r.fs, fsTruncate)
	feature("TCP bind and connect", 4, &r.net, netBindTCP|netConnectTCP)
	feature("ioctl on devices", 5, &r.fs, fsIoctlDev)
	feature("abstract unix sockets", 6, &r.scoped, scopeAbstractUnixSocket)
	switch {
	case !oneDomain && p.runner != "":
		r.off = append(r.off, "signals ("+p.runner+" runs programs: each Go thread has a Landlock domain of its own, and a thread could not stop a child another started)")
	case !oneDomain && k.abi >= 6 && k.errata&erratumSignalThreads == 0:
		r.missing = append(r.missing, "signals (this kernel lacks Landlock erratum 2: the process's own threads could not signal each other)")
	default:
		feature("signals", 6, &r.scoped, scopeSignal)
	}
	if len(p.loaded) > 0 && r.fs != 0 {
		r.off = append(r.off, "execution by the loader ("+joinShort(p.loaded)+" needs one, and it runs any ELF file the process can read: ld.so FILE)")
	}
	return r
}

// confineGaps are what confinement never covers on any kernel, named in
// every start-up line (docs/SECURITY.md, "What it does not stop").
var confineGaps = []string{
	"UDP and ICMP datagrams, to any address and port",
	"unix sockets reached by their path",
	"file metadata (stat, access, change notifications, chown, chmod but for setuid and setgid bits, times, extended attributes)",
	"what was open before confining (standard streams, listeners, files the registry opened)",
}

// baseReport is what confining p on k enforces and leaves, before the
// capabilities and descriptors are looked at, and the ruleset for it.
func baseReport(p *confinePlan, k landlockKernel, oneDomain bool, threads string) (confineReport, ruleset) {
	r := rulesFor(p, k, oneDomain)
	rep := confineReport{kernel: k.name(), threads: threads, enforced: r.enforced, missing: r.missing, off: r.off, gaps: confineGaps}
	rep.enforced = append(rep.enforced, "no new privileges")
	if err := seccompSupport(); err != nil {
		rep.missing = append(rep.missing, "system calls (seccomp: "+err.Error()+")")
	} else {
		rep.enforced = append(rep.enforced, seccompEnforced)
	}
	return rep, r
}

// name is how the report names k.
func (k landlockKernel) name() string {
	if k.err != nil {
		return "no Landlock: " + k.err.Error()
	}
	return fmt.Sprintf("Landlock ABI %d", k.abi)
}

// threadsText is how the report says c's route reaches every thread.
func threadsText(c *confineConfig) string {
	switch {
	case c.route == routeRelaunch || c.route == routeRelaunched:
		return "one thread restricted, then this binary relaunched from it (" + c.relaunchWhy + ")"
	case c.relaunchFailed != nil:
		return "every thread at once, as far as that reaches (the relaunch failed: " + c.relaunchFailed.Error() + ")"
	}
	return "every thread at once"
}

// probe is what confining would do for p on this kernel, doing nothing
// (-version -v).
func probe(p *confinePlan, c *confineConfig, getenv func(string) string) confineReport {
	rep, _ := baseReport(p, probeKernel(getenv), c.route == routeRelaunch, threadsText(c))
	if h, err := readCaps(); err == nil {
		relaunch := c.route == routeRelaunch
		capsReport(h, relaunch || !linksCgo(), relaunch && h.mayEmptyBounding(), &rep)
	}
	rep.enforced = append(rep.enforced, "inherited descriptors closed")
	return rep
}

// linksCgo reports whether this binary links runtime/cgo (the full build
// does with cgo on, through net; the stdio build only if a tool's package
// needs it): the runtime then makes one cgo call before main (runtime.main's
// _cgo_notify_runtime_init_done), and none otherwise. AllThreadsSyscall's
// ENOTSUP would say the same, after stopping the world. TestLinksCgo.
func linksCgo() bool { return runtime.NumCgoCall() > 0 }

// relaunchReason says why this process must relaunch to confine every
// thread (AllThreadsSyscall refuses cgo; a bounding set empties thread by
// thread), or "" when it can restrict them all at once, or when there is
// no /proc/self/exe to execute again: it then confines itself in process,
// as far as that reaches (enforce).
func relaunchReason() string {
	why := ""
	if linksCgo() {
		why = "this binary links cgo, and Go can restrict every thread at once only without it"
	} else if h, err := readCaps(); err == nil && h.mayEmptyBounding() {
		why = "it may empty its capability bounding set (root), which a thread can do for itself alone"
	}
	if why != "" {
		if _, err := os.Stat(selfExe); err != nil {
			return ""
		}
	}
	return why
}

// enforce confines every thread at once, and every child, to p for good:
// it closes inherited descriptors, drops every capability, sets
// no_new_privs and installs the seccomp filter on every thread
// (SECCOMP_FILTER_FLAG_TSYNC), and restricts every thread with Landlock.
// It fails before restricting under confineRequired when anything is
// missing, and on a path it cannot open (unless the grant is optional).
// A binary that links cgo gets here only when it could not relaunch
// (relaunchReason): the filter and no_new_privs reach its every thread
// (TSYNC), Landlock and capabilities none, and the report says so.
func enforce(p *confinePlan, c *confineConfig, getenv func(string) string) (confineReport, error) {
	k := probeKernel(getenv)
	cgo := linksCgo()
	if cgo {
		k = landlockKernel{err: fmt.Errorf("this binary links cgo, whose every thread only a relaunch reaches, and %s cannot be executed", selfExe)}
	}
	rep, r := baseReport(p, k, false, threadsText(c))
	closed, err := closeInherited()
	inheritedReport(closed, err, &rep)
	if c.mode == confineRequired && len(rep.missing) > 0 {
		return rep, requiredErr(rep)
	}
	rulesetFD := -1
	if r.fs != 0 || r.net != 0 || r.scoped != 0 {
		if rulesetFD, err = buildRuleset(p, &r, k.abi); err != nil {
			return rep, err
		}
		defer syscall.Close(rulesetFD)
	}
	h, err := readCaps()
	if err != nil {
		return rep, err
	}
	if h.held() && !cgo {
		if err := emptyCapsAllThreads(); err != nil {
			return rep, err
		}
	}
	capsReport(h, !cgo, false, &rep)
	if err := restrictAllThreads(); err != nil {
		return rep, err
	}
	if rulesetFD >= 0 {
		if _, _, errno := syscall.AllThreadsSyscall(sysLandlockRestrictSelf, uintptr(rulesetFD), 0, 0); errno != 0 {
			return rep, fmt.Errorf("confine: landlock_restrict_self: %w", allThreadsErr(errno))
		}
	}
	return rep, nil
}

// restrictAllThreads sets no_new_privs on this thread, then installs the
// seccomp filter with SECCOMP_FILTER_FLAG_TSYNC, which the kernel gives
// every thread with this one's no_new_privs, without stopping the world.
// Without a filter, no_new_privs goes to every thread on its own (one stop
// of the world).
func restrictAllThreads() error {
	if seccompSupport() != nil {
		if _, _, errno := syscall.AllThreadsSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); errno != 0 {
			return fmt.Errorf("confine: prctl(PR_SET_NO_NEW_PRIVS) on every thread: %w", allThreadsErr(errno))
		}
		return nil
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); errno != 0 {
		return fmt.Errorf("confine: prctl(PR_SET_NO_NEW_PRIVS): %w", errno)
	}
	return installSeccomp(true)
}

// requiredErr is -confine=required's refusal, naming what is missing.
func requiredErr(rep confineReport) error {
	return fmt.Errorf("-confine=required: this system cannot enforce %s (%s); -confine=on starts with what it can enforce", strings.Join(rep.missing, "; "), rep.kernel)
}

// buildRuleset makes p's Landlock ruleset, handling r's rights, with a
// rule per grant; a path that cannot be opened fails it unless optional.
func buildRuleset(p *confinePlan, r *ruleset, abi int) (int, error) {
	// struct landlock_ruleset_attr grew with the ABI: give this ABI's
	// size, or the kernel refuses (E2BIG).
	attr := [3]uint64{r.fs, r.net, r.scoped}
	size := uintptr(24)
	switch {
	case abi < 4:
		size = 8
	case abi < 6:
		size = 16
	}
	fd, _, errno := syscall.Syscall(sysLandlockCreateRuleset, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return 0, fmt.Errorf("confine: landlock_create_ruleset: %w", errno)
	}
	rfd := int(fd)
	for _, g := range p.grants {
		var err error
		if g.kind == grantConnect {
			err = addPortRule(rfd, r.net, g)
		} else {
			err = addPathRule(rfd, r.fs, g)
		}
		if err != nil {
			syscall.Close(rfd)
			return 0, err
		}
	}
	return rfd, nil
}

// addPortRule allows connecting to g.port, when TCP is handled at all.
func addPortRule(rulesetFD int, handled uint64, g grant) error {
	if handled&netConnectTCP == 0 {
		return nil
	}
	attr := [2]uint64{netConnectTCP, uint64(g.port)}
	if _, _, errno := syscall.Syscall6(sysLandlockAddRule, uintptr(rulesetFD), landlockRuleNetPort, uintptr(unsafe.Pointer(&attr)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("confine: TCP port %d (%s): landlock_add_rule: %w", g.port, g.from, errno)
	}
	return nil
}

// addPathRule allows g's rights beneath g.path (or on the file it names),
// as far as handled covers them.
func addPathRule(rulesetFD int, handled uint64, g grant) error {
	fd, err := syscall.Open(g.path, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		if g.optional {
			return nil
		}
		return fmt.Errorf("confine: %s %s: %w", g.from, g.path, err)
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return fmt.Errorf("confine: %s %s: %w", g.from, g.path, err)
	}
	rights := grantRights[g.kind][1]
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		rights = grantRights[g.kind][0]
	}
	if rights &= handled; rights == 0 {
		return nil
	}
	// struct landlock_path_beneath_attr is packed: a u64 and an s32.
	var attr [12]byte
	binary.NativeEndian.PutUint64(attr[0:8], rights)
	binary.NativeEndian.PutUint32(attr[8:12], uint32(fd))
	if _, _, errno := syscall.Syscall6(sysLandlockAddRule, uintptr(rulesetFD), landlockRulePathBeneath, uintptr(unsafe.Pointer(&attr[0])), 0, 0, 0); errno != 0 {
		return fmt.Errorf("confine: %s %s: landlock_add_rule: %w", g.from, g.path, errno)
	}
	return nil
}
