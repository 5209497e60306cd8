// The test registry every test server serves (newTestServer), and the
// tests of the registry itself (registry.go): registration panics, list
// changes, pagination, churn under load.
//
// The test registry is independent of the product's registry: a copy of
// the repository that replaces the demo keeps every engine test. Its base
// part carries the same wire definitions as the demo (names, titles,
// descriptions, schemas, instructions) with behaviour close enough that
// the transcripts read the same; the demo's own behaviour is tested by
// registry_demo_test.go. The other parts add what a test area needs.

package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// testSet is one part of the test registry.
type testSet struct {
	title string // serverInfo.title the part gives the server
	// wire holds the part's definitions as the wire shows them: a JSON
	// object with instructions and arrays of tools, resources,
	// resourceTemplates and prompts. Members beyond the wire's say how a
	// resource reads (text, blob, ttlMs and cacheScope of its reads) and
	// whether a tool validates its own arguments (handlerValidates).
	wire string
	// add registers the part's items in order, with their behaviour.
	add func(s *server, d *testDefs, g *testGates)
}

// testRegistry holds the parts a test server may serve (withRegistry,
// and the "registry:" directive of transcripts).
var testRegistry = map[string]testSet{
	// base reproduces the demo's wire definitions.
	"base": {wire: `{"instructions":"baremcp demo server: echo and add are instant; slow reports progress; confirm_delete, ask_model and list_roots ask the client for input (elicitation, sampling, roots); toggle_extra_tool adds or removes the tool extra; resources demo://readme, demo://logo and demo://clock (updated every few seconds), template demo://items/{id}; prompts greet and personal_greeting.",
"tools":[
{"name":"echo","description":"Returns the message it is given.","inputSchema":{"type":"object","properties":{"message":{"type":"string","description":"Text to echo back"}},"required":["message"],"additionalProperties":false}},
{"name":"add","title":"Add two numbers","description":"Adds a and b and returns the sum as structured content.","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]},"annotations":{"readOnlyHint":true,"idempotentHint":true}},
{"name":"slow","description":"Works for the given number of steps, reporting progress and logging each one.","inputSchema":{"type":"object","properties":{"steps":{"type":"integer","minimum":1,"maximum":100}},"required":["steps"],"additionalProperties":false}},
{"name":"confirm_delete","description":"Asks the user to confirm before (pretending to) delete a path.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false},"annotations":{"destructiveHint":true}},
{"name":"ask_model","description":"Asks the client's language model a question and returns its answer.","inputSchema":{"type":"object","properties":{"question":{"type":"string"}},"required":["question"],"additionalProperties":false}},
{"name":"list_roots","description":"Lists the client's roots.","annotations":{"readOnlyHint":true}},
{"name":"toggle_extra_tool","description":"Adds the tool extra, or removes it when present.","inputSchema":{"type":"object","additionalProperties":false}},
{"name":"extra","description":"Appears and disappears with toggle_extra_tool.","inputSchema":{"type":"object","additionalProperties":false}}],
"resources":[
{"uri":"demo://readme","name":"readme","title":"About this server","description":"A short text resource.","mimeType":"text/plain","text":"baremcp is a Model Context Protocol server in one dependency-free Go binary.\n"},
{"uri":"demo://logo","name":"logo","description":"A tiny PNG, served as a blob.","mimeType":"image/png","blob":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="},
{"uri":"demo://clock","name":"clock","description":"The server's UTC time; subscribers are told every few seconds that it changed.","mimeType":"text/plain","ttlMs":0,"cacheScope":"public"}],
"resourceTemplates":[
{"uriTemplate":"demo://items/{id}","name":"item","description":"One item by id; read demo://items/42 for item 42.","mimeType":"text/plain","ttlMs":0,"cacheScope":"public"}],
"prompts":[
{"name":"greet","title":"Greeting","description":"Greets someone by name.","arguments":[{"name":"name","description":"Who to greet","required":true}]},
{"name":"personal_greeting","title":"Personal greeting","description":"Asks the user for their name, then greets them."}]}`,
		add: addTestBase},

	// extras: a tool per content kind, failing, panicking and logging
	// tools, a schema with every enforced keyword, resources and
	// templates for matching, prompts for content kinds and completion
	// limits.
	"extras": {wire: `{"tools":[
{"name":"kinds","description":"Returns one content block of every kind."},
{"name":"fail"},{"name":"explode"},{"name":"levels"},
{"name":"typed","inputSchema":{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":4},"n":{"type":"integer","minimum":1,"maximum":10},"e":{"enum":["red","green"]},"c":{"const":"fixed"},"list":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2}},"required":["s"],"additionalProperties":false}}],
"resources":[
{"uri":"demo://items/special","name":"special","text":"the exact resource"},
{"uri":"test://clock","name":"clock","ttlMs":5000,"cacheScope":"private"}],
"resourceTemplates":[{"uriTemplate":"test://{owner}/repos/{repo}","name":"repo"},{"uriTemplate":"test://files/{path}.json","name":"file"}],
"prompts":[
{"name":"kinds","arguments":[{"name":"topic","required":true},{"name":"tone"}]},
{"name":"many","arguments":[{"name":"n"},{"name":"echo"}]}]}`,
		add: addTestExtras},

	// classic: one item with every field and content kind that some
	// classic revision lacks (title, icons, annotations, outputSchema,
	// structuredContent, audio, resource_link).
	"classic": {title: "baremcp test", wire: `{"tools":[
{"name":"media","title":"Every content kind","description":"Returns one block of each content kind, and structured content.","outputSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]},"annotations":{"title":"Media","readOnlyHint":true},"icons":[{"src":"https://example.com/icon.png","mimeType":"image/png","sizes":["48x48"]}]}],
"resources":[
{"uri":"demo://titled","name":"titled","title":"Titled","description":"A resource with every optional field.","mimeType":"text/plain","size":5,"icons":[{"src":"https://example.com/icon.png","mimeType":"image/png","sizes":["48x48"]}],"annotations":{"audience":["assistant"],"priority":0.5,"lastModified":"2025-01-02T03:04:05Z"},"text":"title"}],
"resourceTemplates":[
{"uriTemplate":"demo://titled/{id}","name":"titled-item","title":"Titled item","mimeType":"text/plain","icons":[{"src":"https://example.com/icon.png","mimeType":"image/png","sizes":["48x48"]}],"annotations":{"lastModified":"2025-01-02T03:04:05Z"}}],
"prompts":[
{"name":"media-prompt","title":"Media prompt","description":"Messages of every content kind.","icons":[{"src":"https://example.com/icon.png","mimeType":"image/png","sizes":["48x48"]}],"arguments":[{"name":"topic","title":"Topic","description":"What about"}]}]}`,
		add: addTestClassic},

	// bridge: tools that need several rounds, url mode, or never stop
	// asking, for the classic bridge.
	"bridge": {wire: `{"tools":[
{"name":"two_rounds","description":"Asks for a name, then for a confirmation, then reports both."},
{"name":"login","description":"Sends the user to a URL."},
{"name":"forever","description":"Asks again after every answer."}]}`,
		add: addTestBridge},

	// mrtr: what the base part does not show of multi round-trip
	// requests: two rounds, url mode, several requests in one round,
	// capability-aware asking, handler state, a resource read that asks,
	// a bad form, and a completer that (wrongly) asks for input.
	"mrtr": {wire: `{"tools":[{"name":"two_rounds"},{"name":"sign_in"},{"name":"all_three"},{"name":"what_you_can"},{"name":"bad_form"},{"name":"same_name"}],
"resourceTemplates":[{"uriTemplate":"secret://{id}","name":"secret"}],
"prompts":[{"name":"same_name","arguments":[{"name":"q"}]}]}`,
		add: addTestMRTR},

	// fields: every field the registry API offers (fields_test.go).
	"fields": {title: "baremcp fields", wire: `{}`, add: addTestFields},

	// subscriptions: the conformance suite's two trigger tools and
	// watched resource (the triggers announce a change without making
	// one), and touch, which announces an update of any URI.
	"subscriptions": {wire: `{"tools":[
{"name":"test_trigger_tool_change","description":"Sends notifications/tools/list_changed to every subscription that asked for toolsListChanged.","inputSchema":{"type":"object","additionalProperties":false}},
{"name":"test_trigger_prompt_change","description":"Sends notifications/prompts/list_changed to every subscription that asked for promptsListChanged.","inputSchema":{"type":"object","additionalProperties":false}},
{"name":"touch","description":"Announces that uri was updated.","inputSchema":{"type":"object","properties":{"uri":{"type":"string"}},"required":["uri"]}}],
"resources":[
{"uri":"test://watched-resource","name":"watched-resource","description":"A resource clients may watch with resourceSubscriptions.","mimeType":"text/plain","text":"This is a watched resource."}]}`,
		add: addTestSubscriptions},
	// skills serves testSkillFiles (skills_test.go) under skills/, and the
	// generated skill reports/daily: every form the skills extension has
	// (a prefix, nesting, a binary file, a name with a space, "dynamic").
	"skills": {wire: `{}`, add: addTestSkills},

	// tasks: tools that run as tasks (tasks_test.go).
	"tasks": {wire: testTasksWire, add: addTestTasks},

	// http: tools whose arguments are mirrored into Mcp-Param headers,
	// and one that reports the caller's principal.
	"http": {wire: `{"tools":[
{"name":"hdr","description":"Mirrors arguments into Mcp-Param headers.","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"count":{"type":"integer","x-mcp-header":"Count"},"flag":{"type":"boolean","x-mcp-header":"Flag"},"loc":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}}}}},
{"name":"hv","description":"Validates its own arguments; still mirrors tenant.","inputSchema":{"type":"object","properties":{"tenant":{"type":"string","x-mcp-header":"Tenant"}},"anyOf":[{"required":["tenant"]}]},"handlerValidates":true},
{"name":"who","description":"Returns the principal."}]}`,
		add: addTestHTTP},
}

