//go:build !stdio

// TestDriverRules: each rule the driver owns (conn.go), run over every
// transport that carries classic sessions: stdio, Streamable HTTP, and
// the 2024-11-05 HTTP+SSE transport. A rule changed in the driver changes
// on all three; a transport that decided one itself would fail here.

package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// driverClient is one transport as TestDriverRules drives it: a classic
// session opened at a version, messages sent and their answers read.
type driverClient interface {
	// send sends line and returns the one answer it gets, "" for none.
	send(line string) string
	// start sends line, a request that stays in flight; answer returns
	// its answer once it is released; none reports what came instead of
	// no answer to it (cancelled), "" for nothing.
	start(line string)
	answer() string
	none() string
	// pipelined sends lines one right behind the other, without waiting
	// for an answer between them, and returns the answers.
	pipelined(lines ...string) []string
}

// stdioDriverClient is stdio's.
type stdioDriverClient struct{ c *testConn }

func (d *stdioDriverClient) send(line string) string {
	d.c.send(line)
	if wantsAnswer(line) {
		return d.c.recv()
	}
	return d.none()
}

// wantsAnswer reports whether line is a request or a batch (of the
// requests TestDriverRules sends): something answered.
func wantsAnswer(line string) bool {
	return strings.Contains(line, `"id"`) && strings.Contains(line, `"method"`) || strings.HasPrefix(line, "[")
}
func (d *stdioDriverClient) start(line string) { d.c.send(line) }
func (d *stdioDriverClient) answer() string    { return d.c.recv() }
func (d *stdioDriverClient) none() string {
	// The ping proves that an answer would have come before its own.
	d.c.send(`{"jsonrpc":"2.0","id":"probe","method":"ping"}`)
	if got := d.c.recv(); !strings.Contains(got, `"probe"`) {
		return got
	}
	return ""
}
func (d *stdioDriverClient) pipelined(lines ...string) []string {
	d.c.send(strings.Join(lines, "\n"))
	out := make([]string, len(lines))
	for i := range out {
		out[i] = d.c.recv()
	}
	return out
}

// httpDriverClient is Streamable HTTP's.
type httpDriverClient struct {
	c       *classicHTTPClient
	started chan string
}

func (d *httpDriverClient) send(line string) string {
	_, _, out := d.c.post(line)
	return strings.Join(out, "\n")
}
func (d *httpDriverClient) start(line string) {
	go func() { d.started <- d.send(line) }()
}
func (d *httpDriverClient) none() string { return d.answer() }
func (d *httpDriverClient) answer() string {
	select {
	case got := <-d.started:
		return got
	case <-time.After(testWait):
		return "no answer within testWait"
	}
}
func (d *httpDriverClient) pipelined(lines ...string) []string {
	// A POST is answered before the next is sent: HTTP pipelines nothing.
	var out []string
	for _, l := range lines {
		out = append(out, d.send(l))
	}
	return out
}

// sseDriverClient is the 2024-11-05 transport's: every POST 202, every
// answer on the stream.
type sseDriverClient struct {
	tb testing.TB
	c  *classicSSEClient
}

func (d *sseDriverClient) post(line string) {
	if status := d.c.post("", line); status != 202 {
		d.tb.Fatalf("POST %s: status %d, want 202", line, status)
	}
}

