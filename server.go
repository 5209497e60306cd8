// The server: its identity, its settings, and the live registry it serves,
// replaced whole on every change (copy-on-write) so that a request never
// sees a half-made change. The registry snapshot itself is registry.go.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/server,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle (serverInfo).

package main

import (
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// implementation names a piece of MCP software (serverInfo).
type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// serverName is the product's name: serverInfo.name, the flag set and log
// prefix, the HTTP authentication realm, the prefix of the ids of
// server-to-client requests, and the logger of notifications/message all
// come from it (through server.info once a server exists). It is the one
// place the name is written in code; rename the server here.
const serverName = "baremcp"

// serverVersion is the product's own version, reported in serverInfo.
const serverVersion = "0.1.0"

// server is one MCP server: identity, settings and the live registry.
// Transports share it; it is safe for concurrent use.
type server struct {
	info           implementation
	serverInfoJSON []byte // info encoded once, stamped on every modern result
	instructions   string
	cache          cacheHint // default hints for cacheable results
	pageSize       int       // list page size; 0 means one page
	modernOnly     bool      // the classic (initialize) era is off
	log            *slog.Logger
	refs           refCounter
	states         stateSealer      // signs and verifies MRTR requestState
	subs           *subscriptionHub // open subscriptions/listen requests
	inputTimeout   time.Duration    // how long a classic client has to answer one bridged round
	maxRequests    int              // requests served at once (limits.go)
	requestTimeout time.Duration
	limiter        *rateLimiter // tools/call per principal; nil is off
	// clientShare is the percent of each global limit one client may
	// hold (limits_share.go).
	clientShare int
	// bridged bounds the requests waiting for their client's answers to
	// bridged server-to-client requests (classic_bridge.go): a quarter of
	// -max-requests, so that with the listens (at most half) some slots
	// are always left for requests that end.
	bridged *shareLimit

	mu  sync.Mutex               // guards writes of reg; readers load it without locking
	reg atomic.Pointer[registry] // current snapshot, never mutated once stored
}

// config is what run hands newServer.
type config struct {
	// info is the server's identity (serverInfo); the zero value means the
	// product's, serverName at serverVersion. Tests set their own, so that
	// what they check does not depend on the product's name.
	info         implementation
	instructions string
	cache        cacheHint
	pageSize     int
	modernOnly   bool
	// stateKey signs MRTR requestState; nil draws a random key per
	// process. stateTTL is its lifetime (0 means defaultStateTTL); now is
	// the clock (nil means time.Now; tests set it).
	stateKey []byte
	stateTTL time.Duration
	now      func() time.Time
	// maxSubscriptions and maxSubscriptionURIs bound subscriptions/listen;
	// 0 means the default.
	maxSubscriptions    int
	maxSubscriptionURIs int
	// inputTimeout bounds one round of bridged server-to-client requests
	// (classic_bridge.go); 0 means defaultInputTimeout.
	inputTimeout time.Duration
	// maxRequests bounds the requests served at once (0 means
	// defaultMaxRequests); requestTimeout cancels a request after it (0
	// means never); rate and burst set the tools/call rate limit per
	// principal (rate 0 is off). See limits.go.
	maxRequests    int
	requestTimeout time.Duration
	rate           float64
	burst          int
	// clientShare is the percent of each global limit one client may
	// hold (limits_share.go); 0 means defaultClientShare.
	clientShare int
}

// newServer returns a server with an empty registry.
func newServer(cfg config, logger *slog.Logger) *server {
	info := cfg.info
	if info == (implementation{}) {
		info = implementation{Name: serverName, Version: serverVersion}
	}
	s := &server{
		info:         info,
		instructions: cfg.instructions,
		cache:        cfg.cache,
		pageSize:     cfg.pageSize,
		modernOnly:   cfg.modernOnly,
		log:          logger,
		states:       newStateSealer(cfg.stateKey, cfg.stateTTL, cfg.now),
		subs:         newSubscriptionHub(cfg.maxSubscriptions, cfg.maxSubscriptionURIs, cfg.clientShare),
		inputTimeout: cfg.inputTimeout,
	}
	if s.inputTimeout <= 0 {
		s.inputTimeout = defaultInputTimeout
	}
	s.maxRequests, s.requestTimeout = cfg.maxRequests, cfg.requestTimeout
	if s.maxRequests <= 0 {
		s.maxRequests = defaultMaxRequests
	}
	s.limiter = newRateLimiter(cfg.rate, cfg.burst, cfg.now)
	s.clientShare = cfg.clientShare
	if s.clientShare <= 0 {
		s.clientShare = defaultClientShare
	}
	bridged := max(1, int64(s.maxRequests)/4)
	s.bridged = newShareLimit(bridged, s.share(bridged, shareFloor))
	s.serverInfoJSON, _ = json.Marshal(s.info)
	s.reg.Store(&registry{published: true})
	return s
}

// registry returns the current snapshot. Callers must not modify it.
func (s *server) registry() *registry { return s.reg.Load() }

// update applies change to a copy of the registry, stores the copy, and
// then announces the lists that changed to subscribers: a client that
// re-lists on the notification sees the new snapshot or a later one.
// Readers never see a half-made change; a change that panics (a duplicate
// registration) stores nothing.
func (s *server) update(change func(r *registry)) {
	prev, next := s.swap(change)
	s.publishChanges(prev, next)
}

// swap stores change applied to a copy of the current snapshot and
// returns both snapshots. Writers are serialised; readers never wait.
func (s *server) swap(change func(r *registry)) (prev, next *registry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	prev = s.reg.Load()
	next = prev.clone()
	change(next)
	next.published = true
	s.reg.Store(next)
	return prev, next
}
