// Keep-alive pings to classic clients (-ping-interval, off by default: docs/GAPS.md).
//
// Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping

package main

import (
	"context"
	"time"
)

// methodPing is the ping request, in either direction.
const methodPing = "ping"

// minPingInterval is the shortest -ping-interval run accepts (0, never, aside): the ping page
// warns against excessive pings, and a client has one interval to answer, so one shorter than
// a busy client's pause would end its HTTP session for nothing. TestPingIntervalFlag.
// [§Implementation Considerations]: https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping#implementation-considerations
const minPingInterval = time.Second

// keepAlive pings sess every s.pingInterval, once the client has sent
// notifications/initialized, until sess or ctx ends, and notices a ping unanswered when the
// next is due. A silent client is logged once per silence; on stdio the session goes on (the
// client owns stdin and the process), over HTTP it ends and the client's next request gets
// 404. A session with no stream open is not pinged. TestKeepAlivePings.
func (s *server) keepAlive(ctx context.Context, sess *session) {
	ticker := time.NewTicker(s.pingInterval)
	defer ticker.Stop()
	answers := make(chan *message, 1)
	var waiting []string // the id of the ping not yet answered
	defer func() { sess.forget(waiting) }()
	silent := false // the silence was logged
	for {
		select {
		case <-sess.done:
			return
		case <-ctx.Done():
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
				if sess.peer.silent() {
					sess.endWithRequests() // as the session store ends one
					return
				}
			}
			if !sess.peer.streaming() {
				waiting = nil
				continue
			}
			waiting = sess.expect(s.info.Name+"-ping-", 1, answers)
			sess.push(encodeRequest([]byte(waiting[0]), methodPing, []byte(`{}`)))
		}
	}
}