// testGates are the channels of the gate tool (withGates): a call reports
// its id on started, then returns "released" when it receives from
// release (or release is closed), or fails when its context ends,
// reporting the context's error on cancelled. Progress, when asked for,
// says "started" and, after the context ended, "after cancellation"
// (which must never reach the client).
type testGates struct {
	started   chan string
	cancelled chan error
	release   chan struct{}
}

// newTestGates returns gates with room for many calls.
func newTestGates() *testGates {
	return &testGates{started: make(chan string, 1024), cancelled: make(chan error, 1024), release: make(chan struct{})}
}

// testDefs are a part's wire definitions, by kind and name ("tool echo",
// "resource demo://readme", "template demo://items/{id}", "prompt greet");
// each is used once.
type testDefs struct {
	tb           testing.TB
	instructions string
	byName       map[string]testDef
}

// testDef is one wire definition.
type testDef struct {
	Name, Title, Description, URI, URITemplate, MimeType, Text string
	Size                                                       *int64
	Blob                                                       []byte
	InputSchema, OutputSchema, Annotations                     json.RawMessage
	Icons                                                      []icon
	Arguments                                                  []promptArgument
	TTLMs                                                      *int64
	CacheScope                                                 string
	HandlerValidates                                           bool
}

// mustRegisterTestSets registers the parts st names, then the gate tool.
func mustRegisterTestSets(tb testing.TB, s *server, st testSetup) {
	tb.Helper()
	if len(st.sets) == 1 && st.sets[0] == "product" {
		if stop := buildRegistry(s, st.getenv); stop != nil {
			tb.Cleanup(stop)
		}
		return
	}
	for _, name := range st.sets {
		set, ok := testRegistry[name]
		if !ok {
			tb.Fatalf("no part %q in the test registry", name)
		}
		var wire struct {
			Instructions                                 string
			Tools, Resources, ResourceTemplates, Prompts []testDef
		}
		if err := json.Unmarshal([]byte(set.wire), &wire); err != nil {
			tb.Fatalf("test registry %s: %v", name, err)
		}
		d := &testDefs{tb: tb, instructions: wire.Instructions, byName: map[string]testDef{}}
		for kind, list := range map[string][]testDef{"tool": wire.Tools, "resource": wire.Resources, "template": wire.ResourceTemplates, "prompt": wire.Prompts} {
			for _, def := range list {
				d.byName[kind+" "+cmp.Or(def.URITemplate, def.URI, def.Name)] = def
			}
		}
		if d.instructions != "" {
			s.instructions = d.instructions
		}
		set.add(s, d, st.gates)
		for key := range d.byName {
			tb.Fatalf("test registry %s: %s is defined but not registered", name, key)
		}
	}
	if st.gates != nil {
		s.addTool(tool{Name: "gate", Description: "Returns when released.", Call: st.gates.call})
	}
}

