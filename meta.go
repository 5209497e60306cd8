// _meta: the metadata a server attaches to registry items, content
// blocks, resource contents and results (each field's Meta), the rules its
// keys follow, and the client's own _meta keys a handler may read
// (req.Meta). Where each revision allows _meta is dialect.go's (metaFor).
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

// checkMeta reports why m cannot be sent as _meta: a key that breaks the
// key naming rules, a key under a prefix reserved for MCP (the protocol's
// own keys are the server's to write, never an item's), or a value that
// does not encode as JSON. A nil or empty m is fine.
func checkMeta(m map[string]any) error {
	if len(m) == 0 {
		return nil // the common case, on every content block: no work
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

// metaKeyProblem says what is wrong with a _meta key, "" when nothing is:
// an optional prefix (dot-separated labels, each a letter, then letters,
// digits or hyphens, ending in a letter or digit, then a slash), then a
// name that is empty or begins and ends with an alphanumeric, with
// hyphens, underscores, dots and alphanumerics between. A prefix whose
// second label is modelcontextprotocol or mcp is reserved.
// [§_meta]: https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
func metaKeyProblem(key string) string {
	prefix, name, hasPrefix := strings.Cut(key, "/")
	if !hasPrefix {
		prefix, name = "", key
	}
	if hasPrefix {
		labels := strings.Split(prefix, ".")
		for _, l := range labels {
			if !validMetaLabel(l) {
				return fmt.Sprintf("has an invalid prefix label %q", l)
			}
		}
		if len(labels) > 1 && (labels[1] == "modelcontextprotocol" || labels[1] == "mcp") {
			return "uses a prefix reserved for MCP"
		}
	}
	if name == "" {
		return ""
	}
	alnum := func(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' }
	if !alnum(name[0]) || !alnum(name[len(name)-1]) {
		return "has a name that does not begin and end with a letter or digit"
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return fmt.Sprintf("has a name with %q", c)
		}
	}
	return ""
}

// validMetaLabel reports whether l is a label of a _meta key prefix.
func validMetaLabel(l string) bool {
	if l == "" {
		return false
	}
	letter := func(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
	if !letter(l[0]) || !(letter(l[len(l)-1]) || '0' <= l[len(l)-1] && l[len(l)-1] <= '9') {
		return false
	}
	return isName(strings.ToLower(l), len(l), false, "-")
}

// reservedMetaKey reports whether a client's _meta key is the protocol's:
// under a reserved prefix (its protocol version, capabilities, ...), the
// trace context (SEP-414) or the progress token.
func reservedMetaKey(key string) bool {
	switch key {
	case "progressToken", metaTraceparent, metaTracestate:
		return true
	}
	return metaKeyProblem(key) == "uses a prefix reserved for MCP"
}

// Meta returns the raw JSON value of the client's params._meta member
// key, or nil when the request has none. The protocol's own keys
// (reservedMetaKey) are not offered: the server has read them. The value
// is the client's: bounded by the message size, decoded strictly at the
// envelope (duplicate keys refused), and to be treated as untrusted.
func (r *request) Meta(key string) json.RawMessage {
	if reservedMetaKey(key) {
		return nil
	}
	for _, m := range r.meta.extra {
		if m.name == key {
			return m.value
		}
	}
	return nil
}

// appendMetaMembers appends m's members to dst as `"key":value` pairs in
// key order, without braces (result.meta), each but the first after a
// comma.
func appendMetaMembers(dst []byte, m map[string]any) ([]byte, error) {
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
