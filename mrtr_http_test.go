//go:build !stdio

// Tests of mrtr.go that need the HTTP wing (absent from the stdio build).

package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestMRTRRoundTripHTTP runs the multi round-trip flow over Streamable
// HTTP: the interim result is an ordinary 200 JSON result without cache
// hints, the retry may reach another replica (same key, no shared memory),
// and every refusal maps to 400.
// [§Basic Workflow]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#basic-workflow
func TestMRTRRoundTripHTTP(t *testing.T) {
	// Two servers with the same key accept each other's state, like two
	// replicas.
	first := newTestHTTP(t, newTestServer(t, withStateKey(testStateKey)), nil)
	replica := newTestHTTP(t, newTestServer(t, withStateKey(testStateKey)), nil)
	const params = `"name":"confirm_delete","arguments":{"path":"/tmp/x"}`
	post := func(ts *testHTTP, line string) testHTTPReply {
		t.Helper()
		return mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", line, nil))
	}

	got := post(first, mrtrLine(1, "tools/call", params, `{"elicitation":{}}`))
	var interim struct {
		Result map[string]any `json:"result"`
	}
	if err := json.Unmarshal(got.body, &interim); err != nil || got.status != http.StatusOK {
		t.Fatalf("first call: %d %s", got.status, got.body)
	}
	if interim.Result["resultType"] != "input_required" {
		t.Fatalf("first call: resultType = %v, want input_required: %s", interim.Result["resultType"], got.body)
	}
	if _, has := interim.Result["ttlMs"]; has {
		t.Errorf("interim result carries cache hints: %s", got.body)
	}
	state, _ := interim.Result["requestState"].(string)
	if state == "" {
		t.Fatalf("no requestState: %s", got.body)
	}

	accept := `{"confirm":{"action":"accept","content":{"confirm":true}}}`
	for _, tt := range []struct {
		name   string
		ts     *testHTTP
		line   string
		status int
		code   int    // 0: a result
		want   string // in the body
	}{
		{"retry on the same server completes", first,
			mrtrLine(2, "tools/call", retryParams(params, accept, state), `{"elicitation":{}}`), 200, 0, `"text":"deleted /tmp/x"`},
		{"retry on another replica with the same key completes", replica,
			mrtrLine(3, "tools/call", retryParams(params, accept, state), `{"elicitation":{}}`), 200, 0, `"text":"deleted /tmp/x"`},
		{"tampered requestState is 400 -32602", first,
			mrtrLine(4, "tools/call", retryParams(params, accept, state+"A"), `{"elicitation":{}}`), 400, codeInvalidParams, ""},
		{"requestState on other arguments is 400 -32602", first,
			mrtrLine(5, "tools/call", retryParams(`"name":"confirm_delete","arguments":{"path":"/etc"}`, accept, state), `{"elicitation":{}}`), 400, codeInvalidParams, ""},
		{"undeclared capability is 400 -32021", first,
			mrtrLine(6, "tools/call", params, `{}`), 400, codeMissingCapability, `"requiredCapabilities":{"elicitation":`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := post(tt.ts, tt.line)
			if got.status != tt.status || got.code != tt.code || !strings.Contains(string(got.body), tt.want) {
				t.Errorf("POST %s\n= %d %s\nwant %d, code %d, containing %s", tt.line, got.status, got.body, tt.status, tt.code, tt.want)
			}
		})
	}
}
