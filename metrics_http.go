//go:build !stdio

// Metrics: counters, gauges and latency histograms of the server, kept
// with atomic adds on the request path, and written in the Prometheus
// text exposition format on a listener of their own (-metrics ADDR, off
// by default, loopback unless told otherwise).
//
// Label values come from closed sets only: the methods of the methods
// table (any other method is "other"), the two eras and transports, the
// outcomes, the authentication failure reasons. A client's string never
// becomes a label, so no peer can grow the number of series.
//
// Other parts of the server count through this file's small API: the
// authentication checks call authFailed with a reason (authReasonOf), transports open
// and close SSE streams with sseOpened and sseClosed, and a component
// with something to show at scrape time (the classic session store, a
// task store) registers a gauge with gauge.
//
// Spec: https://prometheus.io/docs/instrumenting/exposition_formats/
// (text format 0.0.4), https://prometheus.io/docs/practices/naming/.

package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// authReason is why an HTTP request failed authentication, as a metrics
// label: a closed set, derived from the refusal (authReasonOf), never
// from the failure's free-text reason, so no token can grow the series.
type authReason uint8

// The authentication failure reasons, and their names (authReasonNames).
const (
	authMissing     authReason = iota // no bearer token (401 without an error code)
	authMalformed                     // a request a bearer token cannot be in (400)
	authInvalid                       // a token that is not valid: unknown, expired, wrong audience... (401 invalid_token)
	authScope                         // a valid token without the base scopes (403 insufficient_scope)
	authUnavailable                   // the authorization server could not be asked (503)
	numAuthReasons
)

// authReasonNames spells the reasons, indexed by authReason.
var authReasonNames = [numAuthReasons]string{"missing", "malformed", "invalid", "insufficient_scope", "unavailable"}

// authReasonOf is the label of an authentication refusal (auth_http.go).
func authReasonOf(f *authFailure) authReason {
	switch {
	case f.status == 400:
		return authMalformed
	case f.status == 403:
		return authScope
	case f.status == 503:
		return authUnavailable
	case f.code == "":
		return authMissing
	}
	return authInvalid
}

// latencyBounds are the upper bounds of the request latency histogram's
// buckets: from the fast path (tens of µs) to long tools and
// subscriptions, roughly ×2.5 apart. Fixed, so that observing is a scan
// and an atomic add.
var latencyBounds = [...]time.Duration{
	100 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond,
	10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2500 * time.Millisecond, 5 * time.Second,
	10 * time.Second, 30 * time.Second, time.Minute, 5 * time.Minute,
}

// histogram counts durations in latencyBounds' buckets (the last is
// +Inf), not cumulated: the exposition sums them. The count is the sum of
// the buckets, so the two always agree in one scrape.
type histogram struct {
	buckets [len(latencyBounds) + 1]atomic.Uint64
	sum     atomic.Int64 // nanoseconds
}

// observe counts d.
func (h *histogram) observe(d time.Duration) {
	i := 0
	for i < len(latencyBounds) && d > latencyBounds[i] {
		i++
	}
	h.buckets[i].Add(1)
	h.sum.Add(int64(d))
}

// The label spaces of the request counter.
const (
	numEras = 2 // modern, classic (eraIndex)
)

// metrics is the server's instrumentation: one per server, safe for
// concurrent use. Counters and histograms are atomics indexed by closed
// label sets; gauges are atomics or read at scrape time (gauge).
type metrics struct {
	methodNames []string       // label values: the methods table's requests, sorted, then "other"
	methodIndex map[string]int // read-only once built

	requests     []atomic.Uint64 // [method][era][transport][outcome], flattened (requestSlot)
	latency      []histogram     // per method
	inFlight     atomic.Int64
	sseStreams   atomic.Int64
	rateLimited  atomic.Uint64
	busy         atomic.Uint64 // HTTP requests refused with 503: every slot taken
	authFailures [numAuthReasons]atomic.Uint64
	responses    httpResponses // HTTP responses by status and reason (httpsse_responses.go)

	build build
	start time.Time

	// log is the log's writer, whose dropped lines, backlog and stall are
	// read at scrape time; nil for none.
	log *logSink

	// transports are the transports this process serves, and modernOnly
	// says the classic era is off: the request series they can have are
	// written from the start, at 0 (preset).
	transports [numTransports]atomic.Bool
	modernOnly bool

	// limits are the configured limits, by flag, written as
	// baremcp_limit (setLimit); guarded by mu.
	limits map[string]float64

	mu     sync.Mutex // guards gauges, limits
	gauges []gaugeFunc
}

// gaugeFunc is a gauge read when it is scraped.
type gaugeFunc struct {
	name, help string
	read       func() int64
}

