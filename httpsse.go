//go:build !stdio

// The Streamable HTTP transport: one endpoint, routed by HTTP method; each
// POSTed request answered with one JSON object, or with an SSE stream
// scoped to it when it produced notifications before its result.
//
// This file holds the transport, its routing, POST and the writing of
// responses and SSE streams; the parts: httpsse_listen.go (flags,
// listening, shutdown), httpsse_security.go (Host, Origin, CORS,
// authentication), httpsse_headers.go (mirrored header checks). The
// classic era's sessions, GET stream and DELETE are classic_http.go.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation.

package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// httpPath is the MCP endpoint.
const httpPath = "/mcp"

// httpTransport is the MCP endpoint's handler. It is immutable once built
// and serves requests concurrently.
type httpTransport struct {
	s         *server
	cfg       *httpConfig
	loopback  bool            // bound to a loopback address: Host is checked
	origins   map[string]bool // allowed Origin values, normalised
	cop       *http.CrossOriginProtection
	auth      *authenticator // who a request's credential names (auth_http.go)
	authOn    bool           // auth asks for a credential: tokens or OAuth (authenticator.on)
	sessions  *sessionStore  // classic sessions (classic_http.go)
	keepAlive time.Duration  // SSE comment interval on long-lived streams
	// closing is closed when serveHTTP begins shutting down; every
	// exchange carries it (subscriptions/listen ends gracefully on it).
	closing chan struct{}
	// slots bounds the requests served at once (-max-requests); bodies
	// bounds the bytes of request bodies held, read or being served
	// (httpBodyBudget bodies of -max-body); control bounds the responses
	// and notifications being handled, which take no request slot. Each
	// has a share per client (limits_share.go).
	slots, bodies, control *shareLimit
	// chunks keeps the chunks bodies are read in (readBody) for the next
	// bodies: bodyChunksKept of readBodyFirst bytes at most, idle.
	chunks *bufferPool
	// answers bounds the bytes of the answers being written, until the
	// client has read them (httpAnswerBudget answers of -max-body), with
	// a share per client (httpsse_answers.go).
	answers *shareLimit
	// largeAnswerIdle is httpLargeAnswerIdle; tests shorten it.
	largeAnswerIdle time.Duration
	// queueWait is how long a request waits for a slot, or its body for
	// room in the budget (httpQueueWait).
	queueWait time.Duration
	// refused logs the refusals, at most a line a second
	// (httpsse_responses.go).
	refused failureLog
}

// httpBodyBudget is how many bodies of -max-body the server holds at
// once: the body bytes of every request in flight together (32 MiB by
// default, 8 MiB for one client: two bodies of the largest size). A small
// body takes only its own size from the budget, so it bounds memory, not
// the requests in flight (-max-requests does that). Serving a body
// allocates a few times its size (docs/RELIABILITY.md, "Worst-case
// memory"), so this is the largest term of the server's memory.
const httpBodyBudget = 8

// routes registers the transport's endpoints on mux: the MCP endpoint;
// the health probes, which answer before the endpoint's checks
// (httpsse_health.go); the protected resource metadata with an
// authorization server (httpsse_auth.go); and, unless -modern-only, the
// 2024-11-05 transport's two (classic_sse_http.go).
func (t *httpTransport) routes(mux *http.ServeMux) {
	mux.Handle(httpPath, t)
	t.s.probeRoutes(mux)
	t.routesResourceMetadata(mux)
	if t.s.modernOnly {
		return
	}
	mux.Handle(classicSSEPath, t.only(http.MethodGet, "GET opens the event stream", t.openClassicSSE))
	mux.Handle(classicMessagesPath, t.only(http.MethodPost, "POST a message", t.postClassicMessage))
}

