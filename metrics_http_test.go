//go:build !stdio

// Tests of the metrics (metrics_http.go): the exposition's grammar, counters
// and gauges that move as requests are served, the label sets that stay
// closed, the listener, and the build's version (-version, build_info,
// serverInfo).

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// promSample is one sample line of an exposition.
type promSample struct {
	name   string
	labels map[string]string
	value  float64
}

// key identifies the sample's series: its name and labels, sorted.
func (p promSample) key() string { return seriesKey(p.name, p.labels) }

// seriesKey spells a series as name{k="v",...} with sorted labels.
func seriesKey(name string, labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sortStrings(keys)
	var b strings.Builder
	b.WriteString(name + "{")
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%q", k, labels[k])
	}
	return b.String() + "}"
}

// sortStrings sorts s in place (insertion sort: label sets are tiny).
func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

var (
	promName      = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	promLabelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// mustParseExposition checks text against the Prometheus text format
// 0.0.4 and returns its samples by series key. It fails the test on: a
// line that is neither a comment nor a sample; a family without HELP and
// TYPE before its samples, or declared twice; a bad metric or label name;
// a badly escaped label value; a value that is not a number; a series
// twice; a counter not ending in _total; a histogram whose buckets lack
// le, are not cumulative, do not end with +Inf, or disagree with _count,
// or that lacks _sum.
func mustParseExposition(tb testing.TB, text string) map[string]promSample {
	tb.Helper()
	types := map[string]string{}
	helped := map[string]bool{}
	samples := map[string]promSample{}
	var order []promSample
	family := func(name string) (string, string) {
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suffix); ok && (types[base] == "histogram" || types[base] == "summary" && suffix != "_bucket") {
				return base, types[base]
			}
		}
		return name, types[name]
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "# "); ok {
			kind, rest, _ := strings.Cut(rest, " ")
			name, arg, _ := strings.Cut(rest, " ")
			if !promName.MatchString(name) {
				tb.Fatalf("line %d: bad metric name %q", n, name)
			}
			switch kind {
			case "HELP":
				if helped[name] {
					tb.Fatalf("line %d: second HELP for %s", n, name)
				}
				if strings.Contains(strings.ReplaceAll(strings.ReplaceAll(arg, `\\`, ""), `\n`, ""), `\`) {
					tb.Fatalf("line %d: bad escape in HELP %q", n, arg)
				}
				helped[name] = true
			case "TYPE":
				if types[name] != "" {
					tb.Fatalf("line %d: second TYPE for %s", n, name)
				}
				if !helped[name] {
					tb.Fatalf("line %d: TYPE before HELP for %s", n, name)
				}
				switch arg {
				case "counter", "gauge", "histogram", "summary":
				default:
					tb.Fatalf("line %d: type %q", n, arg)
				}
				if arg == "counter" && !strings.HasSuffix(name, "_total") {
					tb.Fatalf("line %d: counter %s does not end in _total", n, name)
				}
				types[name] = arg
			default:
				tb.Fatalf("line %d: comment %q", n, line)
			}
			continue
		}
		s := promSample{labels: map[string]string{}}
		i := strings.IndexAny(line, "{ ")
		if i < 0 {
			tb.Fatalf("line %d: no value: %q", n, line)
		}
		s.name, line = line[:i], line[i:]
		if !promName.MatchString(s.name) {
			tb.Fatalf("line %d: bad metric name %q", n, s.name)
		}
		if strings.HasPrefix(line, "{") {
			line = line[1:]
			for !strings.HasPrefix(line, "}") {
				k, rest, ok := strings.Cut(line, "=")
				if !ok || !promLabelName.MatchString(k) {
					tb.Fatalf("line %d: bad label in %q", n, line)
				}
				q, err := strconv.QuotedPrefix(rest)
				if err != nil || !strings.HasPrefix(rest, `"`) {
					tb.Fatalf("line %d: bad label value in %q", n, rest)
				}
				v, _ := strconv.Unquote(q)
				if _, dup := s.labels[k]; dup {
					tb.Fatalf("line %d: label %s twice", n, k)
				}
				s.labels[k] = v
				line = strings.TrimPrefix(rest[len(q):], ",")
			}
			line = line[1:]
		}
		v, ok := strings.CutPrefix(line, " ")
		if !ok {
			tb.Fatalf("line %d: no space before the value", n)
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			tb.Fatalf("line %d: value %q: %v", n, v, err)
		}
		s.value = f
		base, typ := family(s.name)
		if typ == "" || !helped[base] {
			tb.Fatalf("line %d: sample %s before its HELP and TYPE", n, s.name)
		}
		if _, dup := samples[s.key()]; dup {
			tb.Fatalf("line %d: series %s twice", n, s.key())
		}
		samples[s.key()] = s
		order = append(order, s)
	}
	// Histograms: per series (labels without le), cumulative buckets
	// ending in +Inf, equal to _count, with a _sum.
	type hist struct {
		base      string
		labels    map[string]string
		last, inf float64
		hasInf    bool
	}
	hists := map[string]*hist{}
	for _, s := range order {
		base, typ := family(s.name)
		if typ != "histogram" {
			continue
		}
		labels := map[string]string{}
		for k, v := range s.labels {
			if k != "le" {
				labels[k] = v
			}
		}
		key := seriesKey(base, labels)
		h := hists[key]
		if h == nil {
			h = &hist{base: base, labels: labels}
			hists[key] = h
		}
		switch s.name {
		case base + "_bucket":
			le, ok := s.labels["le"]
			if !ok {
				tb.Fatalf("bucket %s without le", s.key())
			}
			if h.hasInf || s.value < h.last {
				tb.Fatalf("bucket %s: not cumulative, or after +Inf", s.key())
			}
			h.last = s.value
			if le == "+Inf" {
				h.inf, h.hasInf = s.value, true
			} else if _, err := strconv.ParseFloat(le, 64); err != nil {
				tb.Fatalf("bucket %s: le %q", s.key(), le)
			}
		case base + "_count":
			if !h.hasInf || s.value != h.inf {
				tb.Fatalf("%s = %v, want the +Inf bucket %v", s.key(), s.value, h.inf)
			}
		case base + "_sum":
			if _, ok := samples[seriesKey(base+"_count", labels)]; ok && !h.hasInf {
				tb.Fatalf("%s before its buckets", s.key())
			}
		}
	}
	for key, h := range hists {
		if _, ok := samples[seriesKey(h.base+"_sum", h.labels)]; !ok {
			tb.Fatalf("histogram %s has no _sum", key)
		}
		if _, ok := samples[seriesKey(h.base+"_count", h.labels)]; !ok || !h.hasInf {
			tb.Fatalf("histogram %s has no _count or no +Inf bucket", key)
		}
	}
	return samples
}

