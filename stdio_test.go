// Tests of the stdio transport (stdio.go) and of request-scoped
// notifications: framing, limits, concurrency, cancellation, EOF drain,
// a client that stops reading or answering, and the fuzz targets of the
// line reader and the whole stdio server. testConn, the live connection
// every stdio test and transcript uses, is here too.

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

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
			s := newTestServer(t)
			got := mustServeAll(t, s, tt.input)
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
			s := newTestServer(t)
			got := mustServeAll(t, s, tt.input)
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
		s := newTestServer(t)
		got := mustServeAll(t, s, strings.Repeat("x", maxLineBytes+1))
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
			s := newTestServer(t)
			if got := mustServeAll(t, s, tt.line+"\n"); len(got) != 0 {
				t.Errorf("serve(%s) wrote %q, want nothing", tt.line, got)
			}
		})
	}
}

func TestNotificationOrdering(t *testing.T) {
	// Two slow requests run at once on one connection; each request's
	// notifications come before its own response.
	s := newTestServer(t, withRegistry("base", "extras"))
	call := func(id, token string) string {
		return reqMeta(id, "tools/call", `"name":"slow","arguments":{"steps":3}`, `"progressToken":"`+token+`","io.modelcontextprotocol/logLevel":"debug"`)
	}
	got := mustServeAll(t, s, call("1", "a")+"\n"+call("2", "b")+"\n"+req("3", "tools/call", `"name":"slow","arguments":{"steps":2}`)+"\n")
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

// newTestGatedConn returns a stdio connection on which request id is
// running the gate tool, and the gates that release it.
func newTestGatedConn(tb testing.TB, id string) (*testConn, *testGates) {
	tb.Helper()
	g := newTestGates()
	c := newTestConn(tb, newTestServer(tb, withGates(g)))
	c.send(req(id, "tools/call", `"name":"gate"`))
	mustReceive(tb, g.started)
	return c, g
}

func TestConcurrency(t *testing.T) {
	t.Run("a slow handler does not block a fast one", func(t *testing.T) {
		c, g := newTestGatedConn(t, "1")
		c.send(req("2", "tools/call", `"name":"echo","arguments":{"message":"fast"}`))
		if got := c.recv(); string(responseID(got)) != "2" {
			t.Errorf("first answer %s, want id 2", got)
		}
		close(g.release)
		if got := c.recv(); string(responseID(got)) != "1" {
			t.Errorf("second answer %s, want id 1", got)
		}
	})
	t.Run("an id already in flight is refused", func(t *testing.T) {
		c, g := newTestGatedConn(t, "1")
		c.send(req("1", "tools/call", `"name":"echo","arguments":{"message":"dup"}`))
		if got := c.recv(); errorCode(t, got) != codeInvalidRequest || string(responseID(got)) != "1" {
			t.Errorf("duplicate id: %s, want -32600 with id 1", got)
		}
		// 1 and "1" are different ids.
		c.send(req(`"1"`, "tools/call", `"name":"echo","arguments":{"message":"string id"}`))
		if got := c.recv(); !strings.Contains(got, "string id") {
			t.Errorf("string id 1: %s, want the echo", got)
		}
		close(g.release)
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
			g := newTestGates()
			c := newTestConn(t, newTestServer(t, withGates(g)))
			c.send(reqMeta(tt.id, "tools/call", `"name":"gate"`, `"progressToken":"p"`))
			mustReceive(t, g.started)
			if got := c.recv(); !strings.Contains(got, `"message":"started"`) {
				t.Fatalf("got %s, want the start progress", got)
			}
			c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + tt.cancelID + `,"reason":"user"}}`)
			if err := mustReceive(t, g.cancelled); err != context.Canceled {
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
		g := newTestGates()
		c := newTestConn(t, newTestServer(t, withGates(g)))
		c.send(req("7", "tools/call", `"name":"gate"`))
		mustReceive(t, g.started)
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"7"}}`)
		close(g.release)
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
	s := newTestServer(t)
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
	out, err := runOnce(t, nil, req("1", "server/discover", ""))
	if err != nil || !strings.Contains(out, `"id":1,"result"`) {
		t.Errorf("run = %v, wrote %s; want nil and the answer", err, out)
	}
}

// TestStdioAnswersReadWhileRequestSlotsAreFull: when every request slot is
// held by a bridged classic request waiting for the client's answer, the
// stdio reader must still read those answers, however many requests wait
// behind them (up to maxStdioWaiting). Blocking it on a slot for the next
// request left the answers unread until -input-timeout; blocking it on
// the second left them unread for good (GAPS row 37). The requests that
// waited are answered once the slots free.
func TestStdioAnswersReadWhileRequestSlotsAreFull(t *testing.T) {
	ping := func(id string) string { return `{"jsonrpc":"2.0","id":"` + id + `","method":"ping"}` }
	for _, tt := range []struct {
		name string
		next []string // the requests that find every slot taken
	}{
		{"next is a ping", []string{ping("p")}},
		{"next is another bridged call", []string{`{"jsonrpc":"2.0","id":"c3","method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/c"}}}`}},
		{"two requests wait", []string{ping("p1"), ping("p2")}},
		{"forty requests wait", func() (l []string) {
			for i := range 40 {
				l = append(l, ping(fmt.Sprintf("p%d", i)))
			}
			return l
		}()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, asks := newTestConnSlotsAsking(t)
			for _, l := range tt.next {
				c.send(l)
			}
			for _, ask := range asks {
				id := jsonPath(mustDecode(t, ask), "id").(string)
				c.send(`{"jsonrpc":"2.0","id":"` + id + `","result":{"action":"accept","content":{"confirm":false}}}`)
			}
			want := map[string]bool{"c1": true, "c2": true}
			for _, l := range tt.next {
				if !strings.Contains(l, "confirm_delete") { // c3 asks in turn, and is not answered here
					want[jsonPath(mustDecode(t, l), "id").(string)] = true
				}
			}
			for len(want) > 0 {
				line := c.recv()
				if id, ok := jsonPath(mustDecode(t, line), "id").(string); ok && strings.Contains(line, `"result"`) {
					delete(want, id)
				}
			}
		})
	}
}

// newTestConnSlotsAsking returns a classic stdio connection with two
// request slots (-input-timeout 1h), both held by confirm_delete calls
// c1 and c2 waiting for the client's answer, and the two
// elicitation/create lines they wrote.
func newTestConnSlotsAsking(tb testing.TB) (*testConn, []string) {
	tb.Helper()
	c := newTestConn(tb, newTestServer(tb, withFlags("-max-requests", "2", "-max-subscriptions", "1", "-input-timeout", "1h")))
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	c.recv()
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/a"}}}`)
	c.send(`{"jsonrpc":"2.0","id":"c2","method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/b"}}}`)
	var asks []string
	for len(asks) < 2 {
		line := c.recv()
		if strings.Contains(line, `"elicitation/create"`) {
			asks = append(asks, line)
		}
	}
	return c, asks
}

