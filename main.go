// Command baremcp is a Model Context Protocol server in one dependency-free
// binary.
//
// # Synopsis
//
//	baremcp [flags]                 serve MCP on stdin/stdout
//	baremcp -http 127.0.0.1:8080    serve Streamable HTTP at /mcp
//
// # Description
//
// baremcp serves the modern, stateless MCP revision 2026-07-28: every
// request carries its protocol version and client capabilities in
// params._meta, every result carries resultType and the server's identity,
// and nothing is remembered between requests.
//
// Side by side with it, it serves the classic revisions 2025-11-25,
// 2025-06-18 and 2024-11-05 to clients that open with initialize: the
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
// DELETE get 405 and session ids are ignored. On SIGINT or SIGTERM it
// stops accepting, lets requests in flight finish (up to -shutdown-timeout),
// and exits 0.
//
// # Flags
//
//	-cache-ttl DURATION   ttlMs on cacheable results (default 1m)
//	-cache-scope SCOPE    cacheScope on cacheable results: public or private (default public)
//	-page-size N          items per page of list results; 0 means one page (default 0)
//	-http ADDR            serve Streamable HTTP at http://ADDR/mcp; a bare port
//	                      ("8080" or ":8080") binds 127.0.0.1
//	-allow-origin ORIGIN  also accept browser requests from ORIGIN
//	                      (scheme://host[:port]); repeatable
//	-max-body BYTES       largest request body (default 4194304)
//	-request-timeout D    cancel a request after D (stdio and HTTP; not subscriptions/listen);
//	                      its answer is -32603 "request timed out"; 0 means never (default 5m)
//	-max-requests N       requests served at once: per stdio connection (reading
//	                      pauses) and in total over HTTP (a request waits up to 2s,
//	                      then gets 503 with code -31503) (default 256)
//	-max-connections N    open HTTP connections; more wait to be accepted (default 1024)
//	-client-share PERCENT the part of each global limit one client (its principal, else its
//	                      IP address) may hold: requests in flight and their bytes, connections,
//	                      sessions, subscriptions, watched URIs, requests awaiting the client's
//	                      answers; 100 turns shares off (default 25)
//	-rate-limit R         tools/call per second per principal (the bearer identity
//	                      on HTTP, the process on stdio); over it a call gets
//	                      code -31429 (HTTP 429, Retry-After); 0 is off (default 0)
//	-rate-burst N         calls a principal may make at once before -rate-limit
//	                      applies; 0 means max(1, R) (default 0)
//	-shutdown-timeout D   how long shutdown waits for requests in flight (default 10s)
//	-token-file PATH      require "Authorization: Bearer TOKEN", TOKEN read from PATH
//	-modern-only          refuse the classic initialize handshake (its error names the supported versions)
//	-max-sessions N       classic HTTP sessions open at once (default 1000)
//	-session-idle D       end a classic HTTP session unused for D (default 30m)
//	-sse-keepalive D      send an SSE comment on long-lived HTTP streams (subscriptions/listen,
//	                      the classic GET stream) every D (default 15s)
//	-input-timeout D      how long a classic client has to answer the server's elicitation,
//	                      sampling or roots requests (default 5m)
//	-state-key-file PATH  file holding the secret (at least 32 bytes) that signs requestState
//	-state-ttl DURATION   how long a requestState stays valid (default 10m)
//	-max-subscriptions N  subscriptions/listen requests open at once across the server,
//	                      1 to 128 (default 32)
//	-max-subscription-uris N
//	                      resourceSubscriptions per listen request (default 256)
//
// # Environment
//
//	BAREMCP_TOKEN         the bearer token when -token-file is not given (HTTP only)
//	BAREMCP_STATE_KEY     the requestState secret (at least 32 bytes), when -state-key-file
//	                      is not given. Generate one with: head -c 32 /dev/urandom | base64
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
//	     "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"baremcp","version":"0.1.0"}}}}
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
// before any of it is read. It is not single use: the same client may
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
// There is no authentication unless a token is configured; the static
// bearer token is the minimal protection for a private deployment, not a
// replacement for TLS and OAuth on a public one: bind a non-loopback address
// only behind a TLS-terminating proxy.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, serverName+":", err)
		os.Exit(1)
	}
}

// run is the whole program: it parses args, builds the server and serves
// until the transport ends or ctx is cancelled.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, httpCfg, err := parseFlags(args, stderr, getenv)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	if cfg.stateKey == nil {
		logger.Warn("requestState key is random for this process: state will not survive a restart", "set", "-state-key-file or "+envStateKey)
	}
	s := newServer(cfg, logger)
	stop := buildRegistry(s, getenv)
	defer stop()
	if httpCfg.addr != "" {
		return s.listenHTTP(ctx, httpCfg)
	}
	return s.serveStdio(ctx, stdin, stdout)
}

