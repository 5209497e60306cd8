// Tests of prompts and completion (prompts.go) beyond
// testdata/prompts.txt and testdata/completion.txt: prompts/get and
// completion/complete, one row per rule.

package main

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestPromptsGet checks prompts/get's refusals: an unknown prompt, a
// missing name, a required argument missing, arguments that are not an
// object of strings are -32602; optional arguments may be absent.
// [§Getting a Prompt]: https://modelcontextprotocol.io/specification/2026-07-28/server/prompts#getting-a-prompt
func TestPromptsGet(t *testing.T) {
	for _, tt := range []struct {
		name, params string
		code         int
	}{
		{"ok", `"name":"greet","arguments":{"name":"Ada"}`, 0},
		{"optional argument absent", `"name":"kinds","arguments":{"topic":"tea"}`, 0},
		{"unknown prompt", `"name":"nope"`, codeInvalidParams},
		{"name missing", ``, codeInvalidParams},
		{"missing required argument", `"name":"greet","arguments":{}`, codeInvalidParams},
		{"arguments absent", `"name":"greet"`, codeInvalidParams},
		{"non-string argument", `"name":"greet","arguments":{"name":7}`, codeInvalidParams},
		{"null argument", `"name":"greet","arguments":{"name":null}`, codeInvalidParams},
		{"arguments not an object", `"name":"greet","arguments":["Ada"]`, codeInvalidParams},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withRegistry("base", "extras"))
			got := mustServeOne(t, s, req("1", "prompts/get", tt.params))
			if code := errorCode(t, got); code != tt.code {
				t.Errorf("prompts/get {%s} = %s, want code %d", tt.params, got, tt.code)
			}
		})
	}
}

// TestCompletion checks completion/complete for prompt arguments and
// template variables: context arguments reach the completer, values are
// capped at 100 with hasMore, and bad references are -32602.
// [§Completion]: https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/completion
func TestCompletion(t *testing.T) {
	for _, tt := range []struct {
		name, params string
		code         int
		values       []string // checked when code is 0 and values is non-nil
		total        int
		hasMore      bool
	}{
		{"prompt argument", `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"g"}`, 0, []string{"Grace"}, 1, false},
		{"template variable", `"ref":{"type":"ref/resource","uri":"demo://items/{id}"},"argument":{"name":"id","value":""}`, 0, []string{"1", "2", "3", "42"}, 4, false},
		{"context arguments", `"ref":{"type":"ref/prompt","name":"many"},"argument":{"name":"echo","value":"v"},"context":{"arguments":{"n":"9"}}`, 0, []string{"v|9"}, 1, false},
		{"argument without completer", `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"other","value":""}`, 0, []string{}, 0, false},
		{"capped at 100 with hasMore", `"ref":{"type":"ref/prompt","name":"many"},"argument":{"name":"n","value":"v"}`, 0, nil, 150, true},
		{"unknown prompt", `"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"name","value":""}`, codeInvalidParams, nil, 0, false},
		{"unknown template", `"ref":{"type":"ref/resource","uri":"x://{nope}"},"argument":{"name":"nope","value":""}`, codeInvalidParams, nil, 0, false},
		{"unknown ref type", `"ref":{"type":"ref/tool","name":"echo"},"argument":{"name":"message","value":""}`, codeInvalidParams, nil, 0, false},
		{"ref missing", `"argument":{"name":"name","value":""}`, codeInvalidParams, nil, 0, false},
		{"argument missing", `"ref":{"type":"ref/prompt","name":"greet"}`, codeInvalidParams, nil, 0, false},
		{"argument value not a string", `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":1}`, codeInvalidParams, nil, 0, false},
		{"context argument not a string", `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":""},"context":{"arguments":{"a":1}}`, codeInvalidParams, nil, 0, false},
		{"ref member folded", `"ref":{"TYPE":"ref/prompt","name":"greet"},"argument":{"name":"name","value":""}`, codeInvalidRequest, nil, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withRegistry("base", "extras"))
			line := mustServeOne(t, s, req("1", "completion/complete", tt.params))
			if code := errorCode(t, line); code != tt.code {
				t.Fatalf("complete {%s} = %s, want code %d", tt.params, line, tt.code)
			}
			if tt.code != 0 {
				return
			}
			var got struct {
				Result struct {
					Completion struct {
						Values  []string
						Total   int
						HasMore bool
					}
				}
			}
			if err := json.Unmarshal([]byte(line), &got); err != nil {
				t.Fatal(err)
			}
			c := got.Result.Completion
			if tt.values != nil && !slices.Equal(c.Values, tt.values) {
				t.Errorf("values = %q, want %q", c.Values, tt.values)
			}
			if len(c.Values) > maxCompletions || c.Total != tt.total || c.HasMore != tt.hasMore {
				t.Errorf("%d values, total %d, hasMore %v; want <= %d, %d, %v", len(c.Values), c.Total, c.HasMore, maxCompletions, tt.total, tt.hasMore)
			}
		})
	}
}
