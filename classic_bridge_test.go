// Tests of MRTR bridging: each script is played on stdio and on HTTP, the
// same client lines and the same server lines on both transports (lines
// only one transport writes are marked).

package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// bridgeInit is an initialize line at version declaring caps.
func bridgeInit(version, caps string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":` + caps + `,"clientInfo":{"name":"bridge","version":"1"}}}`
}

// registerBridgeFixtures adds tools that exercise several rounds and url
// mode elicitation.
func registerBridgeFixtures(s *server) {
	s.addTool(tool{
		Name:        "two_rounds",
		Description: "Asks for a name, then for a confirmation, then reports both.",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			name := req.Input("name")
			if name == nil {
				return nil, req.NeedInput(elicitForm("name", "Name?", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)).WithState("r1")
			}
			ok := req.Input("ok")
			if ok == nil {
				return nil, req.NeedInput(elicitForm("ok", "Sure?", `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)).WithState(req.State() + "r2")
			}
			return textResult(name.String("name") + " " + ok.Action + " " + req.State()), nil
		},
	})
	s.addTool(tool{
		Name:        "login",
		Description: "Sends the user to a URL.",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			if a := req.Input("login"); a != nil {
				return textResult("login " + a.Action), nil
			}
			return nil, req.NeedInput(elicitURL("login", "Sign in", "https://example.com/login"))
		},
	})
	s.addTool(tool{
		Name:        "forever",
		Description: "Asks again after every answer.",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			return nil, req.NeedInput(listRoots("again"))
		},
	})
}

// bridgeScripts are the bridge's rules as client/server exchanges. A line
// "> msg" is sent by the client; "< msg" is expected from the server on
// both transports, "<stdio msg" on stdio only. Server-to-client request ids
// are per session, so they are the same on both transports. The
// initialize exchange is done by the runner.
var bridgeScripts = []struct {
	name, version, caps string
	timeout             time.Duration // -input-timeout; 0 means a minute
	script              string
}{
	{name: "elicitation accepted", version: version20251125, caps: `{"elicitation":{}}`, script: `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/x"}}}
< {"jsonrpc":"2.0","id":"baremcp-1","method":"elicitation/create","params":{"mode":"form","message":"Delete /x?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean","title":"Delete","description":"Check to delete"}},"required":["confirm"]}}}
> {"jsonrpc":"2.0","id":"baremcp-1","result":{"action":"accept","content":{"confirm":true}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"deleted /x"}]}}
`},
	{name: "elicitation declined reaches the handler", version: version20251125, caps: `{"elicitation":{"form":{}}}`, script: `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/x"}}}
< {"jsonrpc":"2.0","id":"baremcp-1","method":"elicitation/create","params":{"mode":"form","message":"Delete /x?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean","title":"Delete","description":"Check to delete"}},"required":["confirm"]}}}
> {"jsonrpc":"2.0","id":"baremcp-1","result":{"action":"decline"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"kept /x"}]}}
`},
	{name: "elicitation in prompts/get, cancelled", version: version20251125, caps: `{"elicitation":{}}`, script: `
> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"personal_greeting"}}
< {"jsonrpc":"2.0","id":"baremcp-1","method":"elicitation/create","params":{"mode":"form","message":"What should I call you?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","title":"Your name","minLength":1,"maxLength":100}},"required":["name"]}}}
> {"jsonrpc":"2.0","id":"baremcp-1","result":{"action":"cancel"}}
< {"jsonrpc":"2.0","id":2,"result":{"description":"A personal greeting","messages":[{"role":"user","content":{"type":"text","text":"Hello there!"}}]}}
`},
	{name: "2025-06-18 elicitation has no mode", version: version20250618, caps: `{"elicitation":{}}`, script: `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/x"}}}
