// Command baremcp is a Model Context Protocol server in one dependency-free
// binary.
//
// # Synopsis
//
//	baremcp [flags]                 serve MCP on stdin/stdout
//	baremcp -http 127.0.0.1:8080    serve Streamable HTTP at /mcp
//	baremcp -version                print the version and exit
//
// # Description
//
// baremcp serves the modern, stateless MCP revision 2026-07-28: every
// request carries its protocol version and client capabilities in
// params._meta, every result carries resultType and the server's identity,
// and nothing is remembered between requests.
//
// Side by side with it, it serves the classic revisions 2025-11-25,
// 2025-06-18, 2025-03-26 (with its JSON-RPC batches) and 2024-11-05 to
// clients that open with initialize: the
// handshake opens a session (for the stdio connection, or per
// Mcp-Session-Id over HTTP), and requests without the modern _meta are then
// answered in the negotiated revision's shape. When a tool, prompt or
// resource asks for input, a classic client is sent real elicitation/create,
// sampling/createMessage or roots/list requests and the handler runs again
// with its answers.
// A request that carries io.modelcontextprotocol/protocolVersion in _meta
// is always served as modern, before or after initialize.
//
// On stdio it reads one JSON-RPC message per line from standard input and
// writes one per line to standard output; logs go to standard error. It
// exits 0 when standard input ends, after answering every request it read.
//
// With -http it serves Streamable HTTP instead: each JSON-RPC request is
// one POST to /mcp, answered with application/json, or with a
// text/event-stream carrying the request's progress and log notifications
// and then its response. A notification POST gets 202. Closing the response
// cancels the request. Classic clients get the 2025-11-25 transport:
// initialize returns an Mcp-Session-Id that later requests carry (missing:
// 400, unknown or ended: 404), GET with it opens the session's event stream,
// DELETE ends it, and the client's answers to server requests are POSTed
// back (202). Without a session GET gets 405; with -modern-only GET and
// DELETE get 405 and session ids are ignored. Clients that only know the
// 2024-11-05 HTTP+SSE transport open GET /sse, whose first event names
// where to POST (/messages?sessionId=...); answers come on that stream
// (not with -modern-only). GET /healthz answers 200 while the process
// serves, GET /readyz 200 until shutdown begins and 503 from then on;
// neither checks Host, Origin or the token. On SIGINT or SIGTERM /readyz
// turns 503, the server keeps serving for -shutdown-delay (so that a load
// balancer drains it), then stops accepting, lets requests in flight
// finish (up to -shutdown-timeout), and exits 0. A second signal ends it
// at once.
//
// # Flags
//
//	-cache-ttl DURATION   ttlMs on cacheable results (default 1m)
//	-cache-scope SCOPE    cacheScope on server/discover and list results: public or private
//	                      (default public); resources/read results are private unless the
//	                      resource sets its own Cache, since a read may depend on who asks
//	-page-size N          items per page of list results; 0 means one page (default 0)
//	-http ADDR            serve Streamable HTTP at http://ADDR/mcp; a bare port
//	                      ("8080" or ":8080") binds 127.0.0.1
//	-allow-origin ORIGIN  also accept browser requests from ORIGIN
//	                      (scheme://host[:port]); repeatable
//	-max-body BYTES       largest request body, at most 1 GiB (default 4194304)
//	-request-timeout D    cancel a request after D (stdio and HTTP; not subscriptions/listen);
//	                      its answer is -32603 "request timed out"; 0 means never (default 5m)
//	-max-requests N       requests served at once: per stdio connection (reading
//	                      pauses) and in total over HTTP (a request waits up to 2s,
//	                      then gets 503 with code -31503) (default 256, or twice
//	                      -max-subscriptions when only that is set)
//	-max-connections N    open HTTP connections; more wait to be accepted (default 1024)
//	-client-share PERCENT the part of each global limit one client (its principal, else its
//	                      IP address) may hold: requests in flight and their bytes, connections,
//	                      sessions, subscriptions, watched URIs, requests awaiting the client's
//	                      answers; 100 turns shares off (default 25)
//	-rate-limit R         tools/call per second per caller (over HTTP its principal,
//	                      else its IP address); over it a call gets
//	                      code -31429 (HTTP 429, Retry-After); 0 is off (default 50
//	                      over HTTP; off on stdio, whose one client is the user's agent)
//	-trusted-proxy NET    believe X-Forwarded-For from the proxies at NET (an address or a
//	                      CIDR network; repeatable; none by default): a caller without a
//	                      principal is then counted by its client's address, the first one
//	                      from the right that is not a trusted proxy
//	-rate-burst N         calls a caller may make at once before -rate-limit applies;
//	                      0 means max(1, R) (default 100 with the default HTTP rate);
//	                      refused where no rate limit applies
//	-shutdown-timeout D   how long shutdown waits for requests in flight (default 10s)
//	-token-file PATH      require "Authorization: Bearer TOKEN" with a token from PATH: one
//	                      token, or lines NAME TOKEN [SCOPE...] (TOKEN may be sha256:HEX);
//	                      a token is at least 32 bytes of letters, digits and -._~+/
//	                      (openssl rand -hex 32)
//	-oauth-issuer URL     act as an OAuth 2.1 resource server of this authorization server
//	                      (https, or http on loopback); see Authorization below
//	-oauth-resource URL   this server's canonical URI, the audience its tokens must name
//	                      (default http://HOST:PORT/mcp, only when -http binds loopback)
//	-oauth-audience V     also accept tokens whose aud is V (repeatable)
//	-oauth-jwks URL       the authorization server's key set (default: from its metadata)
//	-oauth-introspect URL RFC 7662 endpoint for tokens that are not JWTs, with
//	-oauth-introspect-credentials PATH  this server's client id and secret (two lines)
//	-oauth-scopes "A B"   scopes every request needs (advertised in metadata and challenges)
//	-scope-implies B=N,M  a token with scope B also holds N and M (repeatable)
//	-scope-filter-lists   list only the tools, prompts and resources the caller may use
//	-allow-public-without-auth
//	                      start on a non-loopback -http address without a token or
//	                      -oauth-issuer; without it such a start is refused, since anyone
//	                      who reaches the address could call every tool
//	-modern-only          refuse the classic initialize handshake (its error names the supported versions)
//	-max-sessions N       classic HTTP sessions open at once (default 1000)
//	-session-idle D       end a classic HTTP session unused for D (default 30m)
//	-sse-keepalive D      send an SSE comment on long-lived HTTP streams (subscriptions/listen,
//	                      the classic GET stream) every D (default 15s)
//	-input-timeout D      how long a classic client has to answer the server's elicitation,
//	                      sampling or roots requests (default 5m)
//	-state-key-file PATH  file holding the secret (at least 32 bytes) that signs requestState;
//	                      a file of text (base64, hex) is trimmed, any other is used byte for byte
//	-state-ttl DURATION   how long a requestState stays valid (default 10m)
//	-max-subscriptions N  subscriptions/listen requests open at once across the server,
//	                      at most half of -max-requests (default 32, or half of
//	                      -max-requests when only that is set: none at 1)
//	-max-subscription-uris N
//	                      resourceSubscriptions (and taskIds) per listen request (default 256)
//	-max-tasks N          tasks held at once, running or finished and not yet forgotten;
//	                      one client (principal, else address) may hold its -client-share
//	                      of them; its oldest finished task makes room (default 1024)
//	-task-timeout D       fail a task still running after D (default 1h)
//	-task-ttl D           keep a finished task's result for D, then forget it (default 10m)
//	-replica-id NAME      start every task id and every /sse session id with NAME and a dot
//	                      (a-z, 0-9, -; at most 32), so a load balancer can route tasks/* by
//	                      their Mcp-Name header and /messages by its sessionId (docs/DEPLOY.md)
//	-shutdown-delay D     on SIGINT/SIGTERM, answer /readyz with 503 and keep serving
//	                      for D before the listener closes (default 0)
//	-log-format FORMAT    log lines as text (logfmt) or json (default text)
//	-log-level LEVEL      least severe level logged: debug, info, warn, error (default info)
//	-access-log           one log line per request at info level; -access-log=false
//	                      turns them off (default on)
//	-metrics ADDR         serve Prometheus metrics at http://ADDR/metrics, nothing else;
//	                      a bare port binds 127.0.0.1 (default off)
//	-version              print the module version, VCS revision and Go release, and exit
//
// A flag that depends on another follows the flags given: -max-requests 4
// alone starts with 2 subscriptions. Only flags given together that
// contradict each other are refused, with a message naming both.
//
// # Environment
//
//	BAREMCP_TOKEN         the single bearer token when -token-file is not given (HTTP only)
//	BAREMCP_STATE_KEY     the requestState secret (at least 32 bytes), when -state-key-file
//	                      is not given. Generate one with: head -c 32 /dev/urandom | base64
//
// Both are taken out of the process environment as soon as it starts
// (child processes and tools never see them; /proc/PID/environ still
// shows the environment the process was started with, so prefer the
// files). A secret file that group or others may read or write is
// warned about at start. Their prefix is the server's name (serverName)
// in upper case: a server renamed shouter reads SHOUTER_TOKEN and
// SHOUTER_STATE_KEY.
//
// # Logs, traces and metrics
//
// Logs go to standard error in -log-format: slog's lines, and one access
// line per request with its id, transport, era, protocol version, method,
// tool, prompt or resource name, principal, client address, outcome, code,
// duration and trace ids. Values the client chose are escaped and cut at
// 256 bytes. A request's W3C trace context is read from _meta.traceparent
// and tracestate (SEP-414), else from the HTTP traceparent header, else a
// trace is started; a malformed one is ignored. Handlers read it with
// req.Trace() and pass it on with its Traceparent(). With -metrics,
// requests by method, era, transport and outcome, latency histograms per
// method, requests in flight, open sessions, subscriptions, SSE streams
// and tasks, rate-limit and busy refusals, authentication failures by
// reason and the build are served in the Prometheus text format. The
// version (-version, serverInfo.version) is the module version the go
// command stamped into the binary, "(devel)" when it stamped none.
// docs/OPERATIONS.md lists every field and metric.
//
// # Subscriptions
//
// A client that sends subscriptions/listen is acknowledged with
// notifications/subscriptions/acknowledged, then told when the tool,
// prompt or resource lists change and when a watched resource is updated,
// each notification tagged with the listen request's id. Over HTTP the
// response is an event stream that stays open, with a keep-alive comment
// every -sse-keepalive. It ends when the client sends
// notifications/cancelled for that id (stdio) or closes the stream
// (HTTP), or when the server shuts down (standard input ends, or
// SIGINT/SIGTERM): the listen request is then answered with a result, the
// graceful closure.
//
// Classic sessions are told of list changes once the client has sent
// notifications/initialized (notifications/tools/list_changed and the
// like: a line on stdio, an event on the session's GET stream over HTTP),
// and of updates to the resources they watch with resources/subscribe
// (notifications/resources/updated). Try it with the demo: call
// toggle_extra_tool, or watch demo://clock, which changes every few
// seconds.
//
// # Authorization
//
// Over HTTP, -token-file or -oauth-issuer make every request need a bearer
// token; stdio needs none (the client started the process). With
// -oauth-issuer baremcp is the OAuth 2.1 resource server the MCP spec
// describes: a request without a token gets 401 with a challenge naming
// its protected resource metadata (RFC 9728, served at
// /.well-known/oauth-protected-resource/mcp and at the root), from which
// the client finds the authorization server and obtains a token for this
// resource. JWT access tokens are verified against the authorization
// server's keys (found from its metadata at the first request, cached,
// refetched for an unknown kid at most every 10s; a request waits at most
// 2s for them): RS256, PS256, ES256 or EdDSA, the exact issuer, this
// resource as audience, exp, nbf and iat with 30s leeway. Other tokens are
// introspected with -oauth-introspect, or refused. A token lacking a scope
// (-oauth-scopes, or one a tool, prompt or resource declares) gets 403
// insufficient_scope naming the scopes needed, before any handler runs.
//
// The caller's principal is its token's issuer and subject (ISSUER#SUB), or
// a static token's name: it owns its classic sessions and requestState, has
// its own rate-limit bucket, is what handlers read (req.Principal,
// req.Scopes), and is named in the access line of each request (with
// -access-log=false, an audit line), never with the token. See
// docs/AUTH.md for identity providers.
//
// # Tasks
//
// A tool registered with Task: taskMay (the demo's slow) or taskMust may run
// as a task (the tasks extension, io.modelcontextprotocol/tasks, SEP-2663,
// advertised in server/discover): a modern tools/call whose _meta declares
// the extension in its client capabilities is answered at once with
// resultType "task" and a taskId, and the tool runs in the background. The
// client polls tasks/get (working, input_required with the task's
// inputRequests, then completed with the result, failed with the error, or
// cancelled), answers input with tasks/update, and stops the task with
// tasks/cancel; subscriptions/listen with notifications.taskIds pushes each
// change as notifications/tasks. Over HTTP, tasks/* carry the task id in
// Mcp-Name. A request that does not declare the extension never gets a
// task (a taskMust tool answers it -32021), and classic sessions never see
// one.
//
//	→ {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"steps":50},
//	     "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
//	       "io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}
//	← {"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"JZ3P…","status":"working",
//	     "statusMessage":"the task is running","createdAt":"…","lastUpdatedAt":"…","ttlMs":600000,"pollIntervalMs":1000,"_meta":{…}}}
//	→ {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"JZ3P…","_meta":{…}}}
//	← {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","taskId":"JZ3P…","status":"completed",…,
//	     "result":{"resultType":"complete","content":[{"type":"text","text":"done after 50 steps"}]},"_meta":{…}}}
//
// # State
//
// The registry of tools, prompts and resources lives in memory. It is
// built at start-up and may change while serving (the demo's
// toggle_extra_tool). A classic session (negotiated version, client
// capabilities, log level, server requests awaiting an answer) lives in
// memory for the life of the stdio connection, or over HTTP until DELETE,
// -session-idle without use, or shutdown. No state is written anywhere;
// subscriptions end with the process.
//
// Tasks live in memory, in the process that created them, bound to the
// principal that created them: a finished task is kept -task-ttl, then
// forgotten; on shutdown every task still running fails ("server shutting
// down") before the drain, and none survives a restart or is known to
// another replica (-replica-id routes tasks/* to the owner).
//
// When a tool, prompt or resource needs more from the client (a user's
// answer, a model completion, the client's roots), the server answers
// resultType "input_required" with the requests and a requestState, and
// forgets the request: everything it needs on the retry travels inside
// requestState, signed with HMAC-SHA256. Without -state-key-file or
// BAREMCP_STATE_KEY the signing key is random per process, so a
// requestState does not survive a restart and is not accepted by another
// replica; give every replica the same secret to let them share it.
//
// # Example
//
//	→ {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"},
//	     "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
//	← {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}],
//	     "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"baremcp","version":"(devel)"}}}}
//
// Over HTTP:
//
//	curl -s http://127.0.0.1:8080/mcp -H 'Content-Type: application/json' \
//	  -H 'Accept: application/json, text/event-stream' \
//	  -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: server/discover' \
//	  -d '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{
//	       "io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
//
// # Security
//
// Every peer message is decoded strictly: duplicate keys, keys that imitate
// a protocol name by case folding, and NUL in keys are refused before any
// method runs. Tool arguments are validated against the tool's schema.
// Internal error details go to standard error, never to the peer.
//
// requestState is bound to the method, the tool, prompt or resource, the
// arguments and the caller, expires after -state-ttl, and is verified
// before any of it is read. Only answers to what the previous round asked
// (the set travels signed in requestState) are read from inputResponses,
// each checked against the request that asked it; any other is ignored. It is not single use: the same client may
// replay it on the same request until it expires. It is signed, not
// encrypted: the client can read the answers it carries. Keep the secret
// out of process listings (prefer -state-key-file to the environment in
// shared environments). See docs/SECURITY.md.
//
// Over HTTP the defaults are the safe ones. The server binds loopback unless
// told otherwise, and then accepts only a Host naming loopback (localhost or
// a loopback IP), which defeats DNS rebinding. A request with an Origin
// other than the server's own loopback origins or an -allow-origin gets 403.
// Bodies over -max-body get 413 unread; JSON-RPC batches, requests whose
// mirrored headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name,
// Mcp-Param-*) contradict the body, and wrong content types are refused.
// A task id is 128 random bits and answers only the principal that created
// the task; any other caller gets the answer of an unknown id.
//
// There is no authentication unless a token or -oauth-issuer is configured,
// so a non-loopback -http address (where the Host check is off) refuses to
// start without one, unless -allow-public-without-auth says the operator
// accepts it. Static bearer tokens are the minimal protection for a private
// deployment, not a replacement for TLS and OAuth on a public one: bind a
// non-loopback address only behind a TLS-terminating proxy, and give it
// -oauth-issuer and -oauth-resource (its public https URL). Tokens are never
// logged, forwarded, or accepted in the query string.
// No log line holds a token (the principal is its name or digest), a
// requestState or the state key. The metrics listener has no
// authentication: keep it on loopback or a private network.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal begins a graceful shutdown; a second one, during
	// the drain, gets the default action: the process ends at once.
	context.AfterFunc(ctx, stop)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, takeSecrets(os.Getenv, os.Unsetenv))
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, serverName+":", err)
		os.Exit(1)
	}
}