// newHTTPTransport builds the endpoint for a server listening on bound.
func newHTTPTransport(s *server, cfg *httpConfig, bound net.Addr) *httpTransport {
	t := &httpTransport{s: s, cfg: cfg, origins: map[string]bool{}, cop: http.NewCrossOriginProtection(), keepAlive: cfg.keepAlive, closing: make(chan struct{})}
	t.refused = failureLog{log: s.log, msg: "HTTP requests refused"}
	if t.keepAlive <= 0 {
		t.keepAlive = defaultKeepAlive
	}
	maxSessions, idle := cfg.maxSessions, cfg.sessionIdle
	if maxSessions <= 0 {
		maxSessions = defaultMaxSessions
	}
	if idle <= 0 {
		idle = defaultSessionIdle
	}
	t.sessions = newSessionStore(maxSessions, int(s.share(int64(maxSessions), shareFloor)), idle, cfg.now)
	s.metrics.setLimit("max-sessions", float64(maxSessions))
	s.metrics.setLimit("max-body", float64(cfg.maxBody))
	s.metrics.gauge("baremcp_sessions_open", "Classic HTTP sessions open now.", t.sessions.count)
	n := int64(s.limits.maxRequests)
	t.slots = newShareLimit(n, s.share(n, shareFloor))
	bodies := httpBodyBudget * cfg.maxBody
	t.bodies = newShareLimit(bodies, s.share(bodies, cfg.maxBody))
	t.chunks = newBufferPool(bodyChunksKept, readBodyFirst, readBodyFirst)
	control := max(shareFloor, n/8)
	t.control = newShareLimit(control, s.share(control, shareFloor))
	answers := httpAnswerBudget * cfg.maxBody
	t.answers = newShareLimit(answers, s.share(answers, cfg.maxBody))
	t.largeAnswerIdle = cmp.Or(cfg.largeAnswerIdle, httpLargeAnswerIdle)
	s.metrics.gauge("baremcp_http_answer_bytes", "Bytes of answers being written to HTTP clients: the answer budget in use.", func() int64 {
		_, all := t.answers.held("")
		return all
	})
	t.queueWait = httpQueueWait
	port := ""
	if tcp, ok := bound.(*net.TCPAddr); ok {
		t.loopback = tcp.IP.IsLoopback()
		port = strconv.Itoa(tcp.Port)
	}
	// The server's own origins: a page it could have served itself.
	own := []string{"http://127.0.0.1:" + port, "http://localhost:" + port, "http://[::1]:" + port}
	for _, v := range append(own, cfg.allowOrigins...) {
		if o, ok := normalizeOrigin(v); ok {
			t.origins[o] = true
			_ = t.cop.AddTrustedOrigin(o)
		}
	}
	t.cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeHTTPError(w, http.StatusForbidden, newError(codeInvalidRequest, "forbidden: cross-origin request"))
	}))
	t.auth = newAuthenticator(s, &cfg.auth, cfg.addr, bound)
	t.authOn = t.auth.on()
	return t
}

// ServeHTTP applies the endpoint's security checks (guard), then routes by
// HTTP method: POST carries a message; GET opens and DELETE ends a classic
// session's stream and session.
func (t *httpTransport) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	who, ok := t.guard(w, r)
	if !ok {
		return
	}
	switch {
	case r.Method == http.MethodPost:
		t.post(w, r, who)
	case r.Method == http.MethodGet && !t.s.modernOnly:
		t.getStream(w, r, who)
	case r.Method == http.MethodDelete && !t.s.modernOnly:
		t.deleteSession(w, r, who)
	default:
		// [§Backward Compatibility]: the modern revision has no GET
		// stream and no sessions to DELETE; the classic ones do.
		if t.s.modernOnly {
			w.Header().Set("Allow", http.MethodPost)
		} else {
			w.Header().Set("Allow", "POST, GET, DELETE")
		}
		writeHTTPError(w, http.StatusMethodNotAllowed, newError(codeInvalidRequest, "method not allowed: use POST"))
	}
}

