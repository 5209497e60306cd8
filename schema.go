// JSON Schema for tool inputSchema: MCP 2026-07-28 basic "JSON Schema Usage",
// server/tools "x-mcp-header" and basic/transports/streamable-http "Custom
// Headers from Tool Parameters"; a subset of the JSON Schema 2020-12 (and
// draft-07) validation vocabulary.
//
// [JSON Schema Usage]: https://modelcontextprotocol.io/specification/2026-07-28/basic#json-schema-usage
// [x-mcp-header]: https://modelcontextprotocol.io/specification/2026-07-28/server/tools#x-mcp-header
// [Custom Headers]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#custom-headers-from-tool-parameters

package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/big"
	"math/bits"
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

	enum     map[string]bool // canonical encodings; nil when absent
	enumText string          // the enum as JSON, for messages
	hasConst bool
	constKey string // canonical encoding
	constTxt string

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

// schemaApplicators are the keywords whose values are subschemas, by
// shape: one schema, an array of schemas, or an object of schemas. Only
// properties keeps a parameter statically reachable ([Custom Headers]).
var schemaApplicators = map[string]byte{
	"items": 's', "additionalItems": 's', "additionalProperties": 's', "contains": 's',
	"propertyNames": 's', "not": 's', "if": 's', "then": 's', "else": 's',
	"unevaluatedItems": 's', "unevaluatedProperties": 's',
	"allOf": 'a', "anyOf": 'a', "oneOf": 'a', "prefixItems": 'a',
	"$defs": 'o', "definitions": 'o', "patternProperties": 'o', "dependentSchemas": 'o', "dependencies": 'o',
}