// TestStdioEOFWhileRequestSlotsAreFull: stdin ends while the reader
// waits for a slot for the line it read last, every slot held by a
// bridged request. No answer can arrive any more, so the waiting
// requests fail at once, the line read is still served, and serveStdio
// returns: GAPS "MRTR bridging" (review A, finding 2: the end went
// unnoticed until -input-timeout, an hour here).
func TestStdioEOFWhileRequestSlotsAreFull(t *testing.T) {
	c, _ := newTestConnSlotsAsking(t)
	c.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	c.closeInput()
	got := map[string]string{}
	for _, line := range c.drain() {
		if id, ok := jsonPath(mustDecode(t, line), "id").(string); ok {
			got[id] = line
		}
	}
	if err := c.wait(); err != nil {
		t.Errorf("serveStdio = %v", err)
	}
	for _, id := range []string{"c1", "c2", "p"} {
		if got[id] == "" {
			t.Errorf("no answer to %s after EOF; answers: %q", id, got)
		}
	}
	if !strings.Contains(got["p"], `"result":{}`) {
		t.Errorf("ping read before EOF answered %s, want an empty result", got["p"])
	}
}

// TestStdioNothingAfterResponse: a goroutine of a handler that reports
// progress after its handler returned writes nothing after the
// response: notifications of a request stop at its completion (review A,
// finding 6: the progress line followed the result on stdio).
func TestStdioNothingAfterResponse(t *testing.T) {
	s := newTestServer(t)
	late := make(chan *request, 1)
	s.addTool(tool{Name: "straggler", Call: func(ctx context.Context, req *request) (*toolResult, error) {
		late <- req
		return textResult("done"), nil
	}})
	c := newTestConn(t, s)
	c.send(reqMeta("1", "tools/call", `"name":"straggler","arguments":{}`, `"progressToken":"t"`))
	if first := c.recv(); !strings.Contains(first, `"id":1,"result"`) {
		t.Fatalf("first line %s, want the result", first)
	}
	(<-late).Progress(1, 2, "after the response")
	c.send(req("2", "server/discover", ""))
	if next := c.recv(); !strings.Contains(next, `"id":2,"result"`) {
		t.Errorf("after the response: %s, want the next request's answer", next)
	}
}