// post serves one JSON-RPC message. The body is read first, under the
// body budget and before any request slot is taken, so that a slow body
// holds bytes of its own client's share and never a slot (issue 19,
// finding 4). Then the driver takes it (conn.take), and what it is
// decides what it needs: a request (or a batch) takes a slot; a response
// or a notification, which ends at once and may be what a waiting request
// needs to finish (the answer to a bridged elicitation,
// notifications/cancelled), takes only a control slot of its own budget
// (finding 10). What was taken is given back by one defer, and every
// write has a deadline (finding 3).
// [§Sending Messages]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#sending-messages
func (t *httpTransport) post(w http.ResponseWriter, r *http.Request, who caller) {
	if !isJSONContentType(r.Header.Get("Content-Type")) {
		writeHTTPError(w, http.StatusUnsupportedMediaType, newError(codeInvalidRequest, "unsupported media type: send application/json"))
		return
	}
	if !acceptsMCP(r.Header.Values("Accept")) {
		writeHTTPError(w, http.StatusNotAcceptable, newError(codeInvalidRequest, "not acceptable: accept both application/json and text/event-stream"))
		return
	}
	rc := http.NewResponseController(w)
	body, release, ok := t.receive(w, r, rc, who)
	if !ok {
		return
	}
	defer release()
	if jsonKind(body) == '[' && !t.s.modernOnly && len(r.Header.Values(headerSessionID)) > 0 {
		// Only a classic session may hold a batch (batch.go).
		t.postBatch(w, r, rc, body, who)
		return
	}
	// The era is decided here, once (decideEra): initialize and the
	// messages of a classic session go through the session, even those
	// served modern.
	in := conn{s: t.s, transport: transportHTTP}.take(body, httpFraming(r.Header, true))
	switch {
	case in.err != nil:
		// A message HTTP cannot serve is answered, even a notification.
		writeHTTPError(w, httpStatus(in.err.Code), in.err, in.msg.id)
	case in.req.era.classicOn:
		t.postClassic(w, r, rc, in, who)
	case in.msg.isResponse():
		// Server-to-client requests do not exist in this revision (MRTR).
		writeHTTPError(w, http.StatusBadRequest, newError(codeInvalidRequest, "invalid request: the server sent no request to answer"), in.msg.id)
	case in.kind != incomingRequest:
		// No notification means anything over HTTP in this revision
		// (cancelling is closing the stream); accepted and served. Header
		// requirements for notification POSTs are not defined.
		if !t.admit(w, r, t.control, who, in.msg.id) {
			return
		}
		defer t.control.give(who.share, 1)
		in.begin(r.Context())
		w.WriteHeader(http.StatusAccepted)
	default:
		if !t.admit(w, r, t.slots, who, in.msg.id) {
			return
		}
		defer t.slots.give(who.share, 1)
		in.begin(r.Context())
		defer in.end()
		t.respond(w, rc, r, in, who)
	}
}

// respond serves in, a request of r holding a request slot, begun, and
// writes its answer: one JSON body, or the SSE stream its notifications
// opened, with keep-alive comments on a stream method's
// (subscriptions/listen); nothing but the end of the stream for a
// request the client cancelled (notifications/cancelled in a classic
// session). Modern requests and those of a classic session end here alike
// (review A, finding 5: a listen in a session, served by a near-copy,
// got no keep-alives).
// [§Cancellation]: https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation#behavior-requirements
func (t *httpTransport) respond(w http.ResponseWriter, rc *http.ResponseController, r *http.Request, in *incoming, who caller) {
	call := t.newCall(w, rc, r, who, in.msg.id)
	defer call.release()
	if methods[in.msg.method].stream {
		defer call.keepAlive(t.keepAlive)()
	}
	// check runs only for a modern request (modern _meta inside a
	// session too); classic requests never meet the modern headers.
	rep := in.serve(exchange{send: call.notify, caller: who, check: mirroredHeaders(r.Header), closing: t.closing})
	if rep.cancelled {
		call.abandon()
		return
	}
	call.finish(rep)
}

// newCall starts the response of one request of who, whose id is id
// (nil: a batch). The caller defers release.
func (t *httpTransport) newCall(w http.ResponseWriter, rc *http.ResponseController, r *http.Request, who caller, id []byte) *httpCall {
	setReason(w, reasonAnswer)
	return &httpCall{w: w, rc: rc, conn: r.Context(), challenge: t.scopeChallenge, metrics: t.s.metrics, id: id, replies: t.s.replies,
		answers: answerHold{budget: t.answers, share: who.share, wait: t.queueWait}}
}

