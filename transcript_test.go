// The transcript format, the one format of every scripted exchange, and
// its runner: testdata/**/*.txt are conversations with a server over
// stdio (server.serveStdio) or Streamable HTTP, or both, one spec area per
// file. TestTranscripts plays them all but testdata/demo, which
// registry_demo_test.go plays against the demo.
//
// A transcript is a prose header, then steps. Each step is a "-- client --"
// section (lines the client sends; "#" lines are comments, blank lines are
// skipped) and a "-- server --" section: every line the server writes in
// answer, JSON compared semantically, in order. "-- server (any order) --"
// compares them as a multiset, for answers that several goroutines of the
// server write (a subscription's notices beside a response). A file must
// have at least one step, and every step must send something; lines may
// end in LF or CRLF.
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
//	transport: http              Streamable HTTP (default stdio);
//	                             "transport: stdio http" plays the file on
//	                             both, each a subtest (below); the stdio
//	                             build skips the HTTP ones
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
// A transcript played on both transports is one conversation written
// once. What only HTTP has is read by HTTP alone: a status line
// ("HTTP 200"), a stream's end ("@2 end"); a message that arrived on a
// stream ("@2 {...}") is, on stdio, that message alone. Where the two
// really differ, a line (client or server) starts with "stdio: " or
// "http: " and belongs to that transport only: the refusal of a request
// before initialize, an action only one transport has ("http: DELETE").
// A step that sends nothing on a transport expects nothing there, so its
// server lines need no prefix.
// TestTranscriptBothTransports pins these rules.
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
// sections. A step played on both transports is rewritten as one section
// that reads as each transport's answer (mergeAnswers).

package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
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
	header     string   // verbatim up to the first step, with LF line ends
	flags      []string // "flags:" directives
	registry   []string // "registry:" directive; nil means base
	transports []string // "transport:" directive: stdio, http, or both
	steps      []transcriptStep
}

// transcriptStep is one client section and the server lines answering it,
// verbatim: comments and transport prefixes included.
type transcriptStep struct {
	client    []string
	server    []string
	unordered bool // "-- server (any order) --"
}

// The server section's markers: in order, or as a multiset.
const (
	serverSection          = "-- server --"
	serverSectionUnordered = "-- server (any order) --"
)

// The transports a transcript may be played on, in the order a transcript
// played on both runs them.
const (
	playStdio = "stdio"
	playHTTP  = "http"
)

// shared reports whether t is played on both transports: its lines are
// then read per transport (sent, want).
func (t transcript) shared() bool { return len(t.transports) > 1 }

// cutTransport splits "http: X" into the transport the line is reserved
// to and X; a line for every transport has transport "".
func cutTransport(line string) (transport, rest string) {
	for _, tr := range []string{playStdio, playHTTP} {
		if rest, ok := strings.CutPrefix(line, tr+": "); ok {
			return tr, rest
		}
	}
	return "", line
}

// httpOnly reports whether a server line is one that only HTTP writes: a
// status line or the end of a stream.
func httpOnly(line string) bool {
	prefix, rest := splitStreamPrefix(line)
	return strings.HasPrefix(line, "HTTP ") || (prefix != "" && rest == "end")
}

// sent returns the lines of st that go to the server over transport.
func (t transcript) sent(st transcriptStep, transport string) []string {
	var out []string
	for _, l := range st.client {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if t.shared() {
			tr, rest := cutTransport(l)
			if tr != "" && tr != transport {
				continue
			}
			l = rest
		}
		out = append(out, l)
	}
	return out
}

// want returns the server lines st expects over transport: in a
// transcript played on both, nothing if st sends nothing over transport,
// else the lines for every transport and those reserved to this one, and
// on stdio without HTTP's status lines, stream ends and stream prefixes.
func (t transcript) want(st transcriptStep, transport string) []string {
	if !t.shared() {
		return st.server
	}
	if len(t.sent(st, transport)) == 0 {
		return nil
	}
	var out []string
	for _, l := range st.server {
		switch tr, rest := cutTransport(l); {
		case tr != "" && tr != transport:
		case tr != "":
			out = append(out, rest)
		case transport == playHTTP:
			out = append(out, l)
		case !httpOnly(l):
			_, msg := splitStreamPrefix(l)
			out = append(out, msg)
		}
	}
	return out
}