// stallingWriter blocks its first Write until release is closed, as a
// client that stops reading stdout would; it signals stalled on entry.
type stallingWriter struct {
	once    sync.Once
	stalled chan struct{}
	release chan struct{}
	mu      sync.Mutex // guards buf
	buf     bytes.Buffer
}

func (w *stallingWriter) Write(p []byte) (int, error) {
	first := false
	w.once.Do(func() { first = true })
	if first {
		close(w.stalled)
		<-w.release
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// TestStdioCancelWhileStdoutStalls: a notifications/cancelled for a request
// whose own write is stuck on a stalled stdout is still handled, and the
// reader goes on to the next line: no lock is held across the Write.
func TestStdioCancelWhileStdoutStalls(t *testing.T) {
	s := newTestServer(t, withRegistry())
	ran := make(chan struct{})
	s.addTool(tool{Name: "chatty", Call: func(ctx context.Context, req *request) (*toolResult, error) {
		req.Progress(1, 2, "first") // stalls in Write
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	s.addTool(tool{Name: "mark", Call: func(ctx context.Context, req *request) (*toolResult, error) {
		close(ran)
		return textResult("ok"), nil
	}})
	out := &stallingWriter{stalled: make(chan struct{}), release: make(chan struct{})}
	inR, inW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- s.serveStdio(t.Context(), inR, out) }()
	meta := `"_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	write := func(line string) {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"chatty",` + meta + `}}`)
	<-out.stalled
	write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}`)
	write(`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"mark",` + meta + `}}`)
	select {
	case <-ran:
	case <-time.After(testWait):
		t.Fatal("the reader did not reach the next request while stdout stalled")
	}
	close(out.release)
	inW.Close()
	if err := <-served; err != nil {
		t.Fatalf("serveStdio = %v", err)
	}
	if got := out.buf.String(); strings.Contains(got, `"id":"a"`) {
		t.Errorf("a response was written for the cancelled request: %s", got)
	}
}

// TestStdioCorkedStdoutStalls: when stdout stalls in the write of the
// answers to lines the reader refused, the reader is not the one
// writing: the next line is still served.
func TestStdioCorkedStdoutStalls(t *testing.T) {
	s := newTestServer(t, withRegistry())
	ran := make(chan struct{})
	s.addTool(tool{Name: "mark", Call: func(ctx context.Context, req *request) (*toolResult, error) {
		close(ran)
		return textResult("ok"), nil
	}})
	out := &stallingWriter{stalled: make(chan struct{}), release: make(chan struct{})}
	inR, inW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- s.serveStdio(t.Context(), inR, out) }()
	// Two lines in one write: the reader answers both (parse errors), and
	// stdout stalls in their write.
	if _, err := io.WriteString(inW, "{bad\n{bad\n"); err != nil {
		t.Fatal(err)
	}
	<-out.stalled
	if _, err := io.WriteString(inW, req(`"b"`, "tools/call", `"name":"mark"`)+"\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ran:
	case <-time.After(testWait):
		t.Error("the reader did not reach the next request while stdout stalled")
	}
	close(out.release)
	inW.Close()
	if err := <-served; err != nil {
		t.Fatalf("serveStdio = %v", err)
	}
	got := out.buf.String()
	if n := strings.Count(got, `"code":-32700`); n != 2 || !strings.Contains(got, `"id":"b"`) {
		t.Errorf("output %s, want two parse errors and the answer to b", got)
	}
}

// mustServeAll feeds input to s.serveStdio, waits for it to return (EOF drains
// every request) and returns what it wrote, one string per line.
func mustServeAll(tb testing.TB, s *server, input string) []string {
	tb.Helper()
	var out syncBuffer
	if err := s.serveStdio(tb.Context(), strings.NewReader(input), &out); err != nil {
		tb.Fatalf("serveStdio = %v", err)
	}
	return splitLines(out.String())
}

// mustServeOne sends one line and returns the one line written back, failing
// the test on any other number of lines.
func mustServeOne(tb testing.TB, s *server, line string) string {
	tb.Helper()
	got := mustServeAll(tb, s, line+"\n")
	if len(got) != 1 {
		tb.Fatalf("serve(%s) wrote %d lines, want 1:\n%s", line, len(got), strings.Join(got, "\n"))
	}
	return got[0]
}

func splitLines(s string) []string {
	var out []string
	for line := range strings.Lines(s) {
		out = append(out, strings.TrimSuffix(line, "\n"))
	}
	return out
}

// testConn is a live stdio connection to a serve function: lines written
// to its stdin in order, lines read from its stdout as they come. Its
// send never blocks (a writer goroutine feeds stdin), so a server that
// stops reading its input fails a recv instead of hanging the test. Its
// waits are bounded by testWait on the clock of whoever calls, so inside
// a testing/synctest bubble a missing line fails at once instead of
// hanging.
type testConn struct {
	tb     testing.TB
	in     chan string        // lines for serve's stdin; closeInput ends it
	lines  chan string        // serve's stdout lines, closed after serve returned
	served chan error         // serve's result
	cancel context.CancelFunc // ends serve's context
	inR    *io.PipeReader     // serve's stdin, closed when the test ends

	closeOnce sync.Once
	once      sync.Once
	err       error // serve's result, once awaited
	finished  bool  // the test awaited serve itself
}

// newTestConn serves s.serveStdio on a fresh connection.
func newTestConn(tb testing.TB, s *server) *testConn {
	tb.Helper()
	return newTestServeConn(tb, s.serveStdio)
}

// newTestServeConn starts serve on fresh pipes with a context that cancel
// ends. When the test ends, stdin is closed, the context cancelled and
// serve awaited (its error reported unless the test awaited it itself).
func newTestServeConn(tb testing.TB, serve func(ctx context.Context, in io.Reader, out io.Writer) error) *testConn {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &testConn{tb: tb, in: make(chan string, 4096), lines: make(chan string, 4096), served: make(chan error, 1), cancel: cancel, inR: inR}
	go func() {
		defer inW.Close()
		for line := range c.in {
			if _, err := io.WriteString(inW, line+"\n"); err != nil {
				return
			}
		}
	}()
	go func() {
		err := serve(ctx, inR, outW)
		outW.Close()
		c.served <- err
	}()
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()
	tb.Cleanup(func() {
		if c.finished {
			return
		}
		if err := c.finish(); err != nil {
			tb.Errorf("serve = %v", err)
		}
	})
	return c
}

// send queues one raw line for stdin (a newline is added).
func (c *testConn) send(line string) {
	c.in <- line
}

// closeInput ends stdin once the lines sent before are written.
func (c *testConn) closeInput() {
	c.closeOnce.Do(func() { close(c.in) })
}

// recv returns the next line the server writes.
func (c *testConn) recv() string {
	c.tb.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.tb.Fatal("recv: the server closed its output")
		}
		return line
	case <-time.After(testWait):
		c.tb.Fatalf("recv: no line from the server within %v", testWait)
	}
	return ""
}

// drain returns every line until stdout ends (serve has returned).
func (c *testConn) drain() []string {
	c.tb.Helper()
	var out []string
	deadline := time.After(testWait)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				return out
			}
			out = append(out, line)
		case <-deadline:
			c.tb.Fatalf("drain: stdout did not end; got %q", out)
		}
	}
}

// wait returns serve's result, which the stdout reader has seen end.
// Once serve has returned nothing reads stdin: closing it releases the
// writer goroutine from lines serve never read.
func (c *testConn) wait() error {
	c.once.Do(func() {
		select {
		case c.err = <-c.served:
		case <-time.After(testWait):
			c.err = errors.New("serve did not return")
		}
		c.inR.Close()
	})
	return c.err
}

// close ends stdin, waits for serve to drain and return, reports its error
// and returns the lines it wrote since the last recv.
func (c *testConn) close() []string {
	c.tb.Helper()
	c.finished = true
	c.closeInput()
	rest := c.drain()
	if err := c.wait(); err != nil {
		c.tb.Errorf("serve = %v", err)
	}
	return rest
}

// finish closes stdin, cancels serve's context, discards what serve still
// writes and returns what serve returned. Later calls return the same. It
// never blocks past testWait, so a failed test ends instead of hanging (in
// a bubble, whatever is still blocked is then reported as a deadlock).
func (c *testConn) finish() error {
	c.finished = true
	c.closeInput()
	c.cancel()
	deadline := time.After(testWait)
	for {
		select {
		case _, ok := <-c.lines:
			if !ok {
				return c.wait()
			}
		case <-deadline:
			return errors.New("serve did not return after stdin closed")
		}
	}
}

// chunkReader returns at most n bytes per Read, to exercise buffer seams.
type chunkReader struct {
	r io.Reader
	n int
}

func (c chunkReader) Read(p []byte) (int, error) {
	if len(p) > c.n {
		p = p[:c.n]
	}
	return c.r.Read(p)
}

func FuzzReadLines(f *testing.F) {
	for _, seed := range []struct {
		data  string
		chunk uint16
	}{
		{"a\nb\n", 1},
		{"a\r\nb", 2},
		{"\n\n \t\r\n{}\n", 3},
		{"x\r\r\n\ry", 1},
		{strings.Repeat("z", 70000) + "\nend", 4096},
		// Long lines after a longer one, a shorter one and one of the same
		// size: lineReader sizes a long line's buffer by the last one.
		{strings.Repeat("a", 200000) + "\n" + strings.Repeat("b", 70000) + "\n" + strings.Repeat("c", 300000) + "\r\n" + strings.Repeat("d", 300000) + "\nx", 8192},
		{"no newline at end", 5},
	} {
		f.Add([]byte(seed.data), seed.chunk)
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16) {
		lr := newLineReader(chunkReader{bytes.NewReader(data), int(chunk%8192) + 1})
		var got [][]byte
		for {
			l, err := lr.next()
			if err != nil {
				if err != io.EOF {
					t.Fatalf("lineReader.next ended with %v, want io.EOF", err)
				}
				break
			}
			got = append(got, l)
		}
		// The reference: split on LF, strip trailing CR/LF, drop blank
		// lines. Every line is below maxLineBytes here.
		var want [][]byte
		for seg := range bytes.SplitSeq(data, []byte("\n")) {
			seg = bytes.TrimRight(seg, "\r\n")
			if len(bytes.TrimSpace(seg)) > 0 {
				want = append(want, seg)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("lineReader(%q) = %q, want %q", data, got, want)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("line %d = %q, want %q", i, got[i], want[i])
			}
		}
	})
}

func FuzzStdioServe(f *testing.F) {
	for _, seed := range []string{
		req("1", "tools/call", `"name":"echo","arguments":{"message":"hi"}`) + "\n" + req("2", "tools/list", ""),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"steps":3},"_meta":{"progressToken":"p",` + metaMember[len(`"_meta":{`):] + `}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		req("1", "resources/read", `"uri":"demo://items/42"`) + "\r\n" + req("1", "prompts/get", `"name":"greet","arguments":{"name":"x"}`),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","METHOD":"x"}` + "\n[1]\n{\n\"\xff\"",
		req("7", "completion/complete", `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"a"}`),
		classicInitialize(1, version20250326) + "\n" + `[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}},[1],{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var logs syncBuffer
		s := newTestServer(t, withFuzzLimits(), withLogs(&logs))
		var out bytes.Buffer
		start := time.Now()
		if err := s.serveStdio(context.Background(), bytes.NewReader(data), &out); err != nil {
			t.Fatalf("serveStdio: %v", err)
		}
		if d := time.Since(start); d > fuzzInputBudget {
			t.Errorf("serveStdio took %v on %q", d, data)
		}
		if strings.Contains(logs.String(), "panic") {
			t.Fatalf("handler panicked on %q: %s", data, logs.String())
		}
		// Every request with a readable id is answered once, with that id;
		// nothing else is written but notifications.
		// The messages of a batch line count as sent, and a batch answer
		// is an array of replies.
		ids := map[string]int{}
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			line = bytes.TrimRight(line, "\r\n")
			msgs := [][]byte{line}
			if entries, rerr := splitBatch(line); rerr == nil {
				msgs = entries
			}
			for _, l := range msgs {
				if m, _ := parseMessage(l); m.id != nil {
					ids[idKey(m.id)]++
				}
			}
		}
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 2*maxLineBytes)
		for sc.Scan() {
			replies := [][]byte{sc.Bytes()}
			if bytes.HasPrefix(sc.Bytes(), []byte("[")) {
				// A batch answer: at most as many replies as a batch has
				// entries, so splitBatch cuts it.
				var rerr *rpcError
				if replies, rerr = splitBatch(sc.Bytes()); rerr != nil {
					t.Fatalf("server wrote %q: %v", sc.Bytes(), rerr)
				}
			}
			for _, r := range replies {
				id, notification, ok := parseOutgoing(r)
				if !ok {
					t.Fatalf("server wrote %q", sc.Bytes())
				}
				if notification || string(id) == "null" {
					continue // notification, or an error for an unreadable id
				}
				// Each reply answers a request that was sent (a cancelled or
				// duplicate id may get fewer replies, never more).
				k := idKey(id)
				if ids[k] == 0 {
					t.Fatalf("reply %s answers no request in %q", r, data)
				}
				ids[k]--
			}
		}
	})
}

// countingWriter records each Write it receives.
type countingWriter struct {
	mu     sync.Mutex // guards writes, buf
	writes int
	buf    bytes.Buffer
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return w.buf.Write(p)
}

func TestStdioWriteKeepsLinesWholeAndInOrder(t *testing.T) {
	const writers, lines = 8, 200
	out := &countingWriter{}
	c := newStdioConn(newTestServer(t, withRegistry()), out)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range lines {
				c.out.write(fmt.Appendf(nil, `{"w":%d,"i":%d}`+"\n", w, i), false)
			}
		})
	}
	wg.Wait()
	c.out.close()
	next := make([]int, writers)
	got := strings.Split(strings.TrimSuffix(out.buf.String(), "\n"), "\n")
	for _, line := range got {
		var w, i int
		if _, err := fmt.Sscanf(line, `{"w":%d,"i":%d}`, &w, &i); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if i != next[w] {
			t.Fatalf("writer %d: line %d after %d, want in order", w, i, next[w]-1)
		}
		next[w]++
	}
	if len(got) != writers*lines {
		t.Errorf("got %d lines, want %d", len(got), writers*lines)
	}
	t.Logf("%d lines in %d writes", len(got), out.writes)
}

// TestLogQuotesClientStrings: a client-derived value that reaches the log
// (here a resource URI inside a reader's plain error, logged under a
// reference) is escaped, so a client cannot forge log lines or send
// terminal control sequences to the operator's terminal.
func TestLogQuotesClientStrings(t *testing.T) {
	logs := &syncBuffer{}
	s := newTestServer(t, withLogs(logs), withSetup(func(s *server) {
		s.addTemplate(resourceTemplate{URITemplate: "test://fail/{x}", Name: "fail",
			Read: func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
				return nil, fmt.Errorf("cannot read %s", uri)
			}})
	}))
	c := newTestConn(t, s)
	c.send(req("1", "resources/read", `"uri":"test://fail/x\u001b[2J\nlevel=ERROR msg=forged"`))
	if got := c.recv(); !strings.Contains(got, `"message":"internal error"`) {
		t.Fatalf("reply = %s, want an internal error", got)
	}
	c.close()
	got := logs.String()
	if !strings.Contains(got, "cannot read test://fail/x") {
		t.Fatalf("log has no line for the failure: %q", got)
	}
	// Two lines: the internal error, and the request's access line.
	if strings.ContainsRune(got, 0x1b) || strings.Count(got, "\n") != 2 || strings.Count(got, "\ntime=") != 1 {
		t.Errorf("client URI reached the log unescaped: %q", got)
	}
}

// TestStdioPipelinedHandshake pipes initialize and the requests after it
// in one write, without waiting for the answer, as scripts and simple
// clients do, a hundred times: every request after initialize is served
// in the negotiated session (never -32602 "send initialize first"), and a
// request piped before initialize is always refused, however the workers
// are scheduled (issue 17).
// [§Initialization]: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization
func TestStdioPipelinedHandshake(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":0,"method":"tools/list"}`,
		classicInitialize(1, version20250618),
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`,
	}, "\n") + "\n"
	s := newTestServer(t)
	for i := range 100 {
		var out syncBuffer
		if err := s.serveStdio(t.Context(), strings.NewReader(in), &out); err != nil {
			t.Fatalf("run %d: serveStdio = %v", i, err)
		}
		codes := map[string]int{}
		for line := range strings.Lines(out.String()) {
			id := responseID(strings.TrimSpace(line))
			if id == nil {
				t.Fatalf("run %d: %q is not a response", i, line)
			}
			code := 0
			if _, rest, isError := strings.Cut(line, `"error":{"code":`); isError {
				fmt.Sscan(strings.TrimRight(rest, "}\n"), &code)
			}
			codes[string(id)] = code
		}
		want := map[string]int{"0": codeInvalidParams, "1": 0, "2": 0, "3": 0}
		if !maps.Equal(codes, want) {
			t.Fatalf("run %d: error codes by id %v, want %v\n%s", i, codes, want, out.String())
		}
	}
}

// TestStdioPipelinedInitialized pipes initialize, notifications/initialized
// and a registry change at once: the notification is handled after the
// handshake, so the session is told of the change.
// [§List Changed Notification]: https://modelcontextprotocol.io/specification/2025-11-25/server/tools#list-changed-notification
func TestStdioPipelinedInitialized(t *testing.T) {
	c := newTestConn(t, newTestServer(t))
	c.send(classicInitialize(1, version20251125) + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"toggle_extra_tool","arguments":{}}}`)
	got := []string{c.recv(), c.recv(), c.recv()}
	if !slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, `"notifications/tools/list_changed"`) }) {
		t.Errorf("pipelined initialize, initialized and a registry change wrote\n%s\nwant a notifications/tools/list_changed among them", strings.Join(got, "\n"))
	}
}

