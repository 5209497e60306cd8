// Test helpers shared by every test file: test servers, the test registry,
// a live stdio connection, and semantic JSON comparison.

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// metaJSON is the _meta every well-formed modern request in the tests carries.
const metaJSON = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// testWait bounds every wait for the server in tests: long enough for a
// loaded CI machine under -race, short enough to fail a hung test quickly.
const testWait = 10 * time.Second

// req builds a modern request line: id is raw JSON, params are the
// method's own members as a JSON object body without braces ("" for none).
func req(id, method, params string) string {
	if params != "" {
		params += ","
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":{%s"_meta":%s}}`, id, method, params, metaJSON)
}

// reqMeta builds a request line with the given _meta members (a JSON object
// body without braces) added to the required ones.
func reqMeta(id, method, params, meta string) string {
	if params != "" {
		params += ","
	}
	m := metaJSON[:len(metaJSON)-1] + "," + meta + "}"
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":{%s"_meta":%s}}`, id, method, params, m)
}

// newTestServer returns a server configured by command-line args (as run
// parses them) with the demo registry, and the test registry when withTest
// is set. Its log goes to the returned buffer.
func newTestServer(tb testing.TB, withTest bool, args ...string) (*server, *syncBuffer) {
	tb.Helper()
	cfg, _, err := parseFlags(args, io.Discard, func(string) string { return "" })
	if err != nil {
		tb.Fatalf("parseFlags(%q) = %v", args, err)
	}
	logs := &syncBuffer{}
	s := newTestDemoServer(tb, cfg, logs)
	if withTest {
		registerTestRegistry(s)
	}
	return s, logs
}

// testCache is the cache hint of the test servers that do not take the
// flags' default.
var testCache = cacheHint{TTL: time.Minute, Scope: scopePublic}

// newTestDemoServer returns a server configured by cfg with the demo
// registry, logging to logs (nil for nowhere). The demo's clock stops when
// the test ends.
func newTestDemoServer(tb testing.TB, cfg config, logs io.Writer) *server {
	tb.Helper()
	if logs == nil {
		logs = io.Discard
	}
	s := newServer(cfg, log.New(logs, "", 0))
	tb.Cleanup(mustRegisterDemo(tb, s))
	return s
}

// newEmptyServer returns a server with an empty registry, logging to the
// returned buffer.
func newEmptyServer(tb testing.TB) (*server, *syncBuffer) {
	tb.Helper()
	logs := &syncBuffer{}
	return newServer(config{cache: testCache}, log.New(logs, "", 0)), logs
}

// testPNG is the content of the test image and blob blocks.
var testPNG = []byte{0x89, 'P', 'N', 'G'}

// registerTestRegistry adds what the demo lacks: one tool per content kind,
// failing and panicking tools, a tool logging at every level, a schema with
// every enforced keyword, resources and templates for matching, and prompts
// for content kinds and completion limits.
func registerTestRegistry(s *server) {
	s.addTool(tool{
		Name:        "kinds",
		Description: "Returns one content block of every kind.",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			return &toolResult{Content: []content{
				textContent("text block"),
				imageContent(testPNG, "image/png"),
				audioContent([]byte("RIFF"), "audio/wav"),
				linkContent(resourceLink{URI: "demo://readme", Name: "readme", MimeType: "text/plain"}),
				embeddedContent(resourceContents{URI: "demo://readme", MimeType: "text/plain", Text: "embedded text"}),
				embeddedContent(resourceContents{URI: "demo://logo", MimeType: "image/png", Blob: testPNG}),
			}}, nil
		},
	})
	s.addTool(tool{
		Name: "fail",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			return nil, errors.New("fail: the widget is jammed")
		},
	})
	s.addTool(tool{
		Name: "explode",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			panic("secret internal detail /etc/shadow")
		},
	})
	s.addTool(tool{
		Name: "levels",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			for l := levelDebug; l <= levelEmergency; l++ {
				req.Log(l, l.String())
			}
			req.Progress(1, 2, "half")
			req.Progress(1, 2, "not increasing: dropped")
			req.Progress(2, 2, "")
			return textResult("logged"), nil
		},
	})
	s.addTool(tool{
		Name: "typed",
		InputSchema: `{"type":"object","properties":{` +
			`"s":{"type":"string","minLength":2,"maxLength":4},` +
			`"n":{"type":"integer","minimum":1,"maximum":10},` +
			`"e":{"enum":["red","green"]},` +
			`"c":{"const":"fixed"},` +
			`"list":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2}` +
			`},"required":["s"],"additionalProperties":false}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			return textResult("ok " + req.String("s")), nil
		},
	})
	s.addResource(resource{
		URI:  "demo://items/special",
		Name: "special",
		Text: "the exact resource",
	})
	s.addResource(resource{
		URI:  "test://clock",
		Name: "clock",
		Read: func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
			return []resourceContents{{URI: uri, Text: "tick"}}, nil
		},
		Cache: &cacheHint{TTL: 5 * time.Second, Scope: scopePrivate},
	})
	varsText := func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
		b, _ := json.Marshal(vars)
		return []resourceContents{{URI: uri, Text: string(b)}}, nil
	}
	s.addTemplate(resourceTemplate{URITemplate: "test://{owner}/repos/{repo}", Name: "repo", Read: varsText})
	s.addTemplate(resourceTemplate{URITemplate: "test://files/{path}.json", Name: "file", Read: varsText})
	s.addPrompt(prompt{
		Name:      "kinds",
		Arguments: []promptArgument{{Name: "topic", Required: true}, {Name: "tone"}},
		Get: func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
			return &promptResult{Messages: []promptMessage{
				{Role: "user", Content: textContent("talk about " + args["topic"] + " tone=" + args["tone"])},
				{Role: "assistant", Content: imageContent(testPNG, "image/png")},
				{Role: "user", Content: embeddedContent(resourceContents{URI: "demo://readme", MimeType: "text/plain", Text: "embedded"})},
			}}, nil
		},
	})
	s.addPrompt(prompt{
		Name: "many",
		Arguments: []promptArgument{{
			Name: "n",
			Complete: func(ctx context.Context, value string, args map[string]string) ([]string, error) {
				out := make([]string, 150)
				for i := range out {
					out[i] = fmt.Sprintf("%s%03d", value, i)
				}
				return out, nil
			},
		}, {
			Name: "echo",
			Complete: func(ctx context.Context, value string, args map[string]string) ([]string, error) {
				return []string{value + "|" + args["n"]}, nil
			},
		}},
		Get: func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
			return &promptResult{}, nil
		},
	})
}

// syncBuffer is a bytes.Buffer safe for the server's concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serveAll feeds input to s.serveStdio, waits for it to return (EOF drains
// every request) and returns what it wrote, one string per line.
func serveAll(tb testing.TB, s *server, input string) []string {
	tb.Helper()
	var out syncBuffer
	if err := s.serveStdio(tb.Context(), strings.NewReader(input), &out); err != nil {
		tb.Fatalf("serveStdio = %v", err)
	}
	return splitLines(out.String())
}

// serveOne sends one line and returns the one line written back, failing
// the test on any other number of lines.
func serveOne(tb testing.TB, s *server, line string) string {
	tb.Helper()
	got := serveAll(tb, s, line+"\n")
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
// to its stdin one at a time, lines read from its stdout as they come. Its
// waits are bounded by testWait on the clock of whoever calls, so inside a
// testing/synctest bubble a missing line fails at once instead of hanging.
type testConn struct {
	tb     testing.TB
	in     *io.PipeWriter     // serve's stdin; close it for EOF
	lines  chan string        // serve's stdout lines, closed after serve returned
	served chan error         // serve's result
	cancel context.CancelFunc // ends serve's context

	once     sync.Once
	err      error // serve's result, once awaited
	finished bool  // the test awaited serve itself
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
	c := &testConn{tb: tb, in: inW, lines: make(chan string, 4096), served: make(chan error, 1), cancel: cancel}
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

// send writes one raw line (a newline is added).
func (c *testConn) send(line string) {
	c.tb.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.tb.Fatalf("send %.200s: %v", line, err)
	}
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
func (c *testConn) wait() error {
	c.once.Do(func() {
		select {
		case c.err = <-c.served:
		case <-time.After(testWait):
			c.err = errors.New("serve did not return")
		}
	})
	return c.err
}

// close ends stdin, waits for serve to drain and return, reports its error
// and returns the lines it wrote since the last recv.
func (c *testConn) close() []string {
	c.tb.Helper()
	c.finished = true
	c.in.Close()
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
	c.in.Close()
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

// decodeJSON decodes a JSON value keeping numbers exact.
func decodeJSON(data string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the value")
	}
	return v, nil
}

// sameJSON reports whether a and b are the same JSON value: member order
// and white space do not matter; numbers are compared as written.
func sameJSON(tb testing.TB, a, b string) bool {
	tb.Helper()
	va, err := decodeJSON(a)
	if err != nil {
		tb.Errorf("sameJSON: %v in %s", err, a)
		return false
	}
	vb, err := decodeJSON(b)
	if err != nil {
		tb.Errorf("sameJSON: %v in %s", err, b)
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// mustJSON encodes v for comparisons and messages.
func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// mustDecode decodes line as a JSON object.
func mustDecode(tb testing.TB, line string) map[string]any {
	tb.Helper()
	v, err := decodeJSON(line)
	if err != nil {
		tb.Fatalf("decode %s: %v", line, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		tb.Fatalf("decode %s: not an object", line)
	}
	return m
}

// jsonPath walks dotted object members (and decimal array indexes) of v.
func jsonPath(v any, path string) any {
	if path == "" {
		return v
	}
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			var i int
			if _, err := fmt.Sscan(p, &i); err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// errorCode returns the error.code of a response line, or 0.
func errorCode(tb testing.TB, line string) int {
	tb.Helper()
	n, _ := jsonPath(mustDecode(tb, line), "error.code").(json.Number)
	c, _ := n.Int64()
	return int(c)
}
