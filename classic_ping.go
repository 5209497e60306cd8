// Keep-alive pings to classic clients: with -ping-interval set, a classic
// session sends ping every interval once the client has said
// notifications/initialized, and notices a client that has not answered
// the previous one when the next is due, so within one interval of its
// silence. What follows depends on the transport:
//
//   - stdio: the silence is logged (warn, once per silent stretch), and
//     the session goes on. The client owns the process's stdin and its
//     life; a client busy for longer than the interval is not dead, and
//     when it is gone stdin ends and the server with it.
//   - HTTP (Streamable HTTP's GET stream, the 2024-11-05 /sse stream): the
//     silence is logged and the session ends, freeing its slot; the
//     client's next request names an ended session and gets 404, which
//     tells it to initialize again. A session with no stream open is not
//     pinged: the server has no way to send it anything.
//
// Off by default (-ping-interval 0): docs/GAPS.md says why.
//
// Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping
// ("Implementations SHOULD periodically issue pings to detect connection
// health", the frequency "SHOULD be configurable"; a missing response
// "MAY" end the connection), and the same page of 2024-11-05, 2025-03-26,
// 2025-06-18.

package main

import (
	"context"
	"time"
)

// methodPing is the ping request, in either direction.
const methodPing = "ping"

// keepAlive pings sess every s.pingInterval until the session or ctx
// ends; it is started once per session, by handleInitialized, and owned
// by the session (it returns when sess ends: stdio's end of input, an
// HTTP session's DELETE, expiry or shutdown).
func (s *server) keepAlive(ctx context.Context, sess *session) {
	ticker := time.NewTicker(s.pingInterval)
	defer ticker.Stop()
	answers := make(chan *message, 1)
	var waiting []string // the id of the ping not yet answered
	silent := false      // the silence was logged
	for {
		select {
		case <-sess.done:
			sess.forget(waiting)
			return
		case <-ctx.Done():
			sess.forget(waiting)
			return
		case <-answers:
			waiting, silent = nil, false
		case <-ticker.C:
			if len(sess.forget(waiting)) > 0 {
				if !silent {
					s.log.Warn("the client did not answer a ping within -ping-interval",
						"session", sess.id, "client", sess.clientName(), "interval_us", s.pingInterval.Microseconds())
					silent = true
				}
				if sess.sink == nil {
					// HTTP: end the session; the client's next request
					// names it and gets 404 (classic_http.go).
					sess.end()
					return
				}
			}
			if sess.sink == nil && !sess.hasStream() {
				waiting = nil
				continue
			}
			waiting = sess.expect(s.info.Name+"-ping-", 1, answers)
			sess.push(encodeRequest([]byte(waiting[0]), methodPing, []byte(`{}`)))
		}
	}
}
