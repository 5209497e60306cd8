// The fields part of the test registry: one item of each kind that sets
// every field the registry API offers, content of every kind with every
// optional member, results with _meta, a sampling request with every
// member, an MCP App view, a tool whose outputSchema only 2026-07-28 can
// carry. testdata/fields/ plays it in every revision over stdio and HTTP;
// the transcripts pin what each revision is sent, and the schema gate
// (harness/schema/check.sh) validates every message against that
// revision's schema.json. harness/interop-clients/ts/fields.mjs lists and
// calls its tools with the TypeScript SDK 1.32.2 (fields_http_test.go).

package main

import (
	"context"
	"fmt"
	"strings"
)

// fieldsIcons is an icon with every member, and a second with a theme.
var fieldsIcons = []icon{
	{Src: "https://example.com/icon.png", MimeType: "image/png", Sizes: []string{"48x48", "96x96"}, Theme: "light"},
	{Src: "data:image/svg+xml;base64,PHN2Zy8+", MimeType: "image/svg+xml", Sizes: []string{"any"}, Theme: "dark"},
}

// fieldsAnnotations are annotations with every member.
func fieldsAnnotations() *annotations {
	return &annotations{Audience: []string{"user", "assistant"}, Priority: new(0.5), LastModified: "2025-01-02T03:04:05Z"}
}

// fieldsMeta is a _meta with a prefixed key, an unprefixed one and a
// nested value.
func fieldsMeta(what string) map[string]any {
	return map[string]any{"com.example/what": what, "note": map[string]any{"n": 1, "ok": true}}
}

// fieldsContent is one block of every kind, each with every optional
// member.
func fieldsContent() []content {
	blocks := []content{
		textContent("text"),
		imageContent(testPNG, "image/png"),
		audioContent([]byte("RIFF"), "audio/wav"),
		linkContent(resourceLink{URI: "fields://everything", Name: "everything", Title: "Everything", Description: "The resource with every field.",
			MimeType: "text/plain", Size: new(int64(0)), Icons: fieldsIcons, Meta: fieldsMeta("link")}),
		embeddedContent(resourceContents{URI: "fields://embedded", MimeType: "text/plain", Text: "embedded", Meta: fieldsMeta("contents")}),
		embeddedContent(resourceContents{URI: "fields://blob", MimeType: "application/octet-stream", Blob: []byte{0, 1, 2}}),
	}
	for i := range blocks {
		blocks[i].Annotations = fieldsAnnotations()
		if blocks[i].Type != "resource_link" { // a link's _meta is its Link.Meta
			blocks[i].Meta = fieldsMeta("block " + blocks[i].Type)
		}
	}
	return blocks
}

// fieldsView is the MCP App view the everything tool links.
const fieldsView = `<!doctype html><html><head><meta charset="utf-8"><title>fields</title></head><body><p id="out">fields</p></body></html>`

