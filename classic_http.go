//go:build !stdio

// The classic era over Streamable HTTP (revisions 2025-03-26 to 2025-11-25):
// sessions minted by initialize and named by Mcp-Session-Id, the
// standalone GET stream, DELETE, the MCP-Protocol-Version header of
// 2025-06-18 on, and the client's responses to server-to-client requests
// POSTed back. It shares the endpoint, and every check that runs before
// the method (Host, Origin, authentication, body cap), with the modern era.
//
// Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#protocol-version-header,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#backward-compatibility.

package main

import (
	"crypto/rand"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// headerSessionID names the classic session header.
const headerSessionID = "Mcp-Session-Id"

const (
	// defaultMaxSessions bounds the classic sessions open at once: each
	// holds a little memory and possibly a GET stream, and initialize is
	// unauthenticated when no token is configured.
	defaultMaxSessions = 1000

	// defaultSessionIdle is how long a classic session may go unused (no
	// request running, no GET stream open) before it is ended.
	defaultSessionIdle = 30 * time.Minute
)

// sessionStore holds the classic sessions of one HTTP endpoint, at most
// open.total of them and open.per for one client (limits_share.go). Expired
// sessions are swept lazily (when a session is looked up or added), so it
// owns no goroutine; closeAll ends them all when the server stops.
//
// A session is idle while no request of it runs. Its GET stream does not
// count: an open stream would otherwise keep a session alive for ever, and
// with it a place in the store (issue 19, finding 5). So a session unused
// for -session-idle ends, and its stream with it; the client gets 404 on
// its next request and initializes again, as the transport prescribes.
// When the store (or the client's share of it) is full, a new session
// takes the place of the least recently used idle one (of that client,
// when its share is what is full), which ends the same way.
// [§Session Management]: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
type sessionStore struct {
	idle time.Duration
	now  func() time.Time
	// open counts the sessions in byID, by the share of the client that
	// opened them. Taken and given only under mu, so that it always
	// agrees with byID.
	open *shareLimit

	mu     sync.Mutex // guards byID, closed, and the use of open
	byID   map[string]*sessionEntry
	closed bool
}

// sessionEntry is one session and its use, for idle expiry. Its share is
// the session's (session.share: the client that opened it).
type sessionEntry struct {
	sess     *session
	lastUsed time.Time
	requests int // requests running in the session
}

// newSessionStore returns an empty store of at most max sessions,
// perShare of them for one client.
func newSessionStore(max, perShare int, idle time.Duration, now func() time.Time) *sessionStore {
	if now == nil {
		now = time.Now
	}
	return &sessionStore{open: newShareLimit(int64(max), int64(perShare)), idle: idle, now: now, byID: map[string]*sessionEntry{}}
}

// expiredLocked reports whether e has been idle too long.
func (st *sessionStore) expiredLocked(e *sessionEntry, now time.Time) bool {
	return e.requests == 0 && now.Sub(e.lastUsed) > st.idle || e.sess.ended()
}

// endLocked removes e and ends its session, cancelling its requests in
// flight.
func (st *sessionStore) endLocked(id string, e *sessionEntry) {
	delete(st.byID, id)
	st.open.give(e.sess.share, 1)
	e.sess.endWithRequests()
}

// sweepLocked ends the expired sessions.
func (st *sessionStore) sweepLocked(now time.Time) {
	for id, e := range st.byID {
		if st.expiredLocked(e, now) {
			st.endLocked(id, e)
		}
	}
}

// victimLocked returns the least recently used idle session (of share,
// unless it is ""), or "" when every such session has a request running.
func (st *sessionStore) victimLocked(share string) string {
	victim, oldest := "", time.Time{}
	for id, e := range st.byID {
		if e.requests == 0 && (share == "" || e.sess.share == share) && (victim == "" || e.lastUsed.Before(oldest)) {
			victim, oldest = id, e.lastUsed
		}
	}
	return victim
}

// roomLocked makes room for one more session of share, ending the least
// recently used idle session when the share (that client's own) or the
// store is full; false when there is no room to make (or the store is
// closed). With evict false it only says whether there would be.
func (st *sessionStore) roomLocked(share string, evict bool) bool {
	st.sweepLocked(st.now())
	if st.closed {
		return false
	}
	if st.open.shareFull(share, 1) {
		// Ending one of the client's own sessions makes room in the
		// store too.
		return st.evictLocked(share, evict)
	}
	if st.open.totalFull(1) {
		return st.evictLocked("", evict)
	}
	return true
}

// evictLocked ends the least recently used idle session (of share,
// unless it is "") when evict is set; false when there is none.
func (st *sessionStore) evictLocked(share string, evict bool) bool {
	victim := st.victimLocked(share)
	if victim == "" {
		return false
	}
	if evict {
		st.endLocked(victim, st.byID[victim])
	}
	return true
}

// add stores sess, opened by the client of sess.share, under its id,
// making room as roomLocked does. It reports false when there is none.
func (st *sessionStore) add(sess *session) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.roomLocked(sess.share, true) || !st.open.take(sess.share, 1) {
		return false
	}
	st.byID[sess.id] = &sessionEntry{sess: sess, lastUsed: st.now()}
	return true
}

