// The stdio transport: newline-delimited JSON-RPC on stdin and stdout.
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
	"sync"
	"sync/atomic"
	"time"
)

// maxLineBytes bounds one stdio message: 4 MiB holds a large file as a
// tool argument, and no peer makes the server buffer more.
const maxLineBytes = 4 << 20

// maxInFlight bounds the requests one stdio connection runs at once (the
// default of -max-requests); at the bound the reader waits (start), which
// pushes back through the pipe.
const maxInFlight = 256

// maxStdioInFlightBytes bounds the bytes of the request lines one stdio
// connection serves at once. A request holds its line's bytes until its
// response is queued, and the reader waits for them as for a slot, so a
// client that never reads stdout cannot make the server read on
// (TestAttackStdioStalledStdout).
const maxStdioInFlightBytes = 2 * maxLineBytes

// maxStdioQueuedBytes bounds the messages queued for stdout: one
// message's worth (roomLocked).
const maxStdioQueuedBytes = maxLineBytes

// stdioInlineFor is how long the reading role's holder serves a request
// itself (serveInline) or writes what its cork held (release) before it
// hands the role on, so the next line is read within this long
// (TestConcurrency, TestStdioCancelWhileStdoutStalls,
// TestStdioCorkedStdoutStalls); a millisecond is about an idle Go
// process's timer resolution on Linux. Inline serving is kept because
// handing a lone request over cost two thread wake-ups, about half of the
// server's CPU (docs/PERFORMANCE.md, the stdio modern k=1 row); for a
// burst, see read.
const stdioInlineFor = time.Millisecond

// stdioConn is one stdio connection: a crew of goroutines that take turns
// at reading (leader/follower, work), the requests in flight, and the
// writer (outq). Reading is a role held by one goroutine at a time; it
// reads and judges lines in order (handleLine).
type stdioConn struct {
	s       *server
	out     io.Writer
	closing <-chan struct{} // closed on shutdown (EOF or ctx), see serveStdio
	// endInput, run at the end of stdin, closes closing and ends the
	// session, so listens close gracefully and requests waiting for an
	// answer fail at once. Idempotent.
	endInput func()
	// session is the connection's classic-era session: one initialize
	// serves the whole process.
	session *session

	// outq coalesces the lines written to out (linequeue.go), at most
	// maxStdioQueuedBytes; its room is also signalled on cancellation.
	outq lineQueue
	// corked, guarded by outq.mu, is set while the reading role's holder
	// keeps outq from writing (cork, read): it has claimed the writer
	// (flushing) without writing, so the lines queued meanwhile go out
	// together when the cork comes off (uncork).
	corked bool

	mu       sync.Mutex            // guards inFlight, pushEnded, stopped
	inFlight map[string]*stdioCall // by request id key
	// pushes counts the session's pushes being written (push);
	// pushEnded refuses new ones. serveStdio sets it and waits for pushes,
	// so nothing is written to out after it returns.
	pushes    sync.WaitGroup
	pushEnded bool
	// stopped is set when serveStdio stops reading (EOF or ctx): a line
	// read after it is not handled. wg counts the requests in flight and
	// the lines being handled, added under mu only while stopped is unset
	// (enter), so serveStdio's Wait after setting stopped sees every Add.
	stopped bool
	wg      sync.WaitGroup
	// slots bounds the requests served at once (-max-requests), lineBytes
	// their lines' bytes (maxStdioInFlightBytes); one client, no shares.
	slots, lineBytes *shareLimit
	// running counts the requests (and batches) started and not done: one
	// started while another runs is not served inline (start).
	running atomic.Int32

	// in, burst, burstSince, admitted and readEnd belong to the goroutine
	// holding the reading role. burst is set while the line being judged
	// is served in a burst: the line after it is already buffered, as one
	// has been since burstSince, less than stdioInlineFor ago (read). admitted is closed once the request last started
	// without a free slot (start) has its slot and bytes; until then the
	// reader serves only lines that can free them (handleControl) and
	// waits before any other, so backpressure stays one line deep; nil
	// when no request waits. readEnd receives the error that ended stdin
	// (io.EOF at its end), once.
	in         *lineReader
	burst      bool
	burstSince time.Time
	admitted   chan struct{}
	readEnd    chan error

	// inline is set while the role's holder serves a request itself;
	// handoff's function takes the role (Swap) when the request outlasts
	// stdioInlineFor, and the holder keeps the role only if it takes
	// inline back first (serveInline).
	inline  atomic.Bool
	handoff *time.Timer
	// lead hands the reading role to an idle follower; quit, closed by
	// serveStdio once every request is answered, dismisses them; crew
	// counts the connection's goroutines (work). Followers are kept
	// because a fresh goroutine per request, growing its stack each time,
	// cost about 30 % more CPU per request side by side
	// (docs/PERFORMANCE.md, the stdio k=32 rows).
	lead chan struct{}
	quit chan struct{}
	crew sync.WaitGroup
}

