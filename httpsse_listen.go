//go:build !stdio

// The Streamable HTTP transport's settings and life: its flags and
// defaults, the listener (loopback unless told otherwise, at most
// -max-connections, limitListener), the server's timeouts, and graceful
// shutdown.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security-%26-endpoint,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation#timeouts,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#graceful-closure.

package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

const (
	// defaultMaxBodyBytes caps a request body, like maxLineBytes on stdio:
	// room for a large tool argument, no room for a memory exhaustion.
	defaultMaxBodyBytes = 4 << 20

	// maxMaxBodyBytes bounds -max-body: the server holds httpBodyBudget
	// bodies of it at once, and larger values overflowed that budget
	// (review A, finding 11). A gigabyte of JSON in one request is no MCP
	// message.
	maxMaxBodyBytes = 1 << 30

	// httpReadHeaderTimeout bounds how long a client may take to send its
	// request headers (slowloris).
	httpReadHeaderTimeout = 10 * time.Second

	// httpBodyReadTimeout bounds how long a client may take to send the
	// body. It is set per request, not as http.Server.ReadTimeout: that
	// deadline would stay armed on the connection while the handler runs,
	// and its expiry cancels the request's context.
	httpBodyReadTimeout = 30 * time.Second

	// httpQueueWait bounds an HTTP request's wait for a slot: long enough
	// to smooth a burst, short enough not to leave a client hanging.
	httpQueueWait = 2 * time.Second

	// httpWriteTimeout bounds one write to an HTTP client (a response, an
	// SSE event), so a client that stops reading frees its request.
	httpWriteTimeout = 30 * time.Second

	// httpIdleTimeout closes keep-alive connections nobody uses.
	httpIdleTimeout = 2 * time.Minute

	// httpMaxHeaderBytes bounds the request headers, which every
	// connection may buffer before any check (authentication included).
	// 32 KiB is what nginx buffers by default, so no request a common
	// proxy forwards is refused, and room for what MCP sends: a bearer
	// token, Mcp-Name (a name or URI of up to 8 KiB, Base64 at worst) and
	// the Mcp-Param-* headers mirroring tool arguments. Beyond it net/http
	// answers 431, which clients must handle; the spec leaves the limit
	// to the server and asks it to be documented (docs/HTTP.md).
	// (SEP-2243, "No Specification-Level Header Size Limit").
	httpMaxHeaderBytes = 32 << 10

	// defaultDrainTimeout bounds how long shutdown waits for requests in
	// flight before cancelling them.
	defaultDrainTimeout = 10 * time.Second

	// httpCutGrace is how long a request cut at -shutdown-timeout has to
	// write its answer before its connection is closed: a handler that
	// watches its context returns at once.
	httpCutGrace = time.Second

	// defaultKeepAlive is how often a long-lived stream (a
	// subscriptions/listen response, a classic GET stream) carries an SSE
	// comment when nothing else flows: well under the idle timeouts of
	// common proxies (nginx: 60s) and clients.
	// [§Receiving Messages]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#receiving-messages
	defaultKeepAlive = 15 * time.Second

	// defaultMaxConnections bounds the open HTTP connections, and so the
	// connection goroutines and header buffers. At it a newcomer takes
	// the place of a quiet connection, or waits (limitListener).
	defaultMaxConnections = 1024
)

