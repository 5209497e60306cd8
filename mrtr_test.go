// Tests for multi round-trip requests (mrtr.go): raw JSON-RPC lines
// through the real stdio loop and over HTTP, one row per rule of
// basic/patterns/mrtr and the client features it carries. requestState,
// the answers and the form schema have their own files (mrtr_state_test.go,
// mrtr_answers_test.go, mrtr_form_test.go).

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// testStateKey is the requestState secret the MRTR tests share, so a retry
// can be served by a fresh server ("a restart").
var testStateKey = []byte("0123456789abcdef0123456789abcdef")

// testEpoch is the fixed clock of the MRTR tests.
var testEpoch = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)

// Client capabilities the tests declare.
const (
	capsAll     = `{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}`
	capsNone    = `{}`
	capsFormOld = `{"elicitation":{}}`
)

// withMRTR is the setup of the MRTR tests: the mrtr part of the test
// registry, requestState signed with key (nil: random), time stopped at now.
func withMRTR(key []byte, now time.Time) testOption {
	return func(st *testSetup) {
		for _, o := range []testOption{withRegistry("base", "mrtr"), withStateKey(key), withClock(stoppedClock(now))} {
			o(st)
		}
	}
}

// mrtrLine builds a modern request line: params (JSON object members,
// without braces) plus _meta declaring caps.
func mrtrLine(id int, method, params, caps string) string {
	if params != "" {
		params += ","
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s}}}`,
		id, method, params, caps)
}

// mustServeLine runs one line through s.serveStdio and returns the response,
// decoded (notifications are skipped).
func mustServeLine(tb testing.TB, s *server, line string) map[string]any {
	tb.Helper()
	out := mustServeAll(tb, s, line+"\n")
	for _, l := range out {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			tb.Fatalf("response %s: %v", l, err)
		}
		if _, isNote := m["method"]; !isNote {
			return m
		}
	}
	tb.Fatalf("no response to %s; got %q", line, out)
	return nil
}

// mustResult returns the result of a response, failing on an error.
func mustResult(tb testing.TB, resp map[string]any) map[string]any {
	tb.Helper()
	res, ok := resp["result"].(map[string]any)
	if !ok {
		tb.Fatalf("response is not a result: %s", mustJSON(tb, resp))
	}
	return res
}

// mustState returns the requestState of an input_required response.
func mustState(tb testing.TB, resp map[string]any) string {
	tb.Helper()
	res := mustResult(tb, resp)
	if res["resultType"] != "input_required" {
		tb.Fatalf("resultType = %v, want input_required: %s", res["resultType"], mustJSON(tb, resp))
	}
	st, _ := res["requestState"].(string)
	if st == "" {
		tb.Fatalf("no requestState in %s", mustJSON(tb, resp))
	}
	return st
}

// retryParams adds inputResponses and requestState to the original params.
func retryParams(params, responses, state string) string {
	out := params
	add := func(member string) {
		if out != "" {
			out += ","
		}
		out += member
	}
	if responses != "" {
		add(`"inputResponses":` + responses)
	}
	if state != "" {
		add(`"requestState":` + fmt.Sprintf("%q", state))
	}
	return out
}

const (
	confirmSchema = `{"type":"object","properties":{"confirm":{"type":"boolean","title":"Delete","description":"Check to delete"}},"required":["confirm"]}`
	nameSchema    = `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`
)

// TestInputRequestWire checks each builder's request as it appears in
// inputRequests (shapes of ElicitRequest form/url, CreateMessageRequest,
// ListRootsRequest in schema.json), and the interim result's envelope.
func TestInputRequestWire(t *testing.T) {
	for _, tt := range []struct {
		name, method, params, want string
	}{
		{"elicitation form", "tools/call", `"name":"confirm_delete","arguments":{"path":"/tmp/x"}`,
			`{"confirm":{"method":"elicitation/create","params":{"mode":"form","message":"Delete /tmp/x?","requestedSchema":` + confirmSchema + `}}}`},
		{"elicitation url", "tools/call", `"name":"sign_in"`,
			`{"login":{"method":"elicitation/create","params":{"mode":"url","message":"Sign in to continue","url":"https://example.com/connect?req=1"}}}`},
		{"sampling with integer maxTokens", "tools/call", `"name":"ask_model","arguments":{"question":"Capital of France?"}`,
			`{"answer":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Capital of France?"}}],"maxTokens":200}}}`},
		{"roots", "tools/call", `"name":"list_roots"`,
			`{"roots":{"method":"roots/list","params":{}}}`},
		{"three requests in one round, in handler order", "tools/call", `"name":"all_three"`,
			`{"user_name":{"method":"elicitation/create","params":{"mode":"form","message":"What is your name?","requestedSchema":` + nameSchema + `}},` +
				`"greeting":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Generate a greeting"}}],"maxTokens":50}},` +
				`"client_roots":{"method":"roots/list","params":{}}}`},
		{"prompts/get asks", "prompts/get", `"name":"personal_greeting"`,
			`{"name":{"method":"elicitation/create","params":{"mode":"form","message":"What should I call you?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","title":"Your name","minLength":1,"maxLength":100}},"required":["name"]}}}}`},
		{"resources/read asks, without cache hints", "resources/read", `"uri":"secret://7"`,
			`{"why":{"method":"elicitation/create","params":{"mode":"form","message":"Why do you need secret://7?","requestedSchema":{"type":"object","properties":{"reason":{"type":"string","minLength":3}},"required":["reason"]}}}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withMRTR(testStateKey, testEpoch))
			resp := mustServeLine(t, s, mrtrLine(1, tt.method, tt.params, capsAll))
			mustState(t, resp)
			res := mustResult(t, resp)
			if !sameJSON(t, mustJSON(t, res["inputRequests"]), tt.want) {
				t.Errorf("inputRequests\n got: %s\nwant: %s", mustJSON(t, res["inputRequests"]), tt.want)
			}
			for _, k := range []string{"ttlMs", "cacheScope"} {
				if _, ok := res[k]; ok {
					t.Errorf("interim result carries %s: %s", k, mustJSON(t, res))
				}
			}
			if meta, _ := res["_meta"].(map[string]any); meta["io.modelcontextprotocol/serverInfo"] == nil {
				t.Errorf("interim result lacks serverInfo: %s", mustJSON(t, res))
			}
			// Keys in inputRequests: exactly these and no others.
			var keys []string
			for k := range res {
				keys = append(keys, k)
			}
			if len(keys) != 4 {
				t.Errorf("result members = %v, want resultType, inputRequests, requestState, _meta", keys)
			}
		})
	}
}

// TestInputRequestKeyIsJSON: a handler's key holding bytes Go quotes
// differently from JSON (DEL, a bell) is written as a JSON string, so the
// answer parses and the key round-trips (review B, finding 10: it was
// written with strconv.Quote, as \x7f, which no JSON parser reads).
func TestInputRequestKeyIsJSON(t *testing.T) {
	const key = "a\x7fb\a"
	s := newTestServer(t, withMRTR(testStateKey, testEpoch))
	s.addTool(tool{Name: "odd_key", Call: func(ctx context.Context, req *request) (*toolResult, error) {
		return nil, req.NeedInput(elicitForm(key, "OK?", `{"type":"object","properties":{"ok":{"type":"boolean"}}}`))
	}})
	res := mustResult(t, mustServeLine(t, s, mrtrLine(1, "tools/call", `"name":"odd_key"`, capsAll)))
	if asks, _ := res["inputRequests"].(map[string]any); asks[key] == nil {
		t.Errorf("inputRequests = %s, want the key %q", mustJSON(t, res["inputRequests"]), key)
	}
}

// round is one retry: the inputResponses to send, and either what the
// next result must contain or the keys the next input_required must ask.
type round struct {
	responses string
	askKeys   string // non-empty: want input_required asking exactly these (comma-separated)
}

// TestRoundTrip runs first call → input_required → retries → complete,
// each round on a fresh server with the same key: nothing survives in
// memory between rounds.
func TestRoundTrip(t *testing.T) {
	accept := func(content string) string { return `{"action":"accept","content":` + content + `}` }
	for _, tt := range []struct {
		name, method, params, caps string
		rounds                     []round
		member, want               string // a member of the final result and its value
	}{
		{"form accepted", "tools/call", `"name":"confirm_delete","arguments":{"path":"/tmp/x"}`, capsAll,
			[]round{{responses: `{"confirm":` + accept(`{"confirm":true}`) + `}`}},
			"content", `[{"type":"text","text":"deleted /tmp/x"}]`},
		{"form accepted with confirm false", "tools/call", `"name":"confirm_delete","arguments":{"path":"/tmp/x"}`, capsFormOld,
			[]round{{responses: `{"confirm":` + accept(`{"confirm":false}`) + `}`}},
			"content", `[{"type":"text","text":"kept /tmp/x"}]`},
		{"form declined", "tools/call", `"name":"confirm_delete","arguments":{"path":"/tmp/x"}`, capsAll,
			[]round{{responses: `{"confirm":{"action":"decline"}}`}},
			"content", `[{"type":"text","text":"kept /tmp/x"}]`},
		{"form cancelled", "tools/call", `"name":"confirm_delete","arguments":{"path":"/tmp/x"}`, capsAll,
			[]round{{responses: `{"confirm":{"action":"cancel"}}`}},
			"content", `[{"type":"text","text":"kept /tmp/x"}]`},
		{"url accepted", "tools/call", `"name":"sign_in"`, capsAll,
			[]round{{responses: `{"login":{"action":"accept"}}`}},
			"content", `[{"type":"text","text":"login accept"}]`},
		{"sampling", "tools/call", `"name":"ask_model","arguments":{"question":"Capital of France?"}`, capsAll,
			[]round{{responses: `{"answer":{"role":"assistant","content":{"type":"text","text":"Paris."},"model":"test-model","stopReason":"endTurn"}}`}},
			"content", `[{"type":"text","text":"model said: Paris."}]`},
		{"sampling with a content array", "tools/call", `"name":"ask_model","arguments":{"question":"Q"}`, capsAll,
			[]round{{responses: `{"answer":{"role":"assistant","content":[{"type":"text","text":"Pa"},{"type":"text","text":"ris"}],"model":"m"}}`}},
			"content", `[{"type":"text","text":"model said: Paris"}]`},
		{"roots", "tools/call", `"name":"list_roots","arguments":{}`, capsAll,
			[]round{{responses: `{"roots":{"roots":[{"uri":"file:///a","name":"A"},{"uri":"file:///b"}]}}`}},
			"content", `[{"type":"text","text":"file:///a\nfile:///b"}]`},
		{"three kinds in one round", "tools/call", `"name":"all_three"`, capsAll,
			[]round{{responses: `{"user_name":` + accept(`{"name":"Alice"}`) + `,"greeting":{"role":"assistant","content":{"type":"text","text":"Hello there!"},"model":"m","stopReason":"endTurn"},"client_roots":{"roots":[{"uri":"file:///test/root","name":"Test Root"}]}}`}},
			"content", `[{"type":"text","text":"Alice/Hello there!/1 roots"}]`},
		{"two rounds, first answer carried in requestState", "tools/call", `"name":"two_rounds","arguments":{}`, capsAll,
			[]round{
				{responses: `{"name":` + accept(`{"name":"Alice"}`) + `}`, askKeys: "color"},
				{responses: `{"color":` + accept(`{"color":"blue"}`) + `}`},
			},
			"content", `[{"type":"text","text":"Alice likes blue (state step2)"}]`},
		{"prompt renders after elicitation", "prompts/get", `"name":"personal_greeting"`, capsAll,
			[]round{{responses: `{"name":` + accept(`{"name":"Ada"}`) + `}`}},
			"messages", `[{"role":"user","content":{"type":"text","text":"Hello, Ada!"}}]`},
		{"prompt renders after decline", "prompts/get", `"name":"personal_greeting"`, capsAll,
			[]round{{responses: `{"name":{"action":"decline"}}`}},
			"messages", `[{"role":"user","content":{"type":"text","text":"Hello there!"}}]`},
		{"resource read after elicitation", "resources/read", `"uri":"secret://7"`, capsAll,
			[]round{{responses: `{"why":` + accept(`{"reason":"audit","extra":"dropped"}`) + `}`}},
			"contents", `[{"uri":"secret://7","text":"secret 7 for audit"}]`},
		{"capability-aware handler asks only what is declared", "tools/call", `"name":"what_you_can"`, `{"sampling":{}}`,
			[]round{{responses: `{"model":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}}`}},
			"content", `[{"type":"text","text":"done"}]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			id := 1
			resp := mustServeLine(t, newTestServer(t, withMRTR(testStateKey, testEpoch)), mrtrLine(id, tt.method, tt.params, tt.caps))
			for _, r := range tt.rounds {
				state := mustState(t, resp)
				id++
				// A restart between rounds: a new server with the same key.
				s := newTestServer(t, withMRTR(testStateKey, testEpoch))
				resp = mustServeLine(t, s, mrtrLine(id, tt.method, retryParams(tt.params, r.responses, state), tt.caps))
				if r.askKeys != "" {
					mustState(t, resp)
					got := mustResult(t, resp)["inputRequests"].(map[string]any)
					var keys []string
					for k := range got {
						keys = append(keys, k)
					}
					if strings.Join(keys, ",") != r.askKeys {
						t.Fatalf("round %d asked %v, want %s", id, keys, r.askKeys)
					}
				}
			}
			res := mustResult(t, resp)
			if res["resultType"] != "complete" {
				t.Fatalf("final resultType = %v: %s", res["resultType"], mustJSON(t, resp))
			}
			if !sameJSON(t, mustJSON(t, res[tt.member]), tt.want) {
				t.Errorf("final %s\n got: %s\nwant: %s", tt.member, mustJSON(t, res[tt.member]), tt.want)
			}
		})
	}
}