// metricValue returns the value of the series name{labels} (labels as
// k, v pairs), and whether it exists.
func metricValue(samples map[string]promSample, name string, labels ...string) (float64, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		m[labels[i]] = labels[i+1]
	}
	s, ok := samples[seriesKey(name, m)]
	return s.value, ok
}

// TestMetricsMove serves requests of every kind over stdio and HTTP and
// checks, on an exposition that passes the grammar, that each counter,
// histogram and gauge moved by what was served.
func TestMetricsMove(t *testing.T) {
	s := newTestServer(t, withRegistry("base", "extras"), withFlags("-rate-limit", "0.001", "-rate-burst", "3"))
	before := mustParseExposition(t, string(s.metrics.exposition()))
	if v, ok := metricValue(before, "baremcp_requests_in_flight"); !ok || v != 0 {
		t.Fatalf("in flight before anything = %v %v", v, ok)
	}

	c := newTestConn(t, s)
	for i, line := range []string{
		req("1", "tools/call", `"name":"echo","arguments":{"message":"x"}`),
		req("2", "tools/call", `"name":"fail"`),
		req("3", "nope/nope", ""),
		req("4", "tools/list", ""),
		// A call that lasts testSlowStep: the latency sum below is then
		// above zero on any clock, Windows' included, whose reading may
		// not move during an echo.
		req("5", "tools/call", `"name":"slow","arguments":{"steps":1}`),
	} {
		c.send(line)
		if got := c.recv(); !strings.Contains(got, fmt.Sprintf(`"id":%d`, i+1)) {
			t.Fatalf("reply %s", got)
		}
	}
	c.close()
	ts := newTestHTTP(t, s, &httpConfig{auth: authConfig{tokens: mustSingleToken(t, testToken)}})
	auth := []string{"Authorization: Bearer " + testToken}
	// Each principal has its own bucket of 3: the fourth call is refused.
	for _, edits := range [][]string{auth, auth, auth, auth, {"-Authorization"}, {"Authorization: Bearer two words"}, {"Authorization: Bearer wrong"}} {
		mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", req("5", "tools/call", `"name":"echo","arguments":{"message":"x"}`), edits))
	}

	after := mustParseExposition(t, string(s.metrics.exposition()))
	for _, tt := range []struct {
		name   string
		labels []string
		delta  float64
	}{
		{"baremcp_requests_total", []string{"method", "tools/call", "era", "modern", "transport", "stdio", "outcome", "ok"}, 2},
		{"baremcp_requests_total", []string{"method", "tools/call", "era", "modern", "transport", "stdio", "outcome", "tool_error"}, 1},
		{"baremcp_requests_total", []string{"method", "other", "era", "modern", "transport", "stdio", "outcome", "client_error"}, 1},
		{"baremcp_requests_total", []string{"method", "tools/list", "era", "modern", "transport", "stdio", "outcome", "ok"}, 1},
		{"baremcp_requests_total", []string{"method", "tools/call", "era", "modern", "transport", "http", "outcome", "ok"}, 3},
		{"baremcp_requests_total", []string{"method", "tools/call", "era", "modern", "transport", "http", "outcome", "rate_limited"}, 1},
		{"baremcp_request_duration_seconds_count", []string{"method", "tools/call"}, 7},
		{"baremcp_request_duration_seconds_bucket", []string{"method", "tools/call", "le", "+Inf"}, 7},
		{"baremcp_request_duration_seconds_count", []string{"method", "other"}, 1},
		{"baremcp_rate_limited_total", nil, 1},
		{"baremcp_auth_failures_total", []string{"reason", "missing"}, 1},
		{"baremcp_auth_failures_total", []string{"reason", "malformed"}, 1},
		{"baremcp_auth_failures_total", []string{"reason", "invalid"}, 1},
		{"baremcp_requests_in_flight", nil, 0},
		{"baremcp_sse_streams_open", nil, 0},
		{"baremcp_subscriptions_open", nil, 0},
		{"baremcp_tasks_held", nil, 0},
	} {
		b, _ := metricValue(before, tt.name, tt.labels...)
		a, ok := metricValue(after, tt.name, tt.labels...)
		if !ok || a-b != tt.delta {
			t.Errorf("%s %q moved by %v (present %v), want %v", tt.name, tt.labels, a-b, ok, tt.delta)
		}
	}
	if sum, _ := metricValue(after, "baremcp_request_duration_seconds_sum", "method", "tools/call"); sum <= 0 {
		t.Errorf("tools/call latency sum = %v, want > 0", sum)
	}
	for key, s := range after {
		if m := s.labels["method"]; m != "" && m != "other" {
			if _, known := methods[m]; !known {
				t.Errorf("series %s has a method label outside the methods table", key)
			}
		}
	}
}

