// Multi round-trip requests (MRTR): how a handler asks the client for a
// user's answer (elicitation), a model completion (sampling) or the client's
// roots without keeping anything in server memory between the rounds.
//
// A handler reads answers with req.Input(key) and, when one it needs is
// missing, returns req.NeedInput(...) built from elicitForm, elicitURL,
// createMessage and listRoots. The dispatcher turns that into an
// InputRequiredResult whose requestState carries, signed, every answer the
// client has given so far; the client retries the original request with
// inputResponses and that requestState, and the handler runs again from the
// top with all answers available.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr,
// https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation,
// https://modelcontextprotocol.io/specification/2026-07-28/client/sampling,
// https://modelcontextprotocol.io/specification/2026-07-28/client/roots,
// https://modelcontextprotocol.io/specification/2026-07-28/basic#error-codes (-32021),
// SEP-2322 (Multi Round-Trip Requests).

package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The three requests a server may put in inputRequests.
// [§Server Requirements]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#server-requirements-basic-workflow
const (
	methodElicit        = "elicitation/create"
	methodCreateMessage = "sampling/createMessage"
	methodListRoots     = "roots/list"
)

// The two elicitation modes.
const (
	elicitModeForm = "form"
	elicitModeURL  = "url"
)

// The three elicitation actions.
// [§Response Actions]: https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#response-actions
const (
	actionAccept  = "accept"
	actionDecline = "decline"
	actionCancel  = "cancel"
)

// ---------------------------------------------------------------------------
// The handler API: asking.

// inputRequest is one entry of InputRequiredResult.inputRequests under a
// key the handler chooses. Build it with elicitForm, elicitURL,
// createMessage or listRoots; a builder that finds a programming error
// (say an unsupported requestedSchema) records it in err, and the
// dispatcher answers -32603 and logs it rather than sending a bad request.
type inputRequest struct {
	key    string
	method string
	mode   string          // elicitation: elicitModeForm or elicitModeURL
	params json.RawMessage // the request's params, encoded
	schema json.RawMessage // form mode: requestedSchema, kept to check the answer
	err    error
}

// elicitForm asks the user to fill in a form. requestedSchema is JSON text
// of the restricted schema the spec allows: an object whose properties are
// strings, numbers, integers, booleans or enums (single or multi select),
// with no nesting. Never ask for passwords or tokens this way (the spec
// forbids it); use elicitURL.
// [§Form Mode]: https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#form-mode-elicitation-requests
func elicitForm(key, message, requestedSchema string) inputRequest {
	q := inputRequest{key: key, method: methodElicit, mode: elicitModeForm}
	if _, err := parseRequestedSchema([]byte(requestedSchema)); err != nil {
		q.err = fmt.Errorf("elicitForm %q: %w", key, err)
		return q
	}
	q.schema = compactJSON([]byte(requestedSchema))
	q.params = mustMarshal(struct {
		Mode            string          `json:"mode"`
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}{elicitModeForm, message, q.schema})
	return q
}

// elicitURL asks the user to open url and complete an interaction out of
// band (a sign-in, a payment). An "accept" answer means the user agreed to
// open it, not that the interaction finished: check that yourself (the
// server must also verify that whoever opens the URL is the user who was
// asked). The URL must not carry credentials or personal data.
// [§URL Mode]: https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#url-mode-elicitation-requests
func elicitURL(key, message, link string) inputRequest {
	q := inputRequest{key: key, method: methodElicit, mode: elicitModeURL}
	if u, err := url.Parse(link); err != nil || !u.IsAbs() || u.Host == "" {
		q.err = fmt.Errorf("elicitURL %q: %q is not an absolute URL", key, link)
		return q
	}
	q.params = mustMarshal(struct {
		Mode    string `json:"mode"`
		Message string `json:"message"`
		URL     string `json:"url"`
	}{elicitModeURL, message, link})
	return q
}

// samplingRequest is the params of sampling/createMessage. MaxTokens is
// required and must be positive (clients reject a non-integer).
// Known limitation: tool use in sampling (tools, toolChoice, gated by
// sampling.tools) and includeContext (deprecated) are not offered.
// [§Creating Messages]: https://modelcontextprotocol.io/specification/2026-07-28/client/sampling#creating-messages
type samplingRequest struct {
	Messages         []samplingMessage `json:"messages"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	MaxTokens        int               `json:"maxTokens"`
	Temperature      *float64          `json:"temperature,omitempty"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	ModelPreferences *modelPreferences `json:"modelPreferences,omitempty"`
}

// samplingMessage is one message of a sampling conversation.
type samplingMessage struct {
	Role    string  `json:"role"` // "user" or "assistant"
	Content content `json:"content"`
}

// modelPreferences are the server's advisory hints for model selection.
type modelPreferences struct {
	Hints                []modelHint `json:"hints,omitempty"`
	CostPriority         *float64    `json:"costPriority,omitempty"`
	SpeedPriority        *float64    `json:"speedPriority,omitempty"`
	IntelligencePriority *float64    `json:"intelligencePriority,omitempty"`
}

