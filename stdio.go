// The stdio transport: newline-delimited JSON-RPC on stdin and stdout. One reader hands
// the lines in order to the driver (conn.go); each request runs on a goroutine of its
// own; one writer (stdio_write.go) owns stdout.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// maxLineBytes bounds one stdio message: 4 MiB holds a large file as a
// tool argument, and no peer makes the server buffer more.
const maxLineBytes = 4 << 20

// maxInFlight bounds the requests one stdio connection runs at once
// (-max-requests' default); at it the reader waits, pushing back on the pipe.
const maxInFlight = 256

// maxStdioAnswerBytes bounds the answer bytes one stdio connection holds between encoding
// and writing: each is charged before it is encoded (exchange.reserve), so answers stdout
// has not taken wait unbuilt (`harness/loadtest -only stdio-answers`).
const maxStdioAnswerBytes = 2 * maxLineBytes

// maxStdioInFlightBytes bounds the request-line bytes one stdio connection serves at once,
// held until the response is queued: a client that never reads stdout cannot make the
// server read on (TestAttackStdioStalledStdout).
const maxStdioInFlightBytes = 2 * maxLineBytes

// stdioConn is one stdio connection: the reader (read), the requests in flight, each on its
// goroutine, and the writer (out).
type stdioConn struct {
	conn    conn // the driver's view: the server, the session, the requests in flight
	out     *stdioWriter
	ex      exchange      // what every request is served with, made once
	closing chan struct{} // closed on shutdown (EOF or ctx), see serveStdio
	// endInput, run at the end of stdin, closes closing and ends the session: listens
	// close gracefully, requests awaiting answers fail. Idempotent.
	endInput func()

	mu sync.Mutex // guards stopped
	// stopped is set when serveStdio stops reading: a line read after it is not handled.
	// wg counts the requests running and the line being handled, added under mu only while
	// stopped is unset (enter), so serveStdio's Wait after setting stopped sees every Add.
	stopped bool
	wg      sync.WaitGroup
	// slots bounds the requests served at once (-max-requests), lineBytes their lines'
	// bytes, answers their answers' bytes until written.
	slots, lineBytes, answers *shareLimit
	// waiting belongs to the reader: the requests started without a free slot, oldest
	// first. Meanwhile the reader takes the lines that can free them (control) and reads
	// past other requests until maxStdioWaiting of them or maxLineBytes of their lines
	// wait; then it waits for the oldest (GAPS row 37, TestStdioAnswersReadWhileRequestSlotsAreFull).
	waiting      []waitingRequest
	waitingBytes int64
	running      atomic.Int32 // requests started and not done: a lone one may be served inline
	// inline is set while the reader serves a request itself; handoff takes it (Swap) when
	// the request outlasts stdioInlineFor and starts a new reader; the reader reads on only
	// if it takes inline back first.
	inline  atomic.Bool
	handoff *time.Timer
	readEnd chan error // the error that ended stdin (io.EOF at its end), once
}

// stdioInlineFor is how long the reader serves a request itself before a new reader takes
// over (TestConcurrency, TestStdioCancelWhileStdoutStalls): about an idle Go process's
// timer resolution on Linux.
const stdioInlineFor = time.Millisecond

