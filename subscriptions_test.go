// Tests of subscriptions/listen and the classic resources/subscribe
// (subscriptions.go) that the transcripts (testdata/subscriptions,
// testdata/subscriptions-http, testdata/classic*/notifications-*.txt) do
// not show: refused listens, the hub's bounds, advertised capabilities,
// the limits' flags, and shutdown on stdio and HTTP. What registry changes
// announce is in registry_test.go.

package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// subExpand replaces $M with metaMember and $S with the serverInfo member
// every modern result of a test server carries.
func subExpand(line string) string {
	line = strings.ReplaceAll(line, "$M", metaMember)
	return strings.ReplaceAll(line, "$S", `"io.modelcontextprotocol/serverInfo":`+string(mustMarshal(testIdentity)))
}

// Lines the tests use.
const (
	listenTools   = `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{$M,"notifications":{"toolsListChanged":true}}}`
	ackTools1     = `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"toolsListChanged":true}}}`
	toolsChanged1 = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}`
	closure1      = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{$S,"io.modelcontextprotocol/subscriptionId":1}}}`
	// closed1 follows closure1 on stdio: the stream's close (listenClosed).
	closed1 = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"the server closed the subscription"}}`
)

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
			s := newTestServer(t, withRegistry("base", "subscriptions"))
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
	s := newTestServer(t, withRegistry("base", "subscriptions"))
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
	h := newSubscriptionHub(0, 0, 0)
	sub, rerr := h.open([]byte("1"), subscriptionFilter{tools: true, uris: []string{"a://1", "a://2"}}, "")
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

func TestCapabilitiesAdvertiseSubscriptions(t *testing.T) {
	s := newTestServer(t, withRegistry("base", "subscriptions"))
	for _, tt := range []struct{ version, want string }{
		// base's slow may run as a task: the modern era advertises the
		// tasks extension, the classic era, which does not define it, never.
		{version20260728, `{"logging":{},"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"completions":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`},
		// Classic sessions get list changes and resources/subscribe too.
		{"2025-11-25", `{"logging":{},"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"completions":{}}`},
		{"2024-11-05", `{"logging":{},"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true}}`},
	} {
		if got := string(s.registry().capabilities(tt.version)); got != tt.want {
			t.Errorf("capabilities(%q) = %s, want %s", tt.version, got, tt.want)
		}
	}
	// With no prompts, promptsListChanged is neither advertised nor honoured.
	empty := newTestServer(t, withRegistry())
	if got := (subscriptionFilter{tools: true, prompts: true, resources: true, uris: []string{"a://1"}}).honoured(empty.registry()); got.tools || got.prompts || got.resources || got.uris != nil {
		t.Errorf("honoured by an empty registry = %+v, want nothing", got)
	}
}

// TestStdioShutdownDuringDrain checks that ctx ending still cancels the
// requests in flight after EOF, once listen requests have closed.
func TestStdioShutdownDuringDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, withRegistry("base", "subscriptions"))
		p := newTestServeConn(t, s.serveStdio)
		defer p.finish()
		p.send(subExpand(listenTools))
		if got, want := p.recv(), subExpand(ackTools1); got != want {
			t.Fatalf("ack = %s, want %s", got, want)
		}
		p.send(subExpand(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{$M,"name":"slow","arguments":{"steps":100}}}`))
		p.closeInput()
		if got, want := p.recv(), subExpand(closure1); got != want {
			t.Fatalf("at EOF got %s, want %s", got, want)
		}
		if got, want := p.recv(), subExpand(closed1); got != want {
			t.Fatalf("after the closure got %s, want %s", got, want)
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
		{[]string{"-max-subscriptions", "0"}, "-max-subscriptions must be at least 1"},
		{[]string{"-max-subscriptions", "129"}, ""}, // -max-requests follows: 258
		{[]string{"-max-subscriptions", "129", "-max-requests", "256"},
			"-max-subscriptions 129 needs -max-requests 258 or more, not 256: each open subscription holds a request slot, and half the slots stay free for other requests"},
		{[]string{"-max-subscriptions", "128"}, ""},
		{[]string{"-max-requests", "4"}, ""}, // -max-subscriptions follows: 2 (issue 20, finding 6)
		{[]string{"-max-requests", "1"}, ""}, // no subscriptions at all
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

// mustWaitUntil polls cond until it holds. Polling is unavoidable where the
// server notices a disconnect on its own schedule.
func mustWaitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(testWait); !cond(); runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}

// TestSubscriptionsNoneWithOneSlot checks -max-requests 1 alone: no slot
// can be spared for a subscription (half stay free for requests that
// end), so the derived -max-subscriptions is none and a listen request is
// refused with the limit, while other requests are served.
func TestSubscriptionsNoneWithOneSlot(t *testing.T) {
	s := newTestServer(t, withFlags("-max-requests", "1"))
	got := mustServeAll(t, s, subExpand(listenTools)+"\n"+req("2", "tools/list", "")+"\n")
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"subscriptions/listen: too many open subscriptions (limit 0)","data":{"maxSubscriptions":0}}}`
	if len(got) != 2 || got[0] != want || errorCode(t, got[1]) != 0 {
		t.Errorf("serve = %q\nwant %s, then the tools/list result", got, want)
	}
}

