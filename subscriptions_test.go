package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
)

// subMeta is the _meta every modern request in these tests carries ($M).
const subMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// subExpand replaces $M with subMeta and $S with the serverInfo member
// every modern result carries.
func subExpand(line string) string {
	line = strings.ReplaceAll(line, "$M", subMeta)
	return strings.ReplaceAll(line, "$S", `"io.modelcontextprotocol/serverInfo":{"name":"baremcp","version":"`+serverVersion+`"}`)
}

// newTestSubServer returns a server with the demo registry, the
// conformance subscription fixtures and a test tool touch{uri} that
// announces an update of uri. stop ends the demo clock.
func newTestSubServer(t testing.TB, cfg config) (s *server, stop func()) {
	t.Helper()
	s = newServer(cfg, log.New(io.Discard, "", 0))
	stop = mustRegisterDemo(t, s)
	registerSubscriptionFixtures(s)
	s.addTool(tool{
		Name:        "touch",
		Description: "Announces that uri was updated.",
		InputSchema: `{"type":"object","properties":{"uri":{"type":"string"}},"required":["uri"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			s.resourceUpdated(req.String("uri"))
			return textResult("touched"), nil
		},
	})
	return s, stop
}

// subStep is one step of a scripted stdio exchange.
type subStep struct {
	send     string   // write this line
	want     []string // then read exactly these lines, in any order
	quiet    bool     // then, once every goroutine is idle, nothing more is written
	eof      bool     // close stdin: want is everything written until stdout ends
	shutdown bool     // cancel serve's context: likewise
}

// Lines the scripts use.
const (
	listenTools    = `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{$M,"notifications":{"toolsListChanged":true}}}`
	ackTools1      = `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"toolsListChanged":true}}}`
	toolsChanged1  = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}`
	closure1       = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{$S,"io.modelcontextprotocol/subscriptionId":1}}}`
	triggerTools9  = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{$M,"name":"test_trigger_tool_change"}}`
	triggeredTools = `{"jsonrpc":"2.0","id":9,"result":{"resultType":"complete","content":[{"type":"text","text":"sent notifications/tools/list_changed"}],"_meta":{$S}}}`
	triggerPrompts = `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{$M,"name":"test_trigger_prompt_change"}}`
	triggeredProm  = `{"jsonrpc":"2.0","id":8,"result":{"resultType":"complete","content":[{"type":"text","text":"sent notifications/prompts/list_changed"}],"_meta":{$S}}}`
	touched7       = `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"touched"}],"_meta":{$S}}}`
)

