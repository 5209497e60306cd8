//go:build !linux && !windows

// The parent watch where the kernel offers no notice the standard
// library reaches (macOS, the BSDs): a poll of the parent's pid, which
// changes when the parent dies and its orphan is adopted (by launchd or
// init, or a subreaper).
//
// Spec: the draft SEP-2692 (stdio_parent.go).

package main

import (
	"log/slog"
	"os"
	"sync"
)

// watchParent starts the parent watch (stdio_parent.go): pollParent on a
// goroutine, every parentPoll.
func watchParent(log *slog.Logger) parentWatch {
	ppid := os.Getppid()
	if ppid <= 1 {
		return noParentWatch
	}
	gone, done := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	log.Debug("watching the parent process", "ppid", ppid, "by", "poll")
	wg.Go(func() { pollParent(log, ppid, os.Getppid, parentPoll, gone, done) })
	return parentWatch{gone: gone, stop: func() {
		close(done)
		wg.Wait()
	}}
}
