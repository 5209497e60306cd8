//go:build linux && !(mips || mipsle || mips64 || mips64le)

// The relaunch on Linux: a binary that cannot restrict every thread at
// once (it links cgo, whose C threads Go does not know; or it may empty
// its capability bounding set, which a thread can do for itself alone)
// restricts the one thread it runs on, dropping every capability, setting
// no_new_privs, the Landlock domain and the seccomp filter, then executes
// itself (/proc/self/exe) from it with the same arguments and
// environment. A Landlock domain, no_new_privs, the filter and the
// emptied capability sets survive execve, and every thread of the new
// image descends from that one: the whole process starts inside, in one
// Landlock domain. The new image is handed what it cannot read or bind
// itself (confine_relaunch.go), and checks with the kernel that it is
// confined before it serves. A binary that cannot be executed again (no
// /proc/self/exe; one run by qemu-user) confines itself in process, as far
// as that reaches (relaunch, enforce).
//
// Spec: execve(2); https://docs.kernel.org/userspace-api/landlock.html
// ("Inheritance"); prctl(2) PR_SET_NO_NEW_PRIVS; seccomp(2).

package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The pipe size control, from include/uapi/linux/fcntl.h (F_LINUX_SPECIFIC_BASE + 7).
const fSetPipeSize = 1031

// handoffWait bounds the read of a handoff: a launcher writes it whole
// before it relaunches, so a pipe that keeps the reader waiting was not
// made by one.
const handoffWait = 2 * time.Second

// relaunch confines one thread to what cfg's server needs once
// relaunched, and executes this binary again from it, handing over its
// secrets and listeners (handoff); it returns only if that fails. It
// fails before the thread is restricted with what stops the start
// (-confine=required and something missing, a path, a listener). When
// the execve itself fails (no binary format for it: a binary run by
// qemu-user), the restricted thread first gives every thread of the
// process its seccomp filter and no_new_privs (SECCOMP_FILTER_FLAG_TSYNC,
// from that thread, whose filter the others could not otherwise join),
// and ends; relaunch then returns nil with cfg set to confine in process
// (route, relaunchFailed) on the listeners it bound (bound), as far as
// that reaches: the start-up line says what is missing.
func relaunch(cfg *config, args []string, getenv func(string) string) error {
	c := &cfg.confine
	s := newServer(*cfg, slog.New(slog.DiscardHandler))
	stop := buildRegistry(s, getenv)
	defer stop()
	defer s.tasks.shutdown()
	addConfineTestTools(s, getenv)
	p := s.plan(c, cfg.http.ownNeeds(), getenv)
	k := probeKernel(getenv)
	rep, r := baseReport(&p, k, true, threadsText(c))
	closed, err := closeInherited()
	inheritedReport(closed, err, &rep)
	if c.mode == confineRequired && len(rep.missing) > 0 {
		return requiredErr(rep)
	}
	h := &handoff{why: c.relaunchWhy, env: map[string]string{}, files: map[string]string{}, listeners: map[string]int{}, closed: closed}
	for _, name := range secretEnv {
		if v := getenv(name); v != "" && name != envHandoff {
			h.env[name] = v
		}
	}
	for _, f := range cfg.secretFiles() {
		perm, content, err := secretFileContent(f[0], f[1], getenv)
		if err != nil {
			return err
		}
		h.files[f[0]] = handedSecretFile(perm, content)
	}
	listeners, err := bindListeners(*cfg)
	if err != nil {
		return err
	}
	var inherit []int
	for flagName, f := range listeners {
		h.listeners[flagName] = int(f.Fd())
		inherit = append(inherit, int(f.Fd()))
	}
	reader, err := handOver(h.encode())
	if err != nil {
		return err
	}
	rulesetFD := -1
	if r.fs != 0 || r.net != 0 || r.scoped != 0 {
		if rulesetFD, err = buildRuleset(&p, &r, k.abi); err != nil {
			return err
		}
		defer syscall.Close(rulesetFD)
	}
	caps, err := readCaps()
	if err != nil {
		return err
	}
	// The thread restricted is another goroutine's, locked to it and
	// never unlocked: if the execve fails, its end ends the thread. This
	// goroutine holds its own thread meanwhile, so that the two differ.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// The goroutine ends the process (execve) or sends why it could
	// not, once, and ends.
	failed := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := restrictThisThread(caps, rulesetFD); err != nil {
			failed <- err
			return
		}
		err := setCloexec(append(inherit, reader), false)
		if err == nil {
			env := append(os.Environ(), envHandoff+"="+strconv.Itoa(reader))
			exe := relaunchExecutable(getenv) // the confinetest seam's
			err = syscall.Exec(exe, append([]string{os.Args[0]}, args...), env)
			err = fmt.Errorf("%s cannot be executed: %w", exe, err)
		}
		if seccompSupport() == nil {
			if serr := installSeccomp(true); serr != nil {
				err = fmt.Errorf("%w; %w", err, serr)
			}
		}
		failed <- err
	}()
	err = <-failed
	syscall.Close(reader)
	if serr := setCloexec(inherit, true); serr != nil {
		return serr
	}
	c.route, c.relaunchFailed, c.bound = routeInProcess, err, listeners
	return nil
}

// setCloexec sets or clears close-on-exec on each descriptor of fds.
func setCloexec(fds []int, on bool) error {
	flag := uintptr(0)
	if on {
		flag = fdCloexec
	}
	for _, fd := range fds {
		if _, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFD, flag); errno != 0 {
			return fmt.Errorf("confine: handing descriptor %d over: %w", fd, errno)
		}
	}
	return nil
}

