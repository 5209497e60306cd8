//go:build !stdio

// The 2024-11-05 HTTP+SSE transport, kept for the clients that know no
// other: GET /sse opens an event stream whose first event, "endpoint",
// names where to POST (/messages?sessionId=ID); every message the server
// sends the client, answers included, travels on that stream, and each
// POST is answered 202 at once. The @modelcontextprotocol/sdk 1.0 client
// has no other HTTP transport. 2025-03-26 replaced it with Streamable
// HTTP and says servers that want old clients should keep hosting both
// of its endpoints beside the new one; the paths are the ones that
// generation of servers used (the TypeScript and Python SDKs' examples),
// which is what users type into old clients' configurations.
//
// The stream carries one classic session, held in the same store as
// Streamable HTTP's (so -max-sessions counts both, and a session opened
// by one principal is invisible to others), marked as this transport's:
// its id is not an Mcp-Session-Id, and the other transport's ids are not
// valid here. Every request meets the endpoint's checks (guard: Host,
// Origin, CORS, authentication), the body cap and a request slot; a
// request POSTed here holds its slot until it is answered on the stream,
// and while it runs its session is not idle. The session lives as long
// as its stream: when the client closes it, or the session ends
// (shutdown, -session-idle without a request, or to make room in a full
// store: the stream does not keep it alive), the requests it started are
// cancelled and awaited. -modern-only turns the transport off (its paths
// are not served).
//
// Spec: https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse,
// https://modelcontextprotocol.io/specification/2025-03-26/basic/transports#backwards-compatibility.

package main

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"sync"
)

// The 2024-11-05 transport's two endpoints.
const (
	classicSSEPath      = "/sse"
	classicMessagesPath = "/messages"
)

// classicSSEConn is one client of the 2024-11-05 transport: the session
// its stream carries, the stream's channel for answers, and the requests
// its POSTs started, which the stream's handler owns and awaits.
type classicSSEConn struct {
	sess *session
	// ctx is cancelled when the stream ends; the requests run under it.
	ctx context.Context
	// out hands a message to the stream's writer (pump); send gives up
	// when the stream or the session ends.
	out chan []byte

	mu     sync.Mutex // guards closed, and wg.Add against wg.Wait
	closed bool       // the stream is ending: no request starts any more
	wg     sync.WaitGroup
}

// send hands msg to the stream, waiting while the writer is busy; it
// drops msg once the stream or the session has ended.
func (c *classicSSEConn) send(msg []byte) {
	select {
	case c.out <- msg:
	case <-c.ctx.Done():
	case <-c.sess.done:
	}
}

// start runs job on a goroutine the stream's handler awaits; false when
// the stream is ending and job did not run.
func (c *classicSSEConn) start(job func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		job()
	}()
	return true
}

// stop refuses new requests and waits for those running, which the
// cancellation of ctx or the session's end tells to stop.
func (c *classicSSEConn) stop() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.wg.Wait()
}

// only returns the handler of an endpoint that serves one HTTP method:
// the endpoint's checks (guard) first, then serve, or 405 naming the
// method for any other.
func (t *httpTransport) only(method, use string, serve func(http.ResponseWriter, *http.Request, caller)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who, ok := t.guard(w, r)
		switch {
		case !ok:
		case r.Method != method:
			w.Header().Set("Allow", method)
			writeHTTPError(w, http.StatusMethodNotAllowed, newError(codeInvalidRequest, "method not allowed: %s", use))
		default:
			serve(w, r, who)
		}
	})
}

