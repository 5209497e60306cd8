// The parent watch on Linux: the kernel sends the process a signal when
// its parent dies (PR_SET_PDEATHSIG, prctl(2)), so the server sees the
// death at once, without polling.
//
// Spec: prctl(2) PR_SET_PDEATHSIG; the draft SEP-2692 (stdio_parent.go).

package main

import (
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// parentDeathSignal is the signal the kernel sends when the parent dies:
// a hangup, the other end gone. Not SIGTERM, which main takes for a
// shutdown that cancels what runs, where the parent's death ends the
// input and lets what was read finish. While a stdio server's watch
// runs, a SIGHUP while its parent still runs is logged and ignored (see
// watchParent); otherwise SIGHUP ends the process, as Go does by
// default.
const parentDeathSignal = syscall.SIGHUP

// parentSettle is how long the watch looks at the parent's pid after a
// SIGHUP before it takes the parent to be alive: an exit ends a
// process's threads within milliseconds.
const parentSettle = 500 * time.Millisecond

// parentMoved reports whether the parent's pid is no longer ppid (the
// orphan adopted), looking every 10 ms for up to settle (once for 0),
// or until done is closed.
func parentMoved(ppid int, settle time.Duration, done <-chan struct{}) bool {
	deadline := time.Now().Add(settle)
	for {
		if os.Getppid() != ppid {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		select {
		case <-done:
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// watchParent starts the parent watch (stdio_parent.go) on a goroutine
// that owns one OS thread for its life: PR_SET_PDEATHSIG belongs to the
// thread that set it (the signal comes when the parent dies while that
// thread lives), and a Go thread ends only with a goroutine locked to it,
// here when the watch stops. The signal is tied to the parent's thread
// too, not its process: a parent thread that ends while the parent runs
// sends it as well, so the watch believes it only once the parent's pid
// has changed (the orphan adopted). A parent that died before the signal
// was set is seen by the same comparison, made once it is set. Failing
// prctl (a filter refusing it), the watch polls (pollParent). The
// setting does not survive an execve by another thread, nor a setuid
// one: a process that re-executes itself calls run again, and watches
// again; a parent that dies between the two is missed.
func watchParent(log *slog.Logger) parentWatch {
	ppid := os.Getppid()
	if ppid <= 1 {
		return noParentWatch
	}
	gone, done := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		// Never unlocked: returning ends the thread, and its setting.
		runtime.LockOSThread()
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, parentDeathSignal)
		defer signal.Stop(sig)
		if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(parentDeathSignal), 0); errno != 0 {
			log.Debug("watching the parent process", "ppid", ppid, "by", "poll", "err", errno.Error())
			pollParent(log, ppid, os.Getppid, parentPoll, gone, done)
			return
		}
		log.Debug("watching the parent process", "ppid", ppid, "by", "signal")
		for !parentMoved(ppid, 0, done) {
			select {
			case <-done:
				return
			case <-sig:
				// The kernel signals each move to another thread of the
				// parent as well, so a parent that ends thread by thread
				// signals more than once, and signals merge: the pid is
				// looked at for a while before the parent is believed.
				if parentMoved(ppid, parentSettle, done) {
					break
				}
				log.Warn("SIGHUP ignored: the parent process still runs (the signal ends a stdio server once its parent has ended)", "ppid", ppid)
			}
		}
		parentDied(log, ppid)
		close(gone)
	})
	return parentWatch{gone: gone, stop: func() {
		close(done)
		wg.Wait()
	}}
}