// receive reads the body of a POST whose content type has been checked,
// under the body budget: the announced length is taken from who's share
// up front (waiting up to t.queueWait for room), an unannounced one as
// the buffer grows. No request slot is taken: the message decides what
// it needs once it is read (admit). It returns the body and release,
// which gives the bytes back (once: before a refusal is written, and when
// the message has been served). ok false means it has answered: 413, 503
// when the budget has no room, or 400 for a body that could not be read.
func (t *httpTransport) receive(w http.ResponseWriter, r *http.Request, rc *http.ResponseController, who caller) (body []byte, release func(), ok bool) {
	if r.ContentLength > t.cfg.maxBody {
		writeHTTPError(w, http.StatusRequestEntityTooLarge, newError(codeInvalidRequest, "request body larger than %d bytes", t.cfg.maxBody))
		return nil, nil, false
	}
	taken := r.ContentLength
	if taken < 0 {
		taken = min(readBodyFirst, t.cfg.maxBody)
	}
	if !t.bodies.take(who.share, taken) && !t.bodies.wait(r.Context(), who.share, taken, t.queueWait) {
		t.s.metrics.busyRefused()
		writeBusy(w, t.bodyBusy(who, taken), nil)
		return nil, nil, false
	}
	release = func() { t.bodies.give(who.share, taken) }
	grow := func(size int) bool {
		more := int64(size) - taken
		if r.ContentLength >= 0 || more <= 0 {
			return true // the whole announced length, or this much, is taken
		}
		if !t.bodies.take(who.share, more) {
			return false
		}
		taken += more
		return true
	}
	_ = rc.SetReadDeadline(time.Now().Add(httpBodyReadTimeout))
	body, err := readBody(http.MaxBytesReader(w, r.Body, t.cfg.maxBody), r.ContentLength, t.cfg.maxBody, grow, t.chunks)
	if err != nil {
		release()
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			writeHTTPError(w, http.StatusRequestEntityTooLarge, newError(codeInvalidRequest, "request body larger than %d bytes", t.cfg.maxBody))
		case errors.Is(err, errBodyBudget):
			// The rest of the body is not read: close, do not drain.
			t.s.metrics.busyRefused()
			w.Header().Set("Connection", "close")
			writeBusy(w, t.bodyBusy(who, readBodyFirst), nil)
		default:
			// A body cut off by its read deadline (slowloris) must not be
			// drained afterwards: net/http would read the rest, without a
			// deadline, before answering. Closing skips that.
			w.Header().Set("Connection", "close")
			writeHTTPError(w, http.StatusBadRequest, newError(codeInvalidRequest, "invalid request: body could not be read"))
		}
		return nil, nil, false
	}
	// The deadline also applies to the server's background read that
	// notices a client disconnect; lift it. On a failed read it stays, so
	// net/http's drain of the unread body cannot hang on a slow client.
	_ = rc.SetReadDeadline(time.Time{})
	return body, release, true
}

// bodyBusy is the -31503 for a body the budget has no room for, saying
// whether the server's budget or who's share of it is full.
func (t *httpTransport) bodyBusy(who caller, n int64) *rpcError {
	if t.bodies.shareFull(who.share, n) {
		return newError(codeServerBusy, "server busy: this client's request bodies in flight fill its share of the server's budget, retry later")
	}
	return newError(codeServerBusy, "server busy: request bodies in flight fill the server's budget, retry later")
}

// admit takes one unit of lim (request slots, or control slots) for who,
// waiting up to t.queueWait. When there is none it answers 503 with
// -31503 and reports false. The caller gives the unit back (lim.give)
// when the message has been served.
func (t *httpTransport) admit(w http.ResponseWriter, r *http.Request, lim *shareLimit, who caller, id []byte) bool {
	if lim.take(who.share, 1) || lim.wait(r.Context(), who.share, 1, t.queueWait) {
		return true
	}
	t.s.metrics.busyRefused()
	what := "requests"
	if lim == t.control {
		what = "responses and notifications"
	}
	e := newError(codeServerBusy, "server busy: %d %s in flight, retry later", lim.total, what)
	if lim.shareFull(who.share, 1) {
		e = newError(codeServerBusy, "server busy: this client has %d %s in flight, its share of %d, retry later", lim.per, what, lim.total)
	}
	writeBusy(w, e, id)
	return false
}

