// Tests of the structured logs (logging.go): the access line's fields in
// both formats, its outcomes, its escaping of hostile client values, the
// logging flags, the log writer's bound, and that no secret reaches the
// log.

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"
)

// logRecord is one parsed log line: its keys and values as strings.
type logRecord map[string]string

// parseLogLines parses every line of logs as the format writes it, and
// fails the test on a line that does not parse: text lines as logfmt
// (key=value, the value Go-quoted when it needs quoting), JSON lines with
// encoding/json.
func parseLogLines(tb testing.TB, format, logs string) []logRecord {
	tb.Helper()
	var out []logRecord
	for line := range strings.Lines(logs) {
		line = strings.TrimSuffix(line, "\n")
		rec, err := parseLogLine(format, line)
		if err != nil {
			tb.Fatalf("log line does not parse as %s: %v\n%q", format, err, line)
		}
		out = append(out, rec)
	}
	return out
}

// parseLogLine parses one line of the given format.
func parseLogLine(format, line string) (logRecord, error) {
	rec := logRecord{}
	if format == logFormatJSON {
		var v map[string]any
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		for k, x := range v {
			rec[k] = fmt.Sprint(x)
		}
		return rec, nil
	}
	for rest := line; rest != ""; {
		key, after, ok := strings.Cut(rest, "=")
		if !ok || key == "" || strings.ContainsAny(key, ` "`) {
			return nil, fmt.Errorf("no key=value at %q", rest)
		}
		var value string
		if strings.HasPrefix(after, `"`) {
			q, err := strconv.QuotedPrefix(after)
			if err != nil {
				return nil, fmt.Errorf("value of %s: %v", key, err)
			}
			if value, err = strconv.Unquote(q); err != nil {
				return nil, err
			}
			after = after[len(q):]
		} else {
			value, after, _ = strings.Cut(after, " ")
			after = " " + after
			if after == " " {
				after = ""
			}
		}
		if _, dup := rec[key]; dup {
			return nil, fmt.Errorf("key %s twice", key)
		}
		rec[key] = value
		if after != "" && !strings.HasPrefix(after, " ") {
			return nil, fmt.Errorf("no space after %s", key)
		}
		rest = strings.TrimPrefix(after, " ")
	}
	return rec, nil
}

// accessRecords returns the access lines among records, by request id.
func accessRecords(records []logRecord) map[string]logRecord {
	out := map[string]logRecord{}
	for _, r := range records {
		if r["msg"] == "request" {
			out[r["id"]] = r
		}
	}
	return out
}

// mustServeLines serves lines on a fresh stdio connection of a server
// built with opts (its log captured) and returns the replies and the log.
func mustServeLines(tb testing.TB, opts []testOption, lines ...string) (replies []string, logs string) {
	tb.Helper()
	var buf syncBuffer
	c := newTestConn(tb, newTestServer(tb, append(opts, withLogs(&buf))...))
	for _, l := range lines {
		c.send(l)
	}
	return c.close(), buf.String()
}

// TestAccessLine checks the access line of a tools/call in both formats:
// every field the issue asks for, the client's trace context, and a line
// that parses as its format (JSON with a JSON parser).
func TestAccessLine(t *testing.T) {
	const (
		traceID = "0af7651916cd43dd8448eb211c80319c"
		parent  = "00f067aa0ba902b7"
	)
	call := reqMeta("7", "tools/call", `"name":"echo","arguments":{"message":"hi"}`, `"traceparent":"00-`+traceID+`-`+parent+`-01"`)
	for _, format := range []string{logFormatText, logFormatJSON} {
		t.Run(format, func(t *testing.T) {
			_, logs := mustServeLines(t, []testOption{withFlags("-log-format", format)}, call)
			got := accessRecords(parseLogLines(t, format, logs))["7"]
			if got == nil {
				t.Fatalf("no access line for id 7 in\n%s", logs)
			}
			for key, want := range map[string]string{
				"level": "INFO", "msg": "request", "id": "7", "transport": "stdio", "era": "modern",
				"protocol": "2026-07-28", "method": "tools/call", "name": "echo", "outcome": "ok",
				"trace_id": traceID, "parent_span_id": parent,
			} {
				if got[key] != want {
					t.Errorf("access line %s = %q, want %q\n%s", key, got[key], want, logs)
				}
			}
			if _, err := strconv.ParseInt(got["duration_us"], 10, 64); err != nil {
				t.Errorf("duration_us = %q, want an integer", got["duration_us"])
			}
			if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(got["span_id"]) || got["span_id"] == parent {
				t.Errorf("span_id = %q, want the server's own span", got["span_id"])
			}
			if _, err := time.Parse(time.RFC3339Nano, got["time"]); err != nil {
				t.Errorf("time = %q: %v", got["time"], err)
			}
			for _, absent := range []string{"principal", "client", "code"} {
				if v, ok := got[absent]; ok {
					t.Errorf("access line has %s=%q on stdio, want it left out", absent, v)
				}
			}
		})
	}
}

