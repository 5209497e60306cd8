// Rate limits on the notifications one request sends (req.Progress, req.Log): a token
// bucket per kind. A progress report without a token is held, replacing the one held (the
// latest is sent with the next token or before the result); a log line without one is
// dropped, and each run of drops is told in one warning. In t seconds a request sends at
// most progressBurst+progressRate*t+1 progress notifications, the last among them, and
// logBurst+logRate*t log lines (TestNotificationRateLimits).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/progress
// ("Implementations SHOULD implement rate limiting to prevent flooding"),
// https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging
// (servers SHOULD rate limit log messages).

package main

import "time"

// The notification limits of one request (docs/RELIABILITY.md): bursts a
// handler reporting step by step never meets, and rates a client can show.
const (
	progressBurst = 20
	progressRate  = 10
	logBurst      = 100
	logRate       = 10
)

// noticeLimiter holds one request's notification budget, owned by the goroutine serving it.
type noticeLimiter struct {
	progressTokens tokenBucket
	heldProgress   []byte // the latest report held back, encoded; nil when none
	logTokens      tokenBucket
	dropped        int // log lines dropped since the last told
}

// progress returns the progress notification to send now for msg, or nil when it is held
// back (coalesced) until a token is free.
func (l *noticeLimiter) progress(now time.Time, msg []byte) []byte {
	l.heldProgress = nil
	if !l.progressTokens.take(now, progressBurst, progressRate) {
		l.heldProgress, msg = msg, nil
	}
	return msg
}

// logLine reports whether a log line may be sent now, taking a token; a line that may not
// is counted as dropped.
func (l *noticeLimiter) logLine(now time.Time) bool {
	if !l.logTokens.take(now, logBurst, logRate) {
		l.dropped++
		return false
	}
	return true
}

// flushNotices sends what the limits held back (the latest progress report, how many log
// lines were dropped) once the handler has returned.
func (r *request) flushNotices() {
	if r.send == nil {
		return
	}
	if msg := r.notices.heldProgress; msg != nil {
		r.notices.heldProgress = nil
		r.send(msg)
	}
	r.tellDropped()
}

// tellDropped sends one warning saying how many log lines the rate limit dropped, if any
// were and the client reads warnings.
func (r *request) tellDropped() {
	n := r.notices.dropped
	r.notices.dropped = 0
	if n == 0 || !r.logsAt(levelWarning) {
		return
	}
	r.send(encodeNotification("notifications/message", logParams{Level: levelWarning.String(), Logger: r.server.info.Name,
		Data: map[string]any{"message": "log messages dropped: more than the request's rate limit", "dropped": n}}))
}
