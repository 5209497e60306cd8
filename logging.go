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
	// maxLogValueBytes bounds a client-derived value in a log line (a
	// method, a tool name, a URI, a request id): a name is short, and a
	// peer must not be able to write megabytes into the log per request.
	maxLogValueBytes = 256

	// maxLogBacklog bounds the log lines queued while another goroutine
	// writes to the log (logSink). Beyond it lines are dropped and
	// counted: a stalled stderr (nobody reads the pipe) never holds a
	// request, and the memory it can cost is bounded (logSink).
	maxLogBacklog = 1 << 20

	// maxLogSpareBytes bounds the batch buffer the log sink keeps for
	// reuse. A busy server's batches (a millisecond of access lines: tens
	// of KiB) must fit, or every batch allocates and clears a new buffer,
	// which cost more than formatting the lines; the backlog bound makes
	// larger batches rare.
	maxLogSpareBytes = 2 * maxLogBacklog

	// logCloseWait bounds how long closing the log waits for a write in
	// progress: a stalled stderr must not keep a stopping server from
	// exiting. What is still queued then is dropped.
	logCloseWait = 2 * time.Second
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
// to w through sink; the access log is nil when access lines are off
// (-access-log=false, or -log-level above info). With c.linger the sink
// batches lines on the goroutine of its timer: sink.close writes what is
// queued and stops it, and must be called once nothing logs any more.
func newLogger(c logConfig, w io.Writer) (logger *slog.Logger, access *accessLog, sink *logSink) {
	sink = newLogSink(w, c.linger)
	sink.json = c.format == logFormatJSON
	opts := &slog.HandlerOptions{Level: c.level}
	var h slog.Handler = slog.NewTextHandler(sink, opts)
	if c.format == logFormatJSON {
		h = slog.NewJSONHandler(sink, opts)
	}
	if c.access && c.level <= slog.LevelInfo {
		access = &accessLog{sink: sink, json: c.format == logFormatJSON}
	}
	return slog.New(h), access, sink
}

// logSink is the one writer of the log: every line, slog's and the access
// lines, is one Write of a complete line, and lines never interleave and
// keep their order. How they reach w depends on linger:
//
//   - above 0 (run, both transports: logLinger): Write only queues. The
//     first line queued arms a timer; when it fires, linger later, the
//     lines queued by then are written in one system call, on the timer's
//     goroutine. A request's access line thus costs a copy, never a
//     write(2) on the request's path, and its reply is never behind it:
//     at a few thousand requests a second, each write carries a few lines
//     instead of one. No goroutine waits for lines: waking one for the
//     first line of every batch, and again at the end of its linger, cost
//     more than the lines. Lines reach w at most linger late (or once a
//     stalled write returns), and close writes what is queued; a crash of
//     the whole process (not a handler's panic, which is recovered) loses
//     at most linger's worth.
//   - 0 (tests): the goroutine that calls Write writes, and lines
//     completed meanwhile are queued and go out together in its next
//     Write. Nothing is left queued once every writer has returned, so a
//     test reads a complete log as soon as the server has answered.
//
// Either way Write never waits for w: once maxLogBacklog bytes are queued
// behind a write in progress, further lines are dropped and counted
// (dropped, the metric baremcp_log_lines_dropped_total), and when the
// queue has drained the sink writes one line saying how many were lost.
// A stalled stderr costs at most the queue and the batch being written
// (each at most maxLogBacklog plus a line, in buffers of at most twice
// that: 4 MiB) and the one goroutine blocked in the write; serving goes
// on (TestLogSinkNeverBlocks). stalled tells how long the write in
// progress has been waiting.
type logSink struct {
	w      io.Writer
	linger time.Duration
	json   bool // the sink's own line (dropped lines) is JSON, not text

	// q coalesces the lines written to w (linequeue.go); its mu also
	// guards closed, armed and unreported.
	q          lineQueue
	closed     bool   // close was called: Write writes itself
	armed      bool   // linger > 0: timer is set to write the queue
	hurried    bool   // armed, and reset to fire at once (logHurryBytes)
	unreported uint64 // lines dropped since the last line that said so

	// timer (linger > 0) runs lingered linger after the first line of a
	// batch is queued; it is the only owner of the batch write, and close
	// stops it.
	timer *time.Timer

	dropped atomic.Uint64 // lines dropped since the sink was made
	writing atomic.Int64  // when the write in progress began (Unix ns); 0 for none
}

// logLinger is how long the log sink waits for more lines before it
// writes a batch, unless logHurryBytes are queued first: short enough
// that a log tail looks live, long enough to put many access lines in one
// system call. Each batch costs a timer's goroutine and a thread's
// wake-up, which the requests of a quiet server share: measured in the
// harness at HTTP c=1 (server CPU per request, one run of 7 rounds), 1 ms
// cost 6 to 10 % more than writing each line on its request (issue 14),
// 10 ms 14 % more, 100 ms 5 % less.
const logLinger = 100 * time.Millisecond

