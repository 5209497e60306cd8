// Live registries and subscriptions/listen: the hub fanning list changes, resource updates and
// task states out to open listens and classic sessions' watchers (classic_subscriptions.go) on
// any transport, and the listen handler. docs/GAPS.md ("Subscriptions") has the choices.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation,
// https://modelcontextprotocol.io/specification/2026-07-28/server/tools#list-changed-notification,
// https://modelcontextprotocol.io/specification/2026-07-28/server/prompts#list-changed-notification,
// https://modelcontextprotocol.io/specification/2026-07-28/server/resources#subscriptions

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sync"
)

// The notifications a subscription carries.
const (
	methodSubscriptionsListen       = "subscriptions/listen"
	methodSubscriptionsAcknowledged = "notifications/subscriptions/acknowledged"
	methodToolsListChanged          = "notifications/tools/list_changed"
	methodPromptsListChanged        = "notifications/prompts/list_changed"
	methodResourcesListChanged      = "notifications/resources/list_changed"
	methodResourcesUpdated          = "notifications/resources/updated"
)

// Limits on what subscriptions may hold (docs/RELIABILITY.md, "Limits").
const (
	// defaultMaxSubscriptions bounds the listens open at once (-max-subscriptions): each holds
	// a request slot, so the bound stays well under -max-requests (deriveSubscriptions).
	defaultMaxSubscriptions = 32
	// noSubscriptions as maxSubscriptions allows none: -max-requests 1 spares no slot.
	noSubscriptions = -1
	// defaultMaxSubscriptionURIs bounds the URIs one watcher holds
	// (-max-subscription-uris): every publish looks each up.
	defaultMaxSubscriptionURIs = 256
	// maxSubscriptionURIBytes bounds one watched URI.
	maxSubscriptionURIBytes = 4096
	// watchedURIMean is the URI length the byte budgets assume: one
	// watcher may hold -max-subscription-uris URIs of it on average.
	watchedURIMean = 1024
	// watchedURIOverhead is what a watched URI costs besides its bytes.
	watchedURIOverhead = 64
	// watchedBudgetWatchers is how many watchers' worth of URIs the server
	// holds in all, each client its share (TestAttackSubscribeMemory).
	watchedBudgetWatchers = 64
)

// watchedCost is what watching uri costs from the byte budgets.
func watchedCost(uri string) int64 { return int64(len(uri)) + watchedURIOverhead }

// noticeKind is one type of event a subscription may opt in to.
type noticeKind uint8

// The SubscriptionFilter's four notification types, and the tasks one.
const (
	noticeToolsListChanged noticeKind = iota
	noticePromptsListChanged
	noticeResourcesListChanged
	noticeResourceUpdated
	noticeTaskStatus
)

// noticeMethods spells each kind on the wire, indexed by noticeKind.
var noticeMethods = [...]string{
	methodToolsListChanged,
	methodPromptsListChanged,
	methodResourcesListChanged,
	methodResourcesUpdated,
	methodTasksStatus,
}

// notice is one event published to the hub, comparable to key pending sets.
type notice struct {
	kind noticeKind
	uri  string // noticeResourceUpdated only
	task string // noticeTaskStatus only: the task id
}

// subscriptionFilter is a decoded SubscriptionFilter: asked for by a listen, or honoured.
// [§Notification Filter]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#notification-filter
type subscriptionFilter struct {
	tools, prompts, resources bool
	uris                      []string // deduplicated, in request order
	taskIDs                   []string // the tasks extension's taskIds: deduplicated, in request order
}

// filterMembers are the SubscriptionFilter members known here (taskIds: the tasks extension's).
var filterMembers = []string{"toolsListChanged", "promptsListChanged", "resourcesListChanged", "resourceSubscriptions", "taskIds"}