// writeBusy answers 503 with Retry-After: the server is busy, for every
// client or for this one.
func writeBusy(w http.ResponseWriter, e *rpcError, id []byte) {
	w.Header().Set("Retry-After", "1")
	writeHTTPError(w, http.StatusServiceUnavailable, e, id)
}

// isJSONContentType reports whether a request's Content-Type is
// application/json, with no charset or charset utf-8. The exact values
// clients send are recognised without mime.ParseMediaType, which allocates
// a parameter map on every request; anything else is parsed in full.
func isJSONContentType(v string) bool {
	switch v {
	case "application/json", "application/json; charset=utf-8":
		return true
	}
	mt, params, err := mime.ParseMediaType(v)
	return err == nil && mt == "application/json" &&
		(params["charset"] == "" || strings.EqualFold(params["charset"], "utf-8"))
}

// errBodyBudget is readBody's error when grow refused room.
var errBodyBudget = errors.New("request body budget exhausted")

// readBody reads a request body whose Content-Length is size (-1 when
// unknown) and that may not pass limit bytes (0: no limit; the reader
// enforces it), calling grow with the bytes it is about to hold (nil
// grows freely): false stops the read with errBodyBudget. A body
// announced at most readBodyFirst long is read into one buffer of its
// size (and one byte, room for the Read that reports EOF). Any other is
// read into chunks of readBodyFirst taken from chunks (nil: new ones),
// then copied once into a buffer of exactly what arrived, and the chunks
// given back: the length is the peer's word, so it never sizes an
// allocation alone, and what is held is at most what has arrived and one
// chunk, never past size+1, or limit+1 when the size is unknown, so an
// unannounced body of -max-body takes no more of the budget than an
// announced one (review A, finding 7: it took twice, and started at one
// byte). io.ReadAll grows by a quarter at a time, which copied a 1 MiB
// body about five times over, and a buffer doubling from 64 KiB copied it
// twice and allocated it twice: the chunks, kept from body to body, halve
// what a large body allocates (docs/PERFORMANCE.md, the HTTP 1 MiB row).
func readBody(r io.Reader, size, limit int64, grow func(size int) bool, chunks *bufferPool) ([]byte, error) {
	end := size
	if size < 0 && limit > 0 {
		end = limit
	}
	if size >= 0 && size <= readBodyFirst {
		b := make([]byte, 0, size+1)
		for {
			n, err := r.Read(b[len(b):cap(b)])
			b = b[:len(b)+n]
			switch {
			case err == io.EOF:
				return b, nil
			case err != nil:
				return b, err
			case len(b) == cap(b):
				// Longer than announced (a reader that does not hold
				// the body to its length): read on in chunks.
				return readChunks(r, b, end, grow, chunks)
			}
		}
	}
	return readChunks(r, nil, end, grow, chunks)
}

// readChunks is readBody past its first buffer, first (nil for none),
// which it holds already and which is not a chunk.
func readChunks(r io.Reader, first []byte, end int64, grow func(size int) bool, chunks *bufferPool) ([]byte, error) {
	var full [][]byte
	held := int64(len(first))
	if first != nil {
		full = append(full, first)
	}
	take := func() []byte {
		n := int64(readBodyFirst)
		if rest := end + 1 - held; end >= 0 && rest > 0 && rest < n {
			n = rest // the announced end, or the limit
		}
		if held > 0 && grow != nil && !grow(int(held+n)) {
			return nil
		}
		held += n
		if chunks == nil || n < readBodyFirst {
			return make([]byte, 0, n)
		}
		return chunks.get(readBodyFirst)[:0:readBodyFirst]
	}
	giveBack := func() {
		for i, c := range full {
			if i > 0 || first == nil {
				if chunks != nil {
					chunks.put(c)
				}
			}
		}
	}
	cur := take()
	for {
		n, err := r.Read(cur[len(cur):cap(cur)])
		cur = cur[:len(cur)+n]
		if err != nil && err != io.EOF {
			// Refused or cut off: nothing of it is used, so it is not
			// copied (an oversized body would otherwise cost its size again).
			full = append(full, cur)
			giveBack()
			return nil, err
		}
		if err != nil {
			full = append(full, cur)
			total := 0
			for _, c := range full {
				total += len(c)
			}
			body := make([]byte, 0, total)
			for _, c := range full {
				body = append(body, c...)
			}
			giveBack()
			return body, nil
		}
		if len(cur) == cap(cur) {
			full = append(full, cur)
			if cur = take(); cur == nil {
				giveBack()
				return nil, errBodyBudget
			}
		}
	}
}

