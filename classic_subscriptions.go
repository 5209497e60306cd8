// Subscriptions in the classic era, which has no listen request: list changes go to every
// initialized session, and resources/subscribe adds a URI to the session's watched set for
// notifications/resources/updated. Each such session has one watcher in subscriptions.go's
// hub: a subscription with no id, its notices untagged (docs/GAPS.md, "Subscriptions").
//
// Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/tools#list-changed-notification,
// https://modelcontextprotocol.io/specification/2025-11-25/server/resources#subscriptions,
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server.

package main

import "context"

// The classic-only methods of resource subscriptions.
const (
	methodResourcesSubscribe   = "resources/subscribe"
	methodResourcesUnsubscribe = "resources/unsubscribe"
)

// watchSession returns sess's watcher, registering it with the hub the first time
// (notifications/initialized or an earlier resources/subscribe); nil once the session
// ended, which unregisters it (session.end).
func (s *server) watchSession(sess *session) *subscription {
	return sess.watcher(s.subs, func() *subscription {
		all := subscriptionFilter{tools: true, prompts: true, resources: true}
		return &subscription{session: sess, share: sess.share, want: all.honoured(s.registry()), uris: map[string]bool{}, wake: sess.wake, queued: map[notice]bool{}}
	})
}

// handleResourcesSubscribe serves resources/subscribe: uri joins the session's watched set.
// A URI the server cannot read is -32002, as for resources/read. Subscribing twice is fine.
// [§Subscriptions (2025-11-25)]: https://modelcontextprotocol.io/specification/2025-11-25/server/resources#subscriptions
// [§Error Handling (2025-11-25)]: https://modelcontextprotocol.io/specification/2025-11-25/server/resources#error-handling
func (s *server) handleResourcesSubscribe(ctx context.Context, req *request) (result, error) {
	uri, rerr := watchedURI(req)
	if rerr != nil {
		return result{}, rerr
	}
	if !s.snapshot(req).knows(uri) {
		return result{}, s.resourceNotFound(req, uri)
	}
	w := s.watchSession(req.session)
	if w == nil {
		return result{}, newError(codeInvalidRequest, "invalid request: the session ended")
	}
	if rerr := s.subs.watchURI(w, uri); rerr != nil {
		return result{}, rerr
	}
	return result{}, nil
}

// handleResourcesUnsubscribe serves resources/unsubscribe: uri leaves the session's watched set.
func (s *server) handleResourcesUnsubscribe(ctx context.Context, req *request) (result, error) {
	uri, rerr := watchedURI(req)
	if rerr != nil {
		return result{}, rerr
	}
	if w := req.session.watching(); w != nil {
		s.subs.unwatchURI(w, uri)
	}
	return result{}, nil
}

// watchedURI reads params.uri of resources/subscribe and unsubscribe.
func watchedURI(req *request) (string, *rpcError) {
	uri, rerr := req.stringParam("uri")
	if rerr != nil {
		return "", rerr
	}
	if uri == "" || len(uri) > maxSubscriptionURIBytes {
		return "", invalidParams("invalid params: uri must have 1 to %d bytes", maxSubscriptionURIBytes)
	}
	return uri, nil
}

// encodeClassicNotice writes n as the classic revisions spell it: no subscriptionId, and
// list_changed without params.
func encodeClassicNotice(n notice) []byte {
	if n.kind == noticeResourceUpdated {
		return encodeNotification(methodResourcesUpdated, map[string]string{"uri": n.uri})
	}
	return []byte(`{"jsonrpc":"2.0","method":"` + noticeMethods[n.kind] + `"}` + "\n")
}
