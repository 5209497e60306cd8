//go:build !linux || mips || mipsle || mips64 || mips64le

// Self-confinement where there is no Landlock: nothing is enforced, and
// the start-up log says so once. -confine=required refuses to start.
//
// Spec: none; confine_linux.go is the Linux side.

package main

import (
	"fmt"
	"runtime"
)

// probe reports that nothing can be enforced on this system.
func probe(p *confinePlan, getenv func(string) string) confineReport {
	return confineReport{
		kernel:  runtime.GOOS + "/" + runtime.GOARCH + ": this build has no Landlock (a Linux feature)",
		missing: []string{"files", "TCP bind and connect", "signals", "abstract unix sockets", "no new privileges"},
	}
}

// enforce enforces nothing: the process serves unconfined, or, under
// confineRequired, refuses to start.
func enforce(p *confinePlan, mode confineMode, getenv func(string) string) (confineReport, error) {
	rep := probe(p, getenv)
	if mode == confineRequired {
		return rep, fmt.Errorf("-confine=required: nothing can be enforced here (%s)", rep.kernel)
	}
	return rep, nil
}
