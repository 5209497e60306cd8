// The Streamable HTTP transport of the modern era: one POST endpoint; each
// request answered with one JSON object, or with an SSE stream scoped to it
// when it produced notifications before its result; mirrored request
// headers checked against the body; secure defaults throughout.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation,
// SEP-2243 (HTTP header standardization).

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// httpPath is the MCP endpoint.
const httpPath = "/mcp"

const (
	// defaultMaxBodyBytes caps a request body, like maxLineBytes on stdio:
	// room for a large tool argument, no room for a memory exhaustion.
	defaultMaxBodyBytes = 4 << 20

	// httpReadHeaderTimeout bounds how long a client may take to send its
	// request headers (slowloris).
	httpReadHeaderTimeout = 10 * time.Second

	// httpBodyReadTimeout bounds how long a client may take to send the
	// body. It is set per request, not as http.Server.ReadTimeout: that
	// deadline would stay armed on the connection while the handler runs,
	// and its expiry cancels the request's context.
	httpBodyReadTimeout = 30 * time.Second

	// httpIdleTimeout closes keep-alive connections nobody uses.
	httpIdleTimeout = 2 * time.Minute

	// httpMaxHeaderBytes bounds the request headers. Mcp-Param-* headers
	// mirror tool arguments, Base64-encoded at worst, so allow some room.
	httpMaxHeaderBytes = 1 << 20

	// defaultRequestTimeout bounds one request's handler. Progress does not
	// extend it: the spec asks for a maximum regardless of progress.
	// [§Timeouts]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation#timeouts
	defaultRequestTimeout = 5 * time.Minute

	// defaultDrainTimeout bounds how long shutdown waits for requests in
	// flight before cancelling them.
	defaultDrainTimeout = 10 * time.Second

	// defaultKeepAlive is how often a long-lived stream (a
	// subscriptions/listen response, a classic GET stream) carries an SSE
	// comment when nothing else flows: well under the idle timeouts of
	// common proxies (nginx: 60s) and clients.
	// [§Receiving Messages]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#receiving-messages
	defaultKeepAlive = 15 * time.Second
)

// envToken names the environment variable that may hold the bearer token.
const envToken = "BAREMCP_TOKEN"

// Request headers the transport reads.
// [§Request Metadata]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-metadata
const (
	headerProtocolVersion = "MCP-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
	headerParamPrefix     = "Mcp-Param-"
)

// httpConfig is the HTTP transport's settings, from the command line.
type httpConfig struct {
	addr           string   // listen address as given; see httpListenAddr
	allowOrigins   []string // Origins allowed besides the server's own
	maxBody        int64
	requestTimeout time.Duration // 0 means none
	drainTimeout   time.Duration
	tokenFile      string
	token          string           // the bearer token; "" turns authentication off
	maxConnections int              // open connections; 0 means defaultMaxConnections (limits.go)
	maxSessions    int              // classic sessions open at once
	sessionIdle    time.Duration    // a classic session unused this long ends
	keepAlive      time.Duration    // SSE comment interval on long-lived streams; 0 means defaultKeepAlive
	now            func() time.Time // the clock of session expiry; nil means time.Now (tests set it)
}

// httpFlags registers the HTTP flags on fs and returns where they land.
func httpFlags(fs *flag.FlagSet) *httpConfig {
	c := &httpConfig{}
	fs.StringVar(&c.addr, "http", "", "serve Streamable HTTP on `addr` (host:port; a bare port binds 127.0.0.1)")
	fs.Func("allow-origin", "allow browser requests from `origin` (repeatable; scheme://host[:port])", func(v string) error {
		if _, ok := normalizeOrigin(v); !ok {
			return fmt.Errorf("want scheme://host[:port], got %q", v)
		}
		c.allowOrigins = append(c.allowOrigins, v)
		return nil
	})
	fs.Int64Var(&c.maxBody, "max-body", defaultMaxBodyBytes, "largest request body in `bytes`")
	fs.DurationVar(&c.requestTimeout, "request-timeout", defaultRequestTimeout, "cancel a request after `duration`; 0 means never")
	fs.DurationVar(&c.drainTimeout, "shutdown-timeout", defaultDrainTimeout, "on SIGINT/SIGTERM, let requests in flight finish for up to `duration`")
	fs.StringVar(&c.tokenFile, "token-file", "", "require Authorization: Bearer with the token in `path` (or $"+envToken+")")
	fs.IntVar(&c.maxSessions, "max-sessions", defaultMaxSessions, "classic (initialize) sessions open at once, at most `n`")
	fs.DurationVar(&c.sessionIdle, "session-idle", defaultSessionIdle, "end a classic session unused for `duration`")
	fs.DurationVar(&c.keepAlive, "sse-keepalive", defaultKeepAlive, "send an SSE comment on long-lived streams every `duration`")
	return c
}

