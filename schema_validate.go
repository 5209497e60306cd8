// Validating tool arguments and structured results against a schema, in words a model can act on.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/tools#error-handling,
// https://json-schema.org/draft/2020-12/json-schema-validation.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// validate reports whether v (decoded with UseNumber) conforms to s. The error lists up to
// schemaMaxErrors problems joined by "; ", each its instance path (a JSON Pointer, omitted at
// the root) and rule, e.g. `/b: missing required property "c"`; the caller adds any prefix.
// Work is linear in v: past schemaWorkBudget it stops (errSchemaTooCostly), or at ctx's end.
func (s *schema) validate(ctx context.Context, v any) error {
	return s.validateWithin(ctx, v, schemaWorkBudget)
}

// validateWithin is validate with a work budget of its own.
func (s *schema) validateWithin(ctx context.Context, v any, budget int) error {
	vd := schemaValidator{ctx: ctx, budget: budget, nextCheck: schemaCheckEvery}
	vd.check(s.root, v)
	if vd.halt != nil {
		return vd.halt
	}
	if len(vd.errs) == 0 {
		return nil
	}
	msg := strings.Join(vd.errs, "; ")
	if len(vd.errs) >= schemaMaxErrors {
		msg += fmt.Sprintf("; stopped after %d problems", schemaMaxErrors)
	}
	return errors.New(msg)
}

// errSchemaTooCostly is validate's error for a value whose validation exceeds schemaWorkBudget.
var errSchemaTooCostly = errors.New("the arguments are too costly to validate: send a smaller value")

// schemaValidator collects the problems of one validate call.
type schemaValidator struct {
	path []string // instance path tokens, unescaped
	errs []string // at most schemaMaxErrors; validation stops there

	ctx       context.Context
	budget    int   // units it may spend (schemaWorkBudget)
	work      int   // units spent
	nextCheck int   // work at which ctx is looked at next
	halt      error // errSchemaTooCostly or ctx's error: validation stopped
}

// spend accounts n units of work and reports whether validation goes on (in budget, ctx alive).
func (vd *schemaValidator) spend(n int) bool {
	if vd.halt != nil {
		return false
	}
	vd.work += n
	switch {
	case vd.work > vd.budget:
		vd.halt = errSchemaTooCostly
	case vd.work >= vd.nextCheck:
		vd.nextCheck = vd.work + schemaCheckEvery
		vd.halt = vd.ctx.Err()
	}
	return vd.halt == nil
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
	if len(vd.errs) >= schemaMaxErrors || !vd.spend(1) {
		return
	}
	if n.never {
		vd.fail("no value allowed here")
		return
	}
	got := schemaKindOf(v)
	if got == 0 {
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
		// A kind no listed value has cannot equal one: its key (as long as the value) is not built.
		inEnum, isConst := n.enum == nil || n.enumKinds&got != 0, !n.hasConst || n.constKind == got
		if inEnum && isConst {
			k, err := schemaKey(v)
			if err != nil {
				vd.fail("%v", err)
				return
			}
			if !vd.spend(len(k)) {
				return
			}
			inEnum, isConst = n.enum == nil || n.enum[k], !n.hasConst || k == n.constKey
		}
		if !inEnum {
			vd.fail("want one of %s, got %s", n.enumText, schemaShow(v))
		}
		if !isConst {
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

// checkAt checks v, found at the path token tok, against n.
func (vd *schemaValidator) checkAt(tok string, n *schemaNode, v any) {
	vd.path = append(vd.path, tok)
	vd.check(n, v)
	vd.path = vd.path[:len(vd.path)-1]
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
		mag := schemaDecimal{digits: d.digits, exp: d.exp}
		if mag.cmp(schemaDecimal{digits: schemaMaxSafeInteger}) > 0 {
			vd.fail("want an integer from -%s to %s (sent as a header), got %s", schemaMaxSafeInteger, schemaMaxSafeInteger, text)
		}
	}
}

// checkString applies the string keywords of n to s.
func (vd *schemaValidator) checkString(n *schemaNode, s string) {
	if (n.minLength >= 0 || n.maxLength >= 0 || n.pattern != nil) && !vd.spend(len(s)) {
		return
	}
	if n.minLength >= 0 || n.maxLength >= 0 {
		vd.checkCount(n.minLength, n.maxLength, utf8.RuneCountInString(s), "characters")
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		vd.fail("want a string matching %s, got %s", schemaShow(n.pattern.String()), schemaShow(s))
	}
}

// checkCount applies count keywords least and most (-1 when absent) to got, a count of what.
func (vd *schemaValidator) checkCount(least, most, got int, what string) {
	if least >= 0 && got < least {
		vd.fail("want at least %d %s, got %d", least, what, got)
	}
	if most >= 0 && got > most {
		vd.fail("want at most %d %s, got %d", most, what, got)
	}
}

// checkArray applies the array keywords of n to a.
func (vd *schemaValidator) checkArray(n *schemaNode, a []any) {
	vd.checkCount(n.minItems, n.maxItems, len(a), "items")
	if n.uniqueItems {
		seen := make(map[string]int, len(a))
		for i, e := range a {
			k, err := schemaKey(e)
			if err != nil {
				vd.fail("%v", err)
				break
			}
			if !vd.spend(len(k)) {
				return
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
			vd.checkAt(strconv.Itoa(i), n.items, e)
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
	vd.checkCount(n.minProperties, n.maxProperties, len(o), "properties")
	if len(n.properties) == 0 && n.additional == nil {
		return
	}
	// Sorted keys give a stable order of problems; a small object's are sorted on the stack.
	var small [16]string
	keys := small[:0]
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
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
			vd.checkAt(k, sub, o[k])
		}
	}
}
