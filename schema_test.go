// Tests of JSON Schema compilation for a tool's inputSchema and
// outputSchema and its x-mcp-header declarations (schema.go,
// schema_compile.go), MCP 2026-07-28, and its fuzz target.

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// mustCompileSchema compiles src or fails the test.
func mustCompileSchema(tb testing.TB, src string) *schema {
	tb.Helper()
	s, err := compileSchema([]byte(src))
	if err != nil {
		tb.Fatalf("compileSchema(%s) = %v", src, err)
	}
	return s
}

// mustDecodeInstance decodes src the way tools/call arguments are decoded.
func mustDecodeInstance(tb testing.TB, src string) any {
	tb.Helper()
	v, err := decodeSchemaInstance([]byte(src))
	if err != nil {
		tb.Fatalf("decode %s: %v", src, err)
	}
	return v
}

// decodeSchemaInstance decodes exactly one JSON value with UseNumber.
func decodeSchemaInstance(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data")
	}
	return v, nil
}

// errText is err's message, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestCompileSchemaAccepts(t *testing.T) {
	for _, tt := range []struct{ name, schema string }{
		{"type object", `{"type":"object"}`},
		{"properties without type", `{"properties":{"a":{"type":"string"}}}`},
		{"no-parameter recommendation", `{"type":"object","additionalProperties":false}`},
		{"draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`},
		{"draft-07 without fragment", `{"$schema":"http://json-schema.org/draft-07/schema","type":"object"}`},
		{"2020-12", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`},
		{"annotations", `{"type":"object","$id":"urn:x","$comment":"c","title":"t","description":"d","default":{},"examples":[{}],
			"properties":{"a":{"type":"string","format":"email","deprecated":true,"readOnly":false,"writeOnly":false,
			"contentMediaType":"text/plain","contentEncoding":"base64"}}}`},
		{"extension keywords", `{"type":"object","x-anything":{"oneOf":[]},"properties":{"a":{"x-y":1}}}`},
		{"boolean subschemas", `{"type":"object","properties":{"a":true,"b":false},"additionalProperties":{"items":true}}`},
		{"count as 2.0", `{"type":"object","properties":{"s":{"minLength":2.0,"maxLength":1e3}}}`},
		{"huge count saturates", `{"type":"object","properties":{"s":{"maxLength":1e40}}}`},
		{"property named like a keyword", `{"type":"object","properties":{"oneOf":{},"x-mcp-header":{},"$ref":{}}}`},
		{"depth at limit", nestedSchema(schemaMaxDepth)},
		{"subschemas at limit", wideSchema(schemaMaxNodes - 1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := compileSchema([]byte(tt.schema)); err != nil {
				t.Errorf("compileSchema(%.80s) = %v, want nil", tt.schema, err)
			}
		})
	}
}

// nestedSchema returns a schema whose deepest subschema is depth
// properties levels below the root.
func nestedSchema(depth int) string {
	return `{"type":"object"` + strings.Repeat(`,"properties":{"a":{"type":"object"`, depth) + strings.Repeat(`}}`, depth) + `}`
}

// wideSchema returns a schema with n properties under the root.
func wideSchema(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":true`, i)
	}
	b.WriteString(`}}`)
	return b.String()
}

func TestCompileSchemaRefusesKeywords(t *testing.T) {
	for _, kw := range []string{
		"$ref", "$defs", "definitions", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary",
		"allOf", "anyOf", "oneOf", "not", "if", "then", "else",
		"dependentRequired", "dependentSchemas", "dependencies",
		"patternProperties", "propertyNames", "prefixItems", "additionalItems",
		"contains", "minContains", "maxContains", "unevaluatedItems", "unevaluatedProperties",
		"contentSchema", "nullable", "requried",
	} {
		t.Run(kw, func(t *testing.T) {
			src := `{"type":"object","properties":{"x":{` + fmt.Sprintf("%q", kw) + `:{}}}}`
			want := fmt.Sprintf(`schema: keyword %q at /properties/x is not enforced`, kw)
			if _, err := compileSchema([]byte(src)); errText(err) != want {
				t.Errorf("compileSchema(%s) = %v, want %s", src, err, want)
			}
		})
	}
}

