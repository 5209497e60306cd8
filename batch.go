// JSON-RPC batches, which 2025-03-26 servers MUST receive and 2025-06-18 removed: accepted only in
// a session that negotiated 2025-03-26 (docs/GAPS.md, "Batches"). The driver (conn.go) reads them
// here, begins their entries in order and serves them with answerBatch.
//
// Spec: https://modelcontextprotocol.io/specification/2025-03-26/basic#batching,
// https://modelcontextprotocol.io/specification/2025-03-26/basic/lifecycle#initialization,
// https://modelcontextprotocol.io/specification/2025-03-26/basic/transports#sending-messages-to-the-server,
// https://www.jsonrpc.org/specification#batch.

package main

import (
	"bytes"
	"context"
	"errors"
)

// maxBatchEntries bounds the messages of one batch (the SDKs that batch send a handful): a larger
// one is refused whole (-32600) after its first 65 entries.
const maxBatchEntries = 64

// maxBatchAnswerBytes, the largest line a client may send, bounds a batch's answers held until its
// last is ready; past it (the crossing answer kept whole) requests get errBatchAnswers
// (TestBatchAnswerBytes).
const maxBatchAnswerBytes = maxLineBytes

// errBatchAnswers answers a batch's request past maxBatchAnswerBytes: -32603, the server's bound.
var errBatchAnswers = &rpcError{Code: codeInternalError,
	Message: "batch answers too large: the answers before this request fill the batch's bound; send it again alone",
	Data:    map[string]int64{"maxBatchAnswerBytes": maxBatchAnswerBytes}}

// versionBatches is the one protocol version whose sessions accept batches.
const versionBatches = version20250326

// batchKind says what one entry of a batch is.
type batchKind uint8

// The kinds of batch entries.
const (
	batchRefused      batchKind = iota // answered when read (reply), or dropped when it is a malformed notification
	batchResponse                      // the client's answer to a server-to-client request
	batchNotification                  // a client notification
	batchRequest                       // a request, served in turn (req)
)

// batchItem is one batch entry as readBatch judged it; ctx and call once begun (incoming.begin).
type batchItem struct {
	kind  batchKind
	msg   message
	reply []byte   // a refused entry's answer; nil when it has none
	req   *request // a request, judged when the batch was read
	ctx   context.Context
	call  *call
}

// splitBatch returns the entries of data, a JSON array, as raw values. A syntax error refuses the
// whole batch (-32700), as JSON-RPC asks, an empty or oversize one -32600; an entry that parses
// but cannot be honoured (a duplicate key, too deep) is left to parseMessage (TestSplitBatch).
// [§Batch]: https://www.jsonrpc.org/specification#batch
func splitBatch(data []byte) ([][]byte, *rpcError) {
	c := jsonChecker{data: data}
	if !c.take('[') {
		return nil, errParse
	}
	empty := c.take(']')
	var entries [][]byte
	for done := empty; !done; {
		if len(entries) == maxBatchEntries {
			return nil, newError(codeInvalidRequest,
				"invalid request: a batch may hold at most %d messages", maxBatchEntries)
		}
		c.skipSpace()
		start := c.pos
		if c.skipChecked() != nil || errors.Is(checkJSON(data[start:c.pos]), errJSONSyntax) {
			return nil, errParse
		}
		entries = append(entries, data[start:c.pos])
		var err error
		if done, err = c.next(']'); err != nil {
			return nil, errParse
		}
	}
	c.skipSpace()
	switch {
	case c.pos != len(data):
		return nil, errParse
	case empty:
		return nil, newError(codeInvalidRequest, "invalid request: empty batch") // JSON-RPC's answer
	}
	return entries, nil
}

// readBatch reads a batch that arrived in sess, a versionBatches session, with framing f, judging
// each entry alone, in order; an array, an initialize and a request with modern _meta are refused
// in place (-32600). The error is the answer of a batch refused whole.
func (s *server) readBatch(data []byte, sess *session, f framing) ([]batchItem, *rpcError) {
	entries, rerr := splitBatch(data)
	if rerr != nil {
		return nil, rerr
	}
	items := make([]batchItem, len(entries))
	for i, entry := range entries {
		it := &items[i]
		if jsonKind(entry) == '[' {
			it.reply = encodeError(nil, newError(codeInvalidRequest, "invalid request: a batch entry must be a JSON object"))
			continue
		}
		msg, rerr := parseMessage(entry)
		it.msg = msg
		switch {
		case rerr != nil:
			if !msg.isNotification() {
				it.reply = encodeError(msg.id, rerr)
			}
		case msg.isResponse():
			it.kind = batchResponse
		case msg.isNotification():
			it.kind = batchNotification
		case methods[msg.method].handshake:
			it.reply = encodeError(msg.id, newError(codeInvalidRequest, "invalid request: initialize must not be part of a batch"))
		default:
			req := s.newRequest(&it.msg, sess, f)
			if req.meta.modern {
				it.reply = encodeError(msg.id, newError(codeInvalidRequest, "invalid request: a batch belongs to the session's protocol version %s: its messages carry no %s", versionBatches, metaProtocolVersion))
				continue
			}
			it.kind, it.req = batchRequest, req
		}
	}
	return items, nil
}

// answerBatch serves items' requests in turn with serve (an entry's answer, nil when cancelled;
// one slot, one goroutine) and returns the answers as one array in order, or nil for none
// (JSON-RPC sends no empty array). Past maxBatchAnswerBytes a request still goes to serve, marked
// invalid: no handler runs.
// [§Batch]: https://www.jsonrpc.org/specification#batch
func answerBatch(items []batchItem, serve func(i int) []byte) []byte {
	var b bytes.Buffer
	for i := range items {
		reply := items[i].reply
		if items[i].kind == batchRequest {
			if b.Len() >= maxBatchAnswerBytes && items[i].req.invalid == nil {
				items[i].req.invalid = errBatchAnswers
			}
			reply = serve(i)
		}
		if reply == nil {
			continue
		}
		if b.Len() == 0 {
			b.WriteByte('[')
		} else {
			b.WriteByte(',')
		}
		b.Write(bytes.TrimSuffix(oneLine(reply), []byte("\n")))
	}
	if b.Len() == 0 {
		return nil
	}
	b.WriteString("]\n")
	return b.Bytes()
}
