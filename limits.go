// Operating limits of every transport: how many requests run at once, how fast a principal
// may invoke tools, how long a request may run (docs/RELIABILITY.md lists each).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/tools#security-considerations
// (servers MUST rate limit tool invocations),
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation#timeouts,
// https://modelcontextprotocol.io/specification/2026-07-28/basic#error-codes.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	// defaultRequestTimeout bounds one request's handler, progress or not.
	// [§Timeouts]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation#timeouts
	defaultRequestTimeout = 5 * time.Minute

	// defaultMaxRequests bounds the requests served at once: per stdio connection (the reader
	// stops) and in total over HTTP (a request waits up to httpQueueWait, then 503).
	defaultMaxRequests = maxInFlight

	// defaultHTTPRate and defaultHTTPBurst are the tools/call rate limit per caller over HTTP
	// without -rate-limit, ten times what a model-driven client needs; stdio is unlimited
	// unless -rate-limit is given.
	defaultHTTPRate  = 50
	defaultHTTPBurst = 100

	// maxRateBuckets bounds the principals the rate limiter remembers; past it, refilled
	// buckets are dropped, else new principals share one.
	maxRateBuckets = 4096

	// maxParamStringBytes bounds a string parameter the server looks up (names, URIs, versions...).
	maxParamStringBytes = maxURILength
)

// JSON-RPC error codes this server allocates for overload, outside -32768..-32000 as the spec
// asks, ending in the HTTP status that carries them (docs/RELIABILITY.md, "Error codes chosen
// for overload"). A rate-limited tools/call is a protocol error: the tool never ran, and the
// client, not the model, should back off.
// [§Error Codes]: https://modelcontextprotocol.io/specification/2026-07-28/basic#error-codes
// [§Error Handling]: https://modelcontextprotocol.io/specification/2026-07-28/server/tools#error-handling
const (
	codeRateLimited = -31429
	codeServerBusy  = -31503
)

// limitConfig is the limits set on the command line.
type limitConfig struct {
	maxRequests int
	rate        float64 // tool calls per second per principal; 0 is off
	burst       int
	clientShare int // percent of each global limit one client may hold (limits_share.go)
}

// limitFlags registers the limit flags on fs, landing in c.
func limitFlags(fs *flag.FlagSet, c *limitConfig) {
	fs.IntVar(&c.maxRequests, "max-requests", defaultMaxRequests, "requests served at once: per stdio connection, and in total over HTTP (`n`)")
	fs.Func("rate-limit", "tools/call invocations per second per caller (`rate`, e.g. 20 or 20/s); 0 turns rate limiting off (default 50 over HTTP, off on stdio)", func(v string) error {
		r, err := strconv.ParseFloat(strings.TrimSuffix(v, "/s"), 64)
		if err != nil || r < 0 || math.IsInf(r, 0) || math.IsNaN(r) {
			return fmt.Errorf("want a non-negative number of calls per second, got %q", v)
		}
		c.rate = r
		return nil
	})
	fs.IntVar(&c.burst, "rate-burst", 0, "tools/call invocations a caller may make at once before -rate-limit applies (`n`); 0 means max(1, rate), or 100 with the default HTTP rate")
	fs.IntVar(&c.clientShare, "client-share", defaultClientShare, "the part of each global limit one client (its principal, else its IP address) may hold, in `percent`; 100 turns shares off")
}

// check reports a flag value that cannot work.
func (c *limitConfig) check() error {
	if c.maxRequests <= 0 {
		return errors.New("-max-requests must be positive")
	}
	if c.burst < 0 {
		return errors.New("-rate-burst must not be negative")
	}
	if c.clientShare < 1 || c.clientShare > 100 {
		return errors.New("-client-share must be a percentage from 1 to 100")
	}
	return nil
}

// deriveRate settles the tools/call rate limit: on by default over HTTP,
// off on stdio. A -rate-burst without a rate limit is refused.
func (c *limitConfig) deriveRate(set map[string]bool, http bool) error {
	if http && !set["rate-limit"] {
		c.rate = defaultHTTPRate
		if !set["rate-burst"] {
			c.burst = defaultHTTPBurst
		}
	}
	if c.rate == 0 && c.burst > 0 {
		if set["rate-limit"] {
			return errors.New("-rate-burst has no effect with -rate-limit 0 (rate limiting off)")
		}
		return errors.New("-rate-burst has no effect on stdio without -rate-limit (stdio is not rate limited by default)")
	}
	return nil
}

