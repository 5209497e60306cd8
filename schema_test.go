// Tests for schema.go: JSON Schema for tool inputSchema and x-mcp-header,
// MCP 2026-07-28.

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
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

func TestSchemaValidate(t *testing.T) {
	const (
		str    = `{"type":"object","properties":{"a":{"type":"string"}}}`
		intN   = `{"type":"object","properties":{"n":{"type":"integer"}}}`
		numN   = `{"type":"object","properties":{"n":{"type":"number"}}}`
		header = `{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}}`
	)
	for _, tt := range []struct {
		name, schema, in string
		want             string // "" means valid
	}{
		// type
		{"type string ok", str, `{"a":"x"}`, ``},
		{"type string wrong", str, `{"a":1}`, `/a: want string, got number`},
		{"type absent property ok", str, `{}`, ``},
		{"type array of names ok", `{"type":"object","properties":{"a":{"type":["string","null"]}}}`, `{"a":null}`, ``},
		{"type array of names wrong", `{"type":"object","properties":{"a":{"type":["string","null"]}}}`, `{"a":true}`, `/a: want string or null, got boolean`},
		{"type boolean wrong", `{"type":"object","properties":{"a":{"type":"boolean"}}}`, `{"a":"true"}`, `/a: want boolean, got string`},
		{"type object wrong", `{"type":"object","properties":{"a":{"type":"object"}}}`, `{"a":[]}`, `/a: want object, got array`},
		{"type array wrong", `{"type":"object","properties":{"a":{"type":"array"}}}`, `{"a":{}}`, `/a: want array, got object`},
		{"type null wrong", `{"type":"object","properties":{"a":{"type":"null"}}}`, `{"a":0}`, `/a: want null, got number`},
		{"root is object", str, `[]`, `want object, got array`},
		{"root without type is object", `{"properties":{}}`, `"x"`, `want object, got string`},
		{"no type allows anything", `{"type":"object","properties":{"a":{}}}`, `{"a":[1,{"b":null}]}`, ``},
		// integer and number
		{"integer ok", intN, `{"n":7}`, ``},
		{"integer 1.0 ok", intN, `{"n":1.0}`, ``},
		{"integer 1e2 ok", intN, `{"n":1e2}`, ``},
		{"integer 1.5e1 ok", intN, `{"n":1.5e1}`, ``},
		{"integer -0 ok", intN, `{"n":-0}`, ``},
		{"integer 1.5 wrong", intN, `{"n":1.5}`, `/n: want integer, got 1.5`},
		{"integer 1e-1 wrong", intN, `{"n":1e-1}`, `/n: want integer, got 1e-1`},
		{"integer string wrong", intN, `{"n":"1"}`, `/n: want integer, got string`},
		{"integer or null fraction wrong", `{"type":"object","properties":{"n":{"type":["integer","null"]}}}`, `{"n":0.5}`, `/n: want integer or null, got 0.5`},
		{"number accepts integer", numN, `{"n":3}`, ``},
		{"number accepts fraction", numN, `{"n":-3.25e-7}`, ``},
		{"integer out of range", intN, `{"n":1e99999999999999999}`, `/n: number 1e99999999999999999 out of range`},
		{"number out of range unchecked", numN, `{"n":1e99999999999999999}`, ``},
		// minimum, maximum, exclusive*
		{"minimum ok", `{"type":"object","properties":{"n":{"minimum":0}}}`, `{"n":0}`, ``},
		{"minimum wrong", `{"type":"object","properties":{"n":{"minimum":0}}}`, `{"n":-1}`, `/n: want >= 0, got -1`},
		{"minimum ignores strings", `{"type":"object","properties":{"n":{"minimum":0}}}`, `{"n":"-1"}`, ``},
		{"maximum ok", `{"type":"object","properties":{"n":{"maximum":100}}}`, `{"n":1e2}`, ``},
		{"maximum wrong by a hair", `{"type":"object","properties":{"n":{"maximum":100}}}`, `{"n":100.0000000000000000001}`, `/n: want <= 100, got 100.0000000000000000001`},
		{"maximum big integer", `{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740992}}}`, `{"n":9007199254740993}`, `/n: want <= 9007199254740992, got 9007199254740993`},
		{"maximum big integer ok", `{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740992}}}`, `{"n":9007199254740992}`, ``},
		{"maximum negative", `{"type":"object","properties":{"n":{"maximum":-2.5}}}`, `{"n":-2.4}`, `/n: want <= -2.5, got -2.4`},
		{"exclusiveMinimum wrong", `{"type":"object","properties":{"n":{"exclusiveMinimum":0}}}`, `{"n":0.0}`, `/n: want > 0, got 0.0`},
		{"exclusiveMinimum ok", `{"type":"object","properties":{"n":{"exclusiveMinimum":0}}}`, `{"n":1e-300}`, ``},
		{"exclusiveMaximum wrong", `{"type":"object","properties":{"n":{"exclusiveMaximum":10}}}`, `{"n":10}`, `/n: want < 10, got 10`},
		{"exclusiveMaximum ok", `{"type":"object","properties":{"n":{"exclusiveMaximum":10}}}`, `{"n":9.999}`, ``},
		// multipleOf
		{"multipleOf decimal ok", `{"type":"object","properties":{"n":{"multipleOf":0.1}}}`, `{"n":0.3}`, ``},
		{"multipleOf decimal wrong", `{"type":"object","properties":{"n":{"multipleOf":0.1}}}`, `{"n":0.35}`, `/n: want a multiple of 0.1, got 0.35`},
		{"multipleOf integer wrong", `{"type":"object","properties":{"n":{"multipleOf":7}}}`, `{"n":15}`, `/n: want a multiple of 7, got 15`},
		{"multipleOf huge exponent", `{"type":"object","properties":{"n":{"multipleOf":2}}}`, `{"n":1e30}`, ``},
		{"multipleOf huge exponent wrong", `{"type":"object","properties":{"n":{"multipleOf":3}}}`, `{"n":1e30}`, `/n: want a multiple of 3, got 1e30`},
		// strings
		{"maxLength code points ok", `{"type":"object","properties":{"s":{"maxLength":3}}}`, `{"s":"日本語"}`, ``},
		{"maxLength code points wrong", `{"type":"object","properties":{"s":{"maxLength":3}}}`, `{"s":"日本語!"}`, `/s: want at most 3 characters, got 4`},
		{"maxLength astral ok", `{"type":"object","properties":{"s":{"maxLength":2}}}`, `{"s":"😀😀"}`, ``},
		{"minLength code points wrong", `{"type":"object","properties":{"s":{"minLength":2}}}`, `{"s":"é"}`, `/s: want at least 2 characters, got 1`},
		{"minLength ignores numbers", `{"type":"object","properties":{"s":{"minLength":2}}}`, `{"s":1}`, ``},
		{"pattern ok", `{"type":"object","properties":{"s":{"pattern":"^[a-z]+$"}}}`, `{"s":"abc"}`, ``},
		{"pattern wrong", `{"type":"object","properties":{"s":{"pattern":"^[a-z]+$"}}}`, `{"s":"ab1"}`, `/s: want a string matching "^[a-z]+$", got "ab1"`},
		{"pattern unanchored", `{"type":"object","properties":{"s":{"pattern":"b"}}}`, `{"s":"abc"}`, ``},
		// enum and const
		{"enum ok", `{"type":"object","properties":{"c":{"enum":["red","green"]}}}`, `{"c":"red"}`, ``},
		{"enum wrong", `{"type":"object","properties":{"c":{"enum":["red","green"]}}}`, `{"c":"blue"}`, `/c: want one of ["red","green"], got "blue"`},
		{"enum numbers by value", `{"type":"object","properties":{"c":{"enum":[1,2.5]}}}`, `{"c":2.50}`, ``},
		{"enum integer as 1.0", `{"type":"object","properties":{"c":{"enum":[1,2.5]}}}`, `{"c":1.0}`, ``},
		{"enum deep equal", `{"type":"object","properties":{"c":{"enum":[{"a":[1,2],"b":null}]}}}`, `{"c":{"b":null,"a":[1.0,2]}}`, ``},
		{"enum deep order matters in arrays", `{"type":"object","properties":{"c":{"enum":[{"a":[1,2]}]}}}`, `{"c":{"a":[2,1]}}`, `/c: want one of [{"a":[1,2]}], got {"a":[2,1]}`},
		{"enum type matters", `{"type":"object","properties":{"c":{"enum":[1]}}}`, `{"c":"1"}`, `/c: want one of [1], got "1"`},
		{"enum null", `{"type":"object","properties":{"c":{"enum":[null]}}}`, `{"c":null}`, ``},
		{"const ok", `{"type":"object","properties":{"k":{"const":{"a":true}}}}`, `{"k":{"a":true}}`, ``},
		{"const number by value", `{"type":"object","properties":{"k":{"const":1}}}`, `{"k":1.00}`, ``},
		{"const wrong", `{"type":"object","properties":{"k":{"const":"x"}}}`, `{"k":"y"}`, `/k: want "x", got "y"`},
		{"const false is not 0", `{"type":"object","properties":{"k":{"const":false}}}`, `{"k":0}`, `/k: want false, got 0`},
		{"const extra key", `{"type":"object","properties":{"k":{"const":{"a":1}}}}`, `{"k":{"a":1,"b":1}}`, `/k: want {"a":1}, got {"a":1,"b":1}`},
		// objects
		{"required ok", `{"type":"object","required":["a"]}`, `{"a":null}`, ``},
		{"required missing", `{"type":"object","required":["a"]}`, `{}`, `missing required property "a"`},
		{"required nested", `{"type":"object","properties":{"o":{"type":"object","required":["b"]}}}`, `{"o":{}}`, `/o: missing required property "b"`},
		{"additionalProperties false", `{"type":"object","properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"z":2}`, `unexpected property "z" (allowed: "a")`},
		{"additionalProperties false empty", `{"type":"object","additionalProperties":false}`, `{"z":2}`, `unexpected property "z" (no properties allowed)`},
		{"additionalProperties false ok", `{"type":"object","additionalProperties":false}`, `{}`, ``},
		{"additionalProperties schema", `{"type":"object","properties":{"a":{}},"additionalProperties":{"type":"integer"}}`, `{"a":"s","z":"s"}`, `/z: want integer, got string`},
		{"additionalProperties true", `{"type":"object","additionalProperties":true}`, `{"z":1}`, ``},
		{"property false", `{"type":"object","properties":{"x":false}}`, `{"x":1}`, `/x: no value allowed here`},
		{"minProperties", `{"type":"object","properties":{"o":{"minProperties":1}}}`, `{"o":{}}`, `/o: want at least 1 properties, got 0`},
		{"maxProperties", `{"type":"object","maxProperties":1}`, `{"a":1,"b":2}`, `want at most 1 properties, got 2`},
		// arrays
		{"items ok", `{"type":"object","properties":{"l":{"items":{"type":"string"}}}}`, `{"l":["a","b"]}`, ``},
		{"items wrong", `{"type":"object","properties":{"l":{"items":{"type":"string"}}}}`, `{"l":["a",1]}`, `/l/1: want string, got number`},
		{"items false", `{"type":"object","properties":{"l":{"items":false}}}`, `{"l":[1]}`, `/l/0: no value allowed here`},
		{"minItems", `{"type":"object","properties":{"l":{"minItems":1}}}`, `{"l":[]}`, `/l: want at least 1 items, got 0`},
		{"maxItems", `{"type":"object","properties":{"l":{"maxItems":2}}}`, `{"l":[1,2,3]}`, `/l: want at most 2 items, got 3`},
		{"uniqueItems ok", `{"type":"object","properties":{"l":{"uniqueItems":true}}}`, `{"l":[{"a":1},{"a":2},1,"1",[1]]}`, ``},
		{"uniqueItems numbers by value", `{"type":"object","properties":{"l":{"uniqueItems":true}}}`, `{"l":[1,2,1.0]}`, `/l: want unique items, items 0 and 2 are equal`},
		{"uniqueItems deep", `{"type":"object","properties":{"l":{"uniqueItems":true}}}`, `{"l":[{"a":[1],"b":2},{"b":2,"a":[1]}]}`, `/l: want unique items, items 0 and 1 are equal`},
		{"uniqueItems false", `{"type":"object","properties":{"l":{"uniqueItems":false}}}`, `{"l":[1,1]}`, ``},
		// paths and aggregation
		{"nested path", `{"type":"object","properties":{"a":{"properties":{"b":{"items":{"properties":{"c":{"type":"string"}}}}}}}}`, `{"a":{"b":[{"c":"x"},{"c":1}]}}`, `/a/b/1/c: want string, got number`},
		{"path escapes", `{"type":"object","properties":{"a/b":{"properties":{"c~d":{"type":"string"}}}}}`, `{"a/b":{"c~d":1}}`, `/a~1b/c~0d: want string, got number`},
		{"several problems in order", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["c"]}`, `{"b":1,"a":2}`, `missing required property "c"; /a: want string, got number; /b: want string, got number`},
		{"long value cut", `{"type":"object","properties":{"a":{"pattern":"^a"}}}`, `{"a":"` + strings.Repeat("x", 100) + `"}`, `/a: want a string matching "^a", got "` + strings.Repeat("x", 60) + `...`},
		{"long key cut", `{"type":"object","additionalProperties":false}`, `{"` + strings.Repeat("k", 100) + `":1}`, `unexpected property "` + strings.Repeat("k", 60) + `... (no properties allowed)`},
		// x-mcp-header integers are exact in a double
		{"header integer safe", header, `{"n":9007199254740991}`, ``},
		{"header integer safe negative", header, `{"n":-9007199254740991}`, ``},
		{"header integer unsafe", header, `{"n":9007199254740992}`, `/n: want an integer from -9007199254740991 to 9007199254740991 (sent as a header), got 9007199254740992`},
		{"header integer unsafe negative", header, `{"n":-1e16}`, `/n: want an integer from -9007199254740991 to 9007199254740991 (sent as a header), got -1e16`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompileSchema(t, tt.schema)
			got := errText(s.validate(mustDecodeInstance(t, tt.in)))
			if got != tt.want {
				t.Errorf("validate(%s) against %s\n got: %s\nwant: %s", tt.in, tt.schema, got, tt.want)
			}
		})
	}
}