// serveStdio serves in until EOF (or ctx ends), then waits for every request already read
// and writes its response (TestEOFDrain). EOF (the spec's graceful shutdown) and ctx ending
// close closing first, so each open subscriptions/listen writes its graceful-closure result
// instead of holding the drain open (TestStdioShutdownDuringDrain); ctx then cancels the rest.
// [§Shutdown]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio#shutdown
// [§Graceful Closure]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#graceful-closure
func (s *server) serveStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	c := newStdioConn(s, out)
	// Requests run under connCtx, cancelled after closing closes: a listen tells shutdown from cancel.
	connCtx, cancelConn := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelConn()
	var closeOnce sync.Once
	shutdown := func() { closeOnce.Do(func() { close(c.closing) }) }
	c.endInput = func() {
		shutdown()
		c.conn.sess.end()
	}
	// ctx ending reaches closing and connCtx, during the EOF drain too; a started watch is awaited.
	watched := make(chan struct{})
	stopWatch := context.AfterFunc(ctx, func() {
		defer close(watched)
		shutdown()
		cancelConn()
	})
	defer func() {
		if !stopWatch() {
			<-watched
		}
	}()
	lr := newLineReader(in)
	c.handoff = time.AfterFunc(time.Hour, func() {
		// enter: serveStdio's Wait covers the start of the new reader.
		if c.inline.Swap(false) && c.enter() {
			go c.read(connCtx, lr)
			c.wg.Done()
		}
	})
	c.handoff.Stop()
	// The reader runs on a goroutine of its own: a read cannot be
	// interrupted portably, and serveStdio must return when ctx ends.
	go c.read(connCtx, lr)
	var err error
	select {
	case err = <-c.readEnd:
	case <-s.parentGone:
		// The parent died with stdin open (stdio_parent.go): as at EOF;
		// the reader may stay blocked in Read (TestStdioParentGone).
		c.endInput()
	case <-ctx.Done():
		c.stop()
		shutdown()
		cancelConn()
		// A read deadline (pipes, files have one) unblocks the reader, which then finds it stopped.
		if d, ok := in.(interface{ SetReadDeadline(time.Time) error }); ok {
			_ = d.SetReadDeadline(time.Now())
		}
	}
	c.stop()
	// No answer to a server-to-client request can arrive any more.
	c.conn.sess.end()
	c.wg.Wait()
	c.handoff.Stop()
	c.out.close()
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}

// newStdioConn returns a connection writing to out, not yet serving.
func newStdioConn(s *server, out io.Writer) *stdioConn {
	c := &stdioConn{closing: make(chan struct{}),
		slots:     newShareLimit(int64(s.limits.maxRequests), int64(s.limits.maxRequests)),
		lineBytes: newShareLimit(maxStdioInFlightBytes, maxStdioInFlightBytes),
		answers:   newShareLimit(maxStdioAnswerBytes, maxStdioAnswerBytes), readEnd: make(chan error, 1)}
	c.out = &stdioWriter{out: out, log: s.log}
	c.out.q.init(maxSpareBytes)
	c.conn = conn{s: s, sess: newSession(), transport: transportStdio}
	c.conn.sess.peer = c
	c.conn.sess.calls.cancelled = c.out.wake
	c.ex = exchange{callSend: c.out.writeFor, closing: c.closing, reserve: c.reserve}
	return c
}

// stop ends the reading: the reader handles no line read after it.
func (c *stdioConn) stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
}

// enter counts the line the reader handles in wg (wg.Done ends it); false once stopped.
func (c *stdioConn) enter() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return false
	}
	c.wg.Add(1)
	return true
}

// read is the reader: it hands each line of lr over in order (handleLine) until stdin ends
// (its error to readEnd), the connection stops, or a new reader took over (serveInline).
func (c *stdioConn) read(ctx context.Context, lr *lineReader) {
	for {
		if !lr.lineBuffered() {
			c.out.uncork() // before a read that may wait
		}
		line, err := lr.next()
		if !c.enter() {
			return
		}
		if err != nil {
			c.wg.Done()
			c.endInput()
			c.readEnd <- err
			return
		}
		if c.pruneWaiting(); len(c.waiting) > 0 {
			if c.control(ctx, line) {
				c.wg.Done()
				continue
			}
			for len(c.waiting) > 0 && (len(c.waiting) >= maxStdioWaiting || c.waitingBytes+int64(len(line)) > maxLineBytes) {
				c.out.uncork() // what is answered while the reader waits leaves now
				<-c.waiting[0].admitted
				c.pruneWaiting()
			}
		}
		if lr.lineBuffered() {
			c.out.cork()
		}
		reading := c.handleLine(ctx, line, lr)
		c.wg.Done()
		if !reading {
			return
		}
	}
}

