// Debug routes, compiled in only for the load and fault tests
// (tools/loadtest builds baremcp with -tags loadtest): the load program
// reads the server's goroutine count and heap from /debug/stats to check
// for leaks. A normal build has no such route (debug_off.go).

//go:build loadtest

package main

import (
	"fmt"
	"net/http"
	"runtime"
)

// debugRoutes adds GET /debug/stats: goroutines and heap, as JSON. With
// ?gc=1 it collects garbage first, so heap figures compare across samples.
func debugRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /debug/stats", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("gc") == "1" {
			runtime.GC()
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"goroutines":%d,"heapInuse":%d,"heapObjects":%d,"sys":%d}`+"\n",
			runtime.NumGoroutine(), ms.HeapInuse, ms.HeapObjects, ms.Sys)
	})
}