// count returns the sessions open now (a metrics gauge), after ending the
// expired ones.
func (st *sessionStore) count() int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.sweepLocked(st.now())
	return int64(len(st.byID))
}

// full reports whether add would fail now for a client of share.
func (st *sessionStore) full(share string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return !st.roomLocked(share, false)
}

// lookupLocked returns the live session id opened by owner
// (caller.binding); nil when there is none (never existed, ended,
// expired, or opened by another owner: all look the same). Looking it up
// is a use.
func (st *sessionStore) lookupLocked(id, owner string) *sessionEntry {
	e := st.byID[id]
	if e == nil || httpPart(e.sess).owner != owner {
		return nil
	}
	now := st.now()
	if st.expiredLocked(e, now) {
		st.endLocked(id, e)
		return nil
	}
	e.lastUsed = now
	return e
}

// acquire returns the live session id opened by owner and marks a
// request running in it until release; nil when there is none.
func (st *sessionStore) acquire(id, owner string) *session {
	st.mu.Lock()
	defer st.mu.Unlock()
	e := st.lookupLocked(id, owner)
	if e == nil {
		return nil
	}
	e.requests++
	return e.sess
}

// use returns the live session id opened by owner, counting the look
// up as a use but marking nothing running: what a GET stream needs, which
// must not keep its session alive.
func (st *sessionStore) use(id, owner string) *session {
	st.mu.Lock()
	defer st.mu.Unlock()
	if e := st.lookupLocked(id, owner); e != nil {
		return e.sess
	}
	return nil
}

// release ends one request that acquire began.
func (st *sessionStore) release(sess *session) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if e := st.byID[sess.id]; e != nil && e.sess == sess {
		e.requests--
		e.lastUsed = st.now()
	}
}

// remove ends the session id of owner; false when there is none.
func (st *sessionStore) remove(id, owner string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	e := st.byID[id]
	if e == nil || httpPart(e.sess).owner != owner {
		return false
	}
	st.endLocked(id, e)
	return true
}

// closeAll ends every session and refuses new ones: GET streams close,
// so a graceful shutdown does not wait for them.
func (st *sessionStore) closeAll() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.closed = true
	for id, e := range st.byID {
		st.endLocked(id, e)
	}
}

// sessionsBusy is the 503 of a new session the store has no room for:
// -31503, as every overload answer (docs/GAPS.md).
func sessionsBusy() *rpcError {
	return newError(codeServerBusy, "server busy: too many sessions open, retry later")
}

// classicSessionRequired is the 400 for a classic message without a session.
func classicSessionRequired() *rpcError {
	return newError(codeInvalidRequest, "bad request: %s header is required: send initialize first, or carry %s in _meta", headerSessionID, metaProtocolVersion)
}

// classicSessionNotFound is the 404 for an unknown, ended or expired
// session: the client must initialize again.
func classicSessionNotFound() *rpcError {
	return newError(codeInvalidRequest, "session not found: initialize a new session")
}

