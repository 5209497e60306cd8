// Tests for defects found in the pre-release review. The stdio connection
// here differs from testConn on purpose: its send never blocks, so a server
// that stops reading its input (the defect tested below) fails a recv
// instead of hanging the test.

package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// reviewConn is a live stdio connection for the review tests.
type reviewConn struct {
	tb    testing.TB
	in    chan string // lines for the server's stdin, written in order
	lines chan string
	done  chan error
}

// newReviewConn serves s on pipes until the test ends.
func newReviewConn(tb testing.TB, s *server) *reviewConn {
	tb.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &reviewConn{tb: tb, in: make(chan string, 64), lines: make(chan string, 64), done: make(chan error, 1)}
	// The writer does not block the test: a server that stops reading
	// must fail a recv, not hang a send.
	go func() {
		defer inW.Close()
		for line := range c.in {
			if _, err := io.WriteString(inW, line+"\n"); err != nil {
				return
			}
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		err := s.serveStdio(ctx, inR, outW)
		outW.Close()
		c.done <- err
	}()
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()
	tb.Cleanup(func() {
		cancel()
		close(c.in)
		inR.Close()
		for range c.lines {
		}
		<-c.done
	})
	return c
}

func (c *reviewConn) send(line string) {
	c.in <- line
}

// recv returns the next line, or fails the test after wait.
func (c *reviewConn) recv(wait time.Duration) string {
	c.tb.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.tb.Fatal("recv: the server closed its output")
		}
		return line
	case <-time.After(wait):
		c.tb.Fatal("recv: no line from the server")
	}
	return ""
}

// TestStdioAnswersReadWhileRequestSlotsAreFull: when every request slot is
// held by a bridged classic request waiting for the client's answer, the
// stdio reader must still read those answers. Blocking it on a slot for
// the next request left the answers unread until -input-timeout.
func TestStdioAnswersReadWhileRequestSlotsAreFull(t *testing.T) {
	for _, tt := range []struct {
		name string
		next string // the request that finds every slot taken
	}{
		{"next is a ping", `{"jsonrpc":"2.0","id":"p","method":"ping"}`},
		{"next is another bridged call", `{"jsonrpc":"2.0","id":"c3","method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/c"}}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, false, "-max-requests", "2", "-max-subscriptions", "1", "-input-timeout", "1h")
			c := newReviewConn(t, s)
			const wait = 5 * time.Second
			c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
			c.recv(wait)
			c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			c.send(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/a"}}}`)
			c.send(`{"jsonrpc":"2.0","id":"c2","method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/b"}}}`)
			var asks []string
			for len(asks) < 2 {
				line := c.recv(wait)
				if strings.Contains(line, `"elicitation/create"`) {
					asks = append(asks, line)
				}
			}
			c.send(tt.next)
			for _, ask := range asks {
				id := jsonPath(mustDecode(t, ask), "id").(string)
				c.send(`{"jsonrpc":"2.0","id":"` + id + `","result":{"action":"accept","content":{"confirm":false}}}`)
			}
			got := map[string]bool{}
			for !got["c1"] || !got["c2"] {
				line := c.recv(wait)
				if id, ok := jsonPath(mustDecode(t, line), "id").(string); ok && strings.Contains(line, `"result"`) {
					got[id] = true
				}
			}
		})
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
	s, _ := newEmptyServer(t)
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