// stdioJob is the work of one request (or batch) and its line's size:
// start takes a slot and the bytes, do runs it and gives them back.
type stdioJob struct {
	run  func()
	size int64
}

// stdioCall is one request in flight on stdio.
type stdioCall struct {
	rctx *requestContext // the request's context (request_context.go)
	mu   sync.Mutex      // guards ended; serialises setting cancelled or ended with queueing the call's messages
	// cancelled is set under mu; a writer waiting for room reads it
	// without mu (waitRoom).
	cancelled atomic.Bool
	// ended is set once the call's response is queued (or, a batch
	// entry, its answer taken): a handler goroutine that outlives it
	// writes nothing more (TestStdioNothingAfterResponse).
	// [§Progress]: https://modelcontextprotocol.io/specification/2026-07-28/basic/utilities/progress#behavior-requirements
	ended bool
}

// end marks the call's response as sent: nothing more is written for it.
func (call *stdioCall) end() {
	call.mu.Lock()
	call.ended = true
	call.mu.Unlock()
}

// isCancelled reports whether notifications/cancelled named the call.
func (call *stdioCall) isCancelled() bool {
	return call.cancelled.Load()
}

// serveStdio serves in until EOF (or ctx ends), then waits for every
// request already read and writes its response before returning
// (TestEOFDrain).
//
// Both EOF, the spec's graceful-shutdown signal on stdio, and ctx ending
// close closing first, so each open subscriptions/listen writes its
// graceful-closure result and ends instead of holding the drain open
// (TestStdioShutdownDuringDrain); on ctx ending the requests in flight
// are then cancelled.
// [§Shutdown]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio#shutdown
// [§Graceful Closure]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#graceful-closure
func (s *server) serveStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	c := newStdioConn(s, out)
	// Requests run under connCtx, cancelled only after closing is closed,
	// so a listen can tell shutdown from its own cancellation.
	connCtx, cancelConn := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelConn()
	closing := make(chan struct{})
	c.closing = closing
	var closeOnce sync.Once
	shutdown := func() { closeOnce.Do(func() { close(closing) }) }
	c.endInput = func() {
		shutdown()
		c.session.end()
	}
	// ctx ending reaches closing and connCtx, during the EOF drain too; a
	// watch that has started is awaited before returning.
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
	c.session.sink = c.push
	c.in = newLineReader(in)
	c.handoff = time.AfterFunc(time.Hour, func() {
		// enter: serveStdio's Wait covers the goroutine promote may start.
		if c.inline.Swap(false) && c.enter() {
			c.promote(connCtx)
			c.uncork()
			c.leave()
		}
	})
	c.handoff.Stop()
	// The reading role starts on a goroutine of its own: a read cannot be
	// interrupted portably, and serveStdio must return when ctx ends.
	c.crew.Go(func() { c.work(connCtx) })
	var err error
	ended := false // stdin ended: no goroutine is left reading it
	select {
	case err = <-c.readEnd:
		ended = true
	case <-s.parentGone:
		// The parent died with stdin still open (stdio_parent.go): as at
		// EOF, what was read is answered; the reader may stay blocked in
		// Read until the process exits (TestStdioParentGone).
		c.endInput()
	case <-ctx.Done():
		c.stop()
		shutdown()
		cancelConn()
		// A reader blocked in Read is unblocked by a deadline where the
		// input has one (pipes, files), otherwise by process exit; it then
		// finds the connection stopped.
		if d, ok := in.(interface{ SetReadDeadline(time.Time) error }); ok {
			_ = d.SetReadDeadline(time.Now())
		}
	}
	c.stop()
	// No answer to a server-to-client request can arrive any more.
	c.session.end()
	c.wg.Wait()
	c.handoff.Stop()
	// A reader that found the connection stopped left its cork on.
	c.uncork()
	close(c.quit)
	if ended {
		// Otherwise a reader may still be blocked in Read; it ends once
		// the read returns.
		c.crew.Wait()
	}
	c.mu.Lock()
	c.pushEnded = true
	c.mu.Unlock()
	c.pushes.Wait()
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}

