// Multi round-trip requests (MRTR): how a handler asks the client for a user's answer
// (elicitation), a model completion (sampling) or its roots, keeping nothing in server memory
// between rounds. A handler reads req.Input and, missing an answer, returns req.NeedInput(...);
// the InputRequiredResult's signed requestState carries every answer, and the retry reruns the
// handler (docs/SECURITY.md, "requestState"). Classic clients get real requests
// (classic_bridge.go); mayAsk gates both.
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
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
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

// inputRequest is one entry of InputRequiredResult.inputRequests, under the handler's key, built
// by elicitForm, elicitURL, createMessage or listRoots; err is a programming error (-32603, mayAsk).
type inputRequest struct {
	key    string
	method string
	mode   string          // elicitation: elicitModeForm or elicitModeURL
	params json.RawMessage // the request's params, encoded
	schema json.RawMessage // form mode: requestedSchema, kept to check the answer
	// sampling is the params unencoded, for a bridged classic revision (classicInputParams).
	sampling *samplingRequest
	err      error
}

// elicitForm asks the user to fill in a form. requestedSchema is JSON text of the restricted
// schema the spec allows: an object of string, number, integer, boolean or enum (single or multi
// select) properties, no nesting. Never ask for passwords or tokens so (spec): use elicitURL.
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

// elicitURL asks the user to open url and complete an interaction out of band (a sign-in, a
// payment). "accept" means the user agreed to open it, not that it finished: check that, and that
// whoever opens the URL is the user asked. The URL must carry no credentials or personal data.
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

// samplingRequest is the params of sampling/createMessage. MaxTokens is required and must be
// positive (clients reject a non-integer). Known limitation: tool use in sampling (tools,
// toolChoice, gated by sampling.tools) and includeContext (deprecated) are not offered.
// [§Creating Messages]: https://modelcontextprotocol.io/specification/2026-07-28/client/sampling#creating-messages
type samplingRequest struct {
	Messages         []samplingMessage `json:"messages"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	MaxTokens        int               `json:"maxTokens"`
	Temperature      *float64          `json:"temperature,omitempty"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	ModelPreferences *modelPreferences `json:"modelPreferences,omitempty"`
	// Metadata goes to the model's provider as is, in its format.
	Metadata map[string]any `json:"metadata,omitempty"`
}

// samplingMessage is one sampling message: text, image or audio content, what every revision allows.
type samplingMessage struct {
	Role    string         `json:"role"` // "user" or "assistant"
	Content content        `json:"content"`
	Meta    map[string]any `json:"_meta,omitempty"` // 2025-11-25 on
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

// createMessage asks the client to sample its model (deprecated in 2026-07-28 by SEP-2577).
func createMessage(key string, p samplingRequest) inputRequest {
	q := inputRequest{key: key, method: methodCreateMessage}
	switch {
	case len(p.Messages) == 0:
		q.err = fmt.Errorf("createMessage %q: no messages", key)
	case p.MaxTokens <= 0:
		q.err = fmt.Errorf("createMessage %q: MaxTokens must be positive", key)
	}
	for i, m := range p.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			q.err = fmt.Errorf("createMessage %q: role %q is not user or assistant", key, m.Role)
		}
		// The last error found is reported.
		if err := cmp.Or(checkMeta(m.Meta), checkSamplingContent(m.Content)); err != nil {
			q.err = fmt.Errorf("createMessage %q: message %d: %w", key, i, err)
		}
	}
	if q.err != nil {
		return q
	}
	q.sampling = &p
	var err error
	if q.params, err = json.Marshal(p); err != nil { // Metadata may hold what JSON cannot
		q.err = fmt.Errorf("createMessage %q: %w", key, err)
	}
	return q
}

// listRoots asks the client for its roots (deprecated in 2026-07-28 by SEP-2577).
func listRoots(key string) inputRequest {
	return inputRequest{key: key, method: methodListRoots, params: json.RawMessage(`{}`)}
}

