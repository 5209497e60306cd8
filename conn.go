// The message driver: one connection to one client in the core's terms, and the rules every
// transport's messages meet in one place. A transport reads its framing, admits (slots, bodies),
// hands each message over (take), and writes what it is given; it decides no protocol rule. The
// rules, each owned by one function here and pinned over every transport by TestDriverRules:
//
//   - parsing and judging a message: take;
//   - control messages (responses to the server, notifications/cancelled): begin, via takeControl;
//   - request ids in flight, duplicates refused: conn.add;
//   - initialize served before the next message is taken: incoming.ordered (handshake);
//   - batches (2025-03-26): take judges, begin takes, serve answers (batch.go).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic
// (Messages), https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization,
// https://modelcontextprotocol.io/specification/2025-03-26/basic#batching.

package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// conn is one connection to one client: a stdio process, a classic session (Streamable HTTP's
// Mcp-Session-Id, a 2024-11-05 stream) or one modern POST (no session); its state (handshake,
// calls in flight) is its session's, and the transport makes one per session.
type conn struct {
	s         *server
	sess      *session // nil: a modern POST, which carries one message
	transport transport
}

// incomingKind is what a message taken is.
type incomingKind uint8

// The kinds of messages a connection takes.
const (
	incomingRefused      incomingKind = iota // answered when taken (reply), or dropped (a malformed notification)
	incomingControl                          // an answer to a server request, or notifications/cancelled
	incomingNotification                     // any other client notification
	incomingRequest                          // a request
	incomingBatch                            // a 2025-03-26 batch
)

// incoming is one message a connection took, judged, not begun: the transport admits it (requests
// take a request slot, anything else a control slot), begins, serves and ends it.
type incoming struct {
	c     conn
	kind  incomingKind
	msg   message
	req   *request    // a request
	items []batchItem // a batch
	// reply is the answer to write instead of serving: a message refused when taken, or a request
	// refused when begun (its id in flight); err is its error (HTTP's status).
	reply []byte
	err   *rpcError
	ctx   context.Context // the request's once begun: cancelled with its call
	call  *call
}

// take parses data, one message or a batch as it arrived with framing f, and judges it, with no
// effect yet (begin). A batch outside a 2025-03-26 session is refused whole.
func (c conn) take(data []byte, f framing) *incoming {
	in := &incoming{c: c}
	if jsonKind(data) == '[' {
		if c.sess.negotiated() == versionBatches {
			in.items, in.err = c.s.readBatch(data, c.sess, f)
		} else {
			// -32700 when it is not JSON (parseMessage), else -32600.
			_, rerr := parseMessage(data)
			in.err = cmp.Or(rerr, errInvalidRequest)
		}
		if in.err != nil {
			in.reply = encodeError(nil, in.err)
		} else {
			in.kind = incomingBatch
		}
		return in
	}
	in.msg, in.err = parseMessage(data)
	switch {
	case in.err != nil:
		if !in.msg.isNotification() {
			in.reply = encodeError(in.msg.id, in.err)
		}
		return in
	case isControl(&in.msg):
		in.kind = incomingControl
	case in.msg.isNotification():
		in.kind = incomingNotification
	default:
		in.kind = incomingRequest
	}
	// Every message's era is decided: on Streamable HTTP it says whether it goes to a session.
	in.req = c.s.newRequest(&in.msg, c.sess, f)
	return in
}

// isControl reports whether msg frees a waiting request: a response, or notifications/cancelled.
func isControl(msg *message) bool {
	return msg.isResponse() || msg.isNotification() && msg.method == methodCancelled
}

// ordered reports whether the message is served before the next is taken: initialize (handshake),
// so that the requests after it meet the negotiated session (TestStdioPipelinedHandshake).
// [§Initialization]: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization
func (in *incoming) ordered() bool {
	return in.kind == incomingRequest && methods[in.msg.method].handshake
}

