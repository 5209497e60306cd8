// The coalescing writer under the stdio transport's stdout (stdio.go) and
// the log (logging.go). Lines go out whole, in queued order, never
// interleaved: the goroutine that finds no write in progress writes, and
// lines queued meanwhile go out together in its next write, so an idle
// writer answers at once and a busy one makes one system call for many.
// Kept for the stdio k=32 rows of docs/PERFORMANCE.md: side by side with
// one write per message, it cost 11 and 15 % less server CPU per request
// at legacy k=32 in two runs of 7 and 9 rounds (7 and 12 % at modern k=32).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio
// (messages are newline-delimited and MUST NOT contain embedded newlines).

package main

import "sync"

// lineQueue is that writer's state. Its owner guards it (and may guard
// state of its own) with mu, waits on room for the queue to drain, and
// decides who writes; drain does the writing.
type lineQueue struct {
	mu       sync.Mutex
	room     sync.Cond // on mu (init): signalled when queued is taken or a write ends
	flushing bool      // a goroutine is writing; others queue
	queued   []byte    // complete lines waiting for the next write
	spare    []byte    // the previous batch's buffer, reused
	maxSpare int       // the largest batch buffer kept for reuse
}

// init readies q; maxSpare bounds the buffer it keeps between batches, so
// that one huge batch does not pin its size for the life of the writer.
func (q *lineQueue) init(maxSpare int) {
	q.room.L = &q.mu
	q.maxSpare = maxSpare
}

// drain writes b, then every batch queued meanwhile, until none is left;
// only the goroutine that set flushing calls it. ours says b is a batch of
// the queue's (its buffer is kept for reuse), not a caller's line.
func (q *lineQueue) drain(b []byte, ours bool, write func([]byte)) {
	for {
		write(b)
		q.mu.Lock()
		if ours && cap(b) <= q.maxSpare {
			q.spare = b[:0]
		}
		if len(q.queued) == 0 {
			q.flushing = false
			q.room.Broadcast()
			q.mu.Unlock()
			return
		}
		b, q.queued, q.spare, ours = q.queued, q.spare, nil, true
		q.room.Broadcast()
		q.mu.Unlock()
	}
}
