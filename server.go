// The server: its identity, its settings, and the live registry it serves, replaced whole on
// every change (copy-on-write) so that a request never sees a half-made change (registry.go).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/server,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle (serverInfo).

package main

import (
	"cmp"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// implementation names a piece of MCP software (serverInfo).
type implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"` // 2025-11-25 on
	Icons       []icon `json:"icons,omitempty"`       // 2025-11-25 on
	WebsiteURL  string `json:"websiteUrl,omitempty"`  // 2025-11-25 on
}

// serverName is the product's name, written nowhere else (rename it here): serverInfo.name, the
// flag set, the log prefix, the HTTP realm, outgoing request ids, notifications/message's logger.
const serverName = "baremcp"

// build is what the binary knows of its own build (readBuild). -version prints it;
// serverInfo.version and the metrics' build_info carry version.
type build struct {
	version  string // module version ("v1.2.3", a pseudo-version), else "(devel)"
	revision string // VCS commit, "" when not stamped (go run, -buildvcs=false)
	modified bool   // the working tree had uncommitted changes
	goVer    string // the Go release that built the binary
}

// develVersion is a binary's version without a module version (-buildvcs=false, go run, go test).
const develVersion = "(devel)"

// linkedVersion is the version a release build sets at link time, "" when not set:
//
//	go build -ldflags='-X main.linkedVersion=v1.2.3' .
//
// The one package-level variable: -X sets nothing else; a build from an archive has no VCS info.
var linkedVersion string

// readBuild returns the build: the version set at link time (linkedVersion), else the module
// version go stamps ("+dirty" with local changes), and the revision (TestLinkedVersion).
// [debug.ReadBuildInfo]: https://pkg.go.dev/runtime/debug#ReadBuildInfo
func readBuild() build {
	b := build{version: develVersion, goVer: runtime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		b.version = cmp.Or(info.Main.Version, b.version)
		for _, kv := range info.Settings {
			switch kv.Key {
			case "vcs.revision":
				b.revision = kv.Value
			case "vcs.modified":
				b.modified = kv.Value == "true"
			}
		}
	}
	b.version = cmp.Or(linkedVersion, b.version)
	return b
}

// String is the line -version prints.
func (b build) String() string {
	line := serverName + " " + b.version
	if b.revision != "" {
		line += " revision " + b.revision
		if b.modified {
			line += " (modified)"
		}
	}
	return line + " " + b.goVer
}

// isName reports whether s is 1 to maxLen bytes, each an ASCII digit, a lowercase letter, an
// uppercase one when upper is set, or a byte of extra. A loop: a regular expression's bounded
// repetitions slow every start (docs/PERFORMANCE.md).
func isName(s string, maxLen int, upper bool, extra string) bool {
	if len(s) < 1 || len(s) > maxLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || upper && 'A' <= c && c <= 'Z' || strings.IndexByte(extra, c) >= 0) {
			return false
		}
	}
	return true
}

// newScopedID returns an unguessable id for state only this process holds (a task, a 2024-11-05
// session): 128 bits from crypto/rand, after "replica." when -replica-id names one, so that a load
// balancer can route it to its replica (docs/DEPLOY.md).
func newScopedID(replica string) string {
	if replica == "" {
		return rand.Text()
	}
	return replica + "." + rand.Text()
}

// server is one MCP server: its settings (config, held once, as net/http's Server is its own
// configuration), what it built from them, and the live registry. Safe for concurrent use.
type server struct {
	config
	serverInfoJSON []byte      // info encoded once, stamped on every modern result
	replies        *bufferPool // large replies' buffers, for the next (buffers.go)
	timedOut       error       // the cause of a context ended by -request-timeout (requestTimedOut)
	log            *slog.Logger
	refs           atomic.Int64     // log correlation numbers (nextRef)
	states         stateSealer      // signs and verifies MRTR requestState
	subs           *subscriptionHub // open subscriptions/listen requests
	limiter        *rateLimiter     // tools/call per principal; nil is off
	// bridged bounds the requests waiting on bridged server-to-client requests (classic_bridge.go)
	// to a quarter of -max-requests: with the listens (at most half), slots stay for others.
	bridged  *shareLimit
	metrics  *metrics    // counters, gauges, histograms (metrics_http.go; nil in the stdio build)
	draining atomic.Bool // set when shutdown begins: /readyz answers 503 (httpsse_health.go)
	tasks    *taskStore  // the tasks extension's tasks (tasks_store.go)

	mu  sync.Mutex               // guards writes of reg; readers load it without locking
	reg atomic.Pointer[registry] // current snapshot, never mutated once stored
}

