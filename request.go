// The request a handler sees: its params, its per-request _meta, and the request-scoped
// notifications it may emit (progress, log messages).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/progress,
// https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging

package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// request is one client request in flight: the dispatcher fills it, a handler reads it and emits
// notifications through it; owned by the goroutine serving it.
type request struct {
	id           []byte
	method       string
	notification bool     // the message has no id: it is never answered
	params       []member // params members other than _meta
	meta         requestMeta
	invalid      *rpcError // what is wrong with params, answered once the method is known
	era          eraDecision
	version      string // protocol version this request is served in
	caller       caller // who sent it (exchange.caller)
	server       *server
	send         func(msg []byte)
	session      *session        // a classic-era request's session; nil in the modern era
	closing      <-chan struct{} // the transport's graceful shutdown (exchange.closing)
	trace        traceContext
	target       string // the name or URI the request names, once its handler read it
	// reg is the registry snapshot, taken once at first use (server.snapshot): the scope check and
	// the handler find the same target, so a tool replaced between them cannot skip the check.
	reg    *registry
	header map[string][]string // the transport's header fields by canonical name (nil on stdio)
	args   map[string]any      // the tools/call arguments, decoded and validated
	end    outcome             // how the request ended, as answer records it (endedBy)
	input  inputRound          // the MRTR answers and state of a retry (mrtr.go)
	// task is the handler's task (tasks.go), nil on a transport; taskable: Detach makes it one.
	task         *task
	taskable     bool
	lastProgress float64 // keeps progress strictly increasing, as the spec requires
	sentProgress bool
	notices      noticeLimiter // rate-limits its progress and log notifications (notify_limit.go)
}

// metaMembers are the _meta keys this server reads.
var metaMembers = []string{
	"progressToken", metaProtocolVersion, metaClientInfo, metaClientCapabilities, metaLogLevel,
}

// Reserved _meta keys.
// [§_meta]: https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// maxProgressTokenBytes bounds params._meta.progressToken as written (quotes and escapes
// included), as maxIDBytes bounds an id: every progress notification carries it back; SDKs use
// UUIDs or counters (TestLimitsAtBoundary, testdata/progress-token.txt).
const maxProgressTokenBytes = 1024

// requestMeta is the decoded params._meta of one request.
type requestMeta struct {
	version    string // io.modelcontextprotocol/protocolVersion
	hasVersion bool
	// modern: _meta names a protocol version or is not an object, so modern validation answers it;
	// set even when parsing fails.
	modern        bool
	capabilities  []byte // raw ClientCapabilities object, nil when absent
	clientInfo    []byte // raw Implementation object, nil when absent
	logLevel      logLevel
	hasLogLevel   bool
	progressToken []byte // raw string or integer, nil when absent
	// traceparent, tracestate: the W3C trace context (SEP-414) as sent, "" if not a string;
	// newTraceContext validates them.
	traceparent string
	tracestate  string
	extra       []member // the other members, in order, for req.Meta (meta.go)
}

// parseParams splits params into _meta and the method's own members, refusing case-folded
// imitations of known names; it returns the first problem but reads on, so meta.modern is known.
func (r *request) parseParams(params []byte, names []string) *rpcError {
	if params == nil {
		return nil
	}
	members, err := objectMembers(params)
	if err != nil {
		return newError(codeInvalidRequest, "invalid request: params must be an object")
	}
	r.params = members[:0] // filtered in place: members is ours
	var first *rpcError
	for _, mem := range members {
		if mem.name == "_meta" {
			first = cmp.Or(first, r.meta.parse(mem.value))
			continue
		}
		known := cmp.Or(foldedName(mem.name, names...), foldedName(mem.name, "_meta"))
		if known != "" {
			first = cmp.Or(first, newError(codeInvalidRequest, "invalid request: params member %q is not %q", mem.name, known))
			continue
		}
		r.params = append(r.params, mem)
	}
	return first
}

// parse decodes a params._meta object and checks its types (the era decides which are required);
// it returns the first problem and reads on.
func (m *requestMeta) parse(raw []byte) *rpcError {
	if jsonKind(raw) != '{' {
		m.modern = true
		return invalidParams("invalid params: _meta must be an object")
	}
	members, _ := objectMembers(raw)
	var first *rpcError
	for _, mem := range members {
		first = cmp.Or(first, m.member(mem))
	}
	return first
}