// session finds the session a classic request names, for a request
// (sessions.acquire: the caller releases it) or not (sessions.use: the
// GET stream, DELETE), and checks its MCP-Protocol-Version header
// (sessionVersionHeader). On failure it returns nil and the status and
// error to answer with.
func (t *httpTransport) session(r *http.Request, who caller, request bool) (*session, int, *rpcError) {
	ids := r.Header.Values(headerSessionID)
	switch {
	case len(ids) == 0:
		return nil, http.StatusBadRequest, classicSessionRequired()
	case len(ids) > 1:
		return nil, http.StatusBadRequest, newError(codeInvalidRequest, "bad request: %s header appears more than once", headerSessionID)
	}
	find := t.sessions.use
	if request {
		find = t.sessions.acquire
	}
	sess := find(strings.TrimSpace(ids[0]), who.binding())
	if httpPart(sess) != nil && httpPart(sess).sse != nil {
		// A 2024-11-05 HTTP+SSE session (classic_sse_http.go): its answers
		// travel on its own stream, so its id names no session here.
		if request {
			t.sessions.release(sess)
		}
		sess = nil
	}
	if sess == nil {
		return nil, http.StatusNotFound, classicSessionNotFound()
	}
	if rerr := t.sessionVersionHeader(r.Header, sess); rerr != nil {
		if request {
			t.sessions.release(sess)
		}
		return nil, http.StatusBadRequest, rerr
	}
	return sess, 0, nil
}

// sessionVersionHeader checks the MCP-Protocol-Version header of a
// request in sess. Absent, it is the negotiated version: the session is
// how the server identifies the version, and a 2025-03-26 or 2024-11-05
// client sends none (the header is 2025-06-18's). A version this server
// serves, even one that differs from the negotiated version, is
// forgiven: the request is served at the session's version, and the
// first such request of a session is logged. Real clients send them: a
// widely used coding agent keeps sending 2025-11-25 in a session that
// negotiated 2024-11-05, and the Go SDK sends its header in 2024-11-05
// sessions, which never had one (issue 17). Sent twice, or naming a
// version this server does not serve (or no version at all), it is 400:
// a header that means nothing here is not guessed at.
// [§Protocol Version Header]: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#protocol-version-header
func (t *httpTransport) sessionVersionHeader(h http.Header, sess *session) *rpcError {
	vs := h.Values(protocolVersionKey)
	if len(vs) == 0 {
		return nil
	}
	v := strings.Trim(vs[0], " \t")
	negotiated := sess.negotiated()
	switch {
	case len(vs) > 1:
		return newError(codeInvalidRequest, "bad request: %s header appears more than once", headerProtocolVersion)
	case !isClassicVersion(v) && !isModern(v):
		return newError(codeInvalidRequest, "bad request: %s %q is not a protocol version this server serves; this session's is %s", headerProtocolVersion, v, negotiated)
	case v != negotiated && httpPart(sess).noteForgivenHeader():
		t.s.log.Warn("serving a classic session's request at its negotiated version despite its version header (logged once per session)",
			"transport", "http", "header", v, "negotiated", negotiated, "client", sess.clientName())
	}
	return nil
}

// postClassic serves one classic-era POST, taken by the driver (in):
// initialize opens a session; a response from the client goes to the
// bridge waiting for it, a notification is served, both answered 202; a
// request is served in its session like the modern ones, on a JSON body
// or an SSE stream. As in post, a request takes a request slot, a
// response or a notification a control slot.
// [§Sending Messages to the Server]: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server
func (t *httpTransport) postClassic(w http.ResponseWriter, r *http.Request, rc *http.ResponseController, in *incoming, who caller) {
	if in.ordered() {
		t.initialize(w, r, rc, in, who)
		return
	}
	sess, status, rerr := t.session(r, who, true)
	if sess == nil {
		writeHTTPError(w, status, rerr, in.msg.id)
		return
	}
	defer t.sessions.release(sess)
	in.join(sess)
	if in.kind != incomingRequest {
		t.takeAside(w, r, in, who)
		return
	}
	if !in.begin(r.Context()) {
		writeHTTPError(w, http.StatusBadRequest, in.err, in.msg.id)
		return
	}
	defer in.end()
	if !t.admit(w, r, t.slots, who, in.msg.id) {
		return
	}
	defer t.slots.give(who.share, 1)
	t.respond(w, rc, r, in, who)
}

// takeAside takes a response or a notification POSTed in a session under
// a control slot, not a request slot (issue 19, finding 10: they may be
// what a request holding a slot waits for), and answers 202; 503 when no
// control slot is free.
func (t *httpTransport) takeAside(w http.ResponseWriter, r *http.Request, in *incoming, who caller) {
	if !t.admit(w, r, t.control, who, in.msg.id) {
		return
	}
	defer t.control.give(who.share, 1)
	in.begin(r.Context())
	w.WriteHeader(http.StatusAccepted)
}

