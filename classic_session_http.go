//go:build !stdio

// A classic session's HTTP state: who opened it, the requests in flight
// on its Mcp-Session-Id, its one standalone GET stream and what waits for
// that stream. session (classic_session.go) embeds sessionHTTP; its
// fields, its lock and every method that takes it live here, and no code
// holds this lock and session.mu together.
//
// Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation.

package main

import (
	"context"
	"errors"
	"sync"
)

// sessionHTTP is the part of a classic session only the HTTP transports
// use. Safe for concurrent use.
type sessionHTTP struct {
	owner string // the caller.binding of who opened the session; set before sharing

	mu             sync.Mutex                         // guards inFlight, streaming, headerForgiven
	inFlight       map[string]context.CancelCauseFunc // client requests running, by idKey
	streaming      bool                               // the GET stream is open
	headerForgiven bool                               // a request named another served version (logged once)

	queue chan []byte   // for the GET stream; enqueue drops what does not fit
	wake  chan struct{} // capacity 1: the session's watcher has notices for the GET stream
}

// sessionQueueLen bounds the messages waiting for an HTTP session's GET
// stream: they are rare, and a client that never opens the stream loses
// them rather than growing the server's memory.
const sessionQueueLen = 64

// newSessionHTTP returns the HTTP state of a new session.
func newSessionHTTP() sessionHTTP {
	return sessionHTTP{queue: make(chan []byte, sessionQueueLen), wake: make(chan struct{}, 1)}
}

// The causes a classic HTTP request's context may be cancelled with.
var (
	errRequestCancelled = errors.New("cancelled by the client (notifications/cancelled)")
	errSessionEnded     = errors.New("the session ended")
)

// enqueue queues msg for the GET stream without blocking; false when the
// queue is full.
func (h *sessionHTTP) enqueue(msg []byte) bool {
	select {
	case h.queue <- msg:
		return true
	default:
		return false
	}
}

// noticeWake returns the channel the session's watcher wakes the GET
// stream on.
func (h *sessionHTTP) noticeWake() chan struct{} { return h.wake }

// endRequests cancels every request in flight: the session ended.
func (h *sessionHTTP) endRequests() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, cancel := range h.inFlight {
		cancel(errSessionEnded)
	}
}

// track records a request in flight under its id, for cancellation;
// untrack forgets it. ok is false when the id is already in flight.
func (h *sessionHTTP) track(id []byte, cancel context.CancelCauseFunc) (untrack func(), ok bool) {
	key := idKey(id)
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, dup := h.inFlight[key]; dup {
		return nil, false
	}
	if h.inFlight == nil {
		h.inFlight = map[string]context.CancelCauseFunc{}
	}
	h.inFlight[key] = cancel
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.inFlight, key)
	}, true
}

// cancelRequest cancels the request in flight with idKey key, if any.
func (h *sessionHTTP) cancelRequest(key string) bool {
	h.mu.Lock()
	cancel := h.inFlight[key]
	h.mu.Unlock()
	if cancel != nil {
		cancel(errRequestCancelled)
	}
	return cancel != nil
}

// cancelNamed cancels the request a notifications/cancelled names;
// unknown ids and malformed params are ignored, as the spec asks.
func (h *sessionHTTP) cancelNamed(params []byte) {
	if key, ok := cancelledRequest(params); ok {
		h.cancelRequest(key)
	}
}

// noteForgivenHeader records a version header other than the negotiated
// one, and reports whether it was the first (the one to log).
func (h *sessionHTTP) noteForgivenHeader() (first bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	first = !h.headerForgiven
	h.headerForgiven = true
	return first
}

// hasStream reports whether the GET stream is open.
func (h *sessionHTTP) hasStream() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.streaming
}

// openStream claims the session's one GET stream; false if it is taken.
func (h *sessionHTTP) openStream() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.streaming {
		return false
	}
	h.streaming = true
	return true
}

// closeStream releases the GET stream.
func (h *sessionHTTP) closeStream() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.streaming = false
}
