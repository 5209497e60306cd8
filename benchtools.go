//go:build bench

// The benchmark build: the demo registry plus filler tools, so that the
// shared harness (tools/bench) can give tools/list realistic weight. The
// product binary does not carry it.

package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
)

// builtinIsDemo is true: the bench build serves the demo plus fillers.
const builtinIsDemo = true

// registerBuiltin registers the demo, whose echo tool the harness calls,
// then BENCH_TOOLS - 1 filler tools: the harness's contract is that
// tools/list answers exactly BENCH_TOOLS tools. The demo's other tools
// count towards that total, so fewer fillers are added. BENCH_TOOLS
// unset or empty means no fillers.
//
// BENCH_CPUPROFILE=path writes a CPU profile of the whole process life to
// path (stopped when run returns, which SIGTERM from the harness causes):
// the way to profile a harness cell as the harness drives it.
func registerBuiltin(s *server, getenv func(string) string) (stop func()) {
	stop = registerDemo(s)
	if path := getenv("BENCH_CPUPROFILE"); path != "" {
		stop = profileCPU(path, stop)
	}
	v := getenv("BENCH_TOOLS")
	if v == "" {
		return stop
	}
	want, err := strconv.Atoi(v)
	if err != nil || want < 1 || want > maxBenchTools {
		panic(fmt.Sprintf("registerBuiltin: BENCH_TOOLS=%q: want an integer in 1..%d", v, maxBenchTools))
	}
	for i := len(s.registry().tools); i < want; i++ {
		s.addTool(benchFiller(i))
	}
	return stop
}

// maxBenchTools bounds BENCH_TOOLS: each tool costs a registry copy at
// registration (copy-on-write), so registration is quadratic in the count.
const maxBenchTools = 10000

// benchFiller is the i-th filler tool: a name, a sentence of description
// and a two-property schema, about the size of a typical real tool.
func benchFiller(i int) tool {
	return tool{
		Name:        fmt.Sprintf("filler_%04d", i),
		Description: fmt.Sprintf("Filler tool %d for benchmarks: looks up a record by id and returns it as text.", i),
		InputSchema: `{"type":"object","properties":{"id":{"type":"string","description":"Record id"},` +
			`"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["id"],"additionalProperties":false}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			return textResult("record " + req.String("id")), nil
		},
	}
}

// profileCPU starts a CPU profile into path and returns stop extended to
// end it. A profile that cannot start is a benchmark setup error.
func profileCPU(path string, stop func()) func() {
	f, err := os.Create(path)
	if err != nil {
		panic(fmt.Sprintf("BENCH_CPUPROFILE: %v", err))
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(fmt.Sprintf("BENCH_CPUPROFILE: %v", err))
	}
	return func() {
		stop()
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}