// TestLogsQuoteClientText drives every path by which a client's text
// reaches the server's log (an internal error that quotes a URI, a
// completion value, a prompt argument or a file path the client named; a
// panic value; the id of an unexpected response) with a value that would
// forge a log line and clear the terminal. Each event is one log line,
// the value quoted by the text handler: no raw newline, no escape byte.
// Issue 20, finding 2.
func TestLogsQuoteClientText(t *testing.T) {
	const forged = `x\u001b[2J\nlevel=ERROR msg=forged`
	for _, tt := range []struct {
		name  string
		line  string
		setup func(s *server)
		want  string // the log line's message
	}{
		{"a resource URI in a reader's error",
			req("1", "resources/read", `"uri":"test://fail/`+forged+`"`),
			func(s *server) {
				s.addTemplate(resourceTemplate{URITemplate: "test://fail/{x}", Name: "fail",
					Read: func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
						return nil, fmt.Errorf("cannot read %s", uri)
					}})
			}, `msg="internal error"`},
		{"a completion value in a completer's error",
			req("1", "completion/complete", `"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"`+forged+`"}`),
			func(s *server) {
				s.addPrompt(prompt{Name: "p", Arguments: []promptArgument{{Name: "a", Complete: func(ctx context.Context, value string, args map[string]string) ([]string, error) {
					return nil, fmt.Errorf("no match for %s", value)
				}}}, Get: func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
					return &promptResult{}, nil
				}})
			}, `msg="internal error"`},
		{"a prompt argument in a prompt's error",
			req("1", "prompts/get", `"name":"p","arguments":{"a":"`+forged+`"}`),
			func(s *server) {
				s.addPrompt(prompt{Name: "p", Arguments: []promptArgument{{Name: "a"}},
					Get: func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
						return nil, fmt.Errorf("cannot render %s", args["a"])
					}})
			}, `msg="internal error"`},
		{"a file path in a tool's internal error",
			req("1", "tools/call", `"name":"open","arguments":{"path":"/nonexistent/`+forged+`"}`),
			func(s *server) {
				s.addTool(tool{Name: "open", Call: func(ctx context.Context, req *request) (*toolResult, error) {
					_, err := os.ReadFile(req.String("path"))
					return nil, err
				}})
			}, `msg="internal error"`},
		{"a panic value",
			req("1", "tools/call", `"name":"boom","arguments":{"v":"`+forged+`"}`),
			func(s *server) {
				s.addTool(tool{Name: "boom", Call: func(ctx context.Context, req *request) (*toolResult, error) {
					panic("bad value " + req.String("v"))
				}})
			}, `msg="handler panicked"`},
		// The id is logged as the JSON it was sent as: its escapes stay
		// escapes (JSON strings hold no raw control character).
		{"the id of a response to nothing",
			`{"jsonrpc":"2.0","id":"` + forged + `","result":{}}`,
			nil, `msg="ignoring a response to no pending request"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			logs := &syncBuffer{}
			opts := []testOption{withRegistry(), withLogs(logs)}
			if tt.setup != nil {
				opts = append(opts, withSetup(tt.setup))
			}
			mustServeAll(t, newTestServer(t, opts...), tt.line+"\n")
			got := logs.String()
			if !strings.Contains(got, tt.want) || !(strings.Contains(got, `\x1b[2J\nlevel=ERROR msg=forged`) || strings.Contains(got, `\\u001b[2J\\nlevel=ERROR msg=forged`)) {
				t.Fatalf("log has no line for the event with the value quoted: %q", got)
			}
			// The panic's stack is one attribute: still one line, beside
			// the request's access line, if it is a request.
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			for _, l := range lines {
				if !strings.HasPrefix(l, "time=") {
					t.Errorf("a log line does not start with time=: %q", l)
				}
			}
			if strings.ContainsRune(got, 0x1b) || len(lines) > 2 || strings.Contains(got, "\nlevel=ERROR msg=forged") {
				t.Errorf("client text reached the log unescaped: %q", got)
			}
		})
	}
}

// TestStdioBatchAnswersGiveBackTheirBudget: an answer in a 2025-03-26
// batch gives back what it was charged against the answers budget
// (maxStdioAnswerBytes, exchange.reserve) once it is in the array: after
// two batches of a 3 MiB answer each, a third 3 MiB answer still comes
// (it waited forever while the batches kept their charges).
func TestStdioBatchAnswersGiveBackTheirBudget(t *testing.T) {
	s := newTestServer(t, withRegistry())
	big := strings.Repeat("x", 3<<20)
	s.addTool(tool{Name: "big", Call: func(ctx context.Context, req *request) (*toolResult, error) {
		return textResult(big), nil
	}})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { _ = s.serveStdio(t.Context(), inR, outW); outW.Close() }()
	defer inW.Close()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	write := func(l string) { _, _ = io.WriteString(inW, l+"\n") }
	write(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	<-lines
	write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, l := range []string{
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big"}}]`,
		`[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big"}}]`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"big"}}`,
	} {
		write(l)
		select {
		case got := <-lines:
			if want := fmt.Sprintf(`"id":%d,"result"`, i+1); !strings.Contains(got[:min(len(got), 60)], want) {
				t.Fatalf("answer %d: %.80s, want its result", i+1, got)
			}
		case <-time.After(testWait):
			t.Fatalf("answer %d never came: the batches kept their answers' charges", i+1)
		}
	}
}
