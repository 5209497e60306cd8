// The transcript format and the modern-era runner: testdata/*.txt are
// conversations with the real stdio loop (server.serveStdio), one spec area
// per file. The classic runners (testdata/classic on stdio, classic_test.go;
// testdata/classic-http over HTTP, classic_http_test.go) read the same format.
//
// A transcript is a prose header, then steps. Each step is a "-- client --"
// section (lines sent to stdin; "#" lines are comments, blank lines are
// skipped) and a "-- server --" section (every line the server writes in
// answer, as JSON compared semantically). The header may hold directives:
//
//	flags: -page-size 2     command-line flags, parsed as run parses them
//	registry: test          add the test registry to the demo one
//
// Steps run one after another. After sending a step's lines the runner
// sends a sentinel line (a JSON string, answered -32600 at once by the
// reader) and reads until the sentinel's answer and a response to every
// request of the step have arrived, so a step's output is complete and no
// time-based wait is needed. A step with one client line must match in
// order (notifications before the response); a step with several is
// compared as a multiset, since stdio answers requests concurrently. After
// the last step stdin is closed and nothing more may be written.
//
// go test -run TestTranscripts -update rewrites the server sections.

package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the server sections of the transcripts under testdata")

const (
	transcriptSync      = `"transcript sync"`
	transcriptSyncReply = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: message must be a JSON object"}}`
)

// transcript is one parsed testdata file.
type transcript struct {
	header   string   // verbatim, up to the first step
	flags    []string // "flags:" directives
	registry string   // "registry:" directive: "test" adds the test tools, "classic" the classic fixtures
	steps    []transcriptStep
}

// transcriptStep is one client section and the server lines answering it.
type transcriptStep struct {
	client []string // verbatim lines, comments included
	server []string
}

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

func parseTranscript(tb testing.TB, data string) transcript {
	tb.Helper()
	var t transcript
	var cur *transcriptStep
	section := ""
	for line := range strings.Lines(data) {
		line = strings.TrimSuffix(line, "\n")
		switch line {
		case "-- client --":
			t.steps = append(t.steps, transcriptStep{})
			cur, section = &t.steps[len(t.steps)-1], "client"
			continue
		case "-- server --":
			if cur == nil {
				tb.Fatal("transcript: -- server -- before any -- client --")
			}
			section = "server"
			continue
		}
		switch section {
		case "":
			t.header += line + "\n"
			if f, ok := strings.CutPrefix(line, "flags:"); ok {
				t.flags = append(t.flags, strings.Fields(f)...)
			}
			if r, ok := strings.CutPrefix(line, "registry:"); ok {
				t.registry = strings.TrimSpace(r)
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
		b.WriteString("-- server --\n")
		for _, l := range st.server {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// forEachTranscript runs f in a parallel subtest, named after the file,
// for every transcript file pattern matches, failing when none does.
func forEachTranscript(t *testing.T, pattern string, f func(t *testing.T, file string, tr transcript)) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f(t, file, parseTranscript(t, string(data)))
		})
	}
}

func TestTranscripts(t *testing.T) {
	forEachTranscript(t, "testdata/*.txt", func(t *testing.T, file string, tr transcript) {
		got := runTranscript(t, tr)
		if *update {
			for i := range tr.steps {
				tr.steps[i].server = got[i]
			}
			if err := os.WriteFile(file, []byte(tr.format()), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		for i, st := range tr.steps {
			if !sameLines(t, got[i], st.server, len(st.sent()) > 1) {
				t.Errorf("%s step %d:\n%s\n got:\n%s\nwant:\n%s", file, i+1,
					strings.Join(st.client, "\n"), strings.Join(got[i], "\n"), strings.Join(st.server, "\n"))
			}
		}
	})
}

// runTranscript plays tr against a fresh server and returns, per step, the
// lines the server wrote.
func runTranscript(tb testing.TB, tr transcript) [][]string {
	tb.Helper()
	s, _ := newTestServer(tb, tr.registry == "test", tr.flags...)
	c := newTestConn(tb, s)
	var out [][]string
	for _, st := range tr.steps {
		pending := map[string]bool{}
		for _, line := range st.sent() {
			if msg, err := parseMessage([]byte(line)); err == nil && msg.hasMethod && msg.id != nil {
				pending[idKey(msg.id)] = true
			}
			c.send(line)
		}
		c.send(transcriptSync)
		var got []string
		synced := false
		for !synced || len(pending) > 0 {
			line := c.recv()
			if !synced && line == transcriptSyncReply {
				synced = true
				continue
			}
			if id := responseID(line); id != nil {
				delete(pending, idKey(id))
			}
			got = append(got, line)
		}
		out = append(out, got)
	}
	if rest := c.close(); len(rest) > 0 {
		tb.Errorf("after the last step the server wrote:\n%s", strings.Join(rest, "\n"))
	}
	return out
}

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
// or (unordered) as a multiset.
func sameLines(tb testing.TB, got, want []string, unordered bool) bool {
	tb.Helper()
	if len(got) != len(want) {
		return false
	}
	if !unordered {
		for i := range got {
			if !sameJSON(tb, got[i], want[i]) {
				return false
			}
		}
		return true
	}
	left := slices.Clone(got)
	for _, w := range want {
		i := slices.IndexFunc(left, func(g string) bool { return sameJSON(tb, g, w) })
		if i < 0 {
			return false
		}
		left = slices.Delete(left, i, i+1)
	}
	return true
}
