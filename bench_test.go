// Benchmarks for later comparison: go test -bench . -run ^$
// reports ns/op and allocs/op.

package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"testing"
)

// benchServer returns a server with the demo registry and n extra tools.
func benchServer(tb testing.TB, n int) *server {
	s := newServer(config{cache: cacheHint{Scope: scopePublic}}, log.New(io.Discard, "", 0))
	tb.Cleanup(registerDemo(s))
	for i := range n {
		s.addTool(tool{
			Name:        fmt.Sprintf("tool%04d", i),
			Description: "A benchmark tool with a typical schema.",
			InputSchema: `{"type":"object","properties":{"q":{"type":"string","description":"query"},"n":{"type":"integer","minimum":1}},"required":["q"]}`,
			Call: func(ctx context.Context, req *request) (*toolResult, error) {
				return textResult(req.String("q")), nil
			},
		})
	}
	return s
}

func mustParse(tb testing.TB, line string) message {
	tb.Helper()
	m, err := parseMessage([]byte(line))
	if err != nil {
		tb.Fatalf("parseMessage(%s) = %v", line, err)
	}
	return m
}

// BenchmarkToolsCall measures one tools/call of echo through the
// dispatcher: params, _meta, argument validation, the call, encoding.
func BenchmarkToolsCall(b *testing.B) {
	s := benchServer(b, 0)
	msg := mustParse(b, req("1", "tools/call", `"name":"echo","arguments":{"message":"hello"}`))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if s.dispatch(ctx, &msg, exchange{}) == nil {
			b.Fatal("no reply")
		}
	}
}

// BenchmarkParseMessage measures the strict envelope decoder alone.
func BenchmarkParseMessage(b *testing.B) {
	line := []byte(req("1", "tools/call", `"name":"echo","arguments":{"message":"hello"}`))
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseMessage(line); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolsList measures tools/list through the dispatcher. The page
// is encoded once per registry snapshot, so this is the cached path; the
// first call of each snapshot pays for encoding.
func BenchmarkToolsList(b *testing.B) {
	for _, n := range []int{20, 1000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			demo := len(benchServer(b, 0).registry().tools)
			s := benchServer(b, n-demo)
			msg := mustParse(b, req("1", "tools/list", ""))
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if s.dispatch(ctx, &msg, exchange{}) == nil {
					b.Fatal("no reply")
				}
			}
		})
	}
}
