// JSON Schema for tool inputSchema, MCP 2026-07-28 ([JSON Schema Usage], [x-mcp-header],
// [Custom Headers]): a subset of the JSON Schema 2020-12 (and draft-07) validation vocabulary.
// Here the limits, compiled form and shared helpers; schema_compile.go compiles,
// schema_validate.go validates, schema_decimal.go holds exact numbers.
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
	// schemaMaxDepth bounds subschema nesting ([JSON Schema Usage]), keeping recursion shallow.
	schemaMaxDepth = 32

	// schemaMaxNodes bounds the subschemas of one document ([JSON Schema Usage]), so work per value.
	schemaMaxNodes = 10000

	// schemaMaxErrors bounds the problems one validate reports: several per retry, a short message.
	schemaMaxErrors = 10

	// schemaMaxExponent bounds the decimal exponent of numbers compared: no int64 overflow.
	schemaMaxExponent = 1_000_000_000_000_000

	// schemaMaxShown bounds how much of a peer's value or key a message quotes.
	schemaMaxShown = 64

	// schemaMaxSafeInteger is 2^53-1, the largest integer a double holds exactly; [x-mcp-header]
	// integers must lie within ±it.
	schemaMaxSafeInteger = "9007199254740991"

	// schemaWorkBudget bounds the work of one validate call, in units of one value visited or
	// one byte compared: sixteen passes over the largest message. TestAttackQuadraticValidation.
	schemaWorkBudget = 16 * maxLineBytes

	// schemaCheckEvery is the work units between looks at the request's context (cancellation).
	schemaCheckEvery = 64 << 10
)

// schema is a compiled JSON Schema for tool arguments, immutable once compileSchema returns it:
// validate and headers are safe for concurrent use. What it supports, in full:
//
// Dialects: 2020-12, the default, and draft-07 ($schema
// "http://json-schema.org/draft-07/schema#"); the subset means the same in both.
//
// Enforced: type ("integer" is any number with no fractional part, so 1.0 is one); properties;
// required; additionalProperties; enum and const (JSON equality, numbers by value); items (one
// schema for every element); minimum, maximum, exclusiveMinimum, exclusiveMaximum and
// multipleOf (exact decimals); minLength and maxLength (in code points); pattern (unanchored);
// minItems, maxItems, uniqueItems; minProperties, maxProperties; the boolean schemas; ±(2^53-1)
// for an integer x-mcp-header property.
//
// Ignored, as annotations: $schema (root only), $id, $comment, title, description, default,
// examples, deprecated, readOnly, writeOnly, contentMediaType, contentEncoding, format (not
// checked), and "x-" keywords.
//
// Refused at compile, naming the keyword and where: any other keyword ($ref, allOf, anyOf,
// oneOf, items as an array, misspellings, ...), another $schema, an inputSchema root that is
// not {"type": "object"} (properties without type count as one; an outputSchema root may be any
// schema), values of the wrong type, patterns RE2 cannot compile, more than schemaMaxDepth
// levels or schemaMaxNodes subschemas, x-mcp-header misuse.
//
// Limitations: pattern is Go RE2, not ECMA-262 (docs/GAPS.md): lookaround, backreferences and
// \uXXXX (write \x{XXXX}) fail to compile; in RE2, \s is ASCII white space only, . excludes
// only \n (not \r, U+2028, U+2029), and matching is by code point, not UTF-16 unit. A number
// whose decimal exponent exceeds schemaMaxExponent fails every keyword that compares it.
type schema struct {
	root *schemaNode
	hdrs []mcpHeader // sorted by Path
}

// mcpHeader is one x-mcp-header parameter, mirrored into header Mcp-Param-{Name} ([Custom Headers]).
type mcpHeader struct {
	Name string   // the x-mcp-header value, an RFC 9110 token
	Path []string // chain of properties keys from the root to the parameter
	Type string   // "string", "integer" or "boolean"
}

// schemaNode is one compiled subschema; unset limits are -1 (counts) or have set false (numbers).
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

// compileSchema compiles a tool's inputSchema under the rules on schema. Its error names the
// first keyword it cannot enforce, in a stable order (sorted keys, depth first): `schema:
// keyword "oneOf" at /x is not enforced`.
func compileSchema(raw []byte) (*schema, error) { return compileSchemaDoc(raw, true) }

// compileOutputSchema compiles a tool's outputSchema like compileSchema, but its root may be
// any schema, as structuredContent may be any value ([§Structured Content]), and x-mcp-header
// is an ignored x- annotation.
//
// [§Structured Content]: https://modelcontextprotocol.io/specification/2026-07-28/server/tools#structured-content
func compileOutputSchema(raw []byte) (*schema, error) { return compileSchemaDoc(raw, false) }

// compileSchemaDoc compiles raw; input selects the inputSchema rules (object root, x-mcp-header).
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
		return nil, fmt.Errorf("schema: root must be an object schema, got %s", schemaKindOf(doc))
	}
	if v, ok := obj["$schema"]; ok {
		// 2020-12 or draft-07, by http or https, with or without the empty fragment.
		s, _ := v.(string)
		s = strings.Replace(strings.TrimSuffix(s, "#"), "http://", "https://", 1)
		if s != "https://json-schema.org/draft/2020-12/schema" &&
			s != "https://json-schema.org/draft-07/schema" {
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

// headers returns the x-mcp-header declarations found at compile time, sorted by Path; read-only.
func (s *schema) headers() []mcpHeader { return s.hdrs }

// schemaHeaders finds, sorted by Path, the x-mcp-header declarations of a schema compileSchema
// refuses (a HandlerValidates tool), same rules: one below an applicator but properties errs.
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

// schemaKey encodes v so that two JSON values are equal, numbers by value and objects
// regardless of key order, exactly when their keys are.
func schemaKey(v any) (string, error) {
	b, err := appendSchemaKey(nil, v)
	return string(b), err
}

// appendSchemaKey appends v's canonical encoding, self-delimiting so concatenations are unambiguous.
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
		// Grow by doubling first: AppendQuote alone grows b by exactly what it needs, quadratic
		// over many strings (TestAttackQuadraticValidation).
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

// schemaKindOf returns the type bit of a decoded value (number for every number), else 0.
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

// schemaShow renders v as JSON for a message, cut to about schemaMaxShown bytes, no more rendered.
func schemaShow(v any) string {
	b, ok := appendShown(nil, v)
	if !ok {
		return schemaKindOf(v).String()
	}
	return schemaTruncate(string(b))
}

// appendShown appends v as JSON to b until b passes schemaMaxShown; ok is false if JSON can't.
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
			return appendShown(b, v[:cut])
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
