// The stdio transport's writing side: every line to stdout (responses,
// notifications, the server's requests) goes through outq (linequeue.go),
// whole and in order, waiting while the queue is full so that a stalled
// stdout stops the server instead of growing its memory; a call's lines
// stop at its cancellation; the cork holds the answers of a burst for one
// write (read, stdio.go).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation

package main

// writeUnlessCancelled writes b, a notification of the call, unless the
// call was cancelled or has ended. The check and the queueing happen
// under call.mu, so nothing follows a handled cancellation or the queued
// response; the wait for room and the Write happen without it, so a
// stalled stdout never blocks the reader handling a cancellation
// (TestStdioCancelWhileStdoutStalls).
func (c *stdioConn) writeUnlessCancelled(call *stdioCall, b []byte) {
	c.writeCall(call, b, false)
}

// writeLast writes b, the call's response, unless the call was
// cancelled, and ends the call.
func (c *stdioConn) writeLast(call *stdioCall, b []byte) {
	c.writeCall(call, b, true)
	// Written, queued (a copy) or dropped: b is no longer held.
	c.s.replies.put(b)
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

// maxSpareBytes bounds the batch buffer outq keeps for reuse
// (lineQueue.init).
const maxSpareBytes = 64 << 10

// write sends one complete message line through outq (linequeue.go),
// waiting while the queue is full, so a stalled stdout stops the server
// instead of growing its memory. The goroutine that writes is a caller (a
// request's, the reader, a publisher); serveStdio waits for all three.
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
// nobody is writing, or it fits maxStdioQueuedBytes, or the queue is
// empty (a larger message goes alone).
func (c *stdioConn) roomLocked(n int) bool {
	return !c.outq.flushing || len(c.outq.queued) == 0 || len(c.outq.queued)+n <= maxStdioQueuedBytes
}

// waitRoom waits until a message of n bytes may join the queue, or call
// (nil for none) is cancelled; false means it was. A full queue under
// the cork is written by the waiter, who takes the cork off.
func (c *stdioConn) waitRoom(n int, call *stdioCall) bool {
	c.outq.mu.Lock()
	defer c.outq.mu.Unlock()
	for !c.roomLocked(n) {
		if call != nil && call.cancelled.Load() {
			return false
		}
		if c.corked {
			b := c.uncorkLocked()
			c.outq.mu.Unlock()
			c.flushBatch(b)
			c.outq.mu.Lock()
			continue
		}
		c.outq.room.Wait()
	}
	return true
}

// cork keeps outq from writing until uncork, unless a write is in
// progress (it takes the queue when it ends). Only the reading role's
// holder corks (read).
func (c *stdioConn) cork() {
	c.outq.mu.Lock()
	if !c.outq.flushing {
		c.outq.flushing, c.corked = true, true
	}
	c.outq.mu.Unlock()
}

// uncork takes the cork off and writes what was queued under it.
func (c *stdioConn) uncork() {
	c.outq.mu.Lock()
	b := c.uncorkLocked()
	c.outq.mu.Unlock()
	c.flushBatch(b)
}

// uncorkLocked takes the cork off: it returns the batch queued under it,
// for the caller to write (flushBatch), or nil when the cork was off or
// nothing was queued (then nobody is writing any more).
func (c *stdioConn) uncorkLocked() []byte {
	q := &c.outq
	if !c.corked {
		return nil
	}
	c.corked = false
	if len(q.queued) == 0 {
		q.flushing = false
		q.room.Broadcast()
		return nil
	}
	b := q.queued
	q.queued, q.spare = q.spare, nil
	q.room.Broadcast()
	return b
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
	c.outq.drain(b, false, c.writeOut)
}

// flushBatch is flush for a batch of the queue's (uncorkLocked), nil for
// none.
func (c *stdioConn) flushBatch(b []byte) {
	if b != nil {
		c.outq.drain(b, true, c.writeOut)
	}
}

// writeOut writes b, a batch of whole lines, to stdout.
func (c *stdioConn) writeOut(b []byte) {
	if _, err := c.out.Write(b); err != nil {
		c.s.log.Error("write failed", "transport", "stdio", "err", err)
	}
}
