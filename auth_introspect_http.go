//go:build !stdio

// Token introspection (RFC 7662) for access tokens that are not JWTs:
// the resource server asks the authorization server whether a token is
// active, authenticating as its own client, a bounded number at a time and
// each within a timeout. Answers are cached by the verifier
// (introspectionTTL), so a token costs one exchange a minute at most.
//
// Spec: RFC 7662 §2 (request and answer), §4 (security), RFC 6749 §2.3.1
// (client authentication), https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#token-handling.

package main

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

const (
	// maxIntrospections bounds the introspection exchanges in flight: a
	// flood of made-up opaque tokens costs the authorization server this
	// many at a time. One client address may hold its share of them
	// (-client-share, at least one): no principal exists before the
	// token is judged, and only valid answers are cached, so without a
	// share one address sending made-up tokens held every slot, and every
	// new valid token got 503 (review B, finding 1).
	maxIntrospections = 8

	// introspectWait bounds how long a token waits for an introspection
	// slot when its client's share has room but the server's slots are
	// all in flight: about one exchange with a healthy authorization
	// server. A client whose own share is full waits for nothing: what
	// holds the slots is its own.
	introspectWait = time.Second
)

// introspectRetry is the Retry-After of a token introspection could not
// judge.
const introspectRetry = time.Second

const (
	// introspectRate and introspectBurst bound the introspections one
	// client address may cause: 5 a second, 10 at once. No principal
	// exists before the token is judged, and every made-up opaque token
	// costs the authorization server an exchange under this server's own
	// credentials: bounded only in concurrency, one address without any
	// credential caused 2,231 a second, and against a provider's quota
	// the valid tokens of everyone else were refused. The rate is checked
	// before a slot is taken. An honest client's opaque token is
	// introspected once a minute at most (introspectionTTL), so one
	// address may bring 300 new tokens a minute (a NAT of many users).
	introspectRate  = 5
	introspectBurst = 10

	// introspectRefusalTTL is how long a token introspection refused is
	// refused again without asking (oauthVerifier.refusals): a client
	// repeating a revoked or made-up token costs one exchange a minute.
	// A token the authorization server newly activates is believed a
	// minute late at most, as a revoked one is (introspectionTTL).
	introspectRefusalTTL = time.Minute
)

// introspector asks the introspection endpoint about tokens. Safe for
// concurrent use.
type introspector struct {
	url        string
	id, secret string // this server's client credentials at the endpoint
	client     *http.Client
	timeout    time.Duration // one exchange, defaultFetchTimeout
	slots      *shareLimit   // maxIntrospections in flight, a share of them per client address
	rate       *rateLimiter  // introspectRate per client address
}

// newIntrospector returns the introspector of cfg, whose clients may
// each hold perClient of the maxIntrospections slots and cause
// introspectRate a second, on the clock now.
func newIntrospector(cfg *authConfig, client *http.Client, perClient int64, now func() time.Time) *introspector {
	in := &introspector{url: cfg.introspect, id: cfg.introspectID, secret: cfg.introspectPass, client: client,
		timeout: cfg.fetchTimeout, slots: newShareLimit(maxIntrospections, perClient),
		rate: newRateLimiter(introspectRate, introspectBurst, now)}
	if in.timeout <= 0 {
		in.timeout = defaultFetchTimeout
	}
	return in
}

// introspect asks whether tok, presented by client (its share key:
// its address), is active and returns its claims. A token the endpoint
// calls inactive is refused; a busy, slow, failing or garbled endpoint
// makes the token unverifiable (503), not invalid, and so does a client
// past its rate (introspectRate, checked first), one holding its share
// of the slots, or one that waited introspectWait for a slot in vain
// (TestAttackIntrospectionFlood).
// [RFC 7662 §2.1]: https://www.rfc-editor.org/rfc/rfc7662#section-2.1
// [RFC 7662 §4]: https://www.rfc-editor.org/rfc/rfc7662#section-4
func (in *introspector) introspect(ctx context.Context, tok, client string) (tokenClaims, *tokenError) {
	var c tokenClaims
	if ok, retry := in.rate.allow(client); !ok {
		return c, &tokenError{reason: "introspection unavailable", detail: "this client's introspections pass its rate", unavailable: true, retry: retry}
	}
	if !in.slots.waitForTotal(ctx, client, 1, introspectWait) {
		detail := "too many introspections in flight"
		if in.slots.shareFull(client, 1) {
			detail = "this client has its share of introspections in flight"
		}
		return c, &tokenError{reason: "introspection unavailable", detail: detail, unavailable: true, retry: introspectRetry}
	}
	defer in.slots.give(client, 1)
	ctx, cancel := context.WithTimeout(ctx, in.timeout)
	defer cancel()
	form := url.Values{"token": {tok}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.url, strings.NewReader(form.Encode()))
	if err != nil {
		return c, in.unavailable(err.Error())
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	// RFC 6749 §2.3.1: the id and secret are form-encoded before Basic.
	req.SetBasicAuth(url.QueryEscape(in.id), url.QueryEscape(in.secret))
	status, _, body, err := authExchange(in.client, req, maxMetadataBytes)
	switch {
	case err != nil:
		return c, in.unavailable(err.Error())
	case status != http.StatusOK:
		return c, in.unavailable("status " + strconv.Itoa(status))
	}
	members, err := authObject(body, claimNames)
	if err != nil {
		return c, in.unavailable("answer: " + err.Error())
	}
	active := false
	for _, m := range members {
		switch m.name {
		case "active":
			active = strings.TrimSpace(string(m.value)) == "true"
		case "token_type":
			// A refresh token presented as an access token is refused.
			tt, _ := jsonString(m.value)
			switch strings.ToLower(tt) {
			case "bearer", "access_token", "urn:ietf:params:oauth:token-type:access_token":
			default:
				return c, refuse("wrong token type", "introspection token_type "+strconv.Quote(tt))
			}
		}
	}
	if !active {
		return c, refuse("inactive token", "introspection says inactive")
	}
	return parseClaims(body)
}

// unavailable is the error of an introspection that could not be done.
func (in *introspector) unavailable(detail string) *tokenError {
	return &tokenError{reason: "introspection unavailable", detail: in.url + ": " + detail, unavailable: true, retry: introspectRetry}
}
