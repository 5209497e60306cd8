// _meta: the rules the keys of every Meta field follow, and the client's own keys a handler
// may read (req.Meta); where each revision allows it is dialect.go's (metaFor).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta

package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// checkMeta reports why m cannot be sent as _meta: a key that breaks the naming rules or
// uses a prefix reserved for MCP (the protocol's keys are the server's to write), or a value
// that does not encode as JSON.
func checkMeta(m map[string]any) error {
	if len(m) == 0 {
		return nil // most content blocks: no work
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if problem := metaKeyProblem(k); problem != "" {
			return fmt.Errorf("_meta key %q %s", k, problem)
		}
		if _, err := json.Marshal(m[k]); err != nil {
			return fmt.Errorf("_meta key %q: the value does not encode as JSON: %w", k, err)
		}
	}
	return nil
}

// metaKeyProblem says what is wrong with a _meta key, "" if nothing, by the spec's grammar:
// an optional prefix of dot-separated labels and a slash (a second label
// modelcontextprotocol or mcp is reserved), a name.
// [§_meta]: https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
func metaKeyProblem(key string) string {
	letter := func(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
	alnum := func(c byte) bool { return letter(c) || '0' <= c && c <= '9' }
	name := key
	if prefix, rest, hasPrefix := strings.Cut(key, "/"); hasPrefix {
		name = rest
		labels := strings.Split(prefix, ".")
		for _, l := range labels {
			// letters, digits and hyphens, from a letter to a letter or digit
			if !isName(l, len(l), true, "-") || !letter(l[0]) || !alnum(l[len(l)-1]) {
				return fmt.Sprintf("has an invalid prefix label %q", l)
			}
		}
		if len(labels) > 1 && (labels[1] == "modelcontextprotocol" || labels[1] == "mcp") {
			return "uses a prefix reserved for MCP"
		}
	}
	if name != "" && (!alnum(name[0]) || !alnum(name[len(name)-1])) {
		return "has a name that does not begin and end with a letter or digit"
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return fmt.Sprintf("has a name with %q", c)
		}
	}
	return ""
}

// Meta returns the raw JSON of the client's params._meta member key, nil when absent or the
// protocol's, which the server has read: the progress token, the trace context (SEP-414), a
// key under a reserved prefix. The value is the client's: bounded, strictly decoded, untrusted.
func (r *request) Meta(key string) json.RawMessage {
	switch {
	case key == "progressToken", key == metaTraceparent, key == metaTracestate,
		metaKeyProblem(key) == "uses a prefix reserved for MCP":
		return nil
	}
	return memberValue(r.meta.extra, key)
}

// appendMetaMembers appends m's members to dst as `"key":value` pairs in key order, without
// braces (result.meta); an empty m (most results) returns before sorting
// (BenchmarkStdioPipelined, BenchmarkHTTPToolsCall).
func appendMetaMembers(dst []byte, m map[string]any) ([]byte, error) {
	if len(m) == 0 {
		return dst, nil
	}
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		v, err := json.Marshal(m[k])
		if err != nil {
			return nil, fmt.Errorf("encode _meta %q: %w", k, err)
		}
		dst = appendJSONString(dst, k)
		dst = append(dst, ':')
		dst = append(dst, v...)
	}
	return dst, nil
}
