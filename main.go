// Go's own listeners and dialers are plain TCP: Landlock's TCP rules
// cover IPPROTO_TCP alone, and since Go 1.24 net.Listen asks for
// Multipath TCP (docs/SECURITY.md, "Confinement").
//go:debug multipathtcp=0

// Command baremcp is a Model Context Protocol server in one dependency-free
// binary.
//
// # Synopsis
//
//	baremcp [flags]                 serve MCP on stdin/stdout
//	baremcp -http 127.0.0.1:8080    serve Streamable HTTP at /mcp (not in the stdio build)
//	baremcp -version [-v]           print the version (-v: and what the process may touch)
//	baremcp -h                      print every flag of this build
//
// # Description
//
// baremcp serves the stateless MCP revision 2026-07-28 (every request
// carries its protocol version and client capabilities in params._meta)
// and, side by side, the handshake-era revisions 2025-11-25, 2025-06-18,
// 2025-03-26 and 2024-11-05 to clients that open with initialize. A
// handler that asks for input gets a modern client an input_required
// result to retry, a handshake-era one real elicitation/create,
// sampling/createMessage or roots/list requests.
//
// On stdio it reads and writes one JSON-RPC message per line, logs to
// standard error, and exits 0, after answering every request it read,
// when standard input ends or the process that started it dies (even with
// standard input open; on Linux a SIGHUP while that process lives is then
// ignored). With -http it serves Streamable HTTP at /mcp, the
// 2024-11-05 HTTP+SSE transport at /sse and the probes, and drains on
// SIGINT or SIGTERM (docs/HTTP.md, docs/OPERATIONS.md). go build -tags
// stdio builds the stdio server alone: no net/http, TLS, OAuth or metrics.
//
// With -skills DIR it also serves every Agent Skill under DIR (each
// directory holding a SKILL.md) through the skills extension (skills/list,
// skills/get, resources/directory/read) and as skill:// resources, every
// file read once at start; a skill the format or its limits refuse stops
// the start with a message naming the file.
//
// # Flags
//
// README.md's flag tables document every flag and its default; baremcp -h
// prints those of the build at hand.
//
// # Environment
//
//	BAREMCP_STATE_KEY     the requestState secret (at least 32 bytes), when -state-key-file
//	                      is not given. Generate one with: head -c 32 /dev/urandom | base64
//	BAREMCP_TOKEN         the single bearer token when -token-file is not given (HTTP only)
//	BAREMCP_HANDOFF       set by the server alone, for the copy of itself it relaunches
//	                      confined; a process that finds it and is not confined refuses
//	                      to start (docs/SECURITY.md, "Every thread, in every build")
//
// All are taken out of the environment at start, so tools never see them
// (/proc/PID/environ does: prefer the files). The prefix is serverName in
// upper case: a server renamed shouter reads SHOUTER_TOKEN.
//
// # State
//
// Nothing is written anywhere. The registry lives in memory; a
// handshake-era session lives for the stdio connection, or over HTTP
// until DELETE, -session-idle or shutdown; a task lives in its process,
// bound to its creator, until -task-ttl after it ends. A multi
// round-trip request keeps its state in requestState, signed with
// HMAC-SHA256 under a key random per process unless -state-key-file or
// BAREMCP_STATE_KEY gives one (give every replica the same).
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
// Peer input is decoded strictly and bounded, tool arguments are checked
// against the tool's schema, internal errors go to standard error only, and
// no log line holds a secret. requestState is bound to the method, target,
// arguments and caller, expires (-state-ttl) and is verified before it is
// read; it is signed, not encrypted. HTTP listens on loopback by default,
// checks Host and Origin, and refuses a public address without authentication
// unless -allow-public-without-auth. Before the first message the process
// confines itself (-confine; on Linux Landlock, no_new_privs, a seccomp
// filter, no capability) to what the registry and -allow-* declare; a binary
// that links cgo, or that starts as root, does so by executing itself again
// from one restricted thread. docs/SECURITY.md has the threat model.
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

// main runs run on the process's streams; only it exits.
func main() {
	ctx, cancel := context.WithCancel(context.Background())
	// The handlers are installed beside the start-up: os/signal starts a
	// thread and waits until it runs (docs/PERFORMANCE.md, cold start). A
	// signal before they are in place ends the process.
	go func() {
		signalled, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		<-signalled.Done()
		// The first signal begins a graceful shutdown; a second ends the process.
		stop()
		cancel()
	}()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, takeSecrets(os.Getenv, os.Unsetenv))
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, serverName+":", err)
		os.Exit(1)
	}
}

