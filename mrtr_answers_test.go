// Tests of the answers a client sends on a retry (mrtr_answers.go):
// malformed inputResponses and answers of the wrong shape for what was
// asked are -32602, one row per rule.

package main

import (
	"strings"
	"testing"
)

// TestInputResponsesInvalid checks malformed inputResponses and answers
// of the wrong shape for what was asked: -32602.
// [§Error Handling]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#error-handling
func TestInputResponsesInvalid(t *testing.T) {
	for _, tt := range []struct {
		name, params, responses, want string
	}{
		{"inputResponses an array", `"name":"confirm_delete","arguments":{"path":"p"}`, `[]`,
			"invalid params: inputResponses must be an object"},
		{"inputResponses a string", `"name":"confirm_delete","arguments":{"path":"p"}`, `"yes"`,
			"invalid params: inputResponses must be an object"},
		{"elicitation without action", `"name":"confirm_delete","arguments":{"path":"p"}`, `{"confirm":{"content":{"confirm":true}}}`,
			`invalid params: inputResponses["confirm"]: elicitation result needs action "accept", "decline" or "cancel"`},
		{"elicitation with unknown action", `"name":"confirm_delete","arguments":{"path":"p"}`, `{"confirm":{"action":"ok"}}`,
			`invalid params: inputResponses["confirm"]: elicitation result needs action "accept", "decline" or "cancel"`},
		{"elicitation answer not an object", `"name":"confirm_delete","arguments":{"path":"p"}`, `{"confirm":true}`,
			`invalid params: inputResponses["confirm"]: must be an object`},
		{"accepted form without required value", `"name":"confirm_delete","arguments":{"path":"p"}`, `{"confirm":{"action":"accept","content":{}}}`,
			`invalid params: inputResponses["confirm"]: form value "confirm" is required`},
		{"accepted form without content", `"name":"confirm_delete","arguments":{"path":"p"}`, `{"confirm":{"action":"accept"}}`,
			`invalid params: inputResponses["confirm"]: accepted form result has no content`},
		{"form value of the wrong type", `"name":"confirm_delete","arguments":{"path":"p"}`, `{"confirm":{"action":"accept","content":{"confirm":"yes"}}}`,
			`invalid params: inputResponses["confirm"]: form value "confirm" must be a boolean`},
		{"form value nested", `"name":"confirm_delete","arguments":{"path":"p"}`, `{"confirm":{"action":"accept","content":{"confirm":{"a":1}}}}`,
			`invalid params: inputResponses["confirm"]: elicitation content "confirm" must be a string, number, boolean or array of strings`},
		{"form value outside enum", `"uri":"secret://1"`, `{"why":{"action":"accept","content":{"reason":"no"}}}`,
			`invalid params: inputResponses["why"]: form value "reason" has the wrong length`},
		{"action imitated by case", `"name":"confirm_delete","arguments":{"path":"p"}`, `{"confirm":{"Action":"accept"}}`,
			`invalid params: inputResponses["confirm"]: member "Action" is not "action"`},
		{"sampling without content", `"name":"ask_model","arguments":{"question":"q"}`, `{"answer":{"role":"assistant","model":"m"}}`,
			`invalid params: inputResponses["answer"]: sampling result needs content (a block or an array of blocks)`},
		{"sampling without model", `"name":"ask_model","arguments":{"question":"q"}`, `{"answer":{"role":"assistant","content":{"type":"text","text":"x"}}}`,
			`invalid params: inputResponses["answer"]: sampling result needs a model string`},
		{"sampling with bad role", `"name":"ask_model","arguments":{"question":"q"}`, `{"answer":{"role":"system","content":{"type":"text","text":"x"},"model":"m"}}`,
			`invalid params: inputResponses["answer"]: sampling result needs role "assistant" or "user"`},
		{"sampling text block without text", `"name":"ask_model","arguments":{"question":"q"}`, `{"answer":{"role":"assistant","content":{"type":"text"},"model":"m"}}`,
			`invalid params: inputResponses["answer"]: sampling result text block needs text`},
		{"sampling answered with an elicitation result", `"name":"ask_model","arguments":{"question":"q"}`, `{"answer":{"action":"accept"}}`,
			`invalid params: inputResponses["answer"]: sampling result needs role "assistant" or "user"`},
		{"roots without roots", `"name":"list_roots"`, `{"roots":{}}`,
			`invalid params: inputResponses["roots"]: roots result needs a roots array`},
		{"root that is not file://", `"name":"list_roots"`, `{"roots":{"roots":[{"uri":"https://example.com"}]}}`,
			`invalid params: inputResponses["roots"]: each root needs a file:// uri`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			method := "tools/call"
			if strings.HasPrefix(tt.params, `"uri"`) {
				method = "resources/read"
			}
			s := newTestServer(t, withMRTR(testStateKey, testEpoch))
			st := mustState(t, mustServeLine(t, s, mrtrLine(1, method, tt.params, capsAll)))
			resp := mustServeLine(t, s, mrtrLine(2, method, retryParams(tt.params, tt.responses, st), capsAll))
			e, _ := resp["error"].(map[string]any)
			if e == nil || e["code"] != float64(codeInvalidParams) || e["message"] != tt.want {
				t.Errorf("retry = %s\nwant -32602 %q", mustJSON(t, resp), tt.want)
			}
		})
	}
}