// modelHint names a model (or a substring of one) the server would like.
type modelHint struct {
	Name string `json:"name"`
}

// userText is a one-message sampling conversation: the user says text.
func userText(text string) []samplingMessage {
	return []samplingMessage{{Role: "user", Content: textContent(text)}}
}

// createMessage asks the client to sample its model. Sampling is
// deprecated in 2026-07-28 (SEP-2577) but still in the spec.
func createMessage(key string, p samplingRequest) inputRequest {
	q := inputRequest{key: key, method: methodCreateMessage}
	switch {
	case len(p.Messages) == 0:
		q.err = fmt.Errorf("createMessage %q: no messages", key)
	case p.MaxTokens <= 0:
		q.err = fmt.Errorf("createMessage %q: MaxTokens must be positive", key)
	}
	for _, m := range p.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			q.err = fmt.Errorf("createMessage %q: role %q is not user or assistant", key, m.Role)
		}
	}
	if q.err != nil {
		return q
	}
	params, err := json.Marshal(p)
	if err != nil {
		q.err = fmt.Errorf("createMessage %q: %w", key, err)
		return q
	}
	q.params = params
	return q
}

// listRoots asks the client for its roots. Roots are deprecated in
// 2026-07-28 (SEP-2577) but still in the spec.
func listRoots(key string) inputRequest {
	return inputRequest{key: key, method: methodListRoots, params: json.RawMessage(`{}`)}
}

// inputRequired is the error a handler returns to ask for input: the
// dispatcher answers with an InputRequiredResult instead of an error. Only
// tools/call, prompts/get and resources/read may return it; anywhere else
// it is a programming error answered -32603.
type inputRequired struct {
	requests []inputRequest
	data     string
}

// Error makes inputRequired an error; the text never reaches the peer.
func (e *inputRequired) Error() string { return "input required" }

// NeedInput returns the outcome "ask the client for these, then call me
// again". Several requests may go in one round; keys must be unique. With
// no requests it asks the client to retry at once, carrying only the
// state (see WithState).
func (r *request) NeedInput(requests ...inputRequest) *inputRequired {
	return &inputRequired{requests: requests}
}

// WithState attaches data for the handler's next round, read back with
// req.State(). It travels signed inside requestState: the client cannot
// change it, but can read it (base64), so keep secrets out.
func (e *inputRequired) WithState(data string) *inputRequired {
	e.data = data
	return e
}

// ---------------------------------------------------------------------------
// The handler API: reading answers.

// inputResponse is the client's answer to one input request, checked
// against the request's kind. Only the fields of its Method are set.
type inputResponse struct {
	Method string // methodElicit, methodCreateMessage or methodListRoots

	// elicitation/create
	Action  string         // actionAccept, actionDecline or actionCancel
	Content map[string]any // form values on accept: string, json.Number, bool, []any of strings

	// sampling/createMessage
	Role       string
	Model      string
	StopReason string
	Text       string // the text blocks of the sampled content, joined

	// roots/list
	Roots []root

	raw json.RawMessage // compact JSON as received, carried in requestState
}

// root is one entry of ListRootsResult.
type root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// Accepted reports whether an elicitation answer is "accept".
func (a *inputResponse) Accepted() bool { return a != nil && a.Action == actionAccept }

// Bool returns the accepted form value name as a boolean, false otherwise.
func (a *inputResponse) Bool(name string) bool {
	b, _ := a.value(name).(bool)
	return b
}

// String returns the accepted form value name as a string, "" otherwise.
func (a *inputResponse) String(name string) string {
	s, _ := a.value(name).(string)
	return s
}

// value returns the form value name of an accepted answer, or nil.
func (a *inputResponse) value(name string) any {
	if !a.Accepted() {
		return nil
	}
	return a.Content[name]
}

// Input returns the client's answer for key, from this request's
// inputResponses or from an earlier round (carried in the verified
// requestState), or nil when the client has not answered it. An answer
// the server asked for in the previous round has been checked against
// that request's kind (and form schema) before the handler runs.
func (r *request) Input(key string) *inputResponse { return r.input.answers[key] }

// State returns the data the handler attached with WithState in the
// previous round, "" when none.
func (r *request) State() string { return r.input.data }

// CanAsk reports whether this request's client capabilities allow q, so a
// handler can choose among alternatives instead of failing with -32021.
// In the classic era they are what the client declared at initialize, and
// what the negotiated version defines.
func (r *request) CanAsk(q inputRequest) bool { return len(r.missing(q)) == 0 }

// inputRound is what the dispatcher decoded of a request's MRTR params.
type inputRound struct {
	answers map[string]*inputResponse
	data    string
}

// ---------------------------------------------------------------------------
// Dispatch: reading a retry, and answering input_required.

