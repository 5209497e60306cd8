// The modern era's per-request contract: _meta validation, version negotiation, server/discover.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning,
// https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta,
// https://modelcontextprotocol.io/specification/2026-07-28/server/discover

package main

import (
	"context"
	"encoding/json"
	"slices"
	"time"
)

// version20260728 is the modern revision this server speaks.
const version20260728 = "2026-07-28"

// modernVersions lists the per-request-_meta versions served, newest first.
var modernVersions = []string{version20260728}

// isModern reports whether v is a modern (per-request _meta) version.
func isModern(v string) bool { return slices.Contains(modernVersions, v) }

// admit checks that a modern request's _meta names its protocol version and capabilities and
// settles req.version. check (may be nil), the transport's own validation, runs first: a header
// contradicting _meta is -32020 before an unsupported version is -32022, as conformance probes.
// [§Per-request protocol fields]: https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
// [§Protocol Version Header]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#protocol-version-header
// [§Protocol Version Negotiation]: https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#protocol-version-negotiation
func (s *server) admit(req *request, check func(*request) *rpcError) *rpcError {
	m := &req.meta
	if !m.hasVersion {
		return invalidParams("invalid params: _meta must carry %s", metaProtocolVersion)
	}
	if m.capabilities == nil {
		return invalidParams("invalid params: _meta must carry %s", metaClientCapabilities)
	}
	if check != nil {
		if rerr := check(req); rerr != nil {
			return rerr
		}
	}
	if !isModern(m.version) {
		return &rpcError{Code: codeUnsupportedVersion, Message: "unsupported protocol version",
			Data: unsupportedVersionData{Supported: modernVersions, Requested: m.version}}
	}
	req.version = m.version
	return nil
}

// unsupportedVersionData is UnsupportedProtocolVersionError's data (-32022), naming what is served.
type unsupportedVersionData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

// cacheHint is the ttlMs/cacheScope pair stamped on cacheable results.
// [§Caching]: https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching
type cacheHint struct {
	TTL   time.Duration // >= 0; 0 means immediately stale
	Scope string        // scopePublic or scopePrivate
}

// The two cache scopes.
const (
	scopePublic  = "public"
	scopePrivate = "private"
)

// handleDiscover answers server/discover: versions, capabilities, identity
// (stamped by the dispatcher) and instructions.
func (s *server) handleDiscover(ctx context.Context, req *request) (result, error) {
	return result{body: discoverResult{
		SupportedVersions: modernVersions,
		Capabilities:      s.registry().capabilities(req.version),
		Instructions:      s.instructions,
	}}, nil
}

// discoverResult is DiscoverResult without the stamped members.
type discoverResult struct {
	SupportedVersions []string        `json:"supportedVersions"`
	Capabilities      json.RawMessage `json:"capabilities"`
	Instructions      string          `json:"instructions,omitempty"`
}