// handleLine hands one line to the driver, in order: what it refuses is answered, control
// messages and notifications take effect, initialize is served before the next line is read
// (incoming.ordered), requests are begun and started. It reports whether the caller is
// still the reader.
func (c *stdioConn) handleLine(ctx context.Context, line []byte, lr *lineReader) bool {
	if line == nil {
		c.out.write(encodeError(nil, newError(codeInvalidRequest, "invalid request: message longer than %d bytes", maxLineBytes)), true)
		return true
	}
	in := c.conn.take(line, framing{})
	if in.reply == nil && in.begin(ctx) {
		if in.ordered() {
			c.finish(in, true)
			return true
		}
		return c.start(in, int64(len(line)), lr)
	}
	if in.reply != nil {
		c.out.write(in.reply, true)
	}
	return true
}

// finish serves in, writes its answer and ends it; the reader's answers
// (detach) are written by a goroutine of their own (stdioWriter).
func (c *stdioConn) finish(in *incoming, detach bool) {
	defer in.end()
	r := in.serve(c.ex)
	if r.release != nil {
		defer r.release()
	}
	if r.parts == nil || r.cancelled {
		return
	}
	// Its ids are free once the answer can be read: a client may reuse them as soon as it
	// reads it (2026-07-28 basic: ids are unique among unanswered requests). end is idempotent.
	cl := in.call
	in.end()
	c.out.queue(r.parts, cl, true, detach)
	if len(r.parts) == 1 && cap(r.parts[0]) >= minReplyBuffer {
		// Written or copied: the buffer is free for the next reply.
		c.conn.s.replies.put(r.parts[0])
	}
	if r.closesListen {
		// After the graceful result (subscriptions.go).
		c.out.write(listenClosed(in.req.id), detach)
	}
}

// reserve charges an answer of n bytes to the answers budget, waiting while ctx lasts. A
// small answer is not charged: the requests' term of the formula holds it (docs/RELIABILITY.md).
func (c *stdioConn) reserve(ctx context.Context, n int) (func(), bool) {
	if n <= maxSpareBytes {
		return nil, true
	}
	size := min(int64(n), maxStdioAnswerBytes)
	if w := c.answers.enqueue("", size); w != nil {
		select {
		case <-w.ready:
		case <-ctx.Done():
			if !c.answers.abandon(w) {
				return nil, false
			}
		}
	}
	return func() { c.answers.give("", size) }, true
}

// start takes a request slot and the bytes of in's line and serves in on a goroutine of its
// own. Without a free slot, in is served once admitted, and meanwhile the reader reads on for
// answers and cancellations, which can free slots (TestStdioAnswersReadWhileRequestSlotsAreFull);
// the end of stdin ends the session, freeing the rest (TestStdioEOFWhileRequestSlotsAreFull).
// It reports whether the caller is still the reader (serveInline).
func (c *stdioConn) start(in *incoming, size int64, lr *lineReader) bool {
	c.wg.Add(1)
	alone := c.running.Add(1) == 1
	slot := c.slots.enqueue("", 1)
	var room *shareWaiter
	if slot == nil {
		room = c.lineBytes.enqueue("", size)
	}
	switch {
	case slot == nil && room == nil && (alone && lr.r.Buffered() == 0 || c.out.bursting()):
		return c.serveInline(in, size)
	case slot == nil && room == nil:
		go c.do(in, size)
		// The request starts on this thread, the reader queued behind it: pipelined, the
		// answers of what one read brought in leave together (docs/PERFORMANCE.md, k=32).
		runtime.Gosched()
		return true
	}
	admitted := make(chan struct{})
	c.waiting = append(c.waiting, waitingRequest{admitted, size})
	c.waitingBytes += size
	go c.admit(in, size, slot, room, admitted)
	return true
}

// waitingRequest is a request read that waits for its slot and bytes: admitted closes then.
type waitingRequest struct {
	admitted chan struct{}
	size     int64
}

// maxStdioWaiting bounds the requests read that wait for a slot: with their lines' bytes (at
// most maxLineBytes), what the reader holds before it waits (docs/RELIABILITY.md, stdio formula).
const maxStdioWaiting = maxInFlight

// pruneWaiting forgets the waiting requests admitted since, oldest first (slots go in read order).
func (c *stdioConn) pruneWaiting() {
	for len(c.waiting) > 0 {
		select {
		case <-c.waiting[0].admitted:
			c.waitingBytes -= c.waiting[0].size
			c.waiting = c.waiting[1:]
		default:
			return
		}
	}
	if len(c.waiting) == 0 {
		c.waiting = nil
	}
}