// TestAccessLineOutcomes checks the outcome (and code) of one access line
// per way a request can end.
func TestAccessLineOutcomes(t *testing.T) {
	elicit := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}}`
	for _, tt := range []struct {
		name    string
		opts    []testOption
		lines   []string
		outcome string
		code    string // "" when absent
		method  string
	}{
		{"result", nil, []string{req("1", "tools/call", `"name":"echo","arguments":{"message":"x"}`)}, "ok", "", "tools/call"},
		{"tool error", []testOption{withRegistry("base", "extras")}, []string{req("1", "tools/call", `"name":"fail"`)}, "tool_error", "", "tools/call"},
		{"invalid arguments", nil, []string{req("1", "tools/call", `"name":"echo","arguments":{}`)}, "tool_error", "", "tools/call"},
		{"unknown tool", nil, []string{req("1", "tools/call", `"name":"nope"`)}, "client_error", "-32602", "tools/call"},
		{"unknown method", nil, []string{req("1", "nope/nope", "")}, "client_error", "-32601", "nope/nope"},
		{"unsupported version", nil, []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`}, "client_error", "-32022", "tools/list"},
		{"panic", []testOption{withRegistry("base", "extras")}, []string{req("1", "tools/call", `"name":"explode"`)}, "server_error", "-32603", "tools/call"},
		{"input required", nil, []string{elicit}, "input_required", "", "tools/call"},
		{"rate limited", []testOption{withFlags("-rate-limit", "0.001", "-rate-burst", "1")},
			[]string{req("1", "tools/call", `"name":"echo","arguments":{"message":"x"}`), req("2", "tools/call", `"name":"echo","arguments":{"message":"x"}`)}, "rate_limited", "-31429", "tools/call"},
		{"timeout", []testOption{withGates(newTestGates()), withFlags("-request-timeout", "1ms")}, []string{req("1", "tools/call", `"name":"gate"`)}, "timeout", "-32603", "tools/call"},
		{"classic", nil, []string{classicInitialize(0, version20251125), `{"jsonrpc":"2.0","id":1,"method":"ping"}`}, "ok", "", "ping"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The last line's request, or for the rate limit whichever of
			// the two concurrent calls came second.
			_, logs := mustServeLines(t, tt.opts, tt.lines...)
			found := false
			for id, rec := range accessRecords(parseLogLines(t, logFormatText, logs)) {
				if id != "0" && rec["outcome"] == tt.outcome && rec["code"] == tt.code && rec["method"] == tt.method {
					found = true
				}
			}
			if !found {
				t.Errorf("no access line with outcome=%q code=%q method=%q:\n%s", tt.outcome, tt.code, tt.method, logs)
			}
		})
	}
}

// TestAccessLineCancelled checks a request the client cancelled: no
// reply, and an access line saying so.
func TestAccessLineCancelled(t *testing.T) {
	var logs syncBuffer
	g := newTestGates()
	c := newTestConn(t, newTestServer(t, withGates(g), withLogs(&logs)))
	c.send(req("1", "tools/call", `"name":"gate"`))
	mustReceive(t, g.started)
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	mustReceive(t, g.cancelled)
	c.close()
	if rec := accessRecords(parseLogLines(t, logFormatText, logs.String()))["1"]; rec["outcome"] != "cancelled" {
		t.Errorf("access line %v, want outcome cancelled", rec)
	}
}

