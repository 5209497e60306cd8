// Tests of notify_limit.go: a handler that floods its request with
// progress and log notifications sends at most the documented number.

package main

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestNotificationRateLimits runs a handler that reports progress and
// logs 2,000 times each in a loop, at once and spread over two seconds,
// in both eras, and counts what reaches the client: progress coalesced
// (at most progressBurst + progressRate*elapsed + 1, the last value always
// sent), log
// lines at most logBurst + logRate*elapsed, and a warning telling how
// many were dropped after each run of drops, all before the result.
func TestNotificationRateLimits(t *testing.T) {
	const reports = 2000
	for _, tt := range []struct {
		name     string
		pause    time.Duration // between two reports
		classic  bool
		progress int // at most
		logs     int // at most, besides the dropped-lines warnings
	}{
		{"at once", 0, false, progressBurst + 1, logBurst},
		{"at once, classic", 0, true, progressBurst + 1, logBurst},
		// 2,000 reports a millisecond apart: two seconds.
		{"over two seconds", time.Millisecond, false, progressBurst + 2*progressRate + 1, logBurst + 2*logRate},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newTestServer(t, withRegistry())
				s.addTool(tool{Name: "flood", Call: func(ctx context.Context, req *request) (*toolResult, error) {
					for i := 1; i <= reports; i++ {
						req.Progress(float64(i), reports, "")
						req.Log(levelInfo, i)
						time.Sleep(tt.pause) // the bubble's clock
					}
					return textResult("done"), nil
				}})
				c := newTestConn(t, s)
				call := reqMeta("1", "tools/call", `"name":"flood"`, `"progressToken":"p","io.modelcontextprotocol/logLevel":"debug"`)
				if tt.classic {
					c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
					c.recv()
					c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
					c.send(`{"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":{"level":"debug"}}`)
					c.recv()
					call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"flood","_meta":{"progressToken":"p"}}}`
				}
				c.send(call)
				var progress, logs, warnings int
				var last string
				for {
					line := c.recv()
					if strings.Contains(line, `"id":1,"result"`) {
						break
					}
					switch {
					case strings.Contains(line, `"notifications/progress"`):
						progress++
						last = line
					case strings.Contains(line, `"dropped"`):
						warnings++
					case strings.Contains(line, `"notifications/message"`):
						logs++
					default:
						t.Fatalf("unexpected line %s", line)
					}
				}
				if progress > tt.progress {
					t.Errorf("%d progress notifications, want at most %d", progress, tt.progress)
				}
				if !strings.Contains(last, `"progress":2000`) {
					t.Errorf("the last progress notification is %s, want progress 2000", last)
				}
				if logs > tt.logs || logs < logBurst {
					t.Errorf("%d log lines, want %d to %d", logs, logBurst, tt.logs)
				}
				if warnings < 1 || warnings > 1+tt.logs-logBurst {
					t.Errorf("%d warnings of dropped lines, want 1 to %d", warnings, 1+tt.logs-logBurst)
				}
				t.Logf("%d reports: %d progress, %d log lines, %d dropped-lines warnings", reports, progress, logs, warnings)
			})
		})
	}
}