// finish checks the flags and loads the token: from -token-file, else from
// the environment.
func (c *httpConfig) finish(getenv func(string) string) error {
	if c.maxBody <= 0 {
		return errors.New("-max-body must be positive")
	}
	if c.requestTimeout < 0 || c.drainTimeout < 0 {
		return errors.New("-request-timeout and -shutdown-timeout must not be negative")
	}
	if c.maxSessions <= 0 || c.sessionIdle <= 0 {
		return errors.New("-max-sessions and -session-idle must be positive")
	}
	if c.keepAlive <= 0 {
		return errors.New("-sse-keepalive must be positive")
	}
	addr, err := httpListenAddr(c.addr)
	if err != nil {
		return err
	}
	c.addr = addr
	c.token = getenv(envToken)
	if c.tokenFile != "" {
		b, err := os.ReadFile(c.tokenFile)
		if err != nil {
			return fmt.Errorf("-token-file: %w", err)
		}
		if c.token = strings.TrimSpace(string(b)); c.token == "" {
			return fmt.Errorf("-token-file %s is empty", c.tokenFile)
		}
	}
	return nil
}

// httpListenAddr completes addr: a bare port ("8080" or ":8080") binds the
// loopback interface only, as the spec asks of local servers.
// [§Security]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security-%26-endpoint
func httpListenAddr(addr string) (string, error) {
	if _, err := strconv.ParseUint(addr, 10, 16); err == nil {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("-http %q: want host:port or a port", addr)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", fmt.Errorf("-http %q: bad port", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// listenHTTP listens on cfg.addr and serves until ctx ends.
func (s *server) listenHTTP(ctx context.Context, cfg *httpConfig) error {
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	s.log.Printf("serving Streamable HTTP at http://%s%s", ln.Addr(), httpPath)
	return s.serveHTTP(ctx, ln, cfg)
}

// serveHTTP serves on ln until ctx ends, then shuts down gracefully: it
// stops accepting, lets requests in flight finish for up to
// cfg.drainTimeout, cancels those still running, and returns nil once every
// handler has returned. A handler that ignores its context delays the exit.
func (s *server) serveHTTP(ctx context.Context, ln net.Listener, cfg *httpConfig) error {
	t := newHTTPTransport(s, cfg, ln.Addr())
	// Requests outlive ctx (SIGINT) until the drain ends, so their contexts
	// hang off their own root.
	base, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()
	mux := http.NewServeMux()
	mux.Handle(httpPath, t)
	debugRoutes(mux, s)
	maxConns := cfg.maxConnections
	if maxConns <= 0 {
		maxConns = defaultMaxConnections
	}
	ln = newLimitListener(ln, maxConns)
	// conns counts connection goroutines, handlers included. New
	// connections are counted by Serve's own goroutine, so none is added
	// once Serve has returned.
	var conns sync.WaitGroup
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: httpReadHeaderTimeout,
		IdleTimeout:       httpIdleTimeout,
		MaxHeaderBytes:    httpMaxHeaderBytes,
		ErrorLog:          s.log,
		BaseContext:       func(net.Listener) context.Context { return base },
		ConnState: func(_ net.Conn, state http.ConnState) {
			switch state {
			case http.StateNew:
				conns.Add(1)
			case http.StateClosed, http.StateHijacked:
				conns.Done()
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
	// Open subscriptions/listen requests end first, with their graceful
	// result, and classic sessions with them: these streams would otherwise
	// hold the drain open until it times out. Request contexts hang off
	// base, not ctx, so closing is what tells a listen to end.
	close(t.closing)
	t.sessions.closeAll()
	drain, cancel := context.WithTimeout(context.Background(), cfg.drainTimeout)
	defer cancel()
	if err := srv.Shutdown(drain); err != nil {
		s.log.Printf("http: shutdown: %v; cancelling requests in flight", err)
		cancelBase()
		_ = srv.Close()
	}
	<-served
	conns.Wait()
	return nil
}

// httpTransport is the MCP endpoint's handler. It is immutable once built
// and serves requests concurrently.
type httpTransport struct {
	s         *server
	cfg       *httpConfig
	loopback  bool            // bound to a loopback address: Host is checked
	origins   map[string]bool // allowed Origin values, normalised
	cop       *http.CrossOriginProtection
	tokenSum  [sha256.Size]byte // sha256 of the bearer token
	principal string            // the identity a valid token grants
	sessions  *sessionStore     // classic sessions (classic_http.go)
	keepAlive time.Duration     // SSE comment interval on long-lived streams
	// closing is closed when serveHTTP begins shutting down; every
	// exchange carries it (subscriptions/listen ends gracefully on it).
	closing chan struct{}
	slots   chan struct{} // s.maxRequests tokens: requests served at once
	// queueWait is how long a request waits for a slot (httpQueueWait).
	queueWait time.Duration
}

// newHTTPTransport builds the endpoint for a server listening on bound.
func newHTTPTransport(s *server, cfg *httpConfig, bound net.Addr) *httpTransport {
	t := &httpTransport{s: s, cfg: cfg, origins: map[string]bool{}, cop: http.NewCrossOriginProtection(), keepAlive: cfg.keepAlive, closing: make(chan struct{})}
	if t.keepAlive <= 0 {
		t.keepAlive = defaultKeepAlive
	}
	maxSessions, idle := cfg.maxSessions, cfg.sessionIdle
	if maxSessions <= 0 {
		maxSessions = defaultMaxSessions
	}
	if idle <= 0 {
		idle = defaultSessionIdle
	}
	t.sessions = newSessionStore(maxSessions, idle, cfg.now)
	t.slots, t.queueWait = make(chan struct{}, s.maxRequests), httpQueueWait
	port := ""
	if tcp, ok := bound.(*net.TCPAddr); ok {
		t.loopback = tcp.IP.IsLoopback()
		port = strconv.Itoa(tcp.Port)
	}
	// The server's own origins: a page it could have served itself.
	own := []string{"http://127.0.0.1:" + port, "http://localhost:" + port, "http://[::1]:" + port}
	for _, v := range append(own, cfg.allowOrigins...) {
		if o, ok := normalizeOrigin(v); ok {
			t.origins[o] = true
			_ = t.cop.AddTrustedOrigin(o)
		}
	}
	t.cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeHTTPError(w, http.StatusForbidden, newError(codeInvalidRequest, "forbidden: cross-origin request"))
	}))
	if cfg.token != "" {
		t.tokenSum = sha256.Sum256([]byte(cfg.token))
		// The identity is a digest, so logs and tools never see the token.
		t.principal = "bearer:" + hex.EncodeToString(t.tokenSum[:8])
	}
	return t
}

// normalizeOrigin returns an Origin (RFC 6454) as browsers serialise it:
// lower case, default port dropped; ok is false for anything else,
// including the opaque origin "null".
func normalizeOrigin(v string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	host := strings.ToLower(u.Host)
	if port := u.Port(); (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		host = strings.TrimSuffix(host, ":"+port)
	}
	return u.Scheme + "://" + host, true
}

// isLoopbackHost reports whether the Host header names this machine's
// loopback interface: localhost or a loopback IP, any port.
func isLoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ServeHTTP applies the endpoint's checks in order: the DNS-rebinding
// defences (Host, Origin) for every method, CORS for allowed origins, then
// authentication, then the method.
// [§Security]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security-%26-endpoint
func (t *httpTransport) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if t.loopback && !isLoopbackHost(r.Host) {
		writeHTTPError(w, http.StatusForbidden, newError(codeInvalidRequest, "forbidden: host not allowed"))
		return
	}
	if origins := r.Header.Values("Origin"); len(origins) > 0 {
		o, ok := normalizeOrigin(origins[0])
		if len(origins) > 1 || !ok || !t.origins[o] {
			writeHTTPError(w, http.StatusForbidden, newError(codeInvalidRequest, "forbidden: origin not allowed"))
			return
		}
	}
	if err := t.cop.Check(r); err != nil {
		writeHTTPError(w, http.StatusForbidden, newError(codeInvalidRequest, "forbidden: cross-origin request"))
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		// An allowed foreign origin is a browser app the operator trusts
		// (-allow-origin); without CORS its POSTs would never leave the
		// browser. Preflights carry no credentials, so they come before
		// authentication.
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		if !t.s.modernOnly {
			h.Set("Access-Control-Expose-Headers", headerSessionID)
		}
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			if t.s.modernOnly {
				h.Set("Access-Control-Allow-Methods", http.MethodPost)
			} else {
				h.Set("Access-Control-Allow-Methods", "POST, GET, DELETE")
			}
			h.Set("Access-Control-Allow-Headers", r.Header.Get("Access-Control-Request-Headers"))
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	principal, ok := t.authenticate(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", "Bearer realm="+strconv.Quote(t.s.info.Name))
		writeHTTPError(w, http.StatusUnauthorized, newError(codeInvalidRequest, "unauthorized: a valid bearer token is required"))
		return
	}
	switch {
	case r.Method == http.MethodPost:
		t.post(w, r, principal)
	case r.Method == http.MethodGet && !t.s.modernOnly:
		t.getStream(w, r, principal)
	case r.Method == http.MethodDelete && !t.s.modernOnly:
		t.deleteSession(w, r, principal)
	default:
		// [§Backward Compatibility]: the modern revision has no GET
		// stream and no sessions to DELETE; the classic ones do.
		if t.s.modernOnly {
			w.Header().Set("Allow", http.MethodPost)
		} else {
			w.Header().Set("Allow", "POST, GET, DELETE")
		}
		writeHTTPError(w, http.StatusMethodNotAllowed, newError(codeInvalidRequest, "method not allowed: use POST"))
	}
}

// authenticate checks the bearer token when one is configured. Both sides
// are hashed first so the comparison takes the same time whatever the
// length or content of the guess.
func (t *httpTransport) authenticate(r *http.Request) (principal string, ok bool) {
	if t.cfg.token == "" {
		return "", true
	}
	scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(cred)))
	if subtle.ConstantTimeCompare(sum[:], t.tokenSum[:]) != 1 {
		return "", false
	}
	return t.principal, true
}