func TestSubscriptionsListenStdio(t *testing.T) {
	for _, tt := range []struct {
		name  string
		cfg   config
		steps []subStep
	}{
		{name: "acknowledgement first carries the honoured subset, unknown types and duplicate URIs dropped", steps: []subStep{
			{send: `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{$M,"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["demo://readme","test://x","demo://readme"],"tasksChanged":true}}}`,
				want: []string{`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["demo://readme","test://x"]}}}`}},
			{eof: true, want: []string{closure1}},
		}},
		{name: "false and empty members are not honoured", steps: []subStep{
			{send: `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{$M,"notifications":{"toolsListChanged":false,"resourceSubscriptions":[]}}}`,
				want: []string{`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{}}}`}},
			{send: triggerTools9, want: []string{triggeredTools}, quiet: true},
			{eof: true, want: []string{closure1}},
		}},
		{name: "tools list change reaches a toolsListChanged subscription", steps: []subStep{
			{send: listenTools, want: []string{ackTools1}},
			{send: triggerTools9, want: []string{triggeredTools, toolsChanged1}, quiet: true},
			{eof: true, want: []string{closure1}},
		}},
		{name: "filter honoured: a promptsListChanged subscription gets no tools notification", steps: []subStep{
			{send: `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{$M,"notifications":{"promptsListChanged":true}}}`,
				want: []string{`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"promptsListChanged":true}}}`}},
			{send: triggerTools9, want: []string{triggeredTools}, quiet: true},
			{send: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{$M,"name":"touch","arguments":{"uri":"demo://readme"}}}`, want: []string{touched7}, quiet: true},
			{send: triggerPrompts, want: []string{triggeredProm, `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}`}, quiet: true},
			{eof: true, want: []string{closure1}},
		}},
		{name: "string id tags every message byte for byte", steps: []subStep{
			{send: `{"jsonrpc":"2.0","id":"sub-\u0061","method":"subscriptions/listen","params":{$M,"notifications":{"toolsListChanged":true}}}`,
				want: []string{`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-\u0061"},"notifications":{"toolsListChanged":true}}}`}},
			{send: triggerTools9, want: []string{triggeredTools, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-\u0061"}}}`}},
			{eof: true, want: []string{`{"jsonrpc":"2.0","id":"sub-\u0061","result":{"resultType":"complete","_meta":{$S,"io.modelcontextprotocol/subscriptionId":"sub-\u0061"}}}`}},
		}},
		{name: "large integer id (the suite's Date.now()) tags every message", steps: []subStep{
			{send: `{"jsonrpc":"2.0","id":1764460800123,"method":"subscriptions/listen","params":{$M,"notifications":{"toolsListChanged":true}}}`,
				want: []string{`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1764460800123},"notifications":{"toolsListChanged":true}}}`}},
			{send: triggerTools9, want: []string{triggeredTools, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1764460800123}}}`}},
			{shutdown: true, want: []string{`{"jsonrpc":"2.0","id":1764460800123,"result":{"resultType":"complete","_meta":{$S,"io.modelcontextprotocol/subscriptionId":1764460800123}}}`}},
		}},
		{name: "two concurrent subscriptions are demultiplexed by id", steps: []subStep{
			{send: listenTools, want: []string{ackTools1}},
			{send: `{"jsonrpc":"2.0","id":"b","method":"subscriptions/listen","params":{$M,"notifications":{"toolsListChanged":true,"promptsListChanged":true}}}`,
				want: []string{`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"b"},"notifications":{"toolsListChanged":true,"promptsListChanged":true}}}`}},
			{send: triggerTools9, want: []string{triggeredTools, toolsChanged1, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"b"}}}`}, quiet: true},
			{send: triggerPrompts, want: []string{triggeredProm, `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"b"}}}`}, quiet: true},
			{eof: true, want: []string{closure1, `{"jsonrpc":"2.0","id":"b","result":{"resultType":"complete","_meta":{$S,"io.modelcontextprotocol/subscriptionId":"b"}}}`}},
		}},
		{name: "cancellation by notification: nothing more is written for it, not even at EOF", steps: []subStep{
			{send: listenTools, want: []string{ackTools1}},
			{send: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"done"}}`, quiet: true},
			{send: triggerTools9, want: []string{triggeredTools}, quiet: true},
			{eof: true},
		}},
		{name: "cancelling one subscription leaves the other", steps: []subStep{
			{send: listenTools, want: []string{ackTools1}},
			{send: `{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{$M,"notifications":{"toolsListChanged":true}}}`,
				want: []string{`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2},"notifications":{"toolsListChanged":true}}}`}},
			{send: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"1"}}`, quiet: true}, // "1" is not 1
			{send: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, quiet: true},
			{send: triggerTools9, want: []string{triggeredTools, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`}, quiet: true},
			{eof: true, want: []string{`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","_meta":{$S,"io.modelcontextprotocol/subscriptionId":2}}}`}},
		}},
		{name: "graceful closure on shutdown", steps: []subStep{
			{send: listenTools, want: []string{ackTools1}},
			{shutdown: true, want: []string{closure1}},
		}},
		{name: "resources/updated only for subscribed URIs", steps: []subStep{
			{send: `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{$M,"notifications":{"resourceSubscriptions":["test://watched-resource"]}}}`,
				want: []string{`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"resourceSubscriptions":["test://watched-resource"]}}}`}},
			{send: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{$M,"name":"touch","arguments":{"uri":"demo://readme"}}}`, want: []string{touched7}, quiet: true},
			{send: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{$M,"name":"touch","arguments":{"uri":"test://watched-resource"}}}`,
				want: []string{touched7, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"uri":"test://watched-resource"}}`}, quiet: true},
			{send: triggerTools9, want: []string{triggeredTools}, quiet: true},
			{eof: true, want: []string{closure1}},
		}},
		{name: "a real registry change is announced, and tools/list then shows it", steps: []subStep{
			{send: listenTools, want: []string{ackTools1}},
			{send: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{$M,"name":"toggle_extra_tool"}}`,
				want: []string{toolsChanged1, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"added the tool extra"}],"_meta":{$S}}}`}},
			{send: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{$M,"name":"extra"}}`,
				want: []string{`{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[{"type":"text","text":"hello from the extra tool"}],"_meta":{$S}}}`}},
			{send: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{$M,"name":"toggle_extra_tool"}}`,
				want: []string{toolsChanged1, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"removed the tool extra"}],"_meta":{$S}}}`}},
			{eof: true, want: []string{closure1}},
		}},
		{name: "max subscriptions: at the limit, over it, and again after a cancellation", cfg: config{maxSubscriptions: 2}, steps: []subStep{
			{send: listenTools, want: []string{ackTools1}},
			{send: `{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{$M,"notifications":{}}}`,
				want: []string{`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2},"notifications":{}}}`}},
			{send: `{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{$M,"notifications":{}}}`,
				want: []string{`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"subscriptions/listen: too many open subscriptions (limit 2)","data":{"maxSubscriptions":2}}}`}},
			{send: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`, quiet: true},
			{send: `{"jsonrpc":"2.0","id":4,"method":"subscriptions/listen","params":{$M,"notifications":{}}}`,
				want: []string{`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":4},"notifications":{}}}`}},
			{eof: true, want: []string{closure1, `{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","_meta":{$S,"io.modelcontextprotocol/subscriptionId":4}}}`}},
		}},
		{name: "max URIs: at the limit (after duplicates are dropped) and over it", cfg: config{maxSubscriptionURIs: 2}, steps: []subStep{
			{send: `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{$M,"notifications":{"resourceSubscriptions":["a://1","a://2","a://1"]}}}`,
				want: []string{`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"resourceSubscriptions":["a://1","a://2"]}}}`}},
			{send: `{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{$M,"notifications":{"resourceSubscriptions":["a://1","a://2","a://3"]}}}`,
				want: []string{`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"invalid params: notifications.resourceSubscriptions: more than 2 URIs","data":{"maxUris":2}}}`}},
			{eof: true, want: []string{closure1}},
		}},
		{name: "the clock resource announces its updates", steps: []subStep{
			{send: `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{$M,"notifications":{"resourceSubscriptions":["demo://clock"]}}}`,
				want: []string{`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"resourceSubscriptions":["demo://clock"]}}}`,
					`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"uri":"demo://clock"}}`}},
			{eof: true, want: []string{closure1}},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, stop := newTestSubServer(t, tt.cfg)
				defer stop()
				p := newTestServeConn(t, s.serveStdio)
				defer p.finish()
				for i, st := range tt.steps {
					var got []string
					switch {
					case st.eof:
						p.in.Close()
						got = p.drain()
					case st.shutdown:
						p.cancel()
						got = p.drain()
					default:
						p.send(subExpand(st.send))
						for range st.want {
							got = append(got, p.recv())
						}
					}
					want := make([]string, len(st.want))
					for j, w := range st.want {
						want[j] = subExpand(w)
					}
					slices.Sort(got)
					slices.Sort(want)
					if !slices.Equal(got, want) {
						t.Fatalf("step %d (%.60s):\n got: %q\nwant: %q", i, st.send, got, want)
					}
					if st.quiet {
						synctest.Wait()
						select {
						case l, ok := <-p.lines:
							if ok {
								t.Fatalf("step %d: unexpected message %s", i, l)
							}
						default:
						}
					}
				}
				if err := p.finish(); err != nil {
					t.Errorf("serveStdio = %v, want nil", err)
				}
				if n := s.subs.count(); n != 0 {
					t.Errorf("%d subscriptions still open after the connection ended", n)
				}
			})
		})
	}
}

