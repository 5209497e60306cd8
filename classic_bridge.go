// MRTR bridging for the classic era: a handler's req.NeedInput becomes real server-to-client
// requests (elicitation/create, sampling/createMessage, roots/list), and the handler runs
// again with the answers until it completes (docs/GAPS.md, "MRTR bridging").
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions,
// https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation,
// https://modelcontextprotocol.io/specification/2025-11-25/client/sampling,
// https://modelcontextprotocol.io/specification/2025-11-25/client/roots,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation,
// https://modelcontextprotocol.io/specification/2025-06-18/client/elicitation.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"
)

const (
	// defaultInputTimeout bounds a classic client's answer to one round: minutes, for a person.
	defaultInputTimeout = 5 * time.Minute
	// maxBridgeRounds bounds one request's rounds, as official clients bound input_required retries.
	maxBridgeRounds = 10
)

// bridgeInput serves a classic request whose handler returned need, round after round, until
// the handler completes or fails. A failure of the bridge is -32603 saying what happened (a
// decline reaches the handler).
func (s *server) bridgeInput(ctx context.Context, req *request, m method, need *inputRequired) (result, error) {
	for round := 1; ; round++ {
		if round > maxBridgeRounds {
			return result{}, newError(codeInternalError, "%s: the handler asked for input more than %d times", req.method, maxBridgeRounds)
		}
		if _, err := s.mayAsk(req, m, need); err != nil {
			return result{}, err
		}
		fresh, err := s.ask(ctx, req, need.requests)
		if err != nil {
			return result{}, err
		}
		answers := map[string]*inputResponse{}
		maps.Copy(answers, req.input.answers)
		maps.Copy(answers, fresh) // ask answers every key asked: a key asked again takes its new answer
		req.input = inputRound{answers: answers, data: need.data}
		res, err := m.handle(s, ctx, req)
		if !errors.As(err, &need) {
			return res, err
		}
	}
}

// ask sends one round of requests on the request's own stream and waits at most
// s.inputTimeout for every answer; ids are the server's name and a per-session number. A
// client error, a malformed answer, the timeout, cancellation or the session's end fail the
// round, and what is unanswered is cancelled towards the client.
// [§Timeouts]: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#timeouts
func (s *server) ask(ctx context.Context, req *request, qs []inputRequest) (map[string]*inputResponse, error) {
	if len(qs) == 0 {
		return nil, nil // a state-only round: run again at once
	}
	if req.send == nil {
		return nil, errors.New("bridge: the transport gave the request no stream")
	}
	// Waiting requests are bounded per client (stdio's has no share: its own slots bound it).
	if share := req.caller.share; share != "" {
		if !s.bridged.take(share, 1) {
			if s.bridged.shareFull(share, 1) {
				return nil, newError(codeServerBusy, "server busy: this client has %d requests waiting for its answers, its share of %d; answer them first", s.bridged.per, s.bridged.total)
			}
			return nil, newError(codeServerBusy, "server busy: %d requests wait for their clients' answers, retry later", s.bridged.total)
		}
		defer s.bridged.give(share, 1)
	}
	sess := req.session
	answers := make(chan *message, len(qs))
	ids := sess.expect(s.info.Name+"-", len(qs), answers)
	defer func() {
		for _, id := range sess.forget(ids) {
			sess.push(encodeNotification(methodCancelled, cancelledParams{RequestID: json.RawMessage(id), Reason: "the request that asked was cancelled or timed out"}))
		}
	}()
	byID := map[string]inputRequest{}
	msgs := make([][]byte, len(qs))
	for i, q := range qs {
		params, err := classicInputParams(req.version, q)
		if err != nil {
			return nil, err
		}
		byID[idKey([]byte(ids[i]))] = q
		msgs[i] = encodeRequest([]byte(ids[i]), q.method, params)
	}
	for _, msg := range msgs {
		req.send(msg)
	}
	timer := time.NewTimer(s.inputTimeout)
	defer timer.Stop()
	got := map[string]*inputResponse{}
	for len(got) < len(qs) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-sess.done:
			return nil, &endedWithClient{newError(codeInternalError, "%s: the session ended while waiting for the client", req.method)}
		case <-timer.C:
			var waiting []string
			for _, q := range qs {
				if got[q.key] == nil {
					waiting = append(waiting, q.method)
				}
			}
			return nil, newError(codeInternalError, "%s: the client did not answer %v within %v", req.method, waiting, s.inputTimeout)
		case msg := <-answers:
			q := byID[idKey(msg.id)]
			if msg.errorValue != nil {
				return nil, clientRefused(req.method, q.method, msg.errorValue)
			}
			a, err := parseInputResponse(q.method, q.mode, q.schema, msg.result)
			if err != nil {
				return nil, newError(codeInternalError, "%s: the client's answer to %s is invalid: %v", req.method, q.method, err)
			}
			got[q.key] = a
		}
	}
	return got, nil
}

// takeControl takes msg if it frees a waiting request, and reports whether it did: a response
// goes to sess's waiting bridge (an unexpected one is logged and dropped), a
// notifications/cancelled to cancel. Every transport and batch takes these here, and only here.
func (s *server) takeControl(msg *message, sess *session, cancel func(params []byte), transport string) bool {
	switch {
	case msg.isResponse():
		if !sess.deliver(msg) {
			s.log.Info("ignoring a response to no pending request", "transport", transport, s.logID(msg.id))
		}
		return true
	case msg.isNotification() && msg.method == methodCancelled:
		cancel(msg.params)
		return true
	}
	return false
}

// maxClientErrorText bounds how much of the client's error message the request's error quotes.
const maxClientErrorText = 200

// clientRefused is the -32603 of a request whose server-to-client request the client answered
// with error raw, quoting its code (0 if not an int) and message (TestClientRefused).
func clientRefused(method, asked string, raw []byte) *rpcError {
	code, message := 0, ""
	members, _ := objectMembers(raw)
	for _, m := range members {
		switch m.name {
		case "code":
			if n, err := strconv.Atoi(string(bytes.TrimSpace(m.value))); err == nil {
				code = n
			}
		case "message":
			message, _ = jsonString(m.value)
		}
	}
	if len(message) > maxClientErrorText {
		message = strings.ToValidUTF8(message[:maxClientErrorText], "")
	}
	return &rpcError{
		Code:    codeInternalError,
		Message: fmt.Sprintf("%s: the client answered %s with error %d: %s", method, asked, code, message),
	}
}

// cancelledParams is the params of notifications/cancelled.
type cancelledParams struct {
	RequestID json.RawMessage `json:"requestId"`
	Reason    string          `json:"reason,omitempty"`
}
