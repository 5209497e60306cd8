// Structured logs: the logging flags, logSink (the one writer of every line), and the access
// and audit lines, one per request, encoded here in slog's format because every request pays
// for them (docs/OPERATIONS.md, "Cost"; TestLogLineMatchesSlog); log/slog writes every other
// line. Client-derived values are escaped and cut at maxLogValueBytes; no secret is written
// (the principal is a digest of the token; never requestState, a key or Authorization).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio
// (stderr is for logging; stdout carries protocol messages only).

package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// The values of -log-format.
const (
	logFormatText = "text"
	logFormatJSON = "json"
)

const (
	// maxLogValueBytes bounds a client-derived log value: no peer logs megabytes per request.
	maxLogValueBytes = 256

	// maxLogBacklog bounds the bytes queued behind a write; past it lines are dropped, counted.
	maxLogBacklog = 1 << 20

	// maxLogSpareBytes bounds the batch buffer the sink keeps for reuse:
	// a busy server's batches must fit, or each allocates a new one.
	maxLogSpareBytes = 2 * maxLogBacklog

	// logCloseWait bounds how long close waits for a stalled write, so
	// that a stopping server exits; what is still queued is dropped.
	logCloseWait = 2 * time.Second

	// logLinger is how long the sink gathers lines: a log tail still looks live, and a quiet
	// server's requests share a timer's wake-up (docs/OPERATIONS.md, "Cost").
	logLinger = 100 * time.Millisecond

	// logHurryBytes is the queue written at once, not at the end of the
	// linger: a busy server's batch size, well below maxLogBacklog.
	logHurryBytes = 64 << 10
)

// logConfig is the logging flags.
type logConfig struct {
	format string     // logFormatText or logFormatJSON
	level  slog.Level // least severe level written
	access bool       // one access line per request, at info level
	// linger batches writes (logSink): run sets logLinger; tests leave 0,
	// so that a log is complete once the server has answered.
	linger time.Duration
}

// logFlags registers the logging flags on fs, landing in c. Text is the
// default: readable as it is, and parseable as logfmt.
func logFlags(fs *flag.FlagSet, c *logConfig) {
	c.format, c.level = logFormatText, slog.LevelInfo
	fs.Func("log-format", "log line `format`: text (logfmt) or json (default text)", func(v string) error {
		if v != logFormatText && v != logFormatJSON {
			return fmt.Errorf("want text or json, got %q", v)
		}
		c.format = v
		return nil
	})
	fs.Func("log-level", "least severe log `level` written: debug, info, warn or error (default info)", func(v string) error {
		if strings.ContainsAny(v, "+-") || c.level.UnmarshalText([]byte(v)) != nil {
			return errors.New("want debug, info, warn or error")
		}
		return nil
	})
	fs.BoolVar(&c.access, "access-log", true, "write one line per request at info level (-access-log=false for silence)")
}

// newLogger returns the server's logger and its access log (nil with -access-log=false or
// -log-level above info), writing to w through sink, which the caller closes once nothing logs.
func newLogger(c logConfig, w io.Writer) (logger *slog.Logger, access *accessLog, sink *logSink) {
	sink = newLogSink(w, c.linger)
	sink.json = c.format == logFormatJSON
	opts := &slog.HandlerOptions{Level: c.level}
	var h slog.Handler = slog.NewTextHandler(sink, opts)
	if c.format == logFormatJSON {
		h = slog.NewJSONHandler(sink, opts)
	}
	if c.access && c.level <= slog.LevelInfo {
		access = &accessLog{sink: sink}
	}
	return slog.New(h), access, sink
}

// logSink is the one writer of the log: each line is one Write of a complete line; lines never
// interleave and keep their order. With linger above 0 (run) Write only queues and the first
// line queued arms timer, which writes the batch in one system call linger later (at once past
// logHurryBytes): a request pays a copy, never a write(2). With linger 0 (tests) the caller
// writes, with the lines queued meanwhile, so nothing stays queued once writers return. Write
// never waits for w: past maxLogBacklog queued bytes lines are dropped, counted and reported in
// one line once the queue drains (docs/OPERATIONS.md, "Logs"; TestLogSinkNeverBlocks).
type logSink struct {
	w      io.Writer
	linger time.Duration
	json   bool // the sink's own line (dropped lines) is JSON, not text

	// q queues lines for w (linequeue.go); q.mu also guards closed, armed, hurried, unreported.
	q          lineQueue
	closed     bool   // close was called: Write writes itself
	armed      bool   // linger > 0: timer is set to write the queue
	hurried    bool   // armed, and reset to fire at once (logHurryBytes)
	unreported uint64 // lines dropped since the last line that said so

	// timer (linger > 0) calls lingered; it alone owns the batch write, and close stops it.
	timer *time.Timer

	dropped atomic.Uint64 // lines dropped since the sink was made
	writing atomic.Int64  // when the write in progress began (Unix ns); 0 for none
}

