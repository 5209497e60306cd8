//go:build !linux || mips || mipsle || mips64 || mips64le

// Self-confinement where there is no Landlock: nothing is enforced, and
// the start-up log says so once. -confine=required refuses to start.
//
// Spec: none; confine_linux.go is the Linux side.

package main

import (
	"errors"
	"fmt"
	"runtime"
)

// probe reports that nothing can be enforced on this system.
func probe(p *confinePlan, c *confineConfig, getenv func(string) string) confineReport {
	return confineReport{
		kernel:   runtime.GOOS + "/" + runtime.GOARCH + ": this build has no Landlock (a Linux feature)",
		threads:  "none",
		missing:  []string{"files", "TCP bind and connect", "signals", "abstract unix sockets", "no new privileges", "system calls", "capabilities", "inherited descriptors"},
		gaps:     nil,
		enforced: nil,
	}
}

// enforce enforces nothing: the process serves unconfined, or, under
// confineRequired, refuses to start.
func enforce(p *confinePlan, c *confineConfig, getenv func(string) string) (confineReport, error) {
	rep := probe(p, c, getenv)
	if c.mode == confineRequired {
		return rep, fmt.Errorf("-confine=required: nothing can be enforced here (%s)", rep.kernel)
	}
	return rep, nil
}

// relaunchReason is "": there is nothing to relaunch into.
func relaunchReason() string { return "" }

// errNoRelaunch is the answer of everything a relaunch needs.
var errNoRelaunch = errors.New("confine: no relaunch on this system")

// relaunch cannot happen here (settleRoute never asks for one).
func relaunch(*config, []string, func(string) string) error { return errNoRelaunch }

// checkRelaunched refuses: no launcher here confines anything.
func checkRelaunched(*confinePlan, *confineConfig, func(string) string) (confineReport, error) {
	return confineReport{}, errNoRelaunch
}

// takeHandoff refuses a process that names a handoff: nothing here
// relaunches one, so the variable is a mistake or a lie.
func takeHandoff(getenv func(string) string) (*handoff, func(string) string, error) {
	if v := getenv(envHandoff); v != "" {
		return nil, nil, fmt.Errorf("confine: $%s=%q names a relaunch, which this system has none of: refusing to start", envHandoff, v)
	}
	return nil, getenv, nil
}