// findHeaders records the x-mcp-header annotations in the subschema v at
// ptr, reached by hpath (nil when not statically reachable), and below it.
func (c *schemaCompiler) findHeaders(v any, ptr string, depth int, hpath []string) error {
	if depth > schemaMaxDepth {
		return fmt.Errorf("schema: nesting deeper than %d at %s", schemaMaxDepth, ptr)
	}
	switch v := v.(type) {
	case []any: // items in array form (draft-07)
		for i, sub := range v {
			if err := c.findHeaders(sub, fmt.Sprintf("%s/%d", ptr, i), depth+1, nil); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		if name, ok := v["x-mcp-header"]; ok {
			n := &schemaNode{}
			if t, ok := v["type"]; ok {
				var err error
				if n.types, err = compileSchemaType(t); err != nil {
					return fmt.Errorf("schema: %s/type: %w", ptr, err)
				}
			}
			if err := c.compileHeader(n, name, ptr, hpath); err != nil {
				return err
			}
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			kp := ptr + "/" + schemaEscape(k)
			shape, sub := schemaApplicators[k], v[k]
			if k == "properties" {
				shape = 'p'
			}
			switch shape {
			case 's', 'a':
				if err := c.findHeaders(sub, kp, depth+1, nil); err != nil {
					return err
				}
			case 'o', 'p':
				m, _ := sub.(map[string]any)
				for _, name := range slices.Sorted(maps.Keys(m)) {
					var child []string
					if shape == 'p' && hpath != nil {
						child = append(slices.Clip(hpath), name)
					}
					if err := c.findHeaders(m[name], kp+"/"+schemaEscape(name), depth+1, child); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// schemaCompiler holds the state of one compileSchema call.
type schemaCompiler struct {
	input    bool // inputSchema rules apply
	nodes    int
	headers  []mcpHeader
	headerAt map[string]string // lower-cased x-mcp-header value to its schema location
}

// compile compiles the subschema v found at schema pointer ptr, depth levels
// below the root. hpath is the chain of properties keys leading to v, or nil
// when v is not statically reachable ([Custom Headers]).
func (c *schemaCompiler) compile(v any, ptr string, depth int, hpath []string) (*schemaNode, error) {
	c.nodes++
	if c.nodes > schemaMaxNodes {
		return nil, fmt.Errorf("schema: more than %d subschemas", schemaMaxNodes)
	}
	if depth > schemaMaxDepth {
		return nil, fmt.Errorf("schema: nesting deeper than %d at %s", schemaMaxDepth, ptr)
	}
	var obj map[string]any
	switch v := v.(type) {
	case bool:
		return &schemaNode{never: !v, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, minProperties: -1, maxProperties: -1}, nil
	case map[string]any:
		obj = v
	default:
		return nil, fmt.Errorf("schema: %s: want a schema (object or boolean), got %s", schemaWhere(ptr), schemaKind(v))
	}
	n := &schemaNode{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, minProperties: -1, maxProperties: -1}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		val := obj[k]
		kp := ptr + "/" + schemaEscape(k)
		var err error
		switch k {
		case "type":
			n.types, err = compileSchemaType(val)
		case "properties":
			if err := c.compileProperties(n, val, kp, depth, hpath); err != nil {
				return nil, err
			}
		case "required":
			n.required, err = compileSchemaRequired(val)
		case "additionalProperties":
			if n.additional, err = c.compile(val, kp, depth+1, nil); err != nil {
				return nil, err
			}
		case "items":
			if _, ok := val.([]any); ok {
				return nil, fmt.Errorf(`schema: keyword "items" (array form) at %s is not enforced`, schemaWhere(ptr))
			}
			if n.items, err = c.compile(val, kp, depth+1, nil); err != nil {
				return nil, err
			}
		case "enum":
			err = compileSchemaEnum(n, val)
		case "const":
			n.hasConst = true
			n.constKey, err = schemaKey(val)
			n.constTxt = schemaShow(val)
		case "minimum":
			n.minimum, err = compileSchemaNumber(val)
		case "maximum":
			n.maximum, err = compileSchemaNumber(val)
		case "exclusiveMinimum":
			n.exclusiveMinimum, err = compileSchemaNumber(val)
		case "exclusiveMaximum":
			n.exclusiveMaximum, err = compileSchemaNumber(val)
		case "multipleOf":
			n.multipleOf, err = compileSchemaNumber(val)
			if err == nil && (n.multipleOf.d.digits == "" || n.multipleOf.d.neg) {
				err = errors.New("want a number greater than 0")
			}
			if err == nil {
				n.multipleOfInt, _ = new(big.Int).SetString(n.multipleOf.d.digits, 10)
			}
		case "minLength":
			n.minLength, err = compileSchemaCount(val)
		case "maxLength":
			n.maxLength, err = compileSchemaCount(val)
		case "minItems":
			n.minItems, err = compileSchemaCount(val)
		case "maxItems":
			n.maxItems, err = compileSchemaCount(val)
		case "minProperties":
			n.minProperties, err = compileSchemaCount(val)
		case "maxProperties":
			n.maxProperties, err = compileSchemaCount(val)
		case "pattern":
			s, ok := val.(string)
			if !ok {
				err = fmt.Errorf("want a string, got %s", schemaKind(val))
				break
			}
			n.pattern, err = regexp.Compile(s)
		case "uniqueItems":
			n.uniqueItems, err = compileSchemaBool(val)
		case "$schema":
			if ptr != "" {
				err = errors.New("only allowed at the root")
			}
		case "$id", "$comment", "title", "description", "format", "contentMediaType", "contentEncoding":
			if _, ok := val.(string); !ok {
				err = fmt.Errorf("want a string, got %s", schemaKind(val))
			}
		case "deprecated", "readOnly", "writeOnly":
			_, err = compileSchemaBool(val)
		case "examples":
			if _, ok := val.([]any); !ok {
				err = fmt.Errorf("want an array, got %s", schemaKind(val))
			}
		case "default", "x-mcp-header":
			// default is any value; x-mcp-header is checked below, once type is known.
		default:
			if strings.HasPrefix(k, "x-") {
				continue
			}
			return nil, fmt.Errorf("schema: keyword %q at %s is not enforced", k, schemaWhere(ptr))
		}
		if err != nil {
			return nil, fmt.Errorf("schema: %s: %w", kp, err)
		}
	}
	if n.additional != nil && n.additional.never {
		n.allowed = schemaAllowedHint(n.properties)
	}
	if name, ok := obj["x-mcp-header"]; ok && c.input {
		if err := c.compileHeader(n, name, ptr, hpath); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// compileProperties compiles the properties keyword val at kp into n.
func (c *schemaCompiler) compileProperties(n *schemaNode, val any, kp string, depth int, hpath []string) error {
	props, ok := val.(map[string]any)
	if !ok {
		return fmt.Errorf("schema: %s: want an object, got %s", kp, schemaKind(val))
	}
	n.properties = make(map[string]*schemaNode, len(props))
	for _, name := range slices.Sorted(maps.Keys(props)) {
		var child []string // a fresh array each time: mcpHeader.Path keeps it
		if hpath != nil {
			child = append(slices.Clip(hpath), name)
		}
		sub, err := c.compile(props[name], kp+"/"+schemaEscape(name), depth+1, child)
		if err != nil {
			return err
		}
		n.properties[name] = sub
	}
	return nil
}

// compileHeader checks an x-mcp-header annotation with value val on the
// subschema n at ptr, reached by hpath, against [x-mcp-header], and records it.
func (c *schemaCompiler) compileHeader(n *schemaNode, val any, ptr string, hpath []string) error {
	if len(hpath) == 0 {
		return fmt.Errorf(`schema: x-mcp-header at %s: only allowed on a property reached from the root through "properties" alone`, schemaWhere(ptr))
	}
	name, ok := val.(string)
	if !ok {
		return fmt.Errorf("schema: x-mcp-header at %s: want a string, got %s", ptr, schemaKind(val))
	}
	if name == "" {
		return fmt.Errorf("schema: x-mcp-header at %s: must not be empty", ptr)
	}
	if !schemaIsToken(name) {
		// RFC 9110 §5.1: a field name is a token, 1*tchar (§5.6.2),
		// which also excludes CR, LF and every other control character.
		return fmt.Errorf("schema: x-mcp-header %s at %s: not an HTTP field-name token (RFC 9110 section 5.6.2)", schemaShow(name), ptr)
	}
	if bits.OnesCount8(uint8(n.types)) != 1 || n.types&(schemaString|schemaInteger|schemaBoolean) == 0 {
		return fmt.Errorf(`schema: x-mcp-header %q at %s: the property must have "type" "string", "integer" or "boolean"`, name, ptr)
	}
	low := strings.ToLower(name)
	if prev, dup := c.headerAt[low]; dup {
		return fmt.Errorf("schema: x-mcp-header %q at %s: duplicates the one at %s (names are case-insensitive)", name, ptr, prev)
	}
	c.headerAt[low] = ptr
	n.safeInteger = n.types == schemaInteger
	c.headers = append(c.headers, mcpHeader{Name: name, Path: hpath, Type: n.types.String()})
	return nil
}

// schemaIsToken reports whether s is 1*tchar (RFC 9110 §5.6.2).
func schemaIsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0:
		default:
			return false
		}
	}
	return true
}

// compileSchemaType parses the type keyword: a type name or a non-empty array of
// distinct names.
func compileSchemaType(v any) (schemaTypeSet, error) {
	one := func(v any) (schemaTypeSet, error) {
		s, ok := v.(string)
		if !ok {
			return 0, fmt.Errorf("want a type name, got %s", schemaKind(v))
		}
		for _, n := range schemaTypeNames {
			if n.name == s {
				return n.bit, nil
			}
		}
		return 0, fmt.Errorf("unknown type %s", schemaShow(s))
	}
	list, ok := v.([]any)
	if !ok {
		return one(v)
	}
	if len(list) == 0 {
		return 0, errors.New("want at least one type")
	}
	var set schemaTypeSet
	for _, e := range list {
		t, err := one(e)
		if err != nil {
			return 0, err
		}
		if set&t != 0 {
			return 0, fmt.Errorf("duplicate type %q", t)
		}
		set |= t
	}
	return set, nil
}

// compileSchemaRequired parses the required keyword: an array of distinct strings.
func compileSchemaRequired(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want an array of strings, got %s", schemaKind(v))
	}
	names := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("want an array of strings, got an element of type %s", schemaKind(e))
		}
		if slices.Contains(names, s) {
			return nil, fmt.Errorf("duplicate %q", s)
		}
		names = append(names, s)
	}
	return names, nil
}

// compileSchemaEnum parses the enum keyword into n.
func compileSchemaEnum(n *schemaNode, v any) error {
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("want an array, got %s", schemaKind(v))
	}
	n.enum = make(map[string]bool, len(list))
	for _, e := range list {
		k, err := schemaKey(e)
		if err != nil {
			return err
		}
		n.enum[k] = true
	}
	n.enumText = schemaShow(list)
	return nil
}

