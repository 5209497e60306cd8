// The classic session: what one initialize handshake negotiated, the server-to-client
// requests awaiting answers, the channel to the client and the registration for list
// changes. Its HTTP part, with a lock of its own, is classic_session_http.go.
//
// Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server.

package main

import (
	"strconv"
	"strings"
	"sync"
)

// session is one classic-era connection: one per stdio connection, one per Mcp-Session-Id
// on HTTP (exchange.session). Modern requests never read it. Safe for concurrent use.
type session struct {
	mu      sync.Mutex // guards version, caps, name, level, hasLevel, initialized, pending, nextID, watch, hub
	version string     // negotiated protocol version; "" until initialize succeeds
	// caps and name distil the client's initialize: its raw objects, body slices, must not live on.
	caps        clientCapsSet
	name        string   // clientInfo.name, cut for logs
	level       logLevel // minimum level set by logging/setLevel
	hasLevel    bool     // logging/setLevel was called; until then nothing is logged
	initialized bool     // notifications/initialized arrived

	pending map[string]chan<- *message // server-to-client requests awaiting an answer, by idKey
	nextID  uint64                     // last server-to-client request number

	// peer is where the session's messages outside any request go; wake, where its watcher
	// wakes the stream that drains its notices (nil on stdio, pushed at once). Set before sharing.
	peer peer
	wake chan struct{}

	watch *subscription    // list changes and resources/subscribe, nil until watcher
	hub   *subscriptionHub // where watch is registered

	// id is its id in its transport's framing, share its client's share key; set before sharing.
	id, share string

	calls calls // the requests in flight on its connection (conn.go)

	endOnce sync.Once
	done    chan struct{} // closed when the session ends (DELETE, expiry, shutdown)
}

// newSession returns a session before initialize; its transport sets its peer.
func newSession() *session {
	return &session{done: make(chan struct{}), pending: map[string]chan<- *message{}}
}

// peer is a classic session's connection to its client, for what the server sends outside
// any request: the stdio connection, the Streamable HTTP GET stream, the 2024-11-05 stream.
// [§Listening for Messages from the Server]: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server
type peer interface {
	// push sends msg: a stdout line on stdio (blocking while stdout stalls), an event on an
	// HTTP stream (never blocking); false when dropped (a full queue).
	push(msg []byte) bool
	// streaming reports whether push reaches the client now (HTTP: while the GET stream is open).
	streaming() bool
	// silent reports whether a client silent to pings ends its session (HTTP), not logged (stdio).
	silent() bool
}

// push sends msg to the client outside any request; false when dropped or the session ended.
func (c *session) push(msg []byte) bool {
	if c.ended() {
		return false
	}
	return c.peer.push(msg)
}

// end terminates the session, once: bridges fail, the GET stream closes, the watcher is
// unregistered. Its requests in flight run on (endWithRequests cancels them).
func (c *session) end() {
	c.endOnce.Do(func() {
		close(c.done)
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.watch != nil {
			c.hub.unwatch(c.watch)
		}
	})
}

// endWithRequests ends the session and cancels its requests in flight (errSessionEnded): how
// an HTTP session ends (DELETE, expiry, eviction, ping silence; TestPingSilenceEndsHTTPSession).
// stdio's connection cancels its own.
func (c *session) endWithRequests() {
	c.end()
	c.calls.cancelAll(errSessionEnded)
}

// negotiated returns the session's protocol version, "" before initialize or for a nil session.
func (c *session) negotiated() string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// begin records a successful initialize; false when the session was already initialized.
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

// maxLoggedClientName bounds the client name a log line quotes: it is the client's own text.
const maxLoggedClientName = 64

// clientName returns clientInfo.name for logs; "" when absent.
func (c *session) clientName() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.name
}

// clientInfoName returns clientInfo's name, cut to maxLoggedClientName bytes, copied; "" if absent.
func clientInfoName(info []byte) string {
	members, _ := objectMembers(info) // none when it is not an object
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

// setLogLevel records the minimum level of notifications/message.
func (c *session) setLogLevel(l logLevel) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.level, c.hasLevel = l, true
}

// logLevel returns the minimum level to log at; false before logging/setLevel (silent, as modern).
// [§Logging]: https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging
func (c *session) logLevel() (logLevel, bool) {
	if c == nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.level, c.hasLevel
}

// markInitialized records notifications/initialized, which server-to-client requests wait
// for. It reports whether this one initialized the session: false before initialize and for
// every repeat, so what starts with the session starts once (TestKeepAliveOncePerSession).
// [§Initialization]: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization
func (c *session) markInitialized() (first bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	first = c.version != "" && !c.initialized
	c.initialized = c.initialized || first
	return first
}

// missingFor names the capabilities q needs that the client did not declare at initialize,
// or that version does not define: elicitation exists from 2025-06-18, url mode from 2025-11-25.
func (c *session) missingFor(version string, q inputRequest) []string {
	c.mu.Lock()
	caps := c.caps
	c.mu.Unlock()
	if q.method == methodElicit {
		if !atLeast(version, version20250618) {
			caps.elicitForm, caps.elicitURL = false, false
		} else if !atLeast(version, version20251125) {
			caps.elicitURL = false
		}
	}
	return missingCapability(caps, q)
}

// expect reserves n JSON-quoted ids, prefix and a per-session number, for server-to-client
// requests, and routes their answers to answers until deliver or forget removes them.
func (c *session) expect(prefix string, n int, answers chan<- *message) (ids []string) {
	ids = make([]string, n)
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range ids {
		c.nextID++
		ids[i] = string(appendJSONString(nil, prefix+strconv.FormatUint(c.nextID, 10)))
		c.pending[idKey([]byte(ids[i]))] = answers
	}
	return ids
}

// forget stops waiting for answers to ids and returns those unanswered.
func (c *session) forget(ids []string) (abandoned []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if key := idKey([]byte(id)); c.pending[key] != nil {
			delete(c.pending, key)
			abandoned = append(abandoned, id)
		}
	}
	return abandoned
}

// deliver hands a client's response to the bridge waiting for it; false
// when none is. It never blocks: expect's channel has room for its round.
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

// ended reports whether the session has ended.
func (c *session) ended() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// watcher returns the session's watcher, registering start's in hub the
// first time; nil once the session has ended. Lock order: session, hub.
func (c *session) watcher(hub *subscriptionHub, start func() *subscription) *subscription {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.watch != nil {
		return c.watch
	}
	if c.ended() {
		return nil
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