// rateLimiter is one token bucket per principal; safe for concurrent use.
// [§Security Considerations]: https://modelcontextprotocol.io/specification/2026-07-28/server/tools#security-considerations
type rateLimiter struct {
	rate       float64 // tokens added per second
	burst      float64 // bucket size
	maxBuckets int     // maxRateBuckets; tests lower it
	now        func() time.Time

	mu       sync.Mutex // guards buckets, overflow
	buckets  map[string]*tokenBucket
	overflow tokenBucket // shared by principals beyond maxBuckets
}

// tokenBucket is one allowance (a principal's, a request's notices) as of last.
type tokenBucket struct {
	tokens float64
	last   time.Time
}

// newRateLimiter returns a limiter for rate calls per second with the given burst (0 means
// max(1, rate)), or nil when rate is 0 (off).
func newRateLimiter(rate float64, burst int, now func() time.Time) *rateLimiter {
	if rate <= 0 {
		return nil
	}
	if now == nil {
		now = time.Now
	}
	b := float64(burst)
	if burst == 0 {
		b = math.Max(1, math.Ceil(rate))
	}
	return &rateLimiter{rate: rate, burst: b, maxBuckets: maxRateBuckets, now: now, buckets: map[string]*tokenBucket{}}
}

// allow takes a token from principal's bucket, or returns false and how long until there is one.
func (l *rateLimiter) allow(principal string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b := l.buckets[principal]
	if b == nil {
		if len(l.buckets) >= l.maxBuckets {
			l.sweepLocked(now)
		}
		b = &l.overflow
		if len(l.buckets) < l.maxBuckets {
			b = &tokenBucket{} // starts full (take)
			l.buckets[principal] = b
		}
	}
	if b.take(now, l.burst, l.rate) {
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
	return false, max(wait, time.Millisecond)
}

// refill adds the tokens earned at rate per second since b.last, up to burst.
func (b *tokenBucket) refill(now time.Time, burst, rate float64) {
	if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = math.Min(burst, b.tokens+elapsed*rate)
		b.last = now
	}
}

// take reports whether b, refilled at rate per second up to burst, has a token at now, and
// takes it; a zero bucket starts full.
func (b *tokenBucket) take(now time.Time, burst, rate float64) bool {
	if b.last.IsZero() {
		b.tokens, b.last = burst, now
	}
	if b.refill(now, burst, rate); b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// sweepLocked drops the buckets that have refilled: a full bucket is the same as a new one,
// so forgetting it changes nothing for its principal.
func (l *rateLimiter) sweepLocked(now time.Time) {
	for p, b := range l.buckets {
		if b.refill(now, l.burst, l.rate); b.tokens >= l.burst {
			delete(l.buckets, p)
		}
	}
}

// rateLimited is the error of a call over its principal's rate.
func rateLimited(retry time.Duration) *rpcError {
	ms := retry.Milliseconds()
	return &rpcError{Code: codeRateLimited, Message: fmt.Sprintf("rate limited: retry after %d ms", ms),
		Data: map[string]int64{"retryAfterMs": ms}}
}

// timeoutCause ends a request context at -request-timeout (requestTimedOut).
type timeoutCause struct{ after time.Duration }

func (e *timeoutCause) Error() string { return fmt.Sprintf("request timed out after %v", e.after) }

// requestTimedOut is the -32603 of a request its timeout stopped, naming it and the log ref; or nil.
func (s *server) requestTimedOut(ctx context.Context, req *request) *rpcError {
	var tc *timeoutCause
	if !errors.As(context.Cause(ctx), &tc) {
		return nil
	}
	ref := s.nextRef()
	s.log.Warn("request timed out", append(req.logAttrs(), "ref", ref, "after_us", tc.after.Microseconds())...)
	return &rpcError{Code: codeInternalError, Message: fmt.Sprintf("request timed out after %v", tc.after),
		Data: map[string]int64{"timeoutMs": tc.after.Milliseconds(), "ref": ref}}
}
