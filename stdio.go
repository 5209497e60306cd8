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

// maxLineBytes bounds one stdio message. 4 MiB holds any realistic tool
// call (a large file as an argument) while keeping a hostile peer from
// making the server buffer without limit.
const maxLineBytes = 4 << 20

// maxInFlight bounds the requests one stdio connection runs at once. When
// it is reached the reader stops reading (backpressure through the pipe)
// instead of starting more goroutines.
const maxInFlight = 256

// maxStdioInFlightBytes bounds the bytes of the request lines one stdio
// connection serves at once: two lines of maxLineBytes, or many small
// ones. A request holds its line's bytes until its response is queued;
// while they are all held the reader stops, as for a slot. Without it a
// client that never read stdout made the server read and answer 1 MiB
// requests without end (issue 19, finding 2).
const maxStdioInFlightBytes = 2 * maxLineBytes

// maxStdioQueuedBytes bounds the responses and notifications waiting for
// the goroutine writing to stdout: one message's worth. A writer finding
// it full waits (holding its request's slot and bytes) until the writing
// goroutine takes the batch; a message larger than the bound goes alone.
const maxStdioQueuedBytes = maxLineBytes

// stdioConn is one stdio connection: a reader (the serve loop), one
// goroutine per request in flight, and one writer lock.
type stdioConn struct {
	s       *server
	out     io.Writer
	closing <-chan struct{} // closed on shutdown (EOF or ctx), see serveStdio
	// endInput is what the end of stdin does, wherever the reader sees
	// it (the serve loop, or acquireSlot): closing is closed and the
	// session ends, so listens close gracefully and requests waiting for
	// an answer that can no longer arrive fail at once. Idempotent.
	endInput func()
	// session is the connection's classic-era session: stdio is one
	// connection per process, so one initialize serves it all.
	session *session

	// outq coalesces the lines written to out (linequeue.go); its queue
	// holds at most maxStdioQueuedBytes (or one message), and its room
	// is also signalled when a call is cancelled.
	outq lineQueue

	mu       sync.Mutex            // guards inFlight, pushEnded
	inFlight map[string]*stdioCall // by request id key
	// pushes counts the session's pushes being written (push), on a
	// publisher's goroutine; pushEnded refuses new ones. serveStdio
	// sets it and waits for pushes before it returns, so that nothing
	// is written to out after.
	pushes    sync.WaitGroup
	pushEnded bool
	// slots bounds the requests served at once (-max-requests), and
	// lineBytes the bytes of their lines (maxStdioInFlightBytes); the
	// connection is one client, so neither has shares.
	slots, lineBytes *shareLimit
	wg               sync.WaitGroup // requests in flight

	// jobs hands a request to an idle worker (spawn); workers counts the
	// worker goroutines started, at most one per slot, and pool waits
	// for them once jobs is closed at the end of serveStdio.
	jobs    chan stdioJob
	workers atomic.Int32
	pool    sync.WaitGroup

	// lines, held and hasHeld belong to the serve loop's goroutine:
	// lines is what readLines sends; held is a line read while waiting
	// for a slot (acquireSlot), to be handled next.
	lines   <-chan []byte
	held    []byte
	hasHeld bool
}

// stdioJob is the work of one request (or batch) and the bytes of its
// line: start takes a request slot and the bytes for it, a worker runs it
// and gives them back (do).
type stdioJob struct {
	run  func()
	size int64
}

