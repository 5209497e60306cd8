//go:build !stdio

// The Streamable HTTP request headers that mirror the body
// (MCP-Protocol-Version, Mcp-Method, Mcp-Name, and Mcp-Param-* for a
// tool's x-mcp-header arguments), checked against the parsed request
// before version negotiation; a mismatch is -32020.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-metadata,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation,
// SEP-2243 (HTTP header standardization).

package main

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Request headers the transport reads.
// [§Request Metadata]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-metadata
const (
	headerProtocolVersion = "MCP-Protocol-Version" // as the spec spells it, in messages
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
	headerParamPrefix     = "Mcp-Param-"
	// protocolVersionKey is headerProtocolVersion as net/http keys it: looked up as it is,
	// without canonicalising it (an allocation) twice a request (TestHTTPFraming).
	protocolVersionKey = "Mcp-Protocol-Version"
)

// The W3C trace context headers, which a request may carry instead of
// _meta's traceparent and tracestate.
// [§traceparent Header]: https://www.w3.org/TR/trace-context/#traceparent-header
const (
	headerTraceparent = "Traceparent"
	headerTracestate  = "Tracestate"
)

// httpFraming is what an HTTP request carries beside its message, in the
// core's terms (framing): whether it names a classic session and which
// protocol version its header declares (for a transport that looks
// sessions up per message, lateSession: Streamable HTTP; the 2024-11-05
// transport and a batch hand their session over), its trace context
// headers, and the header map a handler reads through req.Header. A
// repeated traceparent is ambiguous and ignored; repeated tracestate
// headers are one list, joined (RFC 9110 §5.3).
func httpFraming(h http.Header, lateSession bool) framing {
	f := framing{lateSession: lateSession, header: h}
	if lateSession {
		f.namesSession = len(h.Values(headerSessionID)) > 0
		f.version = strings.Trim(h.Get(protocolVersionKey), " \t")
	}
	if ps := h.Values(headerTraceparent); len(ps) == 1 {
		f.traceparent = strings.Trim(ps[0], " \t")
		f.tracestate = strings.Join(h.Values(headerTracestate), ",")
	}
	return f
}

// mirroredHeaders returns the check that compares the request headers a
// client mirrors from the body with the parsed body, as
// [§Server Validation] requires; any failure is -32020 naming the header.
// Values are trimmed of optional whitespace; header names are matched
// case-insensitively (net/http canonicalises them).
// [§Server Validation]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation
func mirroredHeaders(h http.Header) func(req *request) *rpcError {
	return func(req *request) *rpcError {
		v, rerr := plainHeader(h, protocolVersionKey, headerProtocolVersion)
		if rerr != nil {
			return rerr
		}
		if v != req.meta.version {
			return headerMismatch("%s header does not match _meta %s", headerProtocolVersion, metaProtocolVersion)
		}
		if !isModern(req.meta.version) {
			// Unsupported (-32022 follows): its header rules are unknown.
			return nil
		}
		if v, rerr = plainHeader(h, headerMethod, headerMethod); rerr != nil {
			return rerr
		}
		if v != req.method {
			return headerMismatch("%s header does not match the method", headerMethod)
		}
		// The member Mcp-Name mirrors is the method's target: a tool's or
		// prompt's name, a resource's uri, a task's id.
		// [§Routing Headers]: SEP-2663, "the client MUST set the
		// Mcp-Name header ... to the value of params.taskId"
		member := methods[req.method].target.param()
		if member == "" {
			return nil
		}
		want, ok := jsonString(req.param(member))
		if !ok {
			return nil // the handler answers -32602 for the body itself
		}
		got, present, valid := encodedHeader(h, headerName)
		switch {
		case !present:
			return headerMismatch("%s header is missing", headerName)
		case !valid:
			return headerMismatch("%s header is malformed", headerName)
		case got != want:
			return headerMismatch("%s header does not match params.%s", headerName, member)
		}
		if req.method == "tools/call" {
			if t := req.server.registry().tool(want); t != nil {
				return paramHeaders(h, t.headers, req.param("arguments"))
			}
		}
		return nil
	}
}