// httpConfig is the settings of the HTTP wing (the Streamable HTTP
// transport and the metrics listener), from the command line; the
// server's config holds it (config.http).
type httpConfig struct {
	addr          string   // listen address; "" serves stdio (see httpListenAddr)
	metricsAddr   string   // -metrics: where /metrics is served; "" is off
	pprof         bool     // -pprof: Go's profiles on the -metrics listener too
	allowOrigins  []string // Origins allowed besides the server's own
	maxBody       int64
	drainTimeout  time.Duration
	shutdownDelay time.Duration // how long /readyz says 503 before the listener closes
	tokenFile     string
	auth          authConfig // authentication: static tokens, the OAuth resource server (auth_http.go)
	// allowPublic is -allow-public-without-auth: the operator accepts a
	// non-loopback bind without authentication.
	allowPublic    bool
	maxConnections int           // open connections; 0 means defaultMaxConnections
	maxSessions    int           // classic sessions open at once
	sessionIdle    time.Duration // a classic session unused this long ends
	keepAlive      time.Duration // SSE comment interval on long-lived streams; 0 means defaultKeepAlive
	// largeAnswerIdle is httpLargeAnswerIdle (0), and anonIdle
	// httpAnonymousIdle (0); no flag sets them, tests shorten them.
	largeAnswerIdle time.Duration
	anonIdle        time.Duration
	now             func() time.Time // the clock of session expiry; nil means time.Now (tests set it)
	// trustedProxies are the networks of the proxies whose
	// X-Forwarded-For the server believes (-trusted-proxy; none by
	// default): behind them a caller's address is the client's, not the
	// proxy's (clientAddr, httpsse_security.go).
	trustedProxies []netip.Prefix
}

