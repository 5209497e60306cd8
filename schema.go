// JSON Schema for tool inputSchema: MCP 2026-07-28 basic "JSON Schema Usage",
// server/tools "x-mcp-header" and basic/transports/streamable-http "Custom
// Headers from Tool Parameters"; a subset of the JSON Schema 2020-12 (and
// draft-07) validation vocabulary.
//
// This file holds the limits, the compiled form (schema, schemaNode), the
// entry points and the helpers its parts share; the parts:
// schema_compile.go (compiling a document), schema_validate.go
// (validating a value), schema_decimal.go (exact numbers).
//
// [JSON Schema Usage]: https://modelcontextprotocol.io/specification/2026-07-28/basic#json-schema-usage
// [x-mcp-header]: https://modelcontextprotocol.io/specification/2026-07-28/server/tools#x-mcp-header
// [Custom Headers]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#custom-headers-from-tool-parameters

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

const (
	// schemaMaxDepth bounds how deeply subschemas may nest. Tool arguments
	// are rarely more than a few levels deep; the bound keeps compile and
	// validate recursion shallow, as [JSON Schema Usage] asks of
	// implementations ("a maximum schema depth").
	schemaMaxDepth = 32

	// schemaMaxNodes bounds the number of subschemas in one document ("a cap
	// on the total number of subschemas"). Validation visits each instance
	// value against one subschema, so this also bounds per-value work.
	schemaMaxNodes = 10000

	// schemaMaxErrors bounds the problems one validate call reports: enough
	// for a model to fix several mistakes in one retry, few enough to keep
	// the message short.
	schemaMaxErrors = 10

	// schemaMaxExponent bounds the decimal exponent of numbers we compare,
	// so exponent arithmetic cannot overflow int64. Numbers beyond it (say
	// 1e9999999999999999) are reported as out of range, never rounded.
	schemaMaxExponent = 1_000_000_000_000_000

	// schemaMaxShown bounds how much of an instance value or key a
	// validation message quotes: the peer controls it.
	schemaMaxShown = 64

	// schemaMaxSafeInteger is 2^53-1, the largest integer an IEEE 754 double
	// holds exactly. [x-mcp-header] integer values must lie within ±it.
	schemaMaxSafeInteger = "9007199254740991"

	// schemaWorkBudget bounds the work of one validate call, in units of
	// one value visited or one byte compared (comparison keys, string
	// lengths, patterns): sixteen passes over the largest message. A
	// legitimate argument needs one or two; the bound keeps a hostile one
	// (enum and uniqueItems keys built at every nesting level) well under
	// a second (issue 19, finding 8).
	schemaWorkBudget = 16 * maxLineBytes

	// schemaCheckEvery is how many units of work pass between two looks at
	// the request's context, so that cancellation stops validation.
	schemaCheckEvery = 64 << 10
)

// schemaDialects maps the accepted $schema values to the dialect they name.
// The enforced subset means the same in both dialects. Read-only.
var schemaDialects = map[string]string{
	"https://json-schema.org/draft/2020-12/schema":  "2020-12",
	"https://json-schema.org/draft/2020-12/schema#": "2020-12",
	"http://json-schema.org/draft/2020-12/schema":   "2020-12",
	"http://json-schema.org/draft/2020-12/schema#":  "2020-12",
	"http://json-schema.org/draft-07/schema#":       "draft-07",
	"http://json-schema.org/draft-07/schema":        "draft-07",
	"https://json-schema.org/draft-07/schema#":      "draft-07",
	"https://json-schema.org/draft-07/schema":       "draft-07",
}

