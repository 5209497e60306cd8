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
	"fmt"
	"strings"
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
// session is told of list changes (classic_subscriptions.go).
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
