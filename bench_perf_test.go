// Benchmarks of the hot path: the envelope decoder, the dispatcher, list
// results, and the stdio transport end to end. They assert nothing about
// time (CI machines differ); docs/PERFORMANCE.md records their numbers.
//
//	go test -run '^$' -bench . -benchmem
//	go test -run '^$' -bench StdioPipelined -cpuprofile cpu.out

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
)

// benchMeta is the _meta every modern request carries.
const benchMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"0.1.0"},` +
	`"io.modelcontextprotocol/clientCapabilities":{}}`

// benchCall is the harness's tools/call request: echo with a 32-byte message.
var benchCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"` +
	strings.Repeat("x", 32) + `"},` + benchMeta + `}}`

// benchList is the harness's tools/list request.
const benchList = `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{` + benchMeta + `}}`

// withBenchTools is the benchmarks' setup: the test registry padded with
// filler tools up to tools in all, like the bench build (registry_bench.go)
// with BENCH_TOOLS set, and no cache lifetime. Each filler has a name, a
// sentence of description and a two-property schema, about the size of a
// typical real tool.
func withBenchTools(tools int) testOption {
	const schema = `{"type":"object","properties":{"id":{"type":"string","description":"Record id"},"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["id"],"additionalProperties":false}`
	record := func(ctx context.Context, req *request) (*toolResult, error) {
		return textResult("record " + req.String("id")), nil
	}
	return func(st *testSetup) {
		withFlags("-cache-ttl", "0")(st)
		withSetup(func(s *server) {
			for i := len(s.registry().tools); i < tools; i++ {
				s.addTool(tool{Name: fmt.Sprintf("filler_%04d", i), Description: fmt.Sprintf("Filler tool %d for benchmarks: looks up a record by id and returns it as text.", i), InputSchema: schema, Call: record})
			}
		})(st)
	}
}

// benchDispatch parses and dispatches line b.N times, checking the first
// reply is a result.
func benchDispatch(b *testing.B, s *server, line string) {
	b.Helper()
	data := []byte(line)
	ctx := b.Context()
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for i := 0; b.Loop(); i++ {
		msg, rerr := parseMessage(data)
		if rerr != nil {
			b.Fatalf("parseMessage: %v", rerr)
		}
		reply := s.dispatch(ctx, &msg, exchange{})
		if i == 0 && !bytes.Contains(reply, []byte(`"result"`)) {
			b.Fatalf("dispatch(%.80s) = %.200s, want a result", line, reply)
		}
	}
}

func BenchmarkParseMessage(b *testing.B) {
	data := []byte(benchCall)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, rerr := parseMessage(data); rerr != nil {
			b.Fatal(rerr)
		}
	}
}

func BenchmarkDispatchToolsCall(b *testing.B) {
	benchDispatch(b, newTestServer(b, withBenchTools(20)), benchCall)
}

func BenchmarkDispatchToolsCall1MiB(b *testing.B) {
	line := strings.Replace(benchCall, strings.Repeat("x", 32), strings.Repeat("x", 1<<20), 1)
	benchDispatch(b, newTestServer(b, withBenchTools(20)), line)
}

func BenchmarkToolsList20(b *testing.B) {
	benchDispatch(b, newTestServer(b, withBenchTools(20)), benchList)
}

func BenchmarkToolsList1000(b *testing.B) {
	benchDispatch(b, newTestServer(b, withBenchTools(1000)), benchList)
}

// BenchmarkStdioPipelined drives serveStdio through pipes like the
// harness's stdio k=32 cell: 32 requests in flight, one reader of replies.
func BenchmarkStdioPipelined(b *testing.B) {
	for _, depth := range []int{1, 32} {
		b.Run("k="+strconv.Itoa(depth), func(b *testing.B) {
			benchStdio(b, newTestServer(b, withBenchTools(20)), depth, benchCall)
		})
	}
}

// BenchmarkStdioLogged is BenchmarkStdioPipelined with the log written
// as run writes it (batched, logLinger) to a pipe that another goroutine
// drains, as a supervisor (or the benchmark harness) reads stderr: the
// access line's whole cost, system calls included, against the same run
// with -access-log=false.
func BenchmarkStdioLogged(b *testing.B) {
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"access=on,k=32", nil},
		{"access=off,k=32", []string{"-access-log=false"}},
		{"access=on,k=1", []string{"k=1"}},
		{"access=off,k=1", []string{"-access-log=false", "k=1"}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			r, w, err := os.Pipe()
			if err != nil {
				b.Fatal(err)
			}
			drained := make(chan struct{})
			go func() {
				io.Copy(io.Discard, r)
				close(drained)
			}()
			depth, args := 32, tt.args
			if n := len(args); n > 0 && args[n-1] == "k=1" {
				depth, args = 1, args[:n-1]
			}
			linger := withConfig(func(c *config) { c.logs.linger = logLinger })
			benchStdio(b, newTestServer(b, withBenchTools(20), withFlags(args...), withLogs(w), linger), depth, benchCall)
			w.Close()
			<-drained
			r.Close()
		})
	}
}

// BenchmarkStdio1MiB is the harness's payload=1m echo over stdio, k=1.
func BenchmarkStdio1MiB(b *testing.B) {
	line := strings.Replace(benchCall, strings.Repeat("x", 32), strings.Repeat("x", 1<<20), 1)
	benchStdio(b, newTestServer(b, withBenchTools(20)), 1, line)
}

// benchStdio sends request (whose id must be 7) b.N times with depth
// requests in flight.
func benchStdio(b *testing.B, s *server, depth int, request string) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- s.serveStdio(b.Context(), inR, outW) }()

	replies := make(chan struct{}, depth)
	readErr := make(chan error, 1)
	go func() {
		r := bufio.NewReaderSize(outR, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				readErr <- err
				return
			}
			if !bytes.Contains(line, []byte(`"result"`)) {
				readErr <- fmt.Errorf("reply %.200s, want a result", line)
				return
			}
			replies <- struct{}{}
		}
	}()

	prefix, suffix, _ := strings.Cut(request, `"id":7`)
	w := bufio.NewWriterSize(inW, 64<<10)
	var line []byte
	inFlight := 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for inFlight >= depth {
			if err := w.Flush(); err != nil {
				b.Fatal(err)
			}
			select {
			case <-replies:
				inFlight--
			case err := <-readErr:
				b.Fatal(err)
			}
		}
		line = append(line[:0], prefix...)
		line = append(line, `"id":`...)
		line = strconv.AppendInt(line, int64(i), 10)
		line = append(line, suffix...)
		line = append(line, '\n')
		w.Write(line)
		inFlight++
	}
	w.Flush()
	for ; inFlight > 0; inFlight-- {
		select {
		case <-replies:
		case err := <-readErr:
			b.Fatal(err)
		}
	}
	b.StopTimer()
	inW.Close()
	if err := <-served; err != nil {
		b.Fatal(err)
	}
	outW.Close()
}

// BenchmarkDispatchToolsCallLastOf1000 calls the last of 1000 tools: the
// lookup by name must not grow with the registry.
func BenchmarkDispatchToolsCallLastOf1000(b *testing.B) {
	line := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"filler_0999","arguments":{"id":"x"},` + benchMeta + `}}`
	benchDispatch(b, newTestServer(b, withBenchTools(1000)), line)
}
