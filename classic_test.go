// Tests of the classic era: transcripts per classic revision on stdio
// (testdata/classic/*.txt), every classic result and notification checked
// against that revision's schema.json, and tables for version negotiation
// and the per-method era rules.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// classicSync is a line the stdio reader answers at once (-32600), so a
// reply to it shows every earlier notification was handled.
const (
	classicSync      = `"classic sync"`
	classicSyncReply = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: message must be a JSON object"}}`
)

// newClassicServer returns a server with the demo registry and, when
// fixtures is set, the classic fixtures: one item with every field and
// content kind that some classic revision lacks.
func newClassicServer(tb testing.TB, fixtures, modernOnly bool) *server {
	tb.Helper()
	s := newTestDemoServer(tb, config{cache: testCache, modernOnly: modernOnly}, nil)
	if fixtures {
		registerClassicFixtures(s)
	}
	return s
}

// registerClassicFixtures adds items using title, icons, annotations,
// outputSchema, structuredContent, audio and resource_link.
func registerClassicFixtures(s *server) {
	s.info.Title = "baremcp test"
	s.serverInfoJSON, _ = json.Marshal(s.info)
	icons := []icon{{Src: "https://example.com/icon.png", MimeType: "image/png", Sizes: []string{"48x48"}}}
	const lastModified = "2025-01-02T03:04:05Z"
	kinds := []content{
		{Type: "text", Text: "annotated", Annotations: &annotations{Audience: []string{"user"}, LastModified: lastModified}},
		imageContent([]byte{0x89, 'P', 'N', 'G'}, "image/png"),
		audioContent([]byte("RIFF"), "audio/wav"),
		linkContent(resourceLink{URI: "demo://readme", Name: "readme", Title: "About", Description: "The readme.", MimeType: "text/plain"}),
		{Type: "audio", Data: []byte("RIFF"), MimeType: "audio/wav", Annotations: &annotations{LastModified: lastModified}},
		embeddedContent(resourceContents{URI: "demo://readme", MimeType: "text/plain", Text: "embedded"}),
	}
	s.addTool(tool{
		Name:         "media",
		Title:        "Every content kind",
		Description:  "Returns one block of each content kind, and structured content.",
		OutputSchema: `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`,
		Annotations:  &toolAnnotations{Title: "Media", ReadOnlyHint: new(true)},
		Icons:        icons,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			return &toolResult{Content: kinds, StructuredContent: map[string]bool{"ok": true}}, nil
		},
	})
	s.addResource(resource{
		URI: "demo://titled", Name: "titled", Title: "Titled", Description: "A resource with every optional field.",
		MimeType: "text/plain", Size: 5, Icons: icons, Text: "title",
		Annotations: &annotations{Audience: []string{"assistant"}, Priority: new(0.5), LastModified: lastModified},
	})
	s.addTemplate(resourceTemplate{
		URITemplate: "demo://titled/{id}", Name: "titled-item", Title: "Titled item", MimeType: "text/plain", Icons: icons,
		Annotations: &annotations{LastModified: lastModified},
		Read: func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
			return []resourceContents{{URI: uri, MimeType: "text/plain", Text: "titled " + vars["id"]}}, nil
		},
	})
	s.addPrompt(prompt{
		Name: "media-prompt", Title: "Media prompt", Description: "Messages of every content kind.", Icons: icons,
		Arguments: []promptArgument{{Name: "topic", Title: "Topic", Description: "What about"}},
		Get: func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
			msgs := make([]promptMessage, len(kinds))
			for i, k := range kinds {
				msgs[i] = promptMessage{Role: "user", Content: k}
			}
			return &promptResult{Messages: msgs}, nil
		},
	})
}

// exchange sends line and returns every line the server wrote in answer,
// in order: for a request, until its response; for a notification, until
// the reader has handled it.
func (c *testConn) exchange(line string) []string {
	c.tb.Helper()
	var id []byte
	if msg, err := parseMessage([]byte(line)); err == nil && msg.hasMethod {
		id = msg.id
	}
	c.send(line)
	c.send(classicSync)
	var got []string
	synced, answered := false, id == nil
	for !synced || !answered {
		l := c.recv()
		if !synced && l == classicSyncReply {
			synced = true
			continue
		}
		if rid := responseID(l); rid != nil && id != nil && idKey(rid) == idKey(id) {
			answered = true
		}
		got = append(got, l)
	}
	return got
}