// stdioCall is one request in flight on stdio.
type stdioCall struct {
	// rctx is the request's context (request_context.go): cancelling the
	// call ends it.
	rctx *requestContext
	mu   sync.Mutex // guards ended; serialises setting cancelled or ended with queueing the call's messages
	// cancelled is set under mu; a writer waiting for room in the queue
	// reads it without mu (see writeUnlessCancelled).
	cancelled atomic.Bool
	// ended is set once the call's response is queued (or, a batch
	// entry, its answer taken): a goroutine of the handler that outlives
	// it writes nothing more, as the progress utility asks (review A,
	// finding 6). The HTTP transport has httpCall.done.
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
// request already read and writes its response before returning: a client
// that closes stdin after its last request still gets every answer.
//
// Both EOF and ctx ending shut the connection down gracefully: closing is
// closed first, so each open subscriptions/listen writes its
// graceful-closure result and ends instead of holding the drain open
// forever. EOF is the spec's primary graceful-shutdown signal on stdio
// (the client closes stdin, then waits for the server to exit, still
// reading stdout), so it is treated like a signal, not as a vanished
// client. On ctx ending, the requests in flight are then cancelled.
// [§Shutdown]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio#shutdown
// [§Graceful Closure]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#graceful-closure
func (s *server) serveStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	c := newStdioConn(s, out)
	// Requests run under connCtx, cancelled only after closing is closed,
	// so a listen request can tell shutdown from its own cancellation.
	// ctx ending cancels them even during the EOF drain.
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
	// watcher carries ctx ending into closing and connCtx, in the read
	// loop and during the EOF drain alike; it ends with serveStdio.
	var watcher sync.WaitGroup
	served := make(chan struct{})
	watcher.Go(func() {
		select {
		case <-ctx.Done():
			shutdown()
			cancelConn()
		case <-served:
		}
	})
	defer watcher.Wait()
	defer close(served)
	c.session.sink = c.push
	lines := make(chan []byte)
	c.lines = lines
	readErr := make(chan error, 1)
	done := make(chan struct{})
	defer close(done)
	go func() {
		readErr <- readLines(in, lines, done)
		close(lines)
	}()
	var err error
loop:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				c.endInput()
				break loop
			}
			c.handleLine(connCtx, line)
			for c.hasHeld {
				held := c.held
				c.held, c.hasHeld = nil, false
				c.handleLine(connCtx, held)
			}
		case <-ctx.Done():
			shutdown()
			cancelConn()
			// A reader blocked in Read cannot be interrupted portably; a
			// deadline unblocks it where the input supports one (pipes,
			// files), and process exit ends it otherwise.
			if d, ok := in.(interface{ SetReadDeadline(time.Time) error }); ok {
				_ = d.SetReadDeadline(time.Now())
			}
			break loop
		}
	}
	// No answer to a server-to-client request can arrive any more: fail
	// the requests waiting for one rather than letting them time out.
	c.session.end()
	c.wg.Wait()
	close(c.jobs)
	c.pool.Wait()
	c.mu.Lock()
	c.pushEnded = true
	c.mu.Unlock()
	c.pushes.Wait()
	select {
	case err = <-readErr:
	default:
	}
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// newStdioConn returns a connection writing to out, not yet serving.
func newStdioConn(s *server, out io.Writer) *stdioConn {
	c := &stdioConn{s: s, out: out, session: newSession(), inFlight: map[string]*stdioCall{},
		slots: newShareLimit(int64(s.limits.maxRequests), int64(s.limits.maxRequests)), lineBytes: newShareLimit(maxStdioInFlightBytes, maxStdioInFlightBytes),
		jobs: make(chan stdioJob)}
	c.outq.init(maxSpareBytes)
	return c
}

// readLines sends each non-blank line of in (without its CR LF) to lines
// until in ends or done is closed. A line over maxLineBytes is discarded
// and sent as nil, so that it gets an error answer and the next line is
// still served.
func readLines(in io.Reader, lines chan<- []byte, done <-chan struct{}) error {
	r := bufio.NewReaderSize(in, 64<<10)
	var long []byte
	tooLong := false
	// longHint is the length of the last line longer than the reader's
	// buffer: a client that sends one large argument tends to send more of
	// its size, and a buffer of that size from the start is one copy of
	// the line where growing by doubling from 64 KiB was four, and the
	// largest share of a 1 MiB echo's time (issue 16).
	longHint := 0
	for {
		chunk, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if !tooLong {
				if long == nil {
					long = make([]byte, 0, max(longHint, 2*len(chunk)))
				}
				long = append(long, chunk...)
				if len(long) > maxLineBytes {
					long, tooLong = nil, true
				}
			}
			continue
		}
		var line []byte
		send := false
		if tooLong {
			line, send, tooLong = nil, true, false
		} else {
			line = chunk
			owned := false // chunk is the reader's buffer; long is ours
			if long != nil {
				line, long, owned = append(long, chunk...), nil, true
				longHint = min(len(line), maxLineBytes+1)
				if cap(line) > 2*len(line) {
					// A shorter line than the hint: what it holds in
					// flight is its length, not the hint's.
					line = bytes.Clone(line)
				}
			}
			line = bytes.TrimRight(line, "\r\n")
			switch {
			case len(line) > maxLineBytes:
				line, send = nil, true
			case len(bytes.TrimSpace(line)) > 0:
				if !owned {
					line = bytes.Clone(line)
				}
				send = true
			}
		}
		if send {
			select {
			case lines <- line:
			case <-done:
				return context.Canceled
			}
		}
		if err != nil {
			return err
		}
	}
}

