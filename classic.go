// The classic era, served side by side with the modern one: the initialize
// handshake, the per-connection session it opens, ping, logging/setLevel,
// and the dialect each classic revision speaks.
//
// "Classic" is this code's one word for what the 2026-07-28 specification
// calls the legacy versions: the revisions that open with the initialize
// handshake (2024-11-05 to 2025-11-25). File names (classic_*.go) and
// identifiers use it throughout; "modern" is the per-request _meta era.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions
// (dual-era server), and the classic revisions 2025-11-25, 2025-06-18 and
// 2024-11-05: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping,
// https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// The classic revisions. Versions are ISO dates, so they order as strings;
// atLeast relies on that.
const (
	version20241105 = "2024-11-05"
	// version20250326 is not served (see classicVersions); it is named
	// because features it introduced are gated on it.
	version20250326 = "2025-03-26"
	version20250618 = "2025-06-18"
	version20251125 = "2025-11-25"
)

// classicVersions lists the initialize-handshake versions served, newest
// first. 2025-03-26 is left out on purpose: it required servers to accept
// JSON-RPC batches, which this server refuses (batches were removed in
// 2025-06-18), so a client offering it gets the newest version instead.
// Recorded in docs/GAPS.md.
// [§Version Negotiation]: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation
var classicVersions = []string{version20251125, version20250618, version20241105}

// atLeast reports whether a message in version may use what revision
// introduced. Every modern version is at least every classic one.
func atLeast(version, revision string) bool { return version >= revision }

// era says which protocol era a method belongs to.
type era uint8

// The eras a method can belong to. The zero value serves both.
const (
	bothEras   era = iota
	modernEra      // only with per-request _meta (server/discover)
	classicEra     // only inside the initialize handshake era (ping, logging/setLevel)
)