// begin gives the message its effects, in the order its connection took them: a response goes to
// its waiting request, a cancellation cancels, a notification is served, a request is registered
// under parent (or refused: in.reply), a batch's entries likewise. It reports if any is left.
func (in *incoming) begin(parent context.Context) bool {
	c := in.c
	switch in.kind {
	case incomingControl:
		if c.sess != nil {
			c.s.takeControl(&in.msg, c.sess, c.cancelNamed, transportNames[c.transport])
		}
	case incomingNotification:
		c.s.serve(parent, in.req, exchange{transport: c.transport, session: c.sess})
	case incomingRequest:
		in.ctx, in.call, in.err = c.add(parent, &in.msg)
		if in.err != nil {
			in.reply = encodeError(in.msg.id, in.err)
		}
		return in.err == nil
	case incomingBatch:
		// Entry by entry, as for as many messages: a cancellation reaches an earlier entry.
		n := 0
		for i := range in.items {
			it := &in.items[i]
			switch {
			case it.kind == batchRequest:
				var rerr *rpcError
				if it.ctx, it.call, rerr = c.add(parent, &it.msg); rerr != nil {
					it.kind, it.req, it.reply = batchRefused, nil, encodeError(it.msg.id, rerr)
					continue
				}
				n++
			case (it.kind == batchResponse || it.kind == batchNotification) && isControl(&it.msg):
				// An entry refused when read takes no effect, however it names itself.
				c.s.takeControl(&it.msg, c.sess, c.cancelNamed, transportNames[c.transport])
			case it.kind == batchNotification:
				c.s.serve(parent, c.s.newRequest(&it.msg, c.sess, framing{}), exchange{transport: c.transport, session: c.sess})
			}
		}
		if n == 0 {
			in.reply = answerBatch(in.items, nil)
		}
		return n > 0
	}
	return false
}

// serve serves what begin left and returns the answer; a request the client cancelled is not
// answered (reply.cancelled).
// [§Behavior Requirements]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation#behavior-requirements
func (in *incoming) serve(ex exchange) reply {
	ex.session, ex.transport = in.c.sess, in.c.transport
	if in.kind == incomingBatch {
		return in.serveBatch(ex)
	}
	cl := in.call
	if send := ex.callSend; send != nil && cl != nil {
		ex.send = func(msg []byte) { send(cl, msg) }
	}
	r := in.c.s.serveReply(in.ctx, in.req, ex)
	r.cancelled = r.cancelled || cl != nil && cl.cancelled.Load()
	return r
}

// serveBatch is serve for a batch (answerBatch).
func (in *incoming) serveBatch(ex exchange) reply {
	line := answerBatch(in.items, func(i int) []byte {
		it := &in.items[i]
		cl := it.call
		if cl.cancelled.Load() {
			return nil
		}
		ex := ex
		if send := ex.callSend; send != nil {
			ex.send = func(msg []byte) { send(cl, msg) }
		}
		r := in.c.s.serveReply(it.ctx, it.req, ex)
		if r.release != nil {
			// Its charge goes back as its entry ends (TestStdioBatchAnswersGiveBackTheirBudget);
			// the array is docs/RELIABILITY.md's stdio "batch being written".
			defer r.release()
		}
		cl.end()
		if cl.cancelled.Load() {
			return nil
		}
		return r.parts.join()
	})
	if line == nil {
		return reply{} // every request cancelled: nothing to write
	}
	return reply{parts: replyParts{line}}
}

// end forgets the message's requests and cancels their contexts. Idempotent; transports defer it.
func (in *incoming) end() {
	if in.call != nil {
		in.c.remove(&in.msg, in.call)
		in.call = nil
	}
	for i := range in.items {
		if it := &in.items[i]; it.call != nil {
			in.c.remove(&it.msg, it.call)
			it.call = nil
		}
	}
}

// The causes a request's context is cancelled with besides its own end.
var (
	errRequestCancelled = errors.New("cancelled by the client (notifications/cancelled)")
	errSessionEnded     = errors.New("the session ended")
)