// newStdioConn returns a connection writing to out, not yet serving.
func newStdioConn(s *server, out io.Writer) *stdioConn {
	c := &stdioConn{s: s, out: out, session: newSession(), inFlight: map[string]*stdioCall{},
		slots: newShareLimit(int64(s.limits.maxRequests), int64(s.limits.maxRequests)), lineBytes: newShareLimit(maxStdioInFlightBytes, maxStdioInFlightBytes),
		readEnd: make(chan error, 1), lead: make(chan struct{}), quit: make(chan struct{})}
	c.outq.init(maxSpareBytes)
	return c
}

// stop ends the reading: a reader handles no line read after it.
func (c *stdioConn) stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
}

// enter counts a reader handling a line in wg, unless the connection has
// stopped (false); leave ends it.
func (c *stdioConn) enter() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return false
	}
	c.wg.Add(1)
	return true
}

// leave ends what enter began.
func (c *stdioConn) leave() { c.wg.Done() }

// work is the life of one goroutine of the crew: it holds the reading
// role (read), serves the request it read, then waits as a follower for
// the role. It returns when stdin ends, the connection stops, or quit
// dismisses the followers.
func (c *stdioConn) work(ctx context.Context) {
	for {
		job, how := c.read(ctx)
		switch how {
		case serveNone:
			return
		case serveInline:
			if c.serveInline(job) {
				continue
			}
		case serveHandingOn:
			c.promote(ctx)
			c.do(job)
		case serveFollowing:
		}
		select {
		case <-c.lead:
		case <-c.quit:
			return
		}
	}
}

// promote hands the reading role to an idle follower, or to a new
// goroutine of the crew when none is idle. Only the role's holder (or
// handoff, taking the role from it) calls it.
func (c *stdioConn) promote(ctx context.Context) {
	select {
	case c.lead <- struct{}{}:
	default:
		c.crew.Go(func() { c.work(ctx) })
	}
}

// How the goroutine that read a request serves it (start).
const (
	serveNone      = iota // not here: nothing to serve, or on its own goroutine
	serveInline           // here, keeping the reading role (serveInline)
	serveHandingOn        // here, after handing the role on (promote)
	serveFollowing        // nothing: the role was handed on (release)
)

// read holds the reading role: it reads each line and judges it
// (handleLine), until one is a request for this goroutine to serve
// (serveInline or serveHandingOn), until stdin ends or the connection
// stops (serveNone: the role ends with it), or until the role is handed
// on while it writes (serveFollowing).
//
// A burst is served without hand-offs: while the line after the one read
// is already buffered, the reader corks outq and serves the line's
// request itself (start), so the answers to the lines read in one go
// leave in one write. The cork comes off (release) before the reader can
// wait for input or for a slot, or when a request outlasts stdioInlineFor
// (TestStdioCorkComesOff). Once a burst has lasted stdioInlineFor, its
// other requests are handed on and their answers written at once, so an
// answer is not held, nor a request kept from another core, much longer
// than that. Kept for the stdio k=32 rows of docs/PERFORMANCE.md: side by
// side with handing each request on and writing each answer, 0.50 and
// 0.53 of the floor instead of 0.41 and 0.39 at modern k=32, 0.48 and
// 0.43 instead of 0.38 and 0.37 at legacy k=32, at about 60 % of the CPU
// per request (the time bound then cost about 7 %); either half alone
// was no better (the cork) or worse (bursts without it).
func (c *stdioConn) read(ctx context.Context) (stdioJob, int) {
	for {
		if (c.admitted != nil || !c.in.lineBuffered() || c.burstOver()) && !c.release() {
			return stdioJob{}, serveFollowing
		}
		line, err := c.in.next()
		if !c.enter() {
			return stdioJob{}, serveNone
		}
		if err != nil {
			c.leave()
			c.endInput()
			c.readEnd <- err
			return stdioJob{}, serveNone
		}
		if c.admitted != nil {
			if c.handleControl(ctx, line) {
				c.leave()
				continue
			}
			<-c.admitted
			c.admitted = nil
		}
		more := c.in.lineBuffered()
		switch {
		case !more:
			c.burstSince = time.Time{}
		case c.burstSince.IsZero():
			c.burstSince = time.Now()
		}
		if c.burst = more && !c.burstOver(); c.burst {
			c.cork()
		}
		job, how := c.handleLine(ctx, line)
		c.leave()
		if how != serveNone {
			return job, how
		}
	}
}