// TestMetricsGauges checks the gauges of what is open, in a bubble so
// that "closed" is observable: a listen stream over HTTP counts as an
// SSE stream, a subscription and a request in flight while open, and a
// classic session while it lives; all go back to zero.
func TestMetricsGauges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t)
		ts := newTestHTTP(t, s, nil)
		gauges := func() (flight, sse, subs, sessions float64) {
			m := mustParseExposition(t, string(s.metrics.exposition()))
			flight, _ = metricValue(m, "baremcp_requests_in_flight")
			sse, _ = metricValue(m, "baremcp_sse_streams_open")
			subs, _ = metricValue(m, "baremcp_subscriptions_open")
			sessions, _ = metricValue(m, "baremcp_sessions_open")
			return
		}
		ctx, cancel := context.WithCancel(t.Context())
		resp, err := ts.Client().Do(newTestHTTPRequest(t, ctx, ts, "", subExpand(listenTools), nil))
		if err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(resp.Body)
		if line, _ := r.ReadString('\n'); !strings.HasPrefix(line, "event: message") {
			t.Fatalf("listen stream opened with %q", line)
		}
		synctest.Wait()
		if f, e, sub, _ := gauges(); f != 1 || e != 1 || sub != 1 {
			t.Errorf("with a listen stream open: in flight %v, SSE streams %v, subscriptions %v; want 1 1 1", f, e, sub)
		}
		cancel()
		resp.Body.Close()
		c := newTestClassicClient(t, ts)
		c.initialize(bridgeInit(version20251125, `{}`))
		synctest.Wait()
		if f, e, sub, sess := gauges(); f != 0 || e != 0 || sub != 0 || sess != 1 {
			t.Errorf("after the stream closed, with a classic session: in flight %v, SSE streams %v, subscriptions %v, sessions %v; want 0 0 0 1", f, e, sub, sess)
		}
	})
}

