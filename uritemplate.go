// Resource URI templates: RFC 6570 level 1 ({var}) matching; localPath maps a variable to a path.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/resources#resource-templates,
// https://modelcontextprotocol.io/specification/2026-07-28/server/resources#security-considerations,
// RFC 6570 §1.2 (level 1: simple string expansion), RFC 3986 §2.1 (percent-encoding).

package main

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// maxTemplateVars bounds a template's variables, and so the backtracking work of one match.
const maxTemplateVars = 16

// uriTemplate is a compiled level-1 template: literal text and variables, alternating, never
// two variables side by side (the match would be ambiguous).
type uriTemplate struct {
	literals []string // len(vars)+1 pieces of literal text around the variables
	vars     []string
}

// compileTemplate parses t: variables are {name}, name of [A-Za-z0-9_.]; {+x}, {?x}, ... refused.
func compileTemplate(t string) (*uriTemplate, error) {
	var ut uriTemplate
	rest := t
	for {
		piece, after, found := strings.Cut(rest, "{")
		if strings.Contains(piece, "}") {
			return nil, fmt.Errorf("uri template %q: unmatched }", t)
		}
		if !found {
			ut.literals = append(ut.literals, piece)
			break
		}
		name, after, closed := strings.Cut(after, "}")
		if !closed {
			return nil, fmt.Errorf("uri template %q: unclosed {", t)
		}
		if !isName(name, len(name), true, "_.") {
			return nil, fmt.Errorf("uri template %q: variable %q is not a level-1 variable name", t, name)
		}
		if slices.Contains(ut.vars, name) {
			return nil, fmt.Errorf("uri template %q: variable %q repeats", t, name)
		}
		if len(ut.vars) > 0 && piece == "" {
			return nil, fmt.Errorf("uri template %q: variables must be separated by literal text", t)
		}
		ut.literals = append(ut.literals, piece)
		ut.vars = append(ut.vars, name)
		rest = after
	}
	if len(ut.vars) == 0 {
		return nil, fmt.Errorf("uri template %q: no variables", t)
	}
	if len(ut.vars) > maxTemplateVars {
		return nil, fmt.Errorf("uri template %q: more than %d variables", t, maxTemplateVars)
	}
	return &ut, nil
}

// match reports whether uri is an expansion of t and returns the variable values as in the URI
// (not percent-decoded), each non-empty, leftmost-shortest when several splits fit. Work is
// O(len(vars) × len(uri)) (TestTemplateMatchBoundedWork): a backward pass finds each variable's
// last start, a forward pass ends each at the first literal keeping the next within its bound.
func (t *uriTemplate) match(uri string) (map[string]string, bool) {
	n := len(t.vars)
	tail := t.literals[n]
	if !strings.HasPrefix(uri, t.literals[0]) || !strings.HasSuffix(uri, tail) {
		return nil, false
	}
	// maxStart[i] is the last byte offset at which variable i may start.
	maxStart := make([]int, n)
	maxStart[n-1] = len(uri) - len(tail) - 1
	for i := n - 2; i >= 0; i-- {
		lit := t.literals[i+1]
		if maxStart[i+1] < 0 {
			return nil, false
		}
		e := strings.LastIndex(uri[:maxStart[i+1]], lit)
		if e < 0 {
			return nil, false
		}
		maxStart[i] = e - 1
	}
	out := make(map[string]string, n)
	q := len(t.literals[0])
	for i, v := range t.vars {
		if q > maxStart[i] {
			return nil, false
		}
		if i == n-1 {
			out[v] = uri[q : len(uri)-len(tail)]
			break
		}
		lit := t.literals[i+1]
		k := strings.Index(uri[q+1:], lit)
		if k < 0 {
			return nil, false
		}
		e := q + 1 + k
		out[v] = uri[q:e]
		q = e + len(lit)
	}
	return out, true
}

// localPath turns a template variable, as match returns it, into a relative path under a root
// directory. It percent-decodes once and refuses an empty or absolute path, "..", a backslash, a
// control character, a "%" left after decoding (double encoding) and names the platform reserves
// (filepath.IsLocal); errors are fit for the client (TestLocalPath). Open the result with
// os.Root, never filepath.Join, so no symbolic link leads out (README, "Adding a tool").
// [§Security Considerations]: https://modelcontextprotocol.io/specification/2026-07-28/server/resources#security-considerations
func localPath(v string) (string, error) {
	p, err := url.PathUnescape(v)
	if err != nil {
		return "", errors.New("path has an invalid percent-encoding")
	}
	for _, r := range p {
		switch {
		case r < 0x20 || r == 0x7f:
			return "", errors.New("path has a control character")
		case r == '\\':
			return "", errors.New("path has a backslash")
		case r == '%':
			return "", errors.New("path is percent-encoded twice")
		}
	}
	if slices.Contains(strings.Split(p, "/"), "..") {
		return "", errors.New("path leaves its directory (..)")
	}
	p = path.Clean(p)
	if !filepath.IsLocal(filepath.FromSlash(p)) || p == "." {
		return "", errors.New("path must be relative and name something inside its directory")
	}
	return filepath.FromSlash(p), nil
}
