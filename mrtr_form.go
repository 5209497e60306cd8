// The restricted schema of a form-mode elicitation (a flat object of primitive and enum
// properties a client renders as a form): checked in elicitForm, then checking the answer.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#requested-schema,
// https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#form-mode-security,
// SEP-1034 (defaults), SEP-1330 (enums).

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// maxFormFields bounds the properties of one requestedSchema; a form a person fills has a handful.
const maxFormFields = 64

// formField is one property of a form-mode requestedSchema.
type formField struct {
	name     string
	typ      string   // "string", "number", "integer", "boolean" or "array"
	options  []string // allowed values of an enum (single or multi select)
	minLen   int      // string length, or array items; -1 when unset
	maxLen   int
	min, max float64 // number bounds; NaN when unset
	required bool
}

// parseRequestedSchema checks a form-mode requestedSchema; it returns the fields in a stable order.
// [§Requested Schema]: https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#requested-schema
func parseRequestedSchema(raw []byte) ([]formField, error) {
	if err := checkJSON(raw); err != nil || jsonKind(raw) != '{' {
		return nil, errors.New("requestedSchema must be a JSON object")
	}
	top, _ := objectMembers(raw)
	var props []member
	var required []string
	isObject := false
	for _, m := range top {
		switch m.name {
		case "$schema":
		case "type":
			s, _ := jsonString(m.value)
			isObject = s == "object"
		case "properties":
			var err error
			if props, err = objectMembers(m.value); err != nil {
				return nil, errors.New("requestedSchema properties must be an object")
			}
		case "required":
			if err := json.Unmarshal(m.value, &required); err != nil {
				return nil, errors.New("requestedSchema required must be an array of strings")
			}
		default:
			return nil, fmt.Errorf("requestedSchema keyword %q is not allowed in form mode", m.name)
		}
	}
	if !isObject {
		return nil, errors.New(`requestedSchema type must be "object"`)
	}
	if len(props) > maxFormFields {
		return nil, fmt.Errorf("requestedSchema has more than %d properties", maxFormFields)
	}
	fields := make([]formField, 0, len(props))
	for _, p := range props {
		f, err := parseFormField(p.name, p.value)
		if err != nil {
			return nil, err
		}
		fields = append(fields, f)
	}
	for _, name := range required {
		// checkJSON refused duplicate keys: one field at most has the name.
		i := slices.IndexFunc(fields, func(f formField) bool { return f.name == name })
		if i < 0 {
			return nil, fmt.Errorf("requestedSchema requires %q, which is not a property", name)
		}
		fields[i].required = true
	}
	return fields, nil
}

// parseFormField checks one property (string, number, integer, boolean or enum), spec keywords only.
func parseFormField(name string, raw []byte) (formField, error) {
	f := formField{name: name, minLen: -1, maxLen: -1, min: math.NaN(), max: math.NaN()}
	members, err := objectMembers(raw)
	if err != nil {
		return f, fmt.Errorf("requestedSchema property %q must be an object", name)
	}
	f.typ, _ = jsonString(memberValue(members, "type"))
	allowed := map[string][]string{
		"string":  {"minLength", "maxLength", "format", "enum", "enumNames", "oneOf"},
		"number":  {"minimum", "maximum"},
		"integer": {"minimum", "maximum"},
		"boolean": {},
		"array":   {"minItems", "maxItems", "items"},
	}
	extra, ok := allowed[f.typ]
	if !ok {
		return f, fmt.Errorf("requestedSchema property %q: type must be string, number, integer, boolean or array", name)
	}
	bad := func(kw string) error {
		return fmt.Errorf("requestedSchema property %q: invalid %s", name, kw)
	}
	for _, m := range members {
		switch m.name {
		case "type":
		case "title", "description":
			if jsonKind(m.value) != '"' {
				return f, bad(m.name)
			}
		case "default":
			want := map[string]byte{"string": '"', "number": '0', "integer": '0', "boolean": 't', "array": '['}[f.typ]
			got := jsonKind(m.value)
			if got == 'f' {
				got = 't'
			}
			if got != want {
				return f, bad("default")
			}
		default:
			if !slices.Contains(extra, m.name) {
				return f, fmt.Errorf("requestedSchema property %q: keyword %q is not allowed for type %s", name, m.name, f.typ)
			}
			if err := f.keyword(m.name, m.value); err != nil {
				return f, bad(m.name)
			}
		}
	}
	return f, nil
}

