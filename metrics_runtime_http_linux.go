//go:build !stdio && linux

// The process's figures on Linux, read from /proc as client_golang's
// process collector reads them (metrics_runtime_http.go).
//
// Spec: https://man7.org/linux/man-pages/man5/proc_pid_stat.5.html.

package main

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// userHZ is the unit of /proc's CPU times: USER_HZ, 100 on every Linux
// architecture Go supports.
const userHZ = 100

// processStats reads this process's CPU time, memory and file
// descriptors; ok is false when /proc cannot be read (then no process_*
// series but the start time is written).
func processStats() (p procStats, ok bool) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return p, false
	}
	// The command (field 2) is in parentheses and may hold spaces: the
	// fields counted from 3 start after the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return p, false
	}
	f := bytes.Fields(stat[i+1:])
	field := func(n int) uint64 { // n as proc_pid_stat(5) numbers them
		if n-3 >= len(f) {
			return 0
		}
		v, _ := strconv.ParseUint(string(f[n-3]), 10, 64)
		return v
	}
	p.cpuSeconds = float64(field(14)+field(15)) / userHZ
	p.virtualBytes = field(23)
	p.residentBytes = field(24) * uint64(os.Getpagesize())
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		p.openFDs = len(fds)
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		p.maxFDs = lim.Cur
	}
	return p, true
}