// TestMetricsServedAllocatesNothing checks the hot path's cost: counting
// a request allocates nothing.
func TestMetricsServedAllocatesNothing(t *testing.T) {
	m := newMetrics(newTestServer(t))
	if n := testing.AllocsPerRun(100, func() {
		m.started()
		m.served("tools/call", modernEra, transportHTTP, outcomeOK, 300*time.Microsecond)
		m.started()
		m.served("some/invention", classicEra, transportStdio, outcomeClientError, time.Hour)
	}); n != 0 {
		t.Errorf("served allocates %v times per call, want 0", n)
	}
}

// TestMetricsHistogramBuckets checks that a duration lands in the first
// bucket whose bound it does not exceed (le is inclusive), and beyond the
// last in +Inf.
func TestMetricsHistogramBuckets(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string // le of the first bucket counting it
	}{
		{0, "0.0001"},
		{100 * time.Microsecond, "0.0001"},
		{100*time.Microsecond + 1, "0.00025"},
		{time.Second, "1"},
		{5 * time.Minute, "300"},
		{time.Hour, "+Inf"},
	} {
		m := newMetrics(newTestServer(t))
		m.served("ping", classicEra, transportStdio, outcomeOK, tt.d)
		samples := mustParseExposition(t, string(m.exposition()))
		got := ""
		for _, le := range append(boundLabels(), "+Inf") {
			if v, _ := metricValue(samples, "baremcp_request_duration_seconds_bucket", "method", "ping", "le", le); v == 1 {
				got = le
				break
			}
		}
		if got != tt.want {
			t.Errorf("%v first counted in le=%q, want %q", tt.d, got, tt.want)
		}
	}
}

// boundLabels are the le values of latencyBounds.
func boundLabels() []string {
	var out []string
	for _, b := range latencyBounds {
		out = append(out, strconv.FormatFloat(b.Seconds(), 'g', -1, 64))
	}
	return out
}