func TestCompileSchemaErrors(t *testing.T) {
	for _, tt := range []struct{ name, schema, want string }{
		// the root
		{"invalid JSON", `{"type":`, `schema: unexpected EOF`},
		{"trailing data", `{"type":"object"} {}`, `schema: unexpected data after the schema`},
		{"root array", `[]`, `schema: root must be an object schema, got array`},
		{"root true", `true`, `schema: root must be an object schema, got boolean`},
		{"root null", `null`, `schema: root must be an object schema, got null`},
		{"root without type", `{}`, `schema: root must declare "type": "object"`},
		{"root type string", `{"type":"string"}`, `schema: root "type" must be "object", got "string"`},
		{"root type array", `{"type":["object","null"]}`, `schema: root "type" must be "object", got ["object","null"]`},
		{"root keyword refused", `{"type":"object","anyOf":[]}`, `schema: keyword "anyOf" at the root is not enforced`},
		// dialects
		{"draft-04 refused", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`, `schema: unsupported $schema "http://json-schema.org/draft-04/schema#" (want 2020-12 or draft-07)`},
		{"2019-09 refused", `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object"}`, `schema: unsupported $schema "https://json-schema.org/draft/2019-09/schema" (want 2020-12 or draft-07)`},
		{"$schema not a string", `{"$schema":7,"type":"object"}`, `schema: unsupported $schema 7 (want 2020-12 or draft-07)`},
		{"$schema below the root", `{"type":"object","properties":{"a":{"$schema":"http://json-schema.org/draft-07/schema#"}}}`, `schema: /properties/a/$schema: only allowed at the root`},
		// keyword value types
		{"subschema not a schema", `{"type":"object","properties":{"a":1}}`, `schema: /properties/a: want a schema (object or boolean), got number`},
		{"properties not an object", `{"type":"object","properties":[]}`, `schema: /properties: want an object, got array`},
		{"type unknown", `{"type":"object","properties":{"a":{"type":"float"}}}`, `schema: /properties/a/type: unknown type "float"`},
		{"type not a name", `{"type":"object","properties":{"a":{"type":1}}}`, `schema: /properties/a/type: want a type name, got number`},
		{"type empty", `{"type":"object","properties":{"a":{"type":[]}}}`, `schema: /properties/a/type: want at least one type`},
		{"type duplicate", `{"type":"object","properties":{"a":{"type":["string","string"]}}}`, `schema: /properties/a/type: duplicate type "string"`},
		{"required not an array", `{"type":"object","required":"a"}`, `schema: /required: want an array of strings, got string`},
		{"required not strings", `{"type":"object","required":[1]}`, `schema: /required: want an array of strings, got an element of type number`},
		{"required duplicate", `{"type":"object","required":["a","a"]}`, `schema: /required: duplicate "a"`},
		{"enum not an array", `{"type":"object","properties":{"a":{"enum":"x"}}}`, `schema: /properties/a/enum: want an array, got string`},
		{"minimum not a number", `{"type":"object","properties":{"a":{"minimum":"0"}}}`, `schema: /properties/a/minimum: want a number, got string`},
		{"maximum not a number", `{"type":"object","properties":{"a":{"maximum":null}}}`, `schema: /properties/a/maximum: want a number, got null`},
		{"exclusiveMinimum boolean", `{"type":"object","properties":{"a":{"exclusiveMinimum":true}}}`, `schema: /properties/a/exclusiveMinimum: want a number, got boolean`},
		{"exclusiveMaximum boolean", `{"type":"object","properties":{"a":{"exclusiveMaximum":false}}}`, `schema: /properties/a/exclusiveMaximum: want a number, got boolean`},
		{"multipleOf zero", `{"type":"object","properties":{"a":{"multipleOf":0}}}`, `schema: /properties/a/multipleOf: want a number greater than 0`},
		{"multipleOf negative", `{"type":"object","properties":{"a":{"multipleOf":-2}}}`, `schema: /properties/a/multipleOf: want a number greater than 0`},
		{"minLength negative", `{"type":"object","properties":{"a":{"minLength":-1}}}`, `schema: /properties/a/minLength: want a non-negative integer, got -1`},
		{"maxLength fraction", `{"type":"object","properties":{"a":{"maxLength":1.5}}}`, `schema: /properties/a/maxLength: want a non-negative integer, got 1.5`},
		{"minItems string", `{"type":"object","properties":{"a":{"minItems":"1"}}}`, `schema: /properties/a/minItems: want a number, got string`},
		{"maxItems negative", `{"type":"object","properties":{"a":{"maxItems":-1}}}`, `schema: /properties/a/maxItems: want a non-negative integer, got -1`},
		{"minProperties fraction", `{"type":"object","minProperties":0.5}`, `schema: /minProperties: want a non-negative integer, got 0.5`},
		{"maxProperties huge exponent", `{"type":"object","maxProperties":1e99999999999999999}`, `schema: /maxProperties: number 1e99999999999999999 out of range`},
		{"pattern not a string", `{"type":"object","properties":{"a":{"pattern":1}}}`, `schema: /properties/a/pattern: want a string, got number`},
		{"pattern lookahead", `{"type":"object","properties":{"a":{"pattern":"(?=x)"}}}`, "schema: /properties/a/pattern: error parsing regexp: invalid or unsupported Perl syntax: `(?=`"},
		{"pattern \\u escape", `{"type":"object","properties":{"a":{"pattern":"\\u0041"}}}`, "schema: /properties/a/pattern: error parsing regexp: invalid escape sequence: `\\u`"},
		{"uniqueItems not a boolean", `{"type":"object","properties":{"a":{"uniqueItems":"yes"}}}`, `schema: /properties/a/uniqueItems: want a boolean, got string`},
		{"items array form", `{"type":"object","properties":{"a":{"items":[{}]}}}`, `schema: keyword "items" (array form) at /properties/a is not enforced`},
		{"items not a schema", `{"type":"object","properties":{"a":{"items":1}}}`, `schema: /properties/a/items: want a schema (object or boolean), got number`},
		{"additionalProperties not a schema", `{"type":"object","additionalProperties":"no"}`, `schema: /additionalProperties: want a schema (object or boolean), got string`},
		{"refused below additionalProperties", `{"type":"object","additionalProperties":{"oneOf":[]}}`, `schema: keyword "oneOf" at /additionalProperties is not enforced`},
		{"refused below items", `{"type":"object","properties":{"l":{"items":{"$ref":"#"}}}}`, `schema: keyword "$ref" at /properties/l/items is not enforced`},
		{"title not a string", `{"type":"object","title":1}`, `schema: /title: want a string, got number`},
		{"description not a string", `{"type":"object","description":[]}`, `schema: /description: want a string, got array`},
		{"format not a string", `{"type":"object","properties":{"a":{"format":true}}}`, `schema: /properties/a/format: want a string, got boolean`},
		{"deprecated not a boolean", `{"type":"object","deprecated":"no"}`, `schema: /deprecated: want a boolean, got string`},
		{"examples not an array", `{"type":"object","examples":{}}`, `schema: /examples: want an array, got object`},
		{"pointer escapes", `{"type":"object","properties":{"a/b~":{"oneOf":[]}}}`, `schema: keyword "oneOf" at /properties/a~1b~0 is not enforced`},
		{"first in sorted order", `{"type":"object","properties":{"b":{"not":{}},"a":{"allOf":[]}}}`, `schema: keyword "allOf" at /properties/a is not enforced`},
		// bounds
		{"too deep", nestedSchema(schemaMaxDepth + 1), `schema: nesting deeper than 32 at /properties/a` + strings.Repeat(`/properties/a`, schemaMaxDepth)},
		{"too many subschemas", wideSchema(schemaMaxNodes), `schema: more than 10000 subschemas`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := compileSchema([]byte(tt.schema)); errText(err) != tt.want {
				t.Errorf("compileSchema(%.100s)\n got: %v\nwant: %s", tt.schema, err, tt.want)
			}
		})
	}
}

