// The classic session: what one initialize handshake negotiated (version,
// client capabilities, log level), the server-to-client requests awaiting
// the client's answer, the HTTP requests in flight, the session's own
// channel to the client, and its registration for list changes and
// resource updates. The type, its lock and every method that takes the
// lock live here; the rest of the classic era (classic.go, classic_http.go,
// classic_bridge.go, classic_subscriptions.go) calls these methods.
//
// Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server.

package main

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
)

// session is the state one classic-era connection negotiated: one per stdio
// connection, one per Mcp-Session-Id on HTTP (the transport owns the
// store and hands the session in through exchange.session; for an
// initialize request without a session id it hands in a fresh one and
// keeps it only when negotiated() is no longer ""). Modern requests never
// read it. It is safe for concurrent use: requests on one connection run
// concurrently.
//
// It also carries what server-to-client traffic needs (classic_bridge.go):
// the requests in flight to the client (pending), the counter their ids
// come from, and push, the session's own channel to the client (stdout on
// stdio, the GET stream on HTTP) for messages that belong to no request.
type session struct {
	mu      sync.Mutex // guards version, caps, name, level, hasLevel, initialized, headerForgiven, pending, nextID, inFlight, streaming, watch, hub
	version string     // negotiated protocol version; "" until initialize succeeds
	// caps is what the ClientCapabilities the client declared at
	// initialize allow the server to ask (they gate server-to-client
	// requests), and name its clientInfo.name, cut for logs. The session
	// keeps these, not the declarations: the raw objects were slices of
	// the initialize body, which a session would then keep whole for its
	// life (issue 19, finding 1).
	caps        clientCapsSet
	name        string
	level       logLevel // minimum level set by logging/setLevel
	hasLevel    bool     // logging/setLevel was called; until then nothing is logged
	initialized bool     // notifications/initialized arrived
	// headerForgiven: an HTTP request of this session named another
	// served version in MCP-Protocol-Version (logged once per session).
	headerForgiven bool

	pending  map[string]chan<- *message         // server-to-client requests awaiting an answer, by idKey
	nextID   uint64                             // last server-to-client request number
	inFlight map[string]context.CancelCauseFunc // HTTP: client requests running, by idKey (stdio keeps its own)

	// sink, when set (stdio), writes a message to the connection; it is
	// set before the session is shared and never changes.
	sink func(msg []byte)
	// queue holds messages for the HTTP GET stream, bounded by
	// sessionQueueLen; push drops what does not fit.
	queue     chan []byte
	streaming bool // an HTTP GET stream is open (guarded by mu)

	// watch is the session's registration for list changes and
	// resources/subscribe (classic_subscriptions.go), nil until watcher; hub
	// is where it is registered. end removes it.
	watch *subscription
	hub   *subscriptionHub
	// wake (capacity 1) is signalled when watch has notices pending for
	// the HTTP GET stream.
	wake chan struct{}

	// id is the HTTP session id (an Mcp-Session-Id, or the 2024-11-05
	// transport's sessionId), owner the binding of who opened it
	// (caller.binding) and share the key of that client's share of the
	// limits (limits_share.go); all are set before the session is shared
	// and never change.
	id, owner, share string

	endOnce sync.Once
	done    chan struct{} // closed when the session ends (DELETE, expiry, shutdown)
}

// sessionQueueLen bounds the messages waiting for an HTTP session's GET
// stream. Server-initiated messages are rare (list changes, cancellations
// of server requests); a client that never opens the stream loses them
// rather than growing the server's memory.
const sessionQueueLen = 64

// newSession returns a session before initialize.
func newSession() *session {
	return &session{queue: make(chan []byte, sessionQueueLen), done: make(chan struct{}), wake: make(chan struct{}, 1)}
}