// maxRequestStateBytes bounds the encoded requestState a client may send
// back (and the server will issue). Answers accumulate in it across rounds;
// 256 KiB holds dozens of form answers or a few sampled texts, and is
// checked before anything is decoded.
const maxRequestStateBytes = 256 << 10

// beginInput decodes the MRTR members of a tools/call, prompts/get or
// resources/read: requestState is verified (integrity, binding, expiry)
// before any of it is parsed, and inputResponses is checked against what
// the previous round asked.
// [§Error Handling]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#error-handling
//
// The request's binding (requestBinding) is computed only where state is
// opened or sealed: it re-encodes the arguments canonically and hashes
// them, which was more than half the CPU of an ordinary 1 MiB tools/call
// that carries no state and asks for no input (issue 8).
func (s *server) beginInput(req *request) *rpcError {
	var st statePayload
	if raw := req.param("requestState"); raw != nil && jsonKind(raw) != 'n' {
		token, ok := jsonString(raw)
		if !ok {
			return invalidParams("invalid params: requestState must be a string")
		}
		var rerr *rpcError
		if st, rerr = s.states.open(token, requestBinding(req)); rerr != nil {
			return rerr
		}
	}
	req.input.data = st.Data
	answers := map[string]*inputResponse{}
	for key, a := range st.Answers {
		resp, err := parseInputResponse(a.Method, nil, a.Value)
		if err != nil {
			// Signed by this server: only a changed parser gets here.
			return invalidParams("invalid params: requestState answer %q: %v", key, err)
		}
		answers[key] = resp
	}
	raw := req.param("inputResponses")
	if raw != nil && jsonKind(raw) != 'n' {
		if jsonKind(raw) != '{' {
			return invalidParams("invalid params: inputResponses must be an object")
		}
		members, _ := objectMembers(raw)
		for _, m := range members {
			if ask, asked := st.Asked[m.name]; asked {
				resp, err := parseInputResponse(ask.Method, ask.Schema, m.value)
				if err != nil {
					return invalidParams("invalid params: inputResponses[%q]: %v", m.name, err)
				}
				answers[m.name] = resp
				continue
			}
			if _, known := answers[m.name]; known {
				continue // answered in an earlier round; the signed answer wins
			}
			// Not asked in the last round (or no state at all): keep it
			// if it is a well-formed answer of some kind, ignore it
			// otherwise, as the spec asks for unrecognised input.
			if resp, err := parseInputResponse(guessInputMethod(m.value), nil, m.value); err == nil {
				answers[m.name] = resp
			}
		}
	}
	req.input.answers = answers
	return nil
}

// mayAsk is the one gate for "may I ask the client for this?", in both
// eras (inputRequiredResult, and bridgeInput in classic_bridge.go): the
// method may answer input_required, every request was built without a
// programming error, keys are non-empty and unique, and the client
// declared every capability the requests need in a protocol version that
// defines them (request.missing; else -32021, which says when the
// version is the reason). It returns the keys asked. Errors other than
// *rpcError are programming errors (-32603, logged).
// [§Supported Requests]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#supported-requests
func (s *server) mayAsk(req *request, m method, need *inputRequired) (asked map[string]bool, err error) {
	if !m.mrtr {
		return nil, fmt.Errorf("handler asked for input on %s, which may not return input_required", req.method)
	}
	asked = map[string]bool{}
	var missing []string
	for _, q := range need.requests {
		if q.err != nil {
			return nil, q.err
		}
		if q.key == "" || asked[q.key] {
			return nil, fmt.Errorf("input request key %q is empty or repeated", q.key)
		}
		asked[q.key] = true
		missing = append(missing, req.missing(q)...)
	}
	if len(missing) > 0 {
		rerr := missingCapabilityError(missing)
		if !atLeast(req.version, version20250618) && containsString(missing, "elicitation.form") {
			rerr.Message += " (protocol version " + req.version + " has no elicitation)"
		} else if !atLeast(req.version, version20251125) && containsString(missing, "elicitation.url") {
			rerr.Message += " (protocol version " + req.version + " has no url mode elicitation)"
		}
		return nil, rerr
	}
	return asked, nil
}

// missing names the capabilities q needs that the request's client lacks:
// in the modern era those its _meta did not declare; in the classic era
// those it did not declare at initialize, or that the negotiated version
// does not define (session.missingFor).
func (r *request) missing(q inputRequest) []string {
	if r.session != nil {
		return r.session.missingFor(r.version, q)
	}
	return missingCapability(clientCaps(r.meta.capabilities), q)
}