// newMetrics returns zeroed metrics for the methods table, with the
// gauges read from s (its subscriptions and tasks) and its build, at the
// version s serves (serverInfo.version).
func newMetrics(s *server) *metrics {
	b := readBuild()
	b.version = s.info.Version
	m := &metrics{build: b, start: time.Now(), methodIndex: map[string]int{}}
	for name, meth := range methods {
		if !meth.notification {
			m.methodNames = append(m.methodNames, name)
		}
	}
	slices.Sort(m.methodNames)
	m.methodNames = append(m.methodNames, "other")
	for i, name := range m.methodNames {
		m.methodIndex[name] = i
	}
	m.requests = make([]atomic.Uint64, len(m.methodNames)*numEras*int(numTransports)*int(numOutcomes))
	m.latency = make([]histogram, len(m.methodNames))
	m.log, m.modernOnly = s.logSink, s.modernOnly
	m.serving(s.transport)
	m.setLimits(s)
	m.gauge("baremcp_subscriptions_open", "subscriptions/listen requests open now.", func() int64 { return int64(s.subs.count()) })
	m.gauge("baremcp_tasks_held", "Tasks held now: running, waiting for input, or finished and not yet expired (-max-tasks).", func() int64 {
		_, n := s.tasks.count.held("") // count agrees with the tasks held (TestTaskFloodBoundedMemory)
		return n
	})
	return m
}

// method returns the label index of a method name: "other" for a method
// the table does not hold (a client's invention).
func (m *metrics) method(name string) int {
	if i, ok := m.methodIndex[name]; ok {
		return i
	}
	return len(m.methodNames) - 1
}

// eraIndex is the label index of an era.
func eraIndex(e era) int {
	if e == classicEra {
		return 1
	}
	return 0
}

// requestSlot is the index of one series of the request counter.
func (m *metrics) requestSlot(method, era int, tr transport, out outcome) int {
	return ((method*numEras+era)*int(numTransports)+int(tr))*int(numOutcomes) + int(out)
}

// started counts a request in flight, until served counts it answered.
func (m *metrics) started() { m.inFlight.Add(1) }

// served counts one request answered: its method, era, transport and
// outcome, and its latency; it is no longer in flight.
func (m *metrics) served(method string, e era, tr transport, out outcome, d time.Duration) {
	m.inFlight.Add(-1)
	i := m.method(method)
	m.requests[m.requestSlot(i, eraIndex(e), tr, out)].Add(1)
	m.latency[i].observe(d)
	if out == outcomeRateLimited {
		m.rateLimited.Add(1)
	}
}

// authFailed counts an HTTP request refused by authentication, by reason.
func (m *metrics) authFailed(reason authReason) { m.authFailures[reason].Add(1) }

// busyRefused counts an HTTP request refused because every request slot
// stayed taken (503).
func (m *metrics) busyRefused() { m.busy.Add(1) }

// sseOpened counts an SSE response stream (a request's, or a classic
// session's GET stream) opened; sseClosed counts it closed.
func (m *metrics) sseOpened() { m.sseStreams.Add(1) }

// sseClosed counts an SSE response stream closed (see sseOpened).
func (m *metrics) sseClosed() { m.sseStreams.Add(-1) }

