// Compiling a JSON Schema into schemaNodes under the rules on schema, collecting x-mcp-header.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic#json-schema-usage,
// https://modelcontextprotocol.io/specification/2026-07-28/server/tools#x-mcp-header,
// https://json-schema.org/draft/2020-12/json-schema-validation.

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// schemaApplicators are the keywords whose values are subschemas, by shape (a schema, an array or
// an object of them); only properties keeps a parameter statically reachable ([Custom Headers]).
var schemaApplicators = map[string]byte{
	"items": 's', "additionalItems": 's', "additionalProperties": 's', "contains": 's',
	"propertyNames": 's', "not": 's', "if": 's', "then": 's', "else": 's',
	"unevaluatedItems": 's', "unevaluatedProperties": 's',
	"allOf": 'a', "anyOf": 'a', "oneOf": 'a', "prefixItems": 'a',
	"$defs": 'o', "definitions": 'o', "patternProperties": 'o', "dependentSchemas": 'o', "dependencies": 'o',
}

// findHeaders records the x-mcp-header annotations in the subschema v at ptr, reached by hpath
// (nil when not statically reachable), and below it.
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

// compile compiles the subschema v at schema pointer ptr, depth levels below the root; hpath is
// the chain of properties keys to v, nil when v is not statically reachable ([Custom Headers]).
func (c *schemaCompiler) compile(v any, ptr string, depth int, hpath []string) (*schemaNode, error) {
	c.nodes++
	if c.nodes > schemaMaxNodes {
		return nil, fmt.Errorf("schema: more than %d subschemas", schemaMaxNodes)
	}
	if depth > schemaMaxDepth {
		return nil, fmt.Errorf("schema: nesting deeper than %d at %s", schemaMaxDepth, ptr)
	}
	n := &schemaNode{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, minProperties: -1, maxProperties: -1}
	var obj map[string]any
	switch v := v.(type) {
	case bool:
		n.never = !v
		return n, nil
	case map[string]any:
		obj = v
	default:
		return nil, fmt.Errorf("schema: %s: want a schema (object or boolean), got %s", schemaWhere(ptr), schemaKindOf(v))
	}
	counts := map[string]*int{"minLength": &n.minLength, "maxLength": &n.maxLength, "minItems": &n.minItems,
		"maxItems": &n.maxItems, "minProperties": &n.minProperties, "maxProperties": &n.maxProperties}
	limits := map[string]*schemaLimit{"minimum": &n.minimum, "maximum": &n.maximum,
		"exclusiveMinimum": &n.exclusiveMinimum, "exclusiveMaximum": &n.exclusiveMaximum}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		val := obj[k]
		kp := ptr + "/" + schemaEscape(k)
		var err error
		switch k {
		case "type":
			n.types, err = compileSchemaType(val)
		case "properties":
			props, ok := val.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("schema: %s: want an object, got %s", kp, schemaKindOf(val))
			}
			n.properties = make(map[string]*schemaNode, len(props))
			for _, name := range slices.Sorted(maps.Keys(props)) {
				var child []string // a fresh array each time: mcpHeader.Path keeps it
				if hpath != nil {
					child = append(slices.Clip(hpath), name)
				}
				n.properties[name], err = c.compile(props[name], kp+"/"+schemaEscape(name), depth+1, child)
				if err != nil {
					return nil, err
				}
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
			n.constKind = schemaKindOf(val)
		case "multipleOf":
			n.multipleOf, err = compileSchemaNumber(val)
			if err == nil && (n.multipleOf.d.digits == "" || n.multipleOf.d.neg) {
				err = errors.New("want a number greater than 0")
			}
			if err == nil {
				n.multipleOfInt, _ = new(big.Int).SetString(n.multipleOf.d.digits, 10)
			}
		case "pattern":
			if err = schemaWant(val, schemaString, "a string"); err == nil {
				n.pattern, err = regexp.Compile(val.(string))
			}
		case "uniqueItems":
			err = schemaWant(val, schemaBoolean, "a boolean")
			n.uniqueItems = val == true
		case "$schema":
			if ptr != "" {
				err = errors.New("only allowed at the root")
			}
		case "$id", "$comment", "title", "description", "format", "contentMediaType", "contentEncoding":
			err = schemaWant(val, schemaString, "a string")
		case "deprecated", "readOnly", "writeOnly":
			err = schemaWant(val, schemaBoolean, "a boolean")
		case "examples":
			err = schemaWant(val, schemaArray, "an array")
		case "default", "x-mcp-header":
			// default is any value; x-mcp-header is checked below, once type is known.
		default:
			if p := counts[k]; p != nil {
				*p, err = compileSchemaCount(val)
			} else if p := limits[k]; p != nil {
				*p, err = compileSchemaNumber(val)
			} else if !strings.HasPrefix(k, "x-") {
				return nil, fmt.Errorf("schema: keyword %q at %s is not enforced", k, schemaWhere(ptr))
			}
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

// compileHeader checks an x-mcp-header annotation with value val on the subschema n at ptr,
// reached by hpath, against [x-mcp-header], and records it.
func (c *schemaCompiler) compileHeader(n *schemaNode, val any, ptr string, hpath []string) error {
	if len(hpath) == 0 {
		return fmt.Errorf(`schema: x-mcp-header at %s: only allowed on a property reached from the root through "properties" alone`, schemaWhere(ptr))
	}
	name, ok := val.(string)
	if !ok {
		return fmt.Errorf("schema: x-mcp-header at %s: want a string, got %s", ptr, schemaKindOf(val))
	}
	if name == "" {
		return fmt.Errorf("schema: x-mcp-header at %s: must not be empty", ptr)
	}
	if !schemaIsToken(name) {
		// RFC 9110 §5.1: a field name is a token, so no CR, LF or control.
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
func schemaIsToken(s string) bool { return isName(s, len(s), true, "!#$%&'*+-.^_`|~") }

// compileSchemaType parses the type keyword: a type name or a non-empty array of distinct names.
func compileSchemaType(v any) (schemaTypeSet, error) {
	list, isList := v.([]any)
	if !isList {
		list = []any{v}
	} else if len(list) == 0 {
		return 0, errors.New("want at least one type")
	}
	var set schemaTypeSet
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return 0, fmt.Errorf("want a type name, got %s", schemaKindOf(e))
		}
		var t schemaTypeSet
		for _, n := range schemaTypeNames {
			if n.name == s {
				t = n.bit
			}
		}
		switch {
		case t == 0:
			return 0, fmt.Errorf("unknown type %s", schemaShow(s))
		case set&t != 0:
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
		return nil, fmt.Errorf("want an array of strings, got %s", schemaKindOf(v))
	}
	names := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("want an array of strings, got an element of type %s", schemaKindOf(e))
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
		return fmt.Errorf("want an array, got %s", schemaKindOf(v))
	}
	n.enum = make(map[string]bool, len(list))
	for _, e := range list {
		k, err := schemaKey(e)
		if err != nil {
			return err
		}
		n.enum[k] = true
		n.enumKinds |= schemaKindOf(e)
	}
	n.enumText = schemaShow(list)
	return nil
}

// compileSchemaNumber parses a numeric keyword value.
func compileSchemaNumber(v any) (schemaLimit, error) {
	if err := schemaWant(v, schemaNumber, "a number"); err != nil {
		return schemaLimit{}, err
	}
	d, err := parseSchemaDecimal(string(v.(json.Number)))
	return schemaLimit{set: err == nil, d: d, text: string(v.(json.Number))}, err
}

// compileSchemaCount parses a count keyword such as minLength: 2.0 is 2, values beyond int saturate.
func compileSchemaCount(v any) (int, error) {
	l, err := compileSchemaNumber(v)
	if err != nil {
		return 0, err
	}
	if l.d.neg || !l.d.isInteger() {
		return 0, fmt.Errorf("want a non-negative integer, got %s", l.text)
	}
	if int64(len(l.d.digits))+l.d.exp > 18 {
		return math.MaxInt, nil
	}
	// At most 18 digits; zero's "" is refused by ParseInt, and its n of 0 is the bound.
	n, _ := strconv.ParseInt(l.d.digits+strings.Repeat("0", int(l.d.exp)), 10, 64)
	return int(min(n, math.MaxInt)), nil
}

// schemaWant returns nil when the keyword value v is of kind, else an error naming what (the
// kind with its article) and what v is.
func schemaWant(v any, kind schemaTypeSet, what string) error {
	if got := schemaKindOf(v); got != kind {
		return fmt.Errorf("want %s, got %s", what, got)
	}
	return nil
}

// schemaAllowedHint lists the first ten declared properties, so a model can fix a misspelt name.
func schemaAllowedHint(props map[string]*schemaNode) string {
	if len(props) == 0 {
		return " (no properties allowed)"
	}
	var quoted []string
	for i, name := range slices.Sorted(maps.Keys(props)) {
		if i == 10 {
			quoted = append(quoted, "...")
			break
		}
		quoted = append(quoted, strconv.Quote(name))
	}
	return " (allowed: " + strings.Join(quoted, ", ") + ")"
}