// push sends msg to the client outside any request: on stdio it is a
// line on stdout, on HTTP an event on the session's GET stream (queued
// until one is open). It reports false when the message was dropped
// because the queue is full (HTTP) or the session has ended. On HTTP it
// never blocks; on stdio it is the connection's write (sink), which waits
// for room while stdout stalls, so a publisher of the session's
// notifications shares that backpressure (subscriptions.go).
// [§Listening for Messages from the Server]: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server
func (c *session) push(msg []byte) bool {
	select {
	case <-c.done:
		return false
	default:
	}
	if c.sink != nil {
		c.sink(msg)
		return true
	}
	select {
	case c.queue <- msg:
		return true
	default:
		return false
	}
}

// end terminates the session: waiting bridges fail, the GET stream
// closes, HTTP requests in flight are cancelled, and the session stops
// receiving list changes and resource updates. It is idempotent.
func (c *session) end() {
	c.endOnce.Do(func() {
		close(c.done)
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, cancel := range c.inFlight {
			cancel(errSessionEnded)
		}
		if c.watch != nil {
			c.hub.unwatch(c.watch)
		}
	})
}

// track records an HTTP request in flight under its id so that
// notifications/cancelled and the session's end can cancel it; the
// returned function forgets it. ok is false when the id is already in
// flight: ids must be unique among a session's running requests.
func (c *session) track(id []byte, cancel context.CancelCauseFunc) (untrack func(), ok bool) {
	key := idKey(id)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.inFlight[key]; dup {
		return nil, false
	}
	if c.inFlight == nil {
		c.inFlight = map[string]context.CancelCauseFunc{}
	}
	c.inFlight[key] = cancel
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.inFlight, key)
	}, true
}

// cancelRequest cancels the HTTP request in flight with idKey key, if
// any, with errRequestCancelled as the cause.
func (c *session) cancelRequest(key string) bool {
	c.mu.Lock()
	cancel := c.inFlight[key]
	c.mu.Unlock()
	if cancel != nil {
		cancel(errRequestCancelled)
	}
	return cancel != nil
}

// cancelNamed handles a notifications/cancelled (its params) in an HTTP
// session: the request it names is cancelled. Unknown ids and malformed
// notifications are ignored, as the spec asks.
func (c *session) cancelNamed(params []byte) {
	if key, ok := cancelledRequest(params); ok {
		c.cancelRequest(key)
	}
}

// The causes a classic HTTP request's context may be cancelled with.
var (
	errRequestCancelled = errors.New("cancelled by the client (notifications/cancelled)")
	errSessionEnded     = errors.New("the session ended")
)

// negotiated returns the session's protocol version, "" before initialize
// (or for a nil session: a transport without classic sessions).
func (c *session) negotiated() string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// begin records a successful initialize: what the capabilities the
// client declared allow (clientCaps), and the name in its clientInfo
// (cut to maxLoggedClientName bytes and copied: it is kept, the body is
// not). It reports false when the session was already initialized: the
// handshake happens once per connection.
func (c *session) begin(version string, caps clientCapsSet, clientInfo []byte) bool {
	name := clientInfoName(clientInfo)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != "" {
		return false
	}
	c.version, c.caps, c.name = version, caps, name
	return true
}

// noteForgivenHeader records that a request of the session carried a
// version header other than the negotiated one, and reports whether it
// was the first (the one to log).
func (c *session) noteForgivenHeader() (first bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	first = !c.headerForgiven
	c.headerForgiven = true
	return first
}

// maxLoggedClientName bounds the client name a log line quotes: it is
// the client's own text.
const maxLoggedClientName = 64

// clientName returns clientInfo.name as the client declared it at
// initialize, cut to maxLoggedClientName bytes, for logs; "" when absent.
func (c *session) clientName() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.name
}

// clientInfoName returns the name member of a clientInfo object, cut to
// maxLoggedClientName bytes and copied; "" when absent.
func clientInfoName(info []byte) string {
	members, err := objectMembers(info)
	if err != nil {
		return ""
	}
	for _, m := range members {
		if name, ok := jsonString(m.value); ok && m.name == "name" {
			if len(name) > maxLoggedClientName {
				name = name[:maxLoggedClientName]
			}
			return strings.Clone(name)
		}
	}
	return ""
}