// parseSubscriptionFilter decodes params.notifications. Unknown members (a later revision's)
// are ignored and unacknowledged; one imitating a known member by case folding is refused.
func parseSubscriptionFilter(raw []byte, maxURIs int) (subscriptionFilter, *rpcError) {
	var f subscriptionFilter
	if raw == nil {
		return f, invalidParams("invalid params: notifications is required")
	}
	members, err := objectMembers(raw)
	if err != nil {
		return f, invalidParams("invalid params: notifications must be an object")
	}
	for _, m := range members {
		var flag *bool
		var rerr *rpcError
		switch m.name {
		case "toolsListChanged":
			flag = &f.tools
		case "promptsListChanged":
			flag = &f.prompts
		case "resourcesListChanged":
			flag = &f.resources
		case "resourceSubscriptions":
			f.uris, rerr = parseStringList(m.value, "resourceSubscriptions", "URI", "maxUris", maxSubscriptionURIBytes, maxURIs)
		case "taskIds":
			f.taskIDs, rerr = parseStringList(m.value, "taskIds", "task id", "maxTaskIds", maxTaskIDBytes, maxURIs)
		default:
			if known := foldedName(m.name, filterMembers...); known != "" {
				rerr = newError(codeInvalidRequest, "invalid request: notifications member %q is not %q", m.name, known)
			}
		}
		if rerr != nil {
			return f, rerr
		}
		if flag == nil {
			continue
		}
		v := string(bytes.TrimSpace(m.value))
		if v != "true" && v != "false" {
			return f, invalidParams("invalid params: notifications.%s must be a boolean", m.name)
		}
		*flag = v == "true"
	}
	return f, nil
}

// parseStringList decodes the filter member name: at most maxItems strings (each a noun) of 1
// to maxBytes bytes, deduplicated; limit names the bound in the error's data. Too long an array
// (duplicates counted) is refused before the rest is read (TestAttackSmallAmplifiers).
func parseStringList(raw []byte, name, noun, limit string, maxBytes, maxItems int) ([]string, *rpcError) {
	malformed := invalidParams("invalid params: notifications.%s must be an array of strings", name)
	if jsonKind(raw) != '[' {
		return nil, malformed
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, malformed
	}
	items, seen := []string{}, map[string]bool{}
	for n := 0; dec.More(); n++ {
		if n == maxItems {
			return nil, limitError(codeInvalidParams, map[string]int{limit: maxItems},
				"invalid params: notifications.%s: more than %d %ss", name, maxItems, noun)
		}
		tok, err := dec.Token()
		item, ok := tok.(string)
		if err != nil || !ok {
			return nil, malformed
		}
		if item == "" || len(item) > maxBytes {
			return nil, invalidParams("invalid params: notifications.%s: a %s must have 1 to %d bytes", name, noun, maxBytes)
		}
		if !seen[item] {
			seen[item] = true
			items = append(items, item)
		}
	}
	return items, nil
}

// honoured narrows f to the capabilities reg advertises; the schema's
// example omits promptsListChanged "when the server has no prompts".
// [§Acknowledgment]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#acknowledgment
func (f subscriptionFilter) honoured(reg *registry) subscriptionFilter {
	hasResources := len(reg.resources) > 0 || len(reg.templates) > 0
	out := subscriptionFilter{
		tools:     f.tools && len(reg.tools) > 0,
		prompts:   f.prompts && len(reg.prompts) > 0,
		resources: f.resources && hasResources,
	}
	if hasResources && len(f.uris) > 0 {
		out.uris = f.uris
	}
	return out
}

// subscription is one open subscriptions/listen request, or a classic session's watcher, owned
// by its listen handler or session; the hub only appends to pending and wakes it. pending is a
// set, not a queue (a notice says only "look again"): it holds at most 3+len(uris)+len(tasks)
// however slowly the client reads (docs/GAPS.md, "Subscriptions").
type subscription struct {
	id           []byte   // the listen request's raw JSON-RPC id; nil for a classic session
	share        string   // the client's caller.share; "" on stdio
	watchedBytes int64    // what uris costs from the hub's budget (guarded by the hub's mu)
	session      *session // the classic session this watcher delivers to; nil for a listen
	want         subscriptionFilter
	uris         map[string]bool // want.uris as a set; a classic session's resources/subscribe set (guarded by the hub's mu)
	tasks        map[string]bool // want.taskIDs as a set, less the tasks that ended (guarded by the hub's mu)
	wake         chan struct{}   // capacity 1: pending became non-empty

	pending []notice        // guarded by the hub's mu
	queued  map[notice]bool // guarded by the hub's mu; the members of pending
}