// inputRequired is the error a handler returns to ask for input, answered with an
// InputRequiredResult; outside tools/call, prompts/get, resources/read a programming error (-32603).
type inputRequired struct {
	requests []inputRequest
	data     string
}

// Error makes inputRequired an error; the text never reaches the peer.
func (e *inputRequired) Error() string { return "input required" }

// NeedInput returns "ask the client for these, then call me again"; one round may ask several
// (unique keys). With none the client retries at once, carrying only the state (WithState).
func (r *request) NeedInput(requests ...inputRequest) *inputRequired {
	return &inputRequired{requests: requests}
}

// WithState attaches data for the next round, read back with req.State(). It travels signed in
// requestState: the client cannot change it but can read it (base64), so keep secrets out.
func (e *inputRequired) WithState(data string) *inputRequired {
	e.data = data
	return e
}

// inputResponse is the client's checked answer to one input request; only Method's fields are set.
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

// Input returns the client's answer for key, from this round or one signed in requestState, or
// nil. Only answers to what the handler asked reach it, each checked (beginInput).
func (r *request) Input(key string) *inputResponse { return r.input.answers[key] }

// State returns the data the previous round attached with WithState, or "".
func (r *request) State() string { return r.input.data }

// CanAsk reports whether the client allows q (request.missing), so a handler can avoid -32021.
func (r *request) CanAsk(q inputRequest) bool { return len(r.missing(q)) == 0 }

// inputRound is what the dispatcher decoded of a request's MRTR params.
type inputRound struct {
	answers map[string]*inputResponse
	data    string
}

// beginInput decodes the MRTR members of a modern tools/call, prompts/get or resources/read.
// requestState is verified before any of it is parsed; inputResponses is read only for the keys
// the last round asked, each checked, others ignored as the spec asks. The binding is computed
// only here and in sealing (hashing large arguments costs). Classic: classic_bridge.go, same rule.
// [§Error Handling]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#error-handling
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
		// Checked when accepted, and signed since: only a changed parser fails.
		resp, err := parseInputResponse(a.Method, "", nil, a.Value)
		if err != nil {
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
			ask, asked := st.Asked[m.name]
			if !asked {
				continue // an earlier round's (the signed one wins), or never asked
			}
			resp, err := parseInputResponse(ask.Method, ask.Mode, ask.Schema, m.value)
			if err != nil {
				return invalidParams("invalid params: inputResponses[%q]: %v", m.name, err)
			}
			answers[m.name] = resp
		}
	}
	req.input.answers = answers
	return nil
}

// mayAsk is the one gate for asking the client in both eras (inputRequiredResult, bridgeInput):
// the method may answer input_required, each request built without error, keys non-empty and
// unique, every capability needed declared (request.missing; else -32021, naming the version when
// it is why). It returns the keys asked; an error not an *rpcError is a programming error (-32603).
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
		if !atLeast(req.version, version20250618) && slices.Contains(missing, "elicitation.form") {
			rerr.Message += " (protocol version " + req.version + " has no elicitation)"
		} else if !atLeast(req.version, version20251125) && slices.Contains(missing, "elicitation.url") {
			rerr.Message += " (protocol version " + req.version + " has no url mode elicitation)"
		}
		return nil, rerr
	}
	return asked, nil
}

// missing names the capabilities q needs that the client lacks: not declared in _meta (modern),
// or at initialize or by the negotiated version (classic: session.missingFor).
func (r *request) missing(q inputRequest) []string {
	if r.session != nil {
		return r.session.missingFor(r.version, q)
	}
	return missingCapability(clientCaps(r.meta.capabilities), q)
}

