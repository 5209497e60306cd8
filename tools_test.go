package main

import (
	"context"
	"testing"
)

// TestStructuredContentMatchesOutputSchema: servers MUST provide structured
// results that conform to the tool's outputSchema; one that does not is a
// server bug, answered -32603 with no internals.
// [§Output Schema]: https://modelcontextprotocol.io/specification/2026-07-28/server/tools#output-schema
func TestStructuredContentMatchesOutputSchema(t *testing.T) {
	for _, tt := range []struct {
		name     string
		produced any
		isError  bool
		wantCode int // 0: a result
	}{
		{"conforming result", map[string]any{"sum": 3}, false, 0},
		{"wrong type", map[string]any{"sum": "three"}, false, codeInternalError},
		{"missing required member", map[string]any{"total": 3}, false, codeInternalError},
		{"no structuredContent", nil, false, codeInternalError},
		{"tool error needs no structuredContent", nil, true, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newEmptyServer(t)
			s.addTool(tool{
				Name:         "sum",
				OutputSchema: `{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`,
				Call: func(ctx context.Context, req *request) (*toolResult, error) {
					return &toolResult{Content: []content{textContent("x")}, StructuredContent: tt.produced, IsError: tt.isError}, nil
				},
			})
			got := serveOne(t, s, req("1", "tools/call", `"name":"sum"`))
			if code := errorCode(t, got); code != tt.wantCode {
				t.Errorf("tools/call = %s, want code %d", got, tt.wantCode)
			}
		})
	}
}
