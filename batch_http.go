//go:build !stdio

// JSON-RPC batches over HTTP: a batch POSTed in a 2025-03-26 session, on
// Streamable HTTP (classic_http.go) or the 2024-11-05 transport
// (classic_sse.go), read whole, admitted, then served (batch.go judges
// and serves the entries; stdio reads its batches itself).
//
// Spec: https://modelcontextprotocol.io/specification/2025-03-26/basic/transports#sending-messages-to-the-server,
// https://modelcontextprotocol.io/specification/2025-03-26/basic#batching.

package main

import (
	"context"
	"errors"
)

// sessionBatch is a batch read in an HTTP session, on Streamable HTTP or
// the 2024-11-05 transport: its entries, and the contexts of its requests,
// each tracked in the session until end (so notifications/cancelled
// reaches it, and its id counts as in flight).
type sessionBatch struct {
	s         *server
	sess      *session
	parent    context.Context // the requests' parent
	transport string          // names the transport in logs
	items     []batchItem
	ctxs      []context.Context // of the request entries
	ends      []func()          // stop tracking and cancel, per request entry
	requests  int               // request entries to serve
}

// readSessionBatch reads body, a batch POSTed in sess, and judges its
// entries; nothing of it takes effect until take, which the transport
// calls once it has admitted the batch (a request slot, or a control
// slot when requests is 0): a batch refused 503 has done nothing, and the
// client may send it again (review A, finding 8). Its requests run under
// parent, each with f, what the transport read beside the batch. The
// error is the answer to a batch refused whole: outside a session of
// versionBatches, empty, oversize or not JSON. The caller calls end.
func (s *server) readSessionBatch(parent context.Context, sess *session, body []byte, f framing, transport string) (*sessionBatch, *rpcError) {
	if sess.negotiated() != versionBatches {
		return nil, batchOutsideSession(body)
	}
	items, rerr := s.readBatch(body, sess, f)
	if rerr != nil {
		return nil, rerr
	}
	b := &sessionBatch{s: s, sess: sess, parent: parent, transport: transport, items: items,
		ctxs: make([]context.Context, len(items)), ends: make([]func(), len(items))}
	for _, it := range items {
		if it.kind == batchRequest {
			b.requests++
		}
	}
	return b, nil
}

// take hands the batch's responses and notifications over and tracks its
// requests (takeBatch); a request whose id is already in flight is
// answered with an error instead, and requests counts what is left.
func (b *sessionBatch) take() {
	b.requests = b.s.takeBatch(b.parent, b.items, b.sess, batchHooks{
		cancel: b.sess.cancelNamed,
		begin: func(i int) *rpcError {
			ctx, cancel := context.WithCancelCause(b.parent)
			untrack, ok := b.sess.track(b.items[i].msg.id, cancel)
			if !ok {
				cancel(nil)
				return newError(codeInvalidRequest, "invalid request: id %s is already in flight", b.items[i].msg.id)
			}
			b.ctxs[i], b.ends[i] = ctx, func() { untrack(); cancel(nil) }
			return nil
		},
	}, b.transport)
}

// answer serves the batch's requests in turn with ex (its send, caller
// and closing; the session is the batch's) and returns the batch's
// answer, nil when no entry is answered. A request the client cancelled
// (notifications/cancelled) has no answer in it.
func (b *sessionBatch) answer(ex exchange) []byte {
	ex.session = b.sess
	return answerBatch(b.items, func(i int) []byte {
		ctx := b.ctxs[i]
		if errors.Is(context.Cause(ctx), errRequestCancelled) {
			return nil
		}
		reply, _ := b.s.serve(ctx, b.items[i].req, ex)
		if errors.Is(context.Cause(ctx), errRequestCancelled) {
			return nil
		}
		return reply
	})
}

// end stops tracking the batch's requests and cancels what is left of
// them. It is idempotent.
func (b *sessionBatch) end() {
	for i, end := range b.ends {
		if end != nil {
			end()
			b.ends[i] = nil
		}
	}
}