// newLogSink returns a sink writing to w, batching for linger if above 0.
func newLogSink(w io.Writer, linger time.Duration) *logSink {
	l := &logSink{w: w, linger: linger}
	l.q.init(maxLogSpareBytes)
	if linger > 0 {
		l.timer = time.AfterFunc(time.Hour, l.lingered)
		l.timer.Stop()
	}
	return l
}

// Write queues or writes p (complete lines), or drops it when maxLogBacklog bytes wait already.
// It never waits for w and never fails: a log that cannot be written has nowhere to say so.
func (l *logSink) Write(p []byte) (int, error) {
	l.q.mu.Lock()
	batching := l.timer != nil && !l.closed
	if !batching && !l.q.flushing {
		l.q.flushing = true
		l.q.mu.Unlock()
		l.flush(p, false)
		return len(p), nil
	}
	if len(l.q.queued)+len(p) > maxLogBacklog {
		l.unreported++
		l.q.mu.Unlock()
		l.dropped.Add(1)
		return len(p), nil
	}
	l.q.queued = append(l.q.queued, p...)
	// A write in progress takes the queue when it ends; else the timer does.
	switch {
	case !batching:
	case !l.armed && !l.q.flushing:
		l.armed = true
		l.timer.Reset(l.linger)
	case l.armed && !l.hurried && len(l.q.queued) >= logHurryBytes:
		l.hurried = true
		l.timer.Reset(0)
	}
	l.q.mu.Unlock()
	return len(p), nil
}

// lingered is the timer's function (linger > 0): it writes the queued
// batch, unless a write is in progress, which writes it when it ends.
func (l *logSink) lingered() {
	l.q.mu.Lock()
	l.armed, l.hurried = false, false
	if l.q.flushing || len(l.q.queued) == 0 {
		l.q.mu.Unlock()
		return
	}
	b := l.q.queued
	l.q.queued, l.q.spare = l.q.spare, nil
	l.q.flushing = true
	l.q.room.Broadcast()
	l.q.mu.Unlock()
	l.flush(b, true)
}

// flush writes b (ours: a batch of the sink's, not the caller's line), every batch queued
// meanwhile, then a line counting those dropped; only the goroutine that set flushing calls it.
func (l *logSink) flush(b []byte, ours bool) {
	l.q.drain(b, ours, func(b []byte) {
		l.writing.Store(time.Now().UnixNano())
		_, _ = l.w.Write(b)
		l.writing.Store(0)
	})
	l.q.mu.Lock()
	n := l.unreported
	l.unreported = 0
	l.q.mu.Unlock()
	if n > 0 {
		line := logLine{json: l.json}
		line.begin(time.Now(), "WARN", "log lines dropped: the log was not read fast enough")
		line.int("dropped", int64(n))
		line.end()
		_, _ = l.Write(line.b)
	}
}

// backlog returns the bytes queued behind the write in progress.
func (l *logSink) backlog() int {
	l.q.mu.Lock()
	defer l.q.mu.Unlock()
	return len(l.q.queued)
}

// stalled returns how long the write in progress has waited at now; 0 for none.
func (l *logSink) stalled(now time.Time) time.Duration {
	start := l.writing.Load()
	if start == 0 {
		return 0
	}
	return max(0, now.Sub(time.Unix(0, start)))
}

// close writes what is queued, waiting at most logCloseWait for a stalled write (whose
// goroutine stays blocked); later lines are written by their callers. Callable more than once.
func (l *logSink) close() {
	if l.timer == nil {
		return
	}
	l.timer.Stop()
	l.q.mu.Lock()
	l.closed = true
	l.q.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.q.mu.Lock()
		for l.q.flushing {
			l.q.room.Wait()
		}
		b := l.q.queued
		l.q.queued = nil
		l.q.flushing = len(b) > 0
		l.q.mu.Unlock()
		if len(b) > 0 {
			l.flush(b, true)
		}
	}()
	select {
	case <-done:
	case <-time.After(logCloseWait):
	}
}

// accessLog writes the access lines: one per request, at info level, in the log's format.
type accessLog struct {
	sink *logSink
}

// logLinePool recycles the buffers log lines are encoded into.
var logLinePool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// request writes the access line of req (logLine.request), ended at end.
func (a *accessLog) request(req *request, tr transport, out outcome, code int, end time.Time, d time.Duration) {
	bp := logLinePool.Get().(*[]byte)
	l := logLine{b: (*bp)[:0], json: a.sink.json}
	l.begin(end, "INFO", "request")
	l.request(req, tr, out, code, d)
	l.end()
	_, _ = a.sink.Write(l.b)
	*bp = l.b
	logLinePool.Put(bp)
}

