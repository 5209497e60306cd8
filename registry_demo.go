//go:build demo || !(conformance || bench)

// The demo registry: what the product binary serves, one small example of each feature
// (tools that answer at once, report progress, ask the user, the model or the client's
// roots, and change the registry; an MCP App; resources, a template and prompts with
// completion), written to be read and replaced: copy a block and change the names.
//
// Each build's registry defines buildRegistry, which run calls: this file in the default
// build, registry_conformance.go and registry_bench.go in theirs (-tags conformance, bench).
// To make the server yours (README, "Make it yours"): change the build line above to
// "//go:build demo" (the demo leaves the product binary; "go build -tags demo" still builds
// it for the checks that drive its tools), and put your registry in a file of its own that
// starts with "//go:build !(demo || conformance || bench)" and defines buildRegistry.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/server

package main

import (
	"context"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
)

// demoInstructions tells a model what the demo server is for, after s.info.Name (tests see theirs).
const demoInstructions = " demo server: echo and add are instant; slow reports progress; " +
	"confirm_delete, ask_model and list_roots ask the client for input (elicitation, sampling, roots); " +
	"toggle_extra_tool adds or removes the tool extra; " +
	"resources demo://readme, demo://logo and demo://clock (updated every few seconds), template demo://items/{id}; " +
	"prompts greet and personal_greeting; the skill " + demoSkillURI + " explains how to use them together."

// demoSkillURI is the demo's skill (skills/demo-tools), which its instructions point to:
// a host confirms it with skills/get and reads it with resources/read.
// [Skills, §Pointer from Server Instructions]: https://github.com/modelcontextprotocol/ext-skills/blob/main/specification/stable/skills.mdx#pointer-from-server-instructions
const demoSkillURI = "skill://demo-tools/SKILL.md"

// demoSkills is the demo's one skill, a SKILL.md and a reference file,
// served with the skills extension (skills.go) and as skill:// resources.
//
//go:embed skills/demo-tools
var demoSkills embed.FS

// tallyViewURI is the tally tool's MCP App view.
const tallyViewURI = "ui://demo/tally.html"

