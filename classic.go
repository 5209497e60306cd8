// The classic era beside the modern one: which era serves a message (decideEra, admitEra),
// the initialize handshake, ping and logging/setLevel. "Classic" is this code's word for the
// versions that open with initialize (2024-11-05 to 2025-11-25); "modern" is the
// per-request _meta era.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle,
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

// The classic revisions. Versions are ISO dates, so they order as strings; atLeast relies on that.
const (
	version20241105 = "2024-11-05"
	version20250326 = "2025-03-26"
	version20250618 = "2025-06-18"
	version20251125 = "2025-11-25"
)

// classicVersions lists the initialize-era versions, newest first (2025-03-26 batches: batch.go).
// [§Version Negotiation]: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation
var classicVersions = []string{version20251125, version20250618, version20250326, version20241105}

// atLeast reports whether a message in version may use what revision introduced. Every
// modern version is at least every classic one.
func atLeast(version, revision string) bool { return version >= revision }

// era says which protocol era a method belongs to.
type era uint8

// The eras a method can belong to. The zero value serves both.
const (
	bothEras   era = iota
	modernEra      // only with per-request _meta (server/discover)
	classicEra     // only inside the initialize handshake era (ping, logging/setLevel)
)

// eraDecision is the era one message is served in (decideEra, req.era).
type eraDecision struct {
	era       era  // classicEra or modernEra
	classicOn bool // the transport has a classic session for it and -modern-only is off
}

// decideEra is the one place the era of a message is decided: classic when the classic era
// is open to it, its _meta names no protocol version, and its method is classic-only or the
// session has negotiated; else modern. A transport that finds its session late
// (f.lateSession) counts a named session as negotiated, since it refuses any other name
// (classic_http.go). TestEraRules pins it.
// [§Backward Compatibility]: https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions
// [§Protocol Version Header]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#protocol-version-header
func (s *server) decideEra(req *request, sess *session, f *framing) eraDecision {
	modern := eraDecision{era: modernEra}
	if s.modernOnly {
		return modern
	}
	var negotiated bool
	switch {
	case sess != nil && req.meta.modern:
		// Modern _meta: served modern, whatever the session negotiated
		// (and without a look at the session: harness/builds/callpath.sh).
		return eraDecision{era: modernEra, classicOn: true}
	case sess != nil:
		negotiated = sess.negotiated() != ""
	case f.lateSession:
		// Modern _meta wins over a classic version header: the mirrored-header check names it (-32020).
		if !methods[req.method].handshake && !f.namesSession && (req.meta.modern || (f.version != "" && !isClassicVersion(f.version))) {
			return modern
		}
		negotiated = f.namesSession
	default:
		return modern
	}
	d := eraDecision{era: modernEra, classicOn: true}
	if !req.meta.modern && (methods[req.method].era == classicEra || negotiated) {
		d.era = classicEra
	}
	return d
}

// isClassicVersion reports whether v names an initialize-era revision this server serves.
func isClassicVersion(v string) bool { return slices.Contains(classicVersions, v) }

// admitEra is the one place the method's era flags are enforced: a classic request joins
// its session and version, a modern one goes through admit.
// [§Backward Compatibility]: https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions
func (s *server) admitEra(req *request, m method, ex exchange) *rpcError {
	if req.era.era != classicEra {
		if m.era == classicEra {
			return classicOnly(req.method, req.era.classicOn)
		}
		rerr := s.admit(req, ex.check)
		if rerr != nil && req.era.classicOn && !req.meta.hasVersion && m.era != modernEra {
			// A malformed modern request (-32602); the message names both ways out.
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

// classicOnly is the -32601 for a classic-only method asked in the modern era; for initialize it
// names the supported versions, maybe the only diagnostic a classic client shows its user.
// [§Backward Compatibility]: https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions
func classicOnly(method string, classicOn bool) *rpcError {
	if method != methodInitialize {
		return newError(codeMethodNotFound, "method not found: %s is not part of protocol version %s", method, strings.Join(modernVersions, ", "))
	}
	supported, how := modernVersions, "this server serves only per-request _meta versions"
	if classicOn {
		supported = slices.Concat(modernVersions, classicVersions)
		how = "send it without " + metaProtocolVersion + " in _meta"
	}
	return &rpcError{
		Code:    codeMethodNotFound,
		Message: fmt.Sprintf("method not found: initialize (%s; supported protocol versions: %s)", how, strings.Join(supported, ", ")),
		Data:    map[string][]string{"supported": supported},
	}
}

// methodInitialize opens the classic era.
const methodInitialize = "initialize"

// handleInitialize answers initialize with counterOffer's version and opens the session.
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

// counterOffer returns the version initialize answers an offer with: a served version is
// echoed; an unserved date gets the newest served version not newer than it (else the
// oldest), anything else the newest: a departure from a SHOULD (docs/GAPS.md, TestCounterOffer).
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

// handleInitialized records notifications/initialized: from then on the session is told of
// list changes, and pinged (classic_ping.go).
func (s *server) handleInitialized(ctx context.Context, req *request) (result, error) {
	if req.session.markInitialized() {
		s.watchSession(req.session)
		if s.pingInterval > 0 {
			go s.keepAlive(context.WithoutCancel(ctx), req.session) // ends with the session
		}
	}
	return result{}, nil
}

// handlePing answers ping with an empty result, before initialize too.
// [§Ping]: https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping
func (s *server) handlePing(ctx context.Context, req *request) (result, error) {
	return result{}, nil
}

// handleSetLevel answers logging/setLevel: notifications/message are sent from that level up.
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