// take returns the definition of key and marks it used.
func (d *testDefs) take(key string) testDef {
	d.tb.Helper()
	def, ok := d.byName[key]
	if !ok {
		d.tb.Fatalf("test registry: no definition of %s", key)
	}
	delete(d.byName, key)
	return def
}

// mustJSONInto decodes an optional raw member into v.
func (d *testDefs) mustJSONInto(raw json.RawMessage, v any) {
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, v); err != nil {
			d.tb.Fatalf("test registry: %s: %v", raw, err)
		}
	}
}

// tool is the tool defined as name, calling call.
func (d *testDefs) tool(name string, call func(ctx context.Context, req *request) (*toolResult, error)) tool {
	def := d.take("tool " + name)
	t := tool{Name: def.Name, Title: def.Title, Description: def.Description, InputSchema: string(def.InputSchema),
		OutputSchema: string(def.OutputSchema), Icons: def.Icons, HandlerValidates: def.HandlerValidates, Call: call}
	if def.Annotations != nil {
		t.Annotations = &toolAnnotations{}
		d.mustJSONInto(def.Annotations, t.Annotations)
	}
	return t
}

// cache is a definition's cache hint, nil for the server's default.
func (def testDef) cache() *cacheHint {
	if def.TTLMs == nil {
		return nil
	}
	return &cacheHint{TTL: time.Duration(*def.TTLMs) * time.Millisecond, Scope: def.CacheScope}
}

// resource is the resource defined at uri; read nil serves its text or blob.
func (d *testDefs) resource(uri string, read resourceReader) resource {
	def := d.take("resource " + uri)
	r := resource{URI: def.URI, Name: def.Name, Title: def.Title, Description: def.Description, MimeType: def.MimeType,
		Size: def.Size, Icons: def.Icons, Text: def.Text, Blob: def.Blob, Read: read, Cache: def.cache()}
	if def.Annotations != nil {
		r.Annotations = &annotations{}
		d.mustJSONInto(def.Annotations, r.Annotations)
	}
	return r
}

// template is the template defined as uriTemplate, reading with read and
// completing its variables with complete.
func (d *testDefs) template(uriTemplate string, read resourceReader, complete map[string]completer) resourceTemplate {
	def := d.take("template " + uriTemplate)
	t := resourceTemplate{URITemplate: def.URITemplate, Name: def.Name, Title: def.Title, Description: def.Description,
		MimeType: def.MimeType, Icons: def.Icons, Read: read, Cache: def.cache(), Complete: complete}
	if def.Annotations != nil {
		t.Annotations = &annotations{}
		d.mustJSONInto(def.Annotations, t.Annotations)
	}
	return t
}

// prompt is the prompt defined as name, rendered by get, its arguments
// completed by complete (by argument name).
func (d *testDefs) prompt(name string, get func(ctx context.Context, req *request, args map[string]string) (*promptResult, error), complete map[string]completer) prompt {
	def := d.take("prompt " + name)
	for i, a := range def.Arguments {
		def.Arguments[i].Complete = complete[a.Name]
	}
	return prompt{Name: def.Name, Title: def.Title, Description: def.Description, Arguments: def.Arguments, Icons: def.Icons, Get: get}
}

// oneOf completes from values by case-insensitive prefix.
func oneOf(values ...string) completer {
	return func(ctx context.Context, prefix string, args map[string]string) ([]string, error) {
		return slices.DeleteFunc(slices.Clone(values), func(v string) bool {
			return !strings.HasPrefix(strings.ToLower(v), strings.ToLower(prefix))
		}), nil
	}
}

// text is a reader of one text contents.
func text(f func(uri string, vars map[string]string) string) resourceReader {
	return func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
		return []resourceContents{{URI: uri, Text: f(uri, vars)}}, nil
	}
}

// testSlowStep is how long each step of the slow tool takes.
const testSlowStep = 20 * time.Millisecond