func TestSubscriptionsListenErrors(t *testing.T) {
	for _, tt := range []struct {
		name, notifications, want string // notifications "" means absent
	}{
		{"notifications is required", ``,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: notifications is required"}}`},
		{"notifications must be an object", `,"notifications":[]`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: notifications must be an object"}}`},
		{"a flag must be a boolean", `,"notifications":{"toolsListChanged":"yes"}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: notifications.toolsListChanged must be a boolean"}}`},
		{"null is not a boolean", `,"notifications":{"promptsListChanged":null}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: notifications.promptsListChanged must be a boolean"}}`},
		{"resourceSubscriptions must be an array", `,"notifications":{"resourceSubscriptions":"a://1"}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: notifications.resourceSubscriptions must be an array of strings"}}`},
		{"resourceSubscriptions must hold strings", `,"notifications":{"resourceSubscriptions":["a://1",2]}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: notifications.resourceSubscriptions must be an array of strings"}}`},
		{"a URI must not be empty", `,"notifications":{"resourceSubscriptions":[""]}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: notifications.resourceSubscriptions: a URI must have 1 to 4096 bytes"}}`},
		{"a URI must not be huge", `,"notifications":{"resourceSubscriptions":["` + strings.Repeat("a", maxSubscriptionURIBytes+1) + `"]}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: notifications.resourceSubscriptions: a URI must have 1 to 4096 bytes"}}`},
		{"a member imitating a filter name by case is refused", `,"notifications":{"ToolsListChanged":true}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: notifications member \"ToolsListChanged\" is not \"toolsListChanged\""}}`},
		{"a params member imitating notifications is refused", `,"Notifications":{}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: params member \"Notifications\" is not \"notifications\""}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, stop := newTestSubServer(t, config{})
			defer stop()
			line := subExpand(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{$M` + tt.notifications + `}}`)
			msg, rerr := parseMessage([]byte(line))
			if rerr != nil {
				t.Fatalf("parseMessage(%s) = %v", line, rerr)
			}
			got := strings.TrimSuffix(string(s.dispatch(t.Context(), &msg, exchange{send: func([]byte) {}})), "\n")
			if got != tt.want {
				t.Errorf("dispatch(%.80s)\n got: %s\nwant: %s", line, got, tt.want)
			}
			if n := s.subs.count(); n != 0 {
				t.Errorf("%d subscriptions open after a refused listen", n)
			}
		})
	}
}