// addTestFields registers the fields part.
func addTestFields(s *server, _ *testDefs, _ *testGates) {
	s.describe("A server whose registry sets every field.", "https://example.com/baremcp", fieldsIcons...)
	s.addTool(tool{
		Name:        "everything",
		Title:       "Every field",
		Description: "Sets every field of a tool and of its result.",
		InputSchema: `{"type":"object","properties":{"a":{"type":"string"},"any":true,"none":false},"additionalProperties":false}`,
		// structuredContent is an object, as every revision with
		// structured content can carry.
		OutputSchema: `{"type":"object","properties":{"n":{"type":"integer"},"free":true},"required":["n"]}`,
		Annotations: &toolAnnotations{Title: "Everything", ReadOnlyHint: new(true), DestructiveHint: new(false),
			IdempotentHint: new(true), OpenWorldHint: new(false)},
		Icons: fieldsIcons,
		Meta:  map[string]any{"com.example/tool": "everything", "ui": map[string]any{"resourceUri": "ui://fields/view.html", "visibility": []string{"model", "app"}}},
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			blocks := fieldsContent()
			blocks[0].Text = fmt.Sprintf("a=%s client _meta com.example/trace=%s progressToken=%s", req.String("a"), req.Meta("com.example/trace"), req.Meta("progressToken"))
			return &toolResult{Content: blocks, StructuredContent: map[string]any{"n": 1, "free": []int{1}}, Meta: fieldsMeta("result")}, nil
		},
	})
	s.addTool(tool{
		Name:         "list_output",
		Description:  "Returns a list: an outputSchema only 2026-07-28 can carry.",
		InputSchema:  `{"type":"object"}`,
		OutputSchema: `{"type":"array","items":{"type":"integer"}}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			return structuredResult([]int{1, 2, 3})
		},
	})
	s.addTool(tool{
		Name:        "sample_everything",
		Description: "Asks the client's model with every member of a sampling request.",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			if a := req.Input("model"); a != nil {
				return textResult("model answered"), nil
			}
			audio := audioContent([]byte("RIFF"), "audio/wav")
			audio.Annotations, audio.Meta = fieldsAnnotations(), fieldsMeta("sampled audio")
			text := textContent("hear this")
			text.Meta = fieldsMeta("sampled text")
			return nil, req.NeedInput(createMessage("model", samplingRequest{
				Messages: []samplingMessage{
					{Role: "user", Content: text, Meta: fieldsMeta("message")},
					{Role: "assistant", Content: imageContent(testPNG, "image/png")},
					{Role: "user", Content: audio},
				},
				SystemPrompt: "Be brief.", MaxTokens: 50, Temperature: new(0.2), StopSequences: []string{"END"},
				ModelPreferences: &modelPreferences{Hints: []modelHint{{Name: "small"}}, CostPriority: new(0.1), SpeedPriority: new(0.9), IntelligencePriority: new(0.5)},
				Metadata:         map[string]any{"provider": map[string]any{"tier": "free"}},
			}))
		},
	})
	s.addResource(resource{
		URI: "fields://everything", Name: "everything", Title: "Everything", Description: "A resource with every field; its contents are empty.",
		MimeType: "text/plain", Size: new(int64(0)), Icons: fieldsIcons, Annotations: fieldsAnnotations(), Meta: fieldsMeta("resource"),
	})
	s.addResource(resource{
		URI: "ui://fields/view.html", Name: "view", Title: "The everything tool's view", MimeType: mimeTypeApp, Text: fieldsView,
		Meta: map[string]any{"ui": map[string]any{"prefersBorder": true, "csp": map[string]any{"connectDomains": []string{}, "resourceDomains": []string{}}}},
	})
	s.addTemplate(resourceTemplate{
		URITemplate: "fields://items/{id}", Name: "item", Title: "Item", Description: "An item by id, read with _meta on its contents.",
		MimeType: "text/plain", Icons: fieldsIcons, Annotations: fieldsAnnotations(), Meta: fieldsMeta("template"),
		Read: func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
			return []resourceContents{
				{URI: uri, MimeType: "text/plain", Text: "item " + vars["id"], Meta: fieldsMeta("text contents")},
				{URI: uri + "/raw", MimeType: "application/octet-stream", Blob: []byte(vars["id"]), Meta: fieldsMeta("blob contents")},
			}, nil
		},
		Complete: map[string]completer{"id": oneOf("7", "70", "700")},
	})
	s.addPrompt(prompt{
		Name: "everything", Title: "Every field", Description: "A prompt with every field; its messages hold every content kind.",
		Arguments: []promptArgument{{Name: "topic", Title: "Topic", Description: "What about", Required: true, Complete: oneOf("fields", "flags")}},
		Icons:     fieldsIcons, Meta: fieldsMeta("prompt"),
		Get: func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
			var msgs []promptMessage
			for i, c := range fieldsContent() {
				msgs = append(msgs, promptMessage{Role: []string{"user", "assistant"}[i%2], Content: c})
			}
			return &promptResult{Description: "about " + strings.ToUpper(args["topic"]), Messages: msgs, Meta: fieldsMeta("prompt result")}, nil
		},
	})
}
