// Tests of the restricted form schema of elicitation (mrtr_form.go).

package main

import "testing"

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