// inputRequiredResult turns a handler's NeedInput into the interim result: the gate (mayAsk)
// first, then the next state, signed.
// [§Supported Requests]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#supported-requests
func (s *server) inputRequiredResult(req *request, m method, need *inputRequired) (result, error) {
	seen, err := s.mayAsk(req, m, need)
	if err != nil {
		return result{}, err
	}
	// Empty maps are left out of the payload as nil ones are (omitempty).
	next := statePayload{Data: need.data, Answers: map[string]stateAnswer{}, Asked: map[string]stateAsk{}}
	for key, a := range req.input.answers {
		if seen[key] {
			continue // asked again: the new answer replaces it
		}
		next.Answers[key] = stateAnswer{Method: a.Method, Value: a.raw}
	}
	body := []byte{'{'}
	if len(need.requests) > 0 {
		body = append(body, `"inputRequests":{`...)
		for i, q := range need.requests {
			if i > 0 {
				body = append(body, ',')
			}
			// JSON strings: a key from data may hold bytes strconv.Quote spells \x7f or \a.
			body = append(appendJSONString(body, q.key), `:{"method":`...)
			body = append(appendJSONString(body, q.method), `,"params":`...)
			body = append(append(body, q.params...), '}')
			ask := stateAsk{Method: q.method, Schema: q.schema}
			if q.mode == elicitModeURL {
				ask.Mode = q.mode // a form is known by its schema
			}
			next.Asked[q.key] = ask
		}
		body = append(body, `},`...)
	}
	token, err := s.states.seal(next, requestBinding(req))
	if err != nil {
		return result{}, err
	}
	body = strconv.AppendQuote(append(body, `"requestState":`...), token)
	return result{body: json.RawMessage(append(body, '}')), inputRequired: true}, nil
}

// clientCapsSet is what this server reads of ClientCapabilities.
type clientCapsSet struct {
	// tasks: extensions[extensionTasks] is an object (tasks.go).
	elicitForm, elicitURL, sampling, roots, tasks bool
}

// clientCaps reads raw ClientCapabilities; "elicitation": {} means form mode only (compatibility).
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
			form, url := memberValue(modes, elicitModeForm), memberValue(modes, elicitModeURL)
			c.elicitForm = jsonKind(form) == '{' || form == nil && url == nil
			c.elicitURL = jsonKind(url) == '{'
		case "sampling":
			c.sampling = true
		case "roots":
			c.roots = true
		case "extensions":
			exts, _ := objectMembers(m.value)
			c.tasks = slices.ContainsFunc(exts, func(e member) bool { return e.name == extensionTasks && jsonKind(e.value) == '{' })
		}
	}
	return c
}

// missingCapability names the capability q needs that c lacks ("elicitation.url"), or nothing.
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

// missingCapabilityError is MissingRequiredClientCapabilityError (-32021) with
// data.requiredCapabilities as a ClientCapabilities object.
// [§Per-request protocol fields]: https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
func missingCapabilityError(missing []string) *rpcError {
	has := func(name string) bool { return slices.Contains(missing, name) }
	var modes, caps []string
	for _, mode := range []string{elicitModeForm, elicitModeURL} {
		if has("elicitation." + mode) {
			modes = append(modes, strconv.Quote(mode)+`:{}`)
		}
	}
	if modes != nil {
		caps = append(caps, `"elicitation":{`+strings.Join(modes, ",")+`}`)
	}
	for _, name := range []string{"sampling", "roots"} {
		if has(name) {
			caps = append(caps, strconv.Quote(name)+`:{}`)
		}
	}
	if has(capabilityTasks) {
		caps = append(caps, `"extensions":{`+strconv.Quote(extensionTasks)+`:{}}`)
	}
	var list []string
	for _, m := range missing {
		if !slices.Contains(list, m) {
			list = append(list, m)
		}
	}
	return &rpcError{
		Code:    codeMissingCapability,
		Message: "missing required client capability: " + strings.Join(list, ", "),
		Data:    json.RawMessage(`{"requiredCapabilities":{` + strings.Join(caps, ",") + `}}`),
	}
}

// compactJSON compacts raw, JSON already checked or decoded (so Compact cannot fail).
func compactJSON(raw []byte) json.RawMessage {
	var b bytes.Buffer
	json.Compact(&b, raw)
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