// run is the whole program: it parses args, builds the server and serves
// until the transport ends or ctx is cancelled.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, err := parseFlags(args, stderr, getenv)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if cfg.printVersion {
		_, err := fmt.Fprintln(stdout, readBuild())
		return err
	}
	if cfg.transport == transportStdio {
		// Over stdio the log waits for more lines (logLinger); over HTTP
		// each line is written by the request that logged it, and lines
		// meet in one write only when requests overlap: measured both
		// ways, each is the cheaper on its transport (PERFORMANCE.md).
		cfg.logs.linger = logLinger
	}
	logger, access, closeLog := newLogger(cfg.logs, stderr)
	// Deferred first, so run last: every line logged is written before
	// run returns.
	defer closeLog()
	cfg.access = access
	for _, w := range cfg.warnings {
		logger.Warn(w.msg, w.args...)
	}
	if cfg.stateKey == nil && cfg.transport == transportHTTP {
		// Over stdio the state lives and dies with the one client's
		// process, so there is nothing to warn of (and every start of a
		// local agent's server would write it).
		logger.Warn("requestState key is random for this process: state will not survive a restart", "set", "-state-key-file or "+envStateKey)
	}
	s := newServer(cfg, logger)
	stop := buildRegistry(s, getenv)
	defer stop()
	// Tasks outlive the requests that created them, not the process: the
	// tasks still running fail ("server shutting down") and their
	// handlers are awaited once serving ends (serveHTTP ends them earlier,
	// at the start of its drain).
	defer s.tasks.shutdown()
	return s.serveTransport(ctx, stdin, stdout)
}

