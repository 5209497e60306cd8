// Package scenario is the client-neutral half of the Go interop harness: the
// demo-registry scenarios, the PASS/FAIL report, and the baremcp process
// for HTTP runs. Each client module (one per pinned client version, because
// two versions of one module cannot share a go.mod) adapts its SDK to
// Session and calls Main.
//
// A scenario runs only where the negotiated revision and the client define
// it (elicitation and structured output from 2025-06-18, the completions
// capability from 2025-03-26, logging/setLevel only in the classic era);
// otherwise it prints a SKIP line, which no gate counts.
package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"
)

// The protocol revisions the scenarios distinguish.
const (
	V20241105 = "2024-11-05"
	V20250326 = "2025-03-26"
	V20250618 = "2025-06-18"
	V20251125 = "2025-11-25"
	V20260728 = "2026-07-28"
)

// LogLevelMetaKey carries the log level per request in the modern era,
// which has no logging/setLevel.
const LogLevelMetaKey = "io.modelcontextprotocol/logLevel"

// RootURI is the one root every client configuration offers.
const RootURI = "file:///tmp/a"

// SamplingAnswer is the text every sampling handler answers with.
const SamplingAnswer = "42"

// Client describes one pinned client library: its name as it appears in
// scenario names (e.g. "gosdk-v1.8.0"), the configurations it runs, and
// how to connect it.
type Client struct {
	Name    string
	Configs []Config
	Connect func(ctx context.Context, cfg Config, t Target, ev *Events) (Session, error)
}

// Config is one way of running a client: the version it is told to offer
// ("" for its default) and the version the server must answer with.
type Config struct {
	ID       string // part of the scenario name: the offered version, or "default"
	Offer    string // version to pin in the client; "" leaves the client's default
	Expect   string // the version the connection must end up at
	Features Features
}

// Modern reports whether the configuration expects the per-request _meta era.
func (c Config) Modern() bool { return c.Expect >= V20260728 }

// Features are what the client library itself implements, whatever the
// revision: a scenario whose feature is missing is skipped, not failed.
type Features struct {
	Elicitation bool // answers elicitation/create
	Sampling    bool // answers sampling/createMessage
	Roots       bool // answers roots/list
	// ServerRequestsOverHTTP: the HTTP transport hands server-to-client
	// requests (elicitation, sampling, roots) to the handlers above.
	ServerRequestsOverHTTP bool
	Logging                bool // reports notifications/message
	Completion             bool // has a completion/complete call
	// CompletionsCapability: the client exposes capabilities.completions
	// (some SDKs' capability structs have no such field).
	CompletionsCapability bool
}

// Target says where the client connects: a command it spawns (stdio) or
// a URL (Streamable HTTP).
type Target struct {
	Transport string // "stdio" or "http"
	Command   string
	Args      []string
	URL       string
}

// Session is a connected client. Results are the SDK's own values; the
// scenarios read them through their JSON form, so every SDK is judged on
// the same wire fields.
type Session interface {
	Negotiated() string      // the protocol version in effect
	ServerInfo() any         // serverInfo (classic) or nil
	ServerCapabilities() any // capabilities from initialize or server/discover
	SetLogLevel(ctx context.Context, level string) error
	ListTools(ctx context.Context) (any, error)
	// CallTool calls name; meta, when not nil, goes into params._meta
	// (progressToken, the modern log level).
	CallTool(ctx context.Context, name string, args map[string]any, meta map[string]any) (any, error)
	ListResources(ctx context.Context) (any, error)
	ListResourceTemplates(ctx context.Context) (any, error)
	ReadResource(ctx context.Context, uri string) (any, error)
	ListPrompts(ctx context.Context) (any, error)
	GetPrompt(ctx context.Context, name string, args map[string]string) (any, error)
	CompletePrompt(ctx context.Context, prompt, argument, value string) (any, error)
	Close() error
}

// Events records what the server sent the client outside responses. The
// adapters call its methods from their SDK's handlers; it is safe for
// concurrent use.
type Events struct {
	mu           sync.Mutex // guards all below
	progress     []float64
	logs         []string // levels
	elicitations []json.RawMessage
	samplings    []json.RawMessage
	errors       []string
}

// Progress records a notifications/progress value.
func (e *Events) Progress(progress float64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.progress = append(e.progress, progress)
}

// Log records a notifications/message level.
func (e *Events) Log(level string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.logs = append(e.logs, level)
}