// tallyView is the tally tool's view: plain HTML and script, no build step. It speaks
// JSON-RPC 2.0 with its host over postMessage, as the MCP Apps extension specifies
// (ui/initialize, ui/notifications/initialized), shows the count of each
// ui/notifications/tool-result, and its button sends tools/call, which the host relays
// here. harness/apps renders it in headless Chromium through the official host bridge.
// [MCP Apps]: https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx
const tallyView = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Tally</title>
<style>
body { font-family: var(--font-sans, system-ui, sans-serif); color: var(--color-text-primary, #171717); margin: 12px; }
output { font-size: 2em; font-weight: bold; }
button { font: inherit; padding: 4px 12px; }
</style>
</head>
<body>
<p>Count: <output id="count">-</output></p>
<button id="more" disabled>Add one</button>
<p id="status" role="status"></p>
<script>
"use strict";
let nextId = 1;
let count = 0;
const pending = new Map();
const host = window.parent;

function request(method, params) {
  const id = nextId++;
  host.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

function show(result) {
  const n = result && result.structuredContent && result.structuredContent.count;
  if (typeof n === "number") {
    count = n;
    document.getElementById("count").textContent = String(n);
  }
}

window.addEventListener("message", (event) => {
  const msg = event.data;
  if (event.source !== host || !msg || msg.jsonrpc !== "2.0") return;
  if (msg.method === undefined) {
    const p = pending.get(msg.id);
    if (p) {
      pending.delete(msg.id);
      if (msg.error) p.reject(new Error(msg.error.message));
      else p.resolve(msg.result);
    }
  } else if (msg.method === "ui/notifications/tool-result") {
    show(msg.params);
  } else if (msg.id !== undefined) {
    // ping, ui/resource-teardown: nothing to do but answer.
    host.postMessage({ jsonrpc: "2.0", id: msg.id, result: {} }, "*");
  }
});

document.getElementById("more").addEventListener("click", async () => {
  const status = document.getElementById("status");
  status.textContent = "asking the server...";
  try {
    show(await request("tools/call", { name: "tally", arguments: { count } }));
    status.textContent = "";
  } catch (e) {
    status.textContent = "failed: " + e.message;
  }
});

request("ui/initialize", {
  protocolVersion: "2026-01-26",
  appInfo: { name: "tally", version: "1" },
  appCapabilities: {},
}).then(() => {
  host.postMessage({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} }, "*");
  document.getElementById("more").disabled = false;
});
</script>
</body>
</html>
`

// demoLogoPNG is a 1×1 PNG, small enough to read in a transcript.
const demoLogoPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// slowStep is how long each step of the slow tool takes.
const slowStep = 20 * time.Millisecond

// demoClockInterval is how often demo://clock announces an update to its subscriptions.
const demoClockInterval = 5 * time.Second

// buildRegistry fills s with what this build serves and starts its background work; run calls
// it once, before serving, and stop when serving ends. getenv is run's (the demo reads none).
func buildRegistry(s *server, getenv func(string) string) (stop func()) { return registerDemo(s) }

// registerDemo adds the demo tools, resources, template and prompts to s, and starts the
// demo://clock ticker; stop ends it and returns once its goroutine has.
func registerDemo(s *server) (stop func()) {
	s.setInstructions(s.info.Name + demoInstructions)

	s.addTool(tool{
		Name:        "echo",
		Description: "Returns the message it is given.",
		InputSchema: `{"type":"object","properties":{"message":{"type":"string","description":"Text to echo back"}},"required":["message"],"additionalProperties":false}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			return textResult(req.String("message")), nil
		},
	})

	s.addTool(tool{
		Name:         "add",
		Title:        "Add two numbers",
		Description:  "Adds a and b and returns the sum as structured content.",
		InputSchema:  `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false}`,
		OutputSchema: `{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`,
		Annotations:  &toolAnnotations{ReadOnlyHint: new(true), IdempotentHint: new(true)},
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			sum := req.Number("a") + req.Number("b")
			if math.IsInf(sum, 0) {
				// Finite numbers may sum past a float's range: say so in words the model can act on.
				return nil, errors.New("the sum is out of range: it is beyond about 1.8e308 in magnitude")
			}
			return structuredResult(map[string]float64{"sum": sum})
		},
	})

	s.addTool(tool{
		Name:        "slow",
		Description: "Works for the given number of steps, reporting progress and logging each one.",
		InputSchema: `{"type":"object","properties":{"steps":{"type":"integer","minimum":1,"maximum":100}},"required":["steps"],"additionalProperties":false}`,
		// A client that declares the tasks extension gets a task it polls (tasks/get); the
		// others get the result on the request, with progress. In a task Progress and Log do nothing.
		Task: taskMay,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			steps := req.Int("steps")
			for i := int64(1); i <= steps; i++ {
				// Report a step before working on it, so a pause always separates the last
				// notification from the response (a client reading both in one chunk may drop it).
				req.Progress(float64(i), float64(steps), fmt.Sprintf("step %d of %d", i, steps))
				req.Log(levelInfo, fmt.Sprintf("starting step %d", i))
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(slowStep):
				}
			}
			return textResult(fmt.Sprintf("done after %d steps", steps)), nil
		},
	})

	// confirm_delete asks the user, through a form, before acting. Nothing is deleted.
	s.addTool(tool{
		Name:        "confirm_delete",
		Description: "Asks the user to confirm before (pretending to) delete a path.",
		InputSchema: `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`,
		Annotations: &toolAnnotations{DestructiveHint: new(true)},
		// With the tasks extension declared the same handler runs as a task that waits in
		// input_required until tasks/update brings the answer; otherwise it asks on the request.
		Task: taskMay,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			path := req.String("path")
			answer := req.Input("confirm")
			if answer == nil {
				return nil, req.NeedInput(elicitForm("confirm", "Delete "+path+"?",
					`{"type":"object","properties":{"confirm":{"type":"boolean","title":"Delete","description":"Check to delete"}},"required":["confirm"]}`))
			}
			if answer.Bool("confirm") { // false unless accepted with confirm: true
				return textResult("deleted " + path), nil
			}
			return textResult("kept " + path), nil
		},
	})

	// ask_model asks the client's model a question (sampling).
	s.addTool(tool{
		Name:        "ask_model",
		Description: "Asks the client's language model a question and returns its answer.",
		InputSchema: `{"type":"object","properties":{"question":{"type":"string"}},"required":["question"],"additionalProperties":false}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			answer := req.Input("answer")
			if answer == nil {
				return nil, req.NeedInput(createMessage("answer", samplingRequest{
					Messages:  userText(req.String("question")),
					MaxTokens: 200,
				}))
			}
			return textResult("model said: " + answer.Text), nil
		},
	})

	// list_roots shows the client's roots, one URI per line.
	s.addTool(tool{
		Name:        "list_roots",
		Description: "Lists the client's roots.",
		Annotations: &toolAnnotations{ReadOnlyHint: new(true)},
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			answer := req.Input("roots")
			if answer == nil {
				return nil, req.NeedInput(listRoots("roots"))
			}
			if len(answer.Roots) == 0 {
				return textResult("no roots"), nil
			}
			uris := make([]string, len(answer.Roots))
			for i, r := range answer.Roots {
				uris[i] = r.URI
			}
			return textResult(strings.Join(uris, "\n")), nil
		},
	})

	// toggle_extra_tool changes the registry at run time: toolsListChanged subscribers are told.
	extra := tool{
		Name:        "extra",
		Description: "Appears and disappears with toggle_extra_tool.",
		InputSchema: `{"type":"object","additionalProperties":false}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			return textResult("hello from the extra tool"), nil
		},
	}
	var toggleMu sync.Mutex // guards whether extra is registered: remove-or-add is one step
	s.addTool(tool{
		Name:        "toggle_extra_tool",
		Description: "Adds the tool extra, or removes it when present.",
		InputSchema: `{"type":"object","additionalProperties":false}`,
		// Changing the server for everyone is an administrator's act: with authorization on
		// (-oauth-issuer, or -token-file with scopes) the caller needs this scope; else no one does.
		Scopes: []string{"demo:admin"},
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			toggleMu.Lock()
			defer toggleMu.Unlock()
			if s.removeTool(extra.Name) {
				return textResult("removed the tool extra"), nil
			}
			s.addTool(extra)
			return textResult("added the tool extra"), nil
		},
	})

	// tally is an MCP App (apps.go): a host that renders apps shows its result with the view
	// at tallyViewURI, whose button calls tally again through the host; any other client
	// reads the text. To drop the app, delete this tool and the resource after it.
	s.addTool(tool{
		Name:         "tally",
		Title:        "Tally counter",
		Description:  "Adds one to count and returns the new count; an MCP Apps host shows it with a button that counts on.",
		InputSchema:  `{"type":"object","properties":{"count":{"type":"integer","minimum":0,"maximum":1000000}},"additionalProperties":false}`,
		OutputSchema: `{"type":"object","properties":{"count":{"type":"integer"}},"required":["count"]}`,
		Annotations:  &toolAnnotations{ReadOnlyHint: new(true), IdempotentHint: new(true)},
		Meta:         map[string]any{"ui": map[string]any{"resourceUri": tallyViewURI}},
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			n := req.Int("count") + 1
			r, err := structuredResult(map[string]any{"count": n})
			if err == nil {
				r.Content = append([]content{textContent(fmt.Sprintf("count is %d", n))}, r.Content...)
			}
			return r, err
		},
	})
	s.addResource(resource{
		URI:         tallyViewURI,
		Name:        "tally-view",
		Title:       "Tally counter view",
		Description: "The MCP App view of the tally tool.",
		MimeType:    mimeTypeApp,
		Text:        tallyView,
		// The view loads nothing from elsewhere: no CSP domains, hosts apply their default.
		Meta: map[string]any{"ui": map[string]any{"prefersBorder": true}},
	})

	s.addResource(resource{
		URI:         "demo://readme",
		Name:        "readme",
		Title:       "About this server",
		Description: "A short text resource.",
		MimeType:    "text/plain",
		Text:        s.info.Name + " is a Model Context Protocol server in one dependency-free Go binary.\n",
	})

	logo, err := base64.StdEncoding.DecodeString(demoLogoPNG)
	if err != nil {
		panic("registerDemo: logo: " + err.Error())
	}
	s.addResource(resource{
		URI:         "demo://logo",
		Name:        "logo",
		Description: "A tiny PNG, served as a blob.",
		MimeType:    "image/png",
		Blob:        logo,
	})

	s.addResource(resource{
		URI:         "demo://clock",
		Name:        "clock",
		Description: "The server's UTC time; subscribers are told every few seconds that it changed.",
		MimeType:    "text/plain",
		Cache:       &cacheHint{TTL: 0, Scope: scopePublic},
		Read: func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
			return []resourceContents{{URI: uri, MimeType: "text/plain", Text: time.Now().UTC().Format(time.RFC3339)}}, nil
		},
	})

	s.addTemplate(resourceTemplate{
		URITemplate: "demo://items/{id}",
		Name:        "item",
		Description: "One item by id; read demo://items/42 for item 42.",
		MimeType:    "text/plain",
		// Items are made at read time: tell clients not to cache them.
		Cache: &cacheHint{TTL: 0, Scope: scopePublic},
		Read: func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
			return []resourceContents{{URI: uri, MimeType: "text/plain", Text: "item " + vars["id"]}}, nil
		},
		Complete: map[string]completer{"id": prefixCompleter("1", "2", "3", "42")},
	})

	s.addPrompt(prompt{
		Name:        "greet",
		Title:       "Greeting",
		Description: "Greets someone by name.",
		Arguments: []promptArgument{{
			Name:        "name",
			Description: "Who to greet",
			Required:    true,
			Complete:    prefixCompleter("Ada", "Alan", "Grace", "Linus"),
		}},
		Get: func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
			return &promptResult{
				Description: "A greeting",
				Messages:    []promptMessage{{Role: "user", Content: textContent("Hello, " + args["name"] + "!")}},
			}, nil
		},
	})

	// personal_greeting needs the user's name, asked for through a form.
	s.addPrompt(prompt{
		Name:        "personal_greeting",
		Title:       "Personal greeting",
		Description: "Asks the user for their name, then greets them.",
		Get: func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
			answer := req.Input("name")
			if answer == nil {
				return nil, req.NeedInput(elicitForm("name", "What should I call you?",
					`{"type":"object","properties":{"name":{"type":"string","title":"Your name","minLength":1,"maxLength":100}},"required":["name"]}`))
			}
			greeting := "Hello there!" // declined or cancelled
			if answer.Accepted() {
				greeting = "Hello, " + answer.String("name") + "!"
			}
			return &promptResult{
				Description: "A personal greeting",
				Messages:    []promptMessage{{Role: "user", Content: textContent(greeting)}},
			}, nil
		},
	})

	// The skills under skills/, read once; each entry lists its files' SHA-256 and size.
	s.addSkills(demoSkills, "skills")

	quit := make(chan struct{})
	var clock sync.WaitGroup
	clock.Go(func() {
		tick := time.NewTicker(demoClockInterval)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				s.resourceUpdated("demo://clock")
			}
		}
	})
	return func() {
		close(quit)
		clock.Wait()
	}
}
