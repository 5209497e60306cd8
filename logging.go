// Structured logs: the logging flags, the one writer every line goes
// through (logSink), and the access line, one per request (or, with access
// lines off, the audit line of an authenticated one). Every other
// line is written by log/slog; the access line is encoded here, in the
// same format, because it is written for every request: slog's handlers
// took about 1.1 µs and an allocation per line of a dozen attributes
// (runtime.Callers and general value formatting), a quarter of a
// dispatched tools/call, where this encoder takes a fraction of that.
//
// Client-derived values (request ids, method, tool, prompt and resource
// names) are escaped, by quoting in text and by JSON string escaping, and
// cut at maxLogValueBytes. Secrets never reach a log line: the principal
// is a digest of the token, and neither requestState, the state key nor
// the Authorization header is written by anything here.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio
// (stderr is for logging; stdout carries protocol messages only).

package main

import (
	"context"
	"encoding/hex"
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
	// maxLogValueBytes bounds a client-derived value in a log line (a
	// method, a tool name, a URI, a request id): a name is short, and a
	// peer must not be able to write megabytes into the log per request.
	maxLogValueBytes = 256

	// maxLogBacklog bounds the log lines queued while another goroutine
	// writes to the log (logSink). Beyond it writers wait: a stalled
	// stderr slows the server down instead of growing its memory or
	// losing lines.
	maxLogBacklog = 1 << 20

	// maxLogSpareBytes bounds the batch buffer the log sink keeps for
	// reuse. A busy server's batches (a millisecond of access lines: tens
	// of KiB) must fit, or every batch allocates and clears a new buffer,
	// which cost more than formatting the lines; the backlog bound makes
	// larger batches rare.
	maxLogSpareBytes = 2 * maxLogBacklog
)

// logConfig is the logging flags.
type logConfig struct {
	format string     // logFormatText or logFormatJSON
	level  slog.Level // least severe level written
	access bool       // one access line per request, at info level
	// linger batches log writes (logSink); run sets logLinger, tests
	// leave 0 so that a log is complete when the server has answered.
	linger time.Duration
}

// logFlags registers the logging flags on fs, landing in c.
// Text is the default format: the same wherever the server runs (a
// terminal, a supervisor, a client capturing stderr), readable as it is and
// parseable as logfmt; ask for json where a log pipeline wants it.
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
		var l slog.Level
		if err := l.UnmarshalText([]byte(v)); err != nil || strings.ContainsAny(v, "+-") {
			return errors.New("want debug, info, warn or error")
		}
		c.level = l
		return nil
	})
	fs.BoolVar(&c.access, "access-log", true, "write one line per request at info level (-access-log=false for silence)")
}

// newLogger returns the server's logger and its access log, both writing
// to w through one logSink; the access log is nil when access lines are
// off (-access-log=false, or -log-level above info). With c.linger the
// sink batches lines on a goroutine of its own: closeLog writes what is
// queued and stops it, and must be called once nothing logs any more.
func newLogger(c logConfig, w io.Writer) (logger *slog.Logger, access *accessLog, closeLog func()) {
	sink := newLogSink(w, c.linger)
	opts := &slog.HandlerOptions{Level: c.level}
	var h slog.Handler = slog.NewTextHandler(sink, opts)
	if c.format == logFormatJSON {
		h = slog.NewJSONHandler(sink, opts)
	}
	if c.access && c.level <= slog.LevelInfo {
		access = &accessLog{sink: sink, json: c.format == logFormatJSON}
	}
	return slog.New(h), access, sink.close
}