// TestMetricsListener checks -metrics: the address a bare port gets, and
// the listener's answers (GET /metrics in the text format, nothing else,
// a foreign Host refused on loopback).
func TestMetricsListener(t *testing.T) {
	for _, tt := range []struct {
		arg, want string
	}{
		{"9090", "127.0.0.1:9090"},
		{":9090", "127.0.0.1:9090"},
		{"0.0.0.0:9090", "0.0.0.0:9090"},
		{"nonsense", ""},
	} {
		cfg, err := parseFlags([]string{"-metrics", tt.arg}, io.Discard, func(string) string { return "" })
		got := ""
		if err == nil {
			got = cfg.http.metricsAddr
		}
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("-metrics %s = %q, %v; want %q", tt.arg, got, err, tt.want)
		}
	}
	s := newTestServer(t)
	bound, stop, err := s.serveMetrics("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	url := "http://" + bound.String()
	for _, tt := range []struct {
		method, path, host string
		status             int
	}{
		{"GET", "/metrics", "", 200},
		{"GET", "/metrics", "evil.example", 403},
		{"POST", "/metrics", "", 405},
		{"GET", "/mcp", "", 404},
		{"GET", "/healthz", "", 200},
		{"GET", "/readyz", "evil.example", 200},
		{"GET", "/sse", "", 404},
	} {
		r, _ := http.NewRequestWithContext(t.Context(), tt.method, url+tt.path, nil)
		if tt.host != "" {
			r.Host = tt.host
		}
		got := mustDo(t, http.DefaultClient, r)
		if got.status != tt.status {
			t.Errorf("%s %s (Host %q) = %d, want %d", tt.method, tt.path, tt.host, got.status, tt.status)
		}
		if tt.status == 200 && tt.path == "/metrics" {
			if ct := got.header.Get("Content-Type"); ct != metricsContentType {
				t.Errorf("Content-Type %q, want %q", ct, metricsContentType)
			}
			mustParseExposition(t, string(got.body))
		}
	}
	// One address holds metricsConnectionsPerAddr of the listener's
	// connections at most (review B, finding 14: it had no bound): its
	// next connection takes the place of its quietest.
	var held []net.Conn
	for range metricsConnectionsPerAddr + 1 {
		held = append(held, mustDial(t, bound.String(), "127.0.0.1"))
	}
	mustBeClosed(t, held[0], "the first connection of an address past its share of the metrics listener")
	r, _ := http.NewRequestWithContext(t.Context(), "GET", url+"/metrics", nil)
	if err := r.Write(held[len(held)-1]); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.ReadResponse(bufio.NewReader(held[len(held)-1]), r); err != nil || resp.StatusCode != 200 {
		t.Errorf("GET /metrics on the connection that took its place: %v, %v", resp, err)
	} else {
		resp.Body.Close()
	}
}

// TestVersion checks that -version prints the build (module version,
// revision, Go release) and serves nothing, and that the product's
// serverInfo.version and build_info carry the same version.
func TestVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"-version"}, strings.NewReader(""), &out, &errOut, func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	b := readBuild()
	if got, want := out.String(), b.String()+"\n"; got != want || errOut.Len() != 0 {
		t.Errorf("-version wrote %q (stderr %q), want %q", got, errOut.String(), want)
	}
	if !strings.HasPrefix(out.String(), serverName+" "+b.version+" ") || !strings.Contains(out.String(), b.goVer) {
		t.Errorf("-version = %q, want the name, the version and the Go release", out.String())
	}
	product := newServer(config{}, newTestServer(t).log)
	if product.info.Version != b.version {
		t.Errorf("serverInfo.version = %q, want the build's %q", product.info.Version, b.version)
	}
	m := mustParseExposition(t, string(product.metrics.exposition()))
	if v, ok := metricValue(m, "baremcp_build_info", "version", b.version, "revision", b.revision, "goversion", b.goVer); !ok || v != 1 {
		t.Errorf("build_info for %+v missing", b)
	}
}

// TestAuthReasonOf checks the label of each kind of authentication
// refusal: the closed set of reasons, whatever the failure's own text.
func TestAuthReasonOf(t *testing.T) {
	for _, tt := range []struct {
		f    *authFailure
		want string
	}{
		{noCredential(), "missing"},
		{malformedCredential("two Authorization headers"), "malformed"},
		{invalidCredential("token expired at 12:00 for alice"), "invalid"},
		{&authFailure{status: 403, code: "insufficient_scope", reason: "insufficient scope"}, "insufficient_scope"},
		{&authFailure{status: 503, reason: "authorization server unreachable"}, "unavailable"},
	} {
		if got := authReasonNames[authReasonOf(tt.f)]; got != tt.want {
			t.Errorf("authReasonOf(%+v) = %s, want %s", *tt.f, got, tt.want)
		}
	}
}

