// Tests of dialect.go and meta.go: what no revision allows is refused
// where it is made, with a message naming the item; the _meta key rules;
// the fitting of schemas and structured content to each revision. The
// transcripts of testdata/fields/ play a registry that sets every field
// in every revision, and the schema gate (harness/schema) validates them.

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestRegistrationRefusesWhatNoRevisionAllows(t *testing.T) {
	noop := func(ctx context.Context, req *request) (*toolResult, error) { return nil, nil }
	read := func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
		return nil, nil
	}
	get := func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
		return nil, nil
	}
	bad := &annotations{Priority: new(2.0)}
	for _, tt := range []struct {
		name     string
		register func(s *server)
		want     string // in the panic's message, beside the item's name
	}{
		{"inputSchema without type", func(s *server) {
			s.addTool(tool{Name: "untyped", Call: noop, InputSchema: `{"properties":{"a":{"type":"string"}}}`})
		}, `addTool untyped: inputSchema: the root must be "type":"object"`},
		{"inputSchema with a type list", func(s *server) {
			s.addTool(tool{Name: "listed", Call: noop, HandlerValidates: true, InputSchema: `{"type":["object"]}`})
		}, `addTool listed: inputSchema: the root must be "type":"object"`},
		{"inputSchema not an object, handler validates", func(s *server) {
			s.addTool(tool{Name: "anything", Call: noop, HandlerValidates: true, InputSchema: `{"anyOf":[{"type":"object"}]}`})
		}, `addTool anything: inputSchema: the root must be "type":"object"`},
		{"audience robot", func(s *server) {
			s.addResource(resource{URI: "x://robot", Name: "robot", Annotations: &annotations{Audience: []string{"robot"}}})
		}, `addResource x://robot: annotations: audience "robot" is not user or assistant`},
		{"priority 2", func(s *server) { s.addResource(resource{URI: "x://p", Name: "p", Annotations: bad}) },
			`addResource x://p: annotations: priority 2 is outside 0..1`},
		{"negative priority on a template", func(s *server) {
			s.addTemplate(resourceTemplate{URITemplate: "x://{a}", Name: "a", Read: read, Annotations: &annotations{Priority: new(-0.5)}})
		}, `addTemplate x://{a}: annotations: priority -0.5 is outside 0..1`},
		{"lastModified not a time", func(s *server) {
			s.addResource(resource{URI: "x://t", Name: "t", Annotations: &annotations{LastModified: "yesterday"}})
		}, `addResource x://t: annotations: lastModified "yesterday" is not an ISO 8601 time`},
		{"negative size", func(s *server) { s.addResource(resource{URI: "x://s", Name: "s", Size: new(int64(-1))}) },
			`addResource x://s: size -1 is negative`},
		{"icon theme", func(s *server) {
			s.addTool(tool{Name: "themed", Call: noop, Icons: []icon{{Src: "https://example.com/i.png", Theme: "sepia"}}})
		}, `addTool themed: icon 0: theme "sepia" is not light or dark`},
		{"icon without src", func(s *server) { s.addPrompt(prompt{Name: "p", Get: get, Icons: []icon{{MimeType: "image/png"}}}) },
			`addPrompt p: icon 0: no src`},
		{"reserved _meta prefix", func(s *server) {
			s.addTool(tool{Name: "reserved", Call: noop, Meta: map[string]any{"io.modelcontextprotocol/serverInfo": 1}})
		}, `addTool reserved: _meta key "io.modelcontextprotocol/serverInfo" uses a prefix reserved for MCP`},
		{"reserved mcp label", func(s *server) {
			s.addPrompt(prompt{Name: "p", Get: get, Meta: map[string]any{"dev.mcp/x": 1}})
		}, `addPrompt p: _meta key "dev.mcp/x" uses a prefix reserved for MCP`},
		{"_meta name", func(s *server) {
			s.addTemplate(resourceTemplate{URITemplate: "x://{a}", Name: "a", Read: read, Meta: map[string]any{"com.example/-x": 1}})
		}, `addTemplate x://{a}: _meta key "com.example/-x" has a name that does not begin and end with a letter or digit`},
		{"_meta value", func(s *server) {
			s.addResource(resource{URI: "x://m", Name: "m", Meta: map[string]any{"f": func() {}}})
		}, `addResource x://m: _meta key "f": the value does not encode as JSON`},
		{"serverInfo website", func(s *server) { s.describe("d", "example.com") },
			`describe: websiteUrl "example.com" is not an absolute URL`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withRegistry())
			defer func() {
				p := recover()
				if p == nil {
					t.Fatalf("%s: registration did not panic", tt.name)
				}
				if got := fmt.Sprint(p); !strings.HasPrefix(got, tt.want) {
					t.Errorf("%s: panic %q, want it to start with %q", tt.name, got, tt.want)
				}
			}()
			tt.register(s)
		})
	}
}

