//go:build !stdio

// Every HTTP response the server writes, counted: by status and by a
// reason from a closed set (baremcp_http_responses_total), on the MCP
// listener and the metrics listener alike. A refusal (a response written
// for a request that never reached the dispatcher: Host, Origin, media
// types, body, authentication, busy...) also leaves a log line, at most
// one a second whatever the clients send: "HTTP requests refused", with
// the counts by reason since the last line and the last refusal
// (failureLog, as authentication refusals are logged). A request that
// reached the dispatcher has its access line instead, and its outcome in
// baremcp_requests_total. docs/OPERATIONS.md has the table of refusals;
// TestHTTPRefusals writes each row with a raw request.
//
// Spec: none in MCP; https://prometheus.io/docs/practices/naming/ and
// RFC 9110 §15 for the statuses.

package main

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// httpReason is why the server wrote a response, as a metrics label and
// in the refusal log line: a closed set, decided by the server, never
// from a client's bytes.
type httpReason uint8

// The reasons, and their names (httpReasonNames). The first ones are not
// refusals.
const (
	reasonAnswer        httpReason = iota // a JSON-RPC request's answer, whatever its status (its outcome: baremcp_requests_total)
	reasonOK                              // another success: 202 for a notification, an SSE GET stream, 204, metadata, /metrics
	reasonProbe                           // /healthz, /readyz (200, or 503 while draining)
	reasonHost                            // 403: Host not allowed (DNS rebinding)
	reasonOrigin                          // 403: Origin not allowed, or a cross-origin request
	reasonNotFound                        // 404: no such path on this listener
	reasonMethod                          // 405: an HTTP method the path does not serve
	reasonNotAcceptable                   // 406: Accept lacks a type the answer may have
	reasonMediaType                       // 415: the body is not application/json
	reasonTooLarge                        // 413: the body is larger than -max-body
	reasonUnreadable                      // 400: the body could not be read (cut off, too slow)
	reasonNotJSON                         // 400 with -32700: the body is not JSON
	reasonInvalid                         // 400 with -32600: not a JSON-RPC message the transport takes
	reasonSession                         // 404: a classic session that does not exist (any more)
	reasonConflict                        // 409: a classic session's GET stream is open already
	reasonAuth                            // 401, 400, 403 or 503 from authentication (by reason: baremcp_auth_failures_total)
	reasonBusy                            // 503: no request slot, body budget or session left (-31503)
	reasonInternal                        // 500 written outside a request's answer
	reasonOther                           // anything else: none is written today
	numHTTPReasons
)

// httpReasonNames spells the reasons, indexed by httpReason.
var httpReasonNames = [numHTTPReasons]string{"answer", "ok", "probe", "host", "origin", "not_found", "method",
	"not_acceptable", "media_type", "too_large", "unreadable", "not_json", "invalid", "session", "conflict",
	"auth", "busy", "internal", "other"}

// refusal reports whether a response for this reason refused the request.
func (r httpReason) refusal() bool { return r > reasonProbe }

// httpStatuses are the statuses counted by name; any other is "other".
var httpStatuses = [...]int{200, 202, 204, 400, 401, 403, 404, 405, 406, 409, 413, 415, 429, 500, 503}

// numHTTPStatuses is the status label's size: httpStatuses and "other".
const numHTTPStatuses = len(httpStatuses) + 1

// statusIndex is the label index of status.
func statusIndex(status int) int {
	for i, s := range httpStatuses {
		if s == status {
			return i
		}
	}
	return len(httpStatuses)
}

// statusName is the label value of the status at index i.
func statusName(i int) string {
	if i < len(httpStatuses) {
		return strconv.Itoa(httpStatuses[i])
	}
	return "other"
}