// schema is a compiled JSON Schema for tool arguments. It is immutable once
// compileSchema returns it, so validate and headers are safe for concurrent
// use.
//
// What the validator supports, in full:
//
// Dialects: JSON Schema 2020-12, the default when $schema is absent, and
// draft-07 ($schema "http://json-schema.org/draft-07/schema#"). Any other
// $schema is refused. The enforced subset means the same in both.
//
// Enforced: type (one name or an array of names; "integer" is any number
// with no fractional part, so 1.0 is an integer); properties; required;
// additionalProperties (boolean or schema); enum and const (JSON equality,
// numbers compared by value, so 1 equals 1.0); items (one schema for every
// element); minimum, maximum, exclusiveMinimum, exclusiveMaximum and
// multipleOf (exact decimal arithmetic: large integers are never rounded);
// minLength and maxLength (in Unicode code points); pattern (unanchored,
// Go RE2 syntax, see below); minItems, maxItems, uniqueItems; minProperties,
// maxProperties; the boolean schemas true and false. Integer properties
// marked x-mcp-header must also lie within ±(2^53-1).
//
// Accepted and ignored, as annotations: $schema (root only), $id, $comment,
// title, description, default, examples, deprecated, readOnly, writeOnly,
// contentMediaType, contentEncoding, format, and every keyword starting
// with "x-". format is not checked: "email" or "date-time" are hints only.
//
// Refused at compile, naming the keyword and where it is: every other
// keyword, notably $ref, $defs, definitions, allOf, anyOf, oneOf, not, if,
// then, else, dependentRequired, dependentSchemas, dependencies,
// patternProperties, propertyNames, prefixItems, items as an array,
// additionalItems, contains, minContains, maxContains, unevaluatedItems,
// unevaluatedProperties, $anchor, $dynamicRef, and misspelt keywords. Also
// refused: an inputSchema root that is not {"type": "object", ...} (a root
// without type but with properties is taken as type object; an outputSchema
// root may be any schema object), keyword values of the wrong type, patterns
// RE2 cannot compile, nesting deeper than schemaMaxDepth, more than
// schemaMaxNodes subschemas, and x-mcp-header misuse.
//
// Limitations: pattern is Go RE2, not the ECMA-262 dialect JSON Schema
// names. Most differences are refused because the pattern fails to compile
// (lookaround, backreferences, \uXXXX escapes: write \x{XXXX}). A few
// compile in both and differ: \s is ASCII whitespace in RE2 but Unicode
// whitespace in ECMA-262; . excludes only \n in RE2 but also \r, U+2028 and
// U+2029 in ECMA-262; RE2 matches code points where ECMA-262 without the u
// flag matches UTF-16 code units. Numbers whose decimal exponent exceeds
// schemaMaxExponent fail validation wherever a keyword must compare them.
// Validation is linear in the value's size, bounded by schemaWorkBudget,
// and stops when the request's context ends.
type schema struct {
	root *schemaNode
	hdrs []mcpHeader // sorted by Path
}

// mcpHeader is one parameter marked with x-mcp-header: its value is
// mirrored into the HTTP header Mcp-Param-{Name} ([Custom Headers]).
type mcpHeader struct {
	Name string   // the x-mcp-header value, an RFC 9110 token
	Path []string // chain of properties keys from the root to the parameter
	Type string   // "string", "integer" or "boolean"
}

// schemaNode is one compiled subschema. Unset limits are -1 (counts) or
// have set false (numbers).
type schemaNode struct {
	never bool // the boolean schema false
	types schemaTypeSet

	enum      map[string]bool // canonical encodings; nil when absent
	enumText  string          // the enum as JSON, for messages
	enumKinds schemaTypeSet   // the kinds of the enum's values: no other kind can match, and needs no key
	hasConst  bool
	constKey  string // canonical encoding
	constTxt  string
	constKind schemaTypeSet // the const's kind

	minimum, maximum, exclusiveMinimum, exclusiveMaximum schemaLimit
	multipleOf                                           schemaLimit
	multipleOfInt                                        *big.Int // multipleOf digits, as an integer
	safeInteger                                          bool     // an x-mcp-header integer

	minLength, maxLength int
	pattern              *regexp.Regexp

	items              *schemaNode
	minItems, maxItems int
	uniqueItems        bool

	properties                   map[string]*schemaNode
	required                     []string
	additional                   *schemaNode // nil when absent, which allows anything
	allowed                      string      // " (allowed: ...)", for unexpected-property messages
	minProperties, maxProperties int
}

// schemaLimit is a numeric keyword's value: exact, and as written.
type schemaLimit struct {
	set  bool
	d    schemaDecimal
	text string
}