// TestAccessLineEscapes sends hostile values where the client chooses
// them (the id, the method, the tool name) and checks that each log line
// stays one line that parses, with the value read back as sent, cut at
// maxLogValueBytes.
func TestAccessLineEscapes(t *testing.T) {
	long := strings.Repeat("é", 3*maxLogValueBytes)
	cut := long[:maxLogValueBytes] + "..."
	for _, tt := range []struct {
		name      string
		line      string
		key, want string
	}{
		{"newline in method", req("1", "x\nlevel=ERROR msg=forged", ""), "method", "x\nlevel=ERROR msg=forged"},
		{"escape sequence in tool name", req("1", "tools/call", `"name":"\u001b[2Jx"`), "name", "\x1b[2Jx"},
		{"quotes and equals", req("1", "tools/call", `"name":"a=\"b\" c"`), "name", `a="b" c`},
		{"line separator", req("1", "tools/call", `"name":"a\u2028b"`), "name", "a\u2028b"},
		{"long name", req("1", "tools/call", `"name":"`+long+`"`), "name", cut},
		{"string id", req(`"1\n2"`, "tools/call", `"name":"echo"`), "id", "1\n2"},
		// An id stays within maxIDBytes (longer ones are refused unread).
		{"long id", req(`"`+long[:2*maxLogValueBytes]+`"`, "tools/call", `"name":"echo"`), "id", cut},
		{"long integer id", req(strings.Repeat("9", 400), "tools/call", `"name":"echo"`), "id", strings.Repeat("9", maxLogValueBytes) + "..."},
	} {
		for _, format := range []string{logFormatText, logFormatJSON} {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				_, logs := mustServeLines(t, []testOption{withFlags("-log-format", format)}, tt.line)
				var access []logRecord
				for _, r := range parseLogLines(t, format, logs) {
					if r["msg"] == "request" {
						access = append(access, r)
					}
				}
				if len(access) != 1 {
					t.Fatalf("%d access lines, want 1:\n%s", len(access), logs)
				}
				if got := access[0][tt.key]; got != tt.want {
					t.Errorf("%s = %q, want %q", tt.key, got, tt.want)
				}
				if strings.ContainsAny(logs, "\x1b\u2028") || !utf8.ValidString(logs) {
					t.Errorf("raw control or separator characters in the log: %q", logs)
				}
			})
		}
	}
}

// TestAccessLogFlags checks the logging flags: access lines by default,
// off with -access-log=false or a level above info, and bad values
// refused.
func TestAccessLogFlags(t *testing.T) {
	line := req("1", "tools/call", `"name":"echo","arguments":{"message":"x"}`)
	for _, tt := range []struct {
		args   []string
		access bool
	}{
		{nil, true},
		{[]string{"-log-level", "debug"}, true},
		{[]string{"-access-log=false"}, false},
		{[]string{"-log-level", "warn"}, false},
		{[]string{"-log-level", "ERROR"}, false},
	} {
		_, logs := mustServeLines(t, []testOption{withFlags(tt.args...)}, line)
		if got := strings.Contains(logs, "msg=request"); got != tt.access {
			t.Errorf("flags %q: access line %v, want %v:\n%s", tt.args, got, tt.access, logs)
		}
	}
	for _, args := range [][]string{
		{"-log-format", "xml"},
		{"-log-level", "loud"},
		{"-log-level", "info+2"},
	} {
		if _, err := parseFlags(args, io.Discard, func(string) string { return "" }); err == nil {
			t.Errorf("parseFlags(%q) = nil, want an error", args)
		}
	}
}