// httpRefusals is every refusal the HTTP transport can write: its
// status, its reason and the message its error starts with. Its rows
// are docs/OPERATIONS.md's table (TestOperationsRefusalTable) and their
// series exist from the start, at 0, so that a rate over them has data
// before the first refusal. refusalReason classifies by it.
var httpRefusals = []struct {
	status int
	reason httpReason
	prefix string // of the JSON-RPC error's message; "" for the mux's own 404 and 405
}{
	{403, reasonHost, "forbidden: host not allowed"},
	{403, reasonOrigin, "forbidden: origin not allowed"},
	{403, reasonOrigin, "forbidden: cross-origin request"},
	{404, reasonNotFound, ""},
	{405, reasonMethod, "method not allowed"},
	{406, reasonNotAcceptable, "not acceptable"},
	{415, reasonMediaType, "unsupported media type"},
	{413, reasonTooLarge, "request body larger than"},
	{400, reasonUnreadable, "invalid request: body could not be read"},
	{400, reasonNotJSON, "parse error"},
	{401, reasonAuth, "unauthorized"},
	{400, reasonAuth, "bad request: malformed authorization"},
	{403, reasonAuth, "forbidden: insufficient scope"},
	{503, reasonAuth, "authorization server unavailable"},
	{400, reasonInvalid, "invalid request"},
	{400, reasonInvalid, "bad request"},
	{404, reasonSession, "session not found"},
	{409, reasonConflict, "conflict"},
	{503, reasonBusy, "server busy"},
	{500, reasonInternal, "internal error"},
}

// refusalReason classifies an error the transport writes with status:
// the first row of httpRefusals with its status and a prefix of its
// message, reasonOther for none (TestHTTPRefusals writes every row).
func refusalReason(status int, e *rpcError) httpReason {
	for _, row := range httpRefusals {
		if row.status == status && row.prefix != "" && strings.HasPrefix(e.Message, row.prefix) {
			return row.reason
		}
	}
	return reasonOther
}

// countedWriter is the ResponseWriter every handler of a listener gets
// (countResponses): it keeps the status written and the reason the
// writer gave (setReason). Unwrap lets http.ResponseController reach
// the connection's own writer (flush, deadlines).
type countedWriter struct {
	http.ResponseWriter
	status int
	reason httpReason
	given  bool // reason was set
}

// WriteHeader keeps the first status.
func (w *countedWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

// Write writes b, with status 200 when no header was written.
func (w *countedWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap returns the connection's writer, for http.ResponseController.
func (w *countedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// setReason records why w's response is written, once: the first reason
// given stands. A writer that is not a countedWriter (a test calling a
// handler directly) records nothing.
func setReason(w http.ResponseWriter, r httpReason) {
	if cw, ok := w.(*countedWriter); ok && !cw.given {
		cw.reason, cw.given = r, true
	}
}

// countedWriters recycles the writers of countResponses: one per request.
var countedWriters = sync.Pool{New: func() any { return new(countedWriter) }}

// countResponses wraps a listener's handler: every response is counted
// in m by status and reason, and a refusal is logged through refused
// (nil logs nothing). The reason is the writer's (setReason), else the
// status's: the mux's own 404 and 405, a success as ok.
func countResponses(m *metrics, refused *failureLog, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := countedWriters.Get().(*countedWriter)
		*cw = countedWriter{ResponseWriter: w}
		next.ServeHTTP(cw, r)
		status, reason := cw.status, cw.reason
		if status == 0 {
			status = http.StatusOK
		}
		if !cw.given {
			switch {
			case status < 300:
				reason = reasonOK
			case status == http.StatusNotFound:
				reason = reasonNotFound
			case status == http.StatusMethodNotAllowed:
				reason = reasonMethod
			default:
				reason = reasonOther
			}
		}
		*cw = countedWriter{}
		countedWriters.Put(cw)
		m.httpResponse(status, reason)
		if refused != nil && reason.refusal() && reason != reasonAuth {
			// Authentication refusals have a line of their own
			// ("authentication refused", auth_http.go). The path is the
			// client's: cut, and quoted by slog.
			refused.add(httpReasonNames[reason], strconv.Itoa(status)+" "+r.Method+" "+cutLogValue(r.URL.Path)+" from "+remoteIP(r.RemoteAddr))
		}
	})
}

// httpResponses counts responses by status and reason.
type httpResponses [numHTTPStatuses][numHTTPReasons]atomic.Uint64

// presetResponse reports whether the series of the status at index si
// and reason r is written before it counts anything: an answer with 200,
// and each refusal of httpRefusals.
func presetResponse(si int, r httpReason) bool {
	if si == statusIndex(http.StatusOK) && r == reasonAnswer {
		return true
	}
	for _, row := range httpRefusals {
		if statusIndex(row.status) == si && row.reason == r {
			return true
		}
	}
	return false
}

// httpResponse counts one response written with status for reason.
func (m *metrics) httpResponse(status int, reason httpReason) {
	m.responses[statusIndex(status)][reason].Add(1)
}