// TestCapabilityGating checks that an input request the client did not
// declare is never sent: -32021 with data.requiredCapabilities.
// [§_meta]: https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
func TestCapabilityGating(t *testing.T) {
	for _, tt := range []struct {
		name, params, caps string
		want               string // the error object, or "" for input_required
	}{
		{"form without elicitation", `"name":"confirm_delete","arguments":{"path":"p"}`, capsNone,
			`{"code":-32021,"message":"missing required client capability: elicitation.form","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}`},
		{"form with url-only elicitation", `"name":"confirm_delete","arguments":{"path":"p"}`, `{"elicitation":{"url":{}}}`,
			`{"code":-32021,"message":"missing required client capability: elicitation.form","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}`},
		{"form with empty elicitation means form", `"name":"confirm_delete","arguments":{"path":"p"}`, capsFormOld, ``},
		{"url with empty elicitation", `"name":"sign_in"`, capsFormOld,
			`{"code":-32021,"message":"missing required client capability: elicitation.url","data":{"requiredCapabilities":{"elicitation":{"url":{}}}}}`},
		{"url declared", `"name":"sign_in"`, `{"elicitation":{"url":{}}}`, ``},
		{"sampling missing", `"name":"ask_model","arguments":{"question":"q"}`, capsFormOld,
			`{"code":-32021,"message":"missing required client capability: sampling","data":{"requiredCapabilities":{"sampling":{}}}}`},
		{"sampling declared", `"name":"ask_model","arguments":{"question":"q"}`, `{"sampling":{}}`, ``},
		{"roots missing", `"name":"list_roots"`, `{"sampling":{},"elicitation":{}}`,
			`{"code":-32021,"message":"missing required client capability: roots","data":{"requiredCapabilities":{"roots":{}}}}`},
		{"roots declared", `"name":"list_roots"`, `{"roots":{"listChanged":true}}`, ``},
		{"several missing in one round", `"name":"all_three"`, `{"sampling":{}}`,
			`{"code":-32021,"message":"missing required client capability: elicitation.form, roots","data":{"requiredCapabilities":{"elicitation":{"form":{}},"roots":{}}}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := mustServeLine(t, newTestServer(t, withMRTR(testStateKey, testEpoch)), mrtrLine(1, "tools/call", tt.params, tt.caps))
			if tt.want == "" {
				mustState(t, resp)
				return
			}
			if !sameJSON(t, mustJSON(t, resp["error"]), tt.want) {
				t.Errorf("error\n got: %s\nwant: %s", mustJSON(t, resp["error"]), tt.want)
			}
		})
	}
}

// TestMissingAnswersReasked checks that a retry lacking a needed answer
// gets a new input_required asking again, not an error, and that
// unrequested keys are ignored (with or without requestState; without it,
// nothing was asked, so every key is).
func TestMissingAnswersReasked(t *testing.T) {
	const params = `"name":"confirm_delete","arguments":{"path":"p"}`
	for _, tt := range []struct {
		name      string
		withState bool
		responses string
		complete  bool
	}{
		{"wrong key, with state", true, `{"wrong_key":{"action":"accept","content":{"data":"x"}}}`, false},
		{"wrong key, without state", false, `{"wrong_key":{"action":"accept","content":{"data":"x"}}}`, false},
		{"empty inputResponses", true, `{}`, false},
		{"no inputResponses", true, ``, false},
		{"garbage under an unknown key is ignored", true, `{"zzz":[1,2],"yyy":{"action":7}}`, false},
		{"extra keys ignored, answer present, state", true,
			`{"confirm":{"action":"accept","content":{"confirm":true}},"unknown_extra_key":{"action":"accept","content":{"foo":"bar"}},"another":{"action":"accept","content":{"baz":123}}}`, true},
		{"an answer without state was never asked: asked again", false,
			`{"confirm":{"action":"accept","content":{"confirm":true}}}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withMRTR(testStateKey, testEpoch))
			st := ""
			if tt.withState {
				st = mustState(t, mustServeLine(t, s, mrtrLine(1, "tools/call", params, capsAll)))
			}
			resp := mustServeLine(t, s, mrtrLine(2, "tools/call", retryParams(params, tt.responses, st), capsAll))
			if tt.complete {
				if got := mustResult(t, resp)["resultType"]; got != "complete" {
					t.Errorf("retry = %s, want complete", mustJSON(t, resp))
				}
				return
			}
			mustState(t, resp)
			if _, ok := mustResult(t, resp)["inputRequests"].(map[string]any)["confirm"]; !ok {
				t.Errorf("retry did not ask for confirm again: %s", mustJSON(t, resp))
			}
		})
	}
}