// inputRequiredResult turns a handler's NeedInput into the interim result:
// the gate (mayAsk) first, then the next state, signed.
// [§Supported Requests]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#supported-requests
func (s *server) inputRequiredResult(req *request, m method, need *inputRequired) (result, error) {
	seen, err := s.mayAsk(req, m, need)
	if err != nil {
		return result{}, err
	}
	next := statePayload{Data: need.data}
	for key, a := range req.input.answers {
		if seen[key] {
			continue // asked again: the new answer replaces it
		}
		if next.Answers == nil {
			next.Answers = map[string]stateAnswer{}
		}
		next.Answers[key] = stateAnswer{Method: a.Method, Value: a.raw}
	}
	var body bytes.Buffer
	body.WriteByte('{')
	if len(need.requests) > 0 {
		next.Asked = map[string]stateAsk{}
		body.WriteString(`"inputRequests":{`)
		for i, q := range need.requests {
			if i > 0 {
				body.WriteByte(',')
			}
			body.WriteString(strconv.Quote(q.key))
			body.WriteString(`:{"method":`)
			body.WriteString(strconv.Quote(q.method))
			body.WriteString(`,"params":`)
			body.Write(q.params)
			body.WriteByte('}')
			next.Asked[q.key] = stateAsk{Method: q.method, Schema: q.schema}
		}
		body.WriteString(`},`)
	}
	token, err := s.states.seal(next, requestBinding(req))
	if err != nil {
		return result{}, err
	}
	body.WriteString(`"requestState":`)
	body.WriteString(strconv.Quote(token))
	body.WriteByte('}')
	return result{body: json.RawMessage(body.Bytes()), inputRequired: true}, nil
}

// clientCapsSet is what this server reads of ClientCapabilities.
type clientCapsSet struct {
	elicitForm, elicitURL, sampling, roots bool
}

// clientCaps reads the request's raw ClientCapabilities. "elicitation": {}
// means form mode only, for backwards compatibility.
// [§Capabilities]: https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#capabilities
func clientCaps(raw []byte) clientCapsSet {
	var c clientCapsSet
	members, err := objectMembers(raw)
	if err != nil {
		return c
	}
	for _, m := range members {
		if jsonKind(m.value) != '{' {
			continue
		}
		switch m.name {
		case "elicitation":
			modes, _ := objectMembers(m.value)
			named := false // a mode is named at all
			for _, mode := range modes {
				switch mode.name {
				case elicitModeForm:
					named, c.elicitForm = true, jsonKind(mode.value) == '{'
				case elicitModeURL:
					named, c.elicitURL = true, jsonKind(mode.value) == '{'
				}
			}
			if !named {
				c.elicitForm = true
			}
		case "sampling":
			c.sampling = true
		case "roots":
			c.roots = true
		}
	}
	return c
}

// missingCapability names the capability q needs that c lacks, as a
// dotted path ("elicitation.url"), or nothing.
func missingCapability(c clientCapsSet, q inputRequest) []string {
	switch {
	case q.method == methodElicit && q.mode == elicitModeURL && !c.elicitURL:
		return []string{"elicitation.url"}
	case q.method == methodElicit && q.mode != elicitModeURL && !c.elicitForm:
		return []string{"elicitation.form"}
	case q.method == methodCreateMessage && !c.sampling:
		return []string{"sampling"}
	case q.method == methodListRoots && !c.roots:
		return []string{"roots"}
	}
	return nil
}

// missingCapabilityError is MissingRequiredClientCapabilityError (-32021)
// with data.requiredCapabilities as a ClientCapabilities object.
// [§Per-request protocol fields]: https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
func missingCapabilityError(missing []string) *rpcError {
	has := func(name string) bool {
		for _, m := range missing {
			if m == name {
				return true
			}
		}
		return false
	}
	var b bytes.Buffer
	b.WriteString(`{"requiredCapabilities":{`)
	sep := ""
	if has("elicitation.form") || has("elicitation.url") {
		b.WriteString(`"elicitation":{`)
		modeSep := ""
		for _, mode := range []string{elicitModeForm, elicitModeURL} {
			if has("elicitation." + mode) {
				b.WriteString(modeSep + strconv.Quote(mode) + `:{}`)
				modeSep = ","
			}
		}
		b.WriteByte('}')
		sep = ","
	}
	for _, name := range []string{"sampling", "roots"} {
		if has(name) {
			b.WriteString(sep + strconv.Quote(name) + `:{}`)
			sep = ","
		}
	}
	b.WriteString(`}}`)
	names := map[string]bool{}
	var list []string
	for _, m := range missing {
		if !names[m] {
			names[m] = true
			list = append(list, m)
		}
	}
	return &rpcError{
		Code:    codeMissingCapability,
		Message: "missing required client capability: " + strings.Join(list, ", "),
		Data:    json.RawMessage(b.Bytes()),
	}
}

// ---------------------------------------------------------------------------
// requestState: sealing and opening.

// stateVersion is the first byte of every requestState; it changes when
// the layout or what the MAC covers changes, so old state fails cleanly.
const stateVersion = 1

// stateMinKeyBytes is the shortest secret accepted for signing state: 256
// bits, the HMAC-SHA256 output size.
const stateMinKeyBytes = 32

// defaultStateTTL is how long a requestState stays valid: long enough for
// a person to read and answer a form, short enough to bound replay.
const defaultStateTTL = 10 * time.Minute

