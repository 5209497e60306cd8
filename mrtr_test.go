// Tests for multi round-trip requests: raw JSON-RPC lines through the real
// stdio loop, one row per rule of basic/patterns/mrtr and the client
// features it carries.

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// newTestMRTRServer returns the demo server plus the MRTR test fixtures,
// signing state with key and reading time from now.
func newTestMRTRServer(tb testing.TB, key []byte, now time.Time) *server {
	tb.Helper()
	s := newTestDemoServer(tb, config{stateKey: key, now: func() time.Time { return now }}, nil)
	registerMRTRFixtures(s)
	return s
}

// registerMRTRFixtures adds what the demo does not show: two rounds, url
// mode, several requests in one round, capability-aware asking, handler
// state, a resource read that asks, a bad form, and a completer that
// (wrongly) asks for input.
func registerMRTRFixtures(s *server) {
	s.addTool(tool{
		Name: "two_rounds",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			name := req.Input("name")
			if name == nil {
				return nil, req.NeedInput(elicitForm("name", "Step 1: What is your name?",
					`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)).WithState("step1")
			}
			color := req.Input("color")
			if color == nil {
				return nil, req.NeedInput(elicitForm("color", "Step 2: What is your favorite color?",
					`{"type":"object","properties":{"color":{"type":"string","enum":["red","blue"]}},"required":["color"]}`)).WithState("step2")
			}
			return textResult(fmt.Sprintf("%s likes %s (state %s)", name.String("name"), color.String("color"), req.State())), nil
		},
	})
	s.addTool(tool{
		Name: "sign_in",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			if a := req.Input("login"); a != nil {
				return textResult("login " + a.Action), nil
			}
			return nil, req.NeedInput(elicitURL("login", "Sign in to continue", "https://example.com/connect?req=1"))
		},
	})
	s.addTool(tool{
		Name: "all_three",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			name, model, roots := req.Input("user_name"), req.Input("greeting"), req.Input("client_roots")
			if name == nil || model == nil || roots == nil {
				return nil, req.NeedInput(
					elicitForm("user_name", "What is your name?", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
					createMessage("greeting", samplingRequest{Messages: userText("Generate a greeting"), MaxTokens: 50}),
					listRoots("client_roots"),
				)
			}
			return textResult(fmt.Sprintf("%s/%s/%d roots", name.String("name"), model.Text, len(roots.Roots))), nil
		},
	})
	s.addTool(tool{
		Name: "what_you_can",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			var asks []inputRequest
			for _, q := range []inputRequest{
				elicitForm("name", "Name?", `{"type":"object","properties":{"name":{"type":"string"}}}`),
				createMessage("model", samplingRequest{Messages: userText("Hi"), MaxTokens: 10}),
				listRoots("roots"),
			} {
				if req.Input(q.key) == nil && req.CanAsk(q) {
					asks = append(asks, q)
				}
			}
			if len(asks) > 0 {
				return nil, req.NeedInput(asks...)
			}
			return textResult("done"), nil
		},
	})
	s.addTool(tool{
		Name: "bad_form",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			return nil, req.NeedInput(elicitForm("x", "Nested?", `{"type":"object","properties":{"x":{"type":"object"}}}`))
		},
	})
	same := func(ctx context.Context, req *request) (*toolResult, error) {
		if req.Input("ok") == nil {
			return nil, req.NeedInput(elicitForm("ok", "OK?", `{"type":"object","properties":{"ok":{"type":"boolean"}}}`))
		}
		return textResult("ok"), nil
	}
	s.addTool(tool{Name: "same_name", Call: same})
	s.addPrompt(prompt{
		Name: "same_name",
		Get: func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
			if req.Input("ok") == nil {
				return nil, req.NeedInput(elicitForm("ok", "OK?", `{"type":"object","properties":{"ok":{"type":"boolean"}}}`))
			}
			return &promptResult{Messages: []promptMessage{{Role: "user", Content: textContent("ok")}}}, nil
		},
		Arguments: []promptArgument{{Name: "q", Complete: func(ctx context.Context, value string, args map[string]string) ([]string, error) {
			return nil, &inputRequired{requests: []inputRequest{listRoots("r")}}
		}}},
	})
	s.addTemplate(resourceTemplate{
		URITemplate: "secret://{id}",
		Name:        "secret",
		Read: func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
			a := req.Input("why")
			if a == nil {
				return nil, req.NeedInput(elicitForm("why", "Why do you need "+uri+"?",
					`{"type":"object","properties":{"reason":{"type":"string","minLength":3}},"required":["reason"]}`))
			}
			return []resourceContents{{URI: uri, Text: "secret " + vars["id"] + " for " + a.String("reason")}}, nil
		},
	})
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

// serveLine runs one line through s.serveStdio and returns the response,
// decoded (notifications are skipped).
func serveLine(tb testing.TB, s *server, line string) map[string]any {
	tb.Helper()
	out := serveAll(tb, s, line+"\n")
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
			s := newTestMRTRServer(t, testStateKey, testEpoch)
			resp := serveLine(t, s, mrtrLine(1, tt.method, tt.params, capsAll))
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
			if meta, _ := res["_meta"].(map[string]any); meta[metaServerInfo] == nil {
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
			resp := serveLine(t, newTestMRTRServer(t, testStateKey, testEpoch), mrtrLine(id, tt.method, tt.params, tt.caps))
			for _, r := range tt.rounds {
				state := mustState(t, resp)
				id++
				// A restart between rounds: a new server with the same key.
				s := newTestMRTRServer(t, testStateKey, testEpoch)
				resp = serveLine(t, s, mrtrLine(id, tt.method, retryParams(tt.params, r.responses, state), tt.caps))
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

// TestMultiRoundStateChanges checks that each round issues a new
// requestState (the conformance multi-round scenario checks this).
func TestMultiRoundStateChanges(t *testing.T) {
	s := newTestMRTRServer(t, testStateKey, testEpoch)
	params := `"name":"two_rounds","arguments":{}`
	st1 := mustState(t, serveLine(t, s, mrtrLine(1, "tools/call", params, capsAll)))
	st2 := mustState(t, serveLine(t, s, mrtrLine(2, "tools/call", retryParams(params, `{"name":{"action":"accept","content":{"name":"A"}}}`, st1), capsAll)))
	if st1 == st2 {
		t.Errorf("round 2 reissued the round 1 requestState")
	}
}

// TestRetryAfterRestart is the acceptance test: the first call and the
// retry are served by different server instances sharing only the key;
// with a random per-process key the retry is refused.
func TestRetryAfterRestart(t *testing.T) {
	params := `"name":"confirm_delete","arguments":{"path":"/srv/a"}`
	answer := `{"confirm":{"action":"accept","content":{"confirm":true}}}`
	for _, tt := range []struct {
		name       string
		key1, key2 []byte
		want       string // final text, or error message
	}{
		{"same key", testStateKey, testStateKey, "deleted /srv/a"},
		{"random keys", nil, nil, "invalid params: requestState does not verify: it was altered, or was issued for another request, arguments or caller"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			state := mustState(t, serveLine(t, newTestMRTRServer(t, tt.key1, testEpoch), mrtrLine(1, "tools/call", params, capsAll)))
			resp := serveLine(t, newTestMRTRServer(t, tt.key2, testEpoch), mrtrLine(2, "tools/call", retryParams(params, answer, state), capsAll))
			var got string
			if e, ok := resp["error"].(map[string]any); ok {
				got, _ = e["message"].(string)
			} else {
				got = mustResult(t, resp)["content"].([]any)[0].(map[string]any)["text"].(string)
			}
			if got != tt.want {
				t.Errorf("retry = %q, want %q", got, tt.want)
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
			resp := serveLine(t, newTestMRTRServer(t, testStateKey, testEpoch), mrtrLine(1, "tools/call", tt.params, tt.caps))
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

// TestRequestStateAttacks presents altered or misplaced state: each is
// -32602 with a message saying why, and never reaches the handler.
// [§Security Considerations]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#security-considerations
func TestRequestStateAttacks(t *testing.T) {
	const (
		params    = `"name":"same_name","arguments":{"path":"/tmp/x","n":1}`
		answer    = `{"ok":{"action":"accept","content":{"ok":true}}}`
		notVerify = "invalid params: requestState does not verify: it was altered, or was issued for another request, arguments or caller"
		malformed = "invalid params: requestState is malformed"
	)
	issue := func(tb testing.TB, s *server) string {
		return mustState(tb, serveLine(tb, s, mrtrLine(1, "tools/call", params, capsAll)))
	}
	flip := func(st string, at int) string {
		raw, _ := base64.RawURLEncoding.DecodeString(st)
		raw[at] ^= 0x01
		return base64.RawURLEncoding.EncodeToString(raw)
	}
	for _, tt := range []struct {
		name   string
		line   func(state string) string
		server *server // serves the retry; nil means a fresh one at testEpoch
		want   string
	}{
		{"bit flip in payload", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, flip(st, 12)), capsAll)
		}, nil, notVerify},
		{"bit flip in expiry", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, flip(st, 8)), capsAll)
		}, nil, notVerify},
		{"bit flip in mac", func(st string) string {
			raw, _ := base64.RawURLEncoding.DecodeString(st)
			return mrtrLine(2, "tools/call", retryParams(params, answer, flip(st, len(raw)-1)), capsAll)
		}, nil, notVerify},
		{"version byte", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, flip(st, 0)), capsAll)
		}, nil, malformed},
		{"truncated", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, st[:len(st)-4]), capsAll)
		}, nil, notVerify},
		{"truncated to nothing useful", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, st[:20]), capsAll)
		}, nil, malformed},
		{"appended suffix", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, st+"-TAMPERED"), capsAll)
		}, nil, malformed},
		{"other tool", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(`"name":"confirm_delete","arguments":{"path":"/tmp/x","n":1}`, `{"confirm":{"action":"accept"}}`, st), capsAll)
		}, nil, notVerify},
		{"other arguments", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(`"name":"same_name","arguments":{"path":"/etc/passwd","n":1}`, answer, st), capsAll)
		}, nil, notVerify},
		{"other method, same name", func(st string) string {
			return mrtrLine(2, "prompts/get", retryParams(`"name":"same_name"`, `{"ok":{"action":"accept"}}`, st), capsAll)
		}, nil, notVerify},
		{"other key", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, st), capsAll)
		}, newTestMRTRServer(t, []byte("another secret of thirty-two bytes!"), testEpoch), notVerify},
		{"expired", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, st), capsAll)
		}, newTestMRTRServer(t, testStateKey, testEpoch.Add(defaultStateTTL+time.Second)), "invalid params: requestState expired; start the request again"},
		{"oversized", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, strings.Repeat("A", maxRequestStateBytes+1)), capsAll)
		}, nil, fmt.Sprintf("invalid params: requestState longer than %d bytes", maxRequestStateBytes)},
		{"line break inserted", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, st[:30]+"\r\n"+st[30:]), capsAll)
		}, nil, malformed},
		{"padding added", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, st+"=="), capsAll)
		}, nil, malformed},
		{"not base64url", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, "!!!"+st), capsAll)
		}, nil, malformed},
		{"not a string", func(st string) string {
			return mrtrLine(2, "tools/call", `"name":"same_name","arguments":{"path":"/tmp/x","n":1},"requestState":42`, capsAll)
		}, nil, "invalid params: requestState must be a string"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := issue(t, newTestMRTRServer(t, testStateKey, testEpoch))
			s := tt.server
			if s == nil {
				s = newTestMRTRServer(t, testStateKey, testEpoch)
			}
			resp := serveLine(t, s, tt.line(st))
			e, _ := resp["error"].(map[string]any)
			if e == nil || e["code"] != float64(codeInvalidParams) || e["message"] != tt.want {
				t.Errorf("retry = %s, want -32602 %q", mustJSON(t, resp), tt.want)
			}
		})
	}
}

// TestRequestStateArgumentsCanonical checks that the binding does not
// depend on key order or spacing in arguments, only on their content.
func TestRequestStateArgumentsCanonical(t *testing.T) {
	s := newTestMRTRServer(t, testStateKey, testEpoch)
	st := mustState(t, serveLine(t, s, mrtrLine(1, "tools/call", `"name":"same_name","arguments":{"path":"/x","n":1,"o":{"b":2,"a":[1,"x"]}}`, capsAll)))
	resp := serveLine(t, s, mrtrLine(2, "tools/call", retryParams(`"name":"same_name","arguments":{ "o":{"a":[1,"x"],"b":2}, "n" : 1, "path":"/x" }`,
		`{"ok":{"action":"accept"}}`, st), capsAll))
	if got := mustResult(t, resp)["resultType"]; got != "complete" {
		t.Errorf("retry with reordered arguments: %s", mustJSON(t, resp))
	}
}

// TestRequestStatePrincipal binds state to the caller: state issued to
// alice is refused for bob and for an anonymous caller. Principals come
// from the HTTP transport, so this drives dispatch directly.
func TestRequestStatePrincipal(t *testing.T) {
	s := newTestMRTRServer(t, testStateKey, testEpoch)
	params := `"name":"confirm_delete","arguments":{"path":"/x"}`
	serve := func(line, principal string) map[string]any {
		msg, rerr := parseMessage([]byte(line))
		if rerr != nil {
			t.Fatalf("parseMessage: %v", rerr)
		}
		var m map[string]any
		if err := json.Unmarshal(s.dispatch(t.Context(), &msg, exchange{principal: principal}), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	st := mustState(t, serve(mrtrLine(1, "tools/call", params, capsAll), "alice"))
	retry := mrtrLine(2, "tools/call", retryParams(params, `{"confirm":{"action":"accept","content":{"confirm":true}}}`, st), capsAll)
	for _, tt := range []struct{ principal, want string }{
		{"alice", ""},
		{"bob", "invalid params: requestState does not verify: it was altered, or was issued for another request, arguments or caller"},
		{"", "invalid params: requestState does not verify: it was altered, or was issued for another request, arguments or caller"},
	} {
		resp := serve(retry, tt.principal)
		e, _ := resp["error"].(map[string]any)
		switch {
		case tt.want == "" && e != nil:
			t.Errorf("principal %q: %s, want success", tt.principal, mustJSON(t, resp))
		case tt.want != "" && (e == nil || e["message"] != tt.want):
			t.Errorf("principal %q: %s, want %q", tt.principal, mustJSON(t, resp), tt.want)
		}
	}
}

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
			s := newTestMRTRServer(t, testStateKey, testEpoch)
			st := mustState(t, serveLine(t, s, mrtrLine(1, method, tt.params, capsAll)))
			resp := serveLine(t, s, mrtrLine(2, method, retryParams(tt.params, tt.responses, st), capsAll))
			e, _ := resp["error"].(map[string]any)
			if e == nil || e["code"] != float64(codeInvalidParams) || e["message"] != tt.want {
				t.Errorf("retry = %s\nwant -32602 %q", mustJSON(t, resp), tt.want)
			}
		})
	}
}

// TestMissingAnswersReasked checks that a retry lacking a needed answer
// gets a new input_required asking again, not an error, and that
// unrequested keys are ignored (with or without requestState).
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
		{"extra keys ignored, answer present, no state", false,
			`{"confirm":{"action":"accept","content":{"confirm":true}},"unknown_extra_key":{"action":"accept","content":{"foo":"bar"}},"another":{"action":"accept","content":{"baz":123}}}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestMRTRServer(t, testStateKey, testEpoch)
			st := ""
			if tt.withState {
				st = mustState(t, serveLine(t, s, mrtrLine(1, "tools/call", params, capsAll)))
			}
			resp := serveLine(t, s, mrtrLine(2, "tools/call", retryParams(params, tt.responses, st), capsAll))
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
			resp := serveLine(t, newTestMRTRServer(t, testStateKey, testEpoch), mrtrLine(1, tt.method, tt.params, capsAll))
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
		_, err := newTestMRTRServer(t, testStateKey, testEpoch).inputRequiredResult(req, m, (&request{}).NeedInput(listRoots("r")))
		allowed := name == "tools/call" || name == "prompts/get" || name == "resources/read"
		if allowed != (err == nil) {
			t.Errorf("inputRequiredResult on %s: err = %v, want allowed %v", name, err, allowed)
		}
	}
}

// TestBuilderErrors checks that a handler's programming error in an input
// request is answered -32603 and never sent to the client.
func TestBuilderErrors(t *testing.T) {
	resp := serveLine(t, newTestMRTRServer(t, testStateKey, testEpoch), mrtrLine(1, "tools/call", `"name":"bad_form"`, capsAll))
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

// TestRequestedSchema checks the restricted form schema: a flat object of
// primitive properties, with only the keywords the spec lists.
// [§Requested Schema]: https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#requested-schema
func TestRequestedSchema(t *testing.T) {
	for _, tt := range []struct {
		name, schema string
		ok           bool
	}{
		{"string with everything", `{"type":"object","properties":{"e":{"type":"string","title":"E","description":"d","minLength":3,"maxLength":50,"format":"email","default":"a@b.c"}}}`, true},
		{"number and integer", `{"type":"object","properties":{"n":{"type":"number","minimum":0,"maximum":1.5,"default":1},"i":{"type":"integer"}}}`, true},
		{"boolean", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"b":{"type":"boolean","default":false}},"required":["b"]}`, true},
		{"untitled enum", `{"type":"object","properties":{"c":{"type":"string","enum":["a","b"],"default":"a"}}}`, true},
		{"titled enum", `{"type":"object","properties":{"c":{"type":"string","oneOf":[{"const":"a","title":"A"}]}}}`, true},
		{"legacy enumNames", `{"type":"object","properties":{"c":{"type":"string","enum":["a"],"enumNames":["A"]}}}`, true},
		{"untitled multi select", `{"type":"object","properties":{"c":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","enum":["a","b"]},"default":["a"]}}}`, true},
		{"titled multi select", `{"type":"object","properties":{"c":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}}}}`, true},
		{"not an object", `{"type":"string"}`, false},
		{"nested object", `{"type":"object","properties":{"o":{"type":"object"}}}`, false},
		{"array of objects", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"object"}}}}`, false},
		{"unsupported format", `{"type":"object","properties":{"s":{"type":"string","format":"ipv4"}}}`, false},
		{"pattern not allowed", `{"type":"object","properties":{"s":{"type":"string","pattern":"x"}}}`, false},
		{"minimum on a string", `{"type":"object","properties":{"s":{"type":"string","minimum":1}}}`, false},
		{"default of the wrong type", `{"type":"object","properties":{"b":{"type":"boolean","default":"no"}}}`, false},
		{"required names a missing property", `{"type":"object","properties":{},"required":["x"]}`, false},
		{"additionalProperties not allowed", `{"type":"object","properties":{},"additionalProperties":false}`, false},
		{"titled option without title", `{"type":"object","properties":{"c":{"type":"string","oneOf":[{"const":"a"}]}}}`, false},
		{"not JSON", `{"type":`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseRequestedSchema([]byte(tt.schema))
			if (err == nil) != tt.ok {
				t.Errorf("parseRequestedSchema(%s) = %v, want ok %v", tt.schema, err, tt.ok)
			}
		})
	}
}

// TestLoadStateKey checks where the requestState secret comes from.
func TestLoadStateKey(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	short := filepath.Join(dir, "short")
	if err := os.WriteFile(good, append(append([]byte{}, testStateKey...), '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(short, []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == envStateKey {
				return v
			}
			return ""
		}
	}
	for _, tt := range []struct {
		name, path, env, want string
		wantErr               bool
	}{
		{"none: random", "", "", "", false},
		{"file, newline trimmed", good, "", string(testStateKey), false},
		{"file wins over env", good, "ignored-ignored-ignored-ignored-ignored", string(testStateKey), false},
		{"env", "", string(testStateKey), string(testStateKey), false},
		{"short file", short, "", "", true},
		{"short env", "", "short", "", true},
		{"missing file", filepath.Join(dir, "nope"), "", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			key, err := loadStateKey(tt.path, env(tt.env))
			if (err != nil) != tt.wantErr || string(key) != tt.want {
				t.Errorf("loadStateKey(%q) = %q, %v; want %q, error %v", tt.path, key, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestRunStateFlags checks the flags through run: a bad TTL or key fails
// at start-up; an environment key makes state portable across runs.
func TestRunStateFlags(t *testing.T) {
	if !runServesDemo {
		t.Skip("drives run, which serves the demo registry only in the default build")
	}
	noEnv := func(string) string { return "" }
	for _, args := range [][]string{{"-state-ttl", "0"}, {"-state-key-file", filepath.Join(t.TempDir(), "nope")}} {
		if err := run(t.Context(), args, strings.NewReader(""), io.Discard, io.Discard, noEnv); err == nil {
			t.Errorf("run(%q) = nil, want an error", args)
		}
	}
	env := func(name string) string {
		if name == envStateKey {
			return string(testStateKey)
		}
		return ""
	}
	params := `"name":"confirm_delete","arguments":{"path":"/r"}`
	var out1, out2 bytes.Buffer
	if err := run(t.Context(), nil, strings.NewReader(mrtrLine(1, "tools/call", params, capsAll)+"\n"), &out1, io.Discard, env); err != nil {
		t.Fatal(err)
	}
	var first map[string]any
	if err := json.Unmarshal(out1.Bytes(), &first); err != nil {
		t.Fatal(err)
	}
	retry := mrtrLine(2, "tools/call", retryParams(params, `{"confirm":{"action":"decline"}}`, mustState(t, first)), capsAll)
	if err := run(t.Context(), nil, strings.NewReader(retry+"\n"), &out2, io.Discard, env); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out2.String(), `"text":"kept /r"`) {
		t.Errorf("retry in a second run = %s", out2.String())
	}
}

// testBinding is a fixed request binding for the sealer tests.
var testBinding = sha256.Sum256([]byte("tools/call confirm_delete"))

// FuzzRequestState feeds arbitrary tokens to open: it must never panic,
// and whatever seal produces must open to the same payload.
func FuzzRequestState(f *testing.F) {
	st := newStateSealer(testStateKey, 0, func() time.Time { return testEpoch })
	valid, err := st.seal(statePayload{Data: "seed", Asked: map[string]stateAsk{"k": {Method: methodListRoots}}}, testBinding)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{valid, "", "AQ", valid[:len(valid)-2], valid + "A", strings.Repeat("_", 64), "====", "\x00\xff"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, token string) {
		if p, rerr := st.open(token, testBinding); rerr == nil && token != valid {
			// Only a token this sealer signed may open.
			if again, err := st.seal(p, testBinding); err != nil || again != token {
				t.Errorf("open accepted %q, which seal does not produce (%q)", token, again)
			}
		} else if rerr != nil && !errors.Is(rerr, errInvalidParams) {
			t.Errorf("open(%q) = %v, want -32602", token, rerr)
		}
		sealed, err := st.seal(statePayload{Data: token}, testBinding)
		if err != nil {
			return // too large to issue
		}
		p, rerr := st.open(sealed, testBinding)
		var want string // JSON replaces each invalid UTF-8 byte with U+FFFD
		_ = json.Unmarshal(mustMarshal(token), &want)
		if rerr != nil || p.Data != want {
			t.Errorf("round trip of %q: %q, %v", token, p.Data, rerr)
		}
	})
}

// BenchmarkRequestState measures signing and verifying a typical state:
// one accumulated form answer and one pending request.
func BenchmarkRequestState(b *testing.B) {
	st := newStateSealer(testStateKey, 0, func() time.Time { return testEpoch })
	p := statePayload{
		Answers: map[string]stateAnswer{"name": {Method: methodElicit, Value: json.RawMessage(`{"action":"accept","content":{"name":"Alice"}}`)}},
		Asked:   map[string]stateAsk{"color": {Method: methodElicit, Schema: json.RawMessage(nameSchema)}},
	}
	token, err := st.seal(p, testBinding)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("seal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := st.seal(p, testBinding); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("open", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, rerr := st.open(token, testBinding); rerr != nil {
				b.Fatal(rerr)
			}
		}
	})
}