// TestNoInputRequiredElsewhere checks that only tools/call, prompts/get and
// resources/read may answer input_required: other methods ignore MRTR
// params, and a handler elsewhere that asks for input is a -32603.
func TestNoInputRequiredElsewhere(t *testing.T) {
	mrtrParams := `"inputResponses":{"x":{"action":"accept"}},"requestState":"AAAA"`
	for _, tt := range []struct {
		name, method, params string
		wantCode             int // 0: a complete result
	}{
		{"tools/list", "tools/list", mrtrParams, 0},
		{"prompts/list", "prompts/list", mrtrParams, 0},
		{"resources/list", "resources/list", mrtrParams, 0},
		{"resources/templates/list", "resources/templates/list", mrtrParams, 0},
		{"server/discover", "server/discover", mrtrParams, 0},
		{"completer that asks for input", "completion/complete",
			`"ref":{"type":"ref/prompt","name":"same_name"},"argument":{"name":"q","value":""}`, codeInternalError},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := mustServeLine(t, newTestServer(t, withMRTR(testStateKey, testEpoch)), mrtrLine(1, tt.method, tt.params, capsAll))
			if tt.wantCode != 0 {
				e, _ := resp["error"].(map[string]any)
				if e == nil || e["code"] != float64(tt.wantCode) {
					t.Errorf("%s = %s, want error %d", tt.method, mustJSON(t, resp), tt.wantCode)
				}
				return
			}
			if got := mustResult(t, resp)["resultType"]; got != "complete" {
				t.Errorf("%s resultType = %v, want complete", tt.method, got)
			}
		})
	}
	// Every method but the three refuses an inputRequired outcome.
	for name, m := range methods {
		req := &request{method: name, meta: requestMeta{capabilities: []byte(capsAll)}}
		_, err := newTestServer(t, withMRTR(testStateKey, testEpoch)).inputRequiredResult(req, m, (&request{}).NeedInput(listRoots("r")))
		allowed := name == "tools/call" || name == "prompts/get" || name == "resources/read"
		if allowed != (err == nil) {
			t.Errorf("inputRequiredResult on %s: err = %v, want allowed %v", name, err, allowed)
		}
	}
}

// TestBuilderErrors checks that a handler's programming error in an input
// request is answered -32603 and never sent to the client.
func TestBuilderErrors(t *testing.T) {
	resp := mustServeLine(t, newTestServer(t, withMRTR(testStateKey, testEpoch)), mrtrLine(1, "tools/call", `"name":"bad_form"`, capsAll))
	if e, _ := resp["error"].(map[string]any); e == nil || e["code"] != float64(codeInternalError) {
		t.Errorf("bad_form = %s, want -32603", mustJSON(t, resp))
	}
	for _, tt := range []struct {
		name string
		q    inputRequest
	}{
		{"url not absolute", elicitURL("k", "m", "example.com/x")},
		{"sampling without messages", createMessage("k", samplingRequest{MaxTokens: 1})},
		{"sampling without maxTokens", createMessage("k", samplingRequest{Messages: userText("x")})},
		{"sampling with a bad role", createMessage("k", samplingRequest{Messages: []samplingMessage{{Role: "system", Content: textContent("x")}}, MaxTokens: 1})},
	} {
		if tt.q.err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}
