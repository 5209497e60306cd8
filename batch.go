// JSON-RPC batches, which protocol version 2025-03-26 requires servers to
// receive ("MCP implementations MAY support sending JSON-RPC batches, but
// MUST support receiving JSON-RPC batches"), and which 2025-06-18 removed.
// They are accepted only inside a session that negotiated 2025-03-26 (on
// stdio after that initialize; over HTTP with that session's id); an
// array anywhere else is -32600. The transports (stdio.go, and over HTTP
// batch_http.go) read a batch with readBatch, hand its responses and
// notifications over and register its requests with takeBatch (once the
// batch is admitted), and serve the requests with answerBatch.
//
// Spec: https://modelcontextprotocol.io/specification/2025-03-26/basic#batching,
// https://modelcontextprotocol.io/specification/2025-03-26/basic/lifecycle#initialization
// (initialize MUST NOT be part of a batch),
// https://modelcontextprotocol.io/specification/2025-03-26/basic/transports#sending-messages-to-the-server,
// https://www.jsonrpc.org/specification#batch.

package main

import (
	"bytes"
	"context"
	"errors"
)

// maxBatchEntries bounds the messages of one batch. The SDKs that batch
// send a handful of messages at a time; 64 leaves them room while keeping
// what one batch costs small: its requests are served one after another
// in the one request slot the batch holds (answerBatch), so a batch
// cannot run more handlers at once than a single request, and the
// answers it holds until the last one is ready are at most 64. A larger
// batch is refused whole (-32600) after reading its first 65 entries, so
// a batch of ten thousand costs no more than one of 65.
const maxBatchEntries = 64

// maxBatchAnswerBytes bounds the answers a batch holds until its last one
// is ready: once they hold this many bytes, the batch's later requests
// are not served but answered with errBatchAnswers (the client sends
// them again, alone). It is the largest line a client may send, 4 MiB: a
// batch of 64 tools/list of a large registry, or of a few large
// resources, fits. The answer that crosses it is kept whole, as any one
// answer is as large as its handler makes it; the errors after it are
// short (TestBatchAnswerBytes).
const maxBatchAnswerBytes = maxLineBytes

// errBatchAnswers answers a batch's request past maxBatchAnswerBytes. It
// is the server's bound, not the request's fault: -32603, with the bound.
var errBatchAnswers = &rpcError{Code: codeInternalError,
	Message: "batch answers too large: the answers before this request fill the batch's bound; send it again alone",
	Data:    map[string]int64{"maxBatchAnswerBytes": maxBatchAnswerBytes}}

// versionBatches is the one protocol version whose sessions accept
// batches: 2025-03-26 introduced them, 2025-06-18 removed them.
const versionBatches = version20250326

// The errors of a batch refused whole. JSON-RPC answers an empty array
// with one Invalid Request error; an oversize one is refused the same way,
// before any of it is served.
var (
	errEmptyBatch = newError(codeInvalidRequest, "invalid request: empty batch")
	errLargeBatch = newError(codeInvalidRequest, "invalid request: a batch may hold at most %d messages", maxBatchEntries)
)

// batchKind says what one entry of a batch is.
type batchKind uint8

// The kinds of batch entries.
const (
	batchRefused      batchKind = iota // answered when read (reply), or dropped when it is a malformed notification
	batchResponse                      // the client's answer to a server-to-client request
	batchNotification                  // a client notification
	batchRequest                       // a request, served in turn (req)
)

// batchItem is one entry of a batch as readBatch judged it.
type batchItem struct {
	kind  batchKind
	msg   message
	reply []byte   // a refused entry's answer; nil when it has none
	req   *request // a request, judged when the batch was read
}

