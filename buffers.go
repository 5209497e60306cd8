// Buffers kept for reuse: those of large replies (encodeResult) and HTTP body chunks (readBody).
//
// Spec: none; a resource bound of this implementation (docs/PERFORMANCE.md,
// the 1 MiB rows; docs/RELIABILITY.md, worst-case memory).

package main

// bufferPool keeps up to cap(free) buffers of min to max bytes of capacity, handed back by their
// last holder (put), for a later get. Without it a 1 MiB echo ran a collection at every request:
// a third of the server's CPU on the 1 MiB rows. A channel, as the collector empties a sync.Pool
// at each cycle. Idle, it holds at most cap(free) * max bytes. Safe for concurrent use.
type bufferPool struct {
	free     chan []byte
	min, max int
}

// newBufferPool returns an empty pool of up to n buffers of min to max bytes.
func newBufferPool(n, min, max int) *bufferPool {
	return &bufferPool{free: make(chan []byte, n), min: min, max: max}
}

// get returns an empty buffer of at least size bytes, a kept one if it fits.
func (p *bufferPool) get(size int) []byte {
	if size >= p.min && size <= p.max {
		select {
		case b := <-p.free:
			if cap(b) >= size {
				return b[:0]
			}
		default:
		}
	}
	return make([]byte, 0, size)
}

// put keeps b, which its caller no longer holds and nothing else refers to, if it is of a size
// worth keeping and there is room.
func (p *bufferPool) put(b []byte) {
	if cap(b) < p.min || cap(b) > p.max {
		return
	}
	select {
	case p.free <- b[:0]:
	default:
	}
}

// Bounds of the reply buffers a server keeps (server.replies): two, of 64 KiB (smaller ones do
// not set the collector's pace) to 2 MiB (one huge reply does not pin its size): 4 MiB idle.
const (
	minReplyBuffer   = 64 << 10
	maxReplyBuffer   = 2 << 20
	replyBuffersKept = 2
)
