// Tests of the classic era: the schema check every transcript applies to
// classic answers (testdata/classic holds the classic transcripts, most
// played on stdio and over HTTP), and tables for version negotiation and the
// per-method era rules.

package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// classicChecker checks what a server writes in a classic session
// against the negotiated revision's schema.json: results of classic
// requests, server-to-client requests and notifications. Its state
// follows one conversation.
type classicChecker struct {
	tb       testing.TB
	version  string                   // negotiated by initialize; "" before
	requests map[string]string        // method of each classic request sent, by id
	schemas  map[string]classicSchema // loaded, by version
}

// newTestClassicChecker returns a checker for one conversation.
func newTestClassicChecker(tb testing.TB) *classicChecker {
	return &classicChecker{tb: tb, requests: map[string]string{}, schemas: map[string]classicSchema{}}
}

// classicResultDefs names the schema definition of each method's result.
var classicResultDefs = map[string]string{
	"initialize":               "InitializeResult",
	"ping":                     "EmptyResult",
	"logging/setLevel":         "EmptyResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"resources/subscribe":      "EmptyResult",
	"resources/unsubscribe":    "EmptyResult",
	"prompts/list":             "ListPromptsResult",
	"prompts/get":              "GetPromptResult",
	"completion/complete":      "CompleteResult",
}

// classicServerMessageDefs names the schema definition of each
// notification and request the server sends.
var classicServerMessageDefs = map[string]string{
	"notifications/message":                "LoggingMessageNotification",
	"notifications/progress":               "ProgressNotification",
	"notifications/cancelled":              "CancelledNotification",
	"notifications/tools/list_changed":     "ToolListChangedNotification",
	"notifications/prompts/list_changed":   "PromptListChangedNotification",
	"notifications/resources/list_changed": "ResourceListChangedNotification",
	"notifications/resources/updated":      "ResourceUpdatedNotification",
	"elicitation/create":                   "ElicitRequest",
	"sampling/createMessage":               "CreateMessageRequest",
	"roots/list":                           "ListRootsRequest",
	"ping":                                 "PingRequest",
}

// sent notes a client line: the method of a classic request, by id; of
// each request of a batch line.
func (c *classicChecker) sent(line string) {
	if entries, rerr := splitBatch([]byte(line)); rerr == nil {
		for _, e := range entries {
			c.sent(string(e))
		}
		return
	}
	msg, rerr := parseMessage([]byte(line))
	if rerr != nil || !msg.hasMethod || msg.id == nil || !isClassicLine(line) {
		return
	}
	c.requests[idKey(msg.id)] = msg.method
}

// check validates one line the server wrote (a stream prefix "@x " is
// ignored; lines that are not JSON are skipped). classic says whether
// the line belongs to the classic era: notifications and requests are
// checked only then.
func (c *classicChecker) check(line string, classic bool) {
	c.tb.Helper()
	_, line = splitStreamPrefix(line)
	if strings.HasPrefix(line, "[") {
		// A batch answer: each of its responses is checked, and the
		// array is what the revision's JSONRPCBatchResponse allows.
		var batch []json.RawMessage
		if err := json.Unmarshal([]byte(line), &batch); err != nil || len(batch) == 0 {
			c.tb.Errorf("server line is not a batch answer: %s", line)
			return
		}
		if c.version != "" && c.version != versionBatches {
			c.tb.Errorf("%s: a batch answer outside a %s session: %s", c.version, versionBatches, line)
		}
		for _, m := range batch {
			c.check(string(m), classic)
		}
		return
	}
	if !strings.HasPrefix(line, "{") {
		return
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		c.tb.Errorf("server line is not JSON: %s", line)
		return
	}
	msg, _ := parseMessage([]byte(line))
	method, isRequest := c.requests[idKey(msg.id)]
	if isRequest && !msg.hasMethod && method == "initialize" && v["result"] != nil {
		c.version, _ = v["result"].(map[string]any)["protocolVersion"].(string)
	}
	if c.version == "" {
		return
	}
	sc, ok := c.schemas[c.version]
	if !ok {
		sc = mustLoadClassicSchema(c.tb, c.version)
		c.schemas[c.version] = sc
	}
	switch {
	case !msg.hasMethod && isRequest && v["result"] != nil:
		def, ok := classicResultDefs[method]
		if !ok {
			c.tb.Errorf("%s: no schema definition for the result of %s", c.version, method)
			return
		}
		for _, p := range sc.check(def, sc.def(def), v["result"]) {
			c.tb.Errorf("%s %s result: %s\n%s", c.version, method, p, line)
		}
	case msg.hasMethod && classic:
		def, ok := classicServerMessageDefs[msg.method]
		if !ok || sc.def(def) == nil {
			c.tb.Errorf("%s: unexpected message %s", c.version, line)
			return
		}
		params, _ := sc.def(def)["properties"].(map[string]any)["params"].(map[string]any)
		if required, _ := sc.def(def)["required"].([]any); v["params"] == nil && !slices.Contains(required, any("params")) {
			return // params are optional
		}
		for _, p := range sc.check(def+".params", params, v["params"]) {
			c.tb.Errorf("%s %s: %s\n%s", c.version, msg.method, p, line)
		}
	}
}

