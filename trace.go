// Trace context: the W3C traceparent and tracestate a client sends in _meta or, over HTTP, in
// headers; validated, carried on the request and its context, and written on its log lines.
// docs/OPERATIONS.md ("Trace context") describes the behaviour and how to export spans.
//
// Spec: ../shared/spec/seps/414-request-meta.md (SEP-414: trace context in _meta),
// https://www.w3.org/TR/trace-context/ (Level 1; the random flag of Level 2 is passed on, not set).

package main

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"slices"
	"strings"
)

// The _meta keys of trace context: SEP-414 exempts them from the reverse-DNS prefix rule, to
// match what OpenTelemetry already sends.
const (
	metaTraceparent = "traceparent"
	metaTracestate  = "tracestate"
)

const (
	// traceparentLen is the length of a version-00 traceparent: 2 + 1 + 32 + 1 + 16 + 1 + 2.
	// [§traceparent Header Field Values]: https://www.w3.org/TR/trace-context/#traceparent-header-field-values
	traceparentLen = 55

	// maxTraceparentBytes bounds a later version's traceparent, which may append fields.
	maxTraceparentBytes = 256

	// maxTracestateBytes and maxTracestateMembers are the least W3C asks a vendor to propagate.
	// A larger tracestate is dropped whole: which members to keep is the caller's decision.
	// [§tracestate Limits]: https://www.w3.org/TR/trace-context/#tracestate-limits
	maxTracestateBytes   = 512
	maxTracestateMembers = 32
)

// traceContext is one request's trace context, decided once by newRequest, immutable, carried
// as req.Trace and on the handler's context (traceFromContext).
type traceContext struct {
	TraceID  [16]byte // the client's trace, or a fresh random one
	ParentID [8]byte  // the client's span; zero when the server started the trace
	SpanID   [8]byte  // the server's span for this request, random
	Flags    byte     // the client's trace-flags; zero for the server's own trace
	State    string   // the client's tracestate, validated; "" when none or malformed
	Remote   bool     // has a parent span: the client's, or the creating request's (child)
}

// child returns a new span under tc's in the same trace: a task's run outlives the request that
// created it, so it gets a span of its own. TestTraceOfATask.
func (tc traceContext) child() traceContext {
	tc.ParentID, tc.Remote = tc.SpanID, true
	putRandomID(tc.SpanID[:])
	return tc
}

// traceFlagsKnown are W3C's trace-flags bits (sampled, random); others are zeroed when sent as 00.
const traceFlagsKnown = 0x03

// newTraceContext decides a request's trace context: a valid traceparent in _meta wins, then
// the one the transport carried (HTTP's header), else the server starts a trace. A malformed
// traceparent is ignored with its tracestate; a malformed tracestate alone is dropped; neither
// fails the request. TestTraceContextSources.
// [§Processing Model]: https://www.w3.org/TR/trace-context/#processing-model
func newTraceContext(metaParent, metaState, carriedParent, carriedState string) traceContext {
	var tc traceContext
	for _, src := range [][2]string{{metaParent, metaState}, {carriedParent, carriedState}} {
		if tc.TraceID, tc.ParentID, tc.Flags, tc.Remote = parseTraceparent(src[0]); tc.Remote {
			if validTracestate(src[1]) {
				tc.State = src[1]
			}
			break
		}
	}
	if !tc.Remote {
		tc = traceContext{}
		putRandomID(tc.TraceID[:])
	}
	putRandomID(tc.SpanID[:])
	return tc
}

// putRandomID fills id (8 or 16 bytes) with random bytes, never all zeros (an invalid id).
// math/rand/v2 suffices: trace ids must be unique, not secret.
func putRandomID(id []byte) {
	for {
		for i := 0; i+8 <= len(id); i += 8 {
			binary.LittleEndian.PutUint64(id[i:], rand.Uint64())
		}
		if slices.ContainsFunc(id, func(c byte) bool { return c != 0 }) {
			return
		}
	}
}

// parseTraceparent reads a traceparent: lowercase hex fields separated by dashes. Version ff is
// invalid; version 00 is exactly 55 characters; a later version is read as 00 when its first 55
// characters are, followed by a dash or nothing. All-zero trace and parent ids are invalid.
// [§traceparent Header]: https://www.w3.org/TR/trace-context/#traceparent-header
// [§Versioning]: https://www.w3.org/TR/trace-context/#versioning-of-traceparent
func parseTraceparent(s string) (traceID [16]byte, parentID [8]byte, flags byte, ok bool) {
	if len(s) < traceparentLen || len(s) > maxTraceparentBytes ||
		s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return traceID, parentID, 0, false
	}
	var version [1]byte
	if !lowerHex(version[:], s[0:2]) || version[0] == 0xff ||
		(version[0] == 0 && len(s) != traceparentLen) ||
		(len(s) > traceparentLen && s[traceparentLen] != '-') {
		return traceID, parentID, 0, false
	}
	var f [1]byte
	if !lowerHex(traceID[:], s[3:35]) || !lowerHex(parentID[:], s[36:52]) || !lowerHex(f[:], s[53:55]) ||
		traceID == [16]byte{} || parentID == [8]byte{} {
		return traceID, parentID, 0, false
	}
	return traceID, parentID, f[0], true
}