// TestRunWritesTheWholeLog checks that run, whose log is batched, has
// written every line when it returns: the access line of the last request
// included.
func TestRunWritesTheWholeLog(t *testing.T) {
	var out, errOut bytes.Buffer
	in := req("1", "tools/call", `"name":"echo","arguments":{"message":"x"}`) + "\n"
	if err := run(t.Context(), []string{"-log-format", "json"}, strings.NewReader(in), &out, &errOut, func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	// Whichever registry this build serves, and whatever it answers.
	if rec := accessRecords(parseLogLines(t, logFormatJSON, errOut.String()))["1"]; rec["method"] != "tools/call" {
		t.Errorf("run's log has no access line for id 1:\n%s", errOut.String())
	}
}

// TestLogLineMatchesSlog checks that the access line's encoder writes
// what slog's own handlers write for the same values, so one parser reads
// every line: for each format and a set of awkward strings, the line
// equals slog's but for the time.
func TestLogLineMatchesSlog(t *testing.T) {
	at := time.Date(2026, 12, 1, 2, 3, 4, 567_890_123, time.UTC)
	values := []string{"plain", "", "two words", `a"b`, "a=b", `back\slash`, "tab\there", "nl\nx", "\x00\x1f\x7f", "é", "\u2028\u2029", "\xff\xfe", "日本"}
	for _, format := range []string{logFormatText, logFormatJSON} {
		for _, v := range values {
			var want bytes.Buffer
			logger, _, _ := newLogger(logConfig{format: format, level: 0}, &want)
			logger.Info("request", "k", v, "n", int64(-42))
			l := logLine{json: format == logFormatJSON}
			l.begin(at, "INFO", "request")
			l.client("k", v)
			l.int("n", -42)
			l.end()
			strip := regexp.MustCompile(`^(time=\S+|\{"time":"[^"]+")`)
			if g, w := strip.ReplaceAllString(string(l.b), ""), strip.ReplaceAllString(want.String(), ""); g != w {
				t.Errorf("%s %q:\n got %s\nwant %s", format, v, g, w)
			}
		}
		l := logLine{json: format == logFormatJSON}
		l.begin(at, "INFO", "m")
		want := "time=2026-12-01T02:03:04.567Z"
		if format == logFormatJSON {
			want = `{"time":"2026-12-01T02:03:04.567890123Z"`
		}
		if !strings.HasPrefix(string(l.b), want) {
			t.Errorf("%s time: %s, want %s", format, l.b, want)
		}
	}
}

// TestLogSinkNeverBlocks checks the log writer's bound, with and without
// linger: while a Write is stalled (stderr not read), other lines queue up
// to maxLogBacklog, then are dropped and counted, and no writer waits;
// the stall shows (stalled, backlog); once it ends the queued lines are
// written in order, then one line saying how many were dropped.
func TestLogSinkNeverBlocks(t *testing.T) {
	for _, linger := range []time.Duration{0, logLinger} {
		t.Run(fmt.Sprint("linger=", linger), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := &stallWriter{release: make(chan struct{})}
				sink := newLogSink(w, linger)
				line := []byte(strings.Repeat("x", 1023) + "\n")
				var wg sync.WaitGroup
				wg.Go(func() { sink.Write(line) }) // the write that stalls in w
				synctest.Wait()
				time.Sleep(linger + 5*time.Second) // the batch goes out, and stalls
				synctest.Wait()
				if got := sink.stalled(time.Now()); got < 5*time.Second {
					t.Errorf("stalled() = %v while a write has waited 5s, want at least 5s", got)
				}
				const lines = 2 * maxLogBacklog / 1024
				for range lines {
					sink.Write(line) // returns at once, queued or dropped
				}
				kept := maxLogBacklog / len(line)
				if got := sink.backlog(); got != kept*len(line) {
					t.Errorf("backlog() = %d bytes while stalled, want %d", got, kept*len(line))
				}
				if got, want := sink.dropped.Load(), uint64(lines-kept); got != want {
					t.Errorf("dropped %d lines, want %d", got, want)
				}
				close(w.release)
				wg.Wait()
				time.Sleep(2 * linger) // the dropped line's batch
				sink.close()
				if got := sink.stalled(time.Now()); got != 0 {
					t.Errorf("stalled() = %v once written, want 0", got)
				}
				want := (kept + 1) * len(line)
				if len(w.buf) < want || strings.Trim(string(w.buf[:want]), "x\n") != "" {
					t.Fatalf("wrote %d bytes, want the %d lines first", len(w.buf), kept+1)
				}
				report := string(w.buf[want:])
				if !strings.Contains(report, "level=WARN msg=\"log lines dropped") || !strings.HasSuffix(report, fmt.Sprintf(" dropped=%d\n", lines-kept)) {
					t.Errorf("after the lines: %q, want one line saying %d were dropped", report, lines-kept)
				}
			})
		})
	}
}