// post serves one JSON-RPC message.
// [§Sending Messages]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#sending-messages
func (t *httpTransport) post(w http.ResponseWriter, r *http.Request, principal string) {
	if !isJSONContentType(r.Header.Get("Content-Type")) {
		writeHTTPError(w, http.StatusUnsupportedMediaType, newError(codeInvalidRequest, "unsupported media type: send application/json"))
		return
	}
	if !acceptsMCP(r.Header.Values("Accept")) {
		writeHTTPError(w, http.StatusNotAcceptable, newError(codeInvalidRequest, "not acceptable: accept both application/json and text/event-stream"))
		return
	}
	if r.ContentLength > t.cfg.maxBody {
		writeHTTPError(w, http.StatusRequestEntityTooLarge, newError(codeInvalidRequest, "request body larger than %d bytes", t.cfg.maxBody))
		return
	}
	// The slot is taken before the body is read, so that bodies in memory
	// are bounded by -max-requests × -max-body, not by the connections.
	if !t.acquire(r.Context()) {
		w.Header().Set("Retry-After", "1")
		writeHTTPError(w, http.StatusServiceUnavailable, newError(codeServerBusy, "server busy: %d requests in flight, retry later", cap(t.slots)))
		return
	}
	defer func() { <-t.slots }()
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(httpBodyReadTimeout))
	body, err := readBody(http.MaxBytesReader(w, r.Body, t.cfg.maxBody), r.ContentLength)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeHTTPError(w, http.StatusRequestEntityTooLarge, newError(codeInvalidRequest, "request body larger than %d bytes", t.cfg.maxBody))
		} else {
			// A body cut off by its read deadline (slowloris) must not be
			// drained afterwards: net/http would read the rest, without a
			// deadline, before answering. Closing skips that.
			w.Header().Set("Connection", "close")
			writeHTTPError(w, http.StatusBadRequest, newError(codeInvalidRequest, "invalid request: body could not be read"))
		}
		return
	}
	// The deadline also applies to the server's background read that
	// notices a client disconnect; lift it. On a failed read it stays, so
	// net/http's drain of the unread body cannot hang on a slow client.
	_ = rc.SetReadDeadline(time.Time{})
	msg, rerr := parseMessage(body)
	if rerr != nil {
		writeHTTPError(w, httpStatus(rerr.Code), rerr, msg.id)
		return
	}
	// The era is decided here, once (decideEra): initialize and the
	// messages of a classic session go through the session, even those
	// served modern.
	req := t.s.newRequest(&msg, nil, r.Header)
	switch {
	case req.era.classicOn:
		t.postClassic(w, r, rc, &msg, req, principal)
		return
	case msg.isResponse():
		// Server-to-client requests do not exist in this revision (MRTR).
		writeHTTPError(w, http.StatusBadRequest, newError(codeInvalidRequest, "invalid request: the server sent no request to answer"), msg.id)
		return
	case msg.isNotification():
		// No notification means anything over HTTP in this revision
		// (cancelling is closing the stream); accepted and ignored. Header
		// requirements for notification POSTs are not defined.
		t.s.serve(r.Context(), req, exchange{principal: principal})
		w.WriteHeader(http.StatusAccepted)
		return
	}
	// The request timeout (-request-timeout) is applied by serve, which
	// exempts subscriptions/listen.
	call := &httpCall{w: w, rc: rc, conn: r.Context()}
	if msg.method == methodSubscriptionsListen {
		defer call.keepAlive(t.keepAlive)()
	}
	reply, code := t.s.serve(r.Context(), req, exchange{send: call.notify, principal: principal, check: mirroredHeaders(r.Header), closing: t.closing})
	call.finish(reply, req.era.replyCode(code))
}