// serveInline serves in, a request alone in flight with nothing more to read yet, on the
// reader itself; if it outlasts stdioInlineFor, handoff starts a new reader. It reports
// whether the caller is still the reader. Kept for the stdio k=1 row of docs/PERFORMANCE.md.
func (c *stdioConn) serveInline(in *incoming, size int64) bool {
	c.inline.Store(true)
	c.handoff.Reset(stdioInlineFor)
	c.do(in, size)
	c.handoff.Stop()
	return c.inline.Swap(false)
}

// admit waits for the slot and room start asked for (nil: taken), closes admitted, and serves in.
func (c *stdioConn) admit(in *incoming, size int64, slot, room *shareWaiter, admitted chan<- struct{}) {
	if slot != nil {
		<-slot.ready
		room = c.lineBytes.enqueue("", size)
	}
	if room != nil {
		<-room.ready
	}
	close(admitted)
	c.do(in, size)
}

// do serves in, then gives back the slot and the bytes start took.
func (c *stdioConn) do(in *incoming, size int64) {
	defer c.wg.Done()
	defer c.running.Add(-1)
	defer c.slots.give("", 1)
	defer c.lineBytes.give("", size)
	c.finish(in, false)
}

// control takes line if it can free a request slot, and reports whether it did: an answer to
// a server request, a notifications/cancelled, or a 2025-03-26 batch of nothing else.
func (c *stdioConn) control(ctx context.Context, line []byte) bool {
	if line == nil {
		return false
	}
	in := c.conn.take(line, framing{})
	if in.kind == incomingBatch {
		for _, it := range in.items {
			if !isControl(&it.msg) || it.kind == batchRefused {
				return false
			}
		}
	} else if in.kind != incomingControl {
		return false
	}
	in.begin(ctx)
	return true
}

// push writes a message the session sends outside any request, on the
// sender's goroutine: stdout's backpressure is theirs too (peer).
func (c *stdioConn) push(b []byte) bool {
	c.out.write(b, false)
	return true
}

// streaming reports that what push sends reaches the client: always.
func (c *stdioConn) streaming() bool { return true }

// silent reports false: a client silent to pings costs a stdio session only the log line.
func (c *stdioConn) silent() bool { return false }

// lineReader reads the non-blank lines of stdin (without CR LF); only the reader calls next.
type lineReader struct {
	r *bufio.Reader
	// longHint is the length of the last line longer than the buffer: the client's next is
	// likely as long, and allocating it at once speeds a 1 MiB echo (docs/PERFORMANCE.md).
	longHint int
}

// lineBuffered reports whether the line next returns is buffered: next will not read stdin.
func (lr *lineReader) lineBuffered() bool {
	b, _ := lr.r.Peek(lr.r.Buffered())
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return false
		}
		if len(bytes.TrimSpace(b[:i])) > 0 {
			return true
		}
		b = b[i+1:]
	}
}

// newLineReader returns a reader of in's lines.
func newLineReader(in io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(in, 64<<10)}
}

// next returns the next non-blank line, a copy of its own; a line over maxLineBytes is
// discarded and returned as nil, to be answered with an error (TestStdioLineLimit). The
// error is the input's (io.EOF at its end).
func (lr *lineReader) next() ([]byte, error) {
	var long []byte
	tooLong := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if !tooLong {
				if long == nil {
					long = make([]byte, 0, max(lr.longHint, 2*len(chunk)))
				}
				long = append(long, chunk...)
				if len(long) > maxLineBytes {
					long, tooLong = nil, true
				}
			}
			continue
		}
		if tooLong {
			return nil, nil
		}
		line := chunk
		owned := false // chunk is the reader's buffer; long is ours
		if long != nil {
			line, long, owned = append(long, chunk...), nil, true
			lr.longHint = min(len(line), maxLineBytes+1)
			if cap(line) > 2*len(line) {
				// A line shorter than the hint holds its own length.
				line = bytes.Clone(line)
			}
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) > maxLineBytes:
			return nil, nil
		case len(bytes.TrimSpace(line)) > 0:
			if !owned {
				line = bytes.Clone(line)
			}
			return line, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