func TestSubscriptionsListenNeedsAStream(t *testing.T) {
	s, stop := newTestSubServer(t, config{})
	defer stop()
	msg, _ := parseMessage([]byte(subExpand(listenTools)))
	got := strings.TrimSuffix(string(s.dispatch(t.Context(), &msg, exchange{})), "\n")
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: subscriptions/listen needs a transport that streams notifications"}}`
	if got != want {
		t.Errorf("dispatch without send\n got: %s\nwant: %s", got, want)
	}
}

// TestSubscriptionsSlowReaderCoalesces checks the bound on what a
// subscription that is not read holds: one entry per distinct notice.
func TestSubscriptionsSlowReaderCoalesces(t *testing.T) {
	h := newSubscriptionHub(0, 0)
	sub, rerr := h.open([]byte("1"), subscriptionFilter{tools: true, uris: []string{"a://1", "a://2"}})
	if rerr != nil {
		t.Fatal(rerr)
	}
	for range 10000 {
		h.publish(notice{kind: noticeToolsListChanged})
		h.publish(notice{kind: noticePromptsListChanged})
		h.publish(notice{kind: noticeResourceUpdated, uri: "a://2"})
		h.publish(notice{kind: noticeResourceUpdated, uri: "a://3"})
	}
	want := []notice{{kind: noticeToolsListChanged}, {kind: noticeResourceUpdated, uri: "a://2"}}
	if got := h.take(sub); !slices.Equal(got, want) {
		t.Errorf("take after 10000 rounds = %v, want %v", got, want)
	}
	h.publish(notice{kind: noticeResourceUpdated, uri: "a://1"})
	if got := h.take(sub); !slices.Equal(got, []notice{{kind: noticeResourceUpdated, uri: "a://1"}}) {
		t.Errorf("take after one more = %v", got)
	}
	h.close(sub)
	h.publish(notice{kind: noticeToolsListChanged})
	if got := h.take(sub); got != nil {
		t.Errorf("take after close = %v, want nothing", got)
	}
}