// run is the whole program: it parses args, builds the server and serves
// until the transport ends or ctx is cancelled.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	// First a relaunched process's handoff, its secrets (confine_relaunch.go).
	handoff, getenv, err := takeHandoff(getenv)
	if err != nil {
		return err
	}
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
	cfg.confine.handoff = handoff
	if cfg.confine.settleRoute(); cfg.confine.route == routeRelaunch {
		if err := relaunch(&cfg, args, getenv); err != nil {
			return err
		}
	}
	cfg.logs.linger = logLinger
	logger, access, sink := newLogger(cfg.logs, stderr)
	// Deferred first, so run last: every line is written (or, past logCloseWait
	// on a stalled stderr, dropped) before run returns.
	defer sink.close()
	cfg.access, cfg.logSink = access, sink
	for _, w := range cfg.warnings {
		logger.Warn(w.msg, w.args...)
	}
	if cfg.transport == transportStdio {
		// Before confinement: a stdio server lives as its parent does (stdio_parent.go).
		parent := watchParent(logger)
		defer parent.stop()
		cfg.parentGone = parent.gone
	}
	if cfg.stateKey == nil && cfg.transport == transportHTTP {
		// Over stdio the state dies with the one client's process.
		logger.Warn("requestState key is random for this process: state will not survive a restart", "set", "-state-key-file or "+envStateKey)
	}
	s := newServer(cfg, logger)
	stop := buildRegistry(s, getenv)
	defer stop()
	if cfg.skillsDir != "" {
		set, err := s.addSkillDir(cfg.skillsDir)
		if err != nil {
			return err
		}
		logger.Info("skills read", "dir", cfg.skillsDir, "skills", len(set.skills), "files", len(set.files))
	}
	// Once serving ends, tasks still running fail and are awaited.
	defer s.tasks.shutdown()
	return s.serveTransport(ctx, stdin, stdout, s.confiner(getenv))
}

// parseFlags turns the command line (and the environment's secrets) into
// the server's config, writing usage and flag errors to stderr; -h
// returns flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer, getenv func(string) string) (config, error) {
	var cfg config
	fs, remote := flagSet(&cfg, stderr)
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	// set names the flags given: dependent defaults follow them.
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
	var err error
	if cfg.maxSubscriptions, err = deriveSubscriptions(set, &cfg.limits, cfg.maxSubscriptions); err != nil {
		return config{}, err
	}
	if cfg.maxSubscriptionURIs < 1 {
		return config{}, errors.New("-max-subscription-uris must be at least 1")
	}
	if cfg.inputTimeout <= 0 {
		return config{}, errors.New("-input-timeout must be positive")
	}
	if cfg.pingInterval != 0 && cfg.pingInterval < minPingInterval {
		return config{}, fmt.Errorf("-ping-interval must be 0 (never) or at least %v, not %v", minPingInterval, cfg.pingInterval)
	}
	var warnings []startupWarning
	warn := func(msg string, args ...any) { warnings = append(warnings, startupWarning{msg, args}) }
	if cfg.stateKey, err = loadStateKey(cfg.stateKeyFile, getenv, warn); err != nil {
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

// flagSet returns every flag of this build: the core's, landing in cfg,
// and the HTTP wing's (httpFlags; none in the stdio build), landing in
// remote. README's flag tables list exactly these (TestREADMEFlags).
func flagSet(cfg *config, stderr io.Writer) (fs *flag.FlagSet, remote *httpConfig) {
	fs = flag.NewFlagSet(serverName, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.DurationVar(&cfg.cache.TTL, "cache-ttl", time.Minute, "`duration` clients may cache list, discover and read results (ttlMs)")
	fs.StringVar(&cfg.cache.Scope, "cache-scope", scopePublic, "cacheScope of server/discover and list results: public or private (resources/read is private)")
	fs.IntVar(&cfg.pageSize, "page-size", 0, "items per page of list results; 0 means one page")
	fs.BoolVar(&cfg.modernOnly, "modern-only", false, "serve only the modern era: refuse the classic initialize handshake")
	fs.StringVar(&cfg.stateKeyFile, "state-key-file", "", "`path` of the secret (at least 32 bytes) that signs requestState; default $"+envStateKey+", else random per process")
	fs.DurationVar(&cfg.stateTTL, "state-ttl", defaultStateTTL, "`duration` a requestState stays valid")
	fs.IntVar(&cfg.maxSubscriptions, "max-subscriptions", defaultMaxSubscriptions, "subscriptions/listen requests open at once")
	fs.IntVar(&cfg.maxSubscriptionURIs, "max-subscription-uris", defaultMaxSubscriptionURIs, "resourceSubscriptions per subscriptions/listen request")
	fs.DurationVar(&cfg.pingInterval, "ping-interval", 0, "ping classic clients every `duration` (at least 1s) and notice one that does not answer within it (stdio: logged; HTTP: the session ends); 0 means never")
	fs.DurationVar(&cfg.inputTimeout, "input-timeout", defaultInputTimeout, "`duration` a classic client has to answer the server's elicitation, sampling or roots requests")
	fs.DurationVar(&cfg.requestTimeout, "request-timeout", defaultRequestTimeout, "cancel a request after `duration`; 0 means never")
	fs.StringVar(&cfg.skillsDir, "skills", "", "serve every skill under `directory` (each directory in it holding a SKILL.md), read once at start")
	fs.BoolVar(&cfg.printVersion, "version", false, "print the version and VCS revision of this binary, and exit")
	limitFlags(fs, &cfg.limits)
	logFlags(fs, &cfg.logs)
	taskFlags(fs, &cfg.tasks)
	confineFlags(fs, &cfg.confine)
	return fs, httpFlags(fs, cfg)
}

// deriveSubscriptions settles -max-subscriptions against -max-requests and
// returns the subscriptions that may be open at once (noSubscriptions for
// none). Each holds a request slot for its life, so at most half the slots
// may hold them; the flag not set adapts to the one set (README, "Flags").
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
