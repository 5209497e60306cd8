//go:build loadtest && !stdio

// The load-test build's debug routes and tool, compiled in only with
// -tags loadtest (harness/loadtest builds the server with -tags
// demo,loadtest, since it also calls the demo's tools): the load program
// reads the server's goroutine count and heap from /debug/stats to check
// for leaks, and calls the flood tool to fill an SSE stream nobody reads. serveHTTP calls debugRoutes, so the flood tool joins
// whichever registry the build serves (registry_*.go), over HTTP only.
// Every other build has neither (httpsse_debug_off.go).
//
// Spec: none (a test hook of the Streamable HTTP transport).

package main

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"runtime/debug"
	"strings"
)

// debugRoutes adds GET /debug/stats (goroutines and heap, as JSON; ?gc=1
// collects garbage first, so heap figures compare across samples; ?free=1
// also returns the freed memory to the system, so RSS compares too), and
// registers the flood tool on s.
func debugRoutes(mux *http.ServeMux, s *server) {
	mux.HandleFunc("GET /debug/stats", func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Query().Get("free") == "1":
			debug.FreeOSMemory()
		case r.URL.Query().Get("gc") == "1":
			runtime.GC()
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"goroutines":%d,"heapInuse":%d,"heapObjects":%d,"sys":%d}`+"\n",
			runtime.NumGoroutine(), ms.HeapInuse, ms.HeapObjects, ms.Sys)
	})
	s.addTool(tool{
		Name:        "flood",
		Description: "Sends n progress notifications of size bytes each, then returns (load tests only).",
		InputSchema: `{"type":"object","properties":{"n":{"type":"integer","minimum":1},"size":{"type":"integer","minimum":1,"maximum":65536}},"required":["n","size"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			msg := strings.Repeat("x", int(req.Int("size")))
			n := req.Int("n")
			for i := int64(1); i <= n; i++ {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				req.Progress(float64(i), float64(n), msg)
			}
			return textResult(fmt.Sprintf("sent %d", n)), nil
		},
	})
}