// handleLine serves one line: requests run on their own goroutine so a slow
// handler never blocks a fast one; cancellation is handled here, in order.
//
// The handshake is ordered: each request is judged (newRequest decides
// its era against the session's state) here, in the order the lines were
// read, and initialize is served here, before the next line is read. So
// a client that pipes initialize and the requests after it, without
// waiting for the answer, has them served in the negotiated session; a
// request read before initialize is refused as one, however the workers
// are scheduled; and notifications/initialized, handled here too, always
// finds the session negotiated. initialize does no I/O, so serving it on
// the reader costs the reader nothing (a parse error's answer is written
// here too). The clients SHOULD wait for the initialize response; the
// server does not make them (issue 17).
// [§Initialization]: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization
func (c *stdioConn) handleLine(ctx context.Context, line []byte) {
	if line == nil {
		c.write(encodeError(nil, newError(codeInvalidRequest, "invalid request: message longer than %d bytes", maxLineBytes)))
		return
	}
	if jsonKind(line) == '[' {
		c.handleBatch(ctx, line)
		return
	}
	msg, rerr := parseMessage(line)
	if rerr != nil {
		if !msg.isNotification() {
			c.write(encodeError(msg.id, rerr))
		}
		return
	}
	if c.s.takeControl(&msg, c.session, c.cancel, "stdio") {
		return
	}
	if msg.isNotification() {
		c.s.dispatch(ctx, &msg, exchange{session: c.session})
		return
	}
	key := idKey(msg.id)
	c.mu.Lock()
	_, dup := c.inFlight[key]
	c.mu.Unlock()
	if dup {
		c.write(encodeError(msg.id, newError(codeInvalidRequest, "invalid request: id %s is already in flight", msg.id)))
		return
	}
	req := c.s.newRequest(&msg, c.session, framing{})
	if msg.method == methodInitialize {
		reply, _ := c.s.serve(ctx, req, exchange{send: c.write, session: c.session, closing: c.closing})
		c.write(reply)
		return
	}
	// The request's context, bound here so that a notifications/cancelled
	// read while it waits for a slot reaches it; serve ends it once the
	// request is answered.
	reqCtx := req.bind(ctx)
	call := &stdioCall{rctx: &req.rctx}
	c.mu.Lock()
	c.inFlight[key] = call
	c.mu.Unlock()

	c.start(ctx, stdioJob{size: int64(len(line)), run: func() {
		send := func(b []byte) { c.writeUnlessCancelled(call, b) }
		reply, _ := c.s.serve(reqCtx, req, exchange{send: send, session: c.session, closing: c.closing})
		c.mu.Lock()
		delete(c.inFlight, key)
		c.mu.Unlock()
		if reply == nil {
			call.end()
			return
		}
		c.writeLast(call, reply)
		if closed := listenClosed(req, reply); closed != nil {
			c.write(closed) // after the graceful result (subscriptions.go)
		}
	}})
}