// schemaTypeSet is a set of JSON Schema type names, one bit each.
type schemaTypeSet uint8

const (
	schemaNull schemaTypeSet = 1 << iota
	schemaBoolean
	schemaObject
	schemaArray
	schemaNumber
	schemaString
	schemaInteger
)

// schemaTypeNames lists the JSON Schema type names in message order. Read-only.
var schemaTypeNames = [...]struct {
	name string
	bit  schemaTypeSet
}{
	{"object", schemaObject},
	{"array", schemaArray},
	{"string", schemaString},
	{"integer", schemaInteger},
	{"number", schemaNumber},
	{"boolean", schemaBoolean},
	{"null", schemaNull},
}

// String lists the names in t joined by " or ".
func (t schemaTypeSet) String() string {
	var names []string
	for _, n := range schemaTypeNames {
		if t&n.bit != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, " or ")
}

// compileSchema compiles a tool's inputSchema, a JSON Schema document
// (2020-12, or draft-07 when $schema says so; any other $schema is an error
// naming it) written by the server author. It returns an error naming the
// first keyword it cannot enforce, e.g.
// `schema: keyword "oneOf" at /properties/x is not enforced`; keys are
// visited in sorted order, depth first, so the error is stable.
func compileSchema(raw []byte) (*schema, error) { return compileSchemaDoc(raw, true) }

// compileOutputSchema compiles a tool's outputSchema like compileSchema,
// except that its root may be any schema object, since structuredContent
// may be any JSON value ([§Structured Content]), and x-mcp-header, which
// only inputSchema gives meaning, is left an ignored x- annotation.
//
// [§Structured Content]: https://modelcontextprotocol.io/specification/2026-07-28/server/tools#structured-content
func compileOutputSchema(raw []byte) (*schema, error) { return compileSchemaDoc(raw, false) }

// compileSchemaDoc compiles raw; input selects the inputSchema rules: an
// object root and x-mcp-header.
func compileSchemaDoc(raw []byte, input bool) (*schema, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("schema: unexpected data after the schema")
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema: root must be an object schema, got %s", schemaKind(doc))
	}
	if v, ok := obj["$schema"]; ok {
		s, _ := v.(string)
		if _, ok := schemaDialects[s]; !ok {
			return nil, fmt.Errorf("schema: unsupported $schema %s (want 2020-12 or draft-07)", schemaShow(v))
		}
	}
	c := &schemaCompiler{input: input, headerAt: map[string]string{}}
	if input {
		// [JSON Schema Usage]: inputSchema is an object schema with type object.
		t, hasType := obj["type"]
		if s, _ := t.(string); hasType && s != "object" {
			return nil, fmt.Errorf(`schema: root "type" must be "object", got %s`, schemaShow(t))
		}
		if _, ok := obj["properties"]; !hasType && !ok {
			return nil, errors.New(`schema: root must declare "type": "object"`)
		}
	}
	root, err := c.compile(obj, "", 0, []string{})
	if err != nil {
		return nil, err
	}
	if input {
		root.types = schemaObject
	}
	slices.SortFunc(c.headers, func(a, b mcpHeader) int { return slices.Compare(a.Path, b.Path) })
	return &schema{root: root, hdrs: c.headers}, nil
}

// headers returns the x-mcp-header declarations found at compile time,
// sorted by Path. Callers must not modify the result.
func (s *schema) headers() []mcpHeader { return s.hdrs }

// schemaHeaders finds the x-mcp-header declarations of a schema that
// compileSchema refuses for other reasons (a HandlerValidates tool), under
// the same [x-mcp-header] rules, sorted by Path. An annotation below any
// applicator other than properties (items, anyOf, $defs, ...) is an error,
// as the spec makes the whole tool definition invalid then.
func schemaHeaders(raw []byte) ([]mcpHeader, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	c := &schemaCompiler{headerAt: map[string]string{}}
	if err := c.findHeaders(doc, "", 0, []string{}); err != nil {
		return nil, err
	}
	slices.SortFunc(c.headers, func(a, b mcpHeader) int { return slices.Compare(a.Path, b.Path) })
	return c.headers, nil
}