// TestRegistryChangesPublish checks that each registry change announces
// exactly the list it changed, and nothing when nothing changed.
func TestRegistryChangesPublish(t *testing.T) {
	noop := func(ctx context.Context, req *request) (*toolResult, error) { return textResult(""), nil }
	read := func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
		return nil, nil
	}
	for _, tt := range []struct {
		name   string
		change func(s *server)
		want   []notice
	}{
		{"addTool", func(s *server) { s.addTool(tool{Name: "t2", Call: noop}) }, []notice{{kind: noticeToolsListChanged}}},
		{"removeTool", func(s *server) { s.removeTool("t1") }, []notice{{kind: noticeToolsListChanged}}},
		{"removeTool of an unknown tool", func(s *server) { s.removeTool("nope") }, nil},
		{"addPrompt", func(s *server) {
			s.addPrompt(prompt{Name: "p2", Get: func(context.Context, *request, map[string]string) (*promptResult, error) { return nil, nil }})
		}, []notice{{kind: noticePromptsListChanged}}},
		{"removePrompt", func(s *server) { s.removePrompt("p1") }, []notice{{kind: noticePromptsListChanged}}},
		{"addResource", func(s *server) { s.addResource(resource{URI: "a://2", Name: "r2"}) }, []notice{{kind: noticeResourcesListChanged}}},
		{"removeResource", func(s *server) { s.removeResource("a://1") }, []notice{{kind: noticeResourcesListChanged}}},
		{"addTemplate", func(s *server) { s.addTemplate(resourceTemplate{URITemplate: "a://t2/{x}", Name: "t2", Read: read}) },
			[]notice{{kind: noticeResourcesListChanged}}},
		{"removeTemplate", func(s *server) { s.removeTemplate("a://t/{x}") }, []notice{{kind: noticeResourcesListChanged}}},
		{"removeTemplate of an unknown template", func(s *server) { s.removeTemplate("a://none/{x}") }, nil},
		{"resourceUpdated", func(s *server) { s.resourceUpdated("a://1") }, []notice{{kind: noticeResourceUpdated, uri: "a://1"}}},
		{"resourceUpdated of an unwatched URI", func(s *server) { s.resourceUpdated("a://9") }, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(config{}, log.New(io.Discard, "", 0))
			s.addTool(tool{Name: "t1", Call: noop})
			s.addPrompt(prompt{Name: "p1", Get: func(context.Context, *request, map[string]string) (*promptResult, error) { return nil, nil }})
			s.addResource(resource{URI: "a://1", Name: "r1"})
			s.addTemplate(resourceTemplate{URITemplate: "a://t/{x}", Name: "t", Read: read})
			sub, rerr := s.subs.open([]byte("1"), subscriptionFilter{tools: true, prompts: true, resources: true, uris: []string{"a://1"}})
			if rerr != nil {
				t.Fatal(rerr)
			}
			defer s.subs.close(sub)
			tt.change(s)
			if got := s.subs.take(sub); !slices.Equal(got, tt.want) {
				t.Errorf("%s published %v, want %v", tt.name, got, tt.want)
			}
		})
	}
}

