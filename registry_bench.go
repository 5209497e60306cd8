//go:build bench && !(conformance || demo)

// The benchmark registry (-tags bench): what the shared benchmark harness
// (harness/bench/harness, its README) requires of a server under test, and nothing
// else: a tool echo {message: string} that returns one text block equal to
// message, and BENCH_TOOLS - 1 filler tools so that tools/list has
// realistic weight. It serves in place of the demo registry
// (registry_demo.go), whose tools it does not borrow; the engine (both
// eras, both transports) is the product's. The product binary does not
// carry it.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/tools

package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
)

// buildRegistry registers the echo tool the harness calls, then
// BENCH_TOOLS - 1 filler tools: the harness's contract is that tools/list
// answers exactly BENCH_TOOLS tools. BENCH_TOOLS unset or empty means
// echo alone.
//
// BENCH_CPUPROFILE=path writes a CPU profile of the whole process life to
// path (stopped when run returns, which SIGTERM from the harness causes):
// the way to profile a harness cell as the harness drives it.
func buildRegistry(s *server, getenv func(string) string) (stop func()) {
	s.addTool(tool{
		Name:        "echo",
		Description: "Returns the message it is given.",
		InputSchema: `{"type":"object","properties":{"message":{"type":"string","description":"Text to echo back"}},"required":["message"],"additionalProperties":false}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			return textResult(req.String("message")), nil
		},
	})
	stop = func() {}
	if path := getenv("BENCH_CPUPROFILE"); path != "" {
		stop = profileCPU(path, stop)
	}
	v := getenv("BENCH_TOOLS")
	if v == "" {
		return stop
	}
	want, err := strconv.Atoi(v)
	if err != nil || want < 1 || want > maxBenchTools {
		panic(fmt.Sprintf("buildRegistry: BENCH_TOOLS=%q: want an integer in 1..%d", v, maxBenchTools))
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