// session is the state one classic-era connection negotiated: one per stdio
// connection, one per Mcp-Session-Id on HTTP (the transport owns the
// store and hands the session in through exchange.session; for an
// initialize request without a session id it hands in a fresh one and
// keeps it only when negotiated() is no longer ""). Modern requests never
// read it. It is safe for concurrent use: requests on one connection run
// concurrently.
//
// It also carries what server-to-client traffic needs (classic_bridge.go): the
// requests in flight to the client (pending), the counter their ids come
// from, and push, the session's own channel to the client (stdout on
// stdio, the GET stream on HTTP) for messages that belong to no request.
type session struct {
	mu           sync.Mutex      // guards version, capabilities, clientInfo, level, hasLevel, initialized, pending, nextID, inFlight, streaming, watch, hub
	version      string          // negotiated protocol version; "" until initialize succeeds
	capabilities json.RawMessage // ClientCapabilities the client declared (gates server-to-client requests)
	clientInfo   json.RawMessage // the client's Implementation
	level        logLevel        // minimum level set by logging/setLevel
	hasLevel     bool            // logging/setLevel was called; until then nothing is logged
	initialized  bool            // notifications/initialized arrived

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
	// resources/subscribe (subscriptions.go), nil until watchSession; hub
	// is where it is registered. end removes it.
	watch *subscription
	hub   *subscriptionHub
	// wake (capacity 1) is signalled when watch has notices pending for
	// the HTTP GET stream.
	wake chan struct{}

	// id is the HTTP Mcp-Session-Id, principal who opened it; both are
	// set before the session is shared and never change.
	id, principal string

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
// because the queue is full. It never blocks.
// [§Listening for Messages from the Server]: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server
func (c *session) push(msg []byte) bool {
	if c.sink != nil {
		c.sink(msg)
		return true
	}
	select {
	case <-c.done:
		return false
	default:
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

// begin records a successful initialize. It reports false when the
// session was already initialized: the handshake happens once per
// connection.
func (c *session) begin(version string, capabilities, clientInfo []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != "" {
		return false
	}
	c.version, c.capabilities, c.clientInfo = version, capabilities, clientInfo
	return true
}

// clientCapabilities returns the ClientCapabilities object the client
// declared at initialize, nil before.
func (c *session) clientCapabilities() json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.capabilities
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
// requests wait for.
// [§Initialization]: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization
func (c *session) markInitialized() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != "" {
		c.initialized = true
	}
}

// isInitialized reports whether notifications/initialized arrived.
func (c *session) isInitialized() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.initialized
}

// admitEra picks the era that serves req and enforces the method's era
// flags; it is the one place they are enforced. A request is served in
// the classic era when it carries no io.modelcontextprotocol/protocolVersion
// in _meta, the classic era is on for this exchange (a session and no
// -modern-only), and either the method is classic-only or the session was
// initialized. Everything else is modern and goes through admit.
// [§Backward Compatibility]: https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions
func (s *server) admitEra(req *request, m method, ex exchange) *rpcError {
	sess := ex.session
	classicOn := !s.modernOnly && sess != nil
	version := sess.negotiated()
	classic := classicOn && !req.meta.hasVersion && (m.era == classicEra || version != "")
	if !classic {
		if m.era == classicEra {
			return classicOnly(req.method, classicOn)
		}
		rerr := s.admit(req, ex.check)
		if rerr != nil && classicOn && !req.meta.hasVersion && m.era != modernEra {
			// Before initialize a request without modern _meta is a
			// malformed modern request, and the modern era requires
			// -32602 for it; the classic revisions leave pre-initialize
			// errors to the server. The message says both ways out.
			// [§_meta]: https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
			return invalidParams("invalid params: send initialize first, or carry %s in _meta", metaProtocolVersion)
		}
		return rerr
	}
	if m.era == modernEra {
		return newError(codeMethodNotFound, "method not found: %s is not part of protocol version %s", req.method, version)
	}
	req.session, req.version = sess, version
	if version == "" && !m.beforeInitialize {
		return invalidParams("invalid params: send initialize first")
	}
	return nil
}

// classicOnly is the -32601 for a classic-only method asked in the modern
// era. For initialize it names the supported versions: a classic client
// has no fall-forward mechanism, and this may be the only diagnostic it
// can show its user.
// [§Backward Compatibility]: https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions
func classicOnly(method string, classicOn bool) *rpcError {
	if method != methodInitialize {
		return newError(codeMethodNotFound, "method not found: %s is not part of protocol version %s", method, strings.Join(modernVersions, ", "))
	}
	supported := modernVersions
	how := "send it without " + metaProtocolVersion + " in _meta"
	if classicOn {
		supported = append(append([]string(nil), modernVersions...), classicVersions...)
	} else {
		how = "this server serves only per-request _meta versions"
	}
	return &rpcError{
		Code:    codeMethodNotFound,
		Message: fmt.Sprintf("method not found: initialize (%s; supported protocol versions: %s)", how, strings.Join(supported, ", ")),
		Data:    map[string][]string{"supported": supported},
	}
}

// methodInitialize opens the classic era.
const methodInitialize = "initialize"

// handleInitialize answers initialize: the offered version if served,
// otherwise the newest classic version (a counter-offer, not an error; the
// client disconnects if it cannot speak it). It opens the session.
// [§Version Negotiation]: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation
func (s *server) handleInitialize(ctx context.Context, req *request) (result, error) {
	offered, rerr := req.stringParam("protocolVersion")
	if rerr != nil {
		return result{}, rerr
	}
	caps, info := req.param("capabilities"), req.param("clientInfo")
	if jsonKind(caps) != '{' {
		return result{}, invalidParams("invalid params: capabilities must be an object")
	}
	if jsonKind(info) != '{' {
		return result{}, invalidParams("invalid params: clientInfo must be an object")
	}
	version := classicVersions[0]
	for _, v := range classicVersions {
		if v == offered {
			version = v
		}
	}
	if !req.session.begin(version, caps, info) {
		return result{}, newError(codeInvalidRequest, "invalid request: already initialized at protocol version %s", req.session.negotiated())
	}
	req.version = version
	si := s.info
	if !atLeast(version, version20250618) {
		si.Title = ""
	}
	return result{body: initializeResult{
		ProtocolVersion: version,
		Capabilities:    s.registry().capabilities(version),
		ServerInfo:      si,
		Instructions:    s.instructions,
	}}, nil
}

// initializeResult is InitializeResult.
type initializeResult struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ServerInfo      implementation  `json:"serverInfo"`
	Instructions    string          `json:"instructions,omitempty"`
}