// wants reports whether the subscription opted in to n.
func (sub *subscription) wants(n notice) bool {
	switch n.kind {
	case noticeToolsListChanged:
		return sub.want.tools
	case noticePromptsListChanged:
		return sub.want.prompts
	case noticeResourcesListChanged:
		return sub.want.resources
	case noticeTaskStatus:
		return sub.tasks[n.task]
	default:
		return sub.uris[n.uri]
	}
}

// subscriptionHub fans notices out to the open listens, which write through their request's
// send, and to the classic sessions' watchers, written to through the session's sink
// (stdio) or drained by its GET stream (HTTP). One per server.
type subscriptionHub struct {
	listens       *shareLimit // counts subs; taken and given only under mu
	maxURIs       int         // URIs per watcher
	maxWatchBytes int64       // what one watcher's URIs may cost (watchedCost)
	watched       *shareLimit // what all watchers' URIs cost

	mu      sync.Mutex      // guards subs, classic, the use of listens, and pending, queued, uris, tasks and watchedBytes of each subscription in them
	subs    []*subscription // open listen requests, in opening order
	classic []*subscription // watchers of initialized classic sessions (bounded by the transports' session limits)
}

// newSubscriptionHub returns a hub with the given limits (0: the default;
// maxSubs noSubscriptions: none), a client holding pct percent of each.
func newSubscriptionHub(maxSubs, maxURIs, pct int) *subscriptionHub {
	switch {
	case maxSubs == noSubscriptions:
		maxSubs = 0
	case maxSubs <= 0:
		maxSubs = defaultMaxSubscriptions
	}
	if maxURIs <= 0 {
		maxURIs = defaultMaxSubscriptionURIs
	}
	if pct <= 0 {
		pct = defaultClientShare
	}
	perWatcher := int64(maxURIs) * watchedURIMean
	budget := watchedBudgetWatchers * perWatcher
	return &subscriptionHub{
		listens: newShareLimit(int64(maxSubs), shareOf(int64(maxSubs), pct, shareFloor)),
		maxURIs: maxURIs, maxWatchBytes: perWatcher, watched: newShareLimit(budget, shareOf(budget, pct, perWatcher)),
	}
}

