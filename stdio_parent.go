// The stdio server's lifetime, tied to its parent's: when the process
// that started the server dies while the server's standard input stays
// open (another process holds the pipe's other end: a sibling it was
// handed to, a wrapper, a terminal multiplexer), the server ends as it
// does at the end of its input, answering every request it has read
// (serveStdio). Otherwise nothing would end it: the fourth review found a
// server still running 3 s after its host was killed (issue 35). Only
// the parent is watched: behind a wrapper that outlives the host, the
// server lives as long as the wrapper does.
//
// How the death is seen is the platform's (watchParent): on Linux the
// kernel signals it (PR_SET_PDEATHSIG, stdio_parent_linux.go), on Windows
// a wait on the parent's handle (stdio_parent_windows.go), elsewhere a
// poll of the parent's pid (pollParent), which changes when the parent
// dies and its orphan is adopted.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio;
// the draft SEP-2692 (https://github.com/modelcontextprotocol/modelcontextprotocol/pull/2692):
// a stdio server process lives about as long as the host application
// instance that launched it.

package main

import (
	"log/slog"
	"time"
)

// parentPoll is how often pollParent looks at the parent's pid: a
// server outlives its parent by at most this long where it polls.
const parentPoll = time.Second

// parentWatch is a watch on the process's parent, started by run on
// stdio (watchParent): gone is closed once the parent has died (nil when
// there is no parent to watch: a process whose parent is PID 1 or none
// has outlived it already, or is an init); stop ends the watch and waits
// for it.
type parentWatch struct {
	gone <-chan struct{}
	stop func()
}

// noParentWatch is a watch that never fires.
var noParentWatch = parentWatch{stop: func() {}}

// pollParent closes gone once getppid no longer returns ppid, looking
// every interval, until done is closed. The platform files without a
// kernel notice run it on a goroutine of their watch
// (TestPollParent).
func pollParent(log *slog.Logger, ppid int, getppid func() int, interval time.Duration, gone chan<- struct{}, done <-chan struct{}) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		if getppid() != ppid {
			parentDied(log, ppid)
			close(gone)
			return
		}
	}
}

// parentDied logs that the parent died and the server ends as at the
// end of its input.
func parentDied(log *slog.Logger, ppid int) {
	log.Info("the parent process ended: ending as at the end of input", "ppid", ppid)
}
