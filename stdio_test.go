// Tests of the stdio transport (stdio.go) and of request-scoped
// notifications: framing, limits, concurrency, cancellation, EOF drain.

package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
)

// blockingTool registers "block", which reports its start on started,
// waits for its context to end or for release to close, and reports the
// context's error on observed.
func blockingTool(s *server) (started chan string, observed chan error, release chan struct{}) {
	started, observed, release = make(chan string, 16), make(chan error, 16), make(chan struct{})
	s.addTool(tool{
		Name: "block",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			req.Progress(1, 0, "started")
			started <- string(req.id)
			select {
			case <-ctx.Done():
				observed <- ctx.Err()
				req.Progress(2, 0, "after cancellation")
				return nil, ctx.Err()
			case <-release:
				observed <- nil
				return textResult("released"), nil
			}
		},
	})
	return started, observed, release
}

func waitFor[T any](tb testing.TB, ch <-chan T, what string) T {
	tb.Helper()
	select {
	case v := <-ch:
		return v
	case <-tb.Context().Done():
	}
	tb.Fatalf("no %s", what)
	var zero T
	return zero
}

func TestFraming(t *testing.T) {
	echo := func(id, msg string) string {
		return req(id, "tools/call", `"name":"echo","arguments":{"message":"`+msg+`"}`)
	}
	for _, tt := range []struct {
		name  string
		input string
		want  []string // response texts in any order, "" for an error response
	}{
		{"LF", echo("1", "a") + "\n", []string{"a"}},
		{"CRLF tolerated", echo("1", "a") + "\r\n" + echo("2", "b") + "\r\n", []string{"a", "b"}},
		{"no final newline", echo("1", "a"), []string{"a"}},
		{"blank lines ignored", "\n\r\n   \n\t\n" + echo("1", "a") + "\n\n\n" + echo("2", "b") + "\n \r\n", []string{"a", "b"}},
		{"empty input", "", nil},
		{"unknown notifications ignored", `{"jsonrpc":"2.0","method":"notifications/unknown","params":{"x":1}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + echo("1", "a") + "\n", []string{"a"}},
		{"garbage between requests", echo("1", "a") + "\n}{\n" + echo("2", "b") + "\n", []string{"a", "", "b"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, false)
			got := serveAll(t, s, tt.input)
			if len(got) != len(tt.want) {
				t.Fatalf("serve(%q) wrote %d lines, want %d:\n%s", tt.input, len(got), len(tt.want), strings.Join(got, "\n"))
			}
			var texts []string
			for _, line := range got {
				text, _ := jsonPath(mustDecode(t, line), "result.content.0.text").(string)
				texts = append(texts, text)
			}
			// Requests are answered concurrently: compare as multisets.
			slices.Sort(texts)
			want := slices.Sorted(slices.Values(tt.want))
			if !slices.Equal(texts, want) {
				t.Errorf("serve(%q) texts = %q, want %q", tt.input, texts, tt.want)
			}
		})
	}
}

func TestLongLines(t *testing.T) {
	echo := req("2", "tools/call", `"name":"echo","arguments":{"message":"next"}`)
	atLimit := req("1", "tools/call", `"name":"echo","arguments":{"message":"big"}`)
	atLimit = atLimit[:len(atLimit)-1] + strings.Repeat(" ", maxLineBytes-len(atLimit)) + "}"
	for _, tt := range []struct {
		name     string
		input    string
		wantCode int // of the first line's answer
	}{
		{"over the limit gets an error, the next line is served", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"p":"` + strings.Repeat("a", maxLineBytes) + `"}}` + "\n" + echo + "\n", codeInvalidRequest},
		{"over the limit with CRLF", strings.Repeat("x", maxLineBytes+10) + "\r\n" + echo + "\r\n", codeInvalidRequest},
		{"at the limit is served", atLimit + "\n" + echo + "\n", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, false)
			got := serveAll(t, s, tt.input)
			if len(got) != 2 {
				t.Fatalf("wrote %d lines, want 2", len(got))
			}
			first, second := got[0], got[1]
			if string(responseID(first)) == "2" {
				first, second = second, first
			}
			if errorCode(t, first) != tt.wantCode {
				t.Errorf("first answer %.200s, want code %d", first, tt.wantCode)
			}
			if !strings.Contains(second, `"text":"next"`) {
				t.Errorf("second answer %s, want the echo", second)
			}
		})
	}
	t.Run("over the limit at EOF", func(t *testing.T) {
		s, _ := newTestServer(t, false)
		got := serveAll(t, s, strings.Repeat("x", maxLineBytes+1))
		if len(got) != 1 || errorCode(t, got[0]) != codeInvalidRequest {
			t.Errorf("got %q, want one -32600", got)
		}
	})
}