// readBodyFirst is readBody's first buffer: most requests fit in it;
// larger bodies are read in chunks of its size.
const readBodyFirst = 64 << 10

// bodyChunksKept is how many chunks of readBodyFirst the HTTP transport
// keeps between bodies (readBody): a body of 2 MiB reads from kept chunks
// alone; idle, they hold 2 MiB.
const bodyChunksKept = 32

// acceptsMCP reports whether the Accept header lets the server answer with
// either content type a request may get. No Accept at all accepts
// anything (RFC 9110 §12.5.1); otherwise both types must be covered. The
// value the MCP clients send is recognised without parsing: parsing each
// part with mime.ParseMediaType allocated a map per part per request.
func acceptsMCP(values []string) bool {
	if len(values) == 0 {
		return true
	}
	if len(values) == 1 && (values[0] == "application/json, text/event-stream" || values[0] == "text/event-stream, application/json") {
		return true
	}
	var jsonOK, sseOK bool
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			mt, params, err := mime.ParseMediaType(part)
			if err != nil {
				continue
			}
			if q, err := strconv.ParseFloat(params["q"], 64); err == nil && q <= 0 {
				continue
			}
			switch mt {
			case "*/*":
				jsonOK, sseOK = true, true
			case "application/*", "application/json":
				jsonOK = true
			case "text/*", "text/event-stream":
				sseOK = true
			}
		}
	}
	return jsonOK && sseOK
}

// httpStatus maps the JSON-RPC error code of a reply to its HTTP status.
// [§Protocol Version Header]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#protocol-version-header
// [§Per-request protocol fields]: https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
func httpStatus(code int) int {
	switch code {
	case 0:
		return http.StatusOK
	case codeMethodNotFound:
		return http.StatusNotFound
	case codeParseError, codeInvalidRequest, codeInvalidParams, codeHeaderMismatch, codeMissingCapability, codeUnsupportedVersion:
		return http.StatusBadRequest
	case codeInternalError:
		return http.StatusInternalServerError
	case codeRateLimited:
		return http.StatusTooManyRequests
	case codeServerBusy:
		return http.StatusServiceUnavailable
	case codeInsufficientScope:
		return http.StatusForbidden
	}
	// An application-defined error is an answer like any other.
	return http.StatusOK
}

// writeHTTPError answers with a JSON-RPC error as application/json. The id
// is the request's when it could be read, null otherwise.
func writeHTTPError(w http.ResponseWriter, status int, e *rpcError, id ...[]byte) {
	var raw []byte
	if len(id) > 0 {
		raw = id[0]
	}
	setReason(w, refusalReason(status, e))
	writeJSON(w, status, encodeError(raw, e))
}

// writeJSON writes one message as an application/json body.
func writeJSON(w http.ResponseWriter, status int, msg []byte) {
	writeJSONParts(w, status, oneLineParts(replyParts{msg}))
}

// writeJSONParts writes one message, in pieces (replyParts) already one
// line (oneLineParts), as an application/json body: each piece is handed
// to the connection as it is, so a stored value in it is never copied
// (net/http's buffers pass a large write through).
func writeJSONParts(w http.ResponseWriter, status int, msg replyParts) {
	// Every answer is written with a deadline: a client that never reads
	// must not hold the handler, nor what it holds, for longer.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(httpWriteTimeout))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(msg.size()))
	w.WriteHeader(status)
	for _, b := range msg {
		if _, err := w.Write(b); err != nil {
			return
		}
	}
}

