//go:build !stdio

// A classic session's HTTP part, its peer on HTTP (session.peer): who
// opened it, its one standalone GET stream and what waits for that stream,
// and for a 2024-11-05 session the stream that carries everything
// (classic_sse_http.go). Its fields, its lock and every method that takes
// it live here, and no code holds this lock and session.mu together.
//
// Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation.

package main

import "sync"

// sessionHTTP is the part of a classic session only the HTTP transports
// use, and its peer. Safe for concurrent use.
type sessionHTTP struct {
	owner string // the caller.binding of who opened the session; set before sharing
	// sse is the 2024-11-05 connection that carries the session; nil for
	// a Streamable HTTP session. Set before sharing.
	sse *classicSSEConn

	mu             sync.Mutex // guards streamOpen, headerForgiven
	streamOpen     bool       // the GET stream is open
	headerForgiven bool       // a request named another served version (logged once)

	queue chan []byte // for the GET stream; push drops what does not fit
}

// sessionQueueLen bounds the messages waiting for an HTTP session's GET
// stream: they are rare, and a client that never opens the stream loses
// them rather than growing the server's memory.
const sessionQueueLen = 64

// newHTTPSession returns a session of the HTTP transports before
// initialize, id opened by the caller who: its peer is its HTTP part, and
// its watcher wakes the stream that drains its notices (session.wake).
func newHTTPSession(id string, who caller) *session {
	sess := newSession()
	sess.id, sess.share = id, who.share
	sess.peer = &sessionHTTP{owner: who.binding(), queue: make(chan []byte, sessionQueueLen)}
	sess.wake = make(chan struct{}, 1)
	return sess
}

// httpPart returns sess's HTTP part; nil for none (a session of another
// transport).
func httpPart(sess *session) *sessionHTTP {
	if sess == nil {
		return nil
	}
	h, _ := sess.peer.(*sessionHTTP)
	return h
}

// push queues msg for the stream without blocking; false when the queue
// is full (peer).
func (h *sessionHTTP) push(msg []byte) bool {
	select {
	case h.queue <- msg:
		return true
	default:
		return false
	}
}

// streaming reports whether the GET stream is open (peer).
func (h *sessionHTTP) streaming() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.streamOpen
}

// silent says a client silent to pings ends its HTTP session: its next
// request gets 404 (peer).
func (h *sessionHTTP) silent() bool { return true }

// noteForgivenHeader records a version header other than the negotiated
// one, and reports whether it was the first (the one to log).
func (h *sessionHTTP) noteForgivenHeader() (first bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	first = !h.headerForgiven
	h.headerForgiven = true
	return first
}

// openStream claims the session's one GET stream; false if it is taken.
func (h *sessionHTTP) openStream() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.streamOpen {
		return false
	}
	h.streamOpen = true
	return true
}

// closeStream releases the GET stream.
func (h *sessionHTTP) closeStream() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.streamOpen = false
}