// acquire takes one of the slots that bound the requests served at once,
// waiting up to t.queueWait; false means the server is busy (or the client
// left while waiting).
func (t *httpTransport) acquire(ctx context.Context) bool {
	select {
	case t.slots <- struct{}{}:
		return true
	default:
	}
	if t.queueWait <= 0 {
		return false
	}
	timer := time.NewTimer(t.queueWait)
	defer timer.Stop()
	select {
	case t.slots <- struct{}{}:
		return true
	case <-timer.C:
	case <-ctx.Done():
	}
	return false
}

// isJSONContentType reports whether a request's Content-Type is
// application/json, with no charset or charset utf-8. The exact values
// clients send are recognised without mime.ParseMediaType, which allocates
// a parameter map on every request; anything else is parsed in full.
func isJSONContentType(v string) bool {
	switch v {
	case "application/json", "application/json; charset=utf-8":
		return true
	}
	mt, params, err := mime.ParseMediaType(v)
	return err == nil && mt == "application/json" &&
		(params["charset"] == "" || strings.EqualFold(params["charset"], "utf-8"))
}

// readBody reads a request body whose Content-Length is size (-1 when
// unknown). io.ReadAll starts at 512 bytes and grows by a quarter at a
// time, which copied a 1 MiB body about five times over; here the buffer
// doubles, and stops at size+1 (room for the Read that reports EOF), so a
// truthful 1 MiB body is copied at most twice more. The length is the
// peer's word, so it never sizes an allocation alone: the buffer starts at
// readBodyFirst and is at most twice what has actually arrived.
func readBody(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, min(max(size, 0), readBodyFirst)+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			more := len(b) // double
			if rest := size + 1 - int64(len(b)); rest > 0 && rest < int64(more) {
				more = int(rest) // the announced end
			}
			b = slices.Grow(b, more)
		}
	}
}