// addTestBase registers the base part: the demo's items, answering as
// the demo answers.
func addTestBase(s *server, d *testDefs, _ *testGates) {
	s.addTool(d.tool("echo", func(ctx context.Context, req *request) (*toolResult, error) {
		return textResult(req.String("message")), nil
	}))
	s.addTool(d.tool("add", func(ctx context.Context, req *request) (*toolResult, error) {
		return structuredResult(map[string]float64{"sum": req.Number("a") + req.Number("b")})
	}))
	slow := d.tool("slow", func(ctx context.Context, req *request) (*toolResult, error) {
		n := req.Int("steps")
		for step := range n {
			req.Progress(float64(step+1), float64(n), fmt.Sprintf("step %d of %d", step+1, n))
			req.Log(levelInfo, fmt.Sprintf("starting step %d", step+1))
			if err := sleepCtx(ctx, testSlowStep); err != nil {
				return nil, err
			}
		}
		return textResult(fmt.Sprintf("done after %d steps", n)), nil
	})
	slow.Task = taskMay // as the demo's: a task for a client that declares the extension
	s.addTool(slow)
	s.addTool(d.tool("confirm_delete", func(ctx context.Context, req *request) (*toolResult, error) {
		path := req.String("path")
		switch a := req.Input("confirm"); {
		case a == nil:
			return nil, req.NeedInput(elicitForm("confirm", "Delete "+path+"?", `{"type":"object","properties":{"confirm":{"type":"boolean","title":"Delete","description":"Check to delete"}},"required":["confirm"]}`))
		case a.Bool("confirm"):
			return textResult("deleted " + path), nil
		}
		return textResult("kept " + path), nil
	}))
	s.addTool(d.tool("ask_model", func(ctx context.Context, req *request) (*toolResult, error) {
		if a := req.Input("answer"); a != nil {
			return textResult("model said: " + a.Text), nil
		}
		return nil, req.NeedInput(createMessage("answer", samplingRequest{Messages: userText(req.String("question")), MaxTokens: 200}))
	}))
	s.addTool(d.tool("list_roots", func(ctx context.Context, req *request) (*toolResult, error) {
		a := req.Input("roots")
		if a == nil {
			return nil, req.NeedInput(listRoots("roots"))
		}
		var uris []string
		for _, r := range a.Roots {
			uris = append(uris, r.URI)
		}
		if uris == nil {
			return textResult("no roots"), nil
		}
		return textResult(strings.Join(uris, "\n")), nil
	}))
	extra := d.tool("extra", func(ctx context.Context, req *request) (*toolResult, error) {
		return textResult("hello from the extra tool"), nil
	})
	var toggling sync.Mutex // guards whether extra is registered
	s.addTool(d.tool("toggle_extra_tool", func(ctx context.Context, req *request) (*toolResult, error) {
		toggling.Lock()
		defer toggling.Unlock()
		if !s.removeTool(extra.Name) {
			s.addTool(extra)
			return textResult("added the tool extra"), nil
		}
		return textResult("removed the tool extra"), nil
	}))
	s.addResource(d.resource("demo://readme", nil))
	s.addResource(d.resource("demo://logo", nil))
	s.addResource(d.resource("demo://clock", func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
		return []resourceContents{{URI: uri, MimeType: "text/plain", Text: time.Now().UTC().Format(time.RFC3339)}}, nil
	}))
	s.addTemplate(d.template("demo://items/{id}", func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
		return []resourceContents{{URI: uri, MimeType: "text/plain", Text: "item " + vars["id"]}}, nil
	}, map[string]completer{"id": oneOf("1", "2", "3", "42")}))
	s.addPrompt(d.prompt("greet", func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
		return &promptResult{Description: "A greeting", Messages: []promptMessage{{Role: "user", Content: textContent("Hello, " + args["name"] + "!")}}}, nil
	}, map[string]completer{"name": oneOf("Ada", "Alan", "Grace", "Linus")}))
	s.addPrompt(d.prompt("personal_greeting", func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
		a := req.Input("name")
		if a == nil {
			return nil, req.NeedInput(elicitForm("name", "What should I call you?", `{"type":"object","properties":{"name":{"type":"string","title":"Your name","minLength":1,"maxLength":100}},"required":["name"]}`))
		}
		greeting := "Hello there!" // declined or cancelled
		if a.Accepted() {
			greeting = "Hello, " + a.String("name") + "!"
		}
		return &promptResult{Description: "A personal greeting", Messages: []promptMessage{{Role: "user", Content: textContent(greeting)}}}, nil
	}, nil))
}

// sleepCtx waits for d or for ctx to end, whichever comes first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// testPNG is the content of the test image and blob blocks.
var testPNG = []byte{0x89, 'P', 'N', 'G'}

// addTestExtras registers the extras part.
func addTestExtras(s *server, d *testDefs, _ *testGates) {
	s.addTool(d.tool("kinds", func(ctx context.Context, req *request) (*toolResult, error) {
		return &toolResult{Content: []content{
			textContent("text block"),
			imageContent(testPNG, "image/png"),
			audioContent([]byte("RIFF"), "audio/wav"),
			linkContent(resourceLink{URI: "demo://readme", Name: "readme", MimeType: "text/plain"}),
			embeddedContent(resourceContents{URI: "demo://readme", MimeType: "text/plain", Text: "embedded text"}),
			embeddedContent(resourceContents{URI: "demo://logo", MimeType: "image/png", Blob: testPNG}),
		}}, nil
	}))
	s.addTool(d.tool("fail", func(ctx context.Context, req *request) (*toolResult, error) {
		return nil, errors.New("fail: the widget is jammed")
	}))
	s.addTool(d.tool("explode", func(ctx context.Context, req *request) (*toolResult, error) {
		panic("secret internal detail /etc/shadow")
	}))
	s.addTool(d.tool("levels", func(ctx context.Context, req *request) (*toolResult, error) {
		for l := levelDebug; l <= levelEmergency; l++ {
			req.Log(l, l.String())
		}
		req.Progress(1, 2, "half")
		req.Progress(1, 2, "not increasing: dropped")
		req.Progress(2, 2, "")
		return textResult("logged"), nil
	}))
	s.addTool(d.tool("typed", func(ctx context.Context, req *request) (*toolResult, error) {
		return textResult("ok " + req.String("s")), nil
	}))
	s.addResource(d.resource("demo://items/special", nil))
	s.addResource(d.resource("test://clock", text(func(string, map[string]string) string { return "tick" })))
	varsJSON := text(func(_ string, vars map[string]string) string {
		b, _ := json.Marshal(vars)
		return string(b)
	})
	s.addTemplate(d.template("test://{owner}/repos/{repo}", varsJSON, nil))
	s.addTemplate(d.template("test://files/{path}.json", varsJSON, nil))
	s.addPrompt(d.prompt("kinds", func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
		return &promptResult{Messages: []promptMessage{
			{Role: "user", Content: textContent("talk about " + args["topic"] + " tone=" + args["tone"])},
			{Role: "assistant", Content: imageContent(testPNG, "image/png")},
			{Role: "user", Content: embeddedContent(resourceContents{URI: "demo://readme", MimeType: "text/plain", Text: "embedded"})},
		}}, nil
	}, nil))
	s.addPrompt(d.prompt("many", func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
		return &promptResult{}, nil
	}, map[string]completer{
		"n": func(ctx context.Context, value string, args map[string]string) ([]string, error) {
			out := make([]string, 150)
			for i := range out {
				out[i] = fmt.Sprintf("%s%03d", value, i)
			}
			return out, nil
		},
		"echo": func(ctx context.Context, value string, args map[string]string) ([]string, error) {
			return []string{value + "|" + args["n"]}, nil
		},
	}))
}