// TestSubscriptionShares checks the per-client parts of the hub's limits
// (limits_share.go): open listens, and the bytes of watched URIs, for one
// listen, one classic watcher, and one client in all; stdio's client ("")
// meets the totals alone.
func TestSubscriptionShares(t *testing.T) {
	long := func(i int) string { return fmt.Sprintf("a://%d/%s", i, strings.Repeat("u", 4000)) }
	t.Run("listens", func(t *testing.T) {
		h := newSubscriptionHub(16, 4, 25) // a share of 4
		for i := range 4 {
			if _, rerr := h.open([]byte("1"), subscriptionFilter{tools: true}, "addr:a"); rerr != nil {
				t.Fatalf("listen %d of addr:a: %v", i+1, rerr)
			}
		}
		if _, rerr := h.open([]byte("1"), subscriptionFilter{tools: true}, "addr:a"); rerr == nil || !strings.Contains(rerr.Message, "its share of 16") {
			t.Errorf("a fifth listen of addr:a = %v, want its share refused", rerr)
		}
		if _, rerr := h.open([]byte("1"), subscriptionFilter{tools: true}, "addr:b"); rerr != nil {
			t.Errorf("a listen of addr:b = %v, want it open", rerr)
		}
		for i := range 11 {
			if _, rerr := h.open([]byte("1"), subscriptionFilter{tools: true}, ""); rerr != nil {
				t.Fatalf("stdio listen %d: %v", i+1, rerr)
			}
		}
		if _, rerr := h.open([]byte("1"), subscriptionFilter{tools: true}, ""); rerr == nil || rerr.Code != codeInternalError {
			t.Errorf("a 17th listen = %v, want the total refused", rerr)
		}
	})
	t.Run("one listen's URIs", func(t *testing.T) {
		h := newSubscriptionHub(0, 4, 25) // 4 KiB of URIs per watcher
		if _, rerr := h.open([]byte("1"), subscriptionFilter{uris: []string{long(1)}}, "addr:a"); rerr != nil {
			t.Fatalf("one URI of 4 KiB: %v", rerr)
		}
		if _, rerr := h.open([]byte("2"), subscriptionFilter{uris: []string{long(1), "a://2"}}, "addr:a"); rerr == nil || rerr.Code != codeInvalidParams {
			t.Errorf("a listen whose URIs cost over 4 KiB = %v, want -32602", rerr)
		}
	})
	t.Run("classic watcher and the budget", func(t *testing.T) {
		h := newSubscriptionHub(0, 4, 25) // 4 KiB per watcher, 256 KiB in all, 64 KiB per client
		watcher := func(share string) *subscription {
			return &subscription{share: share, uris: map[string]bool{}, queued: map[notice]bool{}}
		}
		w := watcher("addr:a")
		if rerr := h.watchURI(w, long(0)); rerr != nil {
			t.Fatalf("watch one URI of 4 KiB: %v", rerr)
		}
		if rerr := h.watchURI(w, "a://small"); rerr == nil || rerr.Code != codeInvalidParams {
			t.Errorf("a second URI past the watcher's 4 KiB = %v, want -32602", rerr)
		}
		h.unwatchURI(w, long(0))
		if rerr := h.watchURI(w, "a://small"); rerr != nil {
			t.Errorf("after unwatching: %v", rerr)
		}
		taken := 0
		for i := range 64 {
			if h.watchURI(watcher("addr:b"), long(i)) != nil {
				break
			}
			taken++
		}
		if want := int(h.watched.per / watchedCost(long(0))); taken != want {
			t.Errorf("addr:b watched %d URIs of 4 KiB, want its share's %d", taken, want)
		}
		if mine, all := h.watched.held("addr:b"); mine > h.watched.per || all > h.watched.total {
			t.Errorf("addr:b holds %d of %d bytes (share %d, budget %d)", mine, all, h.watched.per, h.watched.total)
		}
		if rerr := h.watchURI(watcher("addr:c"), long(0)); rerr != nil {
			t.Errorf("another client = %v, want its URI watched", rerr)
		}
	})
}
