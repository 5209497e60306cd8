//go:build !stdio

// What the HTTP transport holds for a client until the client reads it:
// the answers being written to it, which draw on a budget shared among
// clients as the request bodies' is (httpsse.go, limits_share.go), and
// the kernel's send buffer of its connection, which is bounded and, on a
// connection left idle after a large answer, soon released; and how long
// its idle connection is kept: briefly after a large answer, and briefly
// when its last request showed no valid credential to a server that asks
// for one.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security-%26-endpoint,
// https://modelcontextprotocol.io/specification/2026-07-28/server/tools#security-considerations
// (the reasoning of rate limits applies to every resource a client can
// make the server hold).

package main

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// httpAnswerBudget is how many answers of -max-body the server holds
	// at once while clients read them: 32 MiB by default, 8 MiB for one
	// client (its share: four answers of 1.8 MiB). An answer larger than
	// a share takes the whole share, and is written alone. It is the
	// bodies' budget (httpBodyBudget) mirrored: what a client makes the
	// server hold for it on the way out is bounded as what it sends is on
	// the way in, whatever it asks for on every request slot and however
	// slowly it reads (TestAttackUnreadAnswers).
	httpAnswerBudget = 8

	// httpSmallAnswer is the largest answer that takes nothing from the
	// budget: the connection's send buffer (httpSendBuffer) takes it
	// whole, so its write returns at once, and -max-requests bounds how
	// many are being written (docs/RELIABILITY.md's formula counts 64 KiB
	// per request in flight). So a client whose share is full, or four
	// clients filling the budget, never delay another client's ordinary
	// answer.
	httpSmallAnswer = 64 << 10

	// httpSendBuffer is the kernel send buffer of each accepted
	// connection (SO_SNDBUF; Linux doubles it for its bookkeeping, so a
	// connection holds at most 128 KiB of the host's TCP memory for its
	// client). Left alone, Linux grows it towards tcp_wmem's maximum
	// (4 MiB) while a client reads slowly, so -max-connections clients
	// that never read could hold gigabytes of kernel memory, past the
	// host's tcp_mem limit, where every TCP allocation on the machine
	// fails. 64 KiB fills a 50 Mbit/s link 10 ms away; a large answer to
	// a client farther away arrives more slowly.
	httpSendBuffer = 64 << 10

	// httpLargeAnswerIdle is how long a connection whose last exchange
	// wrote more than its send buffer holds stays open idle, instead of
	// httpIdleTimeout (2 min): the end of that answer may still be in the
	// kernel's buffer, and a client that never reads would keep it there.
	// Closing it costs an honest client a new connection for its next
	// request.
	httpLargeAnswerIdle = 5 * time.Second

	// httpAnonymousIdle is how long a connection stays open idle, instead
	// of httpIdleTimeout (2 min), when the server asks for a credential
	// and the connection's last request showed no valid one (a 401, a
	// probe, the resource metadata, a 404): such a client has nothing to
	// send on it soon, and anyone who reaches the port could otherwise
	// hold connections idle for free (the fourth review, R4-8). A client
	// back with its token opens a new one. TestAnonymousIdle.
	httpAnonymousIdle = 5 * time.Second
)

// errAnswersBusy and errAnswerShareBusy refuse an answer the budget has
// no room for: -31503, as every overload (docs/GAPS.md).
var (
	errAnswersBusy     = newError(codeServerBusy, "server busy: answers not yet read by their clients fill the server's budget, retry later")
	errAnswerShareBusy = newError(codeServerBusy, "server busy: this client's answers not yet read fill its share of the server's budget, retry later")
)

// answerHold is what a call (httpCall) draws answers from: the
// transport's budget (httpTransport.answers) and the share of the caller
// the call answers.
type answerHold struct {
	budget *shareLimit
	share  string
	wait   time.Duration // how long a final answer waits for the budget (httpQueueWait)
}

// hold takes room in the budget for an answer of n bytes about to be
// written, and returns what gives it back once the write has returned.
// A small answer (httpSmallAnswer) takes nothing. A final answer
// (notice false) whose client's own share is full is refused at once:
// what it would wait for is that client's own reading; otherwise it waits
// up to h.wait for the budget, and then, too, rerr says why it was
// refused. A notification on a stream (notice true) waits up to
// httpWriteTimeout, as long as its write could block.
func (h answerHold) hold(ctx context.Context, n int, notice bool) (release func(), rerr *rpcError) {
	if h.budget == nil || n <= httpSmallAnswer {
		return func() {}, nil
	}
	take := min(int64(n), h.budget.per)
	var ok bool
	if notice {
		ok = h.budget.wait(ctx, h.share, take, httpWriteTimeout)
	} else {
		ok = h.budget.waitForTotal(ctx, h.share, take, h.wait)
	}
	if !ok {
		if h.budget.shareFull(h.share, take) {
			return nil, errAnswerShareBusy
		}
		return nil, errAnswersBusy
	}
	return func() { h.budget.give(h.share, take) }, nil
}