// config is the server's settings, set by run's flags (or a test); newServer settles zero values.
type config struct {
	info         implementation // serverInfo; zero means serverName at the build's version
	instructions string
	cache        cacheHint // default hints for cacheable results
	pageSize     int       // list page size; 0 means one page
	modernOnly   bool      // the classic (initialize) era is off
	// stateKey signs MRTR requestState (nil: random per process) for stateTTL (0: defaultStateTTL);
	// now is the clock (nil: time.Now).
	stateKey     []byte
	stateKeyFile string // -state-key-file, read at start (a relaunch hands it over)
	stateTTL     time.Duration
	now          func() time.Time
	// maxSubscriptions and maxSubscriptionURIs bound subscriptions/listen; 0 means the default,
	// maxSubscriptions noSubscriptions none.
	maxSubscriptions    int
	maxSubscriptionURIs int
	pingInterval        time.Duration // -ping-interval, classic sessions (classic_ping.go); 0 is never
	inputTimeout        time.Duration // one round of bridged requests (classic_bridge.go); 0 means defaultInputTimeout
	requestTimeout      time.Duration // -request-timeout; 0 means never
	limits              limitConfig   // zero values mean the defaults, rate 0 is off (limits.go)
	logs                logConfig     // the logging flags (logging.go)
	access              *accessLog    // the access log; nil when off
	logSink             *logSink      // the log's writer, for its metrics
	// baseScopes, scopeImplies, filterLists: authenticated callers' scopes (scopes_http.go); zero: none.
	baseScopes   []string
	scopeImplies map[string][]string
	filterLists  bool
	tasks        taskConfig       // the task store's flags; zero values mean the defaults
	replicaID    string           // -replica-id, the prefix of newScopedID's ids; "" for none
	transport    transport        // the transport the flags chose
	http         *httpConfig      // the HTTP settings; nil in the stdio build and tests without HTTP
	printVersion bool             // -version: print the build and exit
	skillsDir    string           // -skills: the directory of skills served (skills.go); "" for none
	confine      confineConfig    // the self-confinement flags (confine.go)
	warnings     []startupWarning // what parseFlags found worth telling the operator; run logs them
	// parentGone closes when the parent dies (stdio_parent.go): serveStdio ends as at EOF. nil: never.
	parentGone <-chan struct{}
}

// newServer returns a server with an empty registry and cfg, its zero values settled to
// defaults (parseFlags, a config's one source, refuses negative ones).
func newServer(cfg config, logger *slog.Logger) *server {
	if cfg.info.Name == "" {
		cfg.info = implementation{Name: serverName, Version: readBuild().version}
	}
	cfg.inputTimeout = cmp.Or(cfg.inputTimeout, defaultInputTimeout)
	cfg.limits.maxRequests = cmp.Or(cfg.limits.maxRequests, defaultMaxRequests)
	cfg.limits.clientShare = cmp.Or(cfg.limits.clientShare, defaultClientShare)
	s := &server{config: cfg, log: logger, replies: newBufferPool(replyBuffersKept, minReplyBuffer, maxReplyBuffer),
		timedOut: &timeoutCause{after: cfg.requestTimeout}}
	s.states = newStateSealer(cfg.stateKey, cfg.stateTTL, cfg.now)
	s.subs = newSubscriptionHub(cfg.maxSubscriptions, cfg.maxSubscriptionURIs, cfg.limits.clientShare)
	s.limiter = newRateLimiter(cfg.limits.rate, cfg.limits.burst, cfg.now)
	bridged := max(1, int64(cfg.limits.maxRequests)/4)
	s.bridged = newShareLimit(bridged, s.share(bridged, shareFloor))
	s.tasks = newTaskStore(cfg.tasks, cfg.replicaID, cfg.limits.clientShare, cfg.now, s.publishTask)
	s.metrics = newMetrics(s)
	s.serverInfoJSON, _ = json.Marshal(s.info)
	s.reg.Store(&registry{published: true})
	return s
}

// describe sets serverInfo's description, icons and website address (2025-11-25 on), from
// buildRegistry before serving starts; it panics on icons or an address no revision allows.
// [§Implementation]: https://modelcontextprotocol.io/specification/2026-07-28/schema#implementation
func (s *server) describe(description, websiteURL string, icons ...icon) {
	if err := checkIcons(icons); err != nil {
		panic("describe: " + err.Error())
	}
	if websiteURL != "" {
		if u, err := url.Parse(websiteURL); err != nil || !u.IsAbs() || u.Host == "" {
			panic(fmt.Sprintf("describe: websiteUrl %q is not an absolute URL", websiteURL))
		}
	}
	s.info.Description, s.info.WebsiteURL, s.info.Icons = description, websiteURL, icons
	s.serverInfoJSON, _ = json.Marshal(s.info)
}

// setInstructions sets the instructions server/discover and initialize give the client, which
// hosts may add to their model's prompt; from buildRegistry, before serving; "" sends none.
// [§DiscoverResult]: https://modelcontextprotocol.io/specification/2026-07-28/server/discover#discoverresult
func (s *server) setInstructions(text string) { s.instructions = text }

// update applies change to a copy of the registry, stores the copy, then announces the lists
// that changed: a client that re-lists sees the new snapshot or a later one. A change that
// panics stores nothing. Writers are serialised; readers never wait.
func (s *server) update(change func(r *registry)) {
	var prev, next *registry
	func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		prev = s.reg.Load()
		next = prev.clone()
		change(next)
		next.published = true
		s.reg.Store(next)
	}()
	s.publishChanges(prev, next)
}