// TestClassicTranscripts plays testdata/classic/*.txt on stdio. Client lines
// are sent one at a time, each after the answers to the previous one, so
// the server lines are in a fixed order. Every line the server writes in
// answer to a classic request after initialize is checked against the
// negotiated revision's schema.json. -update rewrites the server
// sections.
func TestClassicTranscripts(t *testing.T) {
	forEachTranscript(t, "testdata/classic/*.txt", func(t *testing.T, file string, tr transcript) {
		c := newTestConn(t, newClassicServer(t, tr.registry == "classic", slices.Contains(tr.flags, "-modern-only")))
		version, schemas := "", map[string]classicSchema{}
		for i, st := range tr.steps {
			var got []string
			for _, line := range st.sent() {
				out := c.exchange(line)
				version = checkClassicShapes(t, line, out, version, schemas)
				got = append(got, out...)
			}
			if *update {
				tr.steps[i].server = got
				continue
			}
			if !sameLines(t, got, st.server, false) {
				t.Errorf("%s step %d:\n%s\n got:\n%s\nwant:\n%s", file, i+1, strings.Join(st.client, "\n"),
					strings.Join(got, "\n"), strings.Join(st.server, "\n"))
			}
		}
		if rest := c.close(); len(rest) > 0 {
			t.Errorf("after the last step the server wrote:\n%s", strings.Join(rest, "\n"))
		}
		if *update {
			if err := os.WriteFile(file, []byte(tr.format()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
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
	"prompts/list":             "ListPromptsResult",
	"prompts/get":              "GetPromptResult",
	"completion/complete":      "CompleteResult",
}

// classicNotificationDefs names the schema definition of each server
// notification.
var classicNotificationDefs = map[string]string{
	"notifications/message":  "LoggingMessageNotification",
	"notifications/progress": "ProgressNotification",
}

// checkClassicShapes validates out, the answer to the client line sent,
// against version's schema when line is a classic request and version is
// set. It returns the version negotiated so far (an initialize answer sets
// it). schemas caches the loaded schemas by version.
func checkClassicShapes(tb testing.TB, line string, out []string, version string, schemas map[string]classicSchema) string {
	tb.Helper()
	msg, rerr := parseMessage([]byte(line))
	if rerr != nil || !msg.hasMethod {
		return version
	}
	var r request
	if r.parseParams(msg.params, nil) != nil || r.meta.hasVersion {
		return version
	}
	for _, l := range out {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			tb.Errorf("server line is not JSON: %s", l)
			continue
		}
		if msg.method == "initialize" && v["result"] != nil {
			version, _ = v["result"].(map[string]any)["protocolVersion"].(string)
		}
		if version == "" {
			continue
		}
		sc, ok := schemas[version]
		if !ok {
			sc = mustLoadClassicSchema(tb, version)
			schemas[version] = sc
		}
		switch {
		case v["result"] != nil:
			def, ok := classicResultDefs[msg.method]
			if !ok {
				tb.Errorf("%s: no schema definition for the result of %s", version, msg.method)
				continue
			}
			for _, p := range sc.check(def, sc.def(def), v["result"]) {
				tb.Errorf("%s %s result: %s\n%s", version, msg.method, p, l)
			}
		case v["method"] != nil:
			def, ok := classicNotificationDefs[v["method"].(string)]
			if !ok {
				tb.Errorf("%s: unexpected notification %s", version, l)
				continue
			}
			params := sc.def(def)["properties"].(map[string]any)["params"].(map[string]any)
			for _, p := range sc.check(def+".params", params, v["params"]) {
				tb.Errorf("%s %s: %s\n%s", version, v["method"], p, l)
			}
		}
	}
	return version
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
// JSON Schema type t (a name or a list of names).
func jsonTypeMatches(t any, v any) bool {
	if list, ok := t.([]any); ok {
		return slices.ContainsFunc(list, func(x any) bool { return jsonTypeMatches(x, v) })
	}
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	case "null":
		return v == nil
	}
	return true
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

// classicMeta is a modern _meta envelope.
const classicMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// classicInitialize is an initialize request offering version.
func classicInitialize(id int, version string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, id, version)
}

// classicDispatch serves line in sess and decodes the reply.
func classicDispatch(tb testing.TB, s *server, sess *session, line string) map[string]any {
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
// is answered as is, anything else with the newest classic version, bad
// params are -32602, and the handshake happens once.
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
		{"2025-03-26 gets a counter-offer", classicInitialize(1, "2025-03-26"), "2025-11-25", 0},
		{"a modern version gets a counter-offer", classicInitialize(1, "2026-07-28"), "2025-11-25", 0},
		{"an unknown version gets a counter-offer", classicInitialize(1, "1999-01-01"), "2025-11-25", 0},
		{"protocolVersion missing", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, "", codeInvalidParams},
		{"protocolVersion not a string", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":20241105,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, "", codeInvalidParams},
		{"capabilities missing", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"t","version":"1"}}}`, "", codeInvalidParams},
		{"clientInfo not an object", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":"t"}}`, "", codeInvalidParams},
		{"params missing", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, "", codeInvalidParams},
		{"case-folded member", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolversion":"2025-11-25","capabilities":{},"clientInfo":{}}}`, "", codeInvalidRequest},
		{"modern initialize is unknown", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"},` + classicMeta + `}}`, "", codeMethodNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, sess := newClassicServer(t, false, false), newSession()
			v := classicDispatch(t, s, sess, tt.line)
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
			again := classicDispatch(t, s, sess, classicInitialize(2, "2025-11-25"))
			if got := replyCode(again); got != codeInvalidRequest {
				t.Errorf("second initialize: code %d, want %d", got, codeInvalidRequest)
			}
			if got := sess.negotiated(); got != tt.wantVersion {
				t.Errorf("after a second initialize the version is %q, want %q", got, tt.wantVersion)
			}
		})
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
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{%s%s}}`, method, params, classicMeta)
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
			s := newClassicServer(t, false, tt.modernOnly)
			var sess *session
			if tt.state != none {
				sess = newSession()
			}
			if tt.state == open {
				if v := classicDispatch(t, s, sess, classicInitialize(0, version20250618)); replyCode(v) != 0 {
					t.Fatalf("initialize: %v", v)
				}
			}
			v := classicDispatch(t, s, sess, tt.line)
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

// TestModernOnlyFlag runs the program with and without -modern-only: with
// it, initialize is refused with an error naming the supported versions,
// as a classic client may have nothing else to show its user.
// [§Backward Compatibility]: https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions
func TestModernOnlyFlag(t *testing.T) {
	if !runServesDemo {
		t.Skip("drives run, which serves the demo registry only in the default build")
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"dual-era by default", nil, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{},"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"completions":{}},"serverInfo":{"name":"baremcp","version":"0.1.0"},"instructions":"` + testDemoInstructions + `"}}`},
		{"-modern-only refuses initialize", []string{"-modern-only"}, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: initialize (this server serves only per-request _meta versions; supported protocol versions: 2026-07-28)","data":{"supported":["2026-07-28"]}}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdin := strings.NewReader(classicInitialize(1, version20250618) + "\n")
			var stdout bytes.Buffer
			if err := run(t.Context(), tt.args, stdin, &stdout, io.Discard, func(string) string { return "" }); err != nil {
				t.Fatalf("run: %v", err)
			}
			if got := strings.TrimSpace(stdout.String()); !sameJSON(t, got, tt.want) {
				t.Errorf("run(%q) wrote\n%s\nwant\n%s", tt.args, got, tt.want)
			}
		})
	}
}

// TestClassicCancellation checks that notifications/cancelled stops a
// request of a classic session and that nothing is written for it.
// [§Cancellation]: https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation
func TestClassicCancellation(t *testing.T) {
	c := newTestConn(t, newClassicServer(t, false, false))
	c.exchange(classicInitialize(1, version20251125))
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"steps":100},"_meta":{"progressToken":"p"}}}`)
	if got := c.recv(); !strings.Contains(got, `"notifications/progress"`) {
		t.Fatalf("first line after the slow call = %s, want a progress notification", got)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"test"}}`)
	rest := append(c.exchange(`{"jsonrpc":"2.0","id":3,"method":"ping"}`), c.close()...)
	for _, l := range rest {
		if strings.Contains(l, `"id":2`) {
			t.Errorf("a response was written for the cancelled request: %s", l)
		}
	}
}