// postBatch serves a POST whose body is a JSON-RPC batch and that names a
// session (batch.go). Outside a 2025-03-26 session it is 400 -32600, as
// an array anywhere else; a batch refused whole (not JSON, empty, over
// maxBatchEntries) is 400 with its one error. Otherwise the driver takes
// its entries alone, in order, once the batch is admitted (a request
// slot, or a control slot for a batch without requests): nothing of a
// batch refused 503 takes effect, and the client may send it again
// (review A, finding 8). A batch of only notifications and responses is
// 202; otherwise the answers are one JSON array, in a JSON body, or as the
// last event of the SSE stream that the requests' notifications
// (progress, logs, bridged requests) opened. JSON-RPC errors inside it
// travel with 200, as in any classic session.
// [§Sending Messages to the Server (2025-03-26)]: https://modelcontextprotocol.io/specification/2025-03-26/basic/transports#sending-messages-to-the-server
func (t *httpTransport) postBatch(w http.ResponseWriter, r *http.Request, rc *http.ResponseController, body []byte, who caller) {
	sess, status, rerr := t.session(r, who, true)
	if sess == nil {
		writeHTTPError(w, status, rerr)
		return
	}
	defer t.sessions.release(sess)
	in := conn{s: t.s, sess: sess, transport: transportHTTP}.take(body, httpFraming(r.Header, false))
	if in.err != nil {
		writeHTTPError(w, http.StatusBadRequest, in.err)
		return
	}
	lim := t.control
	if in.requests() {
		lim = t.slots
	}
	if !t.admit(w, r, lim, who, nil) {
		return
	}
	defer lim.give(who.share, 1)
	serve := in.begin(r.Context())
	defer in.end()
	if !serve && in.reply == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	call := t.newCall(w, rc, r, who, nil)
	defer call.release()
	if !serve {
		// Refused entries, and nothing to serve.
		call.finish(reply{parts: replyParts{in.reply}})
		return
	}
	rep := in.serve(exchange{send: call.notify, caller: who, closing: t.closing})
	if rep.parts.join() == nil {
		// Every request was cancelled: no answer is sent.
		call.abandon()
		return
	}
	call.finish(rep)
}

// initialize serves initialize on HTTP: a fresh session negotiates, and
// is kept (its id in the response header) only if the handshake
// succeeded. A request that already names a session is refused: a
// session is initialized once. When the store is full, the session takes
// the place of the least recently used idle one (sessionStore).
// [§Session Management]: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
func (t *httpTransport) initialize(w http.ResponseWriter, r *http.Request, rc *http.ResponseController, in *incoming, who caller) {
	if len(r.Header.Values(headerSessionID)) > 0 {
		writeHTTPError(w, http.StatusBadRequest, newError(codeInvalidRequest, "invalid request: initialize must not carry %s", headerSessionID), in.msg.id)
		return
	}
	if t.sessions.full(who.share) {
		writeBusy(w, sessionsBusy(), in.msg.id)
		return
	}
	if !t.admit(w, r, t.slots, who, in.msg.id) {
		return
	}
	defer t.slots.give(who.share, 1)
	// 128 random bits in base32: visible ASCII, unguessable.
	sess := newHTTPSession(rand.Text(), who)
	in.join(sess)
	in.begin(r.Context())
	defer in.end()
	call := t.newCall(w, rc, r, who, in.msg.id)
	defer call.release()
	rep := in.serve(exchange{send: call.notify, caller: who})
	if sess.negotiated() != "" {
		if !t.sessions.add(sess) {
			sess.end()
			writeBusy(w, sessionsBusy(), in.msg.id)
			return
		}
		w.Header().Set(headerSessionID, sess.id)
	}
	call.finish(rep)
}

// getStream serves GET: the session's standalone SSE stream, carrying what
// session.push queues and the session's list changes and resource updates
// (classic_subscriptions.go), with a keep-alive comment every -sse-keepalive,
// until the client leaves or the session ends. One
// stream per session at a time; a second gets 409. Without a session
// there is no stream to offer: 405, as the modern revision answers.
// [§Listening for Messages from the Server]: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server
func (t *httpTransport) getStream(w http.ResponseWriter, r *http.Request, who caller) {
	if len(r.Header.Values(headerSessionID)) == 0 {
		w.Header().Set("Allow", http.MethodPost)
		writeHTTPError(w, http.StatusMethodNotAllowed, newError(codeInvalidRequest, "method not allowed: GET needs an %s", headerSessionID))
		return
	}
	if !acceptsSSE(r.Header.Values("Accept")) {
		writeHTTPError(w, http.StatusNotAcceptable, newError(codeInvalidRequest, "not acceptable: accept text/event-stream"))
		return
	}
	sess, status, rerr := t.session(r, who, false)
	if sess == nil {
		writeHTTPError(w, status, rerr)
		return
	}
	if !httpPart(sess).openStream() {
		writeHTTPError(w, http.StatusConflict, newError(codeInvalidRequest, "conflict: this session's GET stream is already open"))
		return
	}
	defer httpPart(sess).closeStream()
	t.pump(w, r, who, sess, nil, nil)
}