func TestMetaKeys(t *testing.T) {
	for _, tt := range []struct {
		key, want string // want "" means valid
	}{
		{"ui", ""},
		{"ui/resourceUri", ""},
		{"com.example/x", ""},
		{"com.example/", ""},
		{"com.example.mcp/x", ""},
		{"openai/outputTemplate", ""},
		{"a-b.c9/n_a.m-e", ""},
		{"io.modelcontextprotocol/x", "uses a prefix reserved for MCP"},
		{"org.modelcontextprotocol.api/x", "uses a prefix reserved for MCP"},
		{"com.mcp.tools/x", "uses a prefix reserved for MCP"},
		{"9com/x", `has an invalid prefix label "9com"`},
		{"com-/x", `has an invalid prefix label "com-"`},
		{"Com.Example/x", ""},
		{"a\u212Ab.example/x", "has an invalid prefix label \"a\u212Ab\""}, // the Kelvin sign lowers to ASCII k
		{"com..example/x", `has an invalid prefix label ""`},
		{"/x", `has an invalid prefix label ""`},
		{"com.example/_x", "has a name that does not begin and end with a letter or digit"},
		{"x y", `has a name with ' '`},
		{"a/b/c", `has a name with '/'`},
	} {
		if got := metaKeyProblem(tt.key); got != tt.want {
			t.Errorf("metaKeyProblem(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

func TestBuildersRefuseWhatNoRevisionAllows(t *testing.T) {
	for _, tt := range []struct {
		name string
		q    inputRequest
		want string
	}{
		{"resource link in sampling", createMessage("q", samplingRequest{MaxTokens: 5, Messages: []samplingMessage{
			{Role: "user", Content: linkContent(resourceLink{URI: "x://a", Name: "a"})}}}),
			`createMessage "q": message 0: a sampling message cannot carry resource_link content`},
		{"embedded resource in sampling", createMessage("q", samplingRequest{MaxTokens: 5, Messages: []samplingMessage{
			{Role: "user", Content: embeddedContent(resourceContents{URI: "x://a", Text: "a"})}}}),
			`createMessage "q": message 0: a sampling message cannot carry resource content`},
		{"annotation in sampling", createMessage("q", samplingRequest{MaxTokens: 5, Messages: []samplingMessage{
			{Role: "user", Content: content{Type: "text", Text: "a", Annotations: &annotations{Audience: []string{"robot"}}}}}}),
			`createMessage "q": message 0: annotations: audience "robot" is not user or assistant`},
		{"reserved _meta in sampling", createMessage("q", samplingRequest{MaxTokens: 5, Messages: []samplingMessage{
			{Role: "user", Content: textContent("a"), Meta: map[string]any{"io.modelcontextprotocol/x": 1}}}}),
			`createMessage "q": message 0: _meta key "io.modelcontextprotocol/x" uses a prefix reserved for MCP`},
	} {
		if tt.q.err == nil || tt.q.err.Error() != tt.want {
			t.Errorf("%s: err = %v, want %s", tt.name, tt.q.err, tt.want)
		}
	}
	for _, tt := range []struct {
		name string
		r    toolResult
		want string
	}{
		{"audience robot", toolResult{Content: []content{{Type: "text", Text: "a", Annotations: &annotations{Audience: []string{"robot"}}}}},
			`tool result: content block 0: annotations: audience "robot" is not user or assistant`},
		{"link without name", toolResult{Content: []content{linkContent(resourceLink{URI: "x://a"})}},
			`tool result: content block 0: resource_link needs a URI and a Name`},
		{"link _meta on the block", toolResult{Content: []content{{Type: "resource_link", Link: &resourceLink{URI: "x://a", Name: "a"}, Meta: map[string]any{"k": 1}}}},
			`tool result: content block 0: resource_link: set _meta in Link.Meta, not on the block`},
		{"reserved result _meta", toolResult{Meta: map[string]any{"io.modelcontextprotocol/related-task": 1}},
			`tool result: _meta key "io.modelcontextprotocol/related-task" uses a prefix reserved for MCP`},
	} {
		if _, err := tt.r.result(version20260728); err == nil || err.Error() != tt.want {
			t.Errorf("%s: result() = %v, want %s", tt.name, err, tt.want)
		}
	}
}

func TestSchemasFittedToRevisions(t *testing.T) {
	for _, tt := range []struct {
		name, version, in string
		out               func(v, s string) json.RawMessage
		want              string // "" means left out
	}{
		{"boolean properties, classic", version20251125, `{"type":"object","properties":{"a":true,"b":false,"c":{"type":"string"}}}`, inputSchemaFor,
			`{"type":"object","properties":{"a":{},"b":{"not":{}},"c":{"type":"string"}}}`},
		{"boolean properties, modern", version20260728, `{"type":"object","properties":{"a":true}}`, inputSchemaFor,
			`{"type":"object","properties":{"a":true}}`},
		{"array output, classic", version20251125, `{"type":"array","items":{"type":"integer"}}`, outputSchemaFor, ``},
		{"array output, modern", version20260728, `{"type":"array","items":{"type":"integer"}}`, outputSchemaFor, `{"type":"array","items":{"type":"integer"}}`},
		{"untyped output, classic", version20250618, `{"anyOf":[{"type":"object"}]}`, outputSchemaFor, ``},
		{"object output, 2025-06-18", version20250618, `{"type":"object","properties":{"x":false}}`, outputSchemaFor, `{"type":"object","properties":{"x":{"not":{}}}}`},
		{"object output, 2025-03-26", version20250326, `{"type":"object"}`, outputSchemaFor, ``},
	} {
		if got := string(tt.out(tt.version, tt.in)); got != tt.want {
			t.Errorf("%s: %s = %s, want %s", tt.name, tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct {
		version, in, want string
	}{
		{version20251125, `[1,2]`, ``},
		{version20251125, `"x"`, ``},
		{version20251125, `{"a":1}`, `{"a":1}`},
		{version20260728, `[1,2]`, `[1,2]`},
		{version20250326, `{"a":1}`, ``},
	} {
		if got := string(structuredFor(tt.version, []byte(tt.in))); got != tt.want {
			t.Errorf("structuredFor(%s, %s) = %s, want %s", tt.version, tt.in, got, tt.want)
		}
	}
}