// Error records an error the client reported asynchronously.
func (e *Events) Error(err string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.errors = append(e.errors, err)
}

// Elicit records an elicitation/create request (its params, any JSON
// value) and returns the content to accept it with: a value for every
// property of requestedSchema.
func (e *Events) Elicit(params any) map[string]any {
	raw, _ := json.Marshal(params)
	e.mu.Lock()
	e.elicitations = append(e.elicitations, raw)
	e.mu.Unlock()
	var p struct {
		RequestedSchema struct {
			Properties map[string]struct {
				Type    string `json:"type"`
				Format  string `json:"format"`
				Enum    []any  `json:"enum"`
				Default any    `json:"default"`
			} `json:"properties"`
		} `json:"requestedSchema"`
	}
	_ = json.Unmarshal(raw, &p)
	content := map[string]any{}
	for k, s := range p.RequestedSchema.Properties {
		switch {
		case s.Type == "boolean":
			content[k] = true
		case s.Type == "number" || s.Type == "integer":
			content[k] = 42
		case len(s.Enum) > 0:
			content[k] = s.Enum[0]
		case s.Format == "email":
			content[k] = "alice@example.com"
		default:
			content[k] = "alice"
		}
	}
	return content
}

// Sample records a sampling/createMessage request; the adapter answers
// with SamplingAnswer.
func (e *Events) Sample(params any) {
	raw, _ := json.Marshal(params)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.samplings = append(e.samplings, raw)
}

// snapshot returns the counts of what was recorded.
func (e *Events) snapshot() (progress []float64, logs []string, elicitations, samplings int, errs []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]float64(nil), e.progress...), append([]string(nil), e.logs...),
		len(e.elicitations), len(e.samplings), append([]string(nil), e.errors...)
}

// lastElicitation returns the params of the newest elicitation, or nil.
func (e *Events) lastElicitation() json.RawMessage {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.elicitations) == 0 {
		return nil
	}
	return e.elicitations[len(e.elicitations)-1]
}

// lastSampling returns the params of the newest sampling request, or nil.
func (e *Events) lastSampling() json.RawMessage {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.samplings) == 0 {
		return nil
	}
	return e.samplings[len(e.samplings)-1]
}

// options are Main's flags.
type options struct {
	server    string
	transport string
	config    *regexp.Regexp
	only      *regexp.Regexp
	timeout   time.Duration
	list      bool
}