func TestCompileSchemaHeaderErrors(t *testing.T) {
	// prop wraps one property schema a under the root.
	prop := func(a string) string { return `{"type":"object","properties":{"a":` + a + `}}` }
	for _, tt := range []struct{ name, schema, want string }{
		{"empty", prop(`{"type":"string","x-mcp-header":""}`), `schema: x-mcp-header at /properties/a: must not be empty`},
		{"not a string", prop(`{"type":"string","x-mcp-header":5}`), `schema: x-mcp-header at /properties/a: want a string, got number`},
		{"space", prop(`{"type":"string","x-mcp-header":"Re gion"}`), `schema: x-mcp-header "Re gion" at /properties/a: not an HTTP field-name token (RFC 9110 section 5.6.2)`},
		{"CR LF", prop(`{"type":"string","x-mcp-header":"A\r\nB"}`), `schema: x-mcp-header "A\r\nB" at /properties/a: not an HTTP field-name token (RFC 9110 section 5.6.2)`},
		{"control character", prop(`{"type":"string","x-mcp-header":"A\u0000"}`), `schema: x-mcp-header "A\u0000" at /properties/a: not an HTTP field-name token (RFC 9110 section 5.6.2)`},
		{"colon", prop(`{"type":"string","x-mcp-header":"a:b"}`), `schema: x-mcp-header "a:b" at /properties/a: not an HTTP field-name token (RFC 9110 section 5.6.2)`},
		{"non-ASCII", prop(`{"type":"string","x-mcp-header":"Région"}`), `schema: x-mcp-header "Région" at /properties/a: not an HTTP field-name token (RFC 9110 section 5.6.2)`},
		{"duplicate ignoring case", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"integer","x-mcp-header":"rEGION"}}}`,
			`schema: x-mcp-header "rEGION" at /properties/b: duplicates the one at /properties/a (names are case-insensitive)`},
		{"type number", prop(`{"type":"number","x-mcp-header":"N"}`), `schema: x-mcp-header "N" at /properties/a: the property must have "type" "string", "integer" or "boolean"`},
		{"type missing", prop(`{"x-mcp-header":"N"}`), `schema: x-mcp-header "N" at /properties/a: the property must have "type" "string", "integer" or "boolean"`},
		{"type nullable", prop(`{"type":["string","null"],"x-mcp-header":"N"}`), `schema: x-mcp-header "N" at /properties/a: the property must have "type" "string", "integer" or "boolean"`},
		{"type object", prop(`{"type":"object","x-mcp-header":"N"}`), `schema: x-mcp-header "N" at /properties/a: the property must have "type" "string", "integer" or "boolean"`},
		{"type array", prop(`{"type":"array","x-mcp-header":"N"}`), `schema: x-mcp-header "N" at /properties/a: the property must have "type" "string", "integer" or "boolean"`},
		{"at the root", `{"type":"object","x-mcp-header":"N"}`, `schema: x-mcp-header at the root: only allowed on a property reached from the root through "properties" alone`},
		{"under items", prop(`{"type":"array","items":{"type":"string","x-mcp-header":"N"}}`), `schema: x-mcp-header at /properties/a/items: only allowed on a property reached from the root through "properties" alone`},
		{"under properties of items", prop(`{"type":"array","items":{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"N"}}}}`),
			`schema: x-mcp-header at /properties/a/items/properties/b: only allowed on a property reached from the root through "properties" alone`},
		{"under additionalProperties", `{"type":"object","additionalProperties":{"type":"string","x-mcp-header":"N"}}`, `schema: x-mcp-header at /additionalProperties: only allowed on a property reached from the root through "properties" alone`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := compileSchema([]byte(tt.schema)); errText(err) != tt.want {
				t.Errorf("compileSchema(%s)\n got: %v\nwant: %s", tt.schema, err, tt.want)
			}
		})
	}
}

func TestCompileOutputSchema(t *testing.T) {
	for _, tt := range []struct {
		name, schema, in string
		want             string // compile error, else validate error, "" for valid
	}{
		{"array root", `{"type":"array","items":{"type":"integer"}}`, `[1,"x"]`, `/1: want integer, got string`},
		{"no type root", `{"minimum":3}`, `2`, `want >= 3, got 2`},
		{"empty root allows anything", `{}`, `"x"`, ``},
		{"header ignored", `{"type":"object","properties":{"a":{"type":"number","x-mcp-header":""}}}`, `{"a":1.5}`, ``},
		{"boolean root refused", `true`, ``, `schema: root must be an object schema, got boolean`},
		{"keywords still refused", `{"oneOf":[]}`, ``, `schema: keyword "oneOf" at the root is not enforced`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := compileOutputSchema([]byte(tt.schema))
			got := errText(err)
			if err == nil {
				got = errText(s.validate(t.Context(), mustDecodeInstance(t, tt.in)))
				if len(s.headers()) != 0 {
					t.Errorf("headers() = %q, want none", s.headers())
				}
			}
			if got != tt.want {
				t.Errorf("compileOutputSchema(%s), validate(%s) = %q, want %q", tt.schema, tt.in, got, tt.want)
			}
		})
	}
}

func TestSchemaHeaders(t *testing.T) {
	for _, tt := range []struct {
		name, schema string
		want         []mcpHeader
	}{
		{"none", `{"type":"object","properties":{"a":{"type":"string"}}}`, nil},
		{"spec example", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"query":{"type":"string"}},"required":["region","query"]}`,
			[]mcpHeader{{Name: "Region", Path: []string{"region"}, Type: "string"}}},
		{"sorted by path, nested", `{"type":"object","properties":{
			"b":{"type":"boolean","x-mcp-header":"B"},
			"a":{"type":"object","properties":{"z":{"type":"integer","x-mcp-header":"AZ"},"y":{"type":["string"],"x-mcp-header":"Tenant-ID"}}},
			"a.y":{"type":"string","x-mcp-header":"Dot"}}}`,
			[]mcpHeader{
				{Name: "Tenant-ID", Path: []string{"a", "y"}, Type: "string"},
				{Name: "AZ", Path: []string{"a", "z"}, Type: "integer"},
				{Name: "Dot", Path: []string{"a.y"}, Type: "string"},
				{Name: "B", Path: []string{"b"}, Type: "boolean"},
			}},
		{"every tchar", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"!#$%&'*+-.^_|~09azAZ` + "`" + `"}}}`,
			[]mcpHeader{{Name: "!#$%&'*+-.^_|~09azAZ`", Path: []string{"a"}, Type: "string"}}},
		{"draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"integer","x-mcp-header":"A"}}}`,
			[]mcpHeader{{Name: "A", Path: []string{"a"}, Type: "integer"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := mustCompileSchema(t, tt.schema).headers()
			if !slices.EqualFunc(got, tt.want, func(a, b mcpHeader) bool {
				return a.Name == b.Name && a.Type == b.Type && slices.Equal(a.Path, b.Path)
			}) {
				t.Errorf("headers() = %q, want %q", got, tt.want)
			}
		})
	}
}