// serveInline serves job on the goroutine holding the reading role,
// handing the role on (handoff) if job outlasts stdioInlineFor. It
// reports whether the caller still holds the role.
func (c *stdioConn) serveInline(job stdioJob) bool {
	c.inline.Store(true)
	c.handoff.Reset(stdioInlineFor)
	c.do(job)
	c.handoff.Stop()
	return c.inline.Swap(false)
}

// burstOver reports whether the burst being read began stdioInlineFor
// ago or more.
func (c *stdioConn) burstOver() bool {
	return !c.burstSince.IsZero() && time.Since(c.burstSince) >= stdioInlineFor
}

// release takes the cork off (uncork) before the reading role's holder
// waits, handing the role on like serveInline if the write outlasts
// stdioInlineFor (a stalled stdout, TestStdioCorkedStdoutStalls); false
// means the role was handed on. The write is counted in wg (enter), so
// serveStdio does not return under it.
func (c *stdioConn) release() bool {
	c.outq.mu.Lock()
	corked := c.corked
	c.outq.mu.Unlock()
	if !corked || !c.enter() {
		return true // a stopped connection's cork comes off in serveStdio
	}
	defer c.leave()
	c.inline.Store(true)
	c.handoff.Reset(stdioInlineFor)
	c.uncork()
	c.handoff.Stop()
	return c.inline.Swap(false)
}

// lineReader reads the non-blank lines of stdin (without their CR LF);
// only the goroutine holding the reading role calls next.
type lineReader struct {
	r *bufio.Reader
	// longHint is the length of the last line longer than the buffer: a
	// client tends to send more lines of that size, and allocating it at
	// once copies a line once instead of four times growing from 64 KiB,
	// the largest share of a 1 MiB echo's time (docs/PERFORMANCE.md, the
	// stdio echo 1 MiB row).
	longHint int
}

// newLineReader returns a reader of in's lines.
func newLineReader(in io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(in, 64<<10)}
}

// waiting reports whether more of stdin has been read than the lines
// handed out: another line has arrived (or is arriving).
func (lr *lineReader) waiting() bool { return lr.r.Buffered() > 0 }

// lineBuffered reports whether the line next returns is already
// buffered: next returns it without reading stdin.
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

// next returns the next non-blank line, a copy of its own. A line over
// maxLineBytes is discarded and returned as nil, to be answered with an
// error (TestStdioLineLimit). The error is the input's (io.EOF at its
// end), with no line.
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