// readBodyFirst is readBody's first buffer: most requests fit in it.
const readBodyFirst = 64 << 10

// acceptsMCP reports whether the Accept header lets the server answer with
// either content type a request may get. No Accept at all accepts
// anything (RFC 9110 §12.5.1); otherwise both types must be covered. The
// value the MCP clients send is recognised without parsing: parsing each
// part with mime.ParseMediaType allocated a map per part per request.
func acceptsMCP(values []string) bool {
	if len(values) == 0 {
		return true
	}
	if len(values) == 1 && (values[0] == "application/json, text/event-stream" || values[0] == "text/event-stream, application/json") {
		return true
	}
	var jsonOK, sseOK bool
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			mt, params, err := mime.ParseMediaType(part)
			if err != nil {
				continue
			}
			if q, err := strconv.ParseFloat(params["q"], 64); err == nil && q <= 0 {
				continue
			}
			switch mt {
			case "*/*":
				jsonOK, sseOK = true, true
			case "application/*", "application/json":
				jsonOK = true
			case "text/*", "text/event-stream":
				sseOK = true
			}
		}
	}
	return jsonOK && sseOK
}

// httpStatus maps the JSON-RPC error code of a reply to its HTTP status.
// [§Protocol Version Header]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#protocol-version-header
// [§Per-request protocol fields]: https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
func httpStatus(code int) int {
	switch code {
	case 0:
		return http.StatusOK
	case codeMethodNotFound:
		return http.StatusNotFound
	case codeParseError, codeInvalidRequest, codeInvalidParams, codeHeaderMismatch, codeMissingCapability, codeUnsupportedVersion:
		return http.StatusBadRequest
	case codeInternalError:
		return http.StatusInternalServerError
	case codeRateLimited:
		return http.StatusTooManyRequests
	case codeServerBusy:
		return http.StatusServiceUnavailable
	}
	// An application-defined error is an answer like any other.
	return http.StatusOK
}

