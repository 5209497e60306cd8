//go:build !stdio && !linux

// The process's figures where there is no /proc: none
// (metrics_runtime_http.go writes only the start time).

package main

// processStats reports nothing off Linux.
func processStats() (p procStats, ok bool) { return p, false }