// schemaKey encodes v so that two JSON values are equal, numbers by
// value and objects regardless of key order, exactly when their keys are.
func schemaKey(v any) (string, error) {
	b, err := appendSchemaKey(nil, v)
	return string(b), err
}

// appendSchemaKey appends the canonical encoding of v to b. Each value's
// encoding is self-delimiting, so concatenations are unambiguous.
func appendSchemaKey(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, 'n'), nil
	case bool:
		if v {
			return append(b, 't'), nil
		}
		return append(b, 'f'), nil
	case json.Number:
		d, err := parseSchemaDecimal(string(v))
		if err != nil {
			return b, err
		}
		b = append(b, '#')
		if d.neg {
			b = append(b, '-')
		}
		b = append(b, d.digits...)
		b = append(b, 'e')
		b = strconv.AppendInt(b, d.exp, 10)
		return append(b, ';'), nil
	case string:
		// AppendQuote grows b to exactly what it needs when it is short,
		// which made a value of many strings cost quadratic time; grow
		// it the way append does, by doubling, first.
		return strconv.AppendQuote(slices.Grow(b, len(v)+2), v), nil
	case []any:
		b = append(b, '[')
		for _, e := range v {
			var err error
			if b, err = appendSchemaKey(b, e); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		b = append(b, '{')
		for _, k := range slices.Sorted(maps.Keys(v)) {
			b = strconv.AppendQuote(slices.Grow(b, len(k)+2), k)
			var err error
			if b, err = appendSchemaKey(b, v[k]); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	}
	return b, fmt.Errorf("unsupported Go value of type %T", v)
}

// schemaKindOf returns the type bit of a decoded value (number for every
// number), 0 for a Go value JSON does not decode to.
func schemaKindOf(v any) schemaTypeSet {
	switch v.(type) {
	case nil:
		return schemaNull
	case bool:
		return schemaBoolean
	case string:
		return schemaString
	case json.Number:
		return schemaNumber
	case []any:
		return schemaArray
	case map[string]any:
		return schemaObject
	}
	return 0
}

// schemaKind names the JSON type of a decoded value.
func schemaKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("Go type %T", v)
}

// schemaShow renders v as JSON for a message, cut to about schemaMaxShown
// bytes. It renders no more of v than it shows: a value a message quotes
// may be the whole 4 MiB argument.
func schemaShow(v any) string {
	b, ok := appendShown(nil, v)
	if !ok {
		return schemaKind(v)
	}
	return schemaTruncate(string(b))
}

// appendShown appends v as JSON to b, stopping once b is longer than
// schemaMaxShown; ok is false for a value JSON cannot encode.
func appendShown(b []byte, v any) (_ []byte, ok bool) {
	if len(b) > schemaMaxShown {
		return b, true
	}
	switch v := v.(type) {
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendShown(b, e); !ok || len(b) > schemaMaxShown {
				return b, ok
			}
		}
		return append(b, ']'), true
	case map[string]any:
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendShown(b, k); !ok {
				return b, false
			}
			b = append(b, ':')
			if b, ok = appendShown(b, v[k]); !ok || len(b) > schemaMaxShown {
				return b, ok
			}
		}
		return append(b, '}'), true
	case string:
		// Enough of the string to fill the message, on a rune boundary.
		if len(v) > 2*schemaMaxShown {
			cut := 2 * schemaMaxShown
			for cut > 0 && !utf8.RuneStart(v[cut]) {
				cut--
			}
			v = v[:cut]
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b, false
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), true
}

// schemaTruncate cuts s to about schemaMaxShown bytes on a rune boundary, marking the cut.
func schemaTruncate(s string) string {
	if len(s) <= schemaMaxShown {
		return s
	}
	cut := schemaMaxShown - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// schemaEscape escapes a JSON Pointer reference token (RFC 6901 §3).
func schemaEscape(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		// Nearly every name: a replacer built per call was half of the
		// compilation of the demo's schemas at start-up (issue 16).
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// schemaWhere names a schema location for messages.
func schemaWhere(ptr string) string {
	if ptr == "" {
		return "the root"
	}
	return ptr
}