// request adds the fields of the access and audit lines (code 0 for a
// result), leaving out those that do not apply (docs/OPERATIONS.md).
func (l *logLine) request(req *request, tr transport, out outcome, code int, d time.Duration) {
	l.id("id", req.id)
	l.plain("transport", transportNames[tr])
	l.plain("era", eraName(req.era.era))
	if req.version != "" {
		l.plain("protocol", req.version)
	}
	l.client("method", req.method)
	if name := req.targetName(); name != "" {
		l.client("name", name)
	}
	if p := req.caller.principal; p != "" {
		l.client("principal", p)
	}
	if c := req.caller.addr; c != "" {
		// printed by net/http or netip (clientAddr), never the client's bytes
		l.plain("client", c)
	}
	l.plain("outcome", outcomeNames[out])
	if code != 0 {
		l.int("code", int64(code))
	}
	l.int("duration_us", d.Microseconds())
	l.hex("trace_id", req.trace.TraceID[:])
	l.hex("span_id", req.trace.SpanID[:])
	if req.trace.Remote {
		l.hex("parent_span_id", req.trace.ParentID[:])
	}
}

// targetName returns what a request names, for the access and audit lines: the tool or prompt
// name, the resource URI, a completion's ref; "" otherwise (a task id is a capability: never
// logged). It is req.target, or read from params for a request refused before its handler ran.
func (r *request) targetName() string {
	if r.target != "" {
		return r.target
	}
	switch t := methods[r.method].target; t {
	case targetTool, targetPrompt, targetResource:
		s, _ := jsonString(r.param(t.param()))
		return s
	case targetRef:
		if ref, rerr := objectParam(r.param("ref"), "ref", "type", "name", "uri"); rerr == nil {
			return ref["name"] + ref["uri"]
		}
	}
	return ""
}

// logAttrs tie a slog line to its request, spelt as its access line
// spells them: id (logID), method, trace_id, span_id.
func (r *request) logAttrs() []any {
	return []any{r.server.logID(r.id), "method", r.method, "trace_id", r.trace.TraceIDString(), "span_id", r.trace.SpanIDString()}
}

// logID is the attribute "id" for a slog line, spelt as logLine.id spells it; in text a
// string id is a []byte, which slog always quotes (TestLogIDsMatch).
func (s *server) logID(raw []byte) slog.Attr {
	if isJSONInteger(raw) && len(raw) <= 20 {
		return slog.Any("id", json.Number(raw))
	}
	v := logIDString(raw)
	if s.logSink != nil && !s.logSink.json {
		return slog.Any("id", []byte(v))
	}
	return slog.String("id", v)
}

// Logger returns the server's logger with the request's logAttrs, for a
// handler or middleware. Each call builds a logger: call it once.
func (r *request) Logger() *slog.Logger { return r.server.log.With(r.logAttrs()...) }

// eraName is the era's name in logs and metrics.
func eraName(e era) string {
	if e == classicEra {
		return "classic"
	}
	return "modern"
}

// logLine encodes one log line as slog's text (logfmt) or JSON handler
// writes it: time, level, msg, then key/value pairs with escaped values.
type logLine struct {
	b    []byte
	json bool
}

// begin opens the line with time t, level and msg. The time is slog's: RFC 3339 with
// milliseconds (cut, not rounded) in text, with nanoseconds (trailing zeros dropped) in JSON.
func (l *logLine) begin(t time.Time, level, msg string) {
	if l.json {
		l.b = append(l.b, `{"time":"`...)
		l.b = t.AppendFormat(l.b, time.RFC3339Nano)
		l.b = append(l.b, '"')
	} else {
		// RFC3339Nano's fast path with four digits of fraction (the time cut to milliseconds,
		// plus 100 µs), less the fourth: a custom layout is slower (BenchmarkAccessLine).
		l.b = append(l.b, "time="...)
		cut := len(l.b) + len("2006-01-02T15:04:05.000")
		l.b = t.Truncate(time.Millisecond).Add(time.Millisecond/10).AppendFormat(l.b, time.RFC3339Nano)
		l.b = append(l.b[:cut], l.b[cut+1:]...)
	}
	l.plain("level", level)
	l.key("msg")
	l.str(msg)
}

// key starts the pair named key.
func (l *logLine) key(key string) {
	if l.json {
		l.b = append(l.b, ',', '"')
		l.b = append(l.b, key...)
		l.b = append(l.b, '"', ':')
	} else {
		l.b = append(l.b, ' ')
		l.b = append(l.b, key...)
		l.b = append(l.b, '=')
	}
}