// stateSealer signs and verifies requestState. It is immutable after
// newStateSealer and safe for concurrent use.
//
// Layout (base64url, no padding):
//
//	version(1) | expiry unix seconds(8, big endian) | payload JSON | HMAC-SHA256(32)
//
// The MAC covers version, expiry, the request binding (method, target,
// canonical arguments, principal: see requestBinding) and the payload.
// The binding is not in the token: presenting state on another request or
// as another principal simply fails verification.
type stateSealer struct {
	key []byte
	ttl time.Duration
	now func() time.Time
}

// newStateSealer derives the signing key from secret, or draws a random
// one when secret is nil: state then does not survive a restart and is
// not accepted by other replicas.
func newStateSealer(secret []byte, ttl time.Duration, now func() time.Time) stateSealer {
	if secret == nil {
		secret = make([]byte, stateMinKeyBytes)
		rand.Read(secret) // never fails (crypto/rand, Go 1.24+)
	}
	// A purpose-bound key, so the operator's secret may serve other uses.
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(serverName + " requestState v1"))
	if ttl <= 0 {
		ttl = defaultStateTTL
	}
	if now == nil {
		now = time.Now
	}
	return stateSealer{key: mac.Sum(nil), ttl: ttl, now: now}
}

// statePayload is the signed content of a requestState. It is JSON because
// it is read only after the MAC verified, i.e. it is this server's own
// output.
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

// stateAsk is one request of the last round, enough to check its answer.
type stateAsk struct {
	Method string          `json:"m"`
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
	m := hmac.New(sha256.New, st.key)
	m.Write(binding[:])
	m.Write(header)
	return m.Sum(nil)
}