// compileSchemaNumber parses a numeric keyword value.
func compileSchemaNumber(v any) (schemaLimit, error) {
	num, ok := v.(json.Number)
	if !ok {
		return schemaLimit{}, fmt.Errorf("want a number, got %s", schemaKind(v))
	}
	d, err := parseSchemaDecimal(string(num))
	if err != nil {
		return schemaLimit{}, err
	}
	return schemaLimit{set: true, d: d, text: string(num)}, nil
}

// compileSchemaCount parses a non-negative integer keyword value such as
// minLength; 2.0 counts as 2, and values beyond int saturate.
func compileSchemaCount(v any) (int, error) {
	l, err := compileSchemaNumber(v)
	if err != nil {
		return 0, err
	}
	if l.d.neg || !l.d.isInteger() {
		return 0, fmt.Errorf("want a non-negative integer, got %s", l.text)
	}
	if l.d.digits == "" {
		return 0, nil
	}
	if int64(len(l.d.digits))+l.d.exp > 18 {
		return math.MaxInt, nil
	}
	n, err := strconv.ParseInt(l.d.digits+strings.Repeat("0", int(l.d.exp)), 10, 64)
	if err != nil {
		return 0, err
	}
	return int(min(n, math.MaxInt)), nil
}

// compileSchemaBool parses a boolean keyword value.
func compileSchemaBool(v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("want a boolean, got %s", schemaKind(v))
	}
	return b, nil
}