// writeHTTPError answers with a JSON-RPC error as application/json. The id
// is the request's when it could be read, null otherwise.
func writeHTTPError(w http.ResponseWriter, status int, e *rpcError, id ...[]byte) {
	var raw []byte
	if len(id) > 0 {
		raw = id[0]
	}
	writeJSON(w, status, encodeError(raw, e))
}

// writeJSON writes one message as an application/json body.
func writeJSON(w http.ResponseWriter, status int, msg []byte) {
	msg = oneLine(msg)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(msg)))
	w.WriteHeader(status)
	_, _ = w.Write(msg)
}

// oneLine returns msg (a message line ending in "\n") with no other line
// break: handlers may return pretty-printed json.RawMessage, and both an
// SSE data line and clients that split JSON bodies on newlines need one
// line per message.
func oneLine(msg []byte) []byte {
	body := bytes.TrimSuffix(msg, []byte("\n"))
	if bytes.IndexByte(body, '\n') < 0 && bytes.IndexByte(body, '\r') < 0 {
		return msg
	}
	var b bytes.Buffer
	if err := json.Compact(&b, body); err != nil {
		return msg // not reached: every message is encoded JSON
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// httpCall is one request's response in progress. The first notification
// switches it to an SSE stream; the reply ends it. Once the client has gone
// (conn is done) or the reply is written, nothing more is written: a
// handler's straggling goroutines may still call notify.
type httpCall struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	conn context.Context // the client connection's context

	mu        sync.Mutex // guards w, streaming, done
	streaming bool       // the SSE header is out
	done      bool
}

// notify sends a notification for the request, opening the SSE stream on
// the first one.
// [§Receiving Messages]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#receiving-messages
func (c *httpCall) notify(msg []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done || c.conn.Err() != nil {
		return
	}
	if !c.streaming {
		h := c.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		c.w.WriteHeader(http.StatusOK)
		c.streaming = true
	}
	c.eventLocked(msg)
}

// finish writes the reply: the last event of the stream, or the whole
// application/json response when nothing was streamed.
func (c *httpCall) finish(reply []byte, code int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done || c.conn.Err() != nil {
		c.done = true
		return
	}
	c.done = true
	if c.streaming {
		c.eventLocked(reply)
		return
	}
	if code == codeRateLimited {
		c.w.Header().Set("Retry-After", retryAfter(reply))
	}
	_ = c.rc.SetWriteDeadline(time.Now().Add(httpWriteTimeout))
	writeJSON(c.w, httpStatus(code), reply)
}

// retryAfter returns the Retry-After seconds (at least 1) for a
// rate-limited reply, from its error.data.retryAfterMs.
func retryAfter(reply []byte) string {
	v := reply
	for _, name := range []string{"error", "data", "retryAfterMs"} {
		members, err := objectMembers(v)
		if err != nil {
			return "1"
		}
		v = nil
		for _, m := range members {
			if m.name == name {
				v = m.value
			}
		}
	}
	ms, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
	if err != nil || ms <= 0 {
		return "1"
	}
	return strconv.FormatInt((ms+999)/1000, 10)
}

// abandon ends the call without a reply (the client cancelled the
// request): a stream already open just ends; otherwise an empty stream is
// sent, since an HTTP request needs some response.
func (c *httpCall) abandon() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done || c.conn.Err() != nil {
		c.done = true
		return
	}
	c.done = true
	if !c.streaming {
		h := c.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		c.w.WriteHeader(http.StatusOK)
		_ = c.rc.Flush()
	}
}