// logSink is the one writer of the log: every line, slog's and the access
// lines, is one Write of a complete line, and lines never interleave and
// keep their order. How they reach w depends on linger:
//
//   - 0 (HTTP, tests): the goroutine that calls Write writes, and lines
//     completed meanwhile are queued and go out together in its next
//     Write, as the stdio transport writes stdout. Nothing is ever left
//     queued once every writer has returned.
//   - above 0 (stdio: logLinger): Write only queues. The first line queued
//     arms a timer; when it fires, linger later, the lines queued by then
//     are written in one system call, on the timer's goroutine. An access
//     line per request then costs a copy, not a write(2) of its own: at a
//     few thousand requests a second, each write carries a few lines
//     instead of one. No goroutine waits for lines: waking one for the
//     first line of every batch, and again at the end of its linger, cost
//     more than the lines (issue 14's benchmark criterion: 10 % of the
//     server's CPU on HTTP at one client). Lines reach w at most linger
//     late (or once a stalled write returns), and close writes what is
//     queued; a crash of the whole process (not a handler's panic, which
//     is recovered) loses at most linger's worth.
//
// Either way, once maxLogBacklog bytes are queued, writers wait for the
// write in progress (or the timer's): a stalled stderr slows the server
// down instead of growing its memory or losing lines.
type logSink struct {
	w      io.Writer
	linger time.Duration

	// q coalesces the lines written to w (linequeue.go); its mu also
	// guards closed and armed.
	q      lineQueue
	closed bool // close was called: Write writes itself
	armed  bool // linger > 0: timer is set to write the queue

	// timer (linger > 0) runs lingered linger after the first line of a
	// batch is queued; it is the only owner of the batch write, and close
	// stops it.
	timer *time.Timer
}

// logLinger is how long the log sink of a stdio server waits for more
// lines before it writes a batch: short enough that a log tail looks
// live, long enough to put many access lines in one system call under
// load. An HTTP server does not wait: against the harness, waiting cost
// HTTP at one client 6 to 10 % more CPU per request than writing each
// line at once (a timer's wake-up a millisecond for a few lines), and
// writing at once cost stdio at k=1 about as much more.
const logLinger = time.Millisecond

// newLogSink returns a sink writing to w, batching for linger when it is
// above 0.
func newLogSink(w io.Writer, linger time.Duration) *logSink {
	l := &logSink{w: w, linger: linger}
	l.q.init(maxLogSpareBytes)
	if linger > 0 {
		l.timer = time.AfterFunc(time.Hour, l.lingered)
		l.timer.Stop()
	}
	return l
}

// Write queues or writes p, one or more complete lines. It never returns
// an error: a log that cannot be written has nowhere to say so.
func (l *logSink) Write(p []byte) (int, error) {
	batching := l.timer != nil
	l.q.mu.Lock()
	for len(l.q.queued) >= maxLogBacklog && (l.q.flushing || batching && !l.closed) {
		l.q.room.Wait()
	}
	if batching && !l.closed {
		l.q.queued = append(l.q.queued, p...)
		if !l.armed && !l.q.flushing {
			// A write in progress takes the queue when it ends.
			l.armed = true
			l.timer.Reset(l.linger)
		}
		l.q.mu.Unlock()
		return len(p), nil
	}
	if l.q.flushing {
		l.q.queued = append(l.q.queued, p...)
		l.q.mu.Unlock()
		return len(p), nil
	}
	l.q.flushing = true
	l.q.mu.Unlock()
	l.flush(p, false)
	return len(p), nil
}

