//go:build !stdio

// Tests of the Streamable HTTP transport (httpsse.go): one raw request per
// rule (TestHTTPRules), SSE responses, cancellation and timeouts, the
// keep-alive of long-lived streams, and its fuzz target; and the test
// HTTP server (newTestHTTP) on an in-memory network. The modern
// subscriptions and the classic era over HTTP have their own transcripts
// (testdata/subscriptions-http; testdata/classic, played on both transports).

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"testing/synctest"
	"time"
)

// testHTTP is a test server reached over Streamable HTTP on an in-memory
// network (net.Pipe connections), so that it also runs inside a
// testing/synctest bubble: a client waiting for the server is durably
// blocked, and the bubble's clock moves on.
type testHTTP struct {
	URL    string         // http://127.0.0.1:port
	port   int            // the port the transport believes it listens on
	client *http.Client   // dials the in-memory listener
	tr     *httpTransport // serves httpPath
	ln     *memListener   // what client dials
}

// testHTTPPort is the port every testHTTP claims: the transport derives
// its own origins (http://localhost:port, ...) from it.
const testHTTPPort = 39217

// Client returns the client that reaches ts.
func (ts *testHTTP) Client() *http.Client { return ts.client }

// newTestHTTP serves s at httpPath with hcfg (nil for the defaults; a zero
// maxBody is the default). When the test ends, every classic session is
// closed, then the server and the client's connections.
func newTestHTTP(tb testing.TB, s *server, hcfg *httpConfig) *testHTTP {
	tb.Helper()
	if hcfg == nil {
		hcfg = &httpConfig{}
	}
	if hcfg.maxBody == 0 {
		hcfg.maxBody = defaultMaxBodyBytes
	}
	ln := &memListener{conns: make(chan net.Conn), closed: make(chan struct{})}
	tr := newHTTPTransport(s, hcfg, ln.Addr())
	mux := http.NewServeMux()
	tr.routes(mux)
	srv := &http.Server{Handler: countResponses(s.metrics, &tr.refused, mux), ReadHeaderTimeout: httpReadHeaderTimeout}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	client := &http.Client{Transport: &http.Transport{DialContext: ln.dial}}
	tb.Cleanup(func() {
		tr.sessions.closeAll()
		client.CloseIdleConnections()
		_ = srv.Close()
		<-served
		tr.auth.close()
		tr.refused.close()
	})
	return &testHTTP{URL: fmt.Sprintf("http://127.0.0.1:%d", testHTTPPort), port: testHTTPPort, client: client, tr: tr, ln: ln}
}

// memListener is a net.Listener whose connections are net.Pipe pairs made
// by dial.
type memListener struct {
	conns  chan net.Conn // server ends of dialled connections
	closed chan struct{} // closed by Close
	once   sync.Once
}

func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *memListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *memListener) Addr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: testHTTPPort}
}

// dial connects to l whatever the address.
func (l *memListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	return l.dialFrom(ctx, nil)
}