// open registers a subscription for the listen request id of a client of share, or refuses
// it when a bound or the client's share of it is full. The caller must close it.
func (h *subscriptionHub) open(id []byte, want subscriptionFilter, share string) (*subscription, *rpcError) {
	sub := &subscription{id: id, share: share, want: want, uris: map[string]bool{}, tasks: map[string]bool{}, wake: make(chan struct{}, 1), queued: map[notice]bool{}}
	for _, u := range want.uris {
		sub.uris[u] = true
		sub.watchedBytes += watchedCost(u)
	}
	for _, id := range want.taskIDs {
		sub.tasks[id] = true
	}
	if sub.watchedBytes > h.maxWatchBytes {
		return nil, h.tooManyBytes("notifications.resourceSubscriptions")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	// -32603 with the limit in data: no MCP code exists for exhaustion.
	if h.listens.totalFull(1) {
		return nil, limitError(codeInternalError, map[string]int64{"maxSubscriptions": h.listens.total},
			"subscriptions/listen: too many open subscriptions (limit %d)", h.listens.total)
	}
	if !h.listens.take(share, 1) {
		return nil, limitError(codeInternalError,
			map[string]int64{"maxSubscriptions": h.listens.total, "clientShare": h.listens.per},
			"subscriptions/listen: this client has %d subscriptions open, its share of %d", h.listens.per, h.listens.total)
	}
	if sub.watchedBytes > 0 && !h.watched.take(share, sub.watchedBytes) {
		h.listens.give(share, 1)
		return nil, h.budgetSpent(methodSubscriptionsListen, share, sub.watchedBytes)
	}
	h.subs = append(h.subs, sub)
	return sub, nil
}

// tooManyBytes is the -32602 for a watcher's URIs over maxWatchBytes; what names the member.
func (h *subscriptionHub) tooManyBytes(what string) *rpcError {
	return limitError(codeInvalidParams, map[string]int64{"maxWatchedBytes": h.maxWatchBytes},
		"invalid params: %s: the URIs watched would exceed %d bytes", what, h.maxWatchBytes)
}

// budgetSpent is the -32603 for URIs the watched budget (or the client's share) cannot hold.
func (h *subscriptionHub) budgetSpent(method, share string, n int64) *rpcError {
	if h.watched.shareFull(share, n) {
		return limitError(codeInternalError,
			map[string]int64{"watchedBytesBudget": h.watched.total, "clientShare": h.watched.per},
			"%s: this client watches %d bytes of URIs, its share of the server's %d", method, h.watched.per, h.watched.total)
	}
	return limitError(codeInternalError, map[string]int64{"watchedBytesBudget": h.watched.total},
		"%s: the server watches too many URIs (budget %d bytes)", method, h.watched.total)
}

// close removes sub from the hub and gives back what it held.
func (h *subscriptionHub) close(sub *subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if i := slices.Index(h.subs, sub); i >= 0 {
		h.subs = slices.Delete(h.subs, i, i+1)
		h.listens.give(sub.share, 1)
		h.releaseLocked(sub)
	}
}

// releaseLocked gives back the budget sub's URIs took.
func (h *subscriptionHub) releaseLocked(sub *subscription) {
	if sub.watchedBytes > 0 {
		h.watched.give(sub.share, sub.watchedBytes)
		sub.watchedBytes = 0
	}
}

// publish hands n to every listen and classic session that opted in, blocking on none but a
// stdio session, written outside the lock: stdout is its backpressure, as for any response.
func (h *subscriptionHub) publish(n notice) {
	var direct []*session
	h.mu.Lock()
	for _, sub := range h.subs {
		if sub.wants(n) {
			sub.queueLocked(n)
		}
	}
	for _, w := range h.classic {
		switch {
		case !w.wants(n):
		case w.session.wake == nil:
			direct = append(direct, w.session)
		default:
			w.queueLocked(n)
		}
	}
	h.mu.Unlock()
	if len(direct) == 0 {
		return
	}
	msg := encodeClassicNotice(n)
	for _, sess := range direct {
		select {
		case <-sess.done: // ended since: its transport writes nothing more
		default:
			sess.push(msg)
		}
	}
}

// queueLocked adds n to sub's pending set and wakes sub's reader.
func (sub *subscription) queueLocked(n notice) {
	if sub.queued[n] {
		return
	}
	sub.pending = append(sub.pending, n)
	sub.queued[n] = true
	select {
	case sub.wake <- struct{}{}:
	default: // already awake
	}
}

// take returns and clears sub's pending notices, oldest first.
func (h *subscriptionHub) take(sub *subscription) []notice {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := sub.pending
	sub.pending = nil
	clear(sub.queued)
	return out
}

// forgetTask stops sub watching task id, whose final state went out or is gone.
func (h *subscriptionHub) forgetTask(sub *subscription, id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(sub.tasks, id)
}

// watchesTask reports whether sub still watches task id.
func (h *subscriptionHub) watchesTask(sub *subscription, id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return sub.tasks[id]
}

// count returns the number of open subscriptions.
func (h *subscriptionHub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// classicCount returns the number of classic sessions watched.
func (h *subscriptionHub) classicCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.classic)
}

// watch registers a classic session's watcher (session.watcher calls it).
func (h *subscriptionHub) watch(w *subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.classic = append(h.classic, w)
}

// unwatch removes a classic session's watcher, giving back what its URIs
// took. Lock order: a session's mu, then the hub's.
func (h *subscriptionHub) unwatch(w *subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if i := slices.Index(h.classic, w); i >= 0 {
		h.classic = slices.Delete(h.classic, i, i+1)
		h.releaseLocked(w)
	}
}

