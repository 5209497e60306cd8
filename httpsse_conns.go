//go:build !stdio

// The connections of the HTTP listeners, the MCP endpoint's and the
// -metrics one (limitListener): at most a total open at once, at most a
// share of it from one client address, and room made for a newcomer as
// long as some connection sits quiet. A connection is quiet from its
// acceptance until the head of its first request has been read, and
// between requests (http.StateNew, StateIdle); it is busy while a
// request is read, served and answered, and is never closed for a
// newcomer then. At the total, the quiet connection of the address
// holding the most is closed to admit a newcomer; an address at its
// share gives up its own quietest for its newcomer. Four addresses that
// held every connection idle kept an authenticated client and the
// probes out for 40 s (the fourth review, R4-8;
// TestConnectionsHeldByFourAddresses): now whoever holds the most pays.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security-%26-endpoint;
// RFC 9112 §9.5 (a server MAY close an inactive connection at any time).

package main

import (
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// connBusy is limitConn.quiet while a request is being served.
const connBusy = -1

// limitListener accepts at most n connections at a time, and at most
// perAddr from one client (one IPv4 address, one IPv6 /64: addrNetwork).
// Addresses, not principals: nothing is authenticated before a
// connection's first request. A proxy the operator trusts
// (-trusted-proxy) is bound by n alone: its connections carry many
// clients, each counted by its own address request by request
// (clientAddr, the shares), and capping the proxy like one client reset
// the 257th connection of a replica behind HAProxy, its health checks
// included (review A, finding 1).
//
// A newcomer from an address holding perAddr takes the place of that
// address's quietest connection, or is closed at once when none is quiet
// (issue 19, finding 6: idle sockets from one address used up the
// total). A newcomer finding n open takes the place of the quiet
// connection of the address holding the most (the one quiet longest
// among that address's), or, when every connection is busy, waits in
// Accept until one closes or falls quiet; those behind it wait in the
// kernel's backlog. The server tells the listener when a connection
// turns busy or quiet (connState). Accept is called from one goroutine
// (http.Server.Serve); Close unblocks it.
type limitListener struct {
	net.Listener
	slots chan struct{}
	// exempt reports an address bound by n alone (a trusted proxy); nil
	// exempts none.
	exempt    func(netip.Addr) bool
	done      chan struct{}
	closeOnce sync.Once
	count     atomic.Int64 // open connections (open)
	// byAddr counts the open connections by address (limits_share.go):
	// its total is n, which slots already bounds, so only an address's
	// part (perAddr) ever refuses.
	byAddr *shareLimit
	epoch  time.Time // limitConn.quiet counts from it (a monotonic clock)
	// waiting is set while Accept holds a newcomer with every connection
	// busy; a connection falling quiet then wakes it through quieted.
	waiting atomic.Bool
	quieted chan struct{}

	mu    sync.Mutex // guards conns
	conns map[*limitConn]struct{}
}

// limitConn is a connection limitListener accepted: it frees its place
// once, on the first Close, and knows how long it has been quiet.
type limitConn struct {
	net.Conn
	l    *limitListener
	addr string // its address's key: addrNetwork, or the address of an exempt proxy
	// quiet is when the connection last fell quiet, in nanoseconds since
	// l.epoch, or connBusy while a request is being served.
	quiet   atomic.Int64
	once    sync.Once
	release func()
}

// newLimitListener wraps ln to hold at most n connections open, perAddr
// of them from one IP address unless exempt (nil: none) says the address
// is bound by n alone.
func newLimitListener(ln net.Listener, n, perAddr int, exempt func(netip.Addr) bool) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), exempt: exempt, done: make(chan struct{}),
		byAddr: newShareLimit(int64(n), int64(perAddr)), epoch: time.Now(), quieted: make(chan struct{}, 1), conns: map[*limitConn]struct{}{}}
}

