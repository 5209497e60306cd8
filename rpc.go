// JSON-RPC 2.0 as MCP uses it: the message envelope, the error object, and the dispatch table.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic
// (Messages, Error Codes) and https://www.jsonrpc.org/specification.

package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"time"
)

// JSON-RPC 2.0 error codes, and the ones MCP allocates in -32020..-32099.
// [§Error Codes]: https://modelcontextprotocol.io/specification/2026-07-28/basic#error-codes
const (
	codeParseError         = -32700
	codeInvalidRequest     = -32600
	codeMethodNotFound     = -32601
	codeInvalidParams      = -32602
	codeInternalError      = -32603
	codeHeaderMismatch     = -32020
	codeMissingCapability  = -32021
	codeUnsupportedVersion = -32022
	// codeResourceNotFound: an unknown resource URI up to 2025-11-25; 2026-07-28 uses -32602.
	codeResourceNotFound = -32002
)

// rpcError is the one error type whose text reaches the peer; anything else a handler returns is
// logged and answered -32603 "internal error".
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

// Is reports whether target is an *rpcError of the same code: errInvalidParams matches any -32602.
func (e *rpcError) Is(target error) bool {
	t, ok := target.(*rpcError)
	return ok && t.Code == e.Code
}

// The five JSON-RPC codes as sentinels for errors.Is.
var (
	errParse          = &rpcError{Code: codeParseError, Message: "parse error"}
	errInvalidRequest = &rpcError{Code: codeInvalidRequest, Message: "invalid request"}
	errMethodNotFound = &rpcError{Code: codeMethodNotFound, Message: "method not found"}
	errInvalidParams  = &rpcError{Code: codeInvalidParams, Message: "invalid params"}
	errInternal       = &rpcError{Code: codeInternalError, Message: "internal error"}
)

// errCancelled answers a request cancelled while it ran (notifications/cancelled, closed stream,
// shutdown).
var errCancelled = &rpcError{Code: codeInternalError, Message: "request cancelled"}

// errCutByShutdown causes the cancels past -shutdown-timeout: answered errCut, logged outcome=cut.
var errCutByShutdown = errors.New("cut: the server is shutting down and waits no longer")

// errCut answers a request cut by shutdown: -32603 (HTTP 500, which no proxy replays) saying it
// may have run in part, so a client retries only what is safe twice (TestHTTPShutdownCut).
var errCut = &rpcError{Code: codeInternalError, Message: "request cut: the server shut down before it finished; it may have run in part"}