< {"jsonrpc":"2.0","id":"baremcp-1","method":"elicitation/create","params":{"message":"Delete /x?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean","title":"Delete","description":"Check to delete"}},"required":["confirm"]}}}
> {"jsonrpc":"2.0","id":"baremcp-1","result":{"action":"accept","content":{"confirm":false}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"kept /x"}]}}
`},
	{name: "rounds carry earlier answers and state", version: version20251125, caps: `{"elicitation":{}}`, script: `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"two_rounds"}}
< {"jsonrpc":"2.0","id":"baremcp-1","method":"elicitation/create","params":{"mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}
> {"jsonrpc":"2.0","id":"baremcp-1","result":{"action":"accept","content":{"name":"ada"}}}
< {"jsonrpc":"2.0","id":"baremcp-2","method":"elicitation/create","params":{"mode":"form","message":"Sure?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}}
> {"jsonrpc":"2.0","id":"baremcp-2","result":{"action":"decline"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ada decline r1r2"}]}}
`},
	{name: "sampling", version: version20241105, caps: `{"sampling":{}}`, script: `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_model","arguments":{"question":"6x7?"}}}
< {"jsonrpc":"2.0","id":"baremcp-1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"6x7?"}}],"maxTokens":200}}
> {"jsonrpc":"2.0","id":"baremcp-1","result":{"role":"assistant","content":{"type":"text","text":"42"},"model":"m","stopReason":"endTurn"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"model said: 42"}]}}
`},
	{name: "sampling refused by the client", version: version20251125, caps: `{"sampling":{}}`, script: `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_model","arguments":{"question":"6x7?"}}}
< {"jsonrpc":"2.0","id":"baremcp-1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"6x7?"}}],"maxTokens":200}}
> {"jsonrpc":"2.0","id":"baremcp-1","error":{"code":-1,"message":"User rejected sampling request"}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"tools/call: the client answered sampling/createMessage with error -1: User rejected sampling request"}}
`},
	{name: "roots", version: version20250618, caps: `{"roots":{}}`, script: `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_roots"}}
< {"jsonrpc":"2.0","id":"baremcp-1","method":"roots/list","params":{}}
> {"jsonrpc":"2.0","id":"baremcp-1","result":{"roots":[{"uri":"file:///a"},{"uri":"file:///b","name":"b"}]}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"file:///a\nfile:///b"}]}}
`},
	{name: "invalid answer fails the request", version: version20250618, caps: `{"roots":{}}`, script: `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_roots"}}
< {"jsonrpc":"2.0","id":"baremcp-1","method":"roots/list","params":{}}
> {"jsonrpc":"2.0","id":"baremcp-1","result":{"roots":[{"uri":"https://a"}]}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"tools/call: the client's answer to roots/list is invalid: each root needs a file:// uri"}}
`},
	{name: "url mode in 2025-11-25 carries an elicitationId", version: version20251125, caps: `{"elicitation":{"url":{}}}`, script: `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"login"}}
< {"jsonrpc":"2.0","id":"baremcp-1","method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/login","elicitationId":"*"}}
> {"jsonrpc":"2.0","id":"baremcp-1","result":{"action":"accept"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"login accept"}]}}
`},
	{name: "missing capability is -32021", version: version20251125, caps: `{"sampling":{}}`, script: `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_roots"}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32021,"message":"missing required client capability: roots","data":{"requiredCapabilities":{"roots":{}}}}}
`},
	{name: "url mode before 2025-11-25 is -32021", version: version20250618, caps: `{"elicitation":{"url":{}}}`, script: `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"login"}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32021,"message":"missing required client capability: elicitation.url (protocol version 2025-06-18 has no url mode elicitation)","data":{"requiredCapabilities":{"elicitation":{"url":{}}}}}}
`},
	{name: "no elicitation in 2024-11-05", version: version20241105, caps: `{"elicitation":{}}`, script: `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/x"}}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32021,"message":"missing required client capability: elicitation.form (protocol version 2024-11-05 has no elicitation)","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}}
`},
	{name: "a client that never answers times out", version: version20251125, caps: `{"roots":{}}`, timeout: 20 * time.Millisecond, script: `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_roots"}}
