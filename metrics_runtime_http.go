//go:build !stdio

// Metrics of the process and of the Go runtime, under the names
// client_golang's collectors give them (process_*, go_*), so that the
// dashboards and alerts written for any Go exporter work unchanged; the
// configured limits (baremcp_limit); and which request series exist
// before they count anything (preset). Everything here is read at scrape
// time: nothing is added to the request path. The Go runtime's figures
// come from runtime/metrics (no stop-the-world, unlike
// runtime.ReadMemStats) and debug.ReadGCStats; the process's from /proc
// on Linux (processStats; elsewhere the process_* series other than the
// start time are absent).
//
// Spec: https://prometheus.io/docs/instrumenting/writing_clientlibs/#process-metrics,
// https://pkg.go.dev/runtime/metrics.

package main

import (
	"runtime"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"slices"
	"strconv"
	"time"
)

// serving records that this process serves transport tr: its request
// series are written from the start (preset).
func (m *metrics) serving(tr transport) { m.transports[tr].Store(true) }

// preset reports whether the request series of method in era (eraIndex)
// on tr is written before it counts anything: every outcome of every
// method the era serves, on a transport this process serves, so that a
// ratio of error series to all has data from the first scrape on
// (TestMetricsPreset).
func (m *metrics) preset(method string, e int, tr transport) bool {
	if !m.transports[tr].Load() || e == eraIndex(classicEra) && m.modernOnly {
		return false
	}
	meth, known := methods[method]
	if !known {
		return e == eraIndex(modernEra) // "other", in the era every server serves
	}
	return meth.era == bothEras || eraIndex(meth.era) == e
}

// setLimit records the configured limit of flag (without its dash), as
// a sample of baremcp_limit. Setting it again replaces it.
func (m *metrics) setLimit(flag string, v float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.limits == nil {
		m.limits = map[string]float64{}
	}
	m.limits[flag] = v
}

// setLimits records s's limits (those of every transport; the HTTP
// transport adds its own) as baremcp_limit.
func (m *metrics) setLimits(s *server) {
	m.setLimit("max-requests", float64(s.limits.maxRequests))
	m.setLimit("max-subscriptions", float64(s.subs.listens.total))
	m.setLimit("max-subscription-uris", float64(s.subs.maxURIs))
	m.setLimit("max-tasks", float64(s.tasks.cfg.maxTasks))
	m.setLimit("client-share", float64(s.limits.clientShare))
	rate, burst := 0.0, 0.0
	if s.limiter != nil {
		rate, burst = s.limiter.rate, s.limiter.burst
	}
	m.setLimit("rate-limit", rate)
	m.setLimit("rate-burst", burst)
	m.setLimit("request-timeout-seconds", s.requestTimeout.Seconds())
}

// writeLimits writes baremcp_limit, one sample per configured limit, in
// the order of their names.
func (m *metrics) writeLimits(b *expo) {
	m.mu.Lock()
	names := make([]string, 0, len(m.limits))
	for name := range m.limits {
		names = append(names, name)
	}
	slices.Sort(names)
	values := make([]float64, len(names))
	for i, name := range names {
		values[i] = m.limits[name]
	}
	m.mu.Unlock()
	b.family("baremcp_limit", "gauge", "The configured limits, by flag (0: off or none); rates in calls a second.")
	for i, name := range names {
		b.sample("baremcp_limit", []string{"flag", name}, float(values[i]))
	}
}

// runtimeSamples are the runtime/metrics this file reads, in the order
// of runtimeSample's indexes.
var runtimeSamples = [...]string{
	"/sched/threads/total:threads",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/stacks:bytes",
	"/memory/classes/os-stacks:bytes",
	"/memory/classes/total:bytes",
	"/gc/heap/allocs:bytes",
	"/gc/heap/allocs:objects",
	"/gc/heap/frees:objects",
	"/gc/heap/tiny/allocs:objects",
	"/gc/heap/objects:objects",
	"/gc/heap/goal:bytes",
}

// The indexes of runtimeSamples.
const (
	rtThreads = iota
	rtHeapObjects
	rtHeapUnused
	rtHeapFree
	rtHeapReleased
	rtStacks
	rtOSStacks
	rtTotal
	rtAllocBytes
	rtAllocObjects
	rtFreeObjects
	rtTinyAllocs
	rtObjects
	rtGoal
)