// watchURI adds uri to a classic watcher's set, within maxURIs,
// maxWatchBytes, the budget and the client's share of it.
func (h *subscriptionHub) watchURI(w *subscription, uri string) *rpcError {
	h.mu.Lock()
	defer h.mu.Unlock()
	if w.uris[uri] {
		return nil
	}
	if len(w.uris) >= h.maxURIs {
		return limitError(codeInvalidParams, map[string]int{"maxUris": h.maxURIs},
			"invalid params: %s: this session already watches %d URIs", methodResourcesSubscribe, h.maxURIs)
	}
	cost := watchedCost(uri)
	if w.watchedBytes+cost > h.maxWatchBytes {
		return h.tooManyBytes("uri")
	}
	if !h.watched.take(w.share, cost) {
		return h.budgetSpent(methodResourcesSubscribe, w.share, cost)
	}
	w.uris[uri] = true
	w.watchedBytes += cost
	return nil
}

// unwatchURI removes uri from a classic watcher's set.
func (h *subscriptionHub) unwatchURI(w *subscription, uri string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if w.uris[uri] {
		delete(w.uris, uri)
		cost := watchedCost(uri)
		w.watchedBytes -= cost
		h.watched.give(w.share, cost)
	}
}

// resourceUpdated tells subscribers of uri that it changed; a resource's owner calls it once
// the change is visible to resources/read. Only the exact URI is notified (docs/GAPS.md).
// [§Subscriptions]: https://modelcontextprotocol.io/specification/2026-07-28/server/resources#subscriptions
func (s *server) resourceUpdated(uri string) {
	s.subs.publish(notice{kind: noticeResourceUpdated, uri: uri})
}

// listChanged announces that a list changed without changing the registry
// (the conformance triggers); update announces real changes itself.
func (s *server) listChanged(kind noticeKind) {
	s.subs.publish(notice{kind: kind})
}

// publishChanges announces the lists that differ between prev and next once next is stored, so
// a client that re-lists sees next or later; templates count as resources.
func (s *server) publishChanges(prev, next *registry) {
	if !slices.Equal(prev.tools, next.tools) {
		s.subs.publish(notice{kind: noticeToolsListChanged})
	}
	if !slices.Equal(prev.prompts, next.prompts) {
		s.subs.publish(notice{kind: noticePromptsListChanged})
	}
	if !slices.Equal(prev.resources, next.resources) || !slices.Equal(prev.templates, next.templates) {
		s.subs.publish(notice{kind: noticeResourcesListChanged})
	}
}

// handleSubscriptionsListen serves subscriptions/listen: it acknowledges the honoured filter,
// then writes each notice through req.send until the client cancels (ctx ends: nothing more is
// written) or the transport shuts down (req.closing: the graceful-closure result).
// [§Subscriptions]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
func (s *server) handleSubscriptionsListen(ctx context.Context, req *request) (result, error) {
	if req.send == nil {
		return result{}, newError(codeMethodNotFound, "method not found: %s needs a transport that streams notifications", methodSubscriptionsListen)
	}
	asked, rerr := parseSubscriptionFilter(req.param("notifications"), s.subs.maxURIs)
	if rerr != nil {
		return result{}, rerr
	}
	want := asked.honoured(s.registry())
	if len(asked.taskIDs) > 0 {
		// Only the caller's live tasks are watched and acknowledged.
		// [§Task Status Notifications]: SEP-2663, "If a client requests task status notifications but does not declare the io.modelcontextprotocol/tasks extension capability, the server MUST return" -32021
		if !clientCaps(req.meta.capabilities).tasks {
			return result{}, missingCapabilityError([]string{capabilityTasks})
		}
		want.taskIDs = s.tasks.owned(asked.taskIDs, req.caller.binding())
	}
	sub, rerr := s.subs.open(req.id, want, req.caller.share)
	if rerr != nil {
		return result{}, rerr
	}
	defer s.subs.close(sub)
	req.send(sub.encodeAck()) // first: later notices wait in pending
	// A task's notice carries its state when written, so pending changes coalesce; each watched
	// task's state follows the ack, so a task ended before the listen is still told.
	sendTask := func(id string) {
		if !s.subs.watchesTask(sub, id) {
			return // its final state went out already
		}
		m, terminal, err := s.tasks.get(id, req.caller.binding())
		if err == nil {
			req.send(sub.encodeTask(m.joinObject()))
		}
		if err != nil || terminal {
			s.subs.forgetTask(sub, id)
		}
	}
	for _, id := range want.taskIDs {
		sendTask(id)
	}
	flush := func() {
		for _, n := range s.subs.take(sub) {
			if n.kind == noticeTaskStatus {
				sendTask(n.task)
				continue
			}
			req.send(sub.encode(n))
		}
	}
	expired, stopExpiry := req.caller.expiry()
	defer stopExpiry()
	for {
		select {
		case <-sub.wake:
			flush()
			continue
		case <-req.closing:
		case <-expired: // the credential expired: the client listens again with a fresh one
		case <-ctx.Done():
			// Shutdown closes closing before it cancels requests.
			select {
			case <-req.closing:
				return sub.closure(), nil
			default:
			}
			// The client cancelled or went away: nothing more is written; the
			// request ends cancelled (endedBy), never internal error (TestOutcomes).
			return result{}, context.Cause(ctx)
		}
		flush()
		return sub.closure(), nil
	}
}