// handleBatch serves a line that is a JSON-RPC batch (batch.go): refused
// whole unless the connection's session negotiated 2025-03-26; otherwise
// its entries are judged and its notifications and responses handled
// here, in order, like lines, and its requests registered in flight (so
// notifications/cancelled reaches them, and their ids count as in
// flight). The requests are then served one after another by one worker
// holding one request slot, and the batch's answer is one line, an array
// in the order of the entries; a cancelled request has no entry in it,
// and a batch with nothing to answer writes nothing.
// [§Batching]: https://modelcontextprotocol.io/specification/2025-03-26/basic#batching
func (c *stdioConn) handleBatch(ctx context.Context, line []byte) {
	if c.session.negotiated() != versionBatches {
		c.write(encodeError(nil, batchOutsideSession(line)))
		return
	}
	items, rerr := c.s.readBatch(line, c.session, framing{})
	if rerr != nil {
		c.write(encodeError(nil, rerr))
		return
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
		return
	}
	c.start(ctx, stdioJob{size: int64(len(line)), run: func() {
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

// start takes a request slot and the bytes of job's line (acquireSlot),
// then hands job to a worker (spawn); serveStdio awaits it.
func (c *stdioConn) start(ctx context.Context, job stdioJob) {
	c.acquireSlot(ctx, job.size)
	c.wg.Add(1)
	c.spawn(job)
}

// do runs job on a worker, then gives back the slot and the bytes start
// took for it.
func (c *stdioConn) do(job stdioJob) {
	defer c.wg.Done()
	defer c.slots.give("", 1)
	defer c.lineBytes.give("", job.size)
	job.run()
}

// spawn runs job, which holds a request slot, on an idle worker, or on a
// new worker while fewer than one per slot exist. Workers outlive their
// job and wait for the next: a fresh goroutine per request paid for
// growing its stack every time (about a tenth of the stdio CPU profile).
// When every worker exists and none is idle, one is about to be: job's
// slot was free, so some job has finished and its worker is on its way
// back to jobs. Only the serve loop calls spawn, so workers is read and
// raised without a race.
func (c *stdioConn) spawn(job stdioJob) {
	select {
	case c.jobs <- job:
		return
	default:
	}
	if c.workers.Load() < int32(c.s.limits.maxRequests) {
		c.workers.Add(1)
		c.pool.Go(func() {
			c.do(job)
			for next := range c.jobs {
				c.do(next)
			}
		})
		return
	}
	c.jobs <- job
}

// acquireSlot takes a request slot and size bytes of the line budget;
// ctx is the connection's, for what it serves meanwhile.
// While either is spent it keeps reading the lines that can free them
// without taking any: the client's answers to bridged server-to-client
// requests (classic_bridge.go), and notifications/cancelled. Blocking the
// reader outright left a request waiting for an answer that was never
// read, until -input-timeout. The first other line read meanwhile is held
// for the serve loop, and reading stops there until a slot and the bytes
// free: the backpressure stays one line deep. The end of stdin seen here
// is acted on here (endInput): the slots may be held by requests waiting
// for answers that can no longer arrive, and by listens, which free them
// only once told (review A, finding 2: they waited for -input-timeout).
func (c *stdioConn) acquireSlot(ctx context.Context, size int64) {
	lines := c.lines
	for _, need := range []struct {
		lim *shareLimit
		n   int64
	}{{c.slots, 1}, {c.lineBytes, size}} {
		for w := need.lim.enqueue("", need.n); w != nil; {
			select {
			case <-w.ready:
				w = nil
			case line, ok := <-lines:
				switch {
				case !ok:
					lines = nil
					c.endInput()
				case !c.handleControl(ctx, line):
					c.held, c.hasHeld, lines = line, true, nil
				}
			}
		}
	}
}

// handleControl serves line if it is a response to a server request or a
// notifications/cancelled, and reports whether it was one.
func (c *stdioConn) handleControl(ctx context.Context, line []byte) bool {
	if line == nil {
		return false
	}
	if jsonKind(line) == '[' {
		// A batch of answers and cancellations (a 2025-03-26 client
		// answering several bridged requests at once) frees slots too.
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
		// A writer of the call waiting for room in the queue gives up.
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

// writeUnlessCancelled writes b, a notification of the call, unless the
// call was cancelled or has ended. The check and the queueing of b happen
// under the call's lock, so nothing is sent for a request after its
// cancellation was handled or its response queued; waiting for room in
// the queue and the Write itself happen without it, so a stalled stdout
// never blocks the reader handling a notifications/cancelled.
func (c *stdioConn) writeUnlessCancelled(call *stdioCall, b []byte) {
	c.writeCall(call, b, false)
}

// writeLast writes b, the call's response, unless the call was
// cancelled, and ends the call.
func (c *stdioConn) writeLast(call *stdioCall, b []byte) {
	c.writeCall(call, b, true)
}

// writeCall is writeUnlessCancelled, and with last writeLast.
func (c *stdioConn) writeCall(call *stdioCall, b []byte, last bool) {
	if last {
		defer call.end()
	}
	for {
		if !c.waitRoom(len(b), call) {
			return // cancelled while waiting
		}
		call.mu.Lock()
		if call.cancelled.Load() || call.ended {
			call.mu.Unlock()
			return
		}
		writeNow, queued := c.enqueue(b)
		call.ended = last && (writeNow || queued)
		call.mu.Unlock()
		if writeNow {
			c.flush(b)
		}
		if writeNow || queued {
			return
		}
	}
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

// maxSpareBytes bounds a buffer kept for reuse (stdio's batch buffer),
// so that one huge response does not pin its size for the
// life of the connection.
const maxSpareBytes = 64 << 10

// write sends one complete message line. When no other goroutine is
// writing, b goes out at once in its own Write; lines completed while a
// Write is in progress are queued and go out together in the next one. So
// an idle connection answers without delay, and a busy one makes one
// system call for many responses instead of one each. Lines are never
// interleaved and keep the order in which they were enqueued. The queue
// holds at most maxStdioQueuedBytes: past it, write waits until the
// writing goroutine takes the batch, so a stalled stdout stops the
// server instead of growing its memory. The writing goroutine is one that
// called write: a request's, the serve loop, or a publisher of the
// session's notifications (push); serveStdio waits for all three before
// it returns, so the queue is empty then.
func (c *stdioConn) write(b []byte) {
	for {
		c.waitRoom(len(b), nil)
		writeNow, queued := c.enqueue(b)
		if writeNow {
			c.flush(b)
		}
		if writeNow || queued {
			return
		}
	}
}

// roomLocked reports whether a message of n bytes may join the queue now:
// nobody is writing (the caller will), or the queue has room, or it is
// empty (a message larger than the bound goes alone).
func (c *stdioConn) roomLocked(n int) bool {
	return !c.outq.flushing || len(c.outq.queued) == 0 || len(c.outq.queued)+n <= maxStdioQueuedBytes
}

// waitRoom waits until a message of n bytes may join the queue, or call
// (nil for none) is cancelled; false means it was.
func (c *stdioConn) waitRoom(n int, call *stdioCall) bool {
	c.outq.mu.Lock()
	defer c.outq.mu.Unlock()
	for !c.roomLocked(n) {
		if call != nil && call.cancelled.Load() {
			return false
		}
		c.outq.room.Wait()
	}
	return true
}

// enqueue claims the writer for b (writeNow: the caller must flush b), or
// appends b to the batch the goroutine writing now sends next (queued).
// Neither means the queue filled since waitRoom: wait again.
func (c *stdioConn) enqueue(b []byte) (writeNow, queued bool) {
	c.outq.mu.Lock()
	defer c.outq.mu.Unlock()
	if !c.outq.flushing {
		c.outq.flushing = true
		return true, false
	}
	if !c.roomLocked(len(b)) {
		return false, false
	}
	c.outq.queued = append(c.outq.queued, b...)
	return false, true
}

// flush writes b, then every batch queued meanwhile (lineQueue.drain);
// only the goroutine enqueue told to write calls it.
func (c *stdioConn) flush(b []byte) {
	c.outq.drain(b, false, func(b []byte) {
		if _, err := c.out.Write(b); err != nil {
			c.s.log.Error("write failed", "transport", "stdio", "err", err)
		}
	})
}

// idKey normalises a raw request id so that 7 and "7" stay distinct and an
// escaped string id matches its plain spelling.
func idKey(raw []byte) string {
	if s, ok := jsonString(raw); ok {
		return "s" + s
	}
	return "n" + string(raw)
}
