// Examples of the registration API: register a tool, a resource, a
// prompt or a middleware, then serve one request over stdio.

package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing/fstest"
)

// exampleMeta is the _meta a modern client sends on every request.
const exampleMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// exampleServer names the examples' server (config.info); left zero, it
// would be the product's name and version.
var exampleServer = implementation{Name: "example", Version: "1.0.0"}

// serveExample serves one request line and writes the answer to stdout.
func serveExample(s *server, line string) {
	if err := s.serveStdio(context.Background(), strings.NewReader(line+"\n"), os.Stdout); err != nil {
		fmt.Println("error:", err)
	}
}

func Example_addTool() {
	s := newServer(config{info: exampleServer}, slog.New(slog.DiscardHandler))
	s.addTool(tool{
		Name:        "shout",
		Description: "Returns the text in upper case.",
		InputSchema: `{"type":"object","properties":{"text":{"type":"string","maxLength":100}},"required":["text"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			return textResult(strings.ToUpper(req.String("text"))), nil
		},
	})
	serveExample(s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shout","arguments":{"text":"hello"},`+exampleMeta+`}}`)
	// A schema violation is reported to the model in-band.
	serveExample(s, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shout","arguments":{},`+exampleMeta+`}}`)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"HELLO"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"example","version":"1.0.0"}}}}
	// {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"invalid arguments for tool shout: missing required property \"text\""}],"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"example","version":"1.0.0"}}}}
}

func Example_addResource() {
	s := newServer(config{info: exampleServer, cache: cacheHint{TTL: 0, Scope: scopePublic}}, slog.New(slog.DiscardHandler))
	s.addResource(resource{
		URI:      "notes://today",
		Name:     "today",
		MimeType: "text/plain",
		Text:     "buy milk",
	})
	s.addTemplate(resourceTemplate{
		URITemplate: "notes://day/{date}",
		Name:        "day",
		Read: func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
			return []resourceContents{{URI: uri, MimeType: "text/plain", Text: "notes for " + vars["date"]}}, nil
		},
	})
	serveExample(s, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"notes://today",`+exampleMeta+`}}`)
	serveExample(s, `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"notes://day/2026-07-28",`+exampleMeta+`}}`)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","contents":[{"uri":"notes://today","mimeType":"text/plain","text":"buy milk"}],"ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"example","version":"1.0.0"}}}}
	// {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","contents":[{"uri":"notes://day/2026-07-28","mimeType":"text/plain","text":"notes for 2026-07-28"}],"ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"example","version":"1.0.0"}}}}
}

func Example_addPrompt() {
	s := newServer(config{info: exampleServer}, slog.New(slog.DiscardHandler))
	s.addPrompt(prompt{
		Name:        "review",
		Description: "Asks for a code review.",
		Arguments:   []promptArgument{{Name: "language", Required: true}},
		Get: func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
			return &promptResult{Messages: []promptMessage{
				{Role: "user", Content: textContent("Review this " + args["language"] + " code.")},
			}}, nil
		},
	})
	serveExample(s, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"review","arguments":{"language":"Go"},`+exampleMeta+`}}`)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","messages":[{"role":"user","content":{"type":"text","text":"Review this Go code."}}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"example","version":"1.0.0"}}}}
}

func Example_addMiddleware() {
	s := newServer(config{info: exampleServer}, slog.New(slog.DiscardHandler))
	s.addTool(tool{
		Name: "drop_table",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			return textResult("dropped"), nil
		},
	})
	// Auditing: one line per call, with who made it and in which trace.
	s.addMiddleware(func(ctx context.Context, call callInfo, next func(context.Context) error) error {
		err := next(ctx)
		tc, _ := traceFromContext(ctx)
		fmt.Printf("audit: %s %s by %q in trace %s: %v\n", call.Kind, call.Name, call.Request.Principal(), tc.TraceIDString(), err)
		return err
	})
	// Policy: only an authenticated caller may drop a table. The refusal
	// reaches the model as a tool error.
	s.addMiddleware(func(ctx context.Context, call callInfo, next func(context.Context) error) error {
		if call.Kind == callKindTool && call.Name == "drop_table" && call.Request.Principal() == "" {
			return fmt.Errorf("%s needs an authenticated caller", call.Name)
		}
		return next(ctx)
	})
	serveExample(s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"drop_table","_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",`+exampleMeta[len(`"_meta":{`):]+`}}`)
	// Output:
	// audit: tool drop_table by "" in trace 0af7651916cd43dd8448eb211c80319c: drop_table needs an authenticated caller
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"drop_table needs an authenticated caller"}],"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"example","version":"1.0.0"}}}}
}

func Example_meta() {
	s := newServer(config{info: exampleServer, cache: cacheHint{TTL: 0, Scope: scopePublic}}, slog.New(slog.DiscardHandler))
	s.addTool(tool{
		Name:  "chart",
		Meta:  map[string]any{"com.example/owner": "charts", "ui": map[string]any{"resourceUri": "ui://charts/view.html"}},
		Call:  func(ctx context.Context, req *request) (*toolResult, error) { return textResult("ok"), nil },
		Icons: []icon{{Src: "https://example.com/chart.png", MimeType: "image/png"}},
	})
	// 2026-07-28 carries the tool's _meta and icons; 2025-03-26 has
	// neither on a tool, so its clients see a plain tool (dialect.go).
	serveExample(s, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+exampleMeta+`}}`)
	serveExample(s, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"chart","inputSchema":{"type":"object"},"icons":[{"src":"https://example.com/chart.png","mimeType":"image/png"}],"_meta":{"com.example/owner":"charts","ui":{"resourceUri":"ui://charts/view.html"}}}],"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"example","version":"1.0.0"}}}}
	// {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"example","version":"1.0.0"}}}
	// {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"chart","inputSchema":{"type":"object"}}]}}
}

func Example_addSkills() {
	s := newServer(config{info: exampleServer, cache: cacheHint{TTL: 0, Scope: scopePublic}}, slog.New(slog.DiscardHandler))
	// In a registry: //go:embed skills, then s.addSkills(skillFiles, "skills").
	s.addSkills(fstest.MapFS{
		"skills/hello/SKILL.md": {Data: []byte("---\nname: hello\ndescription: Say hello.\n---\n\nGreet the user by name.\n")},
	}, "skills")
	serveExample(s, `{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{`+exampleMeta+`}}`)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","skills":[{"uri":"skill://hello/SKILL.md","frontmatter":{"name":"hello","description":"Say hello."},"resources":[{"uri":"skill://hello/SKILL.md","digest":"sha256:ae9d5f24119c39ffacd6d51ae3a436e75aed243a88c2231b4e513e8f50ee3c2c","size":69}]}],"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"example","version":"1.0.0"}}}}
}

// Example_describe: what a registry says of its server as a whole, its
// description (serverInfo) and the instructions hosts give their model,
// set in buildRegistry before serving starts.
func Example_describe() {
	s := newServer(config{info: exampleServer, cache: cacheHint{TTL: 0, Scope: scopePublic}}, slog.New(slog.DiscardHandler))
	s.describe("Shouts: returns text in upper case.", "")
	s.setInstructions("Call shout with the text to shout; read shouter://rules first.")
	serveExample(s, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+exampleMeta+`}}`)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"logging":{}},"instructions":"Call shout with the text to shout; read shouter://rules first.","ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"example","version":"1.0.0","description":"Shouts: returns text in upper case."}}}}
}