< {"jsonrpc":"2.0","id":"baremcp-1","method":"roots/list","params":{}}
<stdio {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"baremcp-1","reason":"the request that asked was cancelled or timed out"}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"tools/call: the client did not answer [roots/list] within 20ms"}}
> {"jsonrpc":"2.0","id":"baremcp-1","result":{"roots":[]}}
> {"jsonrpc":"2.0","id":3,"method":"ping"}
< {"jsonrpc":"2.0","id":3,"result":{}}
`},
	{name: "cancellation aborts a waiting bridge", version: version20251125, caps: `{"roots":{}}`, script: `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_roots"}}
< {"jsonrpc":"2.0","id":"baremcp-1","method":"roots/list","params":{}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}
<stdio {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"baremcp-1","reason":"the request that asked was cancelled or timed out"}}
> {"jsonrpc":"2.0","id":3,"method":"ping"}
< {"jsonrpc":"2.0","id":3,"result":{}}
`},
	{name: "rounds are bounded", version: version20251125, caps: `{"roots":{}}`, script: `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"forever"}}
< {"jsonrpc":"2.0","id":"baremcp-1","method":"roots/list","params":{}}
> {"jsonrpc":"2.0","id":"baremcp-1","result":{"roots":[]}}
< {"jsonrpc":"2.0","id":"baremcp-2","method":"roots/list","params":{}}
> {"jsonrpc":"2.0","id":"baremcp-2","result":{"roots":[]}}
< {"jsonrpc":"2.0","id":"baremcp-3","method":"roots/list","params":{}}
> {"jsonrpc":"2.0","id":"baremcp-3","result":{"roots":[]}}
< {"jsonrpc":"2.0","id":"baremcp-4","method":"roots/list","params":{}}
> {"jsonrpc":"2.0","id":"baremcp-4","result":{"roots":[]}}
< {"jsonrpc":"2.0","id":"baremcp-5","method":"roots/list","params":{}}
> {"jsonrpc":"2.0","id":"baremcp-5","result":{"roots":[]}}
< {"jsonrpc":"2.0","id":"baremcp-6","method":"roots/list","params":{}}
> {"jsonrpc":"2.0","id":"baremcp-6","result":{"roots":[]}}
< {"jsonrpc":"2.0","id":"baremcp-7","method":"roots/list","params":{}}
> {"jsonrpc":"2.0","id":"baremcp-7","result":{"roots":[]}}
< {"jsonrpc":"2.0","id":"baremcp-8","method":"roots/list","params":{}}
> {"jsonrpc":"2.0","id":"baremcp-8","result":{"roots":[]}}
< {"jsonrpc":"2.0","id":"baremcp-9","method":"roots/list","params":{}}
> {"jsonrpc":"2.0","id":"baremcp-9","result":{"roots":[]}}
< {"jsonrpc":"2.0","id":"baremcp-10","method":"roots/list","params":{}}
> {"jsonrpc":"2.0","id":"baremcp-10","result":{"roots":[]}}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"tools/call: the handler asked for input more than 10 times"}}
`},
}

// newBridgeServer is the demo registry plus the bridge fixtures.
func newBridgeServer(tb testing.TB, timeout time.Duration) *server {
	tb.Helper()
	if timeout == 0 {
		timeout = time.Minute
	}
	s := newTestDemoServer(tb, config{inputTimeout: timeout}, nil)
	registerBridgeFixtures(s)
	return s
}

// bridgeLineMatches compares a server line with the expected one; a
// string "*" in want matches any string.
func bridgeLineMatches(tb testing.TB, got, want string) bool {
	tb.Helper()
	if strings.Contains(want, `"*"`) {
		prefix, suffix, _ := strings.Cut(want, `"*"`)
		return strings.HasPrefix(got, prefix) && strings.HasSuffix(got, suffix)
	}
	return sameJSON(tb, got, want)
}

// TestBridgeStdio plays every bridge script on stdio.
func TestBridgeStdio(t *testing.T) {
	for _, tt := range bridgeScripts {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newTestConn(t, newBridgeServer(t, tt.timeout))
			c.send(bridgeInit(tt.version, tt.caps))
			c.recv()
			c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			for line := range strings.Lines(strings.TrimSpace(tt.script)) {
				line = strings.TrimSuffix(line, "\n")
				kind, msg, _ := strings.Cut(line, " ")
				switch kind {
				case ">":
					c.send(msg)
				case "<", "<stdio":
					if got := c.recv(); !bridgeLineMatches(t, got, msg) {
						t.Fatalf("server wrote\n%s\nwant\n%s", got, msg)
					}
				}
			}
		})
	}
}

// TestBridgeHTTP plays every bridge script over HTTP: requests are POSTs
// whose response streams feed one channel of server lines; responses and
// notifications are POSTs answered 202.
func TestBridgeHTTP(t *testing.T) {
	for _, tt := range bridgeScripts {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts, _ := newTestHTTPTransport(t, newBridgeServer(t, tt.timeout), &httpConfig{})
			c := newClassicHTTPClient(t, ts)
			c.initialize(bridgeInit(tt.version, tt.caps))
			lines := make(chan string, 64)
			for line := range strings.Lines(strings.TrimSpace(tt.script)) {
				line = strings.TrimSuffix(line, "\n")
				kind, msg, _ := strings.Cut(line, " ")
				switch kind {
				case ">":
					parsed, rerr := parseMessage([]byte(msg))
					if rerr != nil {
						t.Fatalf("script line %s: %v", msg, rerr)
					}
					if parsed.isResponse() || parsed.isNotification() {
						if status, _, _ := c.post(msg); status != http.StatusAccepted {
							t.Fatalf("POST %s: status %d, want 202", msg, status)
						}
						continue
					}
					resp := c.open(msg)
					go func() {
						defer resp.Body.Close()
						if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
							b, _ := io.ReadAll(resp.Body)
							lines <- strings.TrimSpace(string(b))
							return
						}
						r := bufio.NewReader(resp.Body)
						for {
							ev, ok := nextSSE(r)
							if !ok {
								return
							}
							lines <- ev
						}
					}()
				case "<":
					select {
					case got := <-lines:
						if !bridgeLineMatches(t, got, msg) {
							t.Fatalf("server sent\n%s\nwant\n%s", got, msg)
						}
					case <-time.After(testWait):
						t.Fatalf("no server message within %v; want\n%s", testWait, msg)
					}
				}
			}
		})
	}
}

// TestBridgeHTTPDisconnect checks that a client leaving the POST aborts a
// waiting bridge and removes its pending entry.
func TestBridgeHTTPDisconnect(t *testing.T) {
	s := newBridgeServer(t, 0)
	ts, tr := newTestHTTPTransport(t, s, &httpConfig{})
	c := newClassicHTTPClient(t, ts)
	c.initialize(bridgeInit(version20251125, `{"roots":{}}`))
	ctx, cancel := context.WithCancel(t.Context())
	resp := c.openContext(ctx, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_roots"}}`)
	ev, ok := nextSSE(bufio.NewReader(resp.Body))
	if !ok || !strings.Contains(ev, `"roots/list"`) {
		t.Fatalf("first event = %q, want roots/list", ev)
	}
	tr.sessions.mu.Lock()
	sess := tr.sessions.byID[c.sid].sess
	tr.sessions.mu.Unlock()
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(testWait)
	for {
		sess.mu.Lock()
		n := len(sess.pending)
		sess.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("pending request still registered after the client left")
		}
		runtime.Gosched() // polling with a deadline: the abort runs on the server's goroutine
	}
	if status, _, _ := c.post(`{"jsonrpc":"2.0","id":"baremcp-1","result":{"roots":[]}}`); status != http.StatusAccepted {
		t.Errorf("late answer: status %d, want 202", status)
	}
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