func TestNotificationsNeverAnswered(t *testing.T) {
	for _, tt := range []struct{ name, line string }{
		{"unknown", `{"jsonrpc":"2.0","method":"notifications/unknown"}`},
		{"initialized", `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"cancelled for an unknown id", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}`},
		{"cancelled without params", `{"jsonrpc":"2.0","method":"notifications/cancelled"}`},
		{"cancelled with a bad requestId", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":[1]}}`},
		{"a request method without id", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"message":"x"},"_meta":` + metaJSON + `}}`},
		{"unknown method without id", `{"jsonrpc":"2.0","method":"nope"}`},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","method":"notifications/initialized"}`},
		{"params not an object", `{"jsonrpc":"2.0","method":"notifications/initialized","params":[]}`},
		{"smuggled key", `{"jsonrpc":"2.0","method":"notifications/initialized","METHOD":"tools/call"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, false)
			if got := serveAll(t, s, tt.line+"\n"); len(got) != 0 {
				t.Errorf("serve(%s) wrote %q, want nothing", tt.line, got)
			}
		})
	}
}

func TestNotificationOrdering(t *testing.T) {
	// Two slow requests run at once on one connection; each request's
	// notifications come before its own response.
	s, _ := newTestServer(t, true)
	call := func(id, token string) string {
		return reqMeta(id, "tools/call", `"name":"slow","arguments":{"steps":3}`, `"progressToken":"`+token+`","io.modelcontextprotocol/logLevel":"debug"`)
	}
	got := serveAll(t, s, call("1", "a")+"\n"+call("2", "b")+"\n"+req("3", "tools/call", `"name":"slow","arguments":{"steps":2}`)+"\n")
	progress := map[string]int{}
	logs := 0
	answered := map[string]bool{}
	for _, line := range got {
		m := mustDecode(t, line)
		switch m["method"] {
		case "notifications/progress":
			tok, _ := jsonPath(m, "params.progressToken").(string)
			id := map[string]string{"a": "1", "b": "2"}[tok]
			if id == "" || answered[id] {
				t.Errorf("progress %s after its response or for no request", line)
			}
			progress[tok]++
		case "notifications/message":
			logs++
		default:
			answered[string(responseID(line))] = true
		}
	}
	if progress["a"] != 3 || progress["b"] != 3 || logs != 6 || len(answered) != 3 {
		t.Errorf("progress %v, %d logs, %d responses; want 3 each, 6, 3:\n%s", progress, logs, len(answered), strings.Join(got, "\n"))
	}
}

func TestConcurrency(t *testing.T) {
	t.Run("a slow handler does not block a fast one", func(t *testing.T) {
		s, _ := newTestServer(t, false)
		started, _, release := blockingTool(s)
		c := newTestConn(t, s)
		c.send(req("1", "tools/call", `"name":"block"`))
		waitFor(t, started, "start")
		c.send(req("2", "tools/call", `"name":"echo","arguments":{"message":"fast"}`))
		if got := c.recv(); string(responseID(got)) != "2" {
			t.Errorf("first answer %s, want id 2", got)
		}
		close(release)
		if got := c.recv(); string(responseID(got)) != "1" {
			t.Errorf("second answer %s, want id 1", got)
		}
	})
	t.Run("an id already in flight is refused", func(t *testing.T) {
		s, _ := newTestServer(t, false)
		started, _, release := blockingTool(s)
		c := newTestConn(t, s)
		c.send(req("1", "tools/call", `"name":"block"`))
		waitFor(t, started, "start")
		c.send(req("1", "tools/call", `"name":"echo","arguments":{"message":"dup"}`))
		if got := c.recv(); errorCode(t, got) != codeInvalidRequest || string(responseID(got)) != "1" {
			t.Errorf("duplicate id: %s, want -32600 with id 1", got)
		}
		// 1 and "1" are different ids.
		c.send(req(`"1"`, "tools/call", `"name":"echo","arguments":{"message":"string id"}`))
		if got := c.recv(); !strings.Contains(got, "string id") {
			t.Errorf("string id 1: %s, want the echo", got)
		}
		close(release)
		c.recv()
	})
}

func TestCancellation(t *testing.T) {
	for _, tt := range []struct {
		name, id, cancelID string
	}{
		{"integer id", `7`, `7`},
		{"string id", `"job-7"`, `"job-7"`},
		{"escaped string id", `"\u006aob"`, `"job"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, false)
			started, observed, _ := blockingTool(s)
			c := newTestConn(t, s)
			c.send(reqMeta(tt.id, "tools/call", `"name":"block"`, `"progressToken":"p"`))
			waitFor(t, started, "start")
			if got := c.recv(); !strings.Contains(got, `"message":"started"`) {
				t.Fatalf("got %s, want the start progress", got)
			}
			c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + tt.cancelID + `,"reason":"user"}}`)
			if err := waitFor(t, observed, "cancellation"); err != context.Canceled {
				t.Fatalf("handler context ended with %v, want context.Canceled", err)
			}
			c.send(req("99", "tools/call", `"name":"echo","arguments":{"message":"after"}`))
			rest := []string{c.recv()}
			rest = append(rest, c.close()...)
			if len(rest) != 1 || string(responseID(rest[0])) != "99" {
				t.Errorf("after cancelling, the server wrote:\n%s\nwant only the answer to 99", strings.Join(rest, "\n"))
			}
		})
	}
	t.Run("cancelling a different id does nothing", func(t *testing.T) {
		s, _ := newTestServer(t, false)
		started, _, release := blockingTool(s)
		c := newTestConn(t, s)
		c.send(req("7", "tools/call", `"name":"block"`))
		waitFor(t, started, "start")
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"7"}}`)
		close(release)
		if got := c.recv(); !strings.Contains(got, "released") {
			t.Errorf("got %s, want the released answer", got)
		}
	})
}

// eofReader serves data, then reports EOF and closes eof.
type eofReader struct {
	r    io.Reader
	once sync.Once
	eof  chan struct{}
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		e.once.Do(func() { close(e.eof) })
	}
	return n, err
}

func TestEOFDrain(t *testing.T) {
	const n = 100
	s, _ := newTestServer(t, false)
	in := &eofReader{eof: make(chan struct{})}
	s.addTool(tool{
		Name: "afterEOF",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			// Answer only once stdin has ended, so every response is
			// written after EOF.
			select {
			case <-in.eof:
				return textResult("late " + string(req.id)), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	})
	var b strings.Builder
	for i := range n {
		b.WriteString(req(fmt.Sprint(i), "tools/call", `"name":"afterEOF"`) + "\n")
	}
	in.r = strings.NewReader(b.String())
	var out syncBuffer
	if err := s.serveStdio(t.Context(), in, &out); err != nil {
		t.Fatalf("serveStdio = %v", err)
	}
	got := map[string]bool{}
	for _, line := range splitLines(out.String()) {
		if !strings.Contains(line, `"text":"late `) {
			t.Errorf("unexpected line %s", line)
		}
		got[string(responseID(line))] = true
	}
	if len(got) != n {
		t.Errorf("serveStdio returned after %d of %d responses", len(got), n)
	}
}

func TestRunExitsCleanlyAtEOF(t *testing.T) {
	if !runServesDemo {
		t.Skip("drives run, which serves the demo registry only in the default build")
	}
	out, err := runOnce(t, nil, req("1", "tools/call", `"name":"slow","arguments":{"steps":1}`))
	if err != nil || !strings.Contains(out, "done after 1 steps") {
		t.Errorf("run = %v, wrote %s; want nil and the slow answer", err, out)
	}
}
