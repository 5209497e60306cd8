// The corrections the specification repository
// (modelcontextprotocol/modelcontextprotocol) records for 2026-07-28 since
// its release, each held here or by the test docs/COVERAGE.md ("Errata
// since 2026-07-28") names beside it.

package main

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// mustBeListenCompletion checks that line is the completion result that
// ends subscription id: resultType "complete", and in _meta the
// subscription's id and serverInfo; nothing else.
// [#2953, #3171]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#graceful-closure
func mustBeListenCompletion(tb testing.TB, line, id string) {
	tb.Helper()
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Result map[string]json.RawMessage
	}
	if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.Result == nil {
		tb.Fatalf("%s: want the subscriptions/listen result", line)
	}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(msg.Result["_meta"], &meta)
	if string(msg.ID) != id || string(msg.Result["resultType"]) != `"complete"` || string(meta[metaSubscriptionID]) != id ||
		meta["io.modelcontextprotocol/serverInfo"] == nil || len(meta) != 2 ||
		!slices.Equal(slices.Sorted(maps.Keys(msg.Result)), []string{"_meta", "resultType"}) {
		tb.Errorf("listen %s ended with %s; want a completion result: resultType complete, _meta with subscriptionId %s and serverInfo, nothing else", id, line, id)
	}
}

// TestErrata20260728 holds the corrections that change what a server
// sends; the others are held where docs/COVERAGE.md says.
func TestErrata20260728(t *testing.T) {
	t.Run("listen ends with a completion result when the server ends it (#2953, #3171)", func(t *testing.T) {
		for _, id := range []string{`7`, `"listen-1"`} {
			s := newTestServer(t, withRegistry("base", "subscriptions"))
			// Input ends: the server tears the subscription down.
			lines := mustServeAll(t, s, strings.Replace(subExpand(listenTools), `"id":1`, `"id":`+id, 1)+"\n")
			if len(lines) != 3 {
				t.Fatalf("listen %s then EOF: %q, want the acknowledgement, the result, the close", id, lines)
			}
			mustBeListenCompletion(t, lines[1], id)
		}
	})
	t.Run("clientInfo optional; serverInfo in result _meta, not in DiscoverResult (#3002)", func(t *testing.T) {
		s := newTestServer(t)
		res := mustDecode(t, mustServeOne(t, s, req("1", "server/discover", "")))["result"].(map[string]any)
		meta, _ := res["_meta"].(map[string]any)
		if _, top := res["serverInfo"]; top || meta["io.modelcontextprotocol/serverInfo"] == nil {
			t.Errorf("server/discover without clientInfo = %v; want a result, serverInfo in _meta only", res)
		}
	})
	t.Run("a missing client capability is -32021, not -32003 (SEP-2663, #3116)", func(t *testing.T) {
		got := mustDecode(t, mustServeOne(t, newTestServer(t), req("1", "tasks/get", `"taskId":"x"`)))
		if e, _ := got["error"].(map[string]any); e["code"] != json.Number("-32021") {
			t.Errorf("tasks/get without the tasks extension = %v, want -32021", got)
		}
	})
	t.Run("tasks/result and tasks/input_response are not methods (SEP-2663 over SEP-2322, #3142)", func(t *testing.T) {
		for _, m := range []string{"tasks/result", "tasks/input_response"} {
			got := mustDecode(t, mustServeOne(t, newTestServer(t), mrtrLine(1, m, `"taskId":"x"`, capsTasks)))
			if e, _ := got["error"].(map[string]any); e["code"] != json.Number("-32601") {
				t.Errorf("%s = %v, want -32601", m, got)
			}
		}
	})
}