// handleInitialized records notifications/initialized; from now on the
// session is told of list changes (subscriptions.go).
func (s *server) handleInitialized(ctx context.Context, req *request) (result, error) {
	req.session.markInitialized()
	if req.session.isInitialized() {
		s.watchSession(req.session)
	}
	return result{}, nil
}

// handlePing answers ping with an empty result, before initialize too.
// [§Ping]: https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping
func (s *server) handlePing(ctx context.Context, req *request) (result, error) {
	return result{}, nil
}

// handleSetLevel answers logging/setLevel: notifications/message of this
// session's requests are sent from that level up.
// [§Setting Log Level]: https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging#setting-log-level
func (s *server) handleSetLevel(ctx context.Context, req *request) (result, error) {
	name, rerr := req.stringParam("level")
	if rerr != nil {
		return result{}, rerr
	}
	level, ok := parseLogLevel(name)
	if !ok {
		return result{}, invalidParams("invalid params: unknown log level %q", name)
	}
	req.session.setLogLevel(level)
	return result{}, nil
}

// contentFor returns blocks as version can carry them: a type the
// revision does not define becomes a text block saying what was there, and
// annotation fields it does not define are dropped. blocks is not
// modified.
func contentFor(version string, blocks []content) []content {
	if atLeast(version, version20250618) {
		return blocks
	}
	out := make([]content, len(blocks))
	for i, c := range blocks {
		out[i] = c.downgrade(version)
	}
	return out
}

// downgrade returns c in a pre-2025-06-18 shape: audio (2025-03-26) and
// resource_link (2025-06-18) become text, and annotations lose
// lastModified (2025-06-18).
// [2024-11-05 schema]: https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema/2024-11-05/schema.json
func (c content) downgrade(version string) content {
	switch {
	case c.Type == "audio" && !atLeast(version, version20250326):
		c = content{Type: "text", Text: fmt.Sprintf("[audio content (%s, %d bytes) omitted: protocol version %s has no audio content]", c.MimeType, len(c.Data), version), Annotations: c.Annotations}
	case c.Type == "resource_link" && !atLeast(version, version20250618) && c.Link != nil:
		name := c.Link.Title
		if name == "" {
			name = c.Link.Name
		}
		text := fmt.Sprintf("resource %q: %s", name, c.Link.URI)
		if c.Link.Description != "" {
			text += "\n" + c.Link.Description
		}
		c = content{Type: "text", Text: text, Annotations: c.Annotations}
	}
	c.Annotations = c.Annotations.forVersion(version)
	return c
}

// forVersion returns a without the fields version does not define.
func (a *annotations) forVersion(version string) *annotations {
	if a == nil || a.LastModified == "" || atLeast(version, version20250618) {
		return a
	}
	b := *a
	b.LastModified = ""
	if b.Audience == nil && b.Priority == nil {
		return nil
	}
	return &b
}

// iconsFor returns icons when version defines them (2025-11-25 on).
func iconsFor(version string, icons []icon) []icon {
	if !atLeast(version, version20251125) {
		return nil
	}
	return icons
}

// titleFor returns title when version defines it (2025-06-18 on).
func titleFor(version, title string) string {
	if !atLeast(version, version20250618) {
		return ""
	}
	return title
}