func TestCapabilitiesAdvertiseSubscriptions(t *testing.T) {
	s, stop := newTestSubServer(t, config{})
	defer stop()
	for _, tt := range []struct{ version, want string }{
		{version20260728, `{"logging":{},"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"completions":{}}`},
		// Classic sessions get list changes and resources/subscribe too.
		{"2025-11-25", `{"logging":{},"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"completions":{}}`},
		{"2024-11-05", `{"logging":{},"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true}}`},
	} {
		if got := string(s.registry().capabilities(tt.version)); got != tt.want {
			t.Errorf("capabilities(%q) = %s, want %s", tt.version, got, tt.want)
		}
	}
	// With no prompts, promptsListChanged is neither advertised nor honoured.
	empty := newServer(config{}, log.New(io.Discard, "", 0))
	if got := (subscriptionFilter{tools: true, prompts: true, resources: true, uris: []string{"a://1"}}).honoured(empty.registry()); got.tools || got.prompts || got.resources || got.uris != nil {
		t.Errorf("honoured by an empty registry = %+v, want nothing", got)
	}
}

// TestStdioShutdownDuringDrain checks that ctx ending still cancels the
// requests in flight after EOF, once listen requests have closed.
func TestStdioShutdownDuringDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, stop := newTestSubServer(t, config{})
		defer stop()
		p := newTestServeConn(t, s.serveStdio)
		defer p.finish()
		p.send(subExpand(listenTools))
		if got, want := p.recv(), subExpand(ackTools1); got != want {
			t.Fatalf("ack = %s, want %s", got, want)
		}
		p.send(subExpand(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{$M,"name":"slow","arguments":{"steps":100}}}`))
		p.in.Close()
		if got, want := p.recv(), subExpand(closure1); got != want {
			t.Fatalf("at EOF got %s, want %s", got, want)
		}
		synctest.Wait() // slow is waiting for its first step; the clock is stopped
		p.cancel()
		want := []string{`{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"request cancelled"}}`}
		if got := p.drain(); !slices.Equal(got, want) {
			t.Errorf("after ctx ended got %q, want %q", got, want)
		}
		if err := p.finish(); err != nil {
			t.Errorf("serveStdio = %v, want nil", err)
		}
	})
}

// TestRunSubscriptionFlags checks the limits' flags through run.
func TestRunSubscriptionFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string // "" means run serves and returns nil
	}{
		{[]string{"-max-subscriptions", "0"}, "-max-subscriptions must be between 1 and 128"},
		{[]string{"-max-subscriptions", "129"}, "-max-subscriptions must be between 1 and 128"},
		{[]string{"-max-subscriptions", "128"}, ""},
		{[]string{"-max-subscription-uris", "0"}, "-max-subscription-uris must be at least 1"},
		{[]string{"-max-subscription-uris", "1"}, ""},
	} {
		err := run(t.Context(), tt.args, strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("run(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestRunSubscriptionLimitFlag drives the flags end to end: run with one
// subscription allowed and one URI per subscription.
func TestRunSubscriptionLimitFlag(t *testing.T) {
	skipWithoutDemo(t)
	synctest.Test(t, func(t *testing.T) {
		p := newTestServeConn(t, func(ctx context.Context, in io.Reader, out io.Writer) error {
			return run(ctx, []string{"-max-subscriptions", "1", "-max-subscription-uris", "1"}, in, out, io.Discard, func(string) string { return "" })
		})
		defer p.finish()
		for _, step := range [][2]string{
			{`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{$M,"notifications":{"resourceSubscriptions":["a://1","a://2"]}}}`,
				`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: notifications.resourceSubscriptions: more than 1 URIs","data":{"maxUris":1}}}`},
			{`{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{$M,"notifications":{"resourceSubscriptions":["a://1"]}}}`,
				`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2},"notifications":{"resourceSubscriptions":["a://1"]}}}`},
			{`{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{$M,"notifications":{}}}`,
				`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"subscriptions/listen: too many open subscriptions (limit 1)","data":{"maxSubscriptions":1}}}`},
		} {
			p.send(subExpand(step[0]))
			if got, want := p.recv(), subExpand(step[1]); got != want {
				t.Fatalf("after %.70s\n got: %s\nwant: %s", step[0], got, want)
			}
		}
		p.in.Close()
		want := subExpand(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","_meta":{$S,"io.modelcontextprotocol/subscriptionId":2}}}`)
		if got := p.drain(); !slices.Equal(got, []string{want}) {
			t.Errorf("at EOF got %q, want %q", got, want)
		}
		if err := p.finish(); err != nil {
			t.Errorf("run = %v, want nil", err)
		}
	})
}