// restrictThisThread drops every capability of the calling thread, then
// sets no_new_privs, restricts it with the Landlock ruleset (when there is
// one) and installs the seccomp filter (where there is one), for this
// thread alone.
func restrictThisThread(caps heldCaps, rulesetFD int) error {
	if err := emptyCapsThisThread(caps); err != nil {
		return err
	}
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); errno != 0 {
		return fmt.Errorf("confine: prctl(PR_SET_NO_NEW_PRIVS): %w", errno)
	}
	if rulesetFD >= 0 {
		if _, _, errno := syscall.RawSyscall(sysLandlockRestrictSelf, uintptr(rulesetFD), 0, 0); errno != 0 {
			return fmt.Errorf("confine: landlock_restrict_self: %w", errno)
		}
	}
	if seccompSupport() == nil {
		return installSeccomp(false)
	}
	return nil
}

// handOver writes b into a new pipe, sized to hold it, closes the
// writing end and returns the reading end (close-on-exec until the
// relaunch clears it).
func handOver(b []byte) (int, error) {
	if len(b) > maxHandoffBytes {
		return 0, fmt.Errorf("confine: the handoff holds %d bytes, more than %d", len(b), maxHandoffBytes)
	}
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return 0, fmt.Errorf("confine: handoff pipe: %w", err)
	}
	defer syscall.Close(p[1])
	if len(b) > 1<<16 { // the default size, 16 pages
		if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(p[1]), fSetPipeSize, uintptr(len(b))); errno != 0 {
			syscall.Close(p[0])
			return 0, fmt.Errorf("confine: handoff pipe of %d bytes: %w", len(b), errno)
		}
	}
	for len(b) > 0 {
		n, err := syscall.Write(p[1], b)
		if err != nil {
			syscall.Close(p[0])
			return 0, fmt.Errorf("confine: handoff: %w", err)
		}
		b = b[n:]
	}
	return p[0], nil
}

// takeHandoff reads what a launcher handed this process, when getenv
// names a handoff (envHandoff), and returns it with getenv serving its
// secrets; otherwise nil and getenv. A handoff that cannot be read, or
// is not one, stops the start: the variable says this process was
// relaunched confined, and it would not serve unconfined believing it.
func takeHandoff(getenv func(string) string) (*handoff, func(string) string, error) {
	v := getenv(envHandoff)
	if v == "" {
		return nil, getenv, nil
	}
	refuse := func(why string) error {
		return fmt.Errorf("confine: $%s=%q names no handoff of a relaunch (%s): refusing to start", envHandoff, v, why)
	}
	fd, err := strconv.Atoi(v)
	if err != nil || fd <= 2 {
		return nil, nil, refuse("not a descriptor above standard error")
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return nil, nil, refuse("not a pipe")
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		return nil, nil, refuse(err.Error())
	}
	f := os.NewFile(uintptr(fd), "handoff")
	defer f.Close()
	_ = f.SetReadDeadline(time.Now().Add(handoffWait))
	b, err := io.ReadAll(io.LimitReader(f, maxHandoffBytes+1))
	if err != nil {
		return nil, nil, refuse(err.Error())
	}
	h, err := decodeHandoff(b)
	if err != nil {
		return nil, nil, refuse(err.Error())
	}
	for _, lfd := range h.listeners {
		syscall.CloseOnExec(lfd)
	}
	return h, h.getenv(getenv), nil
}

// checkRelaunched is enforce for a relaunched image: it enforces nothing
// more, and checks with the kernel that it is confined as its launcher
// was to confine it (no_new_privs, the seccomp filter refusing MPTCP,
// Landlock refusing to list /, no capability), refusing to serve if not.
func checkRelaunched(p *confinePlan, c *confineConfig, getenv func(string) string) (confineReport, error) {
	k := probeKernel(getenv)
	rep, r := baseReport(p, k, true, threadsText(c))
	inheritedReport(c.handoff.closed, nil, &rep)
	var not []string
	if v, _, _ := syscall.RawSyscall(syscall.SYS_PRCTL, prGetNoNewPrivs, 0, 0); v != 1 {
		not = append(not, "no_new_privs is not set")
	}
	if seccompSupport() == nil {
		if mode, _, _ := syscall.RawSyscall(syscall.SYS_PRCTL, prGetSeccomp, 0, 0); mode != seccompModeFilter {
			not = append(not, "no seccomp filter")
		} else if fd, err := syscall.Socket(afInet, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, ipprotoMPTCP); err != syscall.EACCES {
			if err == nil {
				syscall.Close(fd)
			}
			not = append(not, "the seccomp filter is not this server's")
		}
	}
	if r.fs&fsReadDir != 0 && !grantsRoot(p) {
		fd, err := syscall.Open("/", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err == nil {
			syscall.Close(fd)
		}
		if !errors.Is(err, syscall.EACCES) {
			not = append(not, "Landlock lets it list /")
		}
	}
	caps, err := readCaps()
	if err != nil || caps.held() {
		not = append(not, "it holds capabilities")
	}
	if len(not) > 0 {
		return rep, fmt.Errorf("confine: $%s says this process was relaunched confined, but it is not (%s): refusing to serve", envHandoff, strings.Join(not, "; "))
	}
	capsReport(caps, true, true, &rep)
	return rep, nil
}

// grantsRoot reports whether p grants / itself, under which nothing is
// refused to read.
func grantsRoot(p *confinePlan) bool {
	for _, g := range p.grants {
		if g.path == "/" {
			return true
		}
	}
	return false
}