// writeRuntime writes the process's and the Go runtime's families.
func (m *metrics) writeRuntime(b *expo) {
	b.family("process_start_time_seconds", "gauge", "Start time of the process since the Unix epoch, in seconds.")
	b.sample("process_start_time_seconds", nil, strconv.FormatFloat(float64(m.start.UnixMilli())/1e3, 'f', 3, 64))
	if p, ok := processStats(); ok {
		b.family("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.")
		b.sample("process_cpu_seconds_total", nil, float(p.cpuSeconds))
		b.family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.")
		b.sample("process_resident_memory_bytes", nil, strconv.FormatUint(p.residentBytes, 10))
		b.family("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.")
		b.sample("process_virtual_memory_bytes", nil, strconv.FormatUint(p.virtualBytes, 10))
		b.family("process_open_fds", "gauge", "Number of open file descriptors.")
		b.sample("process_open_fds", nil, strconv.Itoa(p.openFDs))
		b.family("process_max_fds", "gauge", "Maximum number of open file descriptors.")
		b.sample("process_max_fds", nil, strconv.FormatUint(p.maxFDs, 10))
	}

	var s [len(runtimeSamples)]rtmetrics.Sample
	for i, name := range runtimeSamples {
		s[i].Name = name
	}
	rtmetrics.Read(s[:])
	v := func(i int) uint64 {
		if s[i].Value.Kind() != rtmetrics.KindUint64 {
			return 0 // not in this Go release
		}
		return s[i].Value.Uint64()
	}
	b.family("go_goroutines", "gauge", "Number of goroutines that currently exist.")
	b.sample("go_goroutines", nil, strconv.Itoa(runtime.NumGoroutine()))
	b.family("go_threads", "gauge", "Number of OS threads created.")
	b.sample("go_threads", nil, strconv.FormatUint(v(rtThreads), 10))
	b.family("go_info", "gauge", "Information about the Go environment.")
	b.sample("go_info", []string{"version", runtime.Version()}, "1")

	var gc debug.GCStats
	gc.PauseQuantiles = make([]time.Duration, 5)
	debug.ReadGCStats(&gc)
	b.family("go_gc_duration_seconds", "summary", "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.")
	for i, q := range []string{"0", "0.25", "0.5", "0.75", "1"} {
		b.sample("go_gc_duration_seconds", []string{"quantile", q}, float(gc.PauseQuantiles[i].Seconds()))
	}
	b.sample("go_gc_duration_seconds_sum", nil, float(gc.PauseTotal.Seconds()))
	b.sample("go_gc_duration_seconds_count", nil, strconv.FormatInt(gc.NumGC, 10))

	memstats := []struct {
		name, typ, help string
		v               uint64
	}{
		{"go_memstats_alloc_bytes", "gauge", "Number of heap bytes allocated and currently in use.", v(rtHeapObjects)},
		{"go_memstats_alloc_bytes_total", "counter", "Total number of heap bytes allocated, even if freed.", v(rtAllocBytes)},
		{"go_memstats_sys_bytes", "gauge", "Number of bytes obtained from the system.", v(rtTotal)},
		{"go_memstats_mallocs_total", "counter", "Total number of heap objects allocated, both live and gc-ed.", v(rtAllocObjects) + v(rtTinyAllocs)},
		{"go_memstats_frees_total", "counter", "Total number of heap objects frees.", v(rtFreeObjects) + v(rtTinyAllocs)},
		{"go_memstats_heap_alloc_bytes", "gauge", "Number of heap bytes allocated and currently in use.", v(rtHeapObjects)},
		{"go_memstats_heap_sys_bytes", "gauge", "Number of heap bytes obtained from the system.", v(rtHeapObjects) + v(rtHeapUnused) + v(rtHeapFree) + v(rtHeapReleased)},
		{"go_memstats_heap_idle_bytes", "gauge", "Number of heap bytes waiting to be used.", v(rtHeapFree) + v(rtHeapReleased)},
		{"go_memstats_heap_inuse_bytes", "gauge", "Number of heap bytes that are in use.", v(rtHeapObjects) + v(rtHeapUnused)},
		{"go_memstats_heap_released_bytes", "gauge", "Number of heap bytes released to OS.", v(rtHeapReleased)},
		{"go_memstats_heap_objects", "gauge", "Number of currently allocated objects.", v(rtObjects)},
		{"go_memstats_next_gc_bytes", "gauge", "Number of heap bytes when next garbage collection will take place.", v(rtGoal)},
		{"go_memstats_stack_inuse_bytes", "gauge", "Number of bytes obtained from system for stack allocator in non-CGO environments.", v(rtStacks)},
		{"go_memstats_stack_sys_bytes", "gauge", "Number of bytes obtained from system for stack allocator.", v(rtStacks) + v(rtOSStacks)},
	}
	for _, ms := range memstats {
		b.family(ms.name, ms.typ, ms.help)
		b.sample(ms.name, nil, strconv.FormatUint(ms.v, 10))
	}
}

// procStats is what processStats reads of this process.
type procStats struct {
	cpuSeconds    float64
	residentBytes uint64
	virtualBytes  uint64
	openFDs       int
	maxFDs        uint64
}