// logHurryBytes is the queue that has its batch written at once rather
// than at the end of the linger: a busy server's lines go out in batches
// of this size (tens to hundreds a second), well before the backlog bound
// (maxLogBacklog) is near.
const logHurryBytes = 64 << 10

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

// Write queues or writes p, one or more complete lines, or drops it when
// maxLogBacklog bytes wait already. It never waits for w, and never
// returns an error: a log that cannot be written has nowhere to say so.
func (l *logSink) Write(p []byte) (int, error) {
	l.q.mu.Lock()
	batching := l.timer != nil && !l.closed
	if (batching || l.q.flushing) && len(l.q.queued)+len(p) > maxLogBacklog {
		l.unreported++
		l.q.mu.Unlock()
		l.dropped.Add(1)
		return len(p), nil
	}
	if batching {
		l.q.queued = append(l.q.queued, p...)
		switch {
		case !l.armed && !l.q.flushing:
			// A write in progress takes the queue when it ends.
			l.armed = true
			l.timer.Reset(l.linger)
		case l.armed && !l.hurried && len(l.q.queued) >= logHurryBytes:
			l.hurried = true
			l.timer.Reset(0)
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

// flush writes b, then every batch queued meanwhile (lineQueue.drain);
// only the goroutine that set flushing calls it. ours says b is a batch
// of the sink's, not the caller's line. Once the queue is empty it
// reports the lines dropped since the last report, in a line of its own.
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
		line.begin(time.Now(), nil, "WARN", "log lines dropped: the log was not read fast enough")
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

// stalled returns how long the write in progress has been waiting at
// now: 0 when none is in progress.
func (l *logSink) stalled(now time.Time) time.Duration {
	start := l.writing.Load()
	if start == 0 {
		return 0
	}
	return max(0, now.Sub(time.Unix(0, start)))
}

// close writes what is queued and waits for a write in progress, for at
// most logCloseWait: past it, a stalled w keeps what is queued and close
// returns (the goroutine that waits to write it is left behind, blocked
// in w like the write before it). Later lines are written by their
// callers, as with linger 0. It is safe to call more than once, and does
// nothing for a sink without linger.
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
	wait := time.NewTimer(logCloseWait)
	defer wait.Stop()
	select {
	case <-done:
	case <-wait.C:
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
func (a *accessLog) request(req *request, tr transport, out outcome, code int, end time.Time, d time.Duration) {
	bp := logLinePool.Get().(*[]byte)
	l := logLine{b: (*bp)[:0], json: a.json}
	l.begin(end, a.stampOf(end), "INFO", "request")
	l.request(req, tr, out, code, d)
	l.end()
	_, _ = a.sink.Write(l.b)
	*bp = l.b
	logLinePool.Put(bp)
}

// request adds the fields of a request's line (the access line, the
// audit line): req served on tr with outcome out, JSON-RPC error code
// (0 for a result) and duration d. Fields that do not apply are left out
// (protocol, name, principal, client, code, parent_span_id);
// docs/OPERATIONS.md lists them all.
func (l *logLine) request(req *request, tr transport, out outcome, code int, d time.Duration) {
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
// same as its access line's and spelt as it spells them: id, method,
// trace_id, span_id. slog escapes the values; the method is one of the
// table's (handlers run only for those), the id is cut like any client
// value (logID).
func (r *request) logAttrs() []any {
	return []any{r.server.logID(r.id), "method", r.method, "trace_id", r.trace.TraceIDString(), "span_id", r.trace.SpanIDString()}
}

// logID is the attribute "id" for a JSON-RPC id in a line slog writes,
// spelt as the access line spells it (logLine.id): an integer as a
// number; a string as a string, cut at maxLogValueBytes and, in text,
// always quoted (slog quotes a []byte with strconv.Quote, as logLine.id
// does), so that id=7 and id="7" stay distinct on every line
// (TestLogIDsMatch).
func (s *server) logID(raw []byte) slog.Attr {
	if isJSONInteger(raw) && len(raw) <= 20 {
		return slog.Any("id", json.Number(raw))
	}
	v, ok := jsonString(raw)
	if !ok {
		v = string(raw)
	}
	v = cutLogValue(v)
	if s.logSink != nil && !s.logSink.json {
		return slog.Any("id", []byte(v))
	}
	return slog.String("id", v)
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

// audit writes the audit line of a request an authenticated caller
// made, served on tr: the access line's fields (logLine.request), with
// msg=audit. Never the token: only its principal. The access line
// carries all of this; audit writes its line only when access lines are
// off (-access-log=false), so that an authenticated request leaves
// exactly one line either way, at info level.
func (s *server) audit(req *request, tr transport, took time.Duration, code int) {
	if s.logSink == nil || !s.log.Enabled(context.Background(), slog.LevelInfo) {
		return
	}
	end := time.Now()
	l := logLine{json: s.logSink.json}
	l.begin(end, nil, "INFO", "audit")
	l.request(req, tr, outcomeOf(req, code), code, took)
	l.end()
	_, _ = s.logSink.Write(l.b)
}