// gauge registers read as the gauge name, written with help at every
// scrape. Registering a name again replaces the first: the latest
// transport (or store) owns it. name must be a valid metric name; the
// server's gauges start with "baremcp_". read must be cheap and safe for
// concurrent use: it runs on the scraping goroutine.
func (m *metrics) gauge(name, help string, read func() int64) {
	if !validMetricName(name) {
		panic("metrics.gauge: invalid metric name " + strconv.Quote(name))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.gauges {
		if m.gauges[i].name == name {
			m.gauges[i] = gaugeFunc{name, help, read}
			return
		}
	}
	m.gauges = append(m.gauges, gaugeFunc{name, help, read})
}

// validMetricName reports whether name matches [a-zA-Z_:][a-zA-Z0-9_:]*.
func validMetricName(name string) bool {
	for i, c := range []byte(name) {
		if !(c == '_' || c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return name != ""
}

// metricsContentType is the text exposition format's media type.
const metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

// exposition returns every metric in the text format: a HELP and a TYPE
// line per metric family, then its samples. Counters and histograms of
// the request path have a series once they have counted something; the
// other families are always present. The order is fixed.
func (m *metrics) exposition() []byte {
	var b expo
	family, sample := b.family, b.sample
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }

	family("baremcp_requests_total", "counter", "JSON-RPC requests answered, by method, era, transport and outcome.")
	for mi, method := range m.methodNames {
		for e, era := range [numEras]string{"modern", "classic"} {
			for tr := range numTransports {
				for out := range numOutcomes {
					if v := m.requests[m.requestSlot(mi, e, tr, out)].Load(); v > 0 || m.preset(method, e, tr) {
						sample("baremcp_requests_total", []string{"method", method, "era", era, "transport", transportNames[tr], "outcome", outcomeNames[out]}, u(v))
					}
				}
			}
		}
	}

	family("baremcp_request_duration_seconds", "histogram", "Time from a request's dispatch to its answer, by method.")
	for mi, method := range m.methodNames {
		h := &m.latency[mi]
		var counts [len(latencyBounds) + 1]uint64
		var total uint64
		for i := range h.buckets {
			counts[i] = h.buckets[i].Load()
			total += counts[i]
		}
		if total == 0 {
			continue
		}
		var cum uint64
		for i, c := range counts {
			cum += c
			le := "+Inf"
			if i < len(latencyBounds) {
				le = strconv.FormatFloat(latencyBounds[i].Seconds(), 'g', -1, 64)
			}
			sample("baremcp_request_duration_seconds_bucket", []string{"method", method, "le", le}, u(cum))
		}
		sample("baremcp_request_duration_seconds_sum", []string{"method", method}, strconv.FormatFloat(time.Duration(h.sum.Load()).Seconds(), 'g', -1, 64))
		sample("baremcp_request_duration_seconds_count", []string{"method", method}, u(total))
	}

	family("baremcp_requests_in_flight", "gauge", "Requests being served now (open subscriptions/listen requests included).")
	sample("baremcp_requests_in_flight", nil, i64(m.inFlight.Load()))
	family("baremcp_sse_streams_open", "gauge", "SSE response streams open now (request streams and classic GET streams).")
	sample("baremcp_sse_streams_open", nil, i64(m.sseStreams.Load()))
	family("baremcp_rate_limited_total", "counter", "tools/call requests refused by -rate-limit.")
	sample("baremcp_rate_limited_total", nil, u(m.rateLimited.Load()))
	family("baremcp_busy_refusals_total", "counter", "HTTP requests refused with 503 because every -max-requests slot stayed taken.")
	sample("baremcp_busy_refusals_total", nil, u(m.busy.Load()))
	family("baremcp_auth_failures_total", "counter", "HTTP requests refused by authentication, by reason.")
	for r := range numAuthReasons {
		sample("baremcp_auth_failures_total", []string{"reason", authReasonNames[r]}, u(m.authFailures[r].Load()))
	}

	if l := m.log; l != nil {
		family("baremcp_log_lines_dropped_total", "counter", "Log lines dropped because the log's backlog was full: stderr was not read fast enough.")
		sample("baremcp_log_lines_dropped_total", nil, u(l.dropped.Load()))
		family("baremcp_log_backlog_bytes", "gauge", "Bytes of log lines queued behind the write in progress (at most "+strconv.Itoa(maxLogBacklog)+").")
		sample("baremcp_log_backlog_bytes", nil, strconv.Itoa(l.backlog()))
		family("baremcp_log_write_blocked_seconds", "gauge", "How long the log write in progress has been waiting; 0 when none. Past 1 nobody reads stderr: lines queue, then drop.")
		sample("baremcp_log_write_blocked_seconds", nil, strconv.FormatFloat(l.stalled(time.Now()).Seconds(), 'g', -1, 64))
	}

	family("baremcp_http_responses_total", "counter", "HTTP responses written, by status and reason (answer: a JSON-RPC request's; the refusals are listed in docs/OPERATIONS.md).")
	for si := range numHTTPStatuses {
		for r := range numHTTPReasons {
			if v := m.responses[si][r].Load(); v > 0 || presetResponse(si, r) {
				sample("baremcp_http_responses_total", []string{"code", statusName(si), "reason", httpReasonNames[r]}, u(v))
			}
		}
	}

	m.mu.Lock()
	gauges := slices.Clone(m.gauges)
	m.mu.Unlock()
	slices.SortFunc(gauges, func(a, b gaugeFunc) int { return strings.Compare(a.name, b.name) })
	for _, g := range gauges {
		family(g.name, "gauge", g.help)
		sample(g.name, nil, i64(g.read()))
	}

	family("baremcp_build_info", "gauge", "The running binary: module version, VCS revision and Go release; always 1.")
	sample("baremcp_build_info", []string{"version", m.build.version, "revision", m.build.revision, "goversion", m.build.goVer}, "1")
	m.writeLimits(&b)
	m.writeRuntime(&b)
	return b.Bytes()
}

// expo is an exposition being written.
type expo struct{ bytes.Buffer }

// family starts the family name of type typ.
func (b *expo) family(name, typ, help string) {
	b.WriteString("# HELP " + name + " " + escapeHelp(help) + "\n# TYPE " + name + " " + typ + "\n")
}

// sample writes one sample of name: labels are name, value pairs.
func (b *expo) sample(name string, labels []string, v string) {
	b.WriteString(name)
	for i := 0; i+1 < len(labels); i += 2 {
		if i == 0 {
			b.WriteByte('{')
		} else {
			b.WriteByte(',')
		}
		b.WriteString(labels[i] + `="` + escapeLabel(labels[i+1]) + `"`)
		if i+2 >= len(labels) {
			b.WriteByte('}')
		}
	}
	b.WriteString(" " + v + "\n")
}

// float formats v for a sample.
func float(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// loopbackOnly answers 403 to a request whose Host does not name
// loopback when on is set (a listener bound to loopback: DNS rebinding),
// and passes the others to next.
func loopbackOnly(on bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if on && !isLoopbackHost(r.Host) {
			setReason(w, reasonHost)
			http.Error(w, "forbidden: host not allowed", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// escapeHelp escapes a HELP text: backslash and line feed.
func escapeHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(s)
}

// escapeLabel escapes a label value: backslash, double quote, line feed.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// maxMetricsConnections bounds the open connections of the -metrics
// listener, and metricsConnectionsPerAddr one address's part of them: a
// scraper or two hold one each, an orchestrator's probe one at a time
// (probes close their connection), and on a non-loopback address anyone
// who reaches it can no longer hold connections without end (review B,
// finding 14). Four addresses, what the fourth review used to hold
// every connection (R4-8), hold a quarter of them; the listener makes
// room for a newcomer in place of a quiet connection beyond that
// (limitListener), so a probe always gets in while one is quiet
// (TestConnectionsHeldByFourAddresses).
const (
	maxMetricsConnections     = 64
	metricsConnectionsPerAddr = 4
)

// serveMetrics listens on addr and serves GET /metrics there until stop
// is called; stop closes the listener and waits for the serving
// goroutine. bound is the address it listens on. On a loopback address
// (the default for a bare port) only a Host naming loopback is answered,
// as on the MCP endpoint (DNS rebinding). The probes are served there
// too, without that check (TestConnectionsHeldByFourAddresses); no MCP. At
// most maxMetricsConnections are open.
func (s *server) serveMetrics(addr string, profiles bool) (bound net.Addr, stop func(), err error) {
	inner, err := s.confine.listen("-metrics", addr)
	if err != nil {
		return nil, nil, err
	}
	ln := newLimitListener(inner, maxMetricsConnections, metricsConnectionsPerAddr, nil)
	loopback := false
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok {
		loopback = tcp.IP.IsLoopback()
	}
	mux := http.NewServeMux()
	// The probes too, for an orchestrator: the MCP listener's
	// connections are bounded (-max-connections), and slow clients that
	// hold them all would keep a probe there from being read at all.
	s.probeRoutes(mux)
	if profiles {
		// Behind the same Host check as /metrics: a profile shows the
		// process's memory and command line. A CPU profile or trace
		// longer than the listener's write timeout (30 s) is refused:
		// ask for ?seconds=20.
		mux.Handle("/debug/pprof/", loopbackOnly(loopback, http.HandlerFunc(pprof.Index)))
		mux.Handle("/debug/pprof/cmdline", loopbackOnly(loopback, http.HandlerFunc(pprof.Cmdline)))
		mux.Handle("/debug/pprof/profile", loopbackOnly(loopback, http.HandlerFunc(pprof.Profile)))
		mux.Handle("/debug/pprof/symbol", loopbackOnly(loopback, http.HandlerFunc(pprof.Symbol)))
		mux.Handle("/debug/pprof/trace", loopbackOnly(loopback, http.HandlerFunc(pprof.Trace)))
	}
	mux.Handle("GET /metrics", loopbackOnly(loopback, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := s.metrics.exposition()
		h := w.Header()
		h.Set("Content-Type", metricsContentType)
		h.Set("Content-Length", strconv.Itoa(len(body)))
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write(body)
	})))
	srv := &http.Server{
		Handler:           countResponses(s.metrics, nil, mux),
		ReadHeaderTimeout: httpReadHeaderTimeout,
		ReadTimeout:       httpBodyReadTimeout,
		WriteTimeout:      httpWriteTimeout,
		IdleTimeout:       httpIdleTimeout,
		MaxHeaderBytes:    1 << 16,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.Background() },
		ConnState:         ln.connState,
	}
	s.log.Info("serving metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("metrics listener failed", "err", err)
		}
	})
	return ln.Addr(), func() {
		_ = srv.Close()
		wg.Wait()
	}, nil
}
