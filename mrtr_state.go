// requestState, the MRTR continuation token: sealing, opening, and the binding to one request
// and caller. docs/SECURITY.md ("requestState") states the format and what each check stops.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#server-requirements-basic-workflow,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#error-handling,
// SEP-2322 (Multi Round-Trip Requests); RFC 2104 (HMAC).

package main

import (
	"bytes"
	"cmp"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
)

// maxRequestStateBytes bounds the encoded requestState sent or accepted, checked before anything
// is decoded: answers accumulate in it (256 KiB: dozens of form answers, a few sampled texts).
const maxRequestStateBytes = 256 << 10

// stateVersion is requestState's first byte; a new layout or MAC input changes it, failing old state.
const stateVersion = 1

// stateMinKeyBytes is the shortest signing secret accepted: 256 bits, the HMAC-SHA256 output size.
const stateMinKeyBytes = 32

// defaultStateTTL is how long requestState is valid: time to answer a form, yet bounded replay.
const defaultStateTTL = 10 * time.Minute

// stateSealer signs and verifies requestState; it is immutable after newStateSealer and safe
// for concurrent use. Layout (base64url, no padding):
//
//	version(1) | expiry unix seconds(8, big endian) | payload JSON | HMAC-SHA256(32)
//
// The MAC also covers requestBinding, which is not in the token: state presented on another
// request or by another caller fails to verify.
type stateSealer struct {
	key    func() []byte // the signing key, derived once
	random bool          // the key was drawn for this process: see open
	ttl    time.Duration
	now    func() time.Time
}

// newStateSealer derives the signing key from secret, or draws a random one when secret is nil:
// state then does not survive a restart and is not accepted by other replicas.
func newStateSealer(secret []byte, ttl time.Duration, now func() time.Time) stateSealer {
	random := secret == nil
	// Derived on first use: most processes never sign state (cold start, docs/PERFORMANCE.md).
	key := sync.OnceValue(func() []byte {
		if random {
			secret = make([]byte, stateMinKeyBytes)
			rand.Read(secret) // never fails (crypto/rand, Go 1.24+)
		}
		// A purpose-bound key, so the operator's secret may serve other uses.
		mac := hmac.New(sha256.New, secret)
		mac.Write([]byte(serverName + " requestState v1"))
		return mac.Sum(nil)
	})
	if now == nil {
		now = time.Now
	}
	// 0 is unset; -state-ttl cannot be negative (run refuses it).
	return stateSealer{key: key, random: random, ttl: cmp.Or(ttl, defaultStateTTL), now: now}
}

// statePayload is the signed content of a requestState: JSON, read only once the MAC verifies.
type statePayload struct {
	Answers map[string]stateAnswer `json:"a,omitempty"` // every answer so far
	Asked   map[string]stateAsk    `json:"q,omitempty"` // what the last round asked
	Data    string                 `json:"d,omitempty"` // the handler's WithState
}

// stateAnswer is one accumulated answer.
type stateAnswer struct {
	Method string          `json:"m"`
	Value  json.RawMessage `json:"v"`
}

// stateAsk is one request of the last round, enough to check its answer; Mode is set for URL mode.
type stateAsk struct {
	Method string          `json:"m"`
	Mode   string          `json:"o,omitempty"`
	Schema json.RawMessage `json:"s,omitempty"`
}

// seal encodes and signs p for the request with binding.
func (st stateSealer) seal(p statePayload, binding [sha256.Size]byte) (string, error) {
	payload, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("seal requestState: %w", err)
	}
	buf := make([]byte, 9, 9+len(payload)+sha256.Size)
	buf[0] = stateVersion
	binary.BigEndian.PutUint64(buf[1:9], uint64(st.now().Add(st.ttl).Unix()))
	buf = append(buf, payload...)
	buf = append(buf, st.mac(buf, binding)...)
	token := base64.RawURLEncoding.EncodeToString(buf)
	if len(token) > maxRequestStateBytes {
		return "", fmt.Errorf("seal requestState: %d bytes exceeds %d (too many or too large answers)", len(token), maxRequestStateBytes)
	}
	return token, nil
}

// mac is HMAC-SHA256 over the binding, then version, expiry and payload.
func (st stateSealer) mac(header []byte, binding [sha256.Size]byte) []byte {
	m := hmac.New(sha256.New, st.key())
	m.Write(binding[:])
	m.Write(header)
	return m.Sum(nil)
}

// open verifies token for the request with binding and returns its payload; every failure is
// -32602. Nothing is parsed before the MAC verifies (hmac.Equal), expiry (MAC-covered) after. With
// a random key a bad MAC likely means another or a restarted process: the message says so first
// (TestRetryAfterRestart).
func (st stateSealer) open(token string, binding [sha256.Size]byte) (statePayload, *rpcError) {
	var p statePayload
	if len(token) > maxRequestStateBytes {
		return p, invalidParams("invalid params: requestState longer than %d bytes", maxRequestStateBytes)
	}
	// Canonical spelling only: the decoder skips CR and LF; Strict refuses nonzero trailing bits.
	raw, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || strings.ContainsAny(token, "\r\n") || len(raw) < 9+sha256.Size || raw[0] != stateVersion {
		return p, invalidParams("invalid params: requestState is malformed")
	}
	body, sum := raw[:len(raw)-sha256.Size], raw[len(raw)-sha256.Size:]
	if !hmac.Equal(sum, st.mac(body, binding)) {
		if st.random {
			return p, invalidParams("invalid params: requestState does not verify: most likely another or a restarted server process issued it (this one's key is random per process: its operator sets -state-key-file); else it was altered, or was issued for another request, arguments or caller")
		}
		return p, invalidParams("invalid params: requestState does not verify: it was altered, or was issued for another request, arguments or caller")
	}
	expiry := int64(binary.BigEndian.Uint64(body[1:9]))
	if st.now().Unix() > expiry {
		return p, invalidParams("invalid params: requestState expired; start the request again")
	}
	if err := json.Unmarshal(body[9:], &p); err != nil {
		return p, invalidParams("invalid params: requestState is malformed")
	}
	return p, nil
}

// requestBinding digests the method, target (the name or URI of its target param), canonical
// arguments and caller.binding: state cannot be replayed on another request or by another caller.
// [§Server Requirements]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#server-requirements-basic-workflow
func requestBinding(req *request) [sha256.Size]byte {
	h := sha256.New()
	field := func(b []byte) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	field([]byte(req.method))
	target, _ := jsonString(req.param(methods[req.method].target.param()))
	field([]byte(target))
	field(canonicalJSON(req.param("arguments")))
	if owner := req.caller.binding(); owner == "" {
		field([]byte{0}) // anonymous: stdio, or HTTP without auth
	} else {
		field(append([]byte{1}, owner...))
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// canonicalJSON re-encodes arguments with sorted keys, no space, numbers as sent; absent, null: {}.
func canonicalJSON(raw []byte) []byte {
	if raw == nil || jsonKind(raw) == 'n' {
		return []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw // rejected later by the handler; bind the bytes as sent
	}
	out, _ := json.Marshal(v) // decoded JSON (json.Number included) always encodes
	return out
}