// mustParseTranscript reads a transcript file: its header and directives,
// then its steps.
func mustParseTranscript(tb testing.TB, data string) transcript {
	tb.Helper()
	t, err := parseTranscript(data)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// parseTranscript reads a transcript file. A file without steps, or with
// a step that sends nothing, is an error: a runner that played it would
// test nothing (a file whose markers it could not read, say, would be all
// header).
func parseTranscript(data string) (transcript, error) {
	t := transcript{transports: []string{playStdio}}
	var cur *transcriptStep
	section := ""
	for line := range strings.Lines(data) {
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		switch line {
		case "-- client --":
			t.steps = append(t.steps, transcriptStep{})
			cur, section = &t.steps[len(t.steps)-1], "client"
			continue
		case serverSection, serverSectionUnordered:
			if cur == nil {
				return t, errors.New("transcript: -- server -- before any -- client --")
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
				t.transports = strings.Fields(value)
				if !slices.Equal(t.transports, []string{playStdio}) && !slices.Equal(t.transports, []string{playHTTP}) &&
					!slices.Equal(t.transports, []string{playStdio, playHTTP}) {
					return t, fmt.Errorf("transcript: transport %q: want stdio, http, or stdio http", strings.TrimSpace(value))
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
	if len(t.steps) == 0 {
		return t, errors.New("transcript: no steps: a transcript needs at least one -- client -- section")
	}
	for i := range t.steps {
		st := &t.steps[i]
		for len(st.client) > 0 && strings.TrimSpace(st.client[len(st.client)-1]) == "" {
			st.client = st.client[:len(st.client)-1]
		}
		n := 0
		for _, tr := range t.transports {
			n += len(t.sent(*st, tr))
		}
		if n == 0 {
			return t, fmt.Errorf("transcript: step %d sends nothing", i+1)
		}
		if t.shared() {
			continue
		}
		for _, l := range slices.Concat(st.client, st.server) {
			if tr, _ := cutTransport(l); tr != "" {
				return t, fmt.Errorf("transcript: step %d: %q is for %s alone, in a transcript played on %s alone", i+1, l, tr, t.transports[0])
			}
		}
	}
	return t, nil
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
			tr, err := parseTranscript(string(data))
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
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

// checkTranscript plays tr on each of its transports, in a subtest named
// after it, and compares what the server wrote with its server sections,
// or with -update writes the sections that differ to file.
func checkTranscript(t *testing.T, file string, tr transcript) {
	got := map[string][][]string{}
	for _, transport := range tr.transports {
		t.Run(transport, func(t *testing.T) {
			if transport == playHTTP && !hasHTTPWing {
				t.Skip("transport: http: the stdio build has no HTTP transport; the full build plays this transcript over HTTP")
			}
			got[transport] = runTranscript(t, tr, transport)
			if *update || len(got[transport]) != len(tr.steps) {
				return
			}
			for i, st := range tr.steps {
				if want := tr.want(st, transport); !sameLines(t, got[transport][i], want, st.unordered) {
					t.Errorf("%s step %d:\n%s\n got:\n%s\nwant:\n%s", file, i+1,
						strings.Join(tr.sent(st, transport), "\n"), strings.Join(got[transport][i], "\n"), strings.Join(want, "\n"))
				}
			}
		})
	}
	if !*update {
		return
	}
	if !hasHTTPWing && slices.Contains(tr.transports, playHTTP) {
		t.Logf("%s: not rewritten: the stdio build does not play it over HTTP; the full build rewrites it", file)
		return
	}
	for _, transport := range tr.transports {
		if len(got[transport]) != len(tr.steps) {
			t.Fatalf("%s: not rewritten: the %s run ended early", file, transport)
		}
	}
	// A step whose answer has not changed keeps its text, so that a
	// rewrite shows only what changed (and no reordering of a step in any
	// order).
	for i, st := range tr.steps {
		same := true
		for _, transport := range tr.transports {
			same = same && sameLines(t, got[transport][i], tr.want(st, transport), st.unordered)
		}
		switch {
		case same:
		case !tr.shared():
			tr.steps[i].server = got[tr.transports[0]][i]
		case len(tr.sent(st, playStdio)) == 0:
			tr.steps[i].server = got[playHTTP][i]
		case len(tr.sent(st, playHTTP)) == 0:
			tr.steps[i].server = got[playStdio][i]
		default:
			tr.steps[i].server = mergeAnswers(t, got[playStdio][i], got[playHTTP][i])
		}
	}
	if err := os.WriteFile(file, []byte(tr.format()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// mergeAnswers writes one server section from a step's answers over stdio
// and over HTTP, such that want reads each back: HTTP's lines in order,
// unprefixed where stdio wrote the same message at the same place (a
// longest common subsequence), "http: " where stdio did not, and stdio's
// other lines as "stdio: " where they came.
func mergeAnswers(tb testing.TB, stdio, overHTTP []string) []string {
	tb.Helper()
	var msgs []int // the indexes of HTTP's lines that stdio may share
	for i, l := range overHTTP {
		if !httpOnly(l) {
			msgs = append(msgs, i)
		}
	}
	msg := func(j int) string {
		_, m := splitStreamPrefix(overHTTP[msgs[j]])
		return m
	}
	// common[i][j] is the length of the longest common subsequence of
	// stdio[i:] and the messages msgs[j:].
	common := make([][]int, len(stdio)+1)
	for i := range common {
		common[i] = make([]int, len(msgs)+1)
	}
	for i := len(stdio) - 1; i >= 0; i-- {
		for j := len(msgs) - 1; j >= 0; j-- {
			if sameLine(tb, stdio[i], msg(j)) {
				common[i][j] = common[i+1][j+1] + 1
			} else {
				common[i][j] = max(common[i+1][j], common[i][j+1])
			}
		}
	}
	var out []string
	next := 0             // HTTP's next line not yet written
	upTo := func(k int) { // HTTP's own lines before line k
		out = append(out, overHTTP[next:k]...)
		next = k
	}
	i, j := 0, 0
	for i < len(stdio) || j < len(msgs) {
		switch {
		case i < len(stdio) && j < len(msgs) && sameLine(tb, stdio[i], msg(j)):
			upTo(msgs[j])
			out = append(out, overHTTP[msgs[j]])
			next, i, j = msgs[j]+1, i+1, j+1
		case i < len(stdio) && (j == len(msgs) || common[i+1][j] >= common[i][j+1]):
			if j < len(msgs) {
				upTo(msgs[j])
			}
			out = append(out, playStdio+": "+stdio[i])
			i++
		default:
			upTo(msgs[j])
			out = append(out, playHTTP+": "+overHTTP[msgs[j]])
			next, j = msgs[j]+1, j+1
		}
	}
	upTo(len(overHTTP))
	return out
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

// runTranscript plays tr over transport against a fresh server in a
// synctest bubble and returns, per step, the lines the server wrote.
func runTranscript(t *testing.T, tr transcript, transport string) [][]string {
	var out [][]string
	synctest.Test(t, func(t *testing.T) {
		opts := []testOption{withFlags(tr.flags...)}
		if tr.registry != nil {
			opts = append(opts, withRegistry(tr.registry...))
		}
		s := newTestServer(t, opts...)
		var c transcriptClient
		alive := func() int { return 0 } // classic sessions the transport holds
		if transport == playHTTP {
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
			for _, line := range tr.sent(st, transport) {
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

// isHTTPAction reports whether a client line is an action only HTTP has.
func isHTTPAction(line string) bool {
	return line == "GET" || line == "DELETE" || strings.HasPrefix(line, "CLOSE ")
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
	if isHTTPAction(line) {
		p.tb.Fatalf("transcript: %s is an HTTP action (in a transcript played on both transports, write http: %s)", line, line)
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
	same := func(g, w string) bool { return sameLine(tb, g, w) }
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

// sameLine compares one server line to its expectation: lines that are
// not JSON exactly, messages as JSON, stream prefixes exactly.
func sameLine(tb testing.TB, got, want string) bool {
	tb.Helper()
	gp, gj := splitStreamPrefix(got)
	wp, wj := splitStreamPrefix(want)
	if gp != wp {
		return false
	}
	if !isJSONLine(gj) || !isJSONLine(wj) {
		return gj == wj
	}
	return sameJSON(tb, gj, wj)
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

// TestParseTranscriptRefuses: a file the runner would play without testing
// anything is an error, not a pass.
func TestParseTranscriptRefuses(t *testing.T) {
	for _, tt := range []struct {
		name, data, want string
	}{
		{"empty", "", "no steps"},
		{"header only", "A transcript whose author forgot the steps.\n\nregistry: base\n", "no steps"},
		{"markers that are not markers", "prose\n\n--client--\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n", "no steps"},
		{"server first", "prose\n\n-- server --\n{}\n", "-- server -- before any -- client --"},
		{"a step of comments", "prose\n\n-- client --\n# nothing sent\n-- server --\n", "step 1 sends nothing"},
		{"a step of blank lines", "prose\n\n-- client --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n-- server --\n{}\n\n-- client --\n\n\n-- server --\n", "step 2 sends nothing"},
		{"a step for the other transport only", "prose\ntransport: http\n\n-- client --\nstdio: EOF\n-- server --\n", "is for stdio alone"},
		{"an unknown transport", "prose\ntransport: websocket\n\n-- client --\nx\n-- server --\n", `transport "websocket"`},
		{"the transports in the other order", "prose\ntransport: http stdio\n\n-- client --\nx\n-- server --\n", `transport "http stdio"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := parseTranscript(tt.data); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("parseTranscript(%q) = %v, want an error with %q", tt.data, err, tt.want)
			}
		})
	}
}

// TestParseTranscriptCRLF: every transcript under testdata reads the same
// with CRLF line ends (a Windows checkout without .gitattributes) as with
// LF, so it cannot turn into a file of no steps.
func TestParseTranscriptCRLF(t *testing.T) {
	n := 0
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".txt") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lf := strings.ReplaceAll(string(data), "\r\n", "\n")
		want, err := parseTranscript(lf)
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		got, err := parseTranscript(strings.ReplaceAll(lf, "\n", "\r\n"))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s with CRLF line ends = %+v, %v\nwant %+v", path, got, err, want)
		}
		n++
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("%d transcripts read: %v", n, err)
	}
}

// TestTranscriptBothTransports pins how a transcript played on both
// transports reads per transport (sent, want), and that mergeAnswers, which
// -update writes with, produces a section that reads back as each
// transport's answer.
func TestTranscriptBothTransports(t *testing.T) {
	tr := mustParseTranscript(t, `Both.

transport: stdio http

-- client --
# a comment
{"id":1}
http: DELETE
stdio: EOF
-- server --
HTTP 200
{"id":1,"result":{}}
@2 {"method":"notifications/progress"}
@2 end
stdio: {"method":"notifications/cancelled"}
http: HTTP 204

-- client --
http: GET
-- server --
HTTP 200
@GET end
`)
	for _, tt := range []struct {
		transport  string
		step       int
		sent, want []string
	}{
		{playStdio, 0, []string{`{"id":1}`, "EOF"}, []string{`{"id":1,"result":{}}`, `{"method":"notifications/progress"}`, `{"method":"notifications/cancelled"}`}},
		{playHTTP, 0, []string{`{"id":1}`, "DELETE"}, []string{"HTTP 200", `{"id":1,"result":{}}`, `@2 {"method":"notifications/progress"}`, "@2 end", "HTTP 204"}},
		{playStdio, 1, nil, nil},
		{playHTTP, 1, []string{"GET"}, []string{"HTTP 200", "@GET end"}},
	} {
		st := tr.steps[tt.step]
		if got := tr.sent(st, tt.transport); !slices.Equal(got, tt.sent) {
			t.Errorf("sent(step %d, %s) = %q, want %q", tt.step+1, tt.transport, got, tt.sent)
		}
		if got := tr.want(st, tt.transport); !slices.Equal(got, tt.want) {
			t.Errorf("want(step %d, %s) = %q, want %q", tt.step+1, tt.transport, got, tt.want)
		}
	}

	for _, tt := range []struct {
		name                 string
		stdio, overHTTP, out []string
	}{
		{"the same message", []string{`{"id":1}`}, []string{"HTTP 200", `{"id":1}`}, []string{"HTTP 200", `{"id":1}`}},
		{"on a stream", []string{`{"a":1}`, `{"id":2}`}, []string{"HTTP 200", `@2 {"a":1}`, `@2 {"id":2}`, "@2 end"},
			[]string{"HTTP 200", `@2 {"a":1}`, `@2 {"id":2}`, "@2 end"}},
		{"different answers", []string{`{"id":1,"result":{}}`}, []string{"HTTP 400", `{"id":1,"error":{}}`},
			[]string{"HTTP 400", `stdio: {"id":1,"result":{}}`, `http: {"id":1,"error":{}}`}},
		{"stdio alone", []string{`{"n":1}`, `{"id":1}`}, []string{"HTTP 202"}, []string{`stdio: {"n":1}`, `stdio: {"id":1}`, "HTTP 202"}},
		{"in another order", []string{`{"n":1}`, `{"id":1}`}, []string{"HTTP 200", `{"id":1}`, `@GET {"n":1}`},
			[]string{"HTTP 200", `stdio: {"n":1}`, `{"id":1}`, `http: @GET {"n":1}`}},
		{"nothing at all", nil, nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := mergeAnswers(t, tt.stdio, tt.overHTTP)
			if !slices.Equal(got, tt.out) {
				t.Errorf("mergeAnswers(%q, %q) =\n%q\nwant\n%q", tt.stdio, tt.overHTTP, got, tt.out)
			}
			both := transcript{transports: []string{playStdio, playHTTP}}
			st := transcriptStep{client: []string{`{"id":1}`}, server: got}
			if back := both.want(st, playStdio); !slices.Equal(back, tt.stdio) {
				t.Errorf("want(stdio) of the merged section = %q, want %q", back, tt.stdio)
			}
			if back := both.want(st, playHTTP); !slices.Equal(back, tt.overHTTP) {
				t.Errorf("want(http) of the merged section = %q, want %q", back, tt.overHTTP)
			}
		})
	}
}