// send returns the answer on the stream; a message the transport refuses
// whole (a batch it cannot take) is answered on the POST itself.
func (d *sseDriverClient) send(line string) string {
	req, err := http.NewRequestWithContext(d.tb.Context(), http.MethodPost, d.c.ts.URL+d.c.endpoint, strings.NewReader(line))
	if err != nil {
		d.tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if r := mustDo(d.tb, d.c.ts.Client(), req); r.status != 202 {
		return string(r.body)
	}
	if wantsAnswer(line) {
		return d.c.next()
	}
	return d.none()
}
func (d *sseDriverClient) start(line string) { d.post(line) }
func (d *sseDriverClient) answer() string    { return d.c.next() }
func (d *sseDriverClient) none() string {
	d.post(`{"jsonrpc":"2.0","id":"probe","method":"ping"}`)
	if got := d.c.next(); !strings.Contains(got, `"probe"`) {
		return got
	}
	return ""
}
func (d *sseDriverClient) pipelined(lines ...string) []string {
	for _, l := range lines {
		d.post(l)
	}
	out := make([]string, len(lines))
	for i := range out {
		out[i] = d.c.next()
	}
	return out
}

// driverTransports open a session of each transport at version (and
// send notifications/initialized), on a server with the gate tool.
var driverTransports = []struct {
	name string
	open func(t *testing.T, g *testGates, version string) driverClient
}{
	{"stdio", func(t *testing.T, g *testGates, version string) driverClient {
		d := &stdioDriverClient{c: newTestConn(t, newTestServer(t, withGates(g)))}
		d.c.send(classicInitialize(0, version))
		d.c.recv()
		d.c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		return d
	}},
	{"streamable HTTP", func(t *testing.T, g *testGates, version string) driverClient {
		c := newTestClassicClient(t, newTestHTTP(t, newTestServer(t, withGates(g)), nil))
		c.initialize(classicInitialize(0, version))
		return &httpDriverClient{c: c, started: make(chan string, 1)}
	}},
	{"2024-11-05 HTTP+SSE", func(t *testing.T, g *testGates, version string) driverClient {
		d := &sseDriverClient{tb: t, c: newTestClassicSSEClient(t, newTestHTTP(t, newTestServer(t, withGates(g)), nil))}
		d.post(classicInitialize(0, version))
		d.c.next()
		d.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		return d
	}},
}

func TestDriverRules(t *testing.T) {
	gate := func(id string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"gate"}}`, id)
	}
	ping := func(id string) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"ping"}`, id) }
	for _, tt := range []struct {
		name    string
		version string
		run     func(t *testing.T, d driverClient, g *testGates)
	}{
		{"an id in flight is refused (calls.add)", version20251125, func(t *testing.T, d driverClient, g *testGates) {
			d.start(gate(`"dup"`))
			mustReceive(t, g.started)
			if got := d.send(ping(`"dup"`)); !strings.Contains(got, `"code":-32600`) || !strings.Contains(got, "already in flight") {
				t.Errorf("a second request with an id in flight: %s, want -32600 already in flight", got)
			}
			if got := d.send(ping(`"other"`)); !strings.Contains(got, `"id":"other","result":{}`) {
				t.Errorf("another id meanwhile: %s, want its result", got)
			}
			close(g.release)
			if got := d.answer(); !strings.Contains(got, `"id":"dup","result"`) {
				t.Errorf("the request in flight: %s, want its result", got)
			}
		}},
		{"initialize is served before the next message (ordered)", "", func(t *testing.T, d driverClient, g *testGates) {
			out := d.pipelined(classicInitialize(1, version20250618), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			if !strings.Contains(out[0], `"protocolVersion":"2025-06-18"`) {
				t.Errorf("initialize: %s", out[0])
			}
			if !strings.Contains(out[1], `"id":2,"result":{"tools"`) || strings.Contains(out[1], "resultType") {
				t.Errorf("the request right behind initialize: %s, want a classic result", out[1])
			}
		}},
		{"a batch in a 2025-03-26 session is answered as one array", version20250326, func(t *testing.T, d driverClient, g *testGates) {
			got := d.send("[" + ping(`"a"`) + "," + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"none"}}` + "," + ping(`"b"`) + "]")
			if !strings.HasPrefix(got, `[{"jsonrpc":"2.0","id":"a","result":{}},{"jsonrpc":"2.0","id":"b","result":{}}]`) {
				t.Errorf("batch: %s, want the two answers in one array", got)
			}
		}},
		{"a batch entry refused when read takes no effect (begin)", version20250326, func(t *testing.T, d driverClient, g *testGates) {
			d.start(gate(`"c"`))
			mustReceive(t, g.started)
			got := d.send("[" + `{"jsonrpc":"1.0","method":"notifications/cancelled","params":{"requestId":"c"}}` + "," + ping(`"p"`) + "]")
			if !strings.Contains(got, `"id":"p","result":{}`) {
				t.Errorf("batch: %s, want the ping's answer", got)
			}
			close(g.release)
			if got := d.answer(); !strings.Contains(got, `"id":"c","result"`) {
				t.Errorf("the request a refused entry named: %s, want its result", got)
			}
		}},
		{"a batch outside a 2025-03-26 session is refused whole", version20251125, func(t *testing.T, d driverClient, g *testGates) {
			got := d.send("[" + ping(`"a"`) + "]")
			if !strings.Contains(got, `"id":null,"error":{"code":-32600`) {
				t.Errorf("batch: %s, want -32600 with id null", got)
			}
		}},
		{"notifications/cancelled cancels, and the request is not answered (control)", version20251125, func(t *testing.T, d driverClient, g *testGates) {
			d.start(gate(`"c"`))
			mustReceive(t, g.started)
			if got := d.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c"}}`); got != "" {
				t.Errorf("notifications/cancelled answered %s", got)
			}
			mustReceive(t, g.cancelled)
			if got := d.none(); got != "" {
				t.Errorf("the cancelled request was answered: %s", got)
			}
		}},
		{"an answer to no request of the server's is taken, not answered (control)", version20251125, func(t *testing.T, d driverClient, g *testGates) {
			if got := d.send(`{"jsonrpc":"2.0","id":"nobody","result":{}}`); got != "" {
				t.Errorf("a stray answer was answered: %s", got)
			}
		}},
	} {
		for _, tr := range driverTransports {
			t.Run(tt.name+"/"+tr.name, func(t *testing.T) {
				g := newTestGates()
				var d driverClient
				if tt.version == "" {
					d = openDriverClient(t, tr.name, g)
				} else {
					d = tr.open(t, g, tt.version)
				}
				tt.run(t, d, g)
			})
		}
	}
}

// openDriverClient opens a transport's connection without a session
// negotiated yet (stdio, HTTP+SSE); Streamable HTTP, whose session is
// minted by initialize, gets a client that has none.
func openDriverClient(t *testing.T, name string, g *testGates) driverClient {
	switch name {
	case "stdio":
		return &stdioDriverClient{c: newTestConn(t, newTestServer(t, withGates(g)))}
	case "streamable HTTP":
		return &httpInitClient{httpDriverClient{c: newTestClassicClient(t, newTestHTTP(t, newTestServer(t, withGates(g)), nil)), started: make(chan string, 1)}}
	}
	return &sseDriverClient{tb: t, c: newTestClassicSSEClient(t, newTestHTTP(t, newTestServer(t, withGates(g)), nil))}
}

// httpInitClient is a Streamable HTTP client that keeps the session its
// initialize opens.
type httpInitClient struct{ httpDriverClient }

func (d *httpInitClient) pipelined(lines ...string) []string {
	out := []string{strings.Join(d.c.initialize(lines[0]), "\n")}
	for _, l := range lines[1:] {
		out = append(out, d.send(l))
	}
	return out
}