// addTestClassic registers the classic part.
func addTestClassic(s *server, d *testDefs, _ *testGates) {
	const lastModified = "2025-01-02T03:04:05Z"
	kinds := []content{
		{Type: "text", Text: "annotated", Annotations: &annotations{Audience: []string{"user"}, LastModified: lastModified}},
		imageContent(testPNG, "image/png"),
		audioContent([]byte("RIFF"), "audio/wav"),
		linkContent(resourceLink{URI: "demo://readme", Name: "readme", Title: "About", Description: "The readme.", MimeType: "text/plain"}),
		{Type: "audio", Data: []byte("RIFF"), MimeType: "audio/wav", Annotations: &annotations{LastModified: lastModified}},
		embeddedContent(resourceContents{URI: "demo://readme", MimeType: "text/plain", Text: "embedded"}),
	}
	s.addTool(d.tool("media", func(ctx context.Context, req *request) (*toolResult, error) {
		return &toolResult{Content: kinds, StructuredContent: map[string]bool{"ok": true}}, nil
	}))
	s.addResource(d.resource("demo://titled", nil))
	s.addTemplate(d.template("demo://titled/{id}", func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
		return []resourceContents{{URI: uri, MimeType: "text/plain", Text: "titled " + vars["id"]}}, nil
	}, nil))
	s.addPrompt(d.prompt("media-prompt", func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
		msgs := make([]promptMessage, len(kinds))
		for i, k := range kinds {
			msgs[i] = promptMessage{Role: "user", Content: k}
		}
		return &promptResult{Messages: msgs}, nil
	}, nil))
}

// addTestBridge registers the bridge part.
func addTestBridge(s *server, d *testDefs, _ *testGates) {
	s.addTool(d.tool("two_rounds", func(ctx context.Context, req *request) (*toolResult, error) {
		name, ok := req.Input("name"), req.Input("ok")
		switch {
		case name == nil:
			return nil, req.NeedInput(elicitForm("name", "Name?", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)).WithState("r1")
		case ok == nil:
			return nil, req.NeedInput(elicitForm("ok", "Sure?", `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)).WithState(req.State() + "r2")
		}
		return textResult(name.String("name") + " " + ok.Action + " " + req.State()), nil
	}))
	s.addTool(d.tool("login", func(ctx context.Context, req *request) (*toolResult, error) {
		if a := req.Input("login"); a != nil {
			return textResult("login " + a.Action), nil
		}
		return nil, req.NeedInput(elicitURL("login", "Sign in", "https://example.com/login"))
	}))
	s.addTool(d.tool("forever", func(ctx context.Context, req *request) (*toolResult, error) {
		return nil, req.NeedInput(listRoots("again"))
	}))
}

// addTestMRTR registers the mrtr part.
func addTestMRTR(s *server, d *testDefs, _ *testGates) {
	s.addTool(d.tool("two_rounds", func(ctx context.Context, req *request) (*toolResult, error) {
		name, color := req.Input("name"), req.Input("color")
		switch {
		case name == nil:
			return nil, req.NeedInput(elicitForm("name", "Step 1: What is your name?",
				`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)).WithState("step1")
		case color == nil:
			return nil, req.NeedInput(elicitForm("color", "Step 2: What is your favorite color?",
				`{"type":"object","properties":{"color":{"type":"string","enum":["red","blue"]}},"required":["color"]}`)).WithState("step2")
		}
		return textResult(fmt.Sprintf("%s likes %s (state %s)", name.String("name"), color.String("color"), req.State())), nil
	}))
	s.addTool(d.tool("sign_in", func(ctx context.Context, req *request) (*toolResult, error) {
		if a := req.Input("login"); a != nil {
			return textResult("login " + a.Action), nil
		}
		return nil, req.NeedInput(elicitURL("login", "Sign in to continue", "https://example.com/connect?req=1"))
	}))
	s.addTool(d.tool("all_three", func(ctx context.Context, req *request) (*toolResult, error) {
		name, model, roots := req.Input("user_name"), req.Input("greeting"), req.Input("client_roots")
		if name == nil || model == nil || roots == nil {
			return nil, req.NeedInput(
				elicitForm("user_name", "What is your name?", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
				createMessage("greeting", samplingRequest{Messages: userText("Generate a greeting"), MaxTokens: 50}),
				listRoots("client_roots"),
			)
		}
		return textResult(fmt.Sprintf("%s/%s/%d roots", name.String("name"), model.Text, len(roots.Roots))), nil
	}))
	s.addTool(d.tool("what_you_can", func(ctx context.Context, req *request) (*toolResult, error) {
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
	}))
	s.addTool(d.tool("bad_form", func(ctx context.Context, req *request) (*toolResult, error) {
		return nil, req.NeedInput(elicitForm("x", "Nested?", `{"type":"object","properties":{"x":{"type":"object"}}}`))
	}))
	askOK := elicitForm("ok", "OK?", `{"type":"object","properties":{"ok":{"type":"boolean"}}}`)
	s.addTool(d.tool("same_name", func(ctx context.Context, req *request) (*toolResult, error) {
		if req.Input("ok") == nil {
			return nil, req.NeedInput(askOK)
		}
		return textResult("ok"), nil
	}))
	s.addTemplate(d.template("secret://{id}", func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
		a := req.Input("why")
		if a == nil {
			return nil, req.NeedInput(elicitForm("why", "Why do you need "+uri+"?",
				`{"type":"object","properties":{"reason":{"type":"string","minLength":3}},"required":["reason"]}`))
		}
		return []resourceContents{{URI: uri, Text: "secret " + vars["id"] + " for " + a.String("reason")}}, nil
	}, nil))
	s.addPrompt(d.prompt("same_name", func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
		if req.Input("ok") == nil {
			return nil, req.NeedInput(askOK)
		}
		return &promptResult{Messages: []promptMessage{{Role: "user", Content: textContent("ok")}}}, nil
	}, map[string]completer{"q": func(ctx context.Context, value string, args map[string]string) ([]string, error) {
		return nil, &inputRequired{requests: []inputRequest{listRoots("r")}}
	}}))
}