// lowerHex decodes s, lowercase hex of exactly len(dst) bytes, into dst (W3C: uppercase invalid).
func lowerHex(dst []byte, s string) bool {
	if len(s) != 2*len(dst) || strings.ContainsAny(s, "ABCDEF") {
		return false
	}
	_, err := hex.Decode(dst, []byte(s))
	return err == nil
}

// validTracestate reports whether s is a tracestate worth passing on: "" (none), or at most
// maxTracestateMembers list members of key=value, separated by commas with optional blanks,
// empty members allowed, no key twice, at most maxTracestateBytes in all.
// [§tracestate Header]: https://www.w3.org/TR/trace-context/#tracestate-header
func validTracestate(s string) bool {
	if len(s) > maxTracestateBytes {
		return false
	}
	keys := make([]string, 0, maxTracestateMembers)
	for member := range strings.SplitSeq(s, ",") {
		member = strings.Trim(member, " \t")
		if member == "" {
			continue
		}
		key, value, found := strings.Cut(member, "=")
		if !found || !validTracestateKey(key) || !validTracestateValue(value) ||
			len(keys) == maxTracestateMembers || slices.Contains(keys, key) {
			return false
		}
		keys = append(keys, key)
	}
	return true
}

// validTracestateKey checks a list member's key: a simple key (lowercase letter, then up to 255
// of a-z 0-9 _ - * /), or a multi-tenant key tenant@system (tenant: up to 241 such characters
// starting with a letter or digit; system: up to 14 starting with a letter).
// [§Key]: https://www.w3.org/TR/trace-context/#key
func validTracestateKey(key string) bool {
	run := func(s string, maxLen int, digitFirst bool) bool {
		return s != "" && len(s) <= maxLen && ('a' <= s[0] && s[0] <= 'z' || digitFirst && '0' <= s[0] && s[0] <= '9') &&
			strings.Trim(s[1:], "abcdefghijklmnopqrstuvwxyz0123456789_-*/") == ""
	}
	tenant, system, multi := strings.Cut(key, "@")
	if !multi {
		return run(key, 256, false)
	}
	return run(tenant, 241, true) && run(system, 14, false)
}

// validTracestateValue checks a list member's value: 1 to 256 printable ASCII characters other
// than comma and equals, the last not a space.
// [§Value]: https://www.w3.org/TR/trace-context/#value
func validTracestateValue(v string) bool {
	// Invalid UTF-8 decodes as U+FFFD, outside ASCII too.
	return v != "" && len(v) <= 256 && v[len(v)-1] != ' ' &&
		!strings.ContainsFunc(v, func(c rune) bool { return c < 0x20 || c > 0x7e || c == ',' || c == '=' })
}

// TraceIDString returns the trace id as 32 lowercase hex digits.
func (tc traceContext) TraceIDString() string { return hex.EncodeToString(tc.TraceID[:]) }

// SpanIDString returns the server's span id as 16 lowercase hex digits.
func (tc traceContext) SpanIDString() string { return hex.EncodeToString(tc.SpanID[:]) }

// Traceparent returns the traceparent a handler sends on with the calls it makes for this
// request: version 00, this trace, the server's span as the parent, the client's known flags.
func (tc traceContext) Traceparent() string {
	b := make([]byte, 0, traceparentLen) // appended, not Sprintf: one allocation against five
	b = append(b, "00-"...)
	b = hex.AppendEncode(b, tc.TraceID[:])
	b = append(b, '-')
	b = hex.AppendEncode(b, tc.SpanID[:])
	b = append(b, '-')
	b = hex.AppendEncode(b, []byte{tc.Flags & traceFlagsKnown})
	return string(b)
}

// Tracestate returns the tracestate to send on with Traceparent: the client's, unchanged.
func (tc traceContext) Tracestate() string { return tc.State }

// traceKey is the context key of a request's trace context.
type traceKey struct{}

// context returns the context r's handler runs under: parent, carrying r's trace context.
func (r *request) context(parent context.Context) context.Context {
	return context.WithValue(parent, traceKey{}, &r.trace)
}

// traceFromContext returns the trace context of ctx's request; ok is false outside a request.
func traceFromContext(ctx context.Context) (tc traceContext, ok bool) {
	if p, ok := ctx.Value(traceKey{}).(*traceContext); ok {
		return *p, true
	}
	return traceContext{}, false
}