// TestRegistryChurnUnderLoad changes the tool registry while tools/list,
// tools/call and a subscription run on the stdio loop; -race checks the
// copy-on-write registry and the hub, and every tools/list must show a
// whole snapshot in registration order.
func TestRegistryChurnUnderLoad(t *testing.T) {
	s, stop := newTestSubServer(t, config{})
	defer stop()
	static := toolNames(t, s.registry())
	p := newTestServeConn(t, s.serveStdio)
	defer p.finish()
	p.send(subExpand(listenTools))
	if got, want := p.recv(), subExpand(ackTools1); got != want {
		t.Fatalf("ack = %s, want %s", got, want)
	}

	const rounds = 200
	var churn sync.WaitGroup
	churn.Go(func() {
		for i := range rounds {
			name := fmt.Sprintf("dyn%d", i%7)
			if !s.removeTool(name) {
				s.addTool(tool{Name: name, Description: "churn", Call: func(ctx context.Context, req *request) (*toolResult, error) {
					return textResult(name), nil
				}})
			}
		}
	})
	churn.Go(func() { // writes only: t.Fatal belongs to the test goroutine
		for i := range rounds {
			var line string
			switch i % 3 {
			case 0:
				line = fmt.Sprintf(`{"jsonrpc":"2.0","id":"l%d","method":"tools/list","params":{$M}}`, i)
			case 1:
				line = fmt.Sprintf(`{"jsonrpc":"2.0","id":"c%d","method":"tools/call","params":{$M,"name":"echo","arguments":{"message":"hi"}}}`, i)
			default:
				line = fmt.Sprintf(`{"jsonrpc":"2.0","id":"t%d","method":"tools/call","params":{$M,"name":"toggle_extra_tool"}}`, i)
			}
			if _, err := io.WriteString(p.in, subExpand(line)+"\n"); err != nil {
				return
			}
		}
	})

	changed := 0
	for answered := 0; answered < rounds; {
		line := p.recv()
		var msg struct {
			ID     string          `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("unreadable line %s: %v", line, err)
		}
		switch {
		case msg.Method == methodToolsListChanged:
			changed++
			continue
		case msg.Error != nil:
			t.Fatalf("error response %s", line)
		case strings.HasPrefix(msg.ID, "l"):
			var list struct {
				Tools []struct{ Name string } `json:"tools"`
			}
			if err := json.Unmarshal(msg.Result, &list); err != nil {
				t.Fatalf("tools/list result %s: %v", msg.Result, err)
			}
			var names []string
			for _, tl := range list.Tools {
				names = append(names, tl.Name)
			}
			if len(names) < len(static) || !slices.Equal(names[:len(static)], static) {
				t.Fatalf("tools/list %q does not start with the static tools %q", names, static)
			}
			seen := map[string]bool{}
			for _, n := range names {
				if seen[n] {
					t.Fatalf("tools/list %q lists %s twice", names, n)
				}
				seen[n] = true
			}
		case strings.HasPrefix(msg.ID, "c"):
			if !strings.Contains(string(msg.Result), `"text":"hi"`) {
				t.Fatalf("echo result %s", msg.Result)
			}
		}
		answered++
	}
	churn.Wait()
	p.in.Close()
	// The subscription's writer runs apart from the requests, so the last
	// notices may come after the last response: count them too.
	for _, l := range p.drain() {
		switch l {
		case subExpand(toolsChanged1):
			changed++
		case subExpand(closure1):
		default:
			t.Errorf("unexpected line at EOF: %s", l)
		}
	}
	if changed == 0 {
		t.Error("no tools/list_changed reached the subscription")
	}
	if err := p.finish(); err != nil {
		t.Errorf("serveStdio = %v, want nil", err)
	}
}

// toolNames returns the names of reg's tools in order.
func toolNames(t testing.TB, reg *registry) []string {
	t.Helper()
	var names []string
	for _, tl := range reg.tools {
		names = append(names, tl.Name)
	}
	return names
}
