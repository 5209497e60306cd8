// Subscriptions in the classic era: list changes told to every
// initialized session, and resources/subscribe and resources/unsubscribe
// for notifications/resources/updated. The subscription hub they go
// through is subscriptions.go's, shared with the modern
// subscriptions/listen.
//
// The classic era (2025-11-25 and earlier) has no listen request: a server
// that advertises listChanged sends list changes to every session, and
// resources/subscribe adds a URI to the session's watched set for
// notifications/resources/updated. Each initialized classic session has
// one watcher in the hub, a subscription with no id that is never
// acknowledged and whose notices carry no subscriptionId. On stdio its
// notices are written as lines at once; on HTTP they wait in its pending
// set (coalesced like a listen request's, so bounded by 3 + watched URIs
// however long the client stays away) until the session's GET stream
// takes them.
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

// watchSession returns sess's watcher, registering it with the hub the
// first time: from notifications/initialized (list changes are sent once
// the client said it is ready; a change before that is one its first
// list already shows), or from resources/subscribe when that arrives
// first. It returns nil when the session has ended; the session's end
// unregisters it (session.end), so nothing outlives the session.
func (s *server) watchSession(sess *session) *subscription {
	return sess.watcher(s.subs, func() *subscription {
		// The types honoured are those the capabilities advertise for
		// this registry: a server without prompts sends no
		// prompts/list_changed.
		all := subscriptionFilter{tools: true, prompts: true, resources: true}
		return &subscription{session: sess, share: sess.share, want: all.honoured(s.registry()), uris: map[string]bool{}, wake: sess.wake, queued: map[notice]bool{}}
	})
}

// handleResourcesSubscribe serves resources/subscribe: uri joins the
// session's watched set, at most -max-subscription-uris of them. A URI
// the server cannot read (no resource, no template matches) is the
// classic resource-not-found error, -32002 with the URI in data, as for
// resources/read: watching it could never yield an update. Subscribing
// twice is not an error.
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

// handleResourcesUnsubscribe serves resources/unsubscribe: uri leaves the
// session's watched set. A URI not watched is not an error: the outcome
// the client asked for holds.
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

// encodeClassicNotice writes n as the classic revisions spell it: no
// subscriptionId, and list_changed without params.
func encodeClassicNotice(n notice) []byte {
	if n.kind == noticeResourceUpdated {
		return encodeNotification(methodResourcesUpdated, map[string]string{"uri": n.uri})
	}
	return []byte(`{"jsonrpc":"2.0","method":"` + noticeMethods[n.kind] + `"}` + "\n")
}