// Main runs every configuration of c over the transports asked for and
// returns the exit status: 0 all passed, 1 a failure, 2 bad usage.
func Main(c Client, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	server := fs.String("server", "", "`path` of the baremcp binary (stdio: spawned by the client; http: started with -http)")
	transport := fs.String("transport", "all", "stdio, http or all")
	config := fs.String("config", "", "only configurations whose id matches `regexp`")
	only := fs.String("only", "", "only scenarios whose name matches `regexp`")
	timeout := fs.Duration("timeout", 15*time.Second, "per-scenario `timeout`")
	list := fs.Bool("list", false, "print the configurations and exit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	o := options{server: *server, transport: *transport, timeout: *timeout, list: *list}
	var err error
	if o.config, err = regexp.Compile(*config); err != nil {
		fmt.Fprintf(stderr, "%s: -config: %v\n", c.Name, err)
		return 2
	}
	if o.only, err = regexp.Compile(*only); err != nil {
		fmt.Fprintf(stderr, "%s: -only: %v\n", c.Name, err)
		return 2
	}
	transports := []string{"stdio", "http"}
	switch o.transport {
	case "all":
	case "stdio", "http":
		transports = []string{o.transport}
	default:
		fmt.Fprintf(stderr, "%s: -transport must be stdio, http or all\n", c.Name)
		return 2
	}
	if o.server == "" && !o.list {
		fmt.Fprintf(stderr, "%s: -server is required\n", c.Name)
		return 2
	}
	r := &reporter{out: stdout}
	for _, cfg := range c.Configs {
		if !o.config.MatchString(cfg.ID) {
			continue
		}
		for _, t := range transports {
			prefix := fmt.Sprintf("%s-%s/%s", c.Name, cfg.ID, t)
			if o.list {
				fmt.Fprintln(stdout, prefix)
				continue
			}
			runConfig(c, cfg, t, prefix, o, r, stderr)
		}
	}
	if o.list {
		return 0
	}
	fmt.Fprintf(stdout, "%d passed, %d failed\n", r.passed, r.failed)
	if r.failed > 0 {
		return 1
	}
	return 0
}

// reporter prints one line per scenario and counts them.
type reporter struct {
	out            io.Writer
	passed, failed int
}

// pass reports a scenario that passed.
func (r *reporter) pass(name string) {
	r.passed++
	fmt.Fprintf(r.out, "PASS %s\n", name)
}

// fail reports a scenario that failed, its reason on one line.
func (r *reporter) fail(name string, err error) {
	r.failed++
	fmt.Fprintf(r.out, "FAIL %s: %s\n", name, strings.Join(strings.Fields(err.Error()), " "))
}

// skip reports a scenario that does not apply; it is not counted.
func (r *reporter) skip(name, why string) {
	fmt.Fprintf(r.out, "SKIP %s: %s\n", name, why)
}

// run is the state one configuration × transport carries between scenarios.
type run struct {
	cfg       Config
	transport string
	s         Session
	ev        *Events
	tools     []toolInfo
	prompts   []promptInfo
	slow      *slowOutcome
}

// slowOutcome is what the slow tool's call left for the notification
// scenarios.
type slowOutcome struct {
	progress []float64
	logs     []string
}

// runConfig connects one configuration over one transport and runs every
// scenario on it.
func runConfig(c Client, cfg Config, transport, prefix string, o options, r *reporter, stderr io.Writer) {
	ev := &Events{}
	var t Target
	var srv *httpServer
	switch transport {
	case "stdio":
		t = Target{Transport: "stdio", Command: o.server}
	case "http":
		var err error
		srv, err = startHTTPServer(o.server, stderr)
		if err != nil {
			r.fail(prefix+"/connect", err)
			notRun(&run{cfg: cfg, transport: transport}, prefix, o, r)
			return
		}
		defer srv.stop()
		t = Target{Transport: "http", URL: srv.url}
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	s, err := c.Connect(ctx, cfg, t, ev)
	cancel()
	ru := &run{cfg: cfg, transport: transport, s: s, ev: ev}
	if err != nil {
		r.fail(prefix+"/connect", err)
		notRun(ru, prefix, o, r)
		return
	}
	r.pass(prefix + "/connect")
	for _, sc := range scenarios {
		if !o.only.MatchString(sc.name) {
			continue
		}
		name := prefix + "/" + sc.name
		if sc.needs != nil {
			if why := sc.needs(ru); why != "" {
				r.skip(name, why)
				continue
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
		err := runOne(ctx, sc.run, ru)
		cancel()
		if err != nil {
			r.fail(name, err)
		} else {
			r.pass(name)
		}
		if srv != nil && srv.exited() {
			r.fail(prefix+"/server-alive", fmt.Errorf("the HTTP server exited during %s", sc.name))
			break
		}
	}
	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	select {
	case err := <-done:
		if err != nil && !benignClose(err) {
			r.fail(prefix+"/close", err)
		} else {
			r.pass(prefix + "/close")
		}
	case <-time.After(10 * time.Second):
		r.fail(prefix+"/close", fmt.Errorf("close did not return within 10s"))
	}
}

// notRun fails every scenario that would have run on a connection that
// could not be made, so a cell's count does not shrink when connect fails.
func notRun(ru *run, prefix string, o options, r *reporter) {
	for _, sc := range scenarios {
		if !o.only.MatchString(sc.name) || (sc.needs != nil && sc.needs(ru) != "") {
			continue
		}
		r.fail(prefix+"/"+sc.name, errors.New("not run: connect failed"))
	}
}

// benignClose reports whether err is what closing a child process's pipes
// normally yields (the server exits when stdin closes).
func benignClose(err error) bool {
	s := err.Error()
	return strings.Contains(s, "signal: terminated") || strings.Contains(s, "file already closed") ||
		strings.Contains(s, "broken pipe")
}

// runOne runs fn, turning a panic in an adapter into a failure and a
// scenario that ignores ctx into a timeout.
func runOne(ctx context.Context, fn func(context.Context, *run) error, ru *run) (err error) {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("panic: %v", p)
			}
		}()
		done <- fn(ctx, ru)
	}()
	select {
	case err = <-done:
		return err
	case <-ctx.Done():
		// The goroutine ends when the SDK call returns; the run moves on.
		return fmt.Errorf("timed out: %v", ctx.Err())
	}
}