// handleLine judges one line on the reading goroutine, in the order the
// lines were read: cancellations, answers and notifications are handled
// here; a request is registered in flight and started (start), and
// returned with how this goroutine serves it (serveNone when it does not).
//
// The handshake is ordered: each request's era is decided here
// (newRequest) and initialize, which does no I/O, is served here before
// the next line is read. So requests piped after initialize are served in
// the negotiated session, one read before it is refused however the
// goroutines are scheduled, and notifications/initialized always finds
// the session negotiated (TestStdioPipelinedHandshake,
// TestStdioPipelinedInitialized).
// [§Initialization]: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization
func (c *stdioConn) handleLine(ctx context.Context, line []byte) (job stdioJob, how int) {
	if line == nil {
		c.write(encodeError(nil, newError(codeInvalidRequest, "invalid request: message longer than %d bytes", maxLineBytes)))
		return job, serveNone
	}
	if jsonKind(line) == '[' {
		return c.handleBatch(ctx, line)
	}
	msg, rerr := parseMessage(line)
	if rerr != nil {
		if !msg.isNotification() {
			c.write(encodeError(msg.id, rerr))
		}
		return job, serveNone
	}
	if c.s.takeControl(&msg, c.session, c.cancel, "stdio") {
		return job, serveNone
	}
	if msg.isNotification() {
		c.s.dispatch(ctx, &msg, exchange{session: c.session})
		return job, serveNone
	}
	key := idKey(msg.id)
	c.mu.Lock()
	_, dup := c.inFlight[key]
	c.mu.Unlock()
	if dup {
		c.write(encodeError(msg.id, newError(codeInvalidRequest, "invalid request: id %s is already in flight", msg.id)))
		return job, serveNone
	}
	req := c.s.newRequest(&msg, c.session, framing{})
	if msg.method == methodInitialize {
		reply, _ := c.s.serve(ctx, req, exchange{send: c.write, session: c.session, closing: c.closing})
		c.write(reply)
		return job, serveNone
	}
	// Bound here so that a cancellation read while the request waits for
	// a slot reaches it; serve ends it.
	reqCtx := req.bind(ctx)
	call := &stdioCall{rctx: &req.rctx}
	c.mu.Lock()
	c.inFlight[key] = call
	c.mu.Unlock()

	return c.start(stdioJob{size: int64(len(line)), run: func() {
		send := func(b []byte) { c.writeUnlessCancelled(call, b) }
		reply, _ := c.s.serve(reqCtx, req, exchange{send: send, session: c.session, closing: c.closing})
		c.mu.Lock()
		delete(c.inFlight, key)
		c.mu.Unlock()
		if reply == nil {
			call.end()
			return
		}
		closed := listenClosed(req, reply) // before writeLast hands reply back
		c.writeLast(call, reply)
		if closed != nil {
			c.write(closed) // after the graceful result (subscriptions.go)
		}
	}})
}

// handleBatch judges a line that is a JSON-RPC batch (batch.go), refused
// whole unless the session negotiated 2025-03-26. Its notifications and
// responses are handled here in order, like lines, and its requests
// registered in flight; they are then served one after another in one
// request slot (start), answered in one line in entry order. A cancelled
// request has no entry; a batch with nothing to answer writes nothing.
// [§Batching]: https://modelcontextprotocol.io/specification/2025-03-26/basic#batching
func (c *stdioConn) handleBatch(ctx context.Context, line []byte) (job stdioJob, how int) {
	if c.session.negotiated() != versionBatches {
		c.write(encodeError(nil, batchOutsideSession(line)))
		return job, serveNone
	}
	items, rerr := c.s.readBatch(line, c.session, framing{})
	if rerr != nil {
		c.write(encodeError(nil, rerr))
		return job, serveNone
	}
	type entry struct {
		ctx  context.Context
		call *stdioCall
		key  string
	}
	entries := make([]entry, len(items))
	requests := c.s.takeBatch(ctx, items, c.session, batchHooks{
		cancel: c.cancel,
		begin: func(i int) *rpcError {
			key := idKey(items[i].msg.id)
			c.mu.Lock()
			defer c.mu.Unlock()
			if _, dup := c.inFlight[key]; dup {
				return newError(codeInvalidRequest, "invalid request: id %s is already in flight", items[i].msg.id)
			}
			req := items[i].req
			entries[i] = entry{ctx: req.bind(ctx), call: &stdioCall{rctx: &req.rctx}, key: key}
			c.inFlight[key] = entries[i].call
			return nil
		},
	}, "stdio")
	if requests == 0 {
		if reply := answerBatch(items, nil); reply != nil {
			c.write(reply)
		}
		return job, serveNone
	}
	return c.start(stdioJob{size: int64(len(line)), run: func() {
		reply := answerBatch(items, func(i int) []byte {
			e := entries[i]
			defer func() {
				e.call.rctx.cancel()
				c.mu.Lock()
				delete(c.inFlight, e.key)
				c.mu.Unlock()
			}()
			if e.call.isCancelled() {
				return nil
			}
			send := func(b []byte) { c.writeUnlessCancelled(e.call, b) }
			reply, _ := c.s.serve(e.ctx, items[i].req, exchange{send: send, session: c.session, closing: c.closing})
			e.call.end()
			if e.call.isCancelled() {
				return nil
			}
			return reply
		})
		if reply != nil {
			c.write(reply)
		}
	}})
}