// addTestSubscriptions registers the subscriptions part.
func addTestSubscriptions(s *server, d *testDefs, _ *testGates) {
	for _, tr := range []struct {
		name, list string
		kind       noticeKind
	}{{"test_trigger_tool_change", "tools", noticeToolsListChanged}, {"test_trigger_prompt_change", "prompts", noticePromptsListChanged}} {
		s.addTool(d.tool(tr.name, func(ctx context.Context, req *request) (*toolResult, error) {
			s.listChanged(tr.kind)
			return textResult("sent notifications/" + tr.list + "/list_changed"), nil
		}))
	}
	s.addTool(d.tool("touch", func(ctx context.Context, req *request) (*toolResult, error) {
		s.resourceUpdated(req.String("uri"))
		return textResult("touched"), nil
	}))
	s.addResource(d.resource("test://watched-resource", nil))
}

// addTestSkills registers the skills part.
func addTestSkills(s *server, _ *testDefs, _ *testGates) {
	s.addSkills(testSkillFiles(), "skills")
	s.addGeneratedSkill(generatedSkill{
		Path:        "reports/daily",
		Frontmatter: "name: daily\ndescription: Today's report, written when read.",
		Body: func(ctx context.Context, req *request) (string, error) {
			return "# Daily report\n\nNothing happened today.\n", nil
		},
	})
}

// addTestHTTP registers the http part.
func addTestHTTP(s *server, d *testDefs, _ *testGates) {
	ok := func(ctx context.Context, req *request) (*toolResult, error) { return textResult("ok"), nil }
	s.addTool(d.tool("hdr", ok))
	s.addTool(d.tool("hv", ok))
	s.addTool(d.tool("who", func(ctx context.Context, req *request) (*toolResult, error) {
		return textResult("principal=" + req.caller.principal), nil
	}))
}

// call is the gate tool.
func (g *testGates) call(ctx context.Context, req *request) (*toolResult, error) {
	req.Progress(1, 0, "started")
	g.started <- string(req.id)
	select {
	case <-g.release:
		return textResult("released"), nil
	case <-ctx.Done():
		g.cancelled <- ctx.Err()
		req.Progress(2, 0, "after cancellation")
		return nil, fmt.Errorf("gate gave up: %w", ctx.Err())
	}
}

func TestRegistrationPanics(t *testing.T) {
	noop := func(ctx context.Context, req *request) (*toolResult, error) { return nil, nil }
	read := func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
		return nil, nil
	}
	get := func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
		return nil, nil
	}
	for _, tt := range []struct {
		name     string
		register func(s *server)
	}{
		{"tool without name", func(s *server) { s.addTool(tool{Call: noop}) }},
		{"tool name with space", func(s *server) { s.addTool(tool{Name: "a b", Call: noop}) }},
		{"tool without Call", func(s *server) { s.addTool(tool{Name: "t"}) }},
		{"duplicate tool", func(s *server) { s.addTool(tool{Name: "t", Call: noop}); s.addTool(tool{Name: "t", Call: noop}) }},
		{"schema not JSON", func(s *server) { s.addTool(tool{Name: "t", Call: noop, InputSchema: `{`}) }},
		{"schema not an object type", func(s *server) { s.addTool(tool{Name: "t", Call: noop, InputSchema: `{"type":"string"}`}) }},
		{"unenforceable schema", func(s *server) {
			s.addTool(tool{Name: "t", Call: noop, InputSchema: `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"}]}}}`})
		}},
		{"resource without name", func(s *server) { s.addResource(resource{URI: "x://a"}) }},
		{"duplicate resource", func(s *server) {
			s.addResource(resource{URI: "x://a", Name: "a"})
			s.addResource(resource{URI: "x://a", Name: "b"})
		}},
		{"template without variables", func(s *server) { s.addTemplate(resourceTemplate{URITemplate: "x://a", Name: "a", Read: read}) }},
		{"template with adjacent variables", func(s *server) { s.addTemplate(resourceTemplate{URITemplate: "x://{a}{b}", Name: "a", Read: read}) }},
		{"template with an operator", func(s *server) { s.addTemplate(resourceTemplate{URITemplate: "x://{+a}", Name: "a", Read: read}) }},
		{"template without Read", func(s *server) { s.addTemplate(resourceTemplate{URITemplate: "x://{a}", Name: "a"}) }},
		{"completer for an unknown variable", func(s *server) {
			s.addTemplate(resourceTemplate{URITemplate: "x://{a}", Name: "a", Read: read, Complete: map[string]completer{"b": nil}})
		}},
		{"prompt without Get", func(s *server) { s.addPrompt(prompt{Name: "p"}) }},
		{"prompt with duplicate argument", func(s *server) {
			s.addPrompt(prompt{Name: "p", Get: get, Arguments: []promptArgument{{Name: "a"}, {Name: "a"}}})
		}},
		{"duplicate prompt", func(s *server) { s.addPrompt(prompt{Name: "p", Get: get}); s.addPrompt(prompt{Name: "p", Get: get}) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withRegistry())
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registration did not panic", tt.name)
				}
			}()
			tt.register(s)
		})
	}
	t.Run("unenforceable schema accepted with HandlerValidates", func(t *testing.T) {
		s := newTestServer(t, withRegistry())
		s.addTool(tool{Name: "t", Call: noop, HandlerValidates: true, InputSchema: `{"type":"object","anyOf":[{"required":["a"]}]}`})
	})
}