// member decodes one member of params._meta.
func (m *requestMeta) member(mem member) *rpcError {
	switch mem.name {
	case metaProtocolVersion:
		m.modern = true
		v, ok := jsonString(mem.value)
		if !ok {
			return invalidParams("invalid params: _meta %s must be a string", metaProtocolVersion)
		}
		m.version, m.hasVersion = v, true
	case metaClientCapabilities, metaClientInfo:
		if jsonKind(mem.value) != '{' {
			return invalidParams("invalid params: _meta %s must be an object", mem.name)
		}
		if mem.name == metaClientInfo {
			m.clientInfo = mem.value
		} else {
			m.capabilities = mem.value
		}
	case metaLogLevel:
		s, _ := jsonString(mem.value)
		lvl, ok := parseLogLevel(s)
		if !ok {
			return invalidParams("invalid params: unknown log level %.40s", bytes.TrimSpace(mem.value))
		}
		m.logLevel, m.hasLogLevel = lvl, true
	case "progressToken":
		if jsonKind(mem.value) != '"' && !isJSONInteger(mem.value) {
			return invalidParams("invalid params: progressToken must be a string or an integer")
		}
		token := bytes.TrimSpace(mem.value)
		if len(token) > maxProgressTokenBytes {
			return invalidParams("invalid params: progressToken longer than %d bytes", maxProgressTokenBytes)
		}
		m.progressToken = token
	case metaTraceparent, metaTracestate:
		// Trace context never refuses a request: a bad type, size or case-folded name is ignored.
		if len(mem.value) > 2*maxTracestateBytes {
			return nil
		}
		v, _ := jsonString(mem.value)
		if mem.name == metaTraceparent {
			m.traceparent = v
		} else {
			m.tracestate = v
		}
	default:
		if known := foldedName(mem.name, metaMembers...); known != "" {
			return newError(codeInvalidRequest, "invalid request: _meta member %q is not %q", mem.name, known)
		}
		m.extra = append(m.extra, mem)
	}
	return nil
}

// param returns the raw value of the params member name, or nil.
func (r *request) param(name string) []byte { return memberValue(r.params, name) }

// memberValue returns the raw value of the member name of ms, or nil.
func memberValue(ms []member, name string) []byte {
	for _, m := range ms {
		if m.name == name {
			return m.value
		}
	}
	return nil
}

// stringParam returns a required string param of at most maxParamStringBytes (errors echo it).
func (r *request) stringParam(name string) (string, *rpcError) {
	raw := r.param(name)
	if raw == nil {
		return "", invalidParams("invalid params: %s is required", name)
	}
	s, ok := jsonString(raw)
	if !ok {
		return "", invalidParams("invalid params: %s must be a string", name)
	}
	if len(s) > maxParamStringBytes {
		return "", invalidParams("invalid params: %s longer than %d bytes", name, maxParamStringBytes)
	}
	return s, nil
}

// logLevel is an RFC 5424 severity, ordered from debug (least severe).
// [§Log Levels]: https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging#log-levels
type logLevel int

// The eight levels, in increasing severity.
const (
	levelDebug logLevel = iota
	levelInfo
	levelNotice
	levelWarning
	levelError
	levelCritical
	levelAlert
	levelEmergency
)

// logLevelNames spells the levels on the wire, indexed by logLevel.
var logLevelNames = [...]string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// String returns the level's wire name.
func (l logLevel) String() string { return logLevelNames[l] }

// parseLogLevel returns the level named s on the wire.
func parseLogLevel(s string) (logLevel, bool) {
	i := slices.Index(logLevelNames[:], s)
	return logLevel(max(i, 0)), i >= 0
}

// Progress reports progress on this request if the client sent a progressToken. total <= 0 means
// unknown. A value that does not increase is dropped, as the spec requires.
// [§Progress]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/progress
func (r *request) Progress(progress, total float64, message string) {
	if r.meta.progressToken == nil || r.send == nil || math.IsNaN(progress) || math.IsInf(progress, 0) ||
		r.sentProgress && progress <= r.lastProgress {
		return
	}
	r.lastProgress, r.sentProgress = progress, true
	// 2024-11-05 progress notifications have no message.
	p := progressParams{Token: json.RawMessage(r.meta.progressToken), Progress: progress,
		Message: since(r.version, version20250326, message)}
	if total > 0 && !math.IsInf(total, 0) {
		p.Total = total
	}
	if msg := r.notices.progress(time.Now(), encodeNotification("notifications/progress", p)); msg != nil {
		r.send(msg)
	}
}

// progressParams is the params of notifications/progress.
type progressParams struct {
	Token    json.RawMessage `json:"progressToken"`
	Progress float64         `json:"progress"`
	Total    float64         `json:"total,omitempty"`
	Message  string          `json:"message,omitempty"`
}

// Log sends a notifications/message at level when the client opted in at or below it, within the
// request's rate (notify_limit.go). data is any JSON-encodable value: no secrets or internals.
// [§Logging]: https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging
// [§Logging (2025-11-25)]: https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging
func (r *request) Log(level logLevel, data any) {
	if !r.logsAt(level) || r.send == nil || !r.notices.logLine(time.Now()) {
		return
	}
	r.tellDropped()
	r.send(encodeNotification("notifications/message", logParams{Level: level.String(), Logger: r.server.info.Name, Data: data}))
}