// parseFlags turns the command line (and the environment, for secrets)
// into the server's config. The HTTP wing registers and checks its own
// flags (httpFlags; absent from the stdio build, which knows none of
// them). Usage and flag errors are written to stderr; -h returns
// flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer, getenv func(string) string) (config, error) {
	var cfg config
	fs := flag.NewFlagSet(serverName, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.DurationVar(&cfg.cache.TTL, "cache-ttl", time.Minute, "`duration` clients may cache list, discover and read results (ttlMs)")
	fs.StringVar(&cfg.cache.Scope, "cache-scope", scopePublic, "cacheScope of server/discover and list results: public or private (resources/read is private)")
	fs.IntVar(&cfg.pageSize, "page-size", 0, "items per page of list results; 0 means one page")
	fs.BoolVar(&cfg.modernOnly, "modern-only", false, "serve only the modern era: refuse the classic initialize handshake")
	stateKeyFile := fs.String("state-key-file", "", "`path` of the secret (at least 32 bytes) that signs requestState; default $"+envStateKey+", else random per process")
	fs.DurationVar(&cfg.stateTTL, "state-ttl", defaultStateTTL, "`duration` a requestState stays valid")
	fs.IntVar(&cfg.maxSubscriptions, "max-subscriptions", defaultMaxSubscriptions, "subscriptions/listen requests open at once")
	fs.IntVar(&cfg.maxSubscriptionURIs, "max-subscription-uris", defaultMaxSubscriptionURIs, "resourceSubscriptions per subscriptions/listen request")
	fs.DurationVar(&cfg.inputTimeout, "input-timeout", defaultInputTimeout, "`duration` a classic client has to answer the server's elicitation, sampling or roots requests")
	fs.DurationVar(&cfg.requestTimeout, "request-timeout", defaultRequestTimeout, "cancel a request after `duration`; 0 means never")
	fs.BoolVar(&cfg.printVersion, "version", false, "print the version and VCS revision of this binary, and exit")
	limitFlags(fs, &cfg.limits)
	logFlags(fs, &cfg.logs)
	taskFlags(fs, &cfg.tasks)
	remote := httpFlags(fs, &cfg)
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	// set names the flags the command line gave. A default that depends
	// on another flag is derived from the flags the operator set; only a
	// contradiction between flags the operator wrote is refused.
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if cfg.cache.TTL < 0 {
		return config{}, errors.New("-cache-ttl must not be negative")
	}
	if cfg.cache.Scope != scopePublic && cfg.cache.Scope != scopePrivate {
		return config{}, fmt.Errorf("-cache-scope must be public or private, not %q", cfg.cache.Scope)
	}
	if cfg.pageSize < 0 {
		return config{}, errors.New("-page-size must not be negative")
	}
	if cfg.stateTTL <= 0 {
		return config{}, errors.New("-state-ttl must be positive")
	}
	if cfg.requestTimeout < 0 {
		return config{}, errors.New("-request-timeout must not be negative")
	}
	if err := cfg.limits.check(); err != nil {
		return config{}, err
	}
	if err := cfg.tasks.check(); err != nil {
		return config{}, err
	}
	subs, err := deriveSubscriptions(set, &cfg.limits, cfg.maxSubscriptions)
	if err != nil {
		return config{}, err
	}
	cfg.maxSubscriptions = subs
	if cfg.maxSubscriptionURIs < 1 {
		return config{}, errors.New("-max-subscription-uris must be at least 1")
	}
	if cfg.inputTimeout <= 0 {
		return config{}, errors.New("-input-timeout must be positive")
	}
	var warnings []startupWarning
	warn := func(msg string, args ...any) { warnings = append(warnings, startupWarning{msg, args}) }
	if cfg.stateKey, err = loadStateKey(*stateKeyFile, getenv, warn); err != nil {
		return config{}, err
	}
	if err := remote.settle(&cfg, set, getenv, warn); err != nil {
		return config{}, err
	}
	if err := cfg.limits.deriveRate(set, cfg.transport == transportHTTP); err != nil {
		return config{}, err
	}
	cfg.warnings = warnings
	return cfg, nil
}