func TestPagination(t *testing.T) {
	for _, kind := range []struct{ method, member, key string }{
		{"tools/list", "tools", "name"},
		{"resources/list", "resources", "uri"},
		{"resources/templates/list", "resourceTemplates", "uriTemplate"},
		{"prompts/list", "prompts", "name"},
	} {
		t.Run(kind.method, func(t *testing.T) {
			all := newTestServer(t, withRegistry("base", "extras"))
			want := listNames(t, mustServeOne(t, all, req("1", kind.method, "")), kind.member, kind.key)
			s := newTestServer(t, withRegistry("base", "extras"), withFlags("-page-size", "2"))
			c := newTestConn(t, s)
			var got []string
			cursor := ""
			for page := 0; ; page++ {
				if page > len(want) {
					t.Fatalf("%s: more pages than items", kind.method)
				}
				params := ""
				if cursor != "" {
					params = `"cursor":"` + cursor + `"`
				}
				c.send(req(fmt.Sprint(page), kind.method, params))
				line := c.recv()
				names := listNames(t, line, kind.member, kind.key)
				if len(names) == 0 || len(names) > 2 {
					t.Fatalf("%s page %d has %d items: %s", kind.method, page, len(names), line)
				}
				got = append(got, names...)
				next, _ := jsonPath(mustDecode(t, line), "result.nextCursor").(string)
				if next == "" {
					break
				}
				cursor = next
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s pages = %q, want %q", kind.method, got, want)
			}
		})
	}
	for _, tt := range []struct{ name, cursor string }{
		{"garbage", `"%%%"`},
		{"empty", `""`},
		{"zero offset", `"MA"`},
		{"negative offset", `"LTE"`},
		{"past the end", `"OTk5"`},
		{"too long", `"` + strings.Repeat("M", 100) + `"`},
		{"not a string", `3`},
		{"an object", `{}`},
	} {
		t.Run("invalid cursor "+tt.name, func(t *testing.T) {
			s := newTestServer(t, withRegistry("base", "extras"), withFlags("-page-size", "2"))
			got := mustServeOne(t, s, req("1", "tools/list", `"cursor":`+tt.cursor))
			if errorCode(t, got) != codeInvalidParams {
				t.Errorf("tools/list cursor %s = %s, want -32602", tt.cursor, got)
			}
		})
	}
	t.Run("null cursor is the first page", func(t *testing.T) {
		s := newTestServer(t, withFlags("-page-size", "2"))
		got := mustServeOne(t, s, req("1", "tools/list", `"cursor":null`))
		if errorCode(t, got) != 0 || !strings.Contains(got, `"nextCursor"`) {
			t.Errorf("tools/list cursor null = %s, want the first page", got)
		}
	})
}

// listNames returns the key member of each item of a list result.
func listNames(tb testing.TB, line, member, key string) []string {
	tb.Helper()
	items, _ := jsonPath(mustDecode(tb, line), "result."+member).([]any)
	var out []string
	for _, it := range items {
		s, _ := jsonPath(it, key).(string)
		out = append(out, s)
	}
	return out
}

// TestRegistryChangesPublish checks that each registry change announces
// exactly the list it changed, and nothing when nothing changed.
func TestRegistryChangesPublish(t *testing.T) {
	noop := func(ctx context.Context, req *request) (*toolResult, error) { return textResult(""), nil }
	read := func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
		return nil, nil
	}
	for _, tt := range []struct {
		name   string
		change func(s *server)
		want   []notice
	}{
		{"addTool", func(s *server) { s.addTool(tool{Name: "t2", Call: noop}) }, []notice{{kind: noticeToolsListChanged}}},
		{"removeTool", func(s *server) { s.removeTool("t1") }, []notice{{kind: noticeToolsListChanged}}},
		{"removeTool of an unknown tool", func(s *server) { s.removeTool("nope") }, nil},
		{"addPrompt", func(s *server) {
			s.addPrompt(prompt{Name: "p2", Get: func(context.Context, *request, map[string]string) (*promptResult, error) { return nil, nil }})
		}, []notice{{kind: noticePromptsListChanged}}},
		{"removePrompt", func(s *server) { s.removePrompt("p1") }, []notice{{kind: noticePromptsListChanged}}},
		{"addResource", func(s *server) { s.addResource(resource{URI: "a://2", Name: "r2"}) }, []notice{{kind: noticeResourcesListChanged}}},
		{"removeResource", func(s *server) { s.removeResource("a://1") }, []notice{{kind: noticeResourcesListChanged}}},
		{"addTemplate", func(s *server) { s.addTemplate(resourceTemplate{URITemplate: "a://t2/{x}", Name: "t2", Read: read}) },
			[]notice{{kind: noticeResourcesListChanged}}},
		{"removeTemplate", func(s *server) { s.removeTemplate("a://t/{x}") }, []notice{{kind: noticeResourcesListChanged}}},
		{"removeTemplate of an unknown template", func(s *server) { s.removeTemplate("a://none/{x}") }, nil},
		{"resourceUpdated", func(s *server) { s.resourceUpdated("a://1") }, []notice{{kind: noticeResourceUpdated, uri: "a://1"}}},
		{"resourceUpdated of an unwatched URI", func(s *server) { s.resourceUpdated("a://9") }, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withRegistry())
			s.addTool(tool{Name: "t1", Call: noop})
			s.addPrompt(prompt{Name: "p1", Get: func(context.Context, *request, map[string]string) (*promptResult, error) { return nil, nil }})
			s.addResource(resource{URI: "a://1", Name: "r1"})
			s.addTemplate(resourceTemplate{URITemplate: "a://t/{x}", Name: "t", Read: read})
			sub, rerr := s.subs.open([]byte("1"), subscriptionFilter{tools: true, prompts: true, resources: true, uris: []string{"a://1"}}, "")
			if rerr != nil {
				t.Fatal(rerr)
			}
			defer s.subs.close(sub)
			tt.change(s)
			if got := s.subs.take(sub); !slices.Equal(got, tt.want) {
				t.Errorf("%s published %v, want %v", tt.name, got, tt.want)
			}
		})
	}
}