// oneLineParts is oneLine for a reply in pieces: the pieces as they are
// when none holds a line break but the last one's end (stored values
// never do: compactLine), else the line joined and compacted.
func oneLineParts(msg replyParts) replyParts {
	for i, b := range msg {
		if i == len(msg)-1 {
			b = bytes.TrimSuffix(b, []byte("\n"))
		}
		if bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0 {
			return replyParts{oneLine(msg.join())}
		}
	}
	return msg
}

// httpCall is one request's response in progress. The first notification
// switches it to an SSE stream; the reply ends it. Once the client has gone
// (conn is done) or the reply is written, nothing more is written: a
// handler's straggling goroutines may still call notify.
type httpCall struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	conn    context.Context // the client connection's context
	metrics *metrics        // counts the SSE stream; nil counts nothing
	// challenge is the WWW-Authenticate of a reply refused for
	// insufficient scope, naming the scope it needs
	// (httpTransport.scopeChallenge); nil for none.
	challenge func(scope string) string
	// replies takes back the reply's buffer once written (finish).
	replies *bufferPool
	// id is the request's id, for the error that replaces a reply the
	// answer budget refuses; nil for a batch.
	id []byte
	// answers is the budget every event and reply larger than
	// httpSmallAnswer is written under (httpsse_answers.go).
	answers answerHold

	mu        sync.Mutex // guards w, streaming, done
	streaming bool       // the SSE header is out
	done      bool
}

// release ends the call's life once its handler has returned: an SSE
// stream it opened no longer counts as open.
func (c *httpCall) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.streaming && c.metrics != nil {
		c.metrics.sseClosed()
		c.metrics = nil
	}
}

// notify sends a notification for the request, opening the SSE stream on
// the first one.
// [§Receiving Messages]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#receiving-messages
func (c *httpCall) notify(msg []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done || c.conn.Err() != nil {
		return
	}
	if !c.streaming {
		startSSE(c.w)
		c.streaming = true
		if c.metrics != nil {
			c.metrics.sseOpened()
		}
	}
	msg = oneLine(msg)
	release, rerr := c.answers.hold(c.conn, len(msg), true)
	if rerr != nil {
		// The client has not read what it was sent for as long as a write
		// may block: its stream ends, as a write timing out ends it.
		c.done = true
		return
	}
	defer release()
	c.eventLocked(replyParts{msg})
}

// startSSE writes the head of an SSE response: status 200, the event
// stream content type, no caching, and no buffering by proxies (nginx
// honours X-Accel-Buffering), so that each event reaches the client when
// it is flushed. Every stream the transport opens starts here: a
// request's (httpCall), and a classic session's GET stream.
// [§Receiving Messages]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#receiving-messages
func startSSE(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
}

// finish writes the reply: the last event of the stream, or the whole
// application/json response when nothing was streamed, piece by piece
// (writeJSONParts), with its status (httpStatus) and what the reply says
// beside it: Retry-After, the scope challenge. A reply larger than
// httpSmallAnswer is written under the answer budget, taken first and
// given back once the write has returned (the client has read all but
// what the kernel's buffer holds, or the write timed out); a reply the
// budget refuses is replaced by -31503 (TestAttackUnreadAnswers).
func (c *httpCall) finish(rep reply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.endLocked() {
		return
	}
	rep.parts = oneLineParts(rep.parts)
	release, rerr := func() {}, (*rpcError)(nil)
	if size := rep.parts.size(); size > httpSmallAnswer {
		release, rerr = c.answers.hold(c.conn, size, false)
	}
	if rerr != nil {
		rep = errorReply(c.id, rerr)
		release = func() {}
		if c.metrics != nil {
			c.metrics.busyRefused()
		}
	}
	defer release()
	if c.streaming {
		c.eventLocked(rep.parts)
		return
	}
	code := httpCode(rep)
	switch {
	case code == codeRateLimited || code == codeServerBusy:
		c.w.Header().Set("Retry-After", retryAfter(rep.retryAfter))
	case code == codeInsufficientScope && c.challenge != nil:
		c.w.Header().Set("WWW-Authenticate", c.challenge(rep.scope))
	}
	writeJSONParts(c.w, httpStatus(code), rep.parts) // with its write deadline
	if len(rep.parts) == 1 && cap(rep.parts[0]) >= minReplyBuffer {
		// Written: net/http holds no part of it. A reply in pieces holds
		// stored values that are not the call's to give.
		c.replies.put(rep.parts[0])
	}
}