// deriveSubscriptions settles -max-subscriptions against -max-requests and
// returns the subscriptions that may be open at once (noSubscriptions for
// none). Each open subscription holds a request slot for its lifetime, and
// the stdio reader stops reading while every slot is taken, so at most
// half the slots may hold subscriptions: the rest stay free for requests
// that end. The flag the operator did not set adapts to the one they did
// (-max-requests 4 alone allows 2 subscriptions; -max-subscriptions 200
// alone raises -max-requests to 400); only the two set together and
// contradicting each other are refused.
func deriveSubscriptions(set map[string]bool, limits *limitConfig, maxSubs int) (int, error) {
	switch {
	case set["max-subscriptions"] && maxSubs < 1:
		return 0, errors.New("-max-subscriptions must be at least 1")
	case set["max-subscriptions"] && set["max-requests"]:
		if maxSubs > limits.maxRequests/2 {
			return 0, fmt.Errorf("-max-subscriptions %d needs -max-requests %d or more, not %d: each open subscription holds a request slot, and half the slots stay free for other requests",
				maxSubs, 2*maxSubs, limits.maxRequests)
		}
	case set["max-subscriptions"]:
		limits.maxRequests = max(limits.maxRequests, 2*maxSubs)
	default:
		if maxSubs = min(maxSubs, limits.maxRequests/2); maxSubs == 0 {
			return noSubscriptions, nil // -max-requests 1: no slot to spare
		}
	}
	return maxSubs, nil
}