// TestRegistryChurnUnderLoad changes the tool registry while tools/list,
// tools/call and a subscription run on the stdio loop; -race checks the
// copy-on-write registry and the hub, and every tools/list must show a
// whole snapshot in registration order.
func TestRegistryChurnUnderLoad(t *testing.T) {
	s := newTestServer(t, withRegistry("base", "subscriptions"))
	static := toolNames(t, s.registry())
	p := newTestServeConn(t, s.serveStdio)
	defer p.finish()
	p.send(subExpand(listenTools))
	if got, want := p.recv(), subExpand(ackTools1); got != want {
		t.Fatalf("ack = %s, want %s", got, want)
	}

	const rounds = 200
	var churn sync.WaitGroup
	churn.Go(func() {
		for i := range rounds {
			name := fmt.Sprintf("dyn%d", i%7)
			if !s.removeTool(name) {
				s.addTool(tool{Name: name, Description: "churn", Call: func(ctx context.Context, req *request) (*toolResult, error) {
					return textResult(name), nil
				}})
			}
		}
	})
	churn.Go(func() { // writes only: t.Fatal belongs to the test goroutine
		for i := range rounds {
			var line string
			switch i % 3 {
			case 0:
				line = fmt.Sprintf(`{"jsonrpc":"2.0","id":"l%d","method":"tools/list","params":{$M}}`, i)
			case 1:
				line = fmt.Sprintf(`{"jsonrpc":"2.0","id":"c%d","method":"tools/call","params":{$M,"name":"echo","arguments":{"message":"hi"}}}`, i)
			default:
				line = fmt.Sprintf(`{"jsonrpc":"2.0","id":"t%d","method":"tools/call","params":{$M,"name":"toggle_extra_tool"}}`, i)
			}
			p.send(subExpand(line))
		}
	})

	changed := 0
	for answered := 0; answered < rounds; {
		line := p.recv()
		var msg struct {
			ID     string          `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("unreadable line %s: %v", line, err)
		}
		switch {
		case msg.Method == methodToolsListChanged:
			changed++
			continue
		case msg.Error != nil:
			t.Fatalf("error response %s", line)
		case strings.HasPrefix(msg.ID, "l"):
			var list struct {
				Tools []struct{ Name string } `json:"tools"`
			}
			if err := json.Unmarshal(msg.Result, &list); err != nil {
				t.Fatalf("tools/list result %s: %v", msg.Result, err)
			}
			var names []string
			for _, tl := range list.Tools {
				names = append(names, tl.Name)
			}
			if len(names) < len(static) || !slices.Equal(names[:len(static)], static) {
				t.Fatalf("tools/list %q does not start with the static tools %q", names, static)
			}
			seen := map[string]bool{}
			for _, n := range names {
				if seen[n] {
					t.Fatalf("tools/list %q lists %s twice", names, n)
				}
				seen[n] = true
			}
		case strings.HasPrefix(msg.ID, "c"):
			if !strings.Contains(string(msg.Result), `"text":"hi"`) {
				t.Fatalf("echo result %s", msg.Result)
			}
		}
		answered++
	}
	churn.Wait()
	p.closeInput()
	// The subscription's writer runs apart from the requests, so the last
	// notices may come after the last response: count them too.
	for _, l := range p.drain() {
		switch l {
		case subExpand(toolsChanged1):
			changed++
		case subExpand(closure1), subExpand(closed1):
		default:
			t.Errorf("unexpected line at EOF: %s", l)
		}
	}
	if changed == 0 {
		t.Error("no tools/list_changed reached the subscription")
	}
	if err := p.finish(); err != nil {
		t.Errorf("serveStdio = %v, want nil", err)
	}
}

// toolNames returns the names of reg's tools in order.
func toolNames(t testing.TB, reg *registry) []string {
	t.Helper()
	var names []string
	for _, tl := range reg.tools {
		names = append(names, tl.Name)
	}
	return names
}

// TestListPageTwoParts: a page of a list is answered as the response up
// to its id and a tail encoded once for the page (encodeResult); the two
// together are byte for byte the response encoded whole, for every
// version's shape, any id, and each page of a paginated list; and dispatch,
// whose transports write one line, joins them.
func TestListPageTwoParts(t *testing.T) {
	s := newTestServer(t, withRegistry("base", "extras"), withFlags("-page-size", "2"))
	reg := s.snapshot(&request{})
	for _, version := range append([]string{version20260728}, classicVersions...) {
		for _, cursor := range []string{"", encodeCursor(2)} {
			for _, id := range []string{`1`, `"a\"b\u00e9"`, `-7e3`} {
				page, rerr := reg.page("tools", version, cursor, s.pageSize)
				if rerr != nil {
					t.Fatalf("page(tools, %s, %q) = %v", version, cursor, rerr)
				}
				for range 2 { // the tail is made once, then reused
					parts, err := s.encodeResult([]byte(id), result{body: page, cache: &s.cache}, version)
					if err != nil || len(parts) != 2 || &parts[1][0] != &page.tail[0] {
						t.Fatalf("encodeResult(page) = %d pieces, %v; want the head and the page's tail", len(parts), err)
					}
					whole, err := s.encodeResult([]byte(id), result{body: json.RawMessage(page.body), cache: &s.cache}, version)
					if err != nil || len(whole) != 1 {
						t.Fatalf("encodeResult(body) = %d pieces, %v; want one", len(whole), err)
					}
					if got := string(parts.join()); got != string(whole[0]) {
						t.Errorf("%s, cursor %q, id %s: in two parts\n%s\nwant\n%s", version, cursor, id, got, whole[0])
					}
				}
			}
		}
	}
	got := dispatchLine(t, s, req("9", "tools/list", ""))
	if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":9,"result":{"resultType":"complete","tools":[`) || !strings.HasSuffix(got, "}}\n") {
		t.Errorf("dispatch of tools/list = %s, want the whole response", got)
	}
}