// openClassicSSE serves GET /sse: it opens a session, announces where to
// POST in the endpoint event, and writes the session's stream (pump)
// until the client leaves or the session ends; then the session ends and
// the requests it started are cancelled and awaited.
// [§HTTP with SSE]: https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse
func (t *httpTransport) openClassicSSE(w http.ResponseWriter, r *http.Request, who caller) {
	if !acceptsSSE(r.Header.Values("Accept")) {
		writeHTTPError(w, http.StatusNotAcceptable, newError(codeInvalidRequest, "not acceptable: accept text/event-stream"))
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	// 128 random bits in base32: visible ASCII, URL-safe, unguessable;
	// after the replica id, for a load balancer to route /messages by.
	sess := newHTTPSession(newScopedID(t.s.replicaID), who)
	conn := &classicSSEConn{sess: sess, ctx: ctx, out: make(chan []byte)}
	httpPart(sess).sse = conn
	// The stream does not keep its session alive, as Streamable HTTP's
	// GET stream does not (sessionStore): a session unused for
	// -session-idle, or the least recently used when the store is full,
	// ends, and its stream with it.
	if !t.sessions.add(sess) {
		sess.end()
		writeBusy(w, sessionsBusy(), nil)
		return
	}
	defer func() {
		t.sessions.remove(sess.id, who.binding())
		sess.end()
		cancel()
		conn.stop()
	}()
	endpoint := classicMessagesPath + "?sessionId=" + url.QueryEscape(sess.id)
	t.pump(w, r, who, sess, []byte("event: endpoint\ndata: "+endpoint+"\n\n"), conn.out)
}

// postClassicMessage serves POST /messages?sessionId=ID: one message (or,
// in a 2025-03-26 session, a batch) for the session of that stream,
// taken by the driver. It is answered 202 as soon as the message is
// taken; what the message asks for is answered on the stream. initialize
// is served before the 202 (incoming.ordered), so that the client's next
// POST finds the session negotiated; a request (or a batch of requests)
// runs on its own goroutine, owned by the stream, holding the POST's
// request slot, and its session's mark of a request running, until its
// answer is on its way: a session whose request runs on is never idle,
// so neither -session-idle nor a full store ends it (review A, finding
// 3: the 202 made it idle, and a newcomer's session evicted it). What was
// taken is given back by one defer, or by that goroutine.
func (t *httpTransport) postClassicMessage(w http.ResponseWriter, r *http.Request, who caller) {
	if !isJSONContentType(r.Header.Get("Content-Type")) {
		writeHTTPError(w, http.StatusUnsupportedMediaType, newError(codeInvalidRequest, "unsupported media type: send application/json"))
		return
	}
	sess := t.sessions.acquire(r.URL.Query().Get("sessionId"), who.binding())
	var stream *classicSSEConn
	if h := httpPart(sess); h != nil {
		stream = h.sse
	}
	if sess != nil && stream == nil {
		// A Streamable HTTP session: its id is no endpoint here.
		t.sessions.release(sess)
		sess = nil
	}
	if sess == nil {
		writeHTTPError(w, http.StatusNotFound, newError(codeInvalidRequest, "session not found: open a new event stream at %s", classicSSEPath))
		return
	}
	// The session's mark, the body, the slot and the request are given
	// back once the message has been served: here, or by the goroutine a
	// request is handed to.
	var held []func()
	handed := false
	defer func() {
		if !handed {
			for _, f := range slices.Backward(held) {
				f()
			}
		}
	}()
	held = append(held, func() { t.sessions.release(sess) })
	if rerr := t.sessionVersionHeader(r.Header, sess); rerr != nil {
		writeHTTPError(w, http.StatusBadRequest, rerr)
		return
	}
	rc := http.NewResponseController(w)
	body, releaseBody, ok := t.receive(w, r, rc, who)
	if !ok {
		return
	}
	held = append(held, releaseBody)
	in := conn{s: t.s, sess: sess, transport: transportHTTP}.take(body, httpFraming(r.Header, false))
	switch {
	case in.err != nil:
		writeHTTPError(w, httpStatus(in.err.Code), in.err, in.msg.id)
		return
	case in.kind == incomingControl || in.kind == incomingNotification:
		t.takeAside(w, r, in, who)
		return
	}
	lim := t.control
	if in.requests() || in.ordered() {
		lim = t.slots
	}
	if !t.admit(w, r, lim, who, in.msg.id) {
		return
	}
	held = append(held, func() { lim.give(who.share, 1) })
	serve := in.begin(stream.ctx)
	held = append(held, in.end)
	ex := exchange{send: stream.send, caller: who, closing: t.closing}
	switch {
	case !serve:
		if in.reply != nil {
			stream.send(in.reply)
		}
	case in.ordered():
		// The ordered handshake: negotiated before the 202.
		ex.closing = nil
		stream.send(in.serve(ex).parts.join())
	default:
		handed = stream.start(func() {
			defer func() {
				for _, f := range slices.Backward(held) {
					f()
				}
			}()
			rep := in.serve(ex)
			in.end() // its ids are free before the answer can be read
			if !rep.cancelled && rep.parts != nil {
				stream.send(rep.parts.join())
			}
		})
		if !handed {
			writeHTTPError(w, http.StatusNotFound, newError(codeInvalidRequest, "session not found: open a new event stream at %s", classicSSEPath))
			return
		}
	}
	w.WriteHeader(http.StatusAccepted)
}