// endLocked ends the call and reports whether its last write may go out:
// false when it had ended already or the client has gone.
func (c *httpCall) endLocked() bool {
	// A request cut by shutdown ended its connection's context, not the
	// connection: its answer (errCut) still goes out.
	live := !c.done && (c.conn.Err() == nil || errors.Is(context.Cause(c.conn), errCutByShutdown))
	c.done = true
	return live
}

// retryAfter returns the Retry-After seconds for a rate-limited or busy
// reply: d rounded up, 1 when the error names no time.
func retryAfter(d time.Duration) string {
	if d <= 0 {
		return "1"
	}
	return strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10)
}

// httpCode is the code whose HTTP status answers rep (httpStatus): a
// reply served modern maps its error code; a classic one travels with
// 200, because a JSON-RPC error is a response like any other in the
// classic revisions (clients of that era treat any other status as a
// transport failure). Insufficient scope is the exception: it is HTTP's
// 403 in every revision that has authorization (2025-03-26 on), and what
// a client's step-up reacts to.
// [§Sending Messages to the Server]: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server
// [§Scope Challenge Handling (2025-11-25)]: https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#scope-challenge-handling
func httpCode(rep reply) int {
	if rep.classic && rep.code != codeInsufficientScope {
		return 0
	}
	return rep.code
}

// abandon ends the call without a reply (the client cancelled the
// request): a stream already open just ends; otherwise an empty stream is
// sent, since an HTTP request needs some response.
func (c *httpCall) abandon() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.endLocked() {
		return
	}
	if !c.streaming {
		startSSE(c.w)
		_ = c.rc.Flush()
	}
}

// keepAlive sends an SSE comment on the call's stream every interval,
// once the stream is open and until the call ends, so that proxies and
// clients do not close a quiet listen stream as idle. The returned stop
// ends the timer's goroutine and waits for it: the call owns it.
// [§Receiving Messages]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#receiving-messages
func (c *httpCall) keepAlive(interval time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				c.comment()
			case <-done:
				return
			case <-c.conn.Done():
				return
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// sseKeepAlive is the SSE comment keep-alives send; clients ignore it.
const sseKeepAlive = ": keep-alive\n\n"

// comment writes a keep-alive comment if the stream is open and live.
func (c *httpCall) comment() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.streaming || c.done || c.conn.Err() != nil {
		return
	}
	_ = c.rc.SetWriteDeadline(time.Now().Add(httpWriteTimeout))
	if _, err := io.WriteString(c.w, sseKeepAlive); err != nil {
		c.done = true
		return
	}
	if err := c.rc.Flush(); err != nil {
		c.done = true
	}
}

// eventLocked writes one SSE event carrying msg (one line, in pieces:
// oneLineParts) and flushes it. A write error (the client left) ends the
// call.
func (c *httpCall) eventLocked(msg replyParts) {
	_ = c.rc.SetWriteDeadline(time.Now().Add(httpWriteTimeout))
	if writeSSEEvent(c.w, msg) != nil || c.rc.Flush() != nil {
		c.done = true
	}
}

// writeSSEEvent writes one SSE event carrying msg (one line, in pieces:
// oneLineParts): a small one in one write, a large one piece by piece,
// never copied.
func writeSSEEvent(w io.Writer, msg replyParts) error {
	if len(msg) == 1 && len(msg[0]) <= httpSmallAnswer {
		msg = replyParts{sseEvent(msg[0])}
	} else {
		msg = append(append(replyParts{[]byte(sseEventHead)}, msg...), []byte("\n"))
	}
	for _, b := range msg {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// sseEventHead starts every SSE event the transport writes.
const sseEventHead = "event: message\ndata: "

// sseEvent is msg (a message line) as one SSE event.
func sseEvent(msg []byte) []byte {
	msg = oneLine(msg)
	buf := make([]byte, 0, len(msg)+24)
	buf = append(buf, sseEventHead...)
	buf = append(buf, msg...) // ends in "\n"
	return append(buf, '\n')
}