// open verifies token for the request with binding and returns its
// payload. Size, layout and the MAC (hmac.Equal) are checked before any
// byte of the payload is parsed; expiry is checked after, as it is covered
// by the MAC. Every failure is -32602.
func (st stateSealer) open(token string, binding [sha256.Size]byte) (statePayload, *rpcError) {
	var p statePayload
	if len(token) > maxRequestStateBytes {
		return p, invalidParams("invalid params: requestState longer than %d bytes", maxRequestStateBytes)
	}
	// Only the canonical spelling is accepted: the decoder would skip CR
	// and LF, and Strict refuses non-zero trailing bits, so that no other
	// string opens as the same state.
	raw, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || strings.ContainsAny(token, "\r\n") || len(raw) < 9+sha256.Size || raw[0] != stateVersion {
		return p, invalidParams("invalid params: requestState is malformed")
	}
	body, sum := raw[:len(raw)-sha256.Size], raw[len(raw)-sha256.Size:]
	if !hmac.Equal(sum, st.mac(body, binding)) {
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

// requestBinding digests what identifies the originating request: the
// method, its target (tool or prompt name, resource URI), its arguments in
// canonical form (objects with sorted keys), and the principal, so state
// cannot be replayed on a different request or by a different caller.
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
	target := req.param("name")
	if req.method == "resources/read" {
		target = req.param("uri")
	}
	t, _ := jsonString(target)
	field([]byte(t))
	field(canonicalJSON(req.param("arguments")))
	if req.principal == "" {
		field([]byte{0}) // anonymous: stdio, or HTTP without auth
	} else {
		field(append([]byte{1}, req.principal...))
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// canonicalJSON re-encodes an arguments object with sorted keys and no
// space; absent and null mean {}. Numbers keep their literal text.
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
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

// ---------------------------------------------------------------------------
// Checking answers.

// guessInputMethod names the kind an unsolicited answer looks like, by the
// member only that kind has, or "" when none.
func guessInputMethod(raw []byte) string {
	members, err := objectMembers(raw)
	if err != nil {
		return ""
	}
	for _, m := range members {
		switch m.name {
		case "action":
			return methodElicit
		case "roots":
			return methodListRoots
		case "role", "model":
			return methodCreateMessage
		}
	}
	return ""
}

// parseInputResponse checks raw as the result of method: ElicitResult
// (against schema when given, i.e. form mode), CreateMessageResult or
// ListRootsResult. Member names are matched exactly; a name that imitates
// one by case folding is refused.
func parseInputResponse(method string, schema, raw []byte) (*inputResponse, error) {
	if jsonKind(raw) != '{' {
		return nil, errors.New("must be an object")
	}
	members, err := objectMembers(raw)
	if err != nil {
		return nil, errors.New("must be an object")
	}
	a := &inputResponse{Method: method, raw: compactJSON(raw)}
	switch method {
	case methodElicit:
		err = a.parseElicit(members, schema)
	case methodCreateMessage:
		err = a.parseCreateMessage(members)
	case methodListRoots:
		err = a.parseRoots(members)
	default:
		err = errors.New("is not an elicitation, sampling or roots result")
	}
	if err != nil {
		return nil, err
	}
	if method == methodElicit {
		// Keep only what was checked, so the copy carried forward in
		// requestState holds no field the server did not ask for.
		a.raw = mustMarshal(struct {
			Action  string         `json:"action"`
			Content map[string]any `json:"content,omitempty"`
		}{a.Action, a.Content})
	}
	return a, nil
}

// checkNames refuses members that imitate one of names by case folding.
func checkNames(members []member, names ...string) error {
	for _, m := range members {
		if known := foldedName(m.name, names...); known != "" {
			return fmt.Errorf("member %q is not %q", m.name, known)
		}
	}
	return nil
}

// parseElicit checks an ElicitResult.
// [§Response Actions]: https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#response-actions
func (a *inputResponse) parseElicit(members []member, schema []byte) error {
	if err := checkNames(members, "action", "content"); err != nil {
		return err
	}
	var content []byte
	for _, m := range members {
		switch m.name {
		case "action":
			a.Action, _ = jsonString(m.value)
		case "content":
			content = m.value
		}
	}
	switch a.Action {
	case actionAccept:
	case actionDecline, actionCancel:
		return nil // content is meaningless without accept, and dropped
	default:
		return errors.New(`elicitation result needs action "accept", "decline" or "cancel"`)
	}
	if content == nil || jsonKind(content) == 'n' {
		if schema != nil {
			if fields, _ := parseRequestedSchema(schema); len(fields) > 0 && hasRequired(fields) {
				return errors.New("accepted form result has no content")
			}
		}
		return nil
	}
	if jsonKind(content) != '{' {
		return errors.New("elicitation content must be an object")
	}
	dec := json.NewDecoder(bytes.NewReader(content))
	dec.UseNumber()
	if err := dec.Decode(&a.Content); err != nil {
		return errors.New("elicitation content must be an object")
	}
	for name, v := range a.Content {
		if !isFormValue(v) {
			return fmt.Errorf("elicitation content %q must be a string, number, boolean or array of strings", name)
		}
	}
	if schema != nil {
		fields, err := parseRequestedSchema(schema)
		if err != nil {
			return err
		}
		return checkFormContent(fields, a.Content)
	}
	return nil
}

// isFormValue reports whether v is a value ElicitResult.content allows.
func isFormValue(v any) bool {
	switch v := v.(type) {
	case string, json.Number, bool:
		return true
	case []any:
		for _, item := range v {
			if _, ok := item.(string); !ok {
				return false
			}
		}
		return true
	}
	return false
}

// parseCreateMessage checks a CreateMessageResult: role, model and content
// are required; Text collects the text blocks.
// [§Creating Messages]: https://modelcontextprotocol.io/specification/2026-07-28/client/sampling#creating-messages
func (a *inputResponse) parseCreateMessage(members []member) error {
	if err := checkNames(members, "role", "content", "model", "stopReason"); err != nil {
		return err
	}
	var content []byte
	hasModel := false
	for _, m := range members {
		switch m.name {
		case "role":
			a.Role, _ = jsonString(m.value)
		case "model":
			a.Model, hasModel = jsonString(m.value)
		case "stopReason":
			var ok bool
			if a.StopReason, ok = jsonString(m.value); !ok && jsonKind(m.value) != 'n' {
				return errors.New("sampling result stopReason must be a string")
			}
		case "content":
			content = m.value
		}
	}
	if a.Role != "assistant" && a.Role != "user" {
		return errors.New(`sampling result needs role "assistant" or "user"`)
	}
	if !hasModel {
		return errors.New("sampling result needs a model string")
	}
	var blocks [][]byte
	switch jsonKind(content) {
	case '{':
		blocks = [][]byte{content}
	case '[':
		var list []json.RawMessage
		if err := json.Unmarshal(content, &list); err != nil {
			return errors.New("sampling result content is malformed")
		}
		for _, b := range list {
			blocks = append(blocks, b)
		}
	default:
		return errors.New("sampling result needs content (a block or an array of blocks)")
	}
	var text strings.Builder
	for _, b := range blocks {
		fields, err := objectMembers(b)
		if err != nil {
			return errors.New("sampling result content blocks must be objects")
		}
		var typ, txt string
		hasType, hasText := false, false
		for _, f := range fields {
			switch f.name {
			case "type":
				typ, hasType = jsonString(f.value)
			case "text":
				txt, hasText = jsonString(f.value)
			}
		}
		if !hasType {
			return errors.New("sampling result content block needs a type")
		}
		if typ == "text" {
			if !hasText {
				return errors.New("sampling result text block needs text")
			}
			text.WriteString(txt)
		}
	}
	a.Text = text.String()
	return nil
}

// parseRoots checks a ListRootsResult. Root URIs must be file:// URIs.
// [§Root]: https://modelcontextprotocol.io/specification/2026-07-28/client/roots#root
func (a *inputResponse) parseRoots(members []member) error {
	if err := checkNames(members, "roots"); err != nil {
		return err
	}
	var list []byte
	for _, m := range members {
		if m.name == "roots" {
			list = m.value
		}
	}
	if jsonKind(list) != '[' {
		return errors.New("roots result needs a roots array")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(list, &items); err != nil {
		return errors.New("roots result is malformed")
	}
	a.Roots = []root{}
	for _, item := range items {
		fields, err := objectMembers(item)
		if err != nil {
			return errors.New("each root must be an object")
		}
		var r root
		hasURI := false
		for _, f := range fields {
			switch f.name {
			case "uri":
				r.URI, hasURI = jsonString(f.value)
			case "name":
				r.Name, _ = jsonString(f.value)
			}
		}
		if !hasURI || !strings.HasPrefix(r.URI, "file://") {
			return errors.New("each root needs a file:// uri")
		}
		a.Roots = append(a.Roots, r)
	}
	return nil
}

// ---------------------------------------------------------------------------
// The restricted form schema.

// maxFormFields bounds the properties of one requestedSchema; a form a
// person fills in has a handful.
const maxFormFields = 64

// formField is one property of a form-mode requestedSchema.
type formField struct {
	name     string
	typ      string   // "string", "number", "integer", "boolean" or "array"
	options  []string // allowed values of an enum (single or multi select)
	minLen   int      // string length, or array items; -1 when unset
	maxLen   int
	min, max float64 // number bounds; NaN when unset
	required bool
}

// parseRequestedSchema checks a form-mode requestedSchema against the
// restricted subset (a flat object of primitive properties) and returns
// its fields in a stable order.
// [§Requested Schema]: https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#requested-schema
func parseRequestedSchema(raw []byte) ([]formField, error) {
	if err := checkJSON(raw); err != nil || jsonKind(raw) != '{' {
		return nil, errors.New("requestedSchema must be a JSON object")
	}
	top, _ := objectMembers(raw)
	var props []member
	var required []string
	isObject := false
	for _, m := range top {
		switch m.name {
		case "$schema":
		case "type":
			s, _ := jsonString(m.value)
			isObject = s == "object"
		case "properties":
			var err error
			if props, err = objectMembers(m.value); err != nil {
				return nil, errors.New("requestedSchema properties must be an object")
			}
		case "required":
			if err := json.Unmarshal(m.value, &required); err != nil {
				return nil, errors.New("requestedSchema required must be an array of strings")
			}
		default:
			return nil, fmt.Errorf("requestedSchema keyword %q is not allowed in form mode", m.name)
		}
	}
	if !isObject {
		return nil, errors.New(`requestedSchema type must be "object"`)
	}
	if len(props) > maxFormFields {
		return nil, fmt.Errorf("requestedSchema has more than %d properties", maxFormFields)
	}
	fields := make([]formField, 0, len(props))
	for _, p := range props {
		f, err := parseFormField(p.name, p.value)
		if err != nil {
			return nil, err
		}
		fields = append(fields, f)
	}
	for _, name := range required {
		found := false
		for i := range fields {
			if fields[i].name == name {
				fields[i].required, found = true, true
			}
		}
		if !found {
			return nil, fmt.Errorf("requestedSchema requires %q, which is not a property", name)
		}
	}
	return fields, nil
}

// parseFormField checks one property: a string, number, integer, boolean,
// or enum schema, with only the keywords the spec lists for it.
func parseFormField(name string, raw []byte) (formField, error) {
	f := formField{name: name, minLen: -1, maxLen: -1, min: math.NaN(), max: math.NaN()}
	members, err := objectMembers(raw)
	if err != nil {
		return f, fmt.Errorf("requestedSchema property %q must be an object", name)
	}
	for _, m := range members {
		if m.name == "type" {
			f.typ, _ = jsonString(m.value)
		}
	}
	allowed := map[string][]string{
		"string":  {"minLength", "maxLength", "format", "enum", "enumNames", "oneOf"},
		"number":  {"minimum", "maximum"},
		"integer": {"minimum", "maximum"},
		"boolean": {},
		"array":   {"minItems", "maxItems", "items"},
	}
	extra, ok := allowed[f.typ]
	if !ok {
		return f, fmt.Errorf("requestedSchema property %q: type must be string, number, integer, boolean or array", name)
	}
	bad := func(kw string) error {
		return fmt.Errorf("requestedSchema property %q: invalid %s", name, kw)
	}
	for _, m := range members {
		switch m.name {
		case "type":
		case "title", "description":
			if jsonKind(m.value) != '"' {
				return f, bad(m.name)
			}
		case "default":
			want := map[string]byte{"string": '"', "number": '0', "integer": '0', "boolean": 't', "array": '['}[f.typ]
			got := jsonKind(m.value)
			if got == 'f' {
				got = 't'
			}
			if got != want {
				return f, bad("default")
			}
		default:
			if !containsString(extra, m.name) {
				return f, fmt.Errorf("requestedSchema property %q: keyword %q is not allowed for type %s", name, m.name, f.typ)
			}
			if err := f.keyword(m.name, m.value); err != nil {
				return f, bad(m.name)
			}
		}
	}
	return f, nil
}

// keyword reads one type-specific keyword of a form field.
func (f *formField) keyword(kw string, v []byte) error {
	intValue := func() (int, error) {
		if !isJSONInteger(v) {
			return 0, errors.New("not an integer")
		}
		n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
		if err != nil || n < 0 {
			return 0, errors.New("not a count")
		}
		return n, nil
	}
	var err error
	switch kw {
	case "minLength", "minItems":
		f.minLen, err = intValue()
	case "maxLength", "maxItems":
		f.maxLen, err = intValue()
	case "minimum", "maximum":
		var x float64
		if err = json.Unmarshal(v, &x); err == nil {
			if kw == "minimum" {
				f.min = x
			} else {
				f.max = x
			}
		}
	case "format":
		s, _ := jsonString(v)
		if !containsString([]string{"email", "uri", "date", "date-time"}, s) {
			err = errors.New("unsupported format")
		}
	case "enum":
		err = json.Unmarshal(v, &f.options)
	case "enumNames":
		var names []string
		err = json.Unmarshal(v, &names)
	case "oneOf":
		f.options, err = titledOptions(v)
	case "items":
		// Multi select: {"type":"string","enum":[...]} or {"anyOf":[{"const","title"}...]}.
		members, merr := objectMembers(v)
		if merr != nil {
			return merr
		}
		for _, m := range members {
			switch m.name {
			case "type":
				if s, _ := jsonString(m.value); s != "string" {
					return errors.New("items must be strings")
				}
			case "enum":
				err = json.Unmarshal(m.value, &f.options)
			case "anyOf":
				f.options, err = titledOptions(m.value)
			default:
				return errors.New("unsupported items keyword")
			}
		}
		if f.options == nil {
			return errors.New("items need enum or anyOf")
		}
	}
	return err
}

// titledOptions reads [{"const": value, "title": label}, ...].
func titledOptions(v []byte) ([]string, error) {
	var opts []struct {
		Const *string `json:"const"`
		Title *string `json:"title"`
	}
	if err := json.Unmarshal(v, &opts); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(opts))
	for _, o := range opts {
		if o.Const == nil || o.Title == nil {
			return nil, errors.New("option needs const and title")
		}
		out = append(out, *o.Const)
	}
	return out, nil
}

// hasRequired reports whether any field is required.
func hasRequired(fields []formField) bool {
	for _, f := range fields {
		if f.required {
			return true
		}
	}
	return false
}

// checkFormContent checks accepted form content against the fields the
// server asked for: required ones present, each value of its field's type,
// within its bounds and options. Values for fields that were not asked
// for are dropped, so a handler sees only what it requested.
// Known limitation: string formats (email, uri, date, date-time) are not
// checked.
// [§Form Mode Security]: https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#form-mode-security
func checkFormContent(fields []formField, content map[string]any) error {
	declared := map[string]bool{}
	for _, f := range fields {
		declared[f.name] = true
		v, ok := content[f.name]
		if !ok {
			if f.required {
				return fmt.Errorf("form value %q is required", f.name)
			}
			continue
		}
		if err := f.check(v); err != nil {
			return fmt.Errorf("form value %q %v", f.name, err)
		}
	}
	for name := range content {
		if !declared[name] {
			delete(content, name)
		}
	}
	return nil
}

// check checks one form value against its field.
func (f *formField) check(v any) error {
	switch f.typ {
	case "string":
		s, ok := v.(string)
		if !ok {
			return errors.New("must be a string")
		}
		n := utf8.RuneCountInString(s)
		if (f.minLen >= 0 && n < f.minLen) || (f.maxLen >= 0 && n > f.maxLen) {
			return errors.New("has the wrong length")
		}
		if f.options != nil && !containsString(f.options, s) {
			return errors.New("is not one of the options")
		}
	case "number", "integer":
		num, ok := v.(json.Number)
		if !ok {
			return fmt.Errorf("must be a %s", f.typ)
		}
		x, err := num.Float64()
		if err != nil || (f.typ == "integer" && x != math.Trunc(x)) {
			return fmt.Errorf("must be a %s", f.typ)
		}
		if x < f.min || x > f.max { // false when the bound is NaN (unset)
			return errors.New("is out of range")
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return errors.New("must be a boolean")
		}
	case "array":
		items, ok := v.([]any)
		if !ok {
			return errors.New("must be an array of strings")
		}
		if (f.minLen >= 0 && len(items) < f.minLen) || (f.maxLen >= 0 && len(items) > f.maxLen) {
			return errors.New("has the wrong number of items")
		}
		for _, item := range items {
			s, _ := item.(string)
			if !containsString(f.options, s) {
				return errors.New("has an item that is not one of the options")
			}
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Small helpers.

// compactJSON returns raw without insignificant space.
func compactJSON(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return json.RawMessage(raw)
	}
	return b.Bytes()
}

// mustMarshal encodes v, built by this package from JSON-safe values.
func mustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("mustMarshal: %v", err))
	}
	return b
}