// splitBatch returns the entries of data, a JSON array, as raw values. It
// crosses each entry once without recursion (skipChecked), then checks it
// (checkJSON): JSON-RPC answers a batch that is not valid JSON with one
// Parse error, so any syntax error refuses the whole batch; an entry that
// parses but cannot be honoured (a duplicate key, too deep) is left to
// parseMessage and refused alone. An empty array, or one of more than
// maxBatchEntries entries (noticed on reading entry maxBatchEntries+1),
// is refused whole with -32600.
// [§Batch]: https://www.jsonrpc.org/specification#batch
func splitBatch(data []byte) ([][]byte, *rpcError) {
	c := jsonChecker{data: data}
	c.skipSpace()
	if c.pos >= len(data) || data[c.pos] != '[' {
		return nil, errParse
	}
	c.pos++
	c.skipSpace()
	if c.pos < len(data) && data[c.pos] == ']' {
		c.pos++
		c.skipSpace()
		if c.pos != len(data) {
			return nil, errParse
		}
		return nil, errEmptyBatch
	}
	var entries [][]byte
	for {
		if len(entries) == maxBatchEntries {
			return nil, errLargeBatch
		}
		c.skipSpace()
		start := c.pos
		if err := c.skipChecked(); err != nil {
			return nil, errParse
		}
		entry := data[start:c.pos]
		if errors.Is(checkJSON(entry), errJSONSyntax) {
			return nil, errParse
		}
		entries = append(entries, entry)
		c.skipSpace()
		if c.pos >= len(data) {
			return nil, errParse
		}
		switch data[c.pos] {
		case ',':
			c.pos++
		case ']':
			c.pos++
			c.skipSpace()
			if c.pos != len(data) {
				return nil, errParse
			}
			return entries, nil
		default:
			return nil, errParse
		}
	}
}

// readBatch reads a batch that arrived in sess, a session that
// negotiated versionBatches, and judges each entry alone, in order, as if
// it had come on its own: a malformed entry is answered (or, a
// notification, dropped) as parseMessage says; an entry that is itself an
// array, an initialize (which MUST NOT be part of a batch), and a request
// carrying the modern _meta (the modern era has no batches) are refused
// with -32600; every other request is judged by newRequest in the
// session, with what the transport read beside the batch (f) as its own.
// The error is the one answer of a batch refused whole.
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
		case msg.method == methodInitialize:
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

// batchHooks are what a transport does with a batch's entries as
// takeBatch reads them.
type batchHooks struct {
	// cancel handles a notifications/cancelled (its params): the
	// transport cancels the request it names, an earlier entry of the
	// batch included.
	cancel func(params []byte)
	// begin registers request entry i in flight, so that it can be
	// cancelled and its id is not reused meanwhile; a non-nil error
	// refuses the entry (its id is already in flight).
	begin func(i int) *rpcError
}

// takeBatch goes through items in order, as the transport would through
// as many messages: it hands responses to the session's bridges and
// notifications to their handlers (a cancellation to h.cancel), and
// registers the requests with h.begin. It returns how many requests are
// left to serve. transport names the transport in logs.
func (s *server) takeBatch(ctx context.Context, items []batchItem, sess *session, h batchHooks, transport string) (requests int) {
	for i := range items {
		it := &items[i]
		switch {
		case it.kind == batchRequest:
			if rerr := h.begin(i); rerr != nil {
				it.kind, it.req, it.reply = batchRefused, nil, encodeError(it.msg.id, rerr)
				continue
			}
			requests++
		case (it.kind == batchResponse || it.kind == batchNotification) && s.takeControl(&it.msg, sess, h.cancel, transport):
		case it.kind == batchNotification:
			s.dispatch(ctx, &it.msg, exchange{session: sess})
		}
	}
	return requests
}

// answerBatch serves the request entries of items one after another with
// serve (nil when there are none), and returns the batch's answer: one
// array of the answers in the order of the entries, or nil when no entry
// is answered (only notifications and responses, or requests cancelled),
// for JSON-RPC sends no empty array. serve returns an entry's answer, nil
// for a request cancelled by the client. Serving in turn, not at once,
// keeps a batch to one request slot and one goroutine, whatever its size;
// JSON-RPC lets the server choose any width of parallelism. Once the
// answers hold maxBatchAnswerBytes, each later request is still handed
// to serve (which tracks and releases it), but marked invalid with
// errBatchAnswers, so that no handler runs for it.
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

// batchOutsideSession is the answer to an array that arrived outside a
// session of versionBatches: what parseMessage says of it (-32700 when it is not
// JSON, -32600 otherwise).
func batchOutsideSession(data []byte) *rpcError {
	_, rerr := parseMessage(data)
	if rerr == nil {
		rerr = errInvalidRequest // not reached: parseMessage refuses every array
	}
	return rerr
}

// controlBatch reports whether items hold only what frees request slots
// without taking one: responses to the server's requests and
// cancellations (stdio reads those even while every slot is taken).
func controlBatch(items []batchItem) bool {
	for _, it := range items {
		if it.kind != batchResponse && (it.kind != batchNotification || it.msg.method != methodCancelled) {
			return false
		}
	}
	return true
}