// TestLogSinkLinger checks the batching of run's sink: lines written
// within logLinger go out in one Write, in order; nothing is written
// before; close writes what is queued; after close, lines are written
// at once.
func TestLogSinkLinger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &countingWriter{}
		written := func() (n int, text string) {
			w.mu.Lock()
			defer w.mu.Unlock()
			return w.writes, w.buf.String()
		}
		sink := newLogSink(w, logLinger)
		for i := range 100 {
			fmt.Fprintf(sink, "line %d\n", i)
		}
		synctest.Wait()
		if n, _ := written(); n != 0 {
			t.Errorf("%d writes before the linger ended, want 0", n)
		}
		time.Sleep(logLinger)
		synctest.Wait()
		var want strings.Builder
		for i := range 100 {
			fmt.Fprintf(&want, "line %d\n", i)
		}
		if n, text := written(); n != 1 || text != want.String() {
			t.Errorf("%d writes of %q, want one of the 100 lines in order", n, text)
		}
		fmt.Fprintf(sink, "queued at close\n")
		sink.close()
		fmt.Fprintf(sink, "after close\n")
		if _, text := written(); !strings.HasSuffix(text, "queued at close\nafter close\n") {
			t.Errorf("close lost or reordered lines: %q", text)
		}
		sink.close() // twice is fine
	})
}

// stallWriter blocks its first Write until release is closed, and keeps
// what it is given.
type stallWriter struct {
	release chan struct{}
	buf     []byte
	once    sync.Once
}

func (w *stallWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { <-w.release })
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// BenchmarkAccessLine measures one access line of a tools/call, encoded
// and written to a discarding log, in each format.
func BenchmarkAccessLine(b *testing.B) {
	for _, format := range []string{logFormatText, logFormatJSON} {
		b.Run(format, func(b *testing.B) {
			_, access, _ := newLogger(logConfig{format: format, access: true}, io.Discard)
			s := newTestServer(b)
			msg, _ := parseMessage([]byte(benchCall))
			req := s.newRequest(&msg, nil, framing{})
			req.version, req.target = version20260728, "echo"
			b.ReportAllocs()
			for b.Loop() {
				access.request(req, transportStdio, outcomeOK, 0, time.Now(), 12*time.Microsecond)
			}
		})
	}
}

// TestLogIDsMatch checks that a line slog writes about a request (a
// timeout, an internal error, a handler's own line) spells its id as the
// access line does, in both formats: a number as a number, a string
// always quoted in text, a long one cut the same way.
func TestLogIDsMatch(t *testing.T) {
	idField := regexp.MustCompile(`(?: |,)("id":.*?,"|id=.*? )`)
	for _, format := range []string{logFormatText, logFormatJSON} {
		for _, id := range []string{`778`, `-3`, `"req-7"`, `"7"`, `"two words"`, `"q\"uote"`, `"` + strings.Repeat("é", 200) + `"`, `123456789012345678901234`} {
			var slogged bytes.Buffer
			logger, _, sink := newLogger(logConfig{format: format, level: slog.LevelInfo}, &slogged)
			s := &server{log: logger, config: config{logSink: sink}}
			logger.Info("m", s.logID([]byte(id)), "k", "v")
			l := logLine{json: format == logFormatJSON}
			l.begin(time.Now(), "INFO", "m")
			l.id("id", []byte(id))
			l.plain("k", "v")
			l.end()
			got, want := idField.FindString(slogged.String()), idField.FindString(string(l.b))
			if got == "" || got != want {
				t.Errorf("%s id %s: slog wrote %q, the access line %q", format, id, got, want)
			}
		}
	}
}

// TestLogSinkHurries checks that a batch of logHurryBytes is written at
// once, not at the end of the linger: a busy server's lines never wait
// long enough to near the backlog bound.
func TestLogSinkHurries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &countingWriter{}
		sink := newLogSink(w, logLinger)
		defer sink.close()
		line := []byte(strings.Repeat("x", 1023) + "\n")
		for range logHurryBytes / len(line) {
			sink.Write(line)
		}
		synctest.Wait()
		w.mu.Lock()
		n := w.buf.Len()
		w.mu.Unlock()
		if n != logHurryBytes {
			t.Errorf("%d bytes written before the linger ended, want the %d queued", n, logHurryBytes)
		}
	})
}
