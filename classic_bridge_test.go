// Tests of the classic bridge (classic_bridge.go: NeedInput as real
// server-to-client requests) that the transcripts (testdata/classic/bridge-*,
// each played on stdio and over HTTP) do not show.

package main

import (
	"bufio"
	"context"
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

// TestBridgeHTTPDisconnect checks that a client leaving the POST aborts a
// waiting bridge and removes its pending entry.
func TestBridgeHTTPDisconnect(t *testing.T) {
	ts := newTestHTTP(t, newTestServer(t), nil)
	c := newTestClassicClient(t, ts)
	c.initialize(bridgeInit(version20251125, `{"roots":{}}`))
	ctx, cancel := context.WithCancel(t.Context())
	resp := c.openContext(ctx, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_roots"}}`)
	ev, ok := nextSSE(bufio.NewReader(resp.Body))
	if !ok || !strings.Contains(ev, `"roots/list"`) {
		t.Fatalf("first event = %q, want roots/list", ev)
	}
	sess := mustSession(t, ts, c.sid)
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

// TestClientRefused: the client's error answer to a bridged request is
// quoted back as its code and message, read as every peer object is:
// exact member names (review A, finding 9: encoding/json matched "CODE"
// and "Message" case-insensitively), a code that is not an int as 0, the
// message cut to maxClientErrorText bytes of valid UTF-8.
func TestClientRefused(t *testing.T) {
	long := "x" + strings.Repeat("é", maxClientErrorText) // the cut falls inside an é
	for _, tt := range []struct {
		name, raw, want string
	}{
		{"code and message", `{"code":-1,"message":"User rejected sampling request"}`, "with error -1: User rejected sampling request"},
		{"names that differ in case are not read", `{"CODE":-1,"Message":"no"}`, "with error 0: "},
		{"a code that is not an int", `{"code":1e3,"message":"m"}`, "with error 0: m"},
		{"a code out of range", `{"code":99999999999999999999,"message":"m"}`, "with error 0: m"},
		{"a long message is cut", `{"code":1,"message":"` + long + `"}`, "with error 1: " + long[:maxClientErrorText-1]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := clientRefused("tools/call", methodCreateMessage, []byte(tt.raw)).Message
			if want := "tools/call: the client answered " + methodCreateMessage + " " + tt.want; got != want {
				t.Errorf("clientRefused(%s) = %q, want %q", tt.raw, got, want)
			}
		})
	}
}