// keepAlive sends an SSE comment on the call's stream every interval,
// once the stream is open and until the call ends, so that proxies and
// clients do not close a quiet listen stream as idle. The returned stop
// ends the timer's goroutine and waits for it: the call owns it.
// [§Receiving Messages]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#receiving-messages
func (c *httpCall) keepAlive(interval time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				c.comment()
			case <-done:
				return
			case <-c.conn.Done():
				return
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// sseKeepAlive is the SSE comment keep-alives send; clients ignore it.
const sseKeepAlive = ": keep-alive\n\n"

// comment writes a keep-alive comment if the stream is open and live.
func (c *httpCall) comment() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.streaming || c.done || c.conn.Err() != nil {
		return
	}
	_ = c.rc.SetWriteDeadline(time.Now().Add(httpWriteTimeout))
	if _, err := io.WriteString(c.w, sseKeepAlive); err != nil {
		c.done = true
		return
	}
	if err := c.rc.Flush(); err != nil {
		c.done = true
	}
}

// eventLocked writes one SSE event carrying msg and flushes it. A write
// error (the client left) ends the call.
func (c *httpCall) eventLocked(msg []byte) {
	_ = c.rc.SetWriteDeadline(time.Now().Add(httpWriteTimeout))
	if _, err := c.w.Write(sseEvent(msg)); err != nil {
		c.done = true
		return
	}
	if err := c.rc.Flush(); err != nil {
		c.done = true
	}
}

// mirroredHeaders returns the check that compares the request headers a
// client mirrors from the body with the parsed body, as
// [§Server Validation] requires; any failure is -32020 naming the header.
// Values are trimmed of optional whitespace; header names are matched
// case-insensitively (net/http canonicalises them).
// [§Server Validation]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation
func mirroredHeaders(h http.Header) func(req *request) *rpcError {
	return func(req *request) *rpcError {
		v, rerr := plainHeader(h, headerProtocolVersion)
		if rerr != nil {
			return rerr
		}
		if v != req.meta.version {
			return headerMismatch("%s header does not match _meta %s", headerProtocolVersion, metaProtocolVersion)
		}
		if !isModern(req.meta.version) {
			// Unsupported (-32022 follows): its header rules are unknown.
			return nil
		}
		if v, rerr = plainHeader(h, headerMethod); rerr != nil {
			return rerr
		}
		if v != req.method {
			return headerMismatch("%s header does not match the method", headerMethod)
		}
		var member string
		switch req.method {
		case "tools/call", "prompts/get":
			member = "name"
		case "resources/read":
			member = "uri"
		default:
			return nil
		}
		want, ok := jsonString(req.param(member))
		if !ok {
			return nil // the handler answers -32602 for the body itself
		}
		got, present, valid := encodedHeader(h, headerName)
		switch {
		case !present:
			return headerMismatch("%s header is missing", headerName)
		case !valid:
			return headerMismatch("%s header is malformed", headerName)
		case got != want:
			return headerMismatch("%s header does not match params.%s", headerName, member)
		}
		if req.method == "tools/call" {
			if t := req.server.registry().tool(want); t != nil {
				return paramHeaders(h, t.headers, req.param("arguments"))
			}
		}
		return nil
	}
}

