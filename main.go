// Command baremcp is a Model Context Protocol server in one dependency-free
// binary.
//
// # Synopsis
//
//	baremcp [flags]                 serve MCP on stdin/stdout
//	baremcp -http 127.0.0.1:8080    serve Streamable HTTP at /mcp (not in the stdio build)
//	baremcp -version                print the version and exit
//	baremcp -version -v             and what the process may touch once confined
//	baremcp -h                      print every flag of this build
//
// # Description
//
// baremcp serves the modern, stateless MCP revision 2026-07-28 (every
// request carries its protocol version and client capabilities in
// params._meta; nothing is remembered between requests) and, side by side,
// the handshake-era revisions 2025-11-25, 2025-06-18, 2025-03-26 and
// 2024-11-05 to clients that open with initialize. A request whose _meta
// names a protocol version is always served as modern. When a tool, prompt
// or resource asks for input, a modern client gets an input_required
// result and retries; a handshake-era client is sent real
// elicitation/create, sampling/createMessage or roots/list requests.
//
// On stdio it reads one JSON-RPC message per line from standard input and
// writes one per line to standard output; logs go to standard error. It
// exits 0 when standard input ends, after answering every request it read.
// With -http it serves Streamable HTTP at /mcp (and the 2024-11-05
// HTTP+SSE transport at /sse), the probes /healthz and /readyz, and on
// SIGINT or SIGTERM drains and exits 0; docs/HTTP.md and
// docs/OPERATIONS.md describe it. go build -tags stdio builds the server
// without the HTTP wing: stdio only, no net/http, TLS, OAuth or metrics.
//
// # Flags
//
// README.md's flag tables document every flag and its default; baremcp -h
// prints those of the build at hand. A flag that depends on another
// follows the flags given (-max-requests 4 alone starts with 2
// subscriptions); only flags given together that contradict each other
// are refused, with a message naming both.
//
// # Environment
//
//	BAREMCP_STATE_KEY     the requestState secret (at least 32 bytes), when -state-key-file
//	                      is not given. Generate one with: head -c 32 /dev/urandom | base64
//	BAREMCP_TOKEN         the single bearer token when -token-file is not given (HTTP only)
//
// Both are taken out of the process environment as soon as it starts
// (child processes and tools never see them; /proc/PID/environ still
// shows the environment the process was started with, so prefer the
// files). A secret file that group or others may read or write is warned
// about at start. Their prefix is the server's name (serverName) in upper
// case: a server renamed shouter reads SHOUTER_TOKEN and SHOUTER_STATE_KEY.
//
// # State
//
// The registry of tools, prompts and resources lives in memory, built at
// start-up and changed while serving only by the server's own code. A
// handshake-era session lives for the stdio connection, or over HTTP
// until DELETE, -session-idle or shutdown. Tasks live in the process that
// created them, bound to the principal that created them, until -task-ttl
// after they finish. Nothing is written anywhere. A multi round-trip
// request keeps nothing on the server: its state travels in requestState,
// signed with HMAC-SHA256 under a key that is random per process unless
// -state-key-file or BAREMCP_STATE_KEY gives one (give every replica the
// same).
//
// # Example
//
//	→ {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"},
//	     "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
//	← {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}],
//	     "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"baremcp","version":"(devel)"}}}}
//
// # Security
//
// Every peer message is decoded strictly (duplicate keys, keys imitating a
// protocol name by case folding, NUL in keys are refused), every read is
// bounded, tool arguments are validated against the tool's schema, and
// internal error details go to standard error, never to the peer.
// requestState is bound to the method, its target, the arguments and the
// caller, expires after -state-ttl, and is verified before any of it is
// read; it is signed, not encrypted. Over HTTP the defaults are the safe
// ones: loopback only, Host and Origin checked, and a non-loopback address
// refused without a token or -oauth-issuer unless
// -allow-public-without-auth says otherwise. No log line holds a token, a
// requestState or the state key.
//
// Once it serves, the process cannot touch what it was not given. After
// the flags are read, the secrets loaded and the listeners bound, and
// before the first message is read, every thread gets no_new_privs and,
// on Linux, a Landlock domain (-confine, on by default): files are read,
// written and executed only where the registry declared (addNeeds) or
// -allow-read and -allow-write say, TCP connections go only to the
// declared ports, nothing listens anew, and no other process is
// signalled. A tool's refused system call is a tool error in the system's
// words ("open: permission denied"). The first log lines, and -version
// -v, say what the process may touch and what this kernel enforces. Build
// the full server with CGO_ENABLED=0 (the stdio build has no cgo): with cgo
// Go cannot restrict every thread, and the process starts unconfined
// (-confine=required refuses to).
// docs/SECURITY.md has the threat model.
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
		return printVersion(stdout, cfg, getenv)
	}
	// The log waits for more lines (logLinger) and is written by its
	// timer, never by a request: a stalled stderr drops lines instead of
	// holding requests (logSink).
	cfg.logs.linger = logLinger
	logger, access, sink := newLogger(cfg.logs, stderr)
	// Deferred first, so run last: every line logged is written before
	// run returns (or dropped, when stderr is stalled).
	defer sink.close()
	cfg.access, cfg.logSink = access, sink
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
	// The process confines itself once the listeners are bound, before
	// the first message is read (confine.go).
	return s.serveTransport(ctx, stdin, stdout, s.confiner(getenv))
}