// plain adds a value from a closed set (a level, a transport, an
// outcome): printable ASCII that needs neither quoting nor escaping.
func (l *logLine) plain(key, v string) {
	l.key(key)
	if l.json {
		l.b = append(l.b, '"')
		l.b = append(l.b, v...)
		l.b = append(l.b, '"')
		return
	}
	l.b = append(l.b, v...)
}

// client adds a value the client chose (or may have), cut (cutLogValue).
func (l *logLine) client(key, v string) {
	l.key(key)
	l.str(cutLogValue(v))
}

// cutLogValue cuts v at maxLogValueBytes, on a character boundary, marking the cut "...".
func cutLogValue(v string) string {
	if len(v) <= maxLogValueBytes {
		return v
	}
	n := maxLogValueBytes
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return v[:n] + "..."
}

// str appends v as slog does: a JSON string, or in text Go-quoted if textNeedsQuote, else bare.
func (l *logLine) str(v string) {
	if l.json {
		l.b = appendJSONString(l.b, v)
		return
	}
	if textNeedsQuote(v) {
		l.b = strconv.AppendQuote(l.b, v)
		return
	}
	l.b = append(l.b, v...)
}

// int adds an integer.
func (l *logLine) int(key string, v int64) {
	l.key(key)
	l.b = strconv.AppendInt(l.b, v, 10)
}

// hex adds id as lowercase hex digits.
func (l *logLine) hex(key string, id []byte) {
	l.key(key)
	if l.json {
		l.b = append(l.b, '"')
		l.b = hex.AppendEncode(l.b, id)
		l.b = append(l.b, '"')
		return
	}
	l.b = hex.AppendEncode(l.b, id)
}

// id adds a JSON-RPC id: an integer of at most 20 digits as a number, anything else as a
// string (logIDString), quoted in text so that id=7 and id="7" stay distinct.
func (l *logLine) id(key string, raw []byte) {
	l.key(key)
	switch {
	case isJSONInteger(raw) && len(raw) <= 20:
		l.b = append(l.b, raw...)
	case l.json:
		l.b = appendJSONString(l.b, logIDString(raw))
	default:
		l.b = strconv.AppendQuote(l.b, logIDString(raw))
	}
}

// logIDString is a JSON-RPC id that is not a short integer, as a log
// value: a string's text, else the raw bytes, cut (cutLogValue).
func logIDString(raw []byte) string {
	s, ok := jsonString(raw)
	if !ok {
		s = string(raw)
	}
	return cutLogValue(s)
}

// end closes the line.
func (l *logLine) end() {
	if l.json {
		l.b = append(l.b, '}')
	}
	l.b = append(l.b, '\n')
}

// textNeedsQuote reports whether slog's text handler would quote v: empty, or holding a space,
// '"', '=', a control character, invalid UTF-8, or a non-ASCII space or unprintable character.
func textNeedsQuote(v string) bool {
	if v == "" {
		return true
	}
	for _, r := range v {
		if r < utf8.RuneSelf {
			if r <= ' ' || r == '"' || r == '=' {
				return true
			}
		} else if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
	}
	return false
}

// appendJSONString appends v as a JSON string as slog's JSON handler does: '"', '\',
// control characters, U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD; unlike
// json.Marshal it allocates nothing and leaves <, > and & as they are.
func appendJSONString(b []byte, v string) []byte {
	const digits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i, r := range v {
		if 0x20 <= r && r < utf8.RuneSelf && r != '"' && r != '\\' {
			continue // plain ASCII, most of a line: one test (BenchmarkAccessLine)
		}
		switch {
		case r < 0x20, r == '"', r == '\\', r == '\u2028', r == '\u2029':
		case r == utf8.RuneError && !strings.HasPrefix(v[i:], "\ufffd"): // invalid UTF-8
		default:
			continue
		}
		b = append(b, v[start:i]...)
		start = i + 1
		switch r {
		case '"', '\\':
			b = append(b, '\\', byte(r))
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case utf8.RuneError:
			b = append(b, `\ufffd`...)
		case '\u2028', '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', digits[r&0xf])
			start = i + 3
		default:
			b = append(b, '\\', 'u', '0', '0', digits[r>>4], digits[r&0xf])
		}
	}
	b = append(b, v[start:]...)
	return append(b, '"')
}

// audit writes the audit line of an authenticated caller's request (the access line's fields,
// msg=audit), called only with access lines off: such a request leaves exactly one info line.
func (s *server) audit(req *request, tr transport, took time.Duration, code int) {
	if s.logSink == nil || !s.log.Enabled(context.Background(), slog.LevelInfo) {
		return
	}
	l := logLine{json: s.logSink.json}
	l.begin(time.Now(), "INFO", "audit")
	l.request(req, tr, req.end, code, took)
	l.end()
	_, _ = s.logSink.Write(l.b)
}
