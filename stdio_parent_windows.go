// The parent watch on Windows: a process handle is signalled when the
// process ends, so the watch waits on its parent's. Windows does not
// adopt orphans, and a pid may be reused once its process has ended:
// the process found at the parent's pid is the parent only if it
// started before this one.
//
// Spec: the draft SEP-2692 (stdio_parent.go);
// https://learn.microsoft.com/windows/win32/api/synchapi/nf-synchapi-waitforsingleobject.

package main

import (
	"log/slog"
	"os"
	"sync"
	"syscall"
)

// processQueryLimitedInformation is PROCESS_QUERY_LIMITED_INFORMATION,
// which syscall does not name: enough to read a process's times.
const processQueryLimitedInformation = 0x1000

// watchParent starts the parent watch (stdio_parent.go): a goroutine
// waits on the parent's handle, in steps of parentPoll so that stop
// ends it. A parent that cannot be opened (gone already, or beyond this
// process's rights) is not watched; one found to have started after this
// process is not the parent, which has therefore ended.
func watchParent(log *slog.Logger) parentWatch {
	ppid := os.Getppid()
	if ppid <= 0 {
		return noParentWatch
	}
	h, err := syscall.OpenProcess(syscall.SYNCHRONIZE|processQueryLimitedInformation, false, uint32(ppid))
	if err != nil {
		log.Debug("the parent process cannot be watched", "ppid", ppid, "err", err)
		return noParentWatch
	}
	log.Debug("watching the parent process", "ppid", ppid, "by", "handle")
	gone, done := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer syscall.CloseHandle(h)
		if !startedBefore(h) {
			parentDied(log, ppid)
			close(gone)
			return
		}
		for {
			ev, err := syscall.WaitForSingleObject(h, uint32(parentPoll.Milliseconds()))
			switch {
			case err != nil:
				log.Debug("waiting on the parent process failed", "ppid", ppid, "err", err)
				return
			case ev == syscall.WAIT_OBJECT_0:
				parentDied(log, ppid)
				close(gone)
				return
			}
			select {
			case <-done:
				return
			default:
			}
		}
	})
	return parentWatch{gone: gone, stop: func() {
		close(done)
		wg.Wait()
	}}
}

// startedBefore reports whether the process of h started before this
// one, as a parent does; true when either time cannot be read.
func startedBefore(h syscall.Handle) bool {
	self, err := syscall.GetCurrentProcess()
	if err != nil {
		return true
	}
	var parent, own, exit, kernel, user syscall.Filetime
	if syscall.GetProcessTimes(h, &parent, &exit, &kernel, &user) != nil || syscall.GetProcessTimes(self, &own, &exit, &kernel, &user) != nil {
		return true
	}
	return parent.Nanoseconds() <= own.Nanoseconds()
}
