// URI templates for resource templates: RFC 6570 level 1 ({var}) matching.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/resources#resource-templates,
// RFC 6570 §1.2 (level 1: simple string expansion).

package main

import (
	"fmt"
	"strings"
)

// maxTemplateVars bounds the variables of one template, and so the
// backtracking work of one match.
const maxTemplateVars = 16

// uriTemplate is a compiled level-1 template: literal text and variables,
// alternating, never two variables side by side (the match would be
// ambiguous).
type uriTemplate struct {
	literals []string // len(vars)+1 pieces of literal text around the variables
	vars     []string
}

// compileTemplate parses t. Variables are {name} with name made of
// [A-Za-z0-9_.]; operators of higher levels ({+x}, {?x}, ...) are refused.
func compileTemplate(t string) (*uriTemplate, error) {
	var ut uriTemplate
	rest := t
	lit := ""
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			if strings.IndexByte(rest, '}') >= 0 {
				return nil, fmt.Errorf("uri template %q: unmatched }", t)
			}
			ut.literals = append(ut.literals, lit+rest)
			break
		}
		if strings.IndexByte(rest[:open], '}') >= 0 {
			return nil, fmt.Errorf("uri template %q: unmatched }", t)
		}
		closing := strings.IndexByte(rest[open:], '}')
		if closing < 0 {
			return nil, fmt.Errorf("uri template %q: unclosed {", t)
		}
		name := rest[open+1 : open+closing]
		if !validVarName(name) {
			return nil, fmt.Errorf("uri template %q: variable %q is not a level-1 variable name", t, name)
		}
		for _, v := range ut.vars {
			if v == name {
				return nil, fmt.Errorf("uri template %q: variable %q repeats", t, name)
			}
		}
		piece := lit + rest[:open]
		if len(ut.vars) > 0 && piece == "" {
			return nil, fmt.Errorf("uri template %q: variables must be separated by literal text", t)
		}
		ut.literals = append(ut.literals, piece)
		ut.vars = append(ut.vars, name)
		rest = rest[open+closing+1:]
		lit = ""
	}
	if len(ut.vars) == 0 {
		return nil, fmt.Errorf("uri template %q: no variables", t)
	}
	if len(ut.vars) > maxTemplateVars {
		return nil, fmt.Errorf("uri template %q: more than %d variables", t, maxTemplateVars)
	}
	return &ut, nil
}

func validVarName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// match reports whether uri is an expansion of t and returns the variable
// values as they appear in the URI (not percent-decoded). Every value is
// non-empty. When several splits fit, the leftmost-shortest values win.
func (t *uriTemplate) match(uri string) (map[string]string, bool) {
	if !strings.HasPrefix(uri, t.literals[0]) {
		return nil, false
	}
	m := templateMatch{t: t, uri: uri, values: make([]string, len(t.vars))}
	if !m.from(len(t.literals[0]), 0) {
		return nil, false
	}
	out := make(map[string]string, len(t.vars))
	for i, v := range t.vars {
		out[v] = m.values[i]
	}
	return out, true
}

// templateMatch is the state of one match: a backtracking search over where
// each variable ends, remembering the (variable, position) pairs that
// failed so that no pair is tried twice: the work is bounded by
// len(vars) × len(uri) attempts whatever the URI.
type templateMatch struct {
	t      *uriTemplate
	uri    string
	values []string
	failed map[[2]int]bool
}

// from matches the URI from byte pos against variable i and the rest.
func (m *templateMatch) from(pos, i int) bool {
	key := [2]int{pos, i}
	if m.failed[key] {
		return false
	}
	rest := m.uri[pos:]
	next := m.t.literals[i+1]
	last := i == len(m.t.vars)-1
	if last && next == "" {
		m.values[i] = rest
		return rest != ""
	}
	for from := 1; from <= len(rest); {
		k := strings.Index(rest[from:], next)
		if k < 0 {
			break
		}
		end := from + k
		m.values[i] = rest[:end]
		after := pos + end + len(next)
		if last {
			if after == len(m.uri) {
				return true
			}
		} else if m.from(after, i+1) {
			return true
		}
		from = end + 1
	}
	if m.failed == nil {
		m.failed = make(map[[2]int]bool)
	}
	m.failed[key] = true
	return false
}