// answerListener bounds the send buffer of every connection it accepts
// (httpSendBuffer) and wraps it in an answerConn.
type answerListener struct {
	net.Listener
	idle time.Duration // httpLargeAnswerIdle; tests shorten it
	// anonIdle is httpAnonymousIdle when the server asks for a
	// credential, 0 when it asks for none; tests shorten it.
	anonIdle time.Duration
}

// Accept accepts a connection and bounds its send buffer.
func (l *answerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	ac := &answerConn{Conn: c, idle: l.idle, anonIdle: l.anonIdle}
	if tcp, ok := c.(*net.TCPConn); ok {
		ac.tcp = tcp
		_ = tcp.SetWriteBuffer(httpSendBuffer)
	}
	return ac, nil
}

// answerConn is an accepted connection that knows how much its current
// exchange wrote: left idle after more than its send buffer holds, it is
// closed after its own short idle timeout (httpLargeAnswerIdle); and once
// a write to it has failed (its deadline passed: the client stopped
// reading) or that timeout closes it, closing discards what the kernel
// still holds for it (SO_LINGER 0: a reset) rather than keeping it for
// the kernel to retry for minutes after the connection is gone. It also
// knows whether its current exchange showed a valid credential
// (credentialed): left idle without one, on a server that asks for one,
// it is closed after httpAnonymousIdle.
type answerConn struct {
	net.Conn
	tcp      *net.TCPConn // nil when not TCP (tests)
	idle     time.Duration
	anonIdle time.Duration // 0: the server asks for no credential
	written  atomic.Int64  // bytes written since the connection last became active
	stalled  atomic.Bool   // a write failed, or it idled out after a large answer
	// credential is set when a request of the current exchange
	// authenticated (credentialed); the exchange's start clears it.
	credential atomic.Bool

	mu    sync.Mutex  // guards timer
	timer *time.Timer // the short idle timeout while armed
}

// Write writes p, counting it, and remembers a failure.
func (c *answerConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.written.Add(int64(n))
	if err != nil {
		c.stalled.Store(true)
	}
	return n, err
}

// Close closes the connection, discarding the unsent rest of a stalled
// one's answer.
func (c *answerConn) Close() error {
	c.mu.Lock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.mu.Unlock()
	if c.stalled.Load() && c.tcp != nil {
		_ = c.tcp.SetLinger(0)
	}
	return c.Conn.Close()
}

// state follows http.Server.ConnState for c: active starts a new
// exchange; idle after one that wrote more than the send buffer holds
// arms the short idle timeout.
func (c *answerConn) state(s http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch s {
	case http.StateActive:
		if c.timer != nil {
			c.timer.Stop()
			c.timer = nil
		}
		c.written.Store(0)
		c.credential.Store(false)
	case http.StateIdle:
		switch {
		case c.timer != nil:
		case c.written.Load() > httpSendBuffer && c.idle > 0:
			c.timer = time.AfterFunc(c.idle, func() {
				c.stalled.Store(true)
				_ = c.Close()
			})
		case c.anonIdle > 0 && !c.credential.Load():
			c.timer = time.AfterFunc(c.anonIdle, func() { _ = c.Close() })
		}
	}
}

// connKey is the context key of the connection a request came on
// (withConn).
type connKey struct{}

// withConn is http.Server.ConnContext: it puts the connection in the
// context of each of its requests, for credentialed.
func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// credentialed marks the connection r came on as having shown a valid
// credential in its current exchange (guard, once authentication
// passed): it keeps httpIdleTimeout when it falls idle.
func credentialed(r *http.Request) {
	c, _ := r.Context().Value(connKey{}).(net.Conn)
	if ac := answerConnOf(c); ac != nil {
		ac.credential.Store(true)
	}
}

// answerConnOf returns the answerConn under c (an accepted connection,
// possibly wrapped: limitConn), or nil.
func answerConnOf(c net.Conn) *answerConn {
	for c != nil {
		switch v := c.(type) {
		case *answerConn:
			return v
		case interface{ NetConn() net.Conn }:
			c = v.NetConn()
		default:
			return nil
		}
	}
	return nil
}