// listenClosed is the notifications/cancelled closing the subscriptions/listen id on stdio,
// written after the graceful result that ended it (reply.closesListen). Why both, in this
// order: docs/GAPS.md (row 28); testdata/subscriptions/*.txt (EOF, SHUTDOWN) pin it.
// [§Cancellation]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation
// [§Graceful Closure]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#graceful-closure
func listenClosed(id []byte) []byte {
	return encodeNotification(methodCancelled, cancelledParams{RequestID: json.RawMessage(id), Reason: "the server closed the subscription"})
}

// closure is SubscriptionsListenResult, the graceful end, with sub's id.
// [§Graceful Closure]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#graceful-closure
func (sub *subscription) closure() result {
	return result{meta: sub.metaMember()}
}

// metaMember is the subscriptionId _meta member every message of sub carries.
func (sub *subscription) metaMember() []byte {
	return append([]byte(`"`+metaSubscriptionID+`":`), sub.id...)
}

// encodeAck writes notifications/subscriptions/acknowledged, its filter
// a SubscriptionFilter that omits the types not honoured.
func (sub *subscription) encodeAck() []byte {
	f := sub.want
	filter, _ := json.Marshal(struct { // bools and strings always encode
		ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
		PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
		ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
		ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
		TaskIDs               []string `json:"taskIds,omitempty"`
	}{f.tools, f.prompts, f.resources, f.uris, f.taskIDs})
	return sub.encodeNotice(methodSubscriptionsAcknowledged, `"notifications":`, filter)
}

// encode writes the notification for n, tagged with the subscription id.
func (sub *subscription) encode(n notice) []byte {
	if n.kind != noticeResourceUpdated {
		return sub.encodeNotice(noticeMethods[n.kind], "", nil)
	}
	uri, _ := json.Marshal(n.uri) // a string always encodes
	return sub.encodeNotice(methodResourcesUpdated, `"uri":`, uri)
}

// encodeTask writes notifications/tasks for a task's DetailedTask body (as tasks/get shows it).
// [§Task Status Notifications]: SEP-2663, "Each notification carries a complete DetailedTask"
func (sub *subscription) encodeTask(body []byte) []byte {
	inner := bytes.TrimSpace(body)
	inner = bytes.TrimSpace(inner[1 : len(inner)-1])
	return sub.encodeNotice(methodTasksStatus, string(inner), nil)
}

// encodeNotice writes {"jsonrpc","method","params":{"_meta":{id},name value}}.
func (sub *subscription) encodeNotice(method, name string, value []byte) []byte {
	b := make([]byte, 0, 128+len(sub.id)+len(value))
	b = append(b, `{"jsonrpc":"2.0","method":"`...)
	b = append(b, method...)
	b = append(b, `","params":{"_meta":{`...)
	b = append(b, sub.metaMember()...)
	b = append(b, '}')
	if name != "" {
		b = append(b, ',')
		b = append(b, name...)
		b = append(b, value...)
	}
	return append(b, "}}\n"...)
}
