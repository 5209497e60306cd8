// Tests of argument validation against a compiled schema
// (schema_validate.go): one row per keyword and the messages that say why,
// Go values, the cap on reported errors, and its fuzz target.

package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

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
			got := errText(s.validate(t.Context(), mustDecodeInstance(t, tt.in)))
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
			if got := errText(s.validate(t.Context(), tt.in)); got != tt.want {
				t.Errorf("validate(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	n := mustCompileSchema(t, `{"type":"object","properties":{"a":{"minimum":0}}}`)
	if got, want := errText(n.validate(t.Context(), map[string]any{"a": json.Number("01")})), `/a: invalid number 01`; got != want {
		t.Errorf("validate(01) = %q, want %q", got, want)
	}
}

func TestSchemaValidateErrorCap(t *testing.T) {
	var names []string
	for i := range schemaMaxErrors + 2 {
		names = append(names, fmt.Sprintf("%q", fmt.Sprintf("p%02d", i)))
	}
	s := mustCompileSchema(t, `{"type":"object","required":[`+strings.Join(names, ",")+`]}`)
	got := errText(s.validate(t.Context(), map[string]any{}))
	if n := strings.Count(got, "missing required"); n != schemaMaxErrors {
		t.Errorf("validate reported %d problems, want %d: %s", n, schemaMaxErrors, got)
	}
	if want := fmt.Sprintf("; stopped after %d problems", schemaMaxErrors); !strings.HasSuffix(got, want) {
		t.Errorf("validate = %q, want a trailing %q", got, want)
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
			first := errText(s.validate(t.Context(), v))
			if again := errText(s.validate(t.Context(), v)); again != first {
				t.Fatalf("validate(%s) not deterministic:\n%s\n%s", data, first, again)
			}
		}
	})
}