// newError builds a peer-facing error: lowercase, no trailing punctuation.
func newError(code int, format string, args ...any) *rpcError {
	return &rpcError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// limitError is newError for a refusal at a bound, with data naming the bound (and the
// client's share of it) so that a client can adjust.
func limitError(code int, data any, format string, args ...any) *rpcError {
	return &rpcError{Code: code, Message: fmt.Sprintf(format, args...), Data: data}
}

// invalidParams is the -32602 most handlers return.
func invalidParams(format string, args ...any) *rpcError {
	return newError(codeInvalidParams, format, args...)
}

// message is one JSON-RPC message from the peer, decoded once; members stay raw for their handler.
type message struct {
	id         []byte // raw JSON id (string or integer), nil when absent or invalid
	hasID      bool   // an id member was present, even an invalid one
	method     string
	hasMethod  bool
	params     []byte // raw JSON object, nil when absent
	result     []byte // set on a response from the peer (classic-era replies)
	errorValue []byte // set on an error response from the peer
}

// isNotification reports whether m is a request without id; one with an invalid id (null,
// fractional) is answered -32600 with id null.
func (m *message) isNotification() bool { return m.hasMethod && !m.hasID }

// isResponse reports whether m answers a request the server sent.
func (m *message) isResponse() bool { return !m.hasMethod && (m.result != nil || m.errorValue != nil) }

// maxIDBytes bounds a request id as written (quotes, escapes included), echoed by every answer
// (clients use counters, UUIDs); longer: -32600, id null (TestAttackUnreadErrorReplies).
const maxIDBytes = 1024

// envelopeMembers are the only members a JSON-RPC message may use.
var envelopeMembers = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// parseMessage decodes one peer message; on failure it still returns the id, if readable, for the
// error.
// [§Requests]: https://modelcontextprotocol.io/specification/2026-07-28/basic#requests
func parseMessage(data []byte) (message, *rpcError) {
	var m message
	if err := checkJSON(data); err != nil {
		var shape *jsonShapeError
		if errors.As(err, &shape) {
			return m, newError(codeInvalidRequest, "invalid request: %s", shape.msg)
		}
		return m, errParse
	}
	switch jsonKind(data) {
	case '{':
	case '[':
		return m, newError(codeInvalidRequest, "invalid request: batches are accepted only in a %s session", versionBatches)
	default:
		return m, newError(codeInvalidRequest, "invalid request: message must be a JSON object")
	}
	members, _ := objectMembers(data) // an object checkJSON accepted: no error
	var version []byte
	// Reported after the loop, so that an error about a member before the id carries the id.
	var idErr, memberErr *rpcError
	for _, mem := range members {
		switch mem.name {
		case "jsonrpc":
			version = mem.value
		case "id":
			m.hasID = true
			switch {
			case jsonKind(mem.value) == '"' || isJSONInteger(mem.value):
				if id := bytes.TrimSpace(mem.value); len(id) <= maxIDBytes {
					m.id = id
				} else {
					idErr = newError(codeInvalidRequest, "invalid request: id longer than %d bytes", maxIDBytes)
				}
			case jsonKind(mem.value) == 'n':
				// Valid only on an error response to an unreadable message (checked below).
				m.id = []byte("null")
			default:
				idErr = newError(codeInvalidRequest, "invalid request: id must be a string or an integer")
			}
		case "method":
			s, ok := jsonString(mem.value)
			if !ok {
				memberErr = cmp.Or(memberErr, newError(codeInvalidRequest, "invalid request: method must be a string"))
				continue
			}
			m.method, m.hasMethod = s, true
		case "params":
			m.params = mem.value
		case "result":
			m.result = mem.value
		case "error":
			m.errorValue = mem.value
		default:
			if known := foldedName(mem.name, envelopeMembers...); known != "" {
				memberErr = cmp.Or(memberErr, newError(codeInvalidRequest, "invalid request: member %q is not %q", mem.name, known))
			}
		}
	}
	if string(m.id) == "null" && (m.hasMethod || m.errorValue == nil) {
		m.id, idErr = nil, newError(codeInvalidRequest, "invalid request: id must be a string or an integer")
	}
	if idErr != nil {
		return m, idErr
	}
	if memberErr != nil {
		return m, memberErr
	}
	if v, ok := jsonString(version); !ok || v != "2.0" {
		return m, newError(codeInvalidRequest, `invalid request: jsonrpc must be "2.0"`)
	}
	if m.params != nil && jsonKind(m.params) != '{' {
		return m, newError(codeInvalidRequest, "invalid request: params must be an object")
	}
	if !m.hasMethod && !(m.id != nil && (m.result != nil || m.errorValue != nil)) {
		return m, newError(codeInvalidRequest, "invalid request: method is missing")
	}
	return m, nil
}

// method describes one entry of the JSON-RPC surface.
type method struct {
	handle       func(s *server, ctx context.Context, req *request) (result, error)
	params       []string // its own params members (besides _meta): a case-folded imitation is refused
	notification bool     // a client notification: never answered
	// cacheable methods carry ttlMs/cacheScope on complete results.
	// [§Caching]: https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching
	cacheable bool
	era       era // the protocol era the method exists in; admitEra enforces it
	// beforeInitialize marks classic methods served before the handshake.
	// [§Initialization]: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization
	beforeInitialize bool
	// mrtr methods alone read inputResponses/requestState and may answer input_required (mrtr.go).
	// [§Supported Requests]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#supported-requests
	mrtr bool
	// rateLimited methods take a token from the caller's bucket (limits.go).
	// [§Security Considerations]: https://modelcontextprotocol.io/specification/2026-07-28/server/tools#security-considerations
	rateLimited bool
	target      target // what the params name: for the scope check, the Mcp-Name header, the access lines
	// handshake marks initialize: served before its connection's next message is taken
	// (incoming.ordered); a transport opens a classic session for it.
	// [§Initialization]: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization
	handshake bool
	// stream marks subscriptions/listen: no request timeout, kept alive, closed by its graceful
	// result (reply.closesListen).
	// [§Graceful Closure]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#graceful-closure
	stream bool
}

// target is the kind of thing a method's params name.
type target uint8

// The targets.
const (
	targetNone     target = iota
	targetTool            // params.name, a tool
	targetPrompt          // params.name, a prompt
	targetResource        // params.uri, a resource or a template's match
	targetTask            // params.taskId, a task of the caller's
	targetRef             // params.ref, the prompt or template a completion refers to
	targetListen          // params.notifications, the resources a listen watches
)

// param is the params member holding a target named by a string (name, uri, taskId), else "".
func (t target) param() string {
	return [...]string{
		targetTool: "name", targetPrompt: "name", targetResource: "uri", targetTask: "taskId", targetListen: "",
	}[t]
}

// methodCancelled cancels a request in both eras, taken before anything is dispatched
// (takeControl).
// [§Cancellation]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation
const methodCancelled = "notifications/cancelled"

// methods is the entire JSON-RPC surface of both eras, one line per method.
var methods = map[string]method{
	"server/discover":          {handle: (*server).handleDiscover, cacheable: true, era: modernEra},
	"initialize":               {handle: (*server).handleInitialize, params: []string{"protocolVersion", "capabilities", "clientInfo"}, era: classicEra, beforeInitialize: true, handshake: true},
	"ping":                     {handle: (*server).handlePing, era: classicEra, beforeInitialize: true},
	"logging/setLevel":         {handle: (*server).handleSetLevel, params: []string{"level"}, era: classicEra},
	"tools/list":               {handle: (*server).handleToolsList, params: []string{"cursor"}, cacheable: true},
	"tools/call":               {handle: (*server).handleToolsCall, params: []string{"name", "arguments", "inputResponses", "requestState"}, target: targetTool, mrtr: true, rateLimited: true},
	"resources/list":           {handle: (*server).handleResourcesList, params: []string{"cursor"}, cacheable: true},
	"resources/templates/list": {handle: (*server).handleTemplatesList, params: []string{"cursor"}, cacheable: true},
	"resources/read":           {handle: (*server).handleResourcesRead, params: []string{"uri", "inputResponses", "requestState"}, target: targetResource, cacheable: true, mrtr: true},
	methodResourcesSubscribe:   {handle: (*server).handleResourcesSubscribe, params: []string{"uri"}, target: targetResource, era: classicEra},
	methodResourcesUnsubscribe: {handle: (*server).handleResourcesUnsubscribe, params: []string{"uri"}, target: targetResource, era: classicEra},
	"prompts/list":             {handle: (*server).handlePromptsList, params: []string{"cursor"}, cacheable: true},
	"prompts/get":              {handle: (*server).handlePromptsGet, params: []string{"name", "arguments", "inputResponses", "requestState"}, target: targetPrompt, mrtr: true},
	"completion/complete":      {handle: (*server).handleComplete, params: []string{"ref", "argument", "context"}, target: targetRef},
	"subscriptions/listen":     {handle: (*server).handleSubscriptionsListen, params: []string{"notifications"}, target: targetListen, era: modernEra, stream: true},
	// The tasks extension (tasks.go): never cacheable, a cache ttlMs would overwrite the task's.
	"tasks/get":                 {handle: (*server).handleTasksGet, params: []string{"taskId"}, target: targetTask, era: modernEra},
	"tasks/update":              {handle: (*server).handleTasksUpdate, params: []string{"taskId", "inputResponses"}, target: targetTask, era: modernEra},
	"tasks/cancel":              {handle: (*server).handleTasksCancel, params: []string{"taskId"}, target: targetTask, era: modernEra},
	methodSkillsList:            {handle: (*server).handleSkillsList, params: []string{"cursor"}, cacheable: true, era: modernEra},
	methodSkillsGet:             {handle: (*server).handleSkillsGet, params: []string{"uri"}, cacheable: true, era: modernEra},
	methodDirectoryRead:         {handle: (*server).handleDirectoryRead, params: []string{"uri", "cursor"}, era: modernEra},
	methodCancelled:             {notification: true, params: []string{"requestId", "reason"}},
	"notifications/initialized": {handle: (*server).handleInitialized, notification: true, era: classicEra},
}

// result is what a handler returns: its own members, and what the dispatcher stamps around them.
type result struct {
	body          any        // a JSON object of the method's own members (json.RawMessage: as is)
	cache         *cacheHint // overrides the server's default hints on a cacheable method
	meta          []byte     // extra _meta members as raw `"key":value` pairs
	inputRequired bool       // an InputRequiredResult (no cache hints)
	toolError     bool       // a tool result with isError: true, an outcome of its own
	task          bool       // a CreateTaskResult (resultType "task", tasks.go)
}

// caller is who sent a request, as its transport established it.
type caller struct {
	principal string // the authenticated identity (req.Principal); "" on stdio, HTTP without auth
	// share keys the caller's fair share of every limit: the principal, else on HTTP the client's
	// address ("addr:" and the IP, an IPv6 address's /64), else "" (stdio: one client).
	share string
	// addr is the client's IP on HTTP (clientAddr), "" on stdio: logged, the share without a
	// principal; trusted for nothing else.
	addr string
	// scopes are what the credential grants (widened by -scope-implies only when checked); scoped:
	// they bound it. Unscoped: stdio, HTTP without authentication, a static token without scopes.
	scopes  []string
	scoped  bool
	expires time.Time // when the credential lapses, zero for never; streams end then
	client  string    // an access token's OAuth client (client_id, RFC 9068 §2.2, else azp), or ""
}

// binding is what the state a caller creates (tasks, classic sessions, requestState) is bound to:
// its principal and token's OAuth client, so the user's token for another application reaches none
// of it (SEP-2663, "Auth binding"; TestAuthBindingClient); quoting keeps bindings apart.
func (who caller) binding() string {
	if who.client == "" {
		return who.principal
	}
	return strconv.Quote(who.principal) + " client " + strconv.Quote(who.client)
}

// expiry returns a channel firing when who's credential expires (nil: never) and its timer's stop.
func (who caller) expiry() (<-chan time.Time, func()) {
	if who.expires.IsZero() {
		return nil, func() {}
	}
	timer := time.NewTimer(time.Until(who.expires))
	return timer.C, func() { timer.Stop() }
}

// transport names the transport a request arrived on (logs, metrics); the zero value is stdio.
type transport uint8

// The transports.
const (
	transportStdio transport = iota
	transportHTTP
	numTransports
)

// transportNames spells the transports, indexed by transport.
var transportNames = [numTransports]string{"stdio", "http"}

// exchange is what a transport knows about one request it hands to the dispatcher.
type exchange struct {
	send func(msg []byte) // a notification on the request's own stream; dropped once cancelled
	// callSend, when set, is send for a transport writing all requests' messages to one stream
	// (stdio): the driver binds it to the call, so nothing follows its cancellation or response.
	callSend  func(cl *call, msg []byte)
	caller    caller
	transport transport
	session   *session // the classic-era session; nil when that era is off here (decideEra)
	// check, if set, validates what the transport carries beside the message (HTTP's mirrored
	// headers); admit answers its error.
	check func(req *request) *rpcError
	// closing is closed as the transport shuts down gracefully, before it cancels its requests (a
	// listen ends with its result); nil if never.
	closing <-chan struct{}
	// reserve, if set (stdio's answers budget), charges an answer of about n bytes before
	// encoding, waiting while ctx lasts (false: it ended); release gives them back once written.
	reserve func(ctx context.Context, n int) (release func(), ok bool)
}

// framing is what a transport read beside a message, in the core's terms; zero for stdio.
type framing struct {
	// lateSession: the transport names a message's classic session in its framing, looked up once
	// decideEra (reading namesSession, version) decided the era; else it hands over its own.
	lateSession  bool
	namesSession bool   // the message names a classic session
	version      string // the protocol version the framing names, trimmed; "" when none
	// traceparent, tracestate: the W3C trace context the transport carried, as sent; "" when
	// absent or ambiguous; _meta's wins.
	traceparent, tracestate string
	// header is HTTP's header fields by canonical name, read-only (req.Header); nil on stdio.
	header map[string][]string
}

// newRequest reads msg once, before anything is served, into the request a handler sees: params
// and _meta (a problem kept in req.invalid), era (decideEra, with the transport's session sess, if
// any) and trace context, with every path's framing (TestEveryPathCarriesFraming).
func (s *server) newRequest(msg *message, sess *session, f framing) *request {
	req := &request{id: msg.id, method: msg.method, notification: msg.isNotification(), server: s, header: f.header}
	req.invalid = req.parseParams(msg.params, methods[msg.method].params)
	req.era = s.decideEra(req, sess, &f)
	if !req.notification {
		req.trace = newTraceContext(req.meta.traceparent, req.meta.tracestate, f.traceparent, f.tracestate)
	}
	return req
}

// reply is what serving a request gives its transport: the response line in pieces, and what the
// transport may say beside it, so that none reads back what the core encoded.
type reply struct {
	parts      replyParts    // the response line; nil for a notification
	code       int           // its JSON-RPC error code, 0 for a result
	classic    bool          // served in the classic era: a JSON-RPC error is an answer (HTTP 200)
	retryAfter time.Duration // error.data.retryAfterMs of a rate-limited or busy request
	scope      string        // error.data.scope of a request refused for scope: HTTP's challenge
	// closesListen: a subscriptions/listen ended with its graceful result; stdio then writes the
	// notifications/cancelled closing it (docs/GAPS.md, row 28).
	closesListen bool
	cancelled    bool   // the client cancelled the request: it is not answered
	release      func() // gives back what exchange.reserve charged, once written
}

// errorReply is the reply of a request answered e.
func errorReply(id []byte, e *rpcError) reply {
	r := reply{parts: replyParts{encodeError(id, e)}, code: e.Code}
	switch d := e.Data.(type) {
	case map[string]int64:
		r.retryAfter = time.Duration(d["retryAfterMs"]) * time.Millisecond
	case map[string]string:
		r.scope = d["scope"]
	}
	return r
}

// serve is serveReply for a caller taking the line whole (nil: a notification) and its error code.
func (s *server) serve(ctx context.Context, req *request, ex exchange) (line []byte, code int) {
	r := s.serveReply(ctx, req, ex)
	return r.parts.join(), r.code
}

// serveReply serves req in its own context (req.context), counted and with its access line.
func (s *server) serveReply(ctx context.Context, req *request, ex exchange) reply {
	if req.notification {
		return s.answer(ctx, req, ex)
	}
	start := time.Now()
	if s.metrics != nil { // nil in the stdio build
		s.metrics.started()
	}
	r := s.answer(req.context(ctx), req, ex)
	r.classic = req.era.era == classicEra
	end := time.Now()
	if s.metrics != nil {
		s.metrics.served(req.method, req.era.era, ex.transport, req.end, end.Sub(start))
	}
	if s.access != nil {
		s.access.request(req, ex.transport, req.end, r.code, end, end.Sub(start))
	}
	return r
}

// answer is serveReply without the instrumentation: it admits req, runs its handler and encodes
// the reply, recording on req.end how it ended (endedBy). A panicking handler is answered -32603.
func (s *server) answer(ctx context.Context, req *request, ex exchange) (rep reply) {
	m, known := methods[req.method]
	if ex.caller.principal != "" && !req.notification && s.access == nil {
		// Audit without access lines; deferred first, it runs after a panic's answer is set.
		defer func(start time.Time) { s.audit(req, ex.transport, time.Since(start), rep.code) }(time.Now())
	}
	defer func() {
		if p := recover(); p != nil {
			ref := s.nextRef()
			s.log.Error("handler panicked", append(req.logAttrs(), "ref", ref, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))...)
			req.end, rep = outcomeServerError, errorReply(req.id, errInternal)
			if req.notification {
				rep = reply{}
			}
		}
	}()
	if req.notification {
		if known && m.notification && m.handle != nil && req.invalid == nil && s.admitEra(req, m, ex) == nil {
			_, _ = m.handle(s, ctx, req)
		}
		return reply{}
	}
	req.send, req.caller, req.closing = ex.send, ex.caller, ex.closing
	fail := func(out outcome, e *rpcError) reply {
		req.end = out
		return errorReply(req.id, e)
	}
	// A request its client ended (notifications/cancelled, session end) gets no answer
	// (TestOutcomes).
	ended := func(ctx context.Context, err error) reply {
		out, rerr := s.endedBy(ctx, req, err)
		r := fail(out, rerr)
		cause := context.Cause(ctx)
		byClient := errors.Is(cause, errRequestCancelled) || errors.Is(cause, errSessionEnded)
		r.cancelled = out == outcomeCancelled && byClient
		return r
	}
	if !known {
		// The name is cut: it is the peer's, of any length.
		return fail(outcomeClientError, newError(codeMethodNotFound, "method not found: %s", schemaTruncate(req.method)))
	}
	if m.notification {
		return fail(outcomeClientError, newError(codeInvalidRequest, "invalid request: %s is a notification", req.method))
	}
	if req.invalid != nil {
		return fail(outcomeClientError, req.invalid)
	}
	if rerr := s.admitEra(req, m, ex); rerr != nil {
		return fail(outcomeClientError, rerr)
	}
	if req.caller.scoped { // HTTP with scoped credentials: nothing to check otherwise
		if rerr := s.authorize(req); rerr != nil {
			return fail(outcomeForbidden, rerr)
		}
	}
	if m.rateLimited && s.limiter != nil {
		if ok, retry := s.limiter.allow(ex.caller.share); !ok {
			return fail(outcomeRateLimited, rateLimited(retry))
		}
	}
	if m.mrtr && req.session == nil && (req.param("requestState") != nil || req.param("inputResponses") != nil) {
		// A multi round-trip retry: what it carries is read once, here.
		if rerr := s.beginInput(req); rerr != nil {
			return fail(codeOutcome(rerr.Code), rerr)
		}
	}
	var cancel context.CancelFunc
	if !m.stream && s.requestTimeout > 0 {
		// [§Timeouts]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation#timeouts
		ctx, cancel = context.WithTimeoutCause(ctx, s.requestTimeout, s.timedOut)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	res, err := m.handle(s, ctx, req)
	if req.notices.heldProgress != nil || req.notices.dropped > 0 {
		req.flushNotices() // what the rate limits held back goes before the result
	}
	// need is declared only under err != nil: errors.As moves it to the heap.
	if err != nil {
		if need := (*inputRequired)(nil); errors.As(err, &need) && req.session != nil {
			// A classic client cannot retry with inputResponses: ask it (classic_bridge.go).
			res, err = s.bridgeInput(ctx, req, m, need)
		} else if need != nil {
			res, err = s.inputRequiredResult(req, m, need)
		}
	}
	if err != nil {
		return ended(ctx, err)
	}
	switch {
	case res.inputRequired:
		req.end = outcomeInputRequired
	case res.toolError:
		req.end = outcomeToolError
	}
	if !m.cacheable || res.inputRequired {
		res.cache = nil
	} else if res.cache == nil {
		res.cache = &s.cache
	}
	var release func()
	if ex.reserve != nil {
		var ok bool
		if release, ok = ex.reserve(ctx, res.size()); !ok {
			return ended(ctx, ctx.Err())
		}
	}
	out, err := s.encodeResult(req.id, res, req.version)
	if err != nil {
		if release != nil {
			release()
		}
		return fail(outcomeServerError, s.peerError(req, err))
	}
	return reply{parts: out, closesListen: m.stream, release: release}
}

// endedBy decides, in one place, how a request whose handler failed with err ended and what it is
// answered, from why it ended (TestOutcomes):
//
//   - its client went away (notifications/cancelled, a closed stream or connection, its
//     session ended: endedWithClient) or the transport shut down: cancelled, whatever it returned;
//   - its -request-timeout passed: timeout, unless its own error stands (TestRequestTimeoutStdio);
//   - shutdown cut it (errCutByShutdown): cut;
//   - otherwise the handler's error, by its code (codeOutcome); any but an *rpcError is ours.
func (s *server) endedBy(ctx context.Context, req *request, err error) (outcome, *rpcError) {
	var rerr *rpcError
	own := errors.As(err, &rerr)
	var gone *endedWithClient
	cause := context.Cause(ctx)
	var timedOut *timeoutCause
	switch {
	case errors.As(err, &gone):
		return outcomeCancelled, gone.rerr
	case errors.As(cause, &timedOut) && !own:
		return outcomeTimeout, s.requestTimedOut(ctx, req)
	case ctx.Err() != nil && errors.Is(cause, errCutByShutdown):
		return outcomeCut, errCut
	case ctx.Err() != nil && !errors.As(cause, &timedOut):
		// The answer is rarely delivered, and it is no server fault to log.
		return outcomeCancelled, cmp.Or(rerr, errCancelled)
	case own:
		return codeOutcome(rerr.Code), rerr
	}
	return outcomeServerError, s.peerError(req, err)
}

// endedWithClient is the error of a request whose client went away while it waited for it (a
// bridged request whose session ended): answered rerr, counted cancelled.
type endedWithClient struct{ rerr *rpcError }

func (e *endedWithClient) Error() string { return e.rerr.Error() }

// peerError maps err for the peer: an *rpcError as is, else -32603 with the details logged by ref.
func (s *server) peerError(req *request, err error) *rpcError {
	var rerr *rpcError
	if errors.As(err, &rerr) {
		return rerr
	}
	ref := s.nextRef()
	s.log.Error("internal error", append(req.logAttrs(), "ref", ref, "err", err)...)
	return &rpcError{Code: codeInternalError, Message: "internal error", Data: map[string]int64{"ref": ref}}
}

// nextRef returns a correlation number for a log line the peer may quote.
func (s *server) nextRef() int64 { return s.refs.Add(1) }

// outcome is how a request ended, for the access line and the metrics.
type outcome uint8

// The outcomes, and their names in logs and labels (outcomeNames).
const (
	outcomeOK            outcome = iota // a result
	outcomeInputRequired                // an input_required result (multi round-trip)
	outcomeToolError                    // a tool result with isError: true
	outcomeClientError                  // a JSON-RPC error the request caused (-32600, -32601, -32602, -32700, -32020..-32022, -32002)
	outcomeServerError                  // -32603 internal error, or an application-defined code
	outcomeTimeout                      // -request-timeout expired
	outcomeCancelled                    // the client went away (cancelled, closed, its session ended), or shutdown ended it
	outcomeRateLimited                  // refused by -rate-limit (-31429)
	outcomeForbidden                    // the caller's scopes do not allow it (-31403, auth_http.go)
	outcomeCut                          // cut by a shutdown that would wait no longer (errCutByShutdown)
	numOutcomes
)

// outcomeNames spells the outcomes, indexed by outcome.
var outcomeNames = [numOutcomes]string{"ok", "input_required", "tool_error", "client_error", "server_error", "timeout", "cancelled", "rate_limited", "forbidden", "cut"}

// codeOutcome classifies an error answered with code: the request's fault (JSON-RPC codes a peer
// causes, MCP's -32020..-32099, -32002) or the server's (-32603, application-defined codes).
func codeOutcome(code int) outcome {
	if code == codeParseError || code == codeInvalidRequest || code == codeMethodNotFound ||
		code == codeInvalidParams || code == codeResourceNotFound || (code <= codeHeaderMismatch && code >= -32099) {
		return outcomeClientError
	}
	return outcomeServerError
}

// oneLine returns msg (a line ending in "\n") with no other line break: a handler's
// json.RawMessage may be pretty-printed; SSE and line-splitting clients need one line per message.
func oneLine(msg []byte) []byte {
	body := bytes.TrimSuffix(msg, []byte("\n"))
	if c := compactLine(body); len(c) < len(body) {
		return append(c, '\n')
	}
	return msg
}