// pump writes a classic session's stream until the client leaves or the
// session ends: head first (nil for none), then what session.push
// queues, the session's list changes and resource updates
// (classic_subscriptions.go), and what direct carries (nil for nothing:
// the answers of the 2024-11-05 transport's requests, classic_sse_http.go),
// with a keep-alive comment every -sse-keepalive, until the credential of
// who, which opened it, expires. It is the stream's one writer.
func (t *httpTransport) pump(w http.ResponseWriter, r *http.Request, who caller, sess *session, head []byte, direct <-chan []byte) {
	rc := http.NewResponseController(w)
	startSSE(w)
	// pump is every classic stream's writer (the GET stream, the
	// 2024-11-05 transport's), so it counts them.
	t.s.metrics.sseOpened()
	defer t.s.metrics.sseClosed()
	// Each write is bounded (httpWriteTimeout): a client that stops
	// reading ends its stream instead of holding this goroutine.
	arm := func() { _ = rc.SetWriteDeadline(time.Now().Add(httpWriteTimeout)) }
	arm()
	if _, err := w.Write(head); err != nil || rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(t.keepAlive)
	defer tick.Stop()
	expired, stopExpiry := who.expiry()
	defer stopExpiry()
	// A message larger than httpSmallAnswer is written under the answer
	// budget (httpsse_answers.go), waiting for it as long as its write
	// could block; refused, the stream ends as a write timing out ends
	// it.
	answers := answerHold{budget: t.answers, share: who.share, wait: t.queueWait}
	event := func(msg []byte) bool {
		msg = oneLine(msg)
		release, rerr := answers.hold(r.Context(), len(msg), true)
		if rerr != nil {
			return false
		}
		defer release()
		arm()
		return writeSSEEvent(w, replyParts{msg}) == nil && rc.Flush() == nil
	}
	for {
		select {
		case msg := <-direct:
			if !event(msg) {
				return
			}
		case msg := <-httpPart(sess).queue:
			if !event(msg) {
				return
			}
		case <-sess.wake:
			arm()
			for _, msg := range t.s.sessionNotices(sess) {
				if _, err := w.Write(sseEvent(msg)); err != nil {
					return
				}
			}
			if rc.Flush() != nil {
				return
			}
		case <-tick.C:
			arm()
			if _, err := io.WriteString(w, sseKeepAlive); err != nil || rc.Flush() != nil {
				return
			}
		case <-sess.done:
			return
		case <-expired:
			// The token that opened the stream expired: the client
			// reconnects with a fresh one.
			return
		case <-r.Context().Done():
			return
		}
	}
}

// deleteSession serves DELETE: the session ends, and later requests
// naming it get 404.
// [§Session Management]: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
func (t *httpTransport) deleteSession(w http.ResponseWriter, r *http.Request, who caller) {
	sess, status, rerr := t.session(r, who, false)
	if sess == nil {
		writeHTTPError(w, status, rerr)
		return
	}
	t.sessions.remove(sess.id, who.binding())
	w.WriteHeader(http.StatusNoContent)
}

// acceptsSSE reports whether the Accept header admits text/event-stream.
func acceptsSSE(values []string) bool {
	if len(values) == 0 {
		return true
	}
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
			switch strings.ToLower(strings.TrimSpace(mt)) {
			case "*/*", "text/*", "text/event-stream":
				return true
			}
		}
	}
	return false
}

// sessionNotices takes the notices waiting for sess's HTTP GET stream,
// encoded; nil when the session is not watched.
func (s *server) sessionNotices(sess *session) [][]byte {
	w := sess.watching()
	if w == nil {
		return nil
	}
	pending := s.subs.take(w)
	out := make([][]byte, len(pending))
	for i, n := range pending {
		out[i] = encodeClassicNotice(n)
	}
	return out
}
