// The wire encoding of replies (a result with the members each era stamps on it, an
// error), notifications and requests: one line each.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic
// (Result Responses, Error Responses) and
// https://www.jsonrpc.org/specification (Response object).

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// replyHead is how every response starts, up to its id.
const replyHead = `{"jsonrpc":"2.0","id":`

// replyParts is one response line in the pieces it is written in: the server's own bytes,
// and between them each stored value of a storedMembers body, which HTTP writes without
// copying (httpCall.finish). Only the last piece holds a line break, its final "\n" (compactLine).
type replyParts [][]byte

// size returns the bytes of the line.
func (p replyParts) size() int {
	n := 0
	for _, b := range p {
		n += len(b)
	}
	return n
}

// join returns the line as one slice: the one piece as it is, otherwise a copy of them all.
func (p replyParts) join() []byte {
	switch len(p) {
	case 0:
		return nil
	case 1:
		return p[0]
	}
	return bytes.Join(p, nil)
}

// storedMembers is a result body of members without the braces: at even indexes the server's
// own text, at odd indexes values it stores and shares (a task's result, error or input
// request params), each a piece of the reply, unchanged once handed over, with no line break.
type storedMembers [][]byte

// joinObject returns m as one JSON object, braces included.
func (m storedMembers) joinObject() []byte {
	out := append(make([]byte, 0, replyParts(m).size()+2), '{')
	for _, b := range m {
		out = append(out, b...)
	}
	return append(out, '}')
}

// compactLine returns encoded JSON b with no line break: b itself when it has none, else its
// compacted copy (only whitespace can hold one).
func compactLine(b []byte) []byte {
	if bytes.IndexByte(b, '\n') < 0 && bytes.IndexByte(b, '\r') < 0 {
		return b
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return b // not reached: b is encoded JSON
	}
	return c.Bytes()
}

// size returns about how many bytes res's answer is, for exchange.reserve: its body and the
// stamped members (a body to marshal counts as small).
func (res result) size() int {
	n := len(res.meta) + 512
	switch b := res.body.(type) {
	case *listPage:
		n += len(b.body)
	case *toolBody:
		n += b.size
	case storedMembers:
		n += replyParts(b).size()
	case json.RawMessage:
		n += len(b)
	}
	return n
}

