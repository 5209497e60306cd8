// The transcript format, the one format of every scripted exchange, and
// its runner: testdata/**/*.txt are conversations with a server over
// stdio (server.serveStdio) or Streamable HTTP, one spec area per file.
// TestTranscripts plays them all but testdata/demo, which
// registry_demo_test.go plays against the demo.
//
// A transcript is a prose header, then steps. Each step is a "-- client --"
// section (lines the client sends; "#" lines are comments, blank lines are
// skipped) and a "-- server --" section: every line the server writes in
// answer, JSON compared semantically, in order. "-- server (any order) --"
// compares them as a multiset, for answers that several goroutines of the
// server write (a subscription's notices beside a response).
//
// The header may hold directives:
//
//	flags: -page-size 2          command-line flags, parsed as run parses them
//	registry: base extras        the parts of the test registry served, in
//	                             order (registry_test.go; default base), or
//	                             "product": this build's own registry
//	                             (buildRegistry), for your own tools; such
//	                             transcripts are skipped in the tagged
//	                             builds (demo, conformance, bench), whose
//	                             registry is their tag's
//	transport: http              Streamable HTTP (default stdio)
//
// The runner plays a transcript inside a testing/synctest bubble: time is
// the bubble's, so a step can wait for timers without waiting in fact.
// Client lines are sent one at a time; a line's answer is everything the
// server writes after it until the server has been silent for
// transcriptQuiet, so an answer is complete and nothing stray goes
// unnoticed. Besides JSON lines, a client section may hold actions:
//
//	WAIT 5s      the client sends nothing for 5s (of the bubble's clock)
//	EOF          (stdio) close stdin: the answer is all the server writes
//	             until it ends
//	SHUTDOWN     (stdio) cancel the server's context: likewise
//	GET          (http) open the classic session's standalone stream
//	DELETE       (http) end the classic session
//	CLOSE 2      (http) disconnect from the stream of request id 2
//
// Over HTTP, each JSON line is one POST: a line with the modern _meta is
// sent as a modern client sends it, any other with the classic session's
// Mcp-Session-Id once initialize has minted one, and MCP-Protocol-Version
// when the negotiated revision defines that header (2025-06-18 on). A line
// may be a JSON-RPC batch (an array); its answer is an array too.
// A response reads "HTTP 200" (with "+session" when it minted a session),
// then its messages: the JSON body, or the events of its stream. A stream
// still open when its line's answer is complete stays open: its later
// events read "@2 {...}" (stream of request id 2; "@GET" for the
// standalone stream, "@batch" for a batch's), and its end "@2 end".
//
// Values that are random by design are written "*": an elicitationId,
// and the requestState of an input_required result. In a client line,
// "requestState":"*" sends the last requestState the server issued, so a
// multi round-trip request reads as a transcript. Task ids are written
// "*1", "*2", ... in the order the server first wrote them (in a taskId
// member); in a client line, the string "*2" sends the second task's id
// (and over HTTP its Mcp-Name header).
//
// After the last step the client leaves (stdio: stdin closes, unless EOF
// or SHUTDOWN ended the server; http: every stream is disconnected), and
// then nothing more may be written, no subscription may stay open, and
// every classic session still registered for notifications must be one
// the transport still holds. Every answer to a classic request, after
// initialize, is checked against the negotiated revision's schema.json
// (classic_test.go).
//
// go test -run Transcripts -update rewrites the server sections whose
// answer changed (TestTranscripts and, in the demo's build,
// TestDemoTranscripts); a new transcript needs only its header and client
// sections.

package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// update is the -update flag: rewrite the server sections instead of
// checking them.
var update = flag.Bool("update", false, "rewrite the server sections of the transcripts under testdata")

// transcriptQuiet is how long the server must be silent for a line's
// answer to be complete. Timers of the test registry fire well within it
// (a step of slow, a 20ms -input-timeout); a step that must see a later
// timer says WAIT.
const transcriptQuiet = time.Second

// transcript is one parsed testdata file.
type transcript struct {
	header    string   // verbatim, up to the first step
	flags     []string // "flags:" directives
	registry  []string // "registry:" directive; nil means base
	transport string   // "transport:" directive: "stdio" or "http"
	steps     []transcriptStep
}

// transcriptStep is one client section and the server lines answering it.
type transcriptStep struct {
	client    []string // verbatim lines, comments included
	server    []string
	unordered bool // "-- server (any order) --"
}