// classicSchema is one revision's schema.json, for shape checks.
type classicSchema struct {
	defs map[string]any
}

// mustLoadClassicSchema reads testdata/classic/schema/VERSION.json, copied
// verbatim from the specification repository.
func mustLoadClassicSchema(tb testing.TB, version string) classicSchema {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "classic", "schema", version+".json"))
	if err != nil {
		tb.Fatalf("schema for %s: %v", version, err)
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		tb.Fatalf("schema for %s: %v", version, err)
	}
	defs, _ := root["definitions"].(map[string]any)
	if defs == nil {
		defs, _ = root["$defs"].(map[string]any)
	}
	return classicSchema{defs: defs}
}

func (sc classicSchema) def(name string) map[string]any {
	d, _ := sc.defs[name].(map[string]any)
	return d
}

// opaqueMembers hold JSON Schemas or free-form values; only their type is
// checked.
var opaqueMembers = []string{"inputSchema", "outputSchema", "structuredContent", "_meta", "experimental"}

// check returns the ways v breaks node. It is stricter than JSON Schema
// on purpose: an object member the definition does not name is a problem
// unless additionalProperties allows it, so a field from a later revision
// is caught. It follows $ref, anyOf/oneOf/allOf, const, enum, type,
// properties, required and items.
func (sc classicSchema) check(path string, node map[string]any, v any) []string {
	if node == nil {
		return []string{path + ": no schema definition"}
	}
	if ref, ok := node["$ref"].(string); ok {
		name := ref[strings.LastIndex(ref, "/")+1:]
		return sc.check(path, sc.def(name), v)
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		branches, ok := node[key].([]any)
		if !ok {
			continue
		}
		var best []string
		for i, b := range branches {
			p := sc.check(path, b.(map[string]any), v)
			if len(p) == 0 {
				return nil
			}
			if i == 0 || len(p) < len(best) {
				best = p
			}
		}
		return append([]string{path + ": matches no " + key + " branch; closest:"}, best...)
	}
	var problems []string
	if all, ok := node["allOf"].([]any); ok {
		for _, b := range all {
			problems = append(problems, sc.check(path, b.(map[string]any), v)...)
		}
	}
	if c, ok := node["const"]; ok && c != v {
		problems = append(problems, fmt.Sprintf("%s: %v is not %v", path, v, c))
	}
	if e, ok := node["enum"].([]any); ok && !slices.Contains(e, v) {
		problems = append(problems, fmt.Sprintf("%s: %v is not one of %v", path, v, e))
	}
	if t, ok := node["type"]; ok && !jsonTypeMatches(t, v) {
		return append(problems, fmt.Sprintf("%s: %v is not of type %v", path, v, t))
	}
	switch v := v.(type) {
	case map[string]any:
		props, _ := node["properties"].(map[string]any)
		required, _ := node["required"].([]any)
		for _, r := range required {
			if _, ok := v[r.(string)]; !ok {
				problems = append(problems, fmt.Sprintf("%s: required member %q missing", path, r))
			}
		}
		for _, k := range slices.Sorted(mapKeys(v)) {
			sub, named := props[k].(map[string]any)
			switch {
			case named && slices.Contains(opaqueMembers, k):
				if t, ok := sub["type"]; ok && !jsonTypeMatches(t, v[k]) {
					problems = append(problems, fmt.Sprintf("%s.%s: not of type %v", path, k, t))
				}
			case named:
				problems = append(problems, sc.check(path+"."+k, sub, v[k])...)
			case props == nil && node["additionalProperties"] == nil:
				// A free-form object such as a capability's settings.
			default:
				switch ap := node["additionalProperties"].(type) {
				case bool:
					if !ap {
						problems = append(problems, fmt.Sprintf("%s: member %q not allowed", path, k))
					}
				case map[string]any:
					problems = append(problems, sc.check(path+"."+k, ap, v[k])...)
				default:
					problems = append(problems, fmt.Sprintf("%s: member %q is not in this revision's schema", path, k))
				}
			}
		}
	case []any:
		if items, ok := node["items"].(map[string]any); ok {
			for i, x := range v {
				problems = append(problems, sc.check(fmt.Sprintf("%s[%d]", path, i), items, x)...)
			}
		}
	}
	return problems
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// jsonTypeMatches reports whether v (as encoding/json decodes it) has the
// JSON Schema type t (a name or a list of names); a type name the check
// does not know matches anything.
func jsonTypeMatches(t any, v any) bool {
	if list, ok := t.([]any); ok {
		return slices.ContainsFunc(list, func(x any) bool { return jsonTypeMatches(x, v) })
	}
	kind := jsonTypeName(v)
	switch t {
	case "number":
		return kind == "number" || kind == "integer"
	case "object", "array", "string", "boolean", "integer", "null":
		return t == kind
	}
	return true
}

// jsonKindNames names the JSON Schema type of a value by the first byte
// of its encoding (jsonKind); numbers are told apart by jsonTypeName.
var jsonKindNames = map[byte]string{'{': "object", '[': "array", '"': "string", 't': "boolean", 'f': "boolean", 'n': "null"}

// jsonTypeName returns the JSON Schema type of v as encoding/json decodes
// it: an integral number is "integer", any other "number".
func jsonTypeName(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	if name, ok := jsonKindNames[jsonKind(raw)]; ok {
		return name
	}
	if f, _ := v.(float64); f == math.Trunc(f) {
		return "integer"
	}
	return "number"
}

// TestClassicSchemaCheckerCatchesLaterFields shows the shape check fails on
// a field a revision does not define, so the transcripts' clean runs mean
// something.
func TestClassicSchemaCheckerCatchesLaterFields(t *testing.T) {
	for _, tt := range []struct {
		name, version, def, value string
		ok                        bool
	}{
		{"2024 tool without title", version20241105, "Tool", `{"name":"a","inputSchema":{"type":"object"}}`, true},
		{"2024 tool with title", version20241105, "Tool", `{"name":"a","title":"A","inputSchema":{"type":"object"}}`, false},
		{"2024 audio content", version20241105, "CallToolResult", `{"content":[{"type":"audio","data":"","mimeType":"audio/wav"}]}`, false},
		{"2024 structuredContent", version20241105, "CallToolResult", `{"content":[],"structuredContent":{}}`, false},
		{"2024 lastModified", version20241105, "Resource", `{"uri":"a:","name":"a","annotations":{"lastModified":"x"}}`, false},
		{"2025-03-26 audio content", version20250326, "CallToolResult", `{"content":[{"type":"audio","data":"","mimeType":"audio/wav"}]}`, true},
		{"2025-03-26 tool annotations", version20250326, "Tool", `{"name":"a","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`, true},
		{"2025-03-26 tool title", version20250326, "Tool", `{"name":"a","title":"A","inputSchema":{"type":"object"}}`, false},
		{"2025-03-26 structuredContent", version20250326, "CallToolResult", `{"content":[],"structuredContent":{}}`, false},
		{"2025-03-26 resource_link", version20250326, "CallToolResult", `{"content":[{"type":"resource_link","uri":"a:","name":"a"}]}`, false},
		{"2025-03-26 serverInfo title", version20250326, "Implementation", `{"name":"a","version":"1","title":"A"}`, false},
		{"2025-06-18 icons", version20250618, "Prompt", `{"name":"p","icons":[]}`, false},
		{"2025-06-18 resource_link", version20250618, "CallToolResult", `{"content":[{"type":"resource_link","uri":"a:","name":"a"}]}`, true},
		{"2025-11-25 icons", version20251125, "Prompt", `{"name":"p","icons":[{"src":"x"}]}`, true},
		{"missing required", version20251125, "Tool", `{"name":"a"}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc := mustLoadClassicSchema(t, tt.version)
			var v any
			if err := json.Unmarshal([]byte(tt.value), &v); err != nil {
				t.Fatal(err)
			}
			problems := sc.check(tt.def, sc.def(tt.def), v)
			if (len(problems) == 0) != tt.ok {
				t.Errorf("check(%s, %s) = %q, want ok %v", tt.def, tt.value, problems, tt.ok)
			}
		})
	}
}

// classicInitialize is an initialize request offering version.
func classicInitialize(id int, version string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, id, version)
}

// mustDispatch serves line in sess and decodes the reply.
func mustDispatch(tb testing.TB, s *server, sess *session, line string) map[string]any {
	tb.Helper()
	msg, rerr := parseMessage([]byte(line))
	if rerr != nil {
		tb.Fatalf("parseMessage(%s): %v", line, rerr)
	}
	reply := s.dispatch(tb.Context(), &msg, exchange{session: sess})
	var v map[string]any
	if err := json.Unmarshal(reply, &v); err != nil {
		tb.Fatalf("dispatch(%s) = %q: %v", line, reply, err)
	}
	return v
}

// replyCode returns the error code of a decoded reply, 0 for a result.
func replyCode(v map[string]any) int {
	e, ok := v["error"].(map[string]any)
	if !ok {
		return 0
	}
	return int(e["code"].(float64))
}

// TestInitializeNegotiation checks the initialize rules: a served version
// is answered as is; an unknown date with the newest served version not
// newer than it (the oldest when it predates them all), anything else
// with the newest (counterOffer); bad params are -32602, and the
// handshake happens once.
// [§Version Negotiation]: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation
func TestInitializeNegotiation(t *testing.T) {
	for _, tt := range []struct {
		name, line  string
		wantVersion string
		wantCode    int
	}{
		{"2024-11-05 is served", classicInitialize(1, "2024-11-05"), "2024-11-05", 0},
		{"2025-06-18 is served", classicInitialize(1, "2025-06-18"), "2025-06-18", 0},
		{"2025-11-25 is served", classicInitialize(1, "2025-11-25"), "2025-11-25", 0},
		{"2025-03-26 is served", classicInitialize(1, "2025-03-26"), "2025-03-26", 0},
		{"an unknown version gets a counter-offer (TestCounterOffer)", classicInitialize(1, "2025-05-01"), "2025-03-26", 0},
		{"protocolVersion missing", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, "", codeInvalidParams},
		{"protocolVersion not a string", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":20241105,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, "", codeInvalidParams},
		{"capabilities missing", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"t","version":"1"}}}`, "", codeInvalidParams},
		{"clientInfo not an object", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":"t"}}`, "", codeInvalidParams},
		{"params missing", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, "", codeInvalidParams},
		{"case-folded member", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolversion":"2025-11-25","capabilities":{},"clientInfo":{}}}`, "", codeInvalidRequest},
		{"modern initialize is unknown", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"},` + metaMember + `}}`, "", codeMethodNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, sess := newTestServer(t), newSession()
			v := mustDispatch(t, s, sess, tt.line)
			if got := replyCode(v); got != tt.wantCode {
				t.Fatalf("initialize: code %d, want %d (%v)", got, tt.wantCode, v)
			}
			if got := sess.negotiated(); got != tt.wantVersion {
				t.Errorf("session version = %q, want %q", got, tt.wantVersion)
			}
			if tt.wantCode != 0 {
				return
			}
			if got := v["result"].(map[string]any)["protocolVersion"]; got != tt.wantVersion {
				t.Errorf("protocolVersion = %v, want %s", got, tt.wantVersion)
			}
			again := mustDispatch(t, s, sess, classicInitialize(2, "2025-11-25"))
			if got := replyCode(again); got != codeInvalidRequest {
				t.Errorf("second initialize: code %d, want %d", got, codeInvalidRequest)
			}
			if got := sess.negotiated(); got != tt.wantVersion {
				t.Errorf("after a second initialize the version is %q, want %q", got, tt.wantVersion)
			}
		})
	}
}

// TestCounterOffer checks the version initialize answers an offer it does
// not serve with: for a date, the newest served version not newer than
// it, the oldest when it predates them all; for anything else the newest
// (the rule and its reason: counterOffer, docs/GAPS.md).
// [§Version Negotiation]: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation
func TestCounterOffer(t *testing.T) {
	for _, tt := range []struct {
		offer, want, why string
	}{
		{"2026-07-28", version20251125, "a modern version: the newest classic one"},
		{"2099-01-01", version20251125, "a future date: the newest"},
		{"2025-05-01", version20250326, "between two served versions: the older"},
		{"2025-06-17", version20250326, "the day before a served version: the one before it"},
		{"2024-10-07", version20241105, "the 1.0-era TypeScript SDK's other version: the oldest"},
		{"1999-01-01", version20241105, "older than every served version: the oldest"},
		{"latest", version20251125, "not a date: the newest"},
		{"2025-02-30", version20251125, "no such day: the newest"},
		{"", version20251125, "empty: the newest"},
	} {
		if got := counterOffer(tt.offer); got != tt.want {
			t.Errorf("counterOffer(%q) = %s, want %s (%s)", tt.offer, got, tt.want, tt.why)
		}
	}
	for _, v := range classicVersions {
		if got := counterOffer(v); got != v {
			t.Errorf("counterOffer(%q) = %s, want it echoed", v, got)
		}
	}
}

// TestEraRules is the matrix admitEra enforces: which era serves a
// request, given its _meta, the session's state and -modern-only.
// [§Backward Compatibility]: https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions
func TestEraRules(t *testing.T) {
	const (
		none  = iota // no session: a transport without classic sessions
		fresh        // a session before initialize
		open         // a session after initialize 2025-06-18
	)
	classic := func(method, params string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{%s}}`, method, params)
	}
	modern := func(method, params string) string {
		if params != "" {
			params += ","
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{%s%s}}`, method, params, metaMember)
	}
	for _, tt := range []struct {
		name       string
		line       string
		state      int
		modernOnly bool
		wantCode   int
		wantModern bool // the result carries resultType
	}{
		{"modern request before initialize", modern("tools/list", ""), fresh, false, 0, true},
		{"modern request in an open session stays modern", modern("tools/list", ""), open, false, 0, true},
		{"classic request in an open session", classic("tools/list", ""), open, false, 0, false},
		{"classic request before initialize is refused", classic("tools/list", ""), fresh, false, codeInvalidParams, false},
		{"classic request with progressToken only is classic", classic("tools/list", `"_meta":{"progressToken":1}`), fresh, false, codeInvalidParams, false},
		{"ping before initialize", classic("ping", ""), fresh, false, 0, false},
		{"ping in an open session", classic("ping", ""), open, false, 0, false},
		{"modern ping is unknown", modern("ping", ""), open, false, codeMethodNotFound, false},
		{"modern logging/setLevel is unknown", modern("logging/setLevel", `"level":"info"`), open, false, codeMethodNotFound, false},
		{"logging/setLevel before initialize", classic("logging/setLevel", `"level":"info"`), fresh, false, codeInvalidParams, false},
		{"logging/setLevel in an open session", classic("logging/setLevel", `"level":"info"`), open, false, 0, false},
		{"classic server/discover in an open session is unknown", classic("server/discover", ""), open, false, codeMethodNotFound, false},
		{"server/discover without _meta before initialize is a bad modern request", classic("server/discover", ""), fresh, false, codeInvalidParams, false},
		{"modern server/discover in an open session", modern("server/discover", ""), open, false, 0, true},
		{"modern-only: classic initialize is unknown", classicInitialize(1, "2025-11-25"), fresh, true, codeMethodNotFound, false},
		{"modern-only: ping is unknown", classic("ping", ""), fresh, true, codeMethodNotFound, false},
		{"modern-only: classic request is a bad modern request", classic("tools/list", ""), fresh, true, codeInvalidParams, false},
		{"modern-only: modern request", modern("tools/list", ""), fresh, true, 0, true},
		{"no session: initialize is unknown", classicInitialize(1, "2025-11-25"), none, false, codeMethodNotFound, false},
		{"no session: classic request is a bad modern request", classic("tools/list", ""), none, false, codeInvalidParams, false},
		{"unknown method in an open session", classic("nope", ""), open, false, codeMethodNotFound, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var flags []string
			if tt.modernOnly {
				flags = []string{"-modern-only"}
			}
			s := newTestServer(t, withFlags(flags...))
			var sess *session
			if tt.state != none {
				sess = newSession()
			}
			if tt.state == open {
				if v := mustDispatch(t, s, sess, classicInitialize(0, version20250618)); replyCode(v) != 0 {
					t.Fatalf("initialize: %v", v)
				}
			}
			v := mustDispatch(t, s, sess, tt.line)
			if got := replyCode(v); got != tt.wantCode {
				t.Fatalf("dispatch(%s) code %d, want %d (%v)", tt.line, got, tt.wantCode, v)
			}
			if tt.wantCode != 0 {
				return
			}
			_, gotModern := v["result"].(map[string]any)["resultType"]
			if gotModern != tt.wantModern {
				t.Errorf("dispatch(%s) modern shape %v, want %v: %v", tt.line, gotModern, tt.wantModern, v)
			}
		})
	}
}