// trusts reports whether addr is one of the trusted proxies.
func (c *httpConfig) trusts(addr netip.Addr) bool {
	for _, p := range c.trustedProxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// httpFlags registers the flags of the HTTP wing on fs and returns where
// they land; settle checks them once parsed. -replica-id lands in cfg:
// the ids it scopes are the core's (newScopedID), but only a load
// balancer in front of HTTP replicas routes by it.
func httpFlags(fs *flag.FlagSet, cfg *config) *httpConfig {
	c := &httpConfig{}
	fs.StringVar(&c.addr, "http", "", "serve Streamable HTTP on `addr` (host:port; a bare port binds 127.0.0.1)")
	fs.StringVar(&c.metricsAddr, "metrics", "", "serve Prometheus metrics at http://`addr`/metrics, and the probes /healthz and /readyz (host:port; a bare port binds 127.0.0.1)")
	fs.BoolVar(&c.pprof, "pprof", false, "also serve Go's profiles at /debug/pprof/ on the -metrics listener")
	fs.Func("allow-origin", "allow browser requests from `origin` (repeatable; scheme://host[:port])", func(v string) error {
		if _, ok := normalizeOrigin(v); !ok {
			return fmt.Errorf("want scheme://host[:port], got %q", v)
		}
		c.allowOrigins = append(c.allowOrigins, v)
		return nil
	})
	fs.Int64Var(&c.maxBody, "max-body", defaultMaxBodyBytes, "largest request body in `bytes`")
	fs.IntVar(&c.maxConnections, "max-connections", defaultMaxConnections, "open HTTP connections (`n`); a newcomer takes the place of a quiet one of the address holding the most, or waits while every one is busy")
	fs.DurationVar(&c.drainTimeout, "shutdown-timeout", defaultDrainTimeout, "on SIGINT/SIGTERM, let requests in flight finish for up to `duration`")
	fs.DurationVar(&c.shutdownDelay, "shutdown-delay", 0, "on SIGINT/SIGTERM, answer /readyz with 503 and keep serving for `duration` before the listener closes (for load balancers)")
	fs.StringVar(&c.tokenFile, "token-file", "", "require Authorization: Bearer with a token from `path` (or $"+envToken+"), at least 32 random bytes (openssl rand -hex 32): one token, or lines NAME TOKEN [SCOPE...]; # starts a comment")
	fs.BoolVar(&c.allowPublic, "allow-public-without-auth", false, "accept serving a non-loopback -http address without authentication (anyone who reaches it may call every tool)")
	authFlags(fs, &c.auth)
	fs.IntVar(&c.maxSessions, "max-sessions", defaultMaxSessions, "classic (initialize) sessions open at once, at most `n`")
	fs.DurationVar(&c.sessionIdle, "session-idle", defaultSessionIdle, "end a classic session unused for `duration`")
	fs.DurationVar(&c.keepAlive, "sse-keepalive", defaultKeepAlive, "send an SSE comment on long-lived streams every `duration`")
	fs.Func("trusted-proxy", "believe X-Forwarded-For from the proxies at `network` (an address, or CIDR such as 10.0.0.0/8; repeatable): a caller is then counted by its client's address, not the proxy's", func(v string) error {
		p, err := parseTrustedProxy(v)
		if err != nil {
			return err
		}
		c.trustedProxies = append(c.trustedProxies, p)
		return nil
	})
	fs.StringVar(&cfg.replicaID, "replica-id", "", "start every task id and /sse session id with `name` and a dot, so a load balancer can route their requests to this replica")
	return c
}

// settle checks the HTTP wing's flags once parsed and completes cfg: with
// -http the transport is HTTP and the scope settings of its authorization
// are the server's; without it, the flags of who may connect over HTTP
// are refused (the other HTTP limits are ignored on stdio). set names the
// flags the command line gave.
func (c *httpConfig) settle(cfg *config, set map[string]bool, getenv func(string) string, warn warnFunc) error {
	if cfg.replicaID != "" && !validReplicaID(cfg.replicaID) {
		return fmt.Errorf("-replica-id %q: want 1 to 32 of a-z, 0-9 and -, starting with a letter or digit", cfg.replicaID)
	}
	if c.maxConnections <= 0 {
		return errors.New("-max-connections must be positive")
	}
	if c.metricsAddr != "" {
		addr, err := httpListenAddr(c.metricsAddr)
		if err != nil {
			return fmt.Errorf("-metrics %w", err)
		}
		c.metricsAddr = addr
	} else if c.pprof {
		return errors.New("-pprof serves on the -metrics listener: set -metrics too")
	}
	cfg.http = c
	if c.addr != "" {
		cfg.transport = transportHTTP
		if err := c.finish(getenv, warn); err != nil {
			return err
		}
		cfg.baseScopes, cfg.scopeImplies, cfg.filterLists = c.auth.scopes, c.auth.implies, c.auth.filterLists
		return nil
	}
	if c.auth.oauthFlagsSet() || c.auth.scopeFlagsSet() {
		// Authorization is HTTP's: on stdio the credentials come from the
		// environment, as the spec says.
		// [§Protocol Requirements]: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#protocol-requirements
		return errors.New("the -oauth-* and -scope-* flags need -http")
	}
	// Who may connect, and with what, is HTTP's too: set on stdio these
	// would seem to protect what they cannot.
	for _, name := range []string{"token-file", "allow-public-without-auth", "trusted-proxy", "allow-origin"} {
		if set[name] {
			return fmt.Errorf("-%s needs -http: stdio has no authentication (its client started the process)", name)
		}
	}
	return nil
}

// serveTransport serves the transport the flags chose, Streamable HTTP
// (-http) or stdio, with the metrics listener beside it when -metrics
// asks; it returns when the transport has ended (stdin's EOF, or ctx and
// the drain). The metrics listener outlives the drain, so a shutdown can
// be watched to its end.
func (s *server) serveTransport(ctx context.Context, stdin io.Reader, stdout io.Writer, confine func() error) error {
	if s.http != nil && s.http.metricsAddr != "" {
		_, stopMetrics, err := s.serveMetrics(s.http.metricsAddr, s.http.pprof)
		if err != nil {
			return fmt.Errorf("-metrics: %w", err)
		}
		defer stopMetrics()
	}
	if s.transport == transportHTTP {
		return s.listenHTTP(ctx, s.http, confine)
	}
	if err := confine(); err != nil {
		return err
	}
	return s.serveStdio(ctx, stdin, stdout)
}

// finish checks the flags, loads the static tokens (from -token-file, else
// from the environment) and the OAuth settings (authConfig.finish), and
// refuses a non-loopback bind without authentication unless
// -allow-public-without-auth says the operator means it: on such a bind
// the Host check is off (it would refuse the names the server is reached
// by), so nothing but authentication stands between the network and every
// tool.
// [§Security]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security-%26-endpoint
func (c *httpConfig) finish(getenv func(string) string, warn warnFunc) error {
	if c.maxBody <= 0 || c.maxBody > maxMaxBodyBytes {
		return fmt.Errorf("-max-body must be positive and at most %d", maxMaxBodyBytes)
	}
	if c.drainTimeout < 0 || c.shutdownDelay < 0 {
		return errors.New("-shutdown-timeout and -shutdown-delay must not be negative")
	}
	if c.maxSessions <= 0 || c.sessionIdle <= 0 {
		return errors.New("-max-sessions and -session-idle must be positive")
	}
	if c.keepAlive <= 0 {
		return errors.New("-sse-keepalive must be positive")
	}
	addr, err := httpListenAddr(c.addr)
	if err != nil {
		return fmt.Errorf("-http %w", err)
	}
	c.addr = addr
	if err := c.auth.finish(c.tokenFile, addr, getenv, warn); err != nil {
		return err
	}
	if !isLoopbackHost(c.addr) && !c.authenticates() {
		if !c.allowPublic {
			return fmt.Errorf("-http %s listens beyond loopback without authentication, so anyone who can reach it may call every tool: "+
				"set -token-file (or $%s) or -oauth-issuer, or add -allow-public-without-auth to accept that (for example behind a proxy that authenticates)", c.addr, envToken)
		}
		warn("serving beyond loopback without authentication (-allow-public-without-auth): anyone who can reach the address may call every tool", "addr", c.addr)
	}
	return nil
}

// authenticates reports whether the transport requires callers to
// authenticate: static tokens, or an authorization server.
func (c *httpConfig) authenticates() bool { return c.auth.tokens != nil || c.auth.issuer != "" }

// httpListenAddr completes addr (of -http, or -metrics): a bare port
// ("8080" or ":8080") binds the loopback interface only, as the spec asks
// of local servers. Its errors start with the address; the caller names
// the flag.
// [§Security]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security-%26-endpoint
func httpListenAddr(addr string) (string, error) {
	if _, err := strconv.ParseUint(addr, 10, 16); err == nil {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("%q: want host:port or a port", addr)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", fmt.Errorf("%q: bad port", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// listenHTTP listens on cfg.addr, calls confine once it is bound (run's
// confiner: the process confines itself before the first request), and
// serves until ctx ends.
func (s *server) listenHTTP(ctx context.Context, cfg *httpConfig, confine func() error) error {
	ln, err := s.confine.listen("-http", cfg.addr)
	if err != nil {
		return err
	}
	if err := confine(); err != nil {
		ln.Close()
		return err
	}
	s.log.Info("serving Streamable HTTP", "url", "http://"+ln.Addr().String()+httpPath)
	return s.serveHTTP(ctx, ln, cfg)
}

// serveHTTP serves on ln until ctx ends, then shuts down gracefully: it
// stops accepting, lets requests in flight finish for up to
// cfg.drainTimeout, cancels those still running, and returns nil once every
// handler has returned. A handler that ignores its context delays the exit.
func (s *server) serveHTTP(ctx context.Context, ln net.Listener, cfg *httpConfig) error {
	return newHTTPTransport(s, cfg, ln.Addr()).serve(ctx, ln)
}

// serve is serveHTTP for a transport already built: it serves t on ln
// until ctx ends, then shuts down as serveHTTP says.
func (t *httpTransport) serve(ctx context.Context, ln net.Listener) error {
	s, cfg := t.s, t.cfg
	// Requests outlive ctx (SIGINT) until the drain ends, so their contexts
	// hang off their own root.
	base, cancelBase := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelBase(nil)
	defer t.auth.close()
	defer t.refused.close()
	mux := http.NewServeMux()
	t.routes(mux)
	debugRoutes(mux, s)
	maxConns := cfg.maxConnections
	if maxConns <= 0 {
		maxConns = defaultMaxConnections
	}
	var exempt func(netip.Addr) bool
	if len(cfg.trustedProxies) > 0 {
		exempt = cfg.trusts
	}
	inner := &answerListener{Listener: ln, idle: t.largeAnswerIdle}
	if t.auth.on() {
		inner.anonIdle = cmp.Or(cfg.anonIdle, httpAnonymousIdle)
	}
	limited := newLimitListener(inner, maxConns, int(s.share(int64(maxConns), shareFloor)), exempt)
	ln = limited
	s.metrics.setLimit("max-connections", float64(maxConns))
	s.metrics.gauge("baremcp_http_connections_open", "Connections open on the MCP listener now (at most -max-connections).", limited.open)
	// conns counts connection goroutines, handlers included. New
	// connections are counted by Serve's own goroutine, so none is added
	// once Serve has returned.
	var conns sync.WaitGroup
	srv := &http.Server{
		Handler:           countResponses(s.metrics, &t.refused, t.closeWhileDraining(mux)),
		ReadHeaderTimeout: httpReadHeaderTimeout,
		IdleTimeout:       httpIdleTimeout,
		MaxHeaderBytes:    httpMaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return base },
		ConnContext:       withConn,
		ConnState: func(c net.Conn, state http.ConnState) {
			limited.connState(c, state)
			switch state {
			case http.StateNew:
				conns.Add(1)
			case http.StateClosed, http.StateHijacked:
				conns.Done()
			case http.StateActive, http.StateIdle:
				if ac := answerConnOf(c); ac != nil {
					ac.state(state)
				}
			}
		},
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		_ = srv.Close()
		conns.Wait()
		return err
	case <-ctx.Done():
	}
	// Readiness fails first, while everything still serves: a load
	// balancer stops sending new work during -shutdown-delay, before the
	// listener closes.
	t.beginDrain()
	s.log.Info("shutting down", "transport", "http", "delay_us", cfg.shutdownDelay.Microseconds(), "timeout_us", cfg.drainTimeout.Microseconds())
	if cfg.shutdownDelay > 0 {
		delay := time.NewTimer(cfg.shutdownDelay)
		select {
		case <-delay.C:
		case err := <-served:
			delay.Stop()
			_ = srv.Close()
			conns.Wait()
			return err
		}
	}
	// Open subscriptions/listen requests end first, with their graceful
	// result, and classic sessions with them: these streams would otherwise
	// hold the drain open until it times out. Request contexts hang off
	// base, not ctx, so closing is what tells a listen to end. Tasks end
	// before: a listen watching one delivers its final state, and a
	// client polling during the drain sees it too.
	s.tasks.stop()
	close(t.closing)
	t.sessions.closeAll()
	drain, cancel := context.WithTimeout(context.Background(), cfg.drainTimeout)
	defer cancel()
	if err := srv.Shutdown(drain); err != nil {
		// Cut what is still running, and let it answer: a cut call gets
		// errCut (500) and its connection closes after it (draining), so
		// that neither the client nor a proxy takes an empty reply for a
		// request never read (HAProxy's retry-on empty-response would run
		// it again elsewhere). A handler that ignores its context for
		// httpCutGrace more has its connection closed under it.
		s.log.Warn("shutdown timed out; cutting requests in flight", "transport", "http", "err", err)
		cancelBase(errCutByShutdown)
		grace, cancelGrace := context.WithTimeout(context.Background(), httpCutGrace)
		_ = srv.Shutdown(grace)
		cancelGrace()
		_ = srv.Close()
	}
	<-served
	conns.Wait()
	s.tasks.wait()
	s.log.Info("stopped", "transport", "http")
	return nil
}

// validReplicaID reports whether id is what -replica-id accepts: 1 to 32
// of a-z, 0-9 and '-', not starting with '-', a name that is safe in a
// header (Mcp-Name), a URL query and a load balancer's server name.
func validReplicaID(id string) bool { return isName(id, 32, false, "-") && id[0] != '-' }

// closeWhileDraining wraps the server's handler: once shutdown has begun,
// every answer carries Connection: close and its connection closes after
// it. A client's pool (a load balancer's connections to this instance)
// thus empties one answer at a time while the listener still accepts
// (-shutdown-delay), instead of holding idle connections that the end of
// the drain closes, perhaps under a request just sent on one, which a
// balancer may not replay (a POST it has sent). The connections nobody
// uses during the delay close with the listener (http.Server.Shutdown);
// a stream opened before the drain keeps its connection until it ends.
func (t *httpTransport) closeWhileDraining(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if t.s.draining.Load() {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}