// dialFrom connects to l; the server sees the connection coming from
// remote (nil: net.Pipe's own address).
func (l *memListener) dialFrom(ctx context.Context, remote net.Addr) (net.Conn, error) {
	client, server := net.Pipe()
	var conn net.Conn = server
	if remote != nil {
		conn = &remoteConn{Conn: server, remote: remote}
	}
	select {
	case l.conns <- conn:
		return client, nil
	case <-l.closed:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// remoteConn is a connection that reports remote as its peer.
type remoteConn struct {
	net.Conn
	remote net.Addr
}

func (c *remoteConn) RemoteAddr() net.Addr { return c.remote }

// clientFrom returns a client of ts whose connections the server sees
// coming from addr (ip:port), as if over TCP. Its idle connections close
// when the test ends.
func (ts *testHTTP) clientFrom(tb testing.TB, addr string) *http.Client {
	tb.Helper()
	remote, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return ts.ln.dialFrom(ctx, remote)
	}}
	tb.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// newTestHTTPRequest builds a POST of body to ts with the headers a
// conformant modern client sends, derived from the body, then applies
// edits: "Name: value" replaces every default Name (repeat a name to send
// it twice; the name is sent in the case written), "-Name" removes it,
// "Host: h" sets the Host.
func newTestHTTPRequest(tb testing.TB, ctx context.Context, ts *testHTTP, method, body string, edits []string) *http.Request {
	tb.Helper()
	if method == "" {
		method = http.MethodPost
	}
	req, err := http.NewRequestWithContext(ctx, method, ts.URL+httpPath, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	var env struct {
		Method string `json:"method"`
		Params struct {
			Name   string `json:"name"`
			URI    string `json:"uri"`
			TaskID string `json:"taskId"`
		} `json:"params"`
	}
	if json.Unmarshal([]byte(body), &env) == nil && env.Method != "" {
		req.Header.Set("Mcp-Method", env.Method)
		switch env.Method {
		case "tools/call", "prompts/get":
			req.Header.Set("Mcp-Name", env.Params.Name)
		case "resources/read":
			req.Header.Set("Mcp-Name", env.Params.URI)
		case methodTasksGet, methodTasksUpdate, methodTasksCancel:
			req.Header.Set("Mcp-Name", env.Params.TaskID)
		}
	}
	applyEdits(req, edits)
	return req
}

// newTestHTTPGet builds a request of method (GET when "") for path on ts,
// without a body, and applies edits as newTestHTTPRequest does.
func newTestHTTPGet(tb testing.TB, ctx context.Context, ts *testHTTP, method, path string, edits []string) *http.Request {
	tb.Helper()
	if method == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequestWithContext(ctx, method, ts.URL+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	applyEdits(req, edits)
	return req
}

// applyEdits changes req's headers: "Name: value" replaces every Name
// (repeat a name to send it twice; the name is sent in the case
// written), "-Name" removes it, "Host: h" sets the Host.
func applyEdits(req *http.Request, edits []string) {
	replaced := map[string]bool{}
	for _, e := range edits {
		if name, ok := strings.CutPrefix(e, "-"); ok {
			req.Header.Del(name)
			continue
		}
		name, value, _ := strings.Cut(e, ":")
		value = strings.TrimPrefix(value, " ")
		if strings.EqualFold(name, "Host") {
			req.Host = value
			continue
		}
		key := textproto.CanonicalMIMEHeaderKey(name)
		if !replaced[key] {
			replaced[key] = true
			req.Header.Del(key)
		}
		req.Header[name] = append(req.Header[name], value)
	}
}

// testHTTPReply is a response as a test sees it.
type testHTTPReply struct {
	status int
	header http.Header
	body   []byte
	code   int    // error.code, 0 when the body is not a JSON-RPC error
	id     string // raw id of a JSON body
}

// mustDo sends req and reads the whole response.
func mustDo(tb testing.TB, client *http.Client, req *http.Request) testHTTPReply {
	tb.Helper()
	r, err := doTestHTTP(client, req)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// doTestHTTP is mustDo for goroutines other than the test's.
func doTestHTTP(client *http.Client, req *http.Request) (testHTTPReply, error) {
	resp, err := client.Do(req)
	if err != nil {
		return testHTTPReply{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return testHTTPReply{}, err
	}
	r := testHTTPReply{status: resp.StatusCode, header: resp.Header, body: body}
	// A batch answer (an array) has no one id or code.
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && !bytes.HasPrefix(body, []byte("[")) {
		var msg struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &msg); err != nil {
			return r, fmt.Errorf("body is not JSON: %v\n%s", err, body)
		}
		r.id = string(msg.ID)
		if msg.Error != nil {
			r.code = msg.Error.Code
		}
	}
	return r, nil
}

// TestHTTPRules sends one raw request per rule of the transport and checks
// the status, the content type and, for JSON-RPC errors, code and id.
func TestHTTPRules(t *testing.T) {
	ts := newTestHTTP(t, newTestServer(t, withRegistry("base", "extras", "http")), &httpConfig{maxBody: 4096, allowOrigins: []string{"https://app.example.com"}})
	port := ts.port
	own := fmt.Sprintf("http://localhost:%d", port)
	hdrCall := func(args string) string { return req("1", "tools/call", `"name":"hdr","arguments":`+args) }
	echo := req("1", "tools/call", `"name":"echo","arguments":{"message":"hi"}`)
	list := req("1", "tools/list", "")
	big := req("1", "tools/call", `"name":"echo","arguments":{"message":"`+strings.Repeat("x", 5000)+`"}`)
	for _, tt := range []struct {
		name    string
		method  string // default POST
		body    string
		edits   []string
		chunked bool
		status  int
		code    int    // JSON-RPC error code; 0 = no error
		id      string // raw id of the JSON body; "" = not checked
		ctype   string // Content-Type prefix; "" = no body expected
		header  string // "Name: value" the response must carry
	}{
		// Answers and their status.
		{name: "discover answers 200 json", body: req("1", "server/discover", ""), status: 200, id: "1", ctype: "application/json"},
		{name: "tool call answers 200 json", body: echo, status: 200, id: "1", ctype: "application/json"},
		{name: "in-band tool error is 200", body: req("1", "tools/call", `"name":"echo","arguments":{}`), status: 200, id: "1", ctype: "application/json"},
		{name: "notification is 202 without body", body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, status: 202},
		{name: "unknown notification is 202", body: `{"jsonrpc":"2.0","method":"notifications/whatever"}`, edits: []string{"-Mcp-Method"}, status: 202},
		{name: "last event id is ignored", body: list, edits: []string{"Last-Event-ID: 7"}, status: 200, id: "1", ctype: "application/json"},
		{name: "a session id makes a request classic: unknown is 404", body: list, edits: []string{"Mcp-Session-Id: abc"}, status: 404, code: -32600, id: "1", ctype: "application/json"},

		// JSON-RPC errors: status from code, id echoed.
		{name: "missing _meta is 400 -32602", body: `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`, status: 400, code: -32602, id: "1", ctype: "application/json"},
		{name: "_meta without protocolVersion is 400 -32602", body: `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}`, status: 400, code: -32602, id: "1", ctype: "application/json"},
		{name: "missing _meta wins over header mismatch", body: `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`, edits: []string{"MCP-Protocol-Version: 2026-07-28"}, status: 400, code: -32602, id: "1", ctype: "application/json"},
		{name: "version header differs from _meta is 400 -32020", body: list, edits: []string{"MCP-Protocol-Version: 2026-01-01"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		// Modern _meta outside a session is modern whatever the header
		// says, so a legacy version in it is a mismatch (review A,
		// finding 12: it asked for a session, or for the _meta it had).
		{name: "classic version header with modern _meta is 400 -32020", body: list, edits: []string{"MCP-Protocol-Version: 2025-11-25"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "classic version header without _meta makes a request classic: no session is 400", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, edits: []string{"MCP-Protocol-Version: 2025-11-25", "-Mcp-Method"}, status: 400, code: -32600, id: "1", ctype: "application/json"},
		{name: "version header missing is 400 -32020", body: list, edits: []string{"-MCP-Protocol-Version"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "unsupported _meta version with current header is -32020", body: strings.Replace(list, `"2026-07-28"`, `"v999.0.0"`, 1), status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "unsupported version is 400 -32022", body: strings.Replace(list, `"2026-07-28"`, `"v999.0.0"`, 1), edits: []string{"MCP-Protocol-Version: v999.0.0"}, status: 400, code: -32022, id: "1", ctype: "application/json"},
		{name: "unknown method is 404 -32601", body: req("1", "unknown/method", ""), status: 404, code: -32601, id: "1", ctype: "application/json"},
		{name: "removed method is 404 -32601", body: req("1", "initialize", ""), status: 404, code: -32601, id: "1", ctype: "application/json"},
		{name: "unknown tool is 400 -32602", body: req("1", "tools/call", `"name":"nope"`), status: 400, code: -32602, id: "1", ctype: "application/json"},
		{name: "string id is echoed", body: strings.Replace(req("1", "nope", ""), `"id":1`, `"id":"a-1"`, 1), status: 404, code: -32601, id: `"a-1"`, ctype: "application/json"},
		{name: "panicking handler is 500 -32603", body: req("1", "tools/call", `"name":"explode"`), status: 500, code: -32603, id: "1", ctype: "application/json"},
		{name: "parse error is 400 -32700 with null id", body: `{"jsonrpc":"2.0","id":1,`, status: 400, code: -32700, id: "null", ctype: "application/json"},
		{name: "batch is 400 -32600", body: "[" + list + "]", status: 400, code: -32600, id: "null", ctype: "application/json"},
		{name: "response from client is 400 -32600", body: `{"jsonrpc":"2.0","id":5,"result":{}}`, status: 400, code: -32600, id: "5", ctype: "application/json"},

		// Mcp-Method.
		{name: "Mcp-Method missing is -32020", body: list, edits: []string{"-Mcp-Method"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "Mcp-Method mismatch is -32020", body: list, edits: []string{"Mcp-Method: prompts/list"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "Mcp-Method value is case-sensitive", body: list, edits: []string{"Mcp-Method: TOOLS/LIST"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "Mcp-Method name lower case", body: list, edits: []string{"mcp-method: tools/list"}, status: 200, id: "1", ctype: "application/json"},
		{name: "Mcp-Method name upper case", body: list, edits: []string{"MCP-METHOD: tools/list"}, status: 200, id: "1", ctype: "application/json"},
		{name: "Mcp-Method sent twice is -32020", body: list, edits: []string{"Mcp-Method: tools/list", "Mcp-Method: tools/list"}, status: 400, code: -32020, id: "1", ctype: "application/json"},

		// Mcp-Name.
		{name: "Mcp-Name missing is -32020", body: echo, edits: []string{"-Mcp-Name"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "Mcp-Name mismatch is -32020", body: echo, edits: []string{"Mcp-Name: add"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "Mcp-Name whitespace is trimmed", body: echo, edits: []string{"Mcp-Name: \t echo  "}, status: 200, id: "1", ctype: "application/json"},
		{name: "Mcp-Name base64", body: echo, edits: []string{"Mcp-Name: =?base64?ZWNobw==?="}, status: 200, id: "1", ctype: "application/json"},
		{name: "Mcp-Name bad base64 is -32020", body: echo, edits: []string{"Mcp-Name: =?base64?ZWNobw?="}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "Mcp-Name sentinel is case-sensitive", body: echo, edits: []string{"Mcp-Name: =?BASE64?ZWNobw==?="}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "Mcp-Name non-ASCII plain value is -32020", body: echo, edits: []string{"Mcp-Name: échо"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "Mcp-Name resources/read uri", body: req("1", "resources/read", `"uri":"demo://readme"`), status: 200, id: "1", ctype: "application/json"},
		{name: "Mcp-Name resources/read mismatch", body: req("1", "resources/read", `"uri":"demo://readme"`), edits: []string{"Mcp-Name: demo://logo"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "Mcp-Name prompts/get", body: req("1", "prompts/get", `"name":"greet","arguments":{"name":"a"}`), status: 200, id: "1", ctype: "application/json"},
		{name: "Mcp-Name prompts/get mismatch", body: req("1", "prompts/get", `"name":"greet","arguments":{"name":"a"}`), edits: []string{"Mcp-Name: other"}, status: 400, code: -32020, id: "1", ctype: "application/json"},

		// Mcp-Param-* (x-mcp-header).
		{name: "param header matches", body: hdrCall(`{"region":"us-west1"}`), edits: []string{"Mcp-Param-Region: us-west1"}, status: 200, id: "1", ctype: "application/json"},
		{name: "param header name is case-insensitive", body: hdrCall(`{"region":"us-west1"}`), edits: []string{"mcp-param-region: us-west1"}, status: 200, id: "1", ctype: "application/json"},
		{name: "param header missing when argument present", body: hdrCall(`{"region":"us-west1"}`), status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "param header mismatch", body: hdrCall(`{"region":"us-west1"}`), edits: []string{"Mcp-Param-Region: eu-west1"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "param header absent with argument absent", body: hdrCall(`{}`), status: 200, id: "1", ctype: "application/json"},
		{name: "param header not expected for null argument", body: hdrCall(`{"region":null}`), status: 200, id: "1", ctype: "application/json"},
		{name: "param header without argument is -32020", body: hdrCall(`{}`), edits: []string{"Mcp-Param-Region: us-west1"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "param header base64", body: hdrCall(`{"region":"Hello"}`), edits: []string{"Mcp-Param-Region: =?base64?SGVsbG8=?="}, status: 200, id: "1", ctype: "application/json"},
		{name: "param header base64 non-ASCII", body: hdrCall(`{"region":"Hello, 世界"}`), edits: []string{"Mcp-Param-Region: =?base64?SGVsbG8sIOS4lueVjA==?="}, status: 200, id: "1", ctype: "application/json"},
		{name: "param header base64 bad padding", body: hdrCall(`{"region":"Hello"}`), edits: []string{"Mcp-Param-Region: =?base64?SGVsbG8?="}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "param header base64 bad chars", body: hdrCall(`{"region":"Hello"}`), edits: []string{"Mcp-Param-Region: =?base64?SGVs!!!bG8=?="}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "param header base64 non-canonical bits", body: hdrCall(`{"region":"Hello"}`), edits: []string{"Mcp-Param-Region: =?base64?SGVsbG9=?="}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "param header without prefix is literal", body: hdrCall(`{"region":"SGVsbG8="}`), edits: []string{"Mcp-Param-Region: SGVsbG8="}, status: 200, id: "1", ctype: "application/json"},
		{name: "param header without suffix is literal", body: hdrCall(`{"region":"=?base64?SGVsbG8="}`), edits: []string{"Mcp-Param-Region: =?base64?SGVsbG8="}, status: 200, id: "1", ctype: "application/json"},
		{name: "param header sentinel-looking value encoded", body: hdrCall(`{"region":"=?base64?literal?="}`), edits: []string{"Mcp-Param-Region: =?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="}, status: 200, id: "1", ctype: "application/json"},
		{name: "param header empty string", body: hdrCall(`{"region":""}`), edits: []string{"Mcp-Param-Region: "}, status: 200, id: "1", ctype: "application/json"},
		{name: "param header integer", body: hdrCall(`{"count":42}`), edits: []string{"Mcp-Param-Count: 42"}, status: 200, id: "1", ctype: "application/json"},
		{name: "param header integer compared numerically", body: hdrCall(`{"count":42}`), edits: []string{"Mcp-Param-Count: 42.0"}, status: 200, id: "1", ctype: "application/json"},
		{name: "param header negative integer", body: hdrCall(`{"count":-7}`), edits: []string{"Mcp-Param-Count: -7"}, status: 200, id: "1", ctype: "application/json"},
		{name: "param header integer mismatch", body: hdrCall(`{"count":42}`), edits: []string{"Mcp-Param-Count: 43"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "param header integer not a number", body: hdrCall(`{"count":42}`), edits: []string{"Mcp-Param-Count: 0x2A"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "param header boolean", body: hdrCall(`{"flag":true}`), edits: []string{"Mcp-Param-Flag: true"}, status: 200, id: "1", ctype: "application/json"},
		{name: "param header boolean false", body: hdrCall(`{"flag":false}`), edits: []string{"Mcp-Param-Flag: false"}, status: 200, id: "1", ctype: "application/json"},
		{name: "param header boolean is lower case", body: hdrCall(`{"flag":true}`), edits: []string{"Mcp-Param-Flag: True"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "param header boolean mismatch", body: hdrCall(`{"flag":true}`), edits: []string{"Mcp-Param-Flag: false"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "param header nested property", body: hdrCall(`{"loc":{"zone":"a"}}`), edits: []string{"Mcp-Param-Zone: a"}, status: 200, id: "1", ctype: "application/json"},
		{name: "param header nested property missing", body: hdrCall(`{"loc":{"zone":"a"}}`), status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "param header sent twice", body: hdrCall(`{"region":"a"}`), edits: []string{"Mcp-Param-Region: a", "Mcp-Param-Region: a"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "param header non-ASCII plain value", body: hdrCall(`{"region":"café"}`), edits: []string{"Mcp-Param-Region: café"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "param header of a handler-validated tool", body: req("1", "tools/call", `"name":"hv","arguments":{"tenant":"t1"}`), edits: []string{"Mcp-Param-Tenant: t2"}, status: 400, code: -32020, id: "1", ctype: "application/json"},
		{name: "param header undeclared is ignored", body: echo, edits: []string{"Mcp-Param-Other: x"}, status: 200, id: "1", ctype: "application/json"},

		// Origin and Host (DNS rebinding).
		{name: "own origin allowed", body: list, edits: []string{"Origin: " + ts.URL}, status: 200, id: "1", ctype: "application/json"},
		{name: "own localhost origin allowed", body: list, edits: []string{"Origin: " + own}, status: 200, id: "1", ctype: "application/json"},
		{name: "allow-origin flag", body: list, edits: []string{"Origin: https://app.example.com"}, status: 200, id: "1", ctype: "application/json"},
		{name: "allowed origin gets CORS", body: list, edits: []string{"Origin: https://app.example.com"}, status: 200, id: "1", ctype: "application/json", header: "Access-Control-Allow-Origin: https://app.example.com"},
		{name: "allowed origin preflight", method: "OPTIONS", edits: []string{"Origin: https://app.example.com", "Access-Control-Request-Method: POST", "Access-Control-Request-Headers: content-type, mcp-method"}, status: 204, header: "Access-Control-Allow-Methods: POST, GET, DELETE"},
		{name: "foreign origin preflight is 403", method: "OPTIONS", edits: []string{"Origin: http://evil.example.com", "Access-Control-Request-Method: POST"}, status: 403, code: -32600, id: "null", ctype: "application/json"},
		{name: "OPTIONS without preflight is 405", method: "OPTIONS", status: 405, code: -32600, id: "null", ctype: "application/json", header: "Allow: POST, GET, DELETE"},
		{name: "foreign origin is 403", body: list, edits: []string{"Origin: http://evil.example.com"}, status: 403, code: -32600, id: "null", ctype: "application/json"},
		{name: "loopback origin on another port is 403", body: list, edits: []string{fmt.Sprintf("Origin: http://127.0.0.1:%d", port+1)}, status: 403, code: -32600, id: "null", ctype: "application/json"},
		{name: "null origin is 403", body: list, edits: []string{"Origin: null"}, status: 403, code: -32600, id: "null", ctype: "application/json"},
		{name: "foreign origin on GET is 403", method: "GET", edits: []string{"Origin: http://evil.example.com"}, status: 403, code: -32600, id: "null", ctype: "application/json"},
		{name: "cross-site fetch metadata is 403", body: list, edits: []string{"Sec-Fetch-Site: cross-site"}, status: 403, code: -32600, id: "null", ctype: "application/json"},
		{name: "rebinding host is 403", body: list, edits: []string{"Host: evil.example.com", "Origin: http://evil.example.com"}, status: 403, code: -32600, id: "null", ctype: "application/json"},
		{name: "rebinding host without origin is 403", body: list, edits: []string{fmt.Sprintf("Host: evil.example.com:%d", port)}, status: 403, code: -32600, id: "null", ctype: "application/json"},
		{name: "localhost host allowed", body: list, edits: []string{fmt.Sprintf("Host: localhost:%d", port)}, status: 200, id: "1", ctype: "application/json"},
		{name: "ipv6 loopback host allowed", body: list, edits: []string{fmt.Sprintf("Host: [::1]:%d", port)}, status: 200, id: "1", ctype: "application/json"},

		// HTTP methods, media types, body size.
		{name: "GET without a session is 405", method: "GET", status: 405, code: -32600, id: "null", ctype: "application/json", header: "Allow: POST"},
		{name: "DELETE without a session is 400", method: "DELETE", status: 400, code: -32600, id: "null", ctype: "application/json"},
		{name: "text/plain is 415", body: list, edits: []string{"Content-Type: text/plain"}, status: 415, code: -32600, id: "null", ctype: "application/json"},
		{name: "missing content type is 415", body: list, edits: []string{"-Content-Type"}, status: 415, code: -32600, id: "null", ctype: "application/json"},
		{name: "non-utf-8 charset is 415", body: list, edits: []string{"Content-Type: application/json; charset=latin1"}, status: 415, code: -32600, id: "null", ctype: "application/json"},
		{name: "utf-8 charset accepted", body: list, edits: []string{"Content-Type: application/json; charset=UTF-8"}, status: 200, id: "1", ctype: "application/json"},
		{name: "accept json only is 406", body: list, edits: []string{"Accept: application/json"}, status: 406, code: -32600, id: "null", ctype: "application/json"},
		{name: "accept sse refused by q=0 is 406", body: list, edits: []string{"Accept: application/json, text/event-stream;q=0"}, status: 406, code: -32600, id: "null", ctype: "application/json"},
		{name: "accept wildcard", body: list, edits: []string{"Accept: */*"}, status: 200, id: "1", ctype: "application/json"},
		{name: "accept split over two headers", body: list, edits: []string{"Accept: application/json", "Accept: text/event-stream"}, status: 200, id: "1", ctype: "application/json"},
		{name: "no accept header", body: list, edits: []string{"-Accept"}, status: 200, id: "1", ctype: "application/json"},
		{name: "body over the cap is 413", body: big, status: 413, code: -32600, id: "null", ctype: "application/json"},
		{name: "chunked body over the cap is 413", body: big, chunked: true, status: 413, code: -32600, id: "null", ctype: "application/json"},
		{name: "chunked body under the cap", body: echo, chunked: true, status: 200, id: "1", ctype: "application/json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := newTestHTTPRequest(t, t.Context(), ts, tt.method, tt.body, tt.edits)
			if tt.chunked {
				req.Body = io.NopCloser(strings.NewReader(tt.body))
				req.ContentLength = -1
			}
			got := mustDo(t, ts.Client(), req)
			if got.status != tt.status {
				t.Errorf("status = %d, want %d\n%s", got.status, tt.status, got.body)
			}
			ctype := got.header.Get("Content-Type")
			if tt.ctype == "" && (len(got.body) > 0 || ctype != "") {
				t.Errorf("got a body (%q): %s", ctype, got.body)
			}
			if tt.ctype != "" && !strings.HasPrefix(ctype, tt.ctype) {
				t.Errorf("Content-Type = %q, want %s", ctype, tt.ctype)
			}
			if got.code != tt.code {
				t.Errorf("error code = %d, want %d\n%s", got.code, tt.code, got.body)
			}
			if tt.id != "" && got.id != tt.id {
				t.Errorf("id = %s, want %s", got.id, tt.id)
			}
			if name, value, ok := strings.Cut(tt.header, ": "); ok && got.header.Get(name) != value {
				t.Errorf("%s = %q, want %q", name, got.header.Get(name), value)
			}
			if n := bytes.Count(got.body, []byte("\n")); len(got.body) > 0 && (n != 1 || got.body[len(got.body)-1] != '\n') {
				t.Errorf("body is not one line: %q", got.body)
			}
		})
	}
}

// readSSE parses an event stream as a client does: events separated by
// blank lines, data lines joined, comments and other fields skipped.
func readSSE(tb testing.TB, r io.Reader) []string {
	tb.Helper()
	var events []string
	var data []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data != nil {
				events = append(events, strings.Join(data, "\n"))
				data = nil
			}
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if data != nil {
		tb.Errorf("stream ended inside an event")
	}
	return events
}

// TestHTTPSSE checks that notifications switch the response to an event
// stream: notifications in order, the response last, one line per data.
func TestHTTPSSE(t *testing.T) {
	ts := newTestHTTP(t, newTestServer(t), nil)
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow","arguments":{"steps":3},"_meta":{"progressToken":"tok","io.modelcontextprotocol/logLevel":"info","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	resp, err := ts.Client().Do(newTestHTTPRequest(t, t.Context(), ts, "", body, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	for name, want := range map[string]string{"Content-Type": "text/event-stream", "X-Accel-Buffering": "no", "Cache-Control": "no-cache"} {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	events := readSSE(t, resp.Body)
	var methods []string
	for i, e := range events {
		if strings.Contains(e, "\n") {
			t.Errorf("event %d spans lines: %q", i, e)
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Progress float64 `json:"progress"`
			} `json:"params"`
			Result *struct {
				ResultType string `json:"resultType"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(e), &msg); err != nil {
			t.Fatalf("event %d is not JSON: %v: %s", i, err, e)
		}
		if msg.Method != "" {
			methods = append(methods, fmt.Sprintf("%s %g", msg.Method, msg.Params.Progress))
			continue
		}
		if i != len(events)-1 || string(msg.ID) != "9" || msg.Result == nil || msg.Result.ResultType != "complete" {
			t.Errorf("event %d = %s, want the response last", i, e)
		}
	}
	want := []string{"notifications/progress 1", "notifications/message 0", "notifications/progress 2", "notifications/message 0", "notifications/progress 3", "notifications/message 0"}
	if strings.Join(methods, "|") != strings.Join(want, "|") {
		t.Errorf("notifications = %q, want %q", methods, want)
	}
	if len(events) != len(want)+1 {
		t.Errorf("%d events, want %d", len(events), len(want)+1)
	}
}

// TestHTTPCancelOnDisconnect checks that closing the response cancels the
// request's context.
func TestHTTPCancelOnDisconnect(t *testing.T) {
	g := newTestGates()
	ts := newTestHTTP(t, newTestServer(t, withGates(g)), nil)
	ctx, cancel := context.WithCancel(t.Context())
	req := newTestHTTPRequest(t, ctx, ts, "", req("1", "tools/call", `"name":"gate"`), nil)
	done := make(chan error, 1)
	go func() {
		resp, err := ts.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	mustReceive(t, g.started)
	cancel()
	if err := mustReceive(t, g.cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("handler context ended with %v, want context.Canceled", err)
	}
	if err := mustReceive(t, done); err == nil {
		t.Errorf("client got a response after cancelling")
	}
}

// TestHTTPRequestTimeout checks the per-request handler timeout.
func TestHTTPRequestTimeout(t *testing.T) {
	g := newTestGates()
	ts := newTestHTTP(t, newTestServer(t, withGates(g), withFlags("-request-timeout", "1ms")), nil)
	got := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", req("1", "tools/call", `"name":"gate"`), nil))
	mustReceive(t, g.started)
	if err := mustReceive(t, g.cancelled); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("handler context ended with %v, want context.DeadlineExceeded", err)
	}
	if got.status != 500 || got.code != codeInternalError {
		t.Errorf("timed-out request: status %d code %d, want 500 -32603", got.status, got.code)
	}
}

// TestHTTPCallAfterDisconnect checks that nothing is written for a request
// once its client has gone, even by a handler that keeps notifying.
func TestHTTPCallAfterDisconnect(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	rec := httptest.NewRecorder()
	call := &httpCall{w: rec, rc: http.NewResponseController(rec), conn: ctx}
	call.notify(encodeNotification("notifications/progress", map[string]int{"progress": 1}))
	cancel()
	n := rec.Body.Len()
	call.notify(encodeNotification("notifications/progress", map[string]int{"progress": 2}))
	call.finish(errorReply([]byte("1"), errInternal))
	if rec.Body.Len() != n {
		t.Errorf("written after disconnect: %q", rec.Body.String()[n:])
	}
}

// chanWriter is a ResponseWriter (and Flusher) that hands each Write to
// a channel, so a test sees writes as they happen.
type chanWriter struct {
	header http.Header
	writes chan string
}

func (w *chanWriter) Header() http.Header { return w.header }

func (w *chanWriter) WriteHeader(int) {}

func (w *chanWriter) Flush() {}

func (w *chanWriter) Write(b []byte) (int, error) { w.writes <- string(b); return len(b), nil }

// TestHTTPCallKeepAlive checks the listen stream's keep-alive on a fake
// clock: nothing before the stream opens, then a comment every interval,
// and the timer's goroutine gone when the call stops it (the bubble
// would report it otherwise).
func TestHTTPCallKeepAlive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &chanWriter{header: http.Header{}, writes: make(chan string, 16)}
		call := &httpCall{w: w, rc: http.NewResponseController(w), conn: t.Context()}
		start := time.Now()
		stop := call.keepAlive(15 * time.Second)
		<-time.After(20 * time.Second)
		synctest.Wait()
		if len(w.writes) != 0 {
			t.Fatalf("%d writes before the stream opened, want none", len(w.writes))
		}
		call.notify([]byte(subExpand(ackTools1) + "\n"))
		if got := <-w.writes; !strings.HasPrefix(got, "event: message\ndata: ") {
			t.Fatalf("first write = %q, want the event", got)
		}
		for _, at := range []time.Duration{30 * time.Second, 45 * time.Second} {
			if got := <-w.writes; got != sseKeepAlive {
				t.Errorf("write = %q, want %q", got, sseKeepAlive)
			}
			if el := time.Since(start); el != at {
				t.Errorf("comment at %v, want %v", el, at)
			}
		}
		stop()
		call.finish(reply{parts: replyParts{[]byte(subExpand(closure1) + "\n")}})
		<-w.writes
		<-time.After(time.Minute)
		synctest.Wait()
		if len(w.writes) != 0 {
			t.Errorf("written after the call ended: %q", <-w.writes)
		}
	})
}

// TestHTTPKeepAliveOnStreams checks that the real transport sends the
// comments on a listen stream, in a classic session too (review A,
// finding 5: that path, a near-copy, had none), and on a classic GET
// stream (a 1ms interval; the wait is for bytes on the wire).
func TestHTTPKeepAliveOnStreams(t *testing.T) {
	ts := newTestHTTP(t, newTestServer(t), &httpConfig{keepAlive: time.Millisecond})
	c := newTestClassicClient(t, ts)
	c.initialize(bridgeInit(version20251125, `{}`))
	ctx, cancel := context.WithTimeout(t.Context(), testWait) // a stream without comments ends here
	defer cancel()
	for _, tt := range []struct {
		name string
		open func() *http.Response
	}{
		{"listen stream", func() *http.Response {
			resp, err := ts.Client().Do(newTestHTTPRequest(t, ctx, ts, "", subExpand(listenTools), nil))
			if err != nil {
				t.Fatal(err)
			}
			return resp
		}},
		{"listen stream in a classic session", func() *http.Response {
			resp, err := ts.Client().Do(newTestHTTPRequest(t, ctx, ts, "", subExpand(listenTools), []string{headerSessionID + ": " + c.sid}))
			if err != nil {
				t.Fatal(err)
			}
			return resp
		}},
		{"classic GET stream", func() *http.Response { return c.open(http.MethodGet) }},
	} {
		resp := tt.open()
		r := bufio.NewReader(resp.Body)
		seen := false
		for range 8 {
			line, err := r.ReadString('\n')
			if err != nil {
				break
			}
			if line == ": keep-alive\n" {
				seen = true
				break
			}
		}
		resp.Body.Close()
		if !seen {
			t.Errorf("%s: no keep-alive comment", tt.name)
		}
	}
}

// BenchmarkHTTPToolsCall measures one tools/call over a real loopback
// connection kept alive between iterations. allocs/op counts client and
// server together.
func BenchmarkHTTPToolsCall(b *testing.B) {
	benchHTTPToolsCall(b, newTestHTTP(b, newTestServer(b), nil))
}

// benchHTTPToolsCall measures one echo tools/call to ts per iteration,
// with edits applied to each request, over one connection kept alive.
func benchHTTPToolsCall(b *testing.B, ts *testHTTP, edits ...string) {
	body := req("1", "tools/call", `"name":"echo","arguments":{"message":"hi"}`)
	client := ts.Client()
	base := newTestHTTPRequest(b, context.Background(), ts, "", body, edits)
	benchHTTPRequests(b, client, base, body)
}

// benchHTTPRequests sends base with body through client once per
// iteration, over one connection kept alive, and fails b on any answer
// but a 200 read to its end.
func benchHTTPRequests(b *testing.B, client *http.Client, base *http.Request, body string) {
	b.ReportAllocs()
	for b.Loop() {
		req := &http.Request{Method: base.Method, URL: base.URL, Header: base.Header, Host: base.Host,
			Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body))}
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}

func FuzzHTTPHandler(f *testing.F) {
	okHeaders := "Content-Type: application/json\nAccept: application/json, text/event-stream\nMCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\nMcp-Name: echo"
	for _, seed := range []struct{ method, headers, body string }{
		{"POST", okHeaders, req("1", "tools/call", `"name":"echo","arguments":{"message":"hi"}`)},
		{"POST", strings.Replace(okHeaders, "Mcp-Name: echo", "Mcp-Name: =?base64?ZWNobw==?=", 1), req("1", "tools/call", `"name":"echo","arguments":{"message":"hi"}`)},
		{"POST", strings.Replace(okHeaders, "tools/call", "tools/list", 1), req("1", "tools/list", "")},
		{"POST", okHeaders + "\nOrigin: http://evil.example", req("1", "tools/call", `"name":"echo"`)},
		{"POST", "Content-Type: text/plain", "{}"},
		{"GET", "", ""},
		{"OPTIONS", "Origin: http://localhost\nAccess-Control-Request-Method: POST", ""},
		{"POST", okHeaders, `{"jsonrpc":"2.0","method":"notifications/cancelled"}`},
		{"POST", strings.Replace(okHeaders, "Mcp-Name: echo", "Mcp-Name: slow\nMcp-Param-Region: =?base64?AA==?=", 1),
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"steps":2},"_meta":{"progressToken":1,` + metaJSON[1:] + `}}`},
	} {
		f.Add(seed.method, seed.headers, []byte(seed.body))
	}
	s := newTestServer(f, withFuzzLimits())
	tr := newHTTPTransport(s, &httpConfig{maxBody: 1 << 16}, nil)
	f.Fuzz(func(t *testing.T, method, headers string, body []byte) {
		req, err := http.NewRequest(method, "http://127.0.0.1/mcp", bytes.NewReader(body))
		if err != nil {
			return // not a request net/http would deliver
		}
		for line := range strings.Lines(headers) {
			name, value, ok := strings.Cut(strings.TrimRight(line, "\r\n"), ":")
			if ok && name != "" {
				req.Header.Add(name, strings.TrimSpace(value))
			}
		}
		rec := httptest.NewRecorder()
		start := time.Now()
		tr.ServeHTTP(rec, req)
		if d := time.Since(start); d > fuzzInputBudget {
			t.Errorf("ServeHTTP took %v", d)
		}
		res := rec.Result()
		switch ct := res.Header.Get("Content-Type"); {
		case res.StatusCode == http.StatusAccepted || res.StatusCode == http.StatusNoContent:
			if rec.Body.Len() != 0 {
				t.Errorf("status %d with a body %q", res.StatusCode, rec.Body)
			}
		case ct == "application/json":
			id, notification, ok := parseOutgoing(rec.Body.Bytes())
			if !ok || notification {
				t.Fatalf("status %d body %q is not a JSON-RPC response", res.StatusCode, rec.Body)
			}
			if sent, _ := parseMessage(body); string(id) != "null" && !bytes.Equal(id, sent.id) {
				t.Errorf("response id %s, request id %s", id, sent.id)
			}
		case ct == "text/event-stream":
			for ev := range strings.SplitSeq(strings.TrimSuffix(rec.Body.String(), "\n\n"), "\n\n") {
				data, ok := strings.CutPrefix(ev, "event: message\ndata: ")
				if !ok || !json.Valid([]byte(data)) {
					t.Fatalf("bad SSE event %q", ev)
				}
			}
		default:
			t.Fatalf("status %d with content type %q: %q", res.StatusCode, ct, rec.Body)
		}
	})
}

// nextSSE reads one event's data from r; false at the end of the stream.
func nextSSE(r *bufio.Reader) (string, bool) {
	var data []string
	for {
		line, err := r.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && data != nil:
			return strings.Join(data, "\n"), true
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
		if err != nil {
			return "", false
		}
	}
}

func TestReadBodyMatchesReadAll(t *testing.T) {
	big := strings.Repeat("x", 3*readBodyFirst+5)
	for _, tt := range []struct {
		name string
		body string
		size int64
	}{
		{"empty", "", 0},
		{"small exact", `{"a":1}`, 7},
		{"large exact", big, int64(len(big))},
		{"unknown length", big, -1},
		{"overstated length", `{"a":1}`, 1 << 20},
		{"understated length", big, 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// New chunks, then kept ones (as they come back dirty).
			chunks := newBufferPool(bodyChunksKept, readBodyFirst, readBodyFirst)
			for _, pool := range []*bufferPool{nil, chunks, chunks} {
				got, err := readBody(iotest.HalfReader(strings.NewReader(tt.body)), tt.size, 0, nil, pool)
				if err != nil || string(got) != tt.body {
					t.Errorf("readBody(%d bytes, size %d) = %d bytes, %v; want the body", len(tt.body), tt.size, len(got), err)
				}
			}
		})
	}
}

// readSizes records the room each Read is given.
type readSizes struct {
	r     io.Reader
	sizes []int
}

func (s *readSizes) Read(p []byte) (int, error) {
	s.sizes = append(s.sizes, len(p))
	return s.r.Read(p)
}

// TestReadBodyBuffer: a body announced at most readBodyFirst long is read
// into one buffer of its size; any other in chunks of readBodyFirst, and
// what is held never passes the end the length or the limit sets, so an
// unannounced body of the limit takes no more of the budget than an
// announced one (review A, finding 7: a chunked body started with one
// byte, and doubled past the limit).
func TestReadBodyBuffer(t *testing.T) {
	const limit = 4 * readBodyFirst
	for _, tt := range []struct {
		name            string
		body, size      int64
		first, mostGrow int // the first Read's room; the largest size grow was asked for
	}{
		{"small, announced", 100, 100, 101, 0},
		{"announced, one buffer", readBodyFirst, readBodyFirst, readBodyFirst + 1, 0},
		{"unannounced", 60 << 10, -1, readBodyFirst, 0},
		{"unannounced, the limit", limit, -1, readBodyFirst, limit + 1},
		{"announced, the limit", limit, limit, readBodyFirst, limit + 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &readSizes{r: strings.NewReader(strings.Repeat("x", int(tt.body)))}
			most := 0
			got, err := readBody(r, tt.size, limit, func(n int) bool { most = max(most, n); return true }, nil)
			if err != nil || int64(len(got)) != tt.body {
				t.Fatalf("readBody = %d bytes, %v; want %d", len(got), err, tt.body)
			}
			if r.sizes[0] != tt.first || most != tt.mostGrow {
				t.Errorf("first Read given %d bytes, grown to at most %d; want %d and %d", r.sizes[0], most, tt.first, tt.mostGrow)
			}
		})
	}
}

// TestHTTPListInTwoParts: a list page the server writes in two parts (its
// head, then the tail encoded once for the page; encodeResult) arrives as
// one JSON body of the announced length, the same as the one line stdio
// writes, on every request that lists it.
func TestHTTPListInTwoParts(t *testing.T) {
	s := newTestServer(t, withRegistry("base", "extras"))
	ts := newTestHTTP(t, s, nil)
	line := req("4", "tools/list", "")
	want := dispatchLine(t, s, line)
	for i := range 3 {
		resp, err := ts.Client().Do(newTestHTTPRequest(t, t.Context(), ts, "", line, nil))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.ContentLength != int64(len(body)) || string(body) != want {
			t.Errorf("request %d: Content-Length %d, body (%d bytes)\n%s\nwant\n%s", i, resp.ContentLength, len(body), body, want)
		}
	}
}

// TestReadBodyRefusedReturnsNothing pins that a body whose reading fails
// past its first buffer (too large, cut off) is not assembled: the caller
// refuses it, and a copy would cost its size again.
func TestReadBodyRefusedReturnsNothing(t *testing.T) {
	cut := errors.New("cut off")
	for _, size := range []int64{-1, 1 << 20} {
		r := io.MultiReader(strings.NewReader(strings.Repeat("x", 3*readBodyFirst)), iotest.ErrReader(cut))
		got, err := readBody(r, size, 0, nil, newBufferPool(bodyChunksKept, readBodyFirst, readBodyFirst))
		if !errors.Is(err, cut) || got != nil {
			t.Errorf("size %d: readBody = %d bytes (nil %v), %v; want nil, %v", size, len(got), got == nil, err, cut)
		}
	}
}