// schemaAllowedHint lists the declared properties for an unexpected-property
// message, so a model can correct a misspelt name.
func schemaAllowedHint(props map[string]*schemaNode) string {
	if len(props) == 0 {
		return " (no properties allowed)"
	}
	names := slices.Sorted(maps.Keys(props))
	const most = 10
	var b strings.Builder
	b.WriteString(" (allowed: ")
	for i, name := range names {
		if i == most {
			b.WriteString(", ...")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(name))
	}
	b.WriteString(")")
	return b.String()
}

// validate reports whether v conforms to s. v is a value decoded by
// encoding/json with UseNumber: map[string]any, []any, json.Number, string,
// bool or nil. The error lists the problems separated by "; ", stopping at
// schemaMaxErrors; each names the instance path (a JSON Pointer, omitted at
// the root) and the rule, e.g. `/a: want number, got string` or
// `/b: missing required property "c"`. It is written for a language model
// that must correct its call; the caller adds any prefix.
func (s *schema) validate(v any) error {
	var vd schemaValidator
	vd.check(s.root, v)
	if len(vd.errs) == 0 {
		return nil
	}
	msg := strings.Join(vd.errs, "; ")
	if len(vd.errs) >= schemaMaxErrors {
		msg += fmt.Sprintf("; stopped after %d problems", schemaMaxErrors)
	}
	return errors.New(msg)
}

// schemaValidator collects the problems of one validate call.
type schemaValidator struct {
	path []string // instance path tokens, unescaped
	errs []string // at most schemaMaxErrors; validation stops there
}

