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

// TestUnaskedAnswersIgnored checks that only answers to what the server
// asked reach a handler: an answer under a key the last round did not ask
// is ignored (no requestState: nothing was asked), and every accepted
// answer is checked against the request that asked it. Issue 20, finding
// 1: a first call carrying an unasked confirm deleted without asking, and
// an unasked 5000-character name passed a maxLength of 100.
// [§Error Handling]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#error-handling
func TestUnaskedAnswersIgnored(t *testing.T) {
	accept := func(content string) string { return `{"action":"accept","content":` + content + `}` }
	long := strings.Repeat("x", 5000)
	for _, tt := range []struct {
		name, method, params string
		// rounds are the inputResponses of each retry; the first call
		// sends first (no requestState).
		first  string
		rounds []string
		want   string // in the last response: asked keys "ask:k1,k2", or a member's text
	}{
		{"unasked confirm on the first call is not an answer", "tools/call", `"name":"confirm_delete","arguments":{"path":"/etc/passwd"}`,
			`{"confirm":` + accept(`{"confirm":true}`) + `}`, nil, "ask:confirm"},
		{"unasked confirm breaking the form on the first call", "tools/call", `"name":"confirm_delete","arguments":{"path":"/etc/passwd"}`,
			`{"confirm":` + accept(`{"confirm":"yes","extra":1}`) + `}`, nil, "ask:confirm"},
		{"unasked name over maxLength on the first call", "prompts/get", `"name":"personal_greeting"`,
			`{"name":` + accept(`{"name":"`+long+`"}`) + `}`, nil, "ask:name"},
		{"asked name over maxLength is refused", "prompts/get", `"name":"personal_greeting"`,
			``, []string{`{"name":` + accept(`{"name":"`+long+`"}`) + `}`}, `error:invalid params: inputResponses["name"]: form value "name" has the wrong length`},
		{"unasked answer beside the asked one does not count", "tools/call", `"name":"two_rounds"`,
			``, []string{`{"name":` + accept(`{"name":"Alice"}`) + `,"color":` + accept(`{"color":"blue"}`) + `}`}, "ask:color"},
		{"unasked answer of the wrong shape beside the asked one is ignored", "tools/call", `"name":"two_rounds"`,
			``, []string{`{"name":` + accept(`{"name":"Alice"}`) + `,"color":{"action":7}}`}, "ask:color"},
		{"an earlier round's answer cannot be replaced", "tools/call", `"name":"two_rounds"`,
			``, []string{
				`{"name":` + accept(`{"name":"Alice"}`) + `}`,
				`{"name":` + accept(`{"name":"Mallory"}`) + `,"color":` + accept(`{"color":"blue"}`) + `}`,
			}, "text:Alice likes blue (state step2)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withMRTR(testStateKey, testEpoch))
			resp := mustServeLine(t, s, mrtrLine(1, tt.method, retryParams(tt.params, tt.first, ""), capsAll))
			for i, r := range tt.rounds {
				resp = mustServeLine(t, s, mrtrLine(i+2, tt.method, retryParams(tt.params, r, mustState(t, resp)), capsAll))
			}
			kind, want, _ := strings.Cut(tt.want, ":")
			switch kind {
			case "ask":
				mustState(t, resp)
				var keys []string
				for k := range mustResult(t, resp)["inputRequests"].(map[string]any) {
					keys = append(keys, k)
				}
				if strings.Join(keys, ",") != want {
					t.Errorf("asked %v, want %s: %s", keys, want, mustJSON(t, resp))
				}
			case "error":
				e, _ := resp["error"].(map[string]any)
				if e == nil || e["code"] != float64(codeInvalidParams) || e["message"] != want {
					t.Errorf("response = %s\nwant -32602 %q", mustJSON(t, resp), want)
				}
			case "text":
				if got := mustJSON(t, mustResult(t, resp)["content"]); !strings.Contains(got, want) {
					t.Errorf("content = %s, want %q", got, want)
				}
			}
		})
	}
}

// TestURLAnswerCarriesNoContent checks that an accepted URL-mode
// elicitation reaches the handler without the content the client added:
// none was asked for.
// [§URL Mode]: https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#url-mode-elicitation-requests
func TestURLAnswerCarriesNoContent(t *testing.T) {
	a, err := parseInputResponse(methodElicit, elicitModeURL, nil, []byte(`{"action":"accept","content":{"token":"forged"}}`))
	if err != nil || !a.Accepted() || a.Content != nil || a.String("token") != "" {
		t.Errorf("parseInputResponse(url accept with content) = %+v, %v; want accepted, no content", a, err)
	}
	if got := string(a.raw); got != `{"action":"accept"}` {
		t.Errorf("kept in requestState: %s, want {\"action\":\"accept\"}", got)
	}
}

// TestElicitAnswerUnderUnparsedSchema: a form schema from requestState that this binary's
// parser refuses (sealed by a replica whose parser took it: beginInput) refuses the answer's
// content rather than accepting it unchecked.
func TestElicitAnswerUnderUnparsedSchema(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{"x":{"type":"string","pattern":"a"}},"required":["x"]}`)
	if _, err := parseRequestedSchema(schema); err == nil {
		t.Fatalf("parseRequestedSchema(%s) = nil, want the schema refused", schema)
	}
	a, err := parseInputResponse(methodElicit, elicitModeForm, schema, []byte(`{"action":"accept","content":{"y":"1"}}`))
	if err == nil {
		t.Errorf("parseInputResponse under an unparsed schema = %+v, nil; want an error", a)
	}
}