// TestModernOnlyFlag runs the program with and without -modern-only: by
// default initialize opens a session as the product (the demo's own
// answer is in registry_demo_test.go); with it, initialize is refused
// with an error naming the supported versions, as a classic client may
// have nothing else to show its user.
// [§Backward Compatibility]: https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions
func TestModernOnlyFlag(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string // a member of the reply, and its value
	}{
		{"dual-era by default", nil, `"result":{"protocolVersion":"2025-06-18"`},
		{"-modern-only refuses initialize", []string{"-modern-only"}, `"error":{"code":-32601,"message":"method not found: initialize (this server serves only per-request _meta versions; supported protocol versions: 2026-07-28)","data":{"supported":["2026-07-28"]}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := runOnce(t, tt.args, classicInitialize(1, version20250618))
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("run(%q) wrote\n%s\nwant it to contain\n%s", tt.args, got, tt.want)
			}
			if info := fmt.Sprintf(`"serverInfo":{"name":%q,"version":%q}`, serverName, readBuild().version); tt.args == nil && !strings.Contains(got, info) {
				t.Errorf("run wrote %s, want the product's %s", got, info)
			}
		})
	}
}

// TestClassicCancellation checks that notifications/cancelled stops a
// request of a classic session and that nothing is written for it.
// [§Cancellation]: https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation
func TestClassicCancellation(t *testing.T) {
	c := newTestConn(t, newTestServer(t))
	c.send(classicInitialize(1, version20251125))
	c.recv()
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"steps":100},"_meta":{"progressToken":"p"}}}`)
	if got := c.recv(); !strings.Contains(got, `"notifications/progress"`) {
		t.Fatalf("first line after the slow call = %s, want a progress notification", got)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"test"}}`)
	c.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	var rest []string
	for len(rest) == 0 || string(responseID(rest[len(rest)-1])) != "3" {
		rest = append(rest, c.recv())
	}
	for _, l := range append(rest, c.close()...) {
		if strings.Contains(l, `"id":2`) {
			t.Errorf("a response was written for the cancelled request: %s", l)
		}
	}
}
