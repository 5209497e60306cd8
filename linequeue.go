// The coalescing writer under stdio's stdout and the log (logging.go): lines go out whole, in
// queued order; the goroutine that finds no write in progress writes, and lines queued meanwhile
// go out together in its next write. Kept for the stdio k=32 rows of docs/PERFORMANCE.md: 11 and
// 15 % less server CPU per request than one write per message at legacy k=32 (7 and 12 % modern).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio
// (messages are newline-delimited and MUST NOT contain embedded newlines).

package main

import "sync"

// lineQueue is that writer's state. Its owner guards it (and state of its
// own) with mu, waits on room, and decides who writes; drain writes.
type lineQueue struct {
	mu       sync.Mutex
	room     sync.Cond // on mu (init): signalled when queued is taken or a write ends
	flushing bool      // a goroutine is writing; others queue
	queued   []byte    // complete lines waiting for the next write
	spare    []byte    // the previous batch's buffer, reused
	maxSpare int       // the largest batch buffer kept for reuse
}

// init readies q; maxSpare bounds the buffer kept between batches (one huge batch pins nothing).
func (q *lineQueue) init(maxSpare int) {
	q.room.L = &q.mu
	q.maxSpare = maxSpare
}

// drain writes b, then every batch queued meanwhile; only the goroutine that set flushing calls
// it. ours says b is the queue's buffer (kept for reuse), not a caller's line.
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