// fail records a problem at the current instance path.
func (vd *schemaValidator) fail(format string, args ...any) {
	if len(vd.errs) >= schemaMaxErrors {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if len(vd.path) > 0 {
		var b strings.Builder
		for _, tok := range vd.path {
			b.WriteByte('/')
			b.WriteString(schemaEscape(schemaTruncate(tok)))
		}
		msg = b.String() + ": " + msg
	}
	vd.errs = append(vd.errs, msg)
}

// check validates v against n, descending into arrays and objects.
func (vd *schemaValidator) check(n *schemaNode, v any) {
	if len(vd.errs) >= schemaMaxErrors {
		return
	}
	if n.never {
		vd.fail("no value allowed here")
		return
	}
	var got schemaTypeSet
	switch v.(type) {
	case nil:
		got = schemaNull
	case bool:
		got = schemaBoolean
	case string:
		got = schemaString
	case json.Number:
		got = schemaNumber
	case []any:
		got = schemaArray
	case map[string]any:
		got = schemaObject
	default:
		vd.fail("unsupported Go value of type %T", v)
		return
	}
	if n.types != 0 && n.types&got == 0 && !(got == schemaNumber && n.types&schemaInteger != 0) {
		vd.fail("want %s, got %s", n.types, got)
		return
	}
	var num schemaDecimal
	if got == schemaNumber {
		// Past the type check, a set without number holds integer.
		wantInteger := n.types != 0 && n.types&schemaNumber == 0
		if wantInteger || n.needsNumber() {
			var err error
			if num, err = parseSchemaDecimal(string(v.(json.Number))); err != nil {
				vd.fail("%v", err)
				return
			}
			if wantInteger && !num.isInteger() {
				vd.fail("want %s, got %s", n.types, schemaShow(v))
				return
			}
		}
	}
	if n.enum != nil || n.hasConst {
		k, err := schemaKey(v)
		if err != nil {
			vd.fail("%v", err)
			return
		}
		if n.enum != nil && !n.enum[k] {
			vd.fail("want one of %s, got %s", n.enumText, schemaShow(v))
		}
		if n.hasConst && k != n.constKey {
			vd.fail("want %s, got %s", n.constTxt, schemaShow(v))
		}
	}
	switch v := v.(type) {
	case json.Number:
		if n.needsNumber() {
			vd.checkNumber(n, num, string(v))
		}
	case string:
		vd.checkString(n, v)
	case []any:
		vd.checkArray(n, v)
	case map[string]any:
		vd.checkObject(n, v)
	}
}

// needsNumber reports whether n compares numbers by value.
func (n *schemaNode) needsNumber() bool {
	return n.minimum.set || n.maximum.set || n.exclusiveMinimum.set || n.exclusiveMaximum.set || n.multipleOf.set || n.safeInteger
}

// checkNumber applies the numeric keywords of n to d, written text.
func (vd *schemaValidator) checkNumber(n *schemaNode, d schemaDecimal, text string) {
	text = schemaTruncate(text)
	if n.minimum.set && d.cmp(n.minimum.d) < 0 {
		vd.fail("want >= %s, got %s", n.minimum.text, text)
	}
	if n.exclusiveMinimum.set && d.cmp(n.exclusiveMinimum.d) <= 0 {
		vd.fail("want > %s, got %s", n.exclusiveMinimum.text, text)
	}
	if n.maximum.set && d.cmp(n.maximum.d) > 0 {
		vd.fail("want <= %s, got %s", n.maximum.text, text)
	}
	if n.exclusiveMaximum.set && d.cmp(n.exclusiveMaximum.d) >= 0 {
		vd.fail("want < %s, got %s", n.exclusiveMaximum.text, text)
	}
	if n.multipleOf.set && !d.multipleOf(n.multipleOf.d, n.multipleOfInt) {
		vd.fail("want a multiple of %s, got %s", n.multipleOf.text, text)
	}
	if n.safeInteger {
		// [x-mcp-header]: integer values must be exact in an IEEE 754 double.
		limit := schemaDecimal{digits: schemaMaxSafeInteger}
		mag := d
		mag.neg = false
		if mag.cmp(limit) > 0 {
			vd.fail("want an integer from -%s to %s (sent as a header), got %s", schemaMaxSafeInteger, schemaMaxSafeInteger, text)
		}
	}
}

// checkString applies the string keywords of n to s.
func (vd *schemaValidator) checkString(n *schemaNode, s string) {
	if n.minLength >= 0 || n.maxLength >= 0 {
		c := utf8.RuneCountInString(s)
		if n.minLength >= 0 && c < n.minLength {
			vd.fail("want at least %d characters, got %d", n.minLength, c)
		}
		if n.maxLength >= 0 && c > n.maxLength {
			vd.fail("want at most %d characters, got %d", n.maxLength, c)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		vd.fail("want a string matching %s, got %s", schemaShow(n.pattern.String()), schemaShow(s))
	}
}

// checkArray applies the array keywords of n to a.
func (vd *schemaValidator) checkArray(n *schemaNode, a []any) {
	if n.minItems >= 0 && len(a) < n.minItems {
		vd.fail("want at least %d items, got %d", n.minItems, len(a))
	}
	if n.maxItems >= 0 && len(a) > n.maxItems {
		vd.fail("want at most %d items, got %d", n.maxItems, len(a))
	}
	if n.uniqueItems {
		seen := make(map[string]int, len(a))
		for i, e := range a {
			k, err := schemaKey(e)
			if err != nil {
				vd.fail("%v", err)
				break
			}
			if j, dup := seen[k]; dup {
				vd.fail("want unique items, items %d and %d are equal", j, i)
				break
			}
			seen[k] = i
		}
	}
	if n.items != nil {
		for i, e := range a {
			if len(vd.errs) >= schemaMaxErrors {
				return
			}
			vd.path = append(vd.path, strconv.Itoa(i))
			vd.check(n.items, e)
			vd.path = vd.path[:len(vd.path)-1]
		}
	}
}

// checkObject applies the object keywords of n to o.
func (vd *schemaValidator) checkObject(n *schemaNode, o map[string]any) {
	for _, name := range n.required {
		if _, ok := o[name]; !ok {
			vd.fail("missing required property %q", name)
		}
	}
	if n.minProperties >= 0 && len(o) < n.minProperties {
		vd.fail("want at least %d properties, got %d", n.minProperties, len(o))
	}
	if n.maxProperties >= 0 && len(o) > n.maxProperties {
		vd.fail("want at most %d properties, got %d", n.maxProperties, len(o))
	}
	if len(n.properties) == 0 && n.additional == nil {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(o)) {
		if len(vd.errs) >= schemaMaxErrors {
			return
		}
		sub, ok := n.properties[k]
		if !ok {
			sub = n.additional
		}
		switch {
		case sub == nil:
		case !ok && sub.never:
			vd.fail("unexpected property %s%s", schemaShow(k), n.allowed)
		default:
			vd.path = append(vd.path, k)
			vd.check(sub, o[k])
			vd.path = vd.path[:len(vd.path)-1]
		}
	}
}

// schemaDecimal is an exact decimal number: the integer digits × 10^exp.
// digits has no leading or trailing zeros, and is "" for zero, which is
// never neg.
type schemaDecimal struct {
	neg    bool
	digits string
	exp    int64
}

// parseSchemaDecimal parses a JSON number (RFC 8259 §6) exactly. Its error
// text is fit for a validation message.
func parseSchemaDecimal(s string) (schemaDecimal, error) {
	bad := func() error { return fmt.Errorf("invalid number %s", schemaTruncate(s)) }
	i := 0
	digitsFrom := func() string {
		from := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return s[from:i]
	}
	var d schemaDecimal
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	whole := digitsFrom()
	if whole == "" || len(whole) > 1 && whole[0] == '0' {
		return schemaDecimal{}, bad()
	}
	var frac string
	if i < len(s) && s[i] == '.' {
		i++
		if frac = digitsFrom(); frac == "" {
			return schemaDecimal{}, bad()
		}
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		e := digitsFrom()
		if e == "" {
			return schemaDecimal{}, bad()
		}
		e = strings.TrimLeft(e, "0")
		if len(e) > 16 {
			return schemaDecimal{}, fmt.Errorf("number %s out of range", schemaTruncate(s))
		}
		if e != "" {
			exp, _ = strconv.ParseInt(e, 10, 64)
		}
		if exp > schemaMaxExponent {
			return schemaDecimal{}, fmt.Errorf("number %s out of range", schemaTruncate(s))
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) {
		return schemaDecimal{}, bad()
	}
	all := strings.TrimLeft(whole+frac, "0")
	if all == "" {
		return schemaDecimal{}, nil
	}
	d.digits = strings.TrimRight(all, "0")
	d.exp = exp - int64(len(frac)) + int64(len(all)-len(d.digits))
	return d, nil
}

// isInteger reports whether d has no fractional part.
func (d schemaDecimal) isInteger() bool { return d.digits == "" || d.exp >= 0 }

// sign returns -1, 0 or 1.
func (d schemaDecimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// cmp compares d and e exactly, returning -1, 0 or 1.
func (d schemaDecimal) cmp(e schemaDecimal) int {
	ds, es := d.sign(), e.sign()
	if ds != es || ds == 0 {
		return cmp.Compare(ds, es)
	}
	// Both non-zero with the same sign: compare magnitudes by the position
	// of the leading digit, then digit by digit.
	mag := cmp.Compare(int64(len(d.digits))+d.exp, int64(len(e.digits))+e.exp)
	if mag == 0 {
		mag = strings.Compare(d.digits, e.digits)
	}
	return mag * ds
}

// multipleOf reports whether d is an integer multiple of m, which is
// positive and whose digits are mInt. With d = V×10^a and m = M×10^b, and
// neither V nor M ending in 0: if a < b, the quotient needs 10 | V, which
// fails; otherwise M must divide V×10^(a-b), tested as M/g | 10^(a-b) with
// g = gcd(M, V mod M). The work is linear in the digits of d, whatever
// its exponent.
func (d schemaDecimal) multipleOf(m schemaDecimal, mInt *big.Int) bool {
	if d.digits == "" {
		return true
	}
	if d.exp < m.exp {
		return false
	}
	// V mod M, 18 digits at a time: the first chunk takes the remainder
	// so every later one is exactly 18 digits long.
	r, chunk, step := new(big.Int), new(big.Int), big.NewInt(1e18)
	for s, k := d.digits, len(d.digits)%18; s != ""; k = 18 {
		if k == 0 {
			k = 18
		}
		chunk.SetString(s[:k], 10)
		r.Mul(r, step)
		r.Add(r, chunk)
		r.Mod(r, mInt)
		s = s[k:]
	}
	if r.Sign() == 0 {
		return true
	}
	rest := new(big.Int).Div(mInt, new(big.Int).GCD(nil, nil, r, mInt))
	var twos, fives int64
	two, five, q, rem := big.NewInt(2), big.NewInt(5), new(big.Int), new(big.Int)
	for {
		if q.QuoRem(rest, two, rem); rem.Sign() != 0 {
			break
		}
		rest.Set(q)
		twos++
	}
	for {
		if q.QuoRem(rest, five, rem); rem.Sign() != 0 {
			break
		}
		rest.Set(q)
		fives++
	}
	k := d.exp - m.exp
	return rest.Cmp(big.NewInt(1)) == 0 && k >= twos && k >= fives
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
		return strconv.AppendQuote(b, v), nil
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
			b = strconv.AppendQuote(b, k)
			var err error
			if b, err = appendSchemaKey(b, v[k]); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	}
	return b, fmt.Errorf("unsupported Go value of type %T", v)
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

// schemaShow renders v as JSON for a message, cut to about schemaMaxShown bytes.
func schemaShow(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return schemaKind(v)
	}
	return schemaTruncate(strings.TrimSuffix(buf.String(), "\n"))
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
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(tok)
}

// schemaWhere names a schema location for messages.
func schemaWhere(ptr string) string {
	if ptr == "" {
		return "the root"
	}
	return ptr
}