// paramHeaders checks the Mcp-Param-{Name} headers of a tool's x-mcp-header
// parameters: required when the argument is present and not null, equal to
// it after decoding (integers compared numerically), and absent otherwise.
// [§Custom Headers]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-behavior-for-custom-headers
func paramHeaders(h http.Header, decls []mcpHeader, args []byte) *rpcError {
	for _, d := range decls {
		name := headerParamPrefix + d.Name
		body := argumentAt(args, d.Path)
		got, present, valid := encodedHeader(h, name)
		switch {
		case body == nil && present:
			// A header the body does not back would let an intermediary
			// route on a value the server never sees.
			return headerMismatch("%s header has no argument to mirror", name)
		case body == nil:
			continue
		case !present:
			return headerMismatch("%s header is missing", name)
		case !valid:
			return headerMismatch("%s header is malformed", name)
		case !headerMatches(got, body):
			return headerMismatch("%s header does not match the argument", name)
		}
	}
	return nil
}

// argumentAt returns the raw value at path in the arguments object, or nil
// when absent or null.
func argumentAt(args []byte, path []string) []byte {
	cur := args
	for _, key := range path {
		if jsonKind(cur) != '{' {
			return nil
		}
		members, err := objectMembers(cur)
		if err != nil {
			return nil
		}
		cur = nil
		for _, m := range members {
			if m.name == key {
				cur = m.value
				break
			}
		}
	}
	if cur == nil || jsonKind(cur) == 'n' {
		return nil
	}
	return bytes.TrimSpace(cur)
}

// headerMatches compares a decoded header value with the raw argument it
// mirrors, converted as [§Value Encoding] says: a string as is, a number
// by value ("42.0" equals 42), a boolean as "true" or "false".
// [§Value Encoding]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#value-encoding
func headerMatches(got string, body []byte) bool {
	switch jsonKind(body) {
	case '"':
		s, ok := jsonString(body)
		return ok && got == s
	case 't':
		return got == "true"
	case 'f':
		return got == "false"
	case '0':
		want, err := parseSchemaDecimal(string(body))
		if err != nil {
			return false
		}
		have, err := parseSchemaDecimal(got)
		return err == nil && have.cmp(want) == 0
	}
	return false // objects and arrays cannot be mirrored
}

// plainHeader returns a required header that carries a plain value (no
// Base64 sentinel): present exactly once, visible ASCII.
func plainHeader(h http.Header, name string) (string, *rpcError) {
	vs := h.Values(name)
	switch {
	case len(vs) == 0:
		return "", headerMismatch("%s header is missing", name)
	case len(vs) > 1:
		return "", headerMismatch("%s header appears more than once", name)
	}
	v := strings.Trim(vs[0], " \t")
	if !isHeaderText(v) {
		return "", headerMismatch("%s header is malformed", name)
	}
	return v, nil
}

// base64Prefix and base64Suffix mark a Base64-encoded header value; both
// are case-sensitive.
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// encodedHeader returns the decoded value of a header that may use the
// Base64 sentinel (Mcp-Name, Mcp-Param-*). valid is false for a header
// sent more than once, bad Base64 (strict: canonical padding, standard
// alphabet only), a decoded value that is not UTF-8, or a plain value
// with characters outside visible ASCII, space and tab.
func encodedHeader(h http.Header, name string) (value string, present, valid bool) {
	vs := h.Values(name)
	if len(vs) == 0 {
		return "", false, false
	}
	if len(vs) > 1 {
		return "", true, false
	}
	v := strings.Trim(vs[0], " \t")
	if len(v) >= len(base64Prefix)+len(base64Suffix) && strings.HasPrefix(v, base64Prefix) && strings.HasSuffix(v, base64Suffix) {
		enc := v[len(base64Prefix) : len(v)-len(base64Suffix)]
		// DecodeString skips CR and LF even in strict mode; refuse them.
		if strings.ContainsAny(enc, "\r\n") {
			return "", true, false
		}
		b, err := base64.StdEncoding.Strict().DecodeString(enc)
		if err != nil || !utf8.Valid(b) {
			return "", true, false
		}
		return string(b), true, true
	}
	return v, true, isHeaderText(v)
}

// isHeaderText reports whether v holds only visible ASCII, space and tab,
// the plain header values [§Value Encoding] allows.
func isHeaderText(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; (b < 0x20 && b != '\t') || b > 0x7e {
			return false
		}
	}
	return true
}

// headerMismatch is the -32020 HeaderMismatch error.
func headerMismatch(format string, args ...any) *rpcError {
	return newError(codeHeaderMismatch, "header mismatch: "+format, args...)
}