// paramHeaders checks the Mcp-Param-{Name} headers of a tool's x-mcp-header
// parameters: required when the argument is present and not null, equal to
// it after decoding (integers compared numerically), and absent otherwise.
// [§Custom Headers]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-behavior-for-custom-headers
func paramHeaders(h http.Header, decls []mcpHeader, args []byte) *rpcError {
	for _, d := range decls {
		name := headerParamPrefix + d.Name
		body := argumentAt(args, d.Path)
		got, present, valid := encodedHeader(h, name)
		switch {
		case body == nil && present:
			// A header the body does not back would let an intermediary
			// route on a value the server never sees.
			return headerMismatch("%s header has no argument to mirror", name)
		case body == nil:
			continue
		case !present:
			return headerMismatch("%s header is missing", name)
		case !valid:
			return headerMismatch("%s header is malformed", name)
		case !headerMatches(got, body):
			return headerMismatch("%s header does not match the argument", name)
		}
	}
	return nil
}

// argumentAt returns the raw value at path in the arguments object, or nil
// when absent or null.
func argumentAt(args []byte, path []string) []byte {
	cur := args
	for _, key := range path {
		if jsonKind(cur) != '{' {
			return nil
		}
		members, err := objectMembers(cur)
		if err != nil {
			return nil
		}
		cur = nil
		for _, m := range members {
			if m.name == key {
				cur = m.value
				break
			}
		}
	}
	if cur == nil || jsonKind(cur) == 'n' {
		return nil
	}
	return bytes.TrimSpace(cur)
}

// headerMatches compares a decoded header value with the raw argument it
// mirrors, converted as [§Value Encoding] says: a string as is, a number
// by value ("42.0" equals 42), a boolean as "true" or "false".
// [§Value Encoding]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#value-encoding
func headerMatches(got string, body []byte) bool {
	switch jsonKind(body) {
	case '"':
		s, ok := jsonString(body)
		return ok && got == s
	case 't':
		return got == "true"
	case 'f':
		return got == "false"
	case '0':
		want, err := parseSchemaDecimal(string(body))
		if err != nil {
			return false
		}
		have, err := parseSchemaDecimal(got)
		return err == nil && have.cmp(want) == 0
	}
	return false // objects and arrays cannot be mirrored
}

// plainHeader returns a required header that carries a plain value (no
// Base64 sentinel): present exactly once, visible ASCII. key is name in
// net/http's canonical form; messages say name.
func plainHeader(h http.Header, key, name string) (string, *rpcError) {
	vs := h.Values(key)
	switch {
	case len(vs) == 0:
		return "", headerMismatch("%s header is missing", name)
	case len(vs) > 1:
		return "", headerMismatch("%s header appears more than once", name)
	}
	v := strings.Trim(vs[0], " \t")
	if !isHeaderText(v) {
		return "", headerMismatch("%s header is malformed", name)
	}
	return v, nil
}

// base64Prefix and base64Suffix mark a Base64-encoded header value; both
// are case-sensitive.
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// encodedHeader returns the decoded value of a header that may use the
// Base64 sentinel (Mcp-Name, Mcp-Param-*). valid is false for a header
// sent more than once, bad Base64 (strict: canonical padding, standard
// alphabet only), a decoded value that is not UTF-8, or a plain value
// with characters outside visible ASCII, space and tab.
func encodedHeader(h http.Header, name string) (value string, present, valid bool) {
	vs := h.Values(name)
	if len(vs) == 0 {
		return "", false, false
	}
	if len(vs) > 1 {
		return "", true, false
	}
	v := strings.Trim(vs[0], " \t")
	if len(v) >= len(base64Prefix)+len(base64Suffix) && strings.HasPrefix(v, base64Prefix) && strings.HasSuffix(v, base64Suffix) {
		enc := v[len(base64Prefix) : len(v)-len(base64Suffix)]
		// DecodeString skips CR and LF even in strict mode; refuse them.
		if strings.ContainsAny(enc, "\r\n") {
			return "", true, false
		}
		b, err := base64.StdEncoding.Strict().DecodeString(enc)
		if err != nil || !utf8.Valid(b) {
			return "", true, false
		}
		return string(b), true, true
	}
	return v, true, isHeaderText(v)
}

// isHeaderText reports whether v holds only visible ASCII, space and tab,
// the plain header values [§Value Encoding] allows.
func isHeaderText(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; (b < 0x20 && b != '\t') || b > 0x7e {
			return false
		}
	}
	return true
}

// headerMismatch is the -32020 HeaderMismatch error.
func headerMismatch(format string, args ...any) *rpcError {
	return newError(codeHeaderMismatch, "header mismatch: "+format, args...)
}