// call is one request in flight on a connection.
type call struct {
	cancel context.CancelCauseFunc
	mu     sync.Mutex // guards ended; serialises setting cancelled or ended with queueing the call's messages
	// cancelled is set under mu by notifications/cancelled; writers waiting for room read it bare.
	cancelled atomic.Bool
	// ended is set once the response is queued: nothing more is written
	// (TestStdioNothingAfterResponse).
	// [§Progress]: https://modelcontextprotocol.io/specification/2026-07-28/basic/utilities/progress#behavior-requirements
	ended bool
}

// end marks cl ended: nothing of it is written after its answer (whileLive).
func (cl *call) end() {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	cl.ended = true
}

// whileLive runs take under mu unless cl was cancelled or has ended, and reports whether it ran;
// take reports whether cl has ended. A nil cl runs take.
func (cl *call) whileLive(take func() (ended bool)) bool {
	if cl == nil {
		take()
		return true
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.cancelled.Load() || cl.ended {
		return false
	}
	cl.ended = take()
	return true
}

// calls is a connection's requests in flight, by idKey: the one registry of duplicate ids and of
// cancellation, on every transport.
type calls struct {
	mu   sync.Mutex       // guards byID
	byID map[string]*call // the requests in flight; nil until the first
	// cancelled, set before sharing, is told of each effective cancellation (stdio wakes writers).
	cancelled func()
}

// add registers msg, a request, in flight under parent; a modern POST (no session) runs under
// parent, unregistered. The error refuses an id already in flight (TestDriverRules).
func (c conn) add(parent context.Context, msg *message) (context.Context, *call, *rpcError) {
	if c.sess == nil {
		return parent, nil, nil
	}
	r := &c.sess.calls
	key := idKey(msg.id)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.byID[key]; dup {
		return nil, nil, newError(codeInvalidRequest, "invalid request: id %s is already in flight", msg.id)
	}
	if r.byID == nil {
		r.byID = map[string]*call{}
	}
	ctx, cancel := context.WithCancelCause(parent)
	cl := &call{cancel: cancel}
	r.byID[key] = cl
	return ctx, cl, nil
}

// remove forgets cl, msg's call, and cancels its context.
func (c conn) remove(msg *message, cl *call) {
	r := &c.sess.calls
	key := idKey(msg.id)
	r.mu.Lock()
	if r.byID[key] == cl {
		delete(r.byID, key)
	}
	r.mu.Unlock()
	cl.cancel(nil)
}

// cancelNamed handles notifications/cancelled: the named request is cancelled
// (errRequestCancelled), nothing more written for it; unknown ids and bad params are ignored, as
// the spec asks.
// [§Behavior Requirements]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation#behavior-requirements
func (c conn) cancelNamed(params []byte) {
	members, _ := objectMembers(params)
	id := memberValue(members, "requestId")
	if c.sess == nil || jsonKind(id) != '"' && !isJSONInteger(id) {
		return
	}
	r := &c.sess.calls
	r.mu.Lock()
	cl := r.byID[idKey(bytes.TrimSpace(id))]
	r.mu.Unlock()
	if cl == nil {
		return
	}
	cl.mu.Lock()
	cl.cancelled.Store(true)
	cl.mu.Unlock()
	cl.cancel(errRequestCancelled)
	if r.cancelled != nil {
		r.cancelled()
	}
}

// cancelAll cancels every call in flight with cause: the session ended (DELETE, expiry, eviction).
func (r *calls) cancelAll(cause error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, cl := range r.byID {
		cl.cancel(cause)
	}
}

// idKey normalises a raw request id so that 7 and "7" stay distinct and an escaped string id
// matches its plain spelling. A string that decodes to U+FFFD is keyed by its spelling, as
// decoding turns every lone surrogate escape ("\ud800", "\udc00") into U+FFFD (TestIDKey).
func idKey(raw []byte) string {
	if s, ok := jsonString(raw); ok && !strings.ContainsRune(s, utf8.RuneError) {
		return "s" + s
	}
	if raw = bytes.TrimSpace(raw); len(raw) > 0 && raw[0] == '"' {
		return "r" + string(raw)
	}
	return "n" + string(raw)
}