// start takes a request slot and the bytes of job's line, and says how
// the goroutine that read it serves it: inline when nothing else is in
// flight or waiting to be read, or in a burst (read), otherwise after
// handing the role on.
// Without a free slot, job runs on a goroutine of its own once admitted
// (admit), and meanwhile the reader reads only answers to bridged
// requests and cancellations, which can free slots
// (TestStdioAnswersReadWhileRequestSlotsAreFull); the end of stdin ends
// the session (endInput), freeing the rest (TestStdioEOFWhileRequestSlotsAreFull).
func (c *stdioConn) start(job stdioJob) (stdioJob, int) {
	c.wg.Add(1)
	alone := c.running.Add(1) == 1
	slot := c.slots.enqueue("", 1)
	var room *shareWaiter
	if slot == nil {
		room = c.lineBytes.enqueue("", job.size)
	}
	switch {
	case slot == nil && room == nil && (c.burst && !c.burstOver() || alone && !c.in.waiting()):
		return job, serveInline
	case slot == nil && room == nil:
		return job, serveHandingOn
	}
	c.admitted = make(chan struct{})
	go c.admit(job, slot, room, c.admitted)
	return job, serveNone
}

// admit waits for the slot and the room start asked for (a nil waiter
// was taken at once), closes admitted, and runs job.
func (c *stdioConn) admit(job stdioJob, slot, room *shareWaiter, admitted chan<- struct{}) {
	if slot != nil {
		<-slot.ready
		room = c.lineBytes.enqueue("", job.size)
	}
	if room != nil {
		<-room.ready
	}
	close(admitted)
	c.do(job)
}

// do runs job, then gives back the slot and the bytes start took for it.
func (c *stdioConn) do(job stdioJob) {
	defer c.wg.Done()
	defer c.running.Add(-1)
	defer c.slots.give("", 1)
	defer c.lineBytes.give("", job.size)
	job.run()
}

// handleControl serves line if it is a response to a server request or a
// notifications/cancelled, and reports whether it was one.
func (c *stdioConn) handleControl(ctx context.Context, line []byte) bool {
	if line == nil {
		return false
	}
	if jsonKind(line) == '[' {
		// A 2025-03-26 batch of answers and cancellations frees slots too.
		if c.session.negotiated() != versionBatches {
			return false
		}
		items, rerr := c.s.readBatch(line, c.session, framing{})
		if rerr != nil || !controlBatch(items) {
			return false
		}
		c.s.takeBatch(ctx, items, c.session, batchHooks{cancel: c.cancel}, "stdio")
		return true
	}
	msg, rerr := parseMessage(line)
	return rerr == nil && c.s.takeControl(&msg, c.session, c.cancel, "stdio")
}

// cancel handles notifications/cancelled: the request's context is
// cancelled and nothing more is written for it. Unknown ids and malformed
// notifications are ignored, as the spec asks.
// [§Behavior Requirements]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation#behavior-requirements
func (c *stdioConn) cancel(params []byte) {
	key, ok := cancelledRequest(params)
	if !ok {
		return
	}
	c.mu.Lock()
	call := c.inFlight[key]
	c.mu.Unlock()
	if call != nil {
		call.mu.Lock()
		call.cancelled.Store(true)
		call.mu.Unlock()
		call.rctx.cancel()
		// A writer of the call waiting for room gives up (waitRoom).
		c.outq.mu.Lock()
		c.outq.room.Broadcast()
		c.outq.mu.Unlock()
	}
}

// cancelledRequest returns the idKey of the requestId a
// notifications/cancelled names; ok is false when it names none.
func cancelledRequest(params []byte) (key string, ok bool) {
	if params == nil {
		return "", false
	}
	members, err := objectMembers(params)
	if err != nil {
		return "", false
	}
	for _, m := range members {
		if m.name == "requestId" && (jsonKind(m.value) == '"' || isJSONInteger(m.value)) {
			return idKey(bytes.TrimSpace(m.value)), true
		}
	}
	return "", false
}

// push writes a message the session sends outside any request (list
// changes, resource updates), on the goroutine of whoever published it
// (hub.publish, subscriptions.go), unless serveStdio is returning.
func (c *stdioConn) push(b []byte) {
	c.mu.Lock()
	if c.pushEnded {
		c.mu.Unlock()
		return
	}
	c.pushes.Add(1)
	c.mu.Unlock()
	defer c.pushes.Done()
	c.write(b)
}

// idKey normalises a raw request id so that 7 and "7" stay distinct and an
// escaped string id matches its plain spelling.
func idKey(raw []byte) string {
	if s, ok := jsonString(raw); ok {
		return "s" + s
	}
	return "n" + string(raw)
}