// encodeResult writes the response for res: the body's members, then those this era stamps on
// every result. A list page with the default cache hints is its id's head and the page's tail.
// [§Result Responses]: https://modelcontextprotocol.io/specification/2026-07-28/basic#result-responses
func (s *server) encodeResult(id []byte, res result, version string) (replyParts, error) {
	if p, ok := res.body.(*listPage); ok {
		if res.cache != &s.cache || len(res.meta) > 0 || res.inputRequired || res.task {
			res.body = json.RawMessage(p.body)
			return s.encodeResult(id, res, version)
		}
		p.tailOnce.Do(func() {
			res.body = json.RawMessage(p.body)
			whole, _ := s.encodeResult(nil, res, version)
			p.tail = whole.join()[len(replyHead):]
		})
		head := make([]byte, 0, len(replyHead)+len(id))
		return replyParts{append(append(head, replyHead...), id...), p.tail}, nil
	}
	var body []byte
	tool, direct := res.body.(*toolBody) // appended below, not encoded apart
	stored, pieces := res.body.(storedMembers)
	switch b := res.body.(type) {
	case *toolBody, storedMembers, nil:
		body = []byte("{}")
	case json.RawMessage:
		body = b
	default:
		var err error
		if body, err = json.Marshal(b); err != nil {
			return nil, fmt.Errorf("encode result: %w", err)
		}
	}
	inner := bytes.TrimSpace(body)
	if len(inner) < 2 || inner[0] != '{' {
		return nil, fmt.Errorf("encode result: body is not an object")
	}
	inner = bytes.TrimSpace(inner[1 : len(inner)-1])

	// One allocation of the response's size: the body is copied once.
	size := len(id) + len(inner) + len(res.meta) + len(s.serverInfoJSON) + 160
	if res.cache != nil {
		size += len(res.cache.Scope) + 8
	}
	if direct {
		size += tool.size
	}
	for i := 0; i < len(stored); i += 2 {
		size += len(stored[i])
	}
	var parts replyParts
	out := make([]byte, 0, size)
	if size >= minReplyBuffer {
		out = s.replies.get(size) // a large reply reuses a kept buffer (buffers.go)
	}
	out = append(out, replyHead...)
	out = append(out, id...)
	out = append(out, `,"result":{`...)
	sep := false
	field := func() {
		if sep {
			out = append(out, ',')
		}
		sep = true
	}
	modern := isModern(version)
	if modern {
		field()
		switch {
		case res.inputRequired:
			out = append(out, `"resultType":"input_required"`...)
		case res.task:
			out = append(out, `"resultType":"task"`...)
		default:
			out = append(out, `"resultType":"complete"`...)
		}
	}
	switch {
	case direct:
		field()
		out = tool.appendMembers(out)
	case pieces:
		field()
		for i, b := range stored {
			if i%2 == 0 {
				out = append(out, b...)
				continue
			}
			// The rest is short: protocol members, closing braces, the server's text between stored values.
			parts = append(parts, out, b)
			out = make([]byte, 0, 256+len(s.serverInfoJSON)+len(res.meta))
		}
	case len(inner) > 0:
		field()
		out = append(out, inner...)
	}
	if modern && res.cache != nil {
		field()
		out = append(out, `"ttlMs":`...)
		out = strconv.AppendInt(out, res.cache.TTL.Milliseconds(), 10)
		out = append(out, `,"cacheScope":`...)
		out = appendJSONString(out, res.cache.Scope)
	}
	if modern || len(res.meta) > 0 {
		field()
		out = append(out, `"_meta":{`...)
		if modern {
			out = append(out, `"io.modelcontextprotocol/serverInfo":`...)
			out = append(out, s.serverInfoJSON...)
			if len(res.meta) > 0 {
				out = append(out, ',')
			}
		}
		out = append(out, res.meta...)
		out = append(out, '}')
	}
	return append(parts, append(out, "}}\n"...)), nil
}

// encodeError writes an error response. id may be nil (unreadable id).
func encodeError(id []byte, e *rpcError) []byte {
	if id == nil {
		id = []byte("null")
	}
	body := marshalError(e)
	out := make([]byte, 0, len(body)+len(id)+40)
	out = append(out, replyHead...)
	out = append(out, id...)
	out = append(out, `,"error":`...)
	out = append(out, body...)
	return append(out, "}\n"...)
}

// marshalError encodes a JSON-RPC error object: a response's, or a task's error member; one
// whose data does not encode is -32603.
func marshalError(rerr *rpcError) []byte {
	body, err := json.Marshal(rerr)
	if err != nil {
		return []byte(`{"code":-32603,"message":"internal error"}`)
	}
	return body
}

// encodeNotification writes a server notification line.
func encodeNotification(method string, params any) []byte {
	body, err := json.Marshal(params)
	if err != nil {
		// Params are built by this package from JSON-safe values.
		panic(fmt.Sprintf("encodeNotification %s: %v", method, err))
	}
	return encodeRequest(nil, method, body)
}

// encodeRequest writes a server-to-client request line; with a nil id, a notification line.
func encodeRequest(id []byte, method string, params json.RawMessage) []byte {
	out := make([]byte, 0, len(params)+len(method)+len(id)+48)
	out = append(out, `{"jsonrpc":"2.0"`...)
	if id != nil {
		out = append(out, `,"id":`...)
		out = append(out, id...)
	}
	out = append(out, `,"method":`...)
	out = appendJSONString(out, method)
	out = append(out, `,"params":`...)
	out = append(out, params...)
	return append(out, "}\n"...)
}