// logsAt reports whether the client reads log lines at level: a modern request opts in with its
// own _meta, a classic one through its session.
func (r *request) logsAt(level logLevel) bool {
	least, on := r.meta.logLevel, r.meta.hasLogLevel
	if !isModern(r.version) {
		least, on = r.session.logLevel()
	}
	return on && level >= least
}

// logParams is the params of notifications/message.
type logParams struct {
	Level  string `json:"level"`
	Logger string `json:"logger,omitempty"`
	Data   any    `json:"data"`
}

// Arg returns the tools/call argument name as decoded (numbers are json.Number), or nil.
func (r *request) Arg(name string) any { return r.args[name] }

// String returns the string argument name, or "" when absent.
func (r *request) String(name string) string {
	s, _ := r.args[name].(string)
	return s
}

// Number returns the numeric argument name, or 0 when absent.
func (r *request) Number(name string) float64 {
	n, _ := r.args[name].(json.Number)
	f, _ := n.Float64()
	return f
}

// Int returns the integer argument name, or 0 when absent or not integral.
func (r *request) Int(name string) int64 {
	n, _ := r.args[name].(json.Number)
	if i, err := n.Int64(); err == nil {
		return i
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0
	}
	return int64(f)
}

// Bool returns the boolean argument name, or false when absent.
func (r *request) Bool(name string) bool {
	b, _ := r.args[name].(bool)
	return b
}

// finiteNumbers refuses a number in decoded arguments beyond a float64's range, such as 1e400,
// which req.Number would read as an infinity (docs/GAPS.md), naming its JSON Pointer.
func finiteNumbers(v any) error {
	path, num, found := firstInfinite(v)
	if !found {
		return nil
	}
	msg := "number " + schemaTruncate(num) + " is out of range: numbers must be finite, at most about 1.8e308 in magnitude"
	if path != "" {
		msg = path + ": " + msg
	}
	return errors.New(msg)
}

// firstInfinite returns the JSON Pointer and text of the first number in v (objects by key order)
// a float64 cannot hold, comparing keys instead of sorting them: no such number, no allocation.
func firstInfinite(v any) (path, num string, found bool) {
	switch v := v.(type) {
	case json.Number:
		// At most 300 characters without an exponent is below 1e301: only the others are parsed.
		if len(v) > 300 || strings.ContainsAny(string(v), "eE") {
			f, _ := strconv.ParseFloat(string(v), 64)
			return "", string(v), math.IsInf(f, 0)
		}
	case map[string]any:
		var key string
		for k, e := range v {
			if p, n, ok := firstInfinite(e); ok && (!found || k < key) {
				key, path, num, found = k, p, n, true
			}
		}
		if found {
			return "/" + schemaEscape(schemaTruncate(key)) + path, num, true
		}
	case []any:
		for i, item := range v {
			if p, n, ok := firstInfinite(item); ok {
				return "/" + strconv.Itoa(i) + p, n, true
			}
		}
	}
	return "", "", false
}

// decodeArguments decodes a tools/call or prompts/get arguments object.
func decodeArguments(raw []byte) (map[string]any, *rpcError) {
	if raw == nil || jsonKind(raw) == 'n' {
		return map[string]any{}, nil
	}
	if jsonKind(raw) != '{' {
		return nil, invalidParams("invalid params: arguments must be an object")
	}
	// raw is part of a message checkJSON accepted.
	v, err := decodeChecked(raw)
	if err != nil {
		return nil, invalidParams("invalid params: arguments: %v", err)
	}
	return v.(map[string]any), nil
}

// Trace returns the request's W3C trace context: the client's valid traceparent (_meta or header),
// else a fresh one, as the handler's context carries (traceFromContext).
func (r *request) Trace() traceContext { return r.trace }

// handlerHeaders are the request headers, canonical, a handler may read (req.Header): never
// credentials or the session id (docs/OPERATIONS.md). Widen it here if a tool needs more.
var handlerHeaders = []string{
	"Accept-Language", "Baggage", "Forwarded", "Traceparent", "Tracestate", "User-Agent",
	"X-Correlation-Id", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-Ip", "X-Request-Id",
}

// Header returns the header field name (any case), if in handlerHeaders, its values joined by ", "
// (RFC 9110 §5.3), else "" (always on stdio). The values are untrusted client input.
func (r *request) Header(name string) string {
	i := slices.IndexFunc(handlerHeaders, func(h string) bool { return strings.EqualFold(h, name) })
	if i < 0 {
		return ""
	}
	return strings.Join(r.header[handlerHeaders[i]], ", ")
}