// TestMetricsPreset checks what a first scrape holds before any request:
// every outcome of every method's request series at 0 on the transport
// served (none on the other, none of the classic era with -modern-only),
// the refusals' response series at 0, the configured limits, and the
// process and Go series under client_golang's names.
func TestMetricsPreset(t *testing.T) {
	for _, tt := range []struct {
		name    string
		flags   []string
		classic bool
	}{
		{"both eras", nil, true},
		{"modern only", []string{"-modern-only"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withFlags(tt.flags...), withConfig(func(c *config) { c.transport = transportHTTP }))
			text := string(s.metrics.exposition())
			mustParseExposition(t, text)
			has := func(series string) bool { return strings.Contains(text, "\n"+series+" ") }
			for _, series := range []string{
				`baremcp_requests_total{method="tools/call",era="modern",transport="http",outcome="server_error"}`,
				`baremcp_requests_total{method="tools/call",era="modern",transport="http",outcome="ok"}`,
				`baremcp_requests_total{method="other",era="modern",transport="http",outcome="client_error"}`,
				`baremcp_http_responses_total{code="403",reason="host"}`,
				`baremcp_http_responses_total{code="200",reason="answer"}`,
				`baremcp_limit{flag="max-requests"}`,
				`baremcp_limit{flag="rate-limit"}`,
				`process_start_time_seconds`, `go_goroutines`, `go_threads`, `go_gc_duration_seconds_count`,
				`go_memstats_heap_alloc_bytes`, `go_memstats_alloc_bytes_total`,
			} {
				if !has(series) {
					t.Errorf("no %s before any request", series)
				}
			}
			if runtime.GOOS == "linux" {
				for _, series := range []string{"process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes", "process_open_fds", "process_max_fds"} {
					if !has(series) {
						t.Errorf("no %s on Linux", series)
					}
				}
			}
			if has(`baremcp_requests_total{method="tools/call",era="modern",transport="stdio",outcome="ok"}`) {
				t.Error("series of stdio, a transport this server does not serve")
			}
			if got := has(`baremcp_requests_total{method="tools/call",era="classic",transport="http",outcome="ok"}`); got != tt.classic {
				t.Errorf("classic tools/call series present: %v, want %v", got, tt.classic)
			}
			if has(`baremcp_requests_total{method="server/discover",era="classic",transport="http",outcome="ok"}`) {
				t.Error("a classic series of server/discover, a modern-only method")
			}
		})
	}
}

// TestMetricsPprof checks -pprof: the profiles are served on the metrics
// listener only when asked for, behind its Host check, and -pprof alone
// is refused (there is no listener to serve them on).
func TestMetricsPprof(t *testing.T) {
	if _, err := parseFlags([]string{"-pprof"}, io.Discard, func(string) string { return "" }); err == nil {
		t.Error("-pprof without -metrics was accepted")
	}
	for _, tt := range []struct {
		profiles bool
		host     string
		status   int
	}{
		{false, "", 404},
		{true, "", 200},
		{true, "evil.example", 403},
	} {
		s := newTestServer(t)
		bound, stop, err := s.serveMetrics("127.0.0.1:0", tt.profiles)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := http.NewRequestWithContext(t.Context(), "GET", "http://"+bound.String()+"/debug/pprof/", nil)
		if tt.host != "" {
			r.Host = tt.host
		}
		if got := mustDo(t, http.DefaultClient, r); got.status != tt.status {
			t.Errorf("-pprof=%v, Host %q: GET /debug/pprof/ = %d, want %d", tt.profiles, tt.host, got.status, tt.status)
		}
		stop()
	}
}
