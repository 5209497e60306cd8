// The one constructor of test servers (newTestServer) and its options: a
// server configured as run configures it, with the test identity and the
// test registry (registry_test.go) or the product's.

package main

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// testIdentity is every test server's serverInfo, whatever the product is
// called (serverName): what the tests check never depends on the name.
var testIdentity = implementation{Name: "baremcp", Version: "0.1.0"}

// testSetup is what newTestServer's options set.
type testSetup struct {
	args   []string            // command-line flags, parsed as run parses them
	getenv func(string) string // run's environment; empty by default
	sets   []string            // parts of the test registry, or "product"
	logs   io.Writer           // the server's log
	gates  *testGates          // when set, the gate tool reports here
	edits  []func(*config)     // applied after the flags
	setups []func(*server)     // applied after the registry
}

// testOption configures newTestServer.
type testOption func(*testSetup)

// withFlags parses args as run does (defaults for what they omit).
func withFlags(args ...string) testOption {
	return func(st *testSetup) { st.args = append(st.args, args...) }
}

// withEnv gives the flags and the product registry an environment.
func withEnv(getenv func(string) string) testOption {
	return func(st *testSetup) { st.getenv = getenv }
}

// withRegistry names what the server serves: parts of the test registry
// in order (testRegistry's keys), none for an empty registry, or
// "product" alone for the registry of this build (buildRegistry). The
// default is "base".
func withRegistry(sets ...string) testOption {
	return func(st *testSetup) { st.sets = sets }
}

// withLogs sends the server's log to w.
func withLogs(w io.Writer) testOption {
	return func(st *testSetup) { st.logs = w }
}

// withClock sets the clock of requestState expiry and the rate limiter.
func withClock(now func() time.Time) testOption {
	return withConfig(func(c *config) { c.now = now })
}

// withStateKey sets the requestState key, so that two servers accept each
// other's state ("a restart", "a replica"); nil draws a random key.
func withStateKey(key []byte) testOption {
	return withConfig(func(c *config) { c.stateKey = key })
}

// withGates adds the gate tool (testGates), which reports to g.
func withGates(g *testGates) testOption {
	return func(st *testSetup) { st.gates = g }
}

// withConfig edits the configuration the flags produced, for what no
// flag sets.
func withConfig(edit func(*config)) testOption {
	return func(st *testSetup) { st.edits = append(st.edits, edit) }
}

// withSetup runs setup on the server once its registry is registered.
func withSetup(setup func(*server)) testOption {
	return func(st *testSetup) { st.setups = append(st.setups, setup) }
}

// stoppedClock is a clock that always reads t.
func stoppedClock(t time.Time) func() time.Time {
	return func() time.Time { return t }
}

// newTestServer returns a server configured as run configures it from
// the options' flags (its logger too: -log-format, -access-log), with
// testIdentity and the base test registry unless options say otherwise. What the registry runs in the background stops
// when the test ends.
func newTestServer(tb testing.TB, opts ...testOption) *server {
	tb.Helper()
	st := testSetup{getenv: func(string) string { return "" }, sets: []string{"base"}, logs: io.Discard}
	for _, o := range opts {
		o(&st)
	}
	cfg, err := parseFlags(st.args, io.Discard, st.getenv)
	if err != nil {
		tb.Fatalf("parseFlags(%q) = %v", st.args, err)
	}
	cfg.info = testIdentity
	for _, name := range st.sets {
		if title := testRegistry[name].title; title != "" {
			cfg.info.Title = title
		}
	}
	for _, edit := range st.edits {
		edit(&cfg)
	}
	// Without linger (unless an edit sets it) the log is complete when the
	// server has answered, which the tests that read it rely on.
	logger, access, sink := newLogger(cfg.logs, st.logs)
	tb.Cleanup(sink.close)
	cfg.access, cfg.logSink = access, sink
	s := newServer(cfg, logger)
	// Last of the test's cleanups but the log's: the tasks still running
	// end, and their goroutines with them, as run ends them.
	tb.Cleanup(s.tasks.shutdown)
	mustRegisterTestSets(tb, s, st)
	for _, setup := range st.setups {
		setup(s)
	}
	return s
}

// syncBuffer is a log the server may write from several goroutines.
type syncBuffer struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestNameChecksMatchPatterns checks the hand-written name checks
// (isName) against the regular expressions they replaced
// (mustMatchPattern); the token names' and replica ids' are
// TestTokenNameMatchesPattern and TestReplicaIDMatchesPattern.
func TestNameChecksMatchPatterns(t *testing.T) {
	mustMatchPattern(t, validToolName, `^[A-Za-z0-9_.-]{1,128}$`, 128)
}

// mustMatchPattern checks that check accepts exactly what pattern
// matches, on names at and past maxLen and with every byte value in each
// position.
func mustMatchPattern(tb testing.TB, check func(string) bool, pattern string, maxLen int) {
	tb.Helper()
	re := regexp.MustCompile(pattern)
	inputs := []string{"", "a", "-", "a-", "-a", "\n", "a\n", strings.Repeat("a", maxLen), strings.Repeat("a", maxLen+1), strings.Repeat("-", maxLen)}
	for c := 0; c < 256; c++ {
		b := string(rune(c))
		if c >= 0x80 {
			b = string([]byte{byte(c)})
		}
		inputs = append(inputs, b, "a"+b, b+"a", "a"+b+"a")
	}
	for _, in := range inputs {
		if got, want := check(in), re.MatchString(in); got != want {
			tb.Errorf("check(%q) = %v, want %v (%s)", in, got, want, pattern)
		}
	}
}