// The server section's markers: in order, or as a multiset.
const (
	serverSection          = "-- server --"
	serverSectionUnordered = "-- server (any order) --"
)

// sent returns the lines of the step that go to the server.
func (st transcriptStep) sent() []string {
	var out []string
	for _, l := range st.client {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// mustParseTranscript reads a transcript file: its header and directives,
// then its steps.
func mustParseTranscript(tb testing.TB, data string) transcript {
	tb.Helper()
	t := transcript{transport: "stdio"}
	var cur *transcriptStep
	section := ""
	for line := range strings.Lines(data) {
		line = strings.TrimSuffix(line, "\n")
		switch line {
		case "-- client --":
			t.steps = append(t.steps, transcriptStep{})
			cur, section = &t.steps[len(t.steps)-1], "client"
			continue
		case serverSection, serverSectionUnordered:
			if cur == nil {
				tb.Fatal("transcript: -- server -- before any -- client --")
			}
			section, cur.unordered = "server", line == serverSectionUnordered
			continue
		}
		switch section {
		case "":
			t.header += line + "\n"
			name, value, _ := strings.Cut(line, ":")
			switch name {
			case "flags":
				t.flags = append(t.flags, strings.Fields(value)...)
			case "registry":
				t.registry = strings.Fields(value)
			case "transport":
				t.transport = strings.TrimSpace(value)
				if t.transport != "stdio" && t.transport != "http" {
					tb.Fatalf("transcript: unknown transport %q", t.transport)
				}
			}
		case "client":
			if strings.TrimSpace(line) != "" || len(cur.client) > 0 {
				cur.client = append(cur.client, line)
			}
		case "server":
			if strings.TrimSpace(line) != "" {
				cur.server = append(cur.server, line)
			}
		}
	}
	for i := range t.steps {
		c := t.steps[i].client
		for len(c) > 0 && strings.TrimSpace(c[len(c)-1]) == "" {
			c = c[:len(c)-1]
		}
		t.steps[i].client = c
	}
	return t
}

// format writes t back as a file: the header as read, then every step.
func (t transcript) format() string {
	var b strings.Builder
	b.WriteString(t.header)
	for i, st := range t.steps {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("-- client --\n")
		for _, l := range st.client {
			b.WriteString(l + "\n")
		}
		if st.unordered {
			b.WriteString(serverSectionUnordered + "\n")
		} else {
			b.WriteString(serverSection + "\n")
		}
		for _, l := range st.server {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// forEachTranscript plays every transcript under root (the .txt files of
// root and its directories, but not those under skip), each in a
// parallel subtest named after its path below root, and checks it (or,
// with -update, rewrites its server sections). Transcripts that name the
// product's registry are played only in the untagged build
// (productRegistryTested), unless product says that here the product's
// registry is the one these transcripts are about.
func forEachTranscript(t *testing.T, root, skip string, product bool) {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path == skip:
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(path, ".txt"):
			files = append(files, path)
		}
		return nil
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts under %s: %v", root, err)
	}
	for _, file := range files {
		name, _ := filepath.Rel(root, file)
		t.Run(strings.TrimSuffix(filepath.ToSlash(name), ".txt"), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			tr := mustParseTranscript(t, string(data))
			if slices.Equal(tr.registry, []string{"product"}) && !product && !productRegistryTested {
				t.Skip("registry: product: a tagged build (-tags demo, conformance or bench) serves the registry of its tag, not the product's")
			}
			checkTranscript(t, file, tr)
		})
	}
}

func TestTranscripts(t *testing.T) {
	forEachTranscript(t, "testdata", filepath.Join("testdata", "demo"), false)
}

// checkTranscript plays tr and compares what the server wrote with its
// server sections, or with -update writes the sections that differ to
// file.
func checkTranscript(t *testing.T, file string, tr transcript) {
	if tr.transport == "http" && !hasHTTPWing {
		t.Skip("transport: http: the stdio build has no HTTP transport; the full build plays this transcript")
	}
	got := runTranscript(t, tr)
	if *update {
		// A step whose answer has not changed keeps its text, so that a
		// rewrite shows only what changed (and no reordering of a step
		// in any order).
		for i, st := range tr.steps {
			if !sameLines(t, got[i], st.server, st.unordered) {
				tr.steps[i].server = got[i]
			}
		}
		if err := os.WriteFile(file, []byte(tr.format()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for i, st := range tr.steps {
		if !sameLines(t, got[i], st.server, st.unordered) {
			t.Errorf("%s step %d:\n%s\n got:\n%s\nwant:\n%s", file, i+1,
				strings.Join(st.client, "\n"), strings.Join(got[i], "\n"), strings.Join(st.server, "\n"))
		}
	}
}

// transcriptClient is one transport's client of a transcript.
type transcriptClient interface {
	// play sends one client line (or does one action) and returns the
	// server's answer. classic tells the schema check which lines answer
	// the classic era.
	play(line string) (out []string, classic []bool)
	// leave ends the conversation and returns what the server still wrote.
	leave() []string
}

// runTranscript plays tr against a fresh server in a synctest bubble and
// returns, per step, the lines the server wrote.
func runTranscript(t *testing.T, tr transcript) [][]string {
	var out [][]string
	synctest.Test(t, func(t *testing.T) {
		opts := []testOption{withFlags(tr.flags...)}
		if tr.registry != nil {
			opts = append(opts, withRegistry(tr.registry...))
		}
		s := newTestServer(t, opts...)
		var c transcriptClient
		alive := func() int { return 0 } // classic sessions the transport holds
		if tr.transport == "http" {
			c, alive = newTestTranscriptHTTPClient(t, s, tr.flags)
		} else {
			c = newTestTranscriptStdio(t, s)
		}
		shapes := newTestClassicChecker(t)
		wire := newTestWireRecorder(t, t.Name())
		state := ""        // the last requestState the server issued
		var tasks []string // the task ids the server wrote, in order
		for _, st := range tr.steps {
			var got []string
			for _, line := range st.sent() {
				line = strings.ReplaceAll(line, `"requestState":"*"`, `"requestState":`+strconv.Quote(state))
				line = taskRefRE.ReplaceAllStringFunc(line, func(ref string) string {
					n, _ := strconv.Atoi(ref[2 : len(ref)-1])
					if n < 1 || n > len(tasks) {
						t.Fatalf("transcript: %s: the server wrote %d task ids", ref, len(tasks))
					}
					return strconv.Quote(tasks[n-1])
				})
				shapes.sent(line)
				wire.sent(line)
				lines, classic := c.play(line)
				for i, l := range lines {
					shapes.check(l, classic[i])
					wire.wrote(l, classic[i])
					if m := requestStateRE.FindStringSubmatch(l); m != nil {
						state = m[1]
					}
					l = requestStateRE.ReplaceAllString(l, `"requestState":"*"`)
					for _, m := range taskIDRE.FindAllStringSubmatch(l, -1) {
						if !slices.Contains(tasks, m[1]) {
							tasks = append(tasks, m[1])
						}
					}
					for n, id := range tasks {
						l = strings.ReplaceAll(l, strconv.Quote(id), fmt.Sprintf(`"*%d"`, n+1))
					}
					lines[i] = elicitationIDRE.ReplaceAllString(l, `"elicitationId":"*"`)
				}
				got = append(got, lines...)
			}
			out = append(out, got)
		}
		if rest := c.leave(); len(rest) > 0 {
			t.Errorf("after the last step the server wrote:\n%s", strings.Join(rest, "\n"))
		}
		if n := s.subs.count(); n != 0 {
			t.Errorf("%d subscriptions still open after the client left", n)
		}
		if n, live := s.subs.classicCount(), alive(); n != live {
			t.Errorf("%d classic sessions registered for notifications, %d alive", n, live)
		}
	})
	return out
}

// collectLines returns what arrives on lines for at least wait, then until
// nothing has come for transcriptQuiet, or until lines is closed (then
// ended is true).
func collectLines[T any](lines <-chan T, wait time.Duration) (got []T, ended bool) {
	until := time.Now().Add(wait)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return got, true
			}
			got = append(got, l)
		case <-time.After(max(transcriptQuiet, time.Until(until))):
			return got, false
		}
	}
}

// parseWait returns the duration of a "WAIT d" action.
func parseWait(tb testing.TB, line string) (time.Duration, bool) {
	tb.Helper()
	arg, ok := strings.CutPrefix(line, "WAIT ")
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(arg)
	if err != nil {
		tb.Fatalf("transcript: %s: %v", line, err)
	}
	return d, true
}

// isClassicLine reports whether a client line is a classic message: one
// without the modern _meta.
func isClassicLine(line string) bool {
	var r request
	_ = r.parseParams(paramsOf(line), nil) // meta.modern is set either way
	return !r.meta.modern
}

// paramsOf returns the raw params of a message line, nil if none.
func paramsOf(line string) []byte {
	msg, rerr := parseMessage([]byte(line))
	if rerr != nil {
		return nil
	}
	return msg.params
}

// transcriptStdio plays a transcript on a live stdio connection.
type transcriptStdio struct {
	tb    testing.TB
	c     *testConn
	ended bool // the server's output ended (EOF or SHUTDOWN)
}

// newTestTranscriptStdio connects a transcript to s over stdio.
func newTestTranscriptStdio(tb testing.TB, s *server) *transcriptStdio {
	tb.Helper()
	return &transcriptStdio{tb: tb, c: newTestConn(tb, s)}
}

// play sends line (or does its action) and collects the answer.
func (p *transcriptStdio) play(line string) ([]string, []bool) {
	p.tb.Helper()
	if p.ended {
		p.tb.Fatalf("transcript: %s after the server ended", line)
	}
	var got []string
	switch d, wait := parseWait(p.tb, line); {
	case wait:
		got, p.ended = collectLines(p.c.lines, d)
	case line == "EOF":
		p.c.closeInput()
		got, p.ended = p.c.drain(), true
	case line == "SHUTDOWN":
		p.c.cancel()
		got, p.ended = p.c.drain(), true
	default:
		p.c.send(line)
		got, p.ended = collectLines(p.c.lines, 0)
	}
	classic := make([]bool, len(got))
	for i := range classic {
		classic[i] = isClassicLine(line)
	}
	return got, classic
}

// leave closes stdin, unless EOF or SHUTDOWN already ended the server,
// and returns what the server wrote after the last answer.
func (p *transcriptStdio) leave() []string {
	p.tb.Helper()
	if p.ended {
		if err := p.c.finish(); err != nil {
			p.tb.Errorf("serve = %v", err)
		}
		return nil
	}
	return p.c.close()
}

// elicitationIDRE finds the random member of url mode elicitations.
var elicitationIDRE = regexp.MustCompile(`"elicitationId":"[^"]+"`)

// taskIDRE finds a task id the server wrote; taskRefRE a reference to
// one in a client line ("*2").
var (
	taskIDRE  = regexp.MustCompile(`"taskId":"([^"*][^"]*)"`)
	taskRefRE = regexp.MustCompile(`"\*[0-9]+"`)
)

// requestStateRE finds the requestState of an input_required result: an
// opaque token (base64url), signed with a key that may be random.
var requestStateRE = regexp.MustCompile(`"requestState":"([A-Za-z0-9_-]+)"`)

// responseID returns the raw id of a response line, or nil for anything else.
func responseID(line string) []byte {
	members, err := objectMembers([]byte(line))
	if err != nil {
		return nil
	}
	var id []byte
	isResponse := false
	for _, m := range members {
		switch m.name {
		case "id":
			id = bytes.TrimSpace(m.value)
		case "result", "error":
			isResponse = true
		}
	}
	if !isResponse {
		return nil
	}
	return id
}

// sameLines compares server output to a transcript's expectation, in order
// or (unordered) as a multiset. Lines that are not JSON ("HTTP 200",
// "@2 end") compare exactly; "@2 {...}" compares its JSON.
func sameLines(tb testing.TB, got, want []string, unordered bool) bool {
	tb.Helper()
	if len(got) != len(want) {
		return false
	}
	same := func(g, w string) bool {
		gp, gj := splitStreamPrefix(g)
		wp, wj := splitStreamPrefix(w)
		if gp != wp {
			return false
		}
		if !isJSONLine(gj) || !isJSONLine(wj) {
			return gj == wj
		}
		return sameJSON(tb, gj, wj)
	}
	if !unordered {
		for i := range got {
			if !same(got[i], want[i]) {
				return false
			}
		}
		return true
	}
	left := slices.Clone(got)
	for _, w := range want {
		i := slices.IndexFunc(left, func(g string) bool { return same(g, w) })
		if i < 0 {
			return false
		}
		left = slices.Delete(left, i, i+1)
	}
	return true
}

// isJSONLine reports whether a server line is a message (an object) or a
// batch answer (an array), not a status line or a stream's end.
func isJSONLine(line string) bool {
	return strings.HasPrefix(line, "{") || strings.HasPrefix(line, "[")
}

// splitStreamPrefix splits "@2 {...}" into "@2" and the message.
func splitStreamPrefix(line string) (prefix, rest string) {
	if !strings.HasPrefix(line, "@") {
		return "", line
	}
	prefix, rest, _ = strings.Cut(line, " ")
	return prefix, rest
}