// keyword reads one type-specific keyword of a field; the caller reports errors as the keyword's.
func (f *formField) keyword(kw string, v []byte) error {
	intValue := func() (int, error) {
		// v is checked JSON: Atoi takes exactly its integers.
		n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
		if err != nil || n < 0 {
			return 0, errors.New("not a count")
		}
		return n, nil
	}
	var err error
	switch kw {
	case "minLength", "minItems":
		f.minLen, err = intValue()
	case "maxLength", "maxItems":
		f.maxLen, err = intValue()
	case "minimum", "maximum":
		var x float64
		if err = json.Unmarshal(v, &x); err == nil {
			if kw == "minimum" {
				f.min = x
			} else {
				f.max = x
			}
		}
	case "format":
		s, _ := jsonString(v)
		if !slices.Contains([]string{"email", "uri", "date", "date-time"}, s) {
			err = errors.New("unsupported format")
		}
	case "enum":
		err = json.Unmarshal(v, &f.options)
	case "enumNames":
		err = json.Unmarshal(v, new([]string))
	case "oneOf":
		f.options, err = titledOptions(v)
	case "items":
		// Multi select: {"type":"string","enum":[...]} or {"anyOf":[{"const","title"}...]}.
		members, merr := objectMembers(v)
		if merr != nil {
			return merr
		}
		for _, m := range members {
			switch m.name {
			case "type":
				if s, _ := jsonString(m.value); s != "string" {
					return errors.New("items must be strings")
				}
			case "enum":
				err = json.Unmarshal(m.value, &f.options)
			case "anyOf":
				f.options, err = titledOptions(m.value)
			default:
				return errors.New("unsupported items keyword")
			}
		}
		if f.options == nil {
			return errors.New("items need enum or anyOf")
		}
	}
	return err
}

// titledOptions reads [{"const": value, "title": label}, ...].
func titledOptions(v []byte) ([]string, error) {
	var opts []struct {
		Const *string `json:"const"`
		Title *string `json:"title"`
	}
	if err := json.Unmarshal(v, &opts); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(opts))
	for _, o := range opts {
		if o.Const == nil || o.Title == nil {
			return nil, errors.New("option needs const and title")
		}
		out = append(out, *o.Const)
	}
	return out, nil
}

// checkFormContent checks accepted form content against the fields asked: required ones
// present, each value of its type, bounds and options; values for fields not asked are dropped.
// Known limitation: string formats (email, uri, date, date-time) are not checked.
// [§Form Mode Security]: https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#form-mode-security
func checkFormContent(fields []formField, content map[string]any) error {
	declared := map[string]bool{}
	for _, f := range fields {
		declared[f.name] = true
		v, ok := content[f.name]
		if !ok {
			if f.required {
				return fmt.Errorf("form value %q is required", f.name)
			}
			continue
		}
		if err := f.check(v); err != nil {
			return fmt.Errorf("form value %q %v", f.name, err)
		}
	}
	maps.DeleteFunc(content, func(name string, _ any) bool { return !declared[name] })
	return nil
}

// check checks one form value against its field.
func (f *formField) check(v any) error {
	switch f.typ {
	case "string":
		s, ok := v.(string)
		if !ok {
			return errors.New("must be a string")
		}
		n := utf8.RuneCountInString(s)
		if (f.minLen >= 0 && n < f.minLen) || (f.maxLen >= 0 && n > f.maxLen) {
			return errors.New("has the wrong length")
		}
		if f.options != nil && !slices.Contains(f.options, s) {
			return errors.New("is not one of the options")
		}
	case "number", "integer":
		num, _ := v.(json.Number) // "" when v is no number, which Float64 refuses
		x, err := num.Float64()
		if err != nil || (f.typ == "integer" && x != math.Trunc(x)) {
			return fmt.Errorf("must be a %s", f.typ)
		}
		if x < f.min || x > f.max { // false when the bound is NaN (unset)
			return errors.New("is out of range")
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return errors.New("must be a boolean")
		}
	case "array":
		items, ok := v.([]any)
		if !ok {
			return errors.New("must be an array of strings")
		}
		if (f.minLen >= 0 && len(items) < f.minLen) || (f.maxLen >= 0 && len(items) > f.maxLen) {
			return errors.New("has the wrong number of items")
		}
		for _, item := range items {
			s, _ := item.(string)
			if !slices.Contains(f.options, s) {
				return errors.New("has an item that is not one of the options")
			}
		}
	}
	return nil
}
