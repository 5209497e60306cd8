// The stdio transport's writing side: every line to stdout goes through one coalescing queue
// (linequeue.go), whole and in order, waiting while the queue is full so that a stalled stdout
// stops the server instead of growing its memory; a call's lines stop at its cancellation.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation

package main

import (
	"bytes"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// maxStdioQueuedBytes bounds the messages queued for stdout: one message's worth; a larger message
// waits for an empty queue and goes alone (roomLocked).
const maxStdioQueuedBytes = maxLineBytes

// maxSpareBytes bounds the queue buffer the writer keeps for reuse.
const maxSpareBytes = 64 << 10

// stdioWriter is stdout's writer: a goroutine finding no write in progress writes its line (and
// what queues meanwhile) itself, so an idle server answers without a hand-off; the reader's lines
// go through a detached goroutine (awaited by close), as a stalled stdout must not stop it reading
// cancellations (TestStdioCorkedStdoutStalls).
type stdioWriter struct {
	out io.Writer
	log *slog.Logger
	// q is the queue; q.mu also guards closed, corked and corkedAt.
	q      lineQueue
	closed bool
	// corked: the reader holds the writer (cork); what is answered meanwhile leaves at uncork.
	corked   bool
	corkedAt time.Time
	// detached counts the goroutines writing on the reader's behalf.
	detached sync.WaitGroup
}

// close waits for what is queued to be written; lines queued after it are dropped.
func (w *stdioWriter) close() {
	w.uncork()
	w.q.mu.Lock()
	w.closed = true
	for w.q.flushing {
		w.q.room.Wait()
	}
	w.q.mu.Unlock()
	w.detached.Wait()
}

// cork holds the writer while the reader has more lines, so the answers to one read's lines leave
// in one write, unless a write is in progress or the cork held for stdioInlineFor (it comes off).
// Only the reader corks and uncorks. Kept for the stdio k=32 rows of docs/PERFORMANCE.md: without
// it modern k=32 fell to 0.30 of the floor (legacy 0.11).
func (w *stdioWriter) cork() {
	w.q.mu.Lock()
	over := w.corked && time.Since(w.corkedAt) >= stdioInlineFor
	if !w.q.flushing && !w.closed {
		w.q.flushing, w.corked, w.corkedAt = true, true, time.Now()
	}
	w.q.mu.Unlock()
	if over {
		w.uncork()
	}
}

// bursting reports whether the reader held the cork under stdioInlineFor: a burst, served inline.
func (w *stdioWriter) bursting() bool {
	w.q.mu.Lock()
	defer w.q.mu.Unlock()
	return w.corked && time.Since(w.corkedAt) < stdioInlineFor
}

// uncork takes the cork off; its own goroutine writes what queued (TestStdioCorkedStdoutStalls).
func (w *stdioWriter) uncork() {
	w.q.mu.Lock()
	b := w.uncorkLocked()
	w.q.mu.Unlock()
	if b != nil {
		w.detached.Go(func() { w.q.drain(b, true, w.writeOut) })
	}
}

// uncorkLocked takes the cork off and returns what queued, for the caller to drain (nil: none).
func (w *stdioWriter) uncorkLocked() []byte {
	if !w.corked {
		return nil
	}
	w.corked = false
	b := w.q.queued
	w.q.queued, w.q.spare = w.q.spare, nil
	if len(b) == 0 {
		w.q.flushing = false
		w.q.queued = b
		b = nil
	}
	w.q.room.Broadcast()
	return b
}

// wake tells writers waiting for room that a call was cancelled.
func (w *stdioWriter) wake() {
	w.q.mu.Lock()
	w.q.room.Broadcast()
	w.q.mu.Unlock()
}

// roomLocked reports whether a line of n bytes may be written or queued now: nobody is writing, or
// (n >= 0) it fits maxStdioQueuedBytes or the queue is empty.
func (w *stdioWriter) roomLocked(n int) bool {
	return !w.q.flushing || n >= 0 && (len(w.q.queued) == 0 || len(w.q.queued)+n <= maxStdioQueuedBytes)
}

// write queues b, one line, waiting while the queue is full; detach: the reader's (stdioWriter).
func (w *stdioWriter) write(b []byte, detach bool) {
	w.queue(replyParts{b}, nil, false, detach)
}

// writeFor writes b, a notification of cl, unless cl was cancelled or ended (exchange.callSend).
func (w *stdioWriter) writeFor(cl *call, b []byte) {
	w.queue(replyParts{b}, cl, false, false)
}

// queue writes parts, one line: a short one joined and queued as any line, a longer one from its
// pieces once the writer is free, so that an answer holding a stored value (a task's result)
// waiting for a stalled stdout holds no copy (docs/RELIABILITY.md, `loadtest -only
// stdio-answers`). For a call cl, nothing is written once cl was cancelled or has ended, and last
// marks it ended; check and queueing happen under cl.mu, so nothing follows a handled cancellation
// or the queued response (TestStdioNothingAfterResponse). The wait for room happens without cl.mu
// and gives up once cl is cancelled, so a stalled stdout never blocks the reader handling the
// cancellation (TestStdioCancelWhileStdoutStalls). On return a whole line is no longer held; a
// line in pieces written detached is held until its goroutine writes it.
func (w *stdioWriter) queue(parts replyParts, cl *call, last, detach bool) {
	n := -1 // a line in pieces cannot join the queue (roomLocked)
	if len(parts) == 1 || parts.size() <= maxSpareBytes {
		parts = replyParts{parts.join()}
		n = len(parts[0])
	}
	for {
		w.q.mu.Lock()
		for !w.roomLocked(n) && (cl == nil || !cl.cancelled.Load()) {
			if held := w.uncorkLocked(); held != nil {
				// The queue filled under the cork: its waiter writes it.
				w.q.mu.Unlock()
				w.q.drain(held, true, w.writeOut)
				w.q.mu.Lock()
			} else if w.q.flushing {
				w.q.room.Wait()
			}
		}
		w.q.mu.Unlock()
		writeNow, queued := false, false
		if !cl.whileLive(func() bool {
			w.q.mu.Lock()
			defer w.q.mu.Unlock()
			switch {
			case w.closed:
				queued = true // dropped: nothing is written after close
			case !w.q.flushing:
				w.q.flushing, writeNow = true, true
			case w.roomLocked(n):
				w.q.queued, queued = append(w.q.queued, parts[0]...), true
			}
			return last && (writeNow || queued)
		}) || queued {
			return
		}
		if !writeNow {
			continue
		}
		if !detach {
			w.writeParts(parts)
			return
		}
		// Only the detached branch's own copy reaches the heap: a closure over parts itself
		// would move it there for every line (three allocations a stdio call).
		held := slices.Clone(parts) // a line in pieces: its pieces, not copied
		if n >= 0 {
			held[0] = bytes.Clone(parts[0])
		}
		w.detached.Go(func() { w.writeParts(held) })
		return
	}
}

// writeParts writes parts, one line in pieces, then what queued meanwhile (the writer's turn).
func (w *stdioWriter) writeParts(parts replyParts) {
	for _, b := range parts[:len(parts)-1] {
		w.writeOut(b)
	}
	w.q.drain(parts[len(parts)-1], false, w.writeOut)
}

// writeOut writes b, a batch of whole lines, to stdout.
func (w *stdioWriter) writeOut(b []byte) {
	if _, err := w.out.Write(b); err != nil {
		w.log.Error("write failed", "transport", "stdio", "err", err)
	}
}