func FuzzCompileSchema(f *testing.F) {
	for _, seed := range fuzzSchemas {
		f.Add([]byte(seed))
	}
	for _, seed := range []string{
		`{"type":"object","properties":{"a":{"type":"integer","x-mcp-header":"A"},"b":{"properties":{"c":{"type":"boolean","x-mcp-header":"a"}}}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"oneOf":[]}}}`,
		`{"type":"object","properties":{"a":{"minLength":1e40,"multipleOf":1e-400,"enum":[1e5]}}}`,
		`{"type":"object","additionalProperties":{"items":{"items":false}}}`,
		`[]`, `{"type":"object"} 1`,
	} {
		f.Add([]byte(seed))
	}
	instances := []any{
		map[string]any{},
		map[string]any{"a": json.Number("1"), "b": map[string]any{"c": true}, "l": []any{"x", nil}},
		map[string]any{"a": "text", "n": json.Number("-1e-5"), "o": map[string]any{"d": []any{json.Number("7")}}},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := compileSchema(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "schema: ") {
				t.Fatalf("compileSchema(%s) = %v, want a schema: prefix", data, err)
			}
			return
		}
		hs := s.headers()
		if !slices.IsSortedFunc(hs, func(a, b mcpHeader) int { return slices.Compare(a.Path, b.Path) }) {
			t.Fatalf("headers() not sorted: %q", hs)
		}
		for _, h := range hs {
			if !schemaIsToken(h.Name) || len(h.Path) == 0 {
				t.Fatalf("headers() = %q, bad entry", hs)
			}
		}
		for _, v := range instances {
			_ = s.validate(t.Context(), v)
		}
		if out, err := compileOutputSchema(data); err == nil {
			for _, v := range instances {
				_ = out.validate(t.Context(), v)
			}
		}
	})
}

// TestSchemaShowEncodesOnlyWhatItShows: a message quoting a peer's long
// string encodes the part it shows, not the whole value (docs/SECURITY.md,
// third review, finding 8: messages render no more of a value than they
// show).
func TestSchemaShowEncodesOnlyWhatItShows(t *testing.T) {
	long := strings.Repeat("é", 2<<20) // 4 MiB
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	shown := schemaShow(long)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
		t.Errorf("schemaShow of a 4 MiB string allocated %d bytes, want at most 64 KiB", got)
	}
	if want := `"` + strings.Repeat("é", 30) + "..."; shown != want {
		t.Errorf("schemaShow = %q, want %q", shown, want)
	}
}