// clientCapabilities returns what the capabilities the client declared at
// initialize allow; none before.
func (c *session) clientCapabilities() clientCapsSet {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.caps
}

// setLogLevel records the minimum level of notifications/message.
func (c *session) setLogLevel(l logLevel) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.level, c.hasLevel = l, true
}

// logLevel returns the minimum level to log at, and false while the
// client has not asked for logs. The classic spec lets the server choose
// before logging/setLevel; this one stays silent, as the modern era does
// without a requested level.
// [§Logging]: https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging
func (c *session) logLevel() (logLevel, bool) {
	if c == nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.level, c.hasLevel
}

// markInitialized records notifications/initialized. Requests are served
// from the initialize response on (a client SHOULD NOT send any before
// it, but may race its notification); the flag is what server-to-client
// requests wait for. It reports whether the session is initialized now
// (false before initialize negotiated).
// [§Initialization]: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization
func (c *session) markInitialized() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != "" {
		c.initialized = true
	}
	return c.initialized
}

// missingFor names the capabilities q needs that the session's client did
// not declare at initialize, or that version does not define: elicitation
// exists from 2025-06-18, its url mode from 2025-11-25.
func (c *session) missingFor(version string, q inputRequest) []string {
	caps := c.clientCapabilities()
	if q.method == methodElicit {
		if !atLeast(version, version20250618) {
			caps.elicitForm, caps.elicitURL = false, false
		} else if !atLeast(version, version20251125) {
			caps.elicitURL = false
		}
	}
	return missingCapability(caps, q)
}

// expect reserves n ids for server-to-client requests, each prefix and a
// number counted per session, JSON-quoted, and routes the client's
// answers to them to answers until deliver or forget removes them.
func (c *session) expect(prefix string, n int, answers chan<- *message) (ids []string) {
	ids = make([]string, n)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil {
		c.pending = map[string]chan<- *message{}
	}
	for i := range ids {
		c.nextID++
		ids[i] = string(appendJSONString(nil, prefix+strconv.FormatUint(c.nextID, 10)))
		c.pending[idKey([]byte(ids[i]))] = answers
	}
	return ids
}

// forget stops waiting for answers to ids and returns those still
// unanswered: the requests abandoned towards the client.
func (c *session) forget(ids []string) (abandoned []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if _, ok := c.pending[idKey([]byte(id))]; ok {
			delete(c.pending, idKey([]byte(id)))
			abandoned = append(abandoned, id)
		}
	}
	return abandoned
}

// deliver hands a response the client sent to the bridge waiting for it.
// It reports false when no request with that id is pending (never sent,
// already answered, or abandoned). It never blocks: the waiting channel
// has room for every answer of its round.
func (c *session) deliver(msg *message) bool {
	key := idKey(msg.id)
	c.mu.Lock()
	ch, ok := c.pending[key]
	delete(c.pending, key)
	c.mu.Unlock()
	if ok {
		ch <- msg
	}
	return ok
}

// hasStream reports whether an HTTP GET stream of the session is open.
func (c *session) hasStream() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streaming
}

// ended reports whether the session has ended.
func (c *session) ended() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// openStream claims the session's one GET stream; false if it is taken.
func (c *session) openStream() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.streaming {
		return false
	}
	c.streaming = true
	return true
}

// closeStream releases the GET stream.
func (c *session) closeStream() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.streaming = false
}

// watcher returns the session's watcher in hub (classic_subscriptions.go),
// registering the one start returns the first time; nil once the session
// has ended, so that nothing outlives it (end unregisters it). Lock
// order: the session's mu, then the hub's.
func (c *session) watcher(hub *subscriptionHub, start func() *subscription) *subscription {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.watch != nil {
		return c.watch
	}
	select {
	case <-c.done:
		return nil
	default:
	}
	w := start()
	hub.watch(w)
	c.watch, c.hub = w, hub
	return w
}

// watching returns the session's watcher, nil before watcher made one.
func (c *session) watching() *subscription {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.watch
}