// Accept accepts a connection and makes room for it: from an address at
// its share, in place of that address's quietest connection (or it is
// closed, and the next one accepted); at the total, in place of the
// quiet connection of the address holding the most, or after waiting for
// one to close or fall quiet.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := remoteIP(c.RemoteAddr().String())
		exempt := l.exempted(ip)
		addr := ip
		if !exempt {
			addr = addrNetwork(ip)
			if l.byAddr.shareFull(addr, 1) && !l.evict(addr) {
				c.Close()
				continue
			}
		}
		if !l.takeSlot() {
			c.Close()
			return nil, net.ErrClosed
		}
		if !exempt && !l.byAddr.take(addr, 1) {
			// Only Accept takes, and the address had room above: not
			// reached while Accept has one caller.
			<-l.slots
			c.Close()
			continue
		}
		lc := &limitConn{Conn: c, l: l, addr: addr}
		lc.quiet.Store(int64(time.Since(l.epoch)))
		lc.release = func() {
			l.mu.Lock()
			delete(l.conns, lc)
			l.mu.Unlock()
			l.count.Add(-1)
			if !exempt {
				l.byAddr.give(addr, 1)
			}
			<-l.slots
		}
		l.mu.Lock()
		l.conns[lc] = struct{}{}
		l.mu.Unlock()
		l.count.Add(1)
		return lc, nil
	}
}

// takeSlot takes a place among the n for a newcomer already accepted: a
// free one, or one made by closing the quiet connection of the address
// holding the most, or one that frees while it waits. It reports false
// when the listener closes first.
func (l *limitListener) takeSlot() bool {
	for {
		select {
		case l.slots <- struct{}{}:
			return true
		default:
		}
		if l.evict("") {
			continue
		}
		// Every connection is busy: wait for one to close or fall quiet.
		// waiting is set before evict looks again, so a connection falling
		// quiet after that look signals quieted.
		l.waiting.Store(true)
		if l.evict("") {
			l.waiting.Store(false)
			continue
		}
		select {
		case l.slots <- struct{}{}:
			l.waiting.Store(false)
			return true
		case <-l.quieted:
		case <-l.done:
			l.waiting.Store(false)
			return false
		}
		l.waiting.Store(false)
	}
}

// evict closes a quiet connection to make room, and reports whether it
// found one: the quietest of addr, or, for "", the one quiet longest
// among those of the address holding the most connections. Closing it
// gives back its place (limitConn.Close) before evict returns.
func (l *limitListener) evict(addr string) bool {
	l.mu.Lock()
	var victim *limitConn
	if addr != "" {
		for c := range l.conns {
			if q := c.quiet.Load(); c.addr == addr && q != connBusy && (victim == nil || q < victim.quiet.Load()) {
				victim = c
			}
		}
	} else {
		held := make(map[string]int, len(l.conns))
		for c := range l.conns {
			held[c.addr]++
		}
		for c := range l.conns {
			q := c.quiet.Load()
			if q == connBusy {
				continue
			}
			if victim == nil || held[c.addr] > held[victim.addr] || held[c.addr] == held[victim.addr] && q < victim.quiet.Load() {
				victim = c
			}
		}
	}
	if victim != nil {
		// A request whose head is read from now on finds the connection
		// closed: it was quiet when chosen, and its client may send again
		// on a new one (RFC 9112 §9.5).
		victim.quiet.Store(connBusy)
	}
	l.mu.Unlock()
	if victim == nil {
		return false
	}
	victim.Close()
	return true
}

// connState follows http.Server.ConnState for a connection l accepted: a
// request's head read makes it busy; the end of its exchange, quiet
// again. Other states change nothing (a new connection is quiet since
// Accept; a closed one has left).
func (l *limitListener) connState(c net.Conn, s http.ConnState) {
	lc, ok := c.(*limitConn)
	if !ok {
		return
	}
	switch s {
	case http.StateActive, http.StateHijacked:
		lc.quiet.Store(connBusy)
	case http.StateIdle:
		lc.quiet.Store(int64(time.Since(l.epoch)))
		if l.waiting.Load() {
			select {
			case l.quieted <- struct{}{}:
			default:
			}
		}
	}
}

// exempted reports whether connections from addr (an IP address) are
// bound by the total alone.
func (l *limitListener) exempted(addr string) bool {
	if l.exempt == nil {
		return false
	}
	a, err := netip.ParseAddr(addr)
	return err == nil && l.exempt(a.Unmap())
}

// open returns the connections open now.
func (l *limitListener) open() int64 { return l.count.Load() }

// Close closes the listener and wakes a waiting Accept.
func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// NetConn returns the connection c wraps (answerConnOf).
func (c *limitConn) NetConn() net.Conn { return c.Conn }

// Close closes the connection and frees its place, once.
func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
