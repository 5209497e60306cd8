// The classic era, served side by side with the modern one: which era
// serves a message (decideEra, once per message, and admitEra), the
// initialize handshake, ping, logging/setLevel, and the dialect each
// classic revision speaks. The parts: classic_session.go (the session the
// handshake opens), classic_http.go (sessions over HTTP),
// classic_bridge.go (asking a classic client for input),
// classic_subscriptions.go (list changes and resources/subscribe).
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
	"fmt"
	"slices"
	"strings"
	"time"
)

// The classic revisions. Versions are ISO dates, so they order as strings;
// atLeast relies on that.
const (
	version20241105 = "2024-11-05"
	version20250326 = "2025-03-26"
	version20250618 = "2025-06-18"
	version20251125 = "2025-11-25"
)

// classicVersions lists the initialize-handshake versions served, newest
// first. 2025-03-26 is served with the JSON-RPC batches it requires
// servers to accept (batch.go), inside its own sessions only.
// [§Version Negotiation]: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation
var classicVersions = []string{version20251125, version20250618, version20250326, version20241105}

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

// eraDecision is the era one message is served in: decideEra decides it
// once, before anything is served, and the request carries it (req.era)
// to admitEra and, over HTTP, to the status of its reply.
type eraDecision struct {
	// era is classicEra or modernEra: the era that serves the message.
	era era
	// classicOn reports that the classic era is open to the message: the
	// transport has a classic session for it (stdio's connection; on HTTP
	// the one it names, or for initialize the one it opens) and
	// -modern-only is off. On HTTP such a message goes through its
	// session (classic_http.go) even when it is served modern.
	classicOn bool
}

// decideEra is the one place the era of a message is decided, from
// whether its _meta names a protocol version (req.meta.modern), its
// method, the transport's classic session and -modern-only, and what the
// transport read beside the message (f). A message is served in the
// classic era when the classic era is open to it, its _meta names no
// protocol version, and either the method is classic-only or the session
// has negotiated a version (initialize succeeded); everything else is
// modern.
//
// sess is the session the transport hands over (stdio's connection, a
// 2024-11-05 stream's, a batch's). A transport that names sessions per
// message (f.sessionHints: Streamable HTTP) looks the session up after
// this decision, so its framing says whether the message belongs to one,
// as the dual-era rules ask: initialize, a session id, or a classic
// protocol version make it a session's, and so does a message with
// neither that version nor a _meta protocol version (its client predates
// 2025-06-18). Only sessions that negotiated a version are kept
// (classic_http.go), and a session id that names none is answered 404
// before anything is served, so a named session counts as negotiated.
// Without either, the transport has no classic session: modern.
// [§Backward Compatibility]: https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions
// [§Protocol Version Header]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#protocol-version-header
func (s *server) decideEra(req *request, sess *session, f *framing) eraDecision {
	modern := eraDecision{era: modernEra}
	if s.modernOnly {
		return modern
	}
	var negotiated bool
	switch {
	case sess != nil:
		negotiated = sess.negotiated() != ""
	case f.sessionHints:
		// Without a session, modern _meta makes the request modern, even
		// under a classic protocol version header: the mirrored-header
		// check then names the mismatch (-32020), where the classic path
		// would ask for a session, or for the _meta it carried.
		if req.method != methodInitialize && !f.sessionNamed && (req.meta.modern || (f.version != "" && !isClassicVersion(f.version))) {
			return modern
		}
		negotiated = f.sessionNamed
	default:
		return modern
	}
	d := eraDecision{era: modernEra, classicOn: true}
	if !req.meta.modern && (methods[req.method].era == classicEra || negotiated) {
		d.era = classicEra
	}
	return d
}

// isClassicVersion reports whether v names an initialize-era revision
// this server serves.
func isClassicVersion(v string) bool { return slices.Contains(classicVersions, v) }

// admitEra enforces the method's era flags for the era decideEra chose;
// it is the one place they are enforced. A classic request joins its
// session (ex.session) and is served in the negotiated version; a modern
// one goes through admit.
// [§Backward Compatibility]: https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions
func (s *server) admitEra(req *request, m method, ex exchange) *rpcError {
	if req.era.era != classicEra {
		if m.era == classicEra {
			return classicOnly(req.method, req.era.classicOn)
		}
		rerr := s.admit(req, ex.check)
		if rerr != nil && req.era.classicOn && !req.meta.hasVersion && m.era != modernEra {
			// Before initialize a request without modern _meta is a
			// malformed modern request, and the modern era requires
			// -32602 for it; the classic revisions leave pre-initialize
			// errors to the server. The message says both ways out.
			// [§_meta]: https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
			return invalidParams("invalid params: send initialize first, or carry %s in _meta", metaProtocolVersion)
		}
		return rerr
	}
	version := ex.session.negotiated()
	if m.era == modernEra {
		return newError(codeMethodNotFound, "method not found: %s is not part of protocol version %s", req.method, version)
	}
	req.session, req.version = ex.session, version
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
// otherwise counterOffer's (not an error; the client disconnects if it
// cannot speak it). It opens the session.
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
	version := counterOffer(offered)
	// What the capabilities allow and the client's name are kept, not the
	// objects: they are slices of the body (issue 19, finding 1).
	if !req.session.begin(version, clientCaps(caps), info) {
		return result{}, newError(codeInvalidRequest, "invalid request: already initialized at protocol version %s", req.session.negotiated())
	}
	req.version = version
	return result{body: initializeResult{
		ProtocolVersion: version,
		Capabilities:    s.registry().capabilities(version),
		ServerInfo:      implementationFor(version, s.info),
		Instructions:    s.instructions,
	}}, nil
}

// counterOffer returns the version initialize answers an offer with. A
// served version is echoed, as the lifecycle requires. For an offer that
// is a date but not served, it is the newest served version not newer
// than the offer, or the oldest served one when the offer predates them
// all; anything else gets the newest. The lifecycle says the
// counter-offer SHOULD be the server's latest, but a client's offer is
// the newest revision it knows, and the clients people run accept older
// revisions but refuse newer ones (the TypeScript SDK up to 1.12 and the
// Python SDK 1.9 accept only their own version and older ones: 1.0.4
// accepts 2024-11-05 and 2024-10-07, 1.12.1 also 2025-03-26). The newest
// version the client can know is the one it is most likely to accept.
// Recorded in docs/GAPS.md.
// [§Version Negotiation]: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation
func counterOffer(offered string) string {
	if isClassicVersion(offered) {
		return offered
	}
	if _, err := time.Parse(time.DateOnly, offered); err != nil {
		return classicVersions[0]
	}
	for _, v := range classicVersions {
		if v <= offered {
			return v
		}
	}
	return classicVersions[len(classicVersions)-1]
}

// initializeResult is InitializeResult.
type initializeResult struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ServerInfo      implementation  `json:"serverInfo"`
	Instructions    string          `json:"instructions,omitempty"`
}

// handleInitialized records notifications/initialized; from now on the
// session is told of list changes (classic_subscriptions.go).
func (s *server) handleInitialized(ctx context.Context, req *request) (result, error) {
	if req.session.markInitialized() {
		s.watchSession(req.session)
		if s.pingInterval > 0 {
			go s.keepAlive(context.WithoutCancel(ctx), req.session) // ends with the session (classic_ping.go)
		}
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