func TestSchemaValidateGoValues(t *testing.T) {
	s := mustCompileSchema(t, `{"type":"object","properties":{"a":{}}}`)
	for _, tt := range []struct {
		name string
		in   any
		want string
	}{
		{"float64 refused", map[string]any{"a": 1.5}, `/a: unsupported Go value of type float64`},
		{"int refused", map[string]any{"a": 1}, `/a: unsupported Go value of type int`},
		{"unexamined json.Number not parsed", map[string]any{"a": json.Number("01")}, ``},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := errText(s.validate(tt.in)); got != tt.want {
				t.Errorf("validate(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	n := mustCompileSchema(t, `{"type":"object","properties":{"a":{"minimum":0}}}`)
	if got, want := errText(n.validate(map[string]any{"a": json.Number("01")})), `/a: invalid number 01`; got != want {
		t.Errorf("validate(01) = %q, want %q", got, want)
	}
}

func TestSchemaValidateErrorCap(t *testing.T) {
	var names []string
	for i := range schemaMaxErrors + 2 {
		names = append(names, fmt.Sprintf("%q", fmt.Sprintf("p%02d", i)))
	}
	s := mustCompileSchema(t, `{"type":"object","required":[`+strings.Join(names, ",")+`]}`)
	got := errText(s.validate(map[string]any{}))
	if n := strings.Count(got, "missing required"); n != schemaMaxErrors {
		t.Errorf("validate reported %d problems, want %d: %s", n, schemaMaxErrors, got)
	}
	if want := fmt.Sprintf("; stopped after %d problems", schemaMaxErrors); !strings.HasSuffix(got, want) {
		t.Errorf("validate = %q, want a trailing %q", got, want)
	}
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
				got = errText(s.validate(mustDecodeInstance(t, tt.in)))
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

func TestSchemaDecimal(t *testing.T) {
	for _, tt := range []struct {
		name, a, b string
		cmp        int
		multiple   bool // a is a multiple of b (b > 0 rows only)
	}{
		{"equal forms", "1.0", "1e0", 0, true},
		{"zero forms", "-0.0e5", "0", 0, false},
		{"big integers", "9007199254740993", "9007199254740992", 1, false},
		{"negative order", "-2", "-10", 1, false},
		{"sign order", "-1", "1e-300", -1, true},
		{"leading digit position", "0.099", "0.1", -1, false},
		{"prefix digits", "0.12", "0.123", -1, false},
		{"decimal multiple", "0.3", "0.1", 1, true},
		{"decimal not multiple", "0.35", "0.1", 1, false},
		{"finer than divisor", "1.25", "0.5", 1, false},
		{"huge exponent multiple of 8", "1e400", "8", 1, true},
		{"huge exponent not multiple of 7", "1e400", "7", 1, false},
		{"long digits", "123456789012345678901234567890123456789", "3", 1, true},
		{"long digits not", "123456789012345678901234567890123456788", "3", 1, false},
		{"multiple of 2.5", "7.5", "2.5", 1, true},
		{"multiple of 0.02", "1.1", "0.02", 1, true},
		{"not multiple of 0.04", "1.1", "0.04", 1, false},
		{"multiple of 0.04", "1.2", "0.04", 1, true},
		{"zero is a multiple", "0", "0.7", -1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, err := parseSchemaDecimal(tt.a)
			if err != nil {
				t.Fatal(err)
			}
			b, err := parseSchemaDecimal(tt.b)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.cmp(b); got != tt.cmp {
				t.Errorf("cmp(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.cmp)
			}
			if got := b.cmp(a); got != -tt.cmp {
				t.Errorf("cmp(%s, %s) = %d, want %d", tt.b, tt.a, got, -tt.cmp)
			}
			if b.sign() > 0 {
				bi, ok := new(big.Int).SetString(b.digits, 10)
				if !ok {
					t.Fatalf("digits %q", b.digits)
				}
				if got := a.multipleOf(b, bi); got != tt.multiple {
					t.Errorf("multipleOf(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.multiple)
				}
			}
		})
	}
}

func TestParseSchemaDecimal(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     string // digits "e" exp, or the error
	}{
		{"integer", "120", "12e1"},
		{"fraction", "-0.0250", "-25e-3"},
		{"exponent", "1.5E+3", "15e2"},
		{"zero", "-0.000e-7", "e0"},
		{"exponent leading zeros", "1e0000000000000000000000000000000001", "1e1"},
		{"exponent at limit", "1e1000000000000000", "1e1000000000000000"},
		{"exponent beyond limit", "1e1000000000000001", "number 1e1000000000000001 out of range"},
		{"empty", "", "invalid number "},
		{"leading zero", "01", "invalid number 01"},
		{"plus sign", "+1", "invalid number +1"},
		{"bare dot", "1.", "invalid number 1."},
		{"leading dot", ".5", "invalid number .5"},
		{"bare exponent", "1e", "invalid number 1e"},
		{"signed bare exponent", "1e+", "invalid number 1e+"},
		{"trailing text", "1x", "invalid number 1x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := parseSchemaDecimal(tt.in)
			got := errText(err)
			if err == nil {
				got = fmt.Sprintf("%se%d", d.digits, d.exp)
				if d.neg {
					got = "-" + got
				}
			}
			if got != tt.want {
				t.Errorf("parseSchemaDecimal(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

// fuzzSchemas are the schemas FuzzSchemaValidate validates against: every
// enforced keyword appears in at least one.
var fuzzSchemas = []string{
	`{"type":"object"}`,
	`{"type":"object","properties":{"a":{"type":"string","minLength":1,"maxLength":5,"pattern":"^[a-z]"},"n":{"type":"integer","minimum":-3,"exclusiveMaximum":1e3,"multipleOf":0.5,"x-mcp-header":"N"}},"required":["a"],"additionalProperties":false}`,
	`{"properties":{"l":{"type":"array","items":{"type":["number","null"],"exclusiveMinimum":0,"maximum":9007199254740992},"minItems":1,"maxItems":4,"uniqueItems":true}},"minProperties":1,"maxProperties":3}`,
	`{"type":"object","additionalProperties":{"enum":[1,"a",null,{"k":[true]}]},"properties":{"c":{"const":{"x":[1,2.0]}},"b":{"type":"boolean","x-mcp-header":"B"},"o":{"type":"object","properties":{"d":{"multipleOf":7}},"additionalProperties":{"items":{"uniqueItems":true}}}}}`,
}

func FuzzSchemaValidate(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"a":"x"}`, `{"a":"","n":1.5}`, `{"n":9007199254740993}`, `{"l":[1,1.0,null]}`,
		`{"c":{"x":[1,2]}}`, `{"z":{"k":[true]}}`, `{"o":{"d":1e400,"e":[[1],[1.0]]}}`, `[1,{"a":[]}]`,
		`{"n":1e99999999999999999}`, `"x"`, `null`,
	} {
		f.Add([]byte(seed))
	}
	var schemas []*schema
	for _, src := range fuzzSchemas {
		schemas = append(schemas, mustCompileSchema(f, src))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := decodeSchemaInstance(data)
		if err != nil {
			return
		}
		for _, s := range schemas {
			first := errText(s.validate(v))
			if again := errText(s.validate(v)); again != first {
				t.Fatalf("validate(%s) not deterministic:\n%s\n%s", data, first, again)
			}
		}
	})
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
			_ = s.validate(v)
		}
		if out, err := compileOutputSchema(data); err == nil {
			for _, v := range instances {
				_ = out.validate(v)
			}
		}
	})
}