// parseFlags turns the command line (and the environment, for secrets)
// into the server's config and the HTTP transport's. Usage and flag errors
// are written to stderr; -h returns flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer, getenv func(string) string) (config, *httpConfig, error) {
	fs := flag.NewFlagSet(serverName, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cacheTTL := fs.Duration("cache-ttl", time.Minute, "`duration` clients may cache list, discover and read results (ttlMs)")
	cacheScope := fs.String("cache-scope", scopePublic, "cacheScope of cacheable results: public or private")
	pageSize := fs.Int("page-size", 0, "items per page of list results; 0 means one page")
	modernOnly := fs.Bool("modern-only", false, "serve only the modern era: refuse the classic initialize handshake")
	stateKeyFile := fs.String("state-key-file", "", "`path` of the secret (at least 32 bytes) that signs requestState; default $BAREMCP_STATE_KEY, else random per process")
	stateTTL := fs.Duration("state-ttl", defaultStateTTL, "`duration` a requestState stays valid")
	maxSubs := fs.Int("max-subscriptions", defaultMaxSubscriptions, "subscriptions/listen requests open at once")
	maxSubURIs := fs.Int("max-subscription-uris", defaultMaxSubscriptionURIs, "resourceSubscriptions per subscriptions/listen request")
	inputTimeout := fs.Duration("input-timeout", defaultInputTimeout, "`duration` a classic client has to answer the server's elicitation, sampling or roots requests")
	httpCfg := httpFlags(fs)
	limits := limitFlags(fs)
	if err := fs.Parse(args); err != nil {
		return config{}, nil, err
	}
	if fs.NArg() > 0 {
		return config{}, nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *cacheTTL < 0 {
		return config{}, nil, errors.New("-cache-ttl must not be negative")
	}
	if *cacheScope != scopePublic && *cacheScope != scopePrivate {
		return config{}, nil, fmt.Errorf("-cache-scope must be public or private, not %q", *cacheScope)
	}
	if *pageSize < 0 {
		return config{}, nil, errors.New("-page-size must not be negative")
	}
	if *stateTTL <= 0 {
		return config{}, nil, errors.New("-state-ttl must be positive")
	}
	if err := limits.check(); err != nil {
		return config{}, nil, err
	}
	if httpCfg.requestTimeout < 0 {
		return config{}, nil, errors.New("-request-timeout must not be negative")
	}
	httpCfg.maxConnections = limits.maxConnections
	// Each open subscription holds a request slot (-max-requests) for its
	// lifetime. The stdio reader stops reading while every slot is taken,
	// so at least half stay free for requests that end: cancellations are
	// always read.
	if *maxSubs < 1 || *maxSubs > limits.maxRequests/2 {
		return config{}, nil, fmt.Errorf("-max-subscriptions must be between 1 and %d", limits.maxRequests/2)
	}
	if *maxSubURIs < 1 {
		return config{}, nil, errors.New("-max-subscription-uris must be at least 1")
	}
	if *inputTimeout <= 0 {
		return config{}, nil, errors.New("-input-timeout must be positive")
	}
	stateKey, err := loadStateKey(*stateKeyFile, getenv)
	if err != nil {
		return config{}, nil, err
	}
	if httpCfg.addr != "" {
		if err := httpCfg.finish(getenv); err != nil {
			return config{}, nil, err
		}
	}
	return config{
		cache:        cacheHint{TTL: *cacheTTL, Scope: *cacheScope},
		pageSize:     *pageSize,
		stateKey:     stateKey,
		stateTTL:     *stateTTL,
		modernOnly:   *modernOnly,
		inputTimeout: *inputTimeout,

		maxSubscriptions:    *maxSubs,
		maxSubscriptionURIs: *maxSubURIs,

		// The request timeout is registered with the HTTP flags; it
		// applies to stdio too.
		requestTimeout: httpCfg.requestTimeout,
		maxRequests:    limits.maxRequests,
		rate:           limits.rate,
		burst:          limits.burst,
		clientShare:    limits.clientShare,
	}, httpCfg, nil
}

// envStateKey names the environment variable holding the requestState secret.
const envStateKey = "BAREMCP_STATE_KEY"

// loadStateKey returns the requestState secret from path (surrounding
// white space trimmed), else from the environment, else nil (random per
// process). A secret shorter than stateMinKeyBytes is refused.
func loadStateKey(path string, getenv func(string) string) ([]byte, error) {
	var key []byte
	source := envStateKey
	switch {
	case path != "":
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("-state-key-file: %w", err)
		}
		key, source = bytes.TrimSpace(b), "-state-key-file"
	case getenv(envStateKey) != "":
		key = []byte(strings.TrimSpace(getenv(envStateKey)))
	default:
		return nil, nil
	}
	if len(key) < stateMinKeyBytes {
		return nil, fmt.Errorf("%s: the requestState secret must be at least %d bytes", source, stateMinKeyBytes)
	}
	return key, nil
}