// lingered is the timer's function (linger > 0): it writes the queued
// batch, unless a write is in progress, which writes it when it ends.
func (l *logSink) lingered() {
	l.q.mu.Lock()
	l.armed = false
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

// flush writes b, then every batch queued meanwhile (lineQueue.drain);
// only the goroutine that set flushing calls it. ours says b is a batch
// of the sink's, not the caller's line.
func (l *logSink) flush(b []byte, ours bool) {
	l.q.drain(b, ours, func(b []byte) { _, _ = l.w.Write(b) })
}

// close writes what is queued and waits for a write in progress; later
// lines are written by their callers, as with linger 0. It is safe to
// call more than once, and does nothing more for a sink without linger.
func (l *logSink) close() {
	if l.timer == nil {
		return
	}
	l.timer.Stop()
	l.q.mu.Lock()
	l.closed = true
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
}

// accessLog writes the access lines: one per request, at info level, in
// the log's format. See the file comment for why it does not go through
// slog.
type accessLog struct {
	sink  *logSink
	json  bool                        // -log-format json
	stamp atomic.Pointer[secondStamp] // the latest second's, replaced each second
}

// stampOf returns t's second stamp, made at most once a second.
func (a *accessLog) stampOf(t time.Time) *secondStamp {
	st := a.stamp.Load()
	if st == nil || st.unix != t.Unix() {
		st = newSecondStamp(t)
		a.stamp.Store(st)
	}
	return st
}

// logLinePool recycles the buffers log lines are encoded into.
var logLinePool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// request writes the access line of req, served on transport with the
// given outcome, JSON-RPC error code (0 for a result) and duration, ended
// at end.
// Fields that do not apply are left out (name, principal, client, code,
// parent_span_id); docs/OPERATIONS.md lists them all.
func (a *accessLog) request(req *request, tr transport, out outcome, code int, end time.Time, d time.Duration) {
	bp := logLinePool.Get().(*[]byte)
	l := logLine{b: (*bp)[:0], json: a.json}
	l.begin(end, a.stampOf(end), "INFO", "request")
	l.id("id", req.id)
	l.plain("transport", transportNames[tr])
	l.plain("era", eraName(req.era.era))
	if req.version != "" {
		// Set only once negotiated: one of the versions served.
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
		// The connection's peer address as net/http reports it, or one
		// parsed from X-Forwarded-For and printed by netip (clientAddr):
		// never the client's own bytes.
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
	l.end()
	_, _ = a.sink.Write(l.b)
	*bp = l.b
	logLinePool.Put(bp)
}

// targetName returns what a request names, for the access and audit
// lines: the tool or prompt name, the resource URI, the prompt or
// template a completion refers to; "" for other methods (a task id is a
// capability: never logged) and when params do not say. The handler
// records it (req.target); a request refused before its handler ran
// (rate limited, invalid) has it read from params here.
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

// logAttrs are the attributes that tie a log line to its request, the
// same as its access line's: id, method, trace_id, span_id. slog escapes
// the values; the method is one of the table's (handlers run only for
// those), the id is cut like any client value.
func (r *request) logAttrs() []any {
	id := string(r.id)
	if len(id) > maxLogValueBytes {
		id = id[:maxLogValueBytes] + "..."
	}
	return []any{"id", id, "method", r.method, "trace_id", r.trace.TraceIDString(), "span_id", r.trace.SpanIDString()}
}

// Logger returns the server's logger with the request's id, method and
// trace ids on every line, for a handler or a middleware that logs about
// the request. Each call builds a new logger: call it once per request.
func (r *request) Logger() *slog.Logger { return r.server.log.With(r.logAttrs()...) }

// eraName is the era's name in logs and metrics.
func eraName(e era) string {
	if e == classicEra {
		return "classic"
	}
	return "modern"
}

// logLine encodes one log line as slog's text handler (logfmt) or JSON
// handler writes it: time, level and msg first, then key/value pairs.
// Keys are this file's constants; values are escaped.
type logLine struct {
	b    []byte
	json bool
}

// secondStamp is the part of a log line's time that changes once a
// second: the date and time to the second, and the zone, as RFC 3339
// writes them. Formatting them was a third of an access line's cost;
// accessLog keeps the current one.
type secondStamp struct {
	unix int64
	date [len("2006-01-02T15:04:05")]byte
	zone string // "Z" or "+01:00"
}

// newSecondStamp returns t's stamp.
func newSecondStamp(t time.Time) *secondStamp {
	b := t.AppendFormat(nil, time.RFC3339)
	st := &secondStamp{unix: t.Unix()}
	n := copy(st.date[:], b)
	st.zone = string(b[n:])
	return st
}

// begin opens the line with its time, level and message. st is t's
// stamp, or nil to make one. The time is written as slog writes it: in
// text RFC 3339 with milliseconds, in JSON RFC 3339 with nanoseconds
// (trailing zeros dropped).
func (l *logLine) begin(t time.Time, st *secondStamp, level, msg string) {
	if st == nil {
		st = newSecondStamp(t)
	}
	ns := t.Nanosecond()
	if l.json {
		l.b = append(l.b, `{"time":"`...)
		l.b = append(l.b, st.date[:]...)
		if ns != 0 {
			var frac [10]byte
			frac[0] = '.'
			for i, v := 9, ns; i > 0; i-- {
				frac[i] = byte('0' + v%10)
				v /= 10
			}
			n := len(frac)
			for frac[n-1] == '0' {
				n--
			}
			l.b = append(l.b, frac[:n]...)
		}
		l.b = append(l.b, st.zone...)
		l.b = append(l.b, '"')
	} else {
		ms := ns / 1e6
		l.b = append(l.b, "time="...)
		l.b = append(l.b, st.date[:]...)
		l.b = append(l.b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
		l.b = append(l.b, st.zone...)
	}
	l.plain("level", level)
	l.plain("msg", msg)
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

// client adds a value the client chose (or may have): cut at
// maxLogValueBytes, on a character boundary, marked with "...".
func (l *logLine) client(key, v string) {
	l.key(key)
	l.str(cutLogValue(v))
}

// cutLogValue cuts v at maxLogValueBytes, on a character boundary, and
// marks the cut with "...".
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

// str appends v as a value: a JSON string, or in text unquoted when that
// is unambiguous (printable characters other than space, '"' and '=':
// textNeedsQuote) and Go-quoted otherwise, as slog's text handler does
// ('\' needs no quotes).
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

// id adds a JSON-RPC request id: an integer as a number, a string as a
// string (quoted in text, so that id=7 and id="7" stay distinct), cut like
// any client value. A very long integer is written as a cut string.
func (l *logLine) id(key string, raw []byte) {
	if isJSONInteger(raw) && len(raw) <= 20 {
		l.key(key)
		l.b = append(l.b, raw...)
		return
	}
	s, ok := jsonString(raw)
	if !ok {
		s = string(raw)
	}
	l.key(key)
	s = cutLogValue(s)
	if l.json {
		l.b = appendJSONString(l.b, s)
	} else {
		l.b = strconv.AppendQuote(l.b, s)
	}
}

// end closes the line.
func (l *logLine) end() {
	if l.json {
		l.b = append(l.b, '}')
	}
	l.b = append(l.b, '\n')
}

// textNeedsQuote reports whether a text value must be quoted to be read
// back as one value, by slog's text handler's rule: empty, or holding a
// space, '"', '=', an ASCII control character, invalid UTF-8, or a
// non-ASCII character that is a space or not printable.
func textNeedsQuote(v string) bool {
	if v == "" {
		return true
	}
	for i := 0; i < len(v); {
		c := v[i]
		if c < utf8.RuneSelf {
			if c < ' ' || c == ' ' || c == '"' || c == '=' {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(v[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}

// appendJSONString appends v as a JSON string: '"', '\' and control
// characters escaped, invalid UTF-8 replaced by U+FFFD, and U+2028 and
// U+2029 escaped (they end a line in JavaScript), as slog's JSON handler
// does. Log lines and task bodies (tasks_store.go) use it; unlike
// json.Marshal it allocates nothing and leaves <, > and & as they are.
func appendJSONString(b []byte, v string) []byte {
	const digits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(v); {
		c := v[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, v[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', digits[c>>4], digits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(v[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, v[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, v[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', digits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, v[start:]...)
	return append(b, '"')
}

// maxAuditName bounds the tool name or URI an audit line quotes.
const maxAuditName = 256

// audit writes the audit line of a request an authenticated caller made:
// who, what (method and the tool, prompt or resource it names), the
// outcome and how long it took. Never the token: only its principal.
// Values are quoted by the log handler, so a hostile name cannot forge a
// line. The access line (logging.go) carries all of this and more; audit
// writes its line only when access lines are off (-access-log=false), so
// that an authenticated request leaves exactly one line either way.
func (s *server) audit(req *request, who caller, took time.Duration, code int) {
	name := req.targetName()
	if len(name) > maxAuditName {
		name = name[:maxAuditName] + "..."
	}
	// The outcome and the trace ids are the access line's, so that both
	// lines, and the metrics, say the same of a request (review B,
	// finding 12: the audit line had a vocabulary of its own).
	s.log.LogAttrs(context.Background(), slog.LevelInfo, "audit",
		slog.String("principal", who.principal), slog.String("method", req.method), slog.String("name", name),
		slog.String("outcome", outcomeNames[outcomeOf(req, code)]), slog.Int("code", code), slog.Duration("duration", took),
		slog.String("trace_id", hex.EncodeToString(req.trace.TraceID[:])), slog.String("span_id", hex.EncodeToString(req.trace.SpanID[:])))
}