// parseFlags turns the command line (and the environment, for secrets)
// into the server's config. The HTTP wing registers and checks its own
// flags (httpFlags; absent from the stdio build, which knows none of
// them). Usage and flag errors are written to stderr; -h returns
// flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer, getenv func(string) string) (config, error) {
	var cfg config
	fs, stateKeyFile, remote := flagSet(&cfg, stderr)
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
	if err := cfg.confine.check(set, cfg.printVersion); err != nil {
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
	if cfg.pingInterval < 0 {
		return config{}, errors.New("-ping-interval must not be negative")
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

// flagSet returns a flag set with every flag of this build registered:
// the core's, landing in cfg, and the HTTP wing's (httpFlags), landing in
// remote. README's flag tables list exactly these (TestREADMEFlags).
func flagSet(cfg *config, stderr io.Writer) (fs *flag.FlagSet, stateKeyFile *string, remote *httpConfig) {
	fs = flag.NewFlagSet(serverName, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.DurationVar(&cfg.cache.TTL, "cache-ttl", time.Minute, "`duration` clients may cache list, discover and read results (ttlMs)")
	fs.StringVar(&cfg.cache.Scope, "cache-scope", scopePublic, "cacheScope of server/discover and list results: public or private (resources/read is private)")
	fs.IntVar(&cfg.pageSize, "page-size", 0, "items per page of list results; 0 means one page")
	fs.BoolVar(&cfg.modernOnly, "modern-only", false, "serve only the modern era: refuse the classic initialize handshake")
	stateKeyFile = fs.String("state-key-file", "", "`path` of the secret (at least 32 bytes) that signs requestState; default $"+envStateKey+", else random per process")
	fs.DurationVar(&cfg.stateTTL, "state-ttl", defaultStateTTL, "`duration` a requestState stays valid")
	fs.IntVar(&cfg.maxSubscriptions, "max-subscriptions", defaultMaxSubscriptions, "subscriptions/listen requests open at once")
	fs.IntVar(&cfg.maxSubscriptionURIs, "max-subscription-uris", defaultMaxSubscriptionURIs, "resourceSubscriptions per subscriptions/listen request")
	fs.DurationVar(&cfg.pingInterval, "ping-interval", 0, "ping classic clients every `duration` and notice one that does not answer within it (stdio: logged; HTTP: the session ends); 0 means never")
	fs.DurationVar(&cfg.inputTimeout, "input-timeout", defaultInputTimeout, "`duration` a classic client has to answer the server's elicitation, sampling or roots requests")
	fs.DurationVar(&cfg.requestTimeout, "request-timeout", defaultRequestTimeout, "cancel a request after `duration`; 0 means never")
	fs.BoolVar(&cfg.printVersion, "version", false, "print the version and VCS revision of this binary, and exit")
	limitFlags(fs, &cfg.limits)
	logFlags(fs, &cfg.logs)
	taskFlags(fs, &cfg.tasks)
	confineFlags(fs, &cfg.confine)
	return fs, stateKeyFile, httpFlags(fs, cfg)
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
