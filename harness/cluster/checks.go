// The checks that need no restart: modern requests spread over the
// replicas, multi round-trip requests answered by different replicas,
// classic sessions held by one replica (both HTTP transports), the rate
// limit per client behind the proxy, and tasks routed to their owner.

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// suite records the checks' outcomes.
type suite struct {
	mu             sync.Mutex // guards passed, failed
	passed, failed int
}

// check records one outcome and prints it.
func (s *suite) check(name string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.failed++
		fmt.Printf("FAIL %s: %v\n", name, err)
		return
	}
	s.passed++
	fmt.Printf("PASS %s\n", name)
}

// skip prints a check that cannot run here and why; it counts as neither.
func (s *suite) skip(name, why string) {
	fmt.Printf("SKIP %s: %s\n", name, why)
}

// checkSpread sends modern requests of every kind through the balancer
// and wants every one answered, and every replica to have answered some.
func checkSpread(c *cluster) error {
	hc := newClient("")
	defer hc.CloseIdleConnections()
	bodies := []string{
		modern(1, "server/discover", "", capsNone),
		modern(2, "tools/list", "", capsNone),
		modern(3, "tools/call", `"name":"echo","arguments":{"message":"spread"}`, capsNone),
		modern(4, "resources/list", "", capsNone),
		modern(5, "resources/read", `"uri":"demo://readme"`, capsNone),
		modern(6, "prompts/list", "", capsNone),
		modern(7, "prompts/get", `"name":"greet","arguments":{"name":"cluster"}`, capsNone),
		modern(8, "tools/call", `"name":"add","arguments":{"a":2,"b":3}`, capsNone),
		modern(9, "resources/templates/list", "", capsNone),
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	served := map[string]map[string]int{} // replica -> method -> count
	var errs []string
	for round := range 10 {
		for _, body := range bodies {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rep, err := postModern(hc, c.url, body)
				mu.Lock()
				defer mu.Unlock()
				method := headersFor(body)["Mcp-Method"]
				switch {
				case err != nil:
					errs = append(errs, fmt.Sprintf("%s (round %d): %v", method, round, err))
				case !rep.ok():
					errs = append(errs, fmt.Sprintf("%s (round %d): %v", method, round, rep))
				default:
					if served[rep.servedBy] == nil {
						served[rep.servedBy] = map[string]int{}
					}
					served[rep.servedBy][method]++
				}
			}()
		}
		wg.Wait()
	}
	if len(errs) > 0 {
		return fmt.Errorf("%d of %d failed: %s", len(errs), 10*len(bodies), strings.Join(errs[:min(3, len(errs))], "; "))
	}
	for _, r := range c.d.replicas {
		n := 0
		for _, k := range served[r.name] {
			n += k
		}
		if n == 0 || served[r.name]["tools/call"] == 0 {
			return fmt.Errorf("replica %s answered %d requests (%d tools/call): the balancer does not spread them (%v)", r.name, n, served[r.name]["tools/call"], served)
		}
	}
	fmt.Printf("     %d requests, every one answered: %s\n", 10*len(bodies), spreadLine(served))
	return nil
}

// spreadLine prints how many requests each replica answered.
func spreadLine(served map[string]map[string]int) string {
	var parts []string
	for name, m := range served {
		n := 0
		for _, k := range m {
			n += k
		}
		parts = append(parts, fmt.Sprintf("%s %d", name, n))
	}
	return strings.Join(sortStrings(parts), ", ")
}

// checkMRTR sends the first round of a multi round-trip tools/call, then
// the retry carrying the answer and requestState until each of the other
// replicas has answered it: the shared state key makes any replica's
// requestState good on every other.
func checkMRTR(c *cluster, tool, args, key, answer, want string) error {
	hc := newClient("")
	defer hc.CloseIdleConnections()
	first, err := postModern(hc, c.url, modern(1, "tools/call", fmt.Sprintf(`"name":%q,"arguments":%s`, tool, args), capsInput))
	if err != nil {
		return err
	}
	var round struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	if !first.ok() || json.Unmarshal(first.final().Result, &round) != nil || round.ResultType != "input_required" || round.InputRequests[key] == nil || round.RequestState == "" {
		return fmt.Errorf("first round: want input_required asking %q with a requestState, got %v", key, first)
	}
	retry := modern(2, "tools/call", fmt.Sprintf(`"name":%q,"arguments":%s,"inputResponses":{%q:%s},"requestState":%q`, tool, args, key, answer, round.RequestState), capsInput)
	others := map[string]bool{}
	for _, r := range c.d.replicas {
		if r.name != first.servedBy {
			others[r.name] = false
		}
	}
	for attempt := 0; attempt < placementAttempts; attempt++ {
		rep, err := postModern(hc, c.url, retry)
		if err != nil {
			return err
		}
		if !rep.ok() || rep.field("resultType") != "complete" || rep.text() != want {
			return fmt.Errorf("retry answered by %s: want %q, got %v", rep.servedBy, want, rep)
		}
		if _, other := others[rep.servedBy]; other {
			others[rep.servedBy] = true
		}
		done := true
		for _, seen := range others {
			done = done && seen
		}
		if done {
			fmt.Printf("     round 1 answered by %s, the retry by each of %s\n", first.servedBy, strings.Join(sortStrings(keys(others)), " and "))
			return nil
		}
	}
	return fmt.Errorf("%d retries never reached every other replica than %s: %v", placementAttempts, first.servedBy, others)
}

// classicSession is a classic (2025-11-25) session through the balancer.
type classicSession struct {
	c      *cluster
	hc     *http.Client
	id     string
	holder string // the replica that answered initialize
}

// openClassic sends initialize (and notifications/initialized) through
// the balancer.
func openClassic(c *cluster, hc *http.Client) (*classicSession, error) {
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":%s,"clientInfo":{"name":"cluster-check","version":"1"}}}`, classicVersion, capsInput)
	rep, err := do(hc, http.MethodPost, c.url, init, nil)
	if err != nil {
		return nil, err
	}
	if !rep.ok() || rep.session == "" {
		return nil, fmt.Errorf("initialize: want a result and an Mcp-Session-Id, got %v", rep)
	}
	s := &classicSession{c: c, hc: hc, id: rep.session, holder: rep.servedBy}
	note, err := s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err != nil {
		return nil, err
	}
	if note.status != http.StatusAccepted || note.servedBy != s.holder {
		return nil, fmt.Errorf("notifications/initialized: want 202 from %s, got %v", s.holder, note)
	}
	return s, nil
}

// headers are the session's headers on every later request.
func (s *classicSession) headers() map[string]string {
	return map[string]string{"Mcp-Session-Id": s.id, "MCP-Protocol-Version": classicVersion}
}

// post sends a message of the session.
func (s *classicSession) post(body string) (reply, error) {
	return do(s.hc, http.MethodPost, s.c.url, body, s.headers())
}

// held checks that rep came from the session's replica.
func (s *classicSession) held(what string, rep reply, status int) error {
	if rep.status != status || rep.servedBy != s.holder {
		return fmt.Errorf("%s: want %d from %s (the session's replica), got %v", what, status, s.holder, rep)
	}
	return nil
}

// bridged calls a tool that asks the client for input: the server's
// request arrives on the POST's own event stream, the answer is POSTed
// back with the session's id, and the result follows on the stream.
func (s *classicSession) bridged(id int, tool, args, wantMethod, answer, want string) error {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
	st, err := openStream(s.hc, http.MethodPost, s.c.url, body, s.headers())
	if err != nil {
		return fmt.Errorf("%s: %v", tool, err)
	}
	defer st.close()
	if st.servedBy != s.holder {
		return fmt.Errorf("%s: answered by %s, the session is on %s", tool, st.servedBy, s.holder)
	}
	ev, err := st.next(5 * time.Second)
	if err != nil {
		return fmt.Errorf("%s: waiting for %s: %v", tool, wantMethod, err)
	}
	var ask message
	if json.Unmarshal([]byte(ev), &ask) != nil || ask.Method != wantMethod || ask.ID == nil {
		return fmt.Errorf("%s: want a %s request first, got %s", tool, wantMethod, ev)
	}
	rep, err := s.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, ask.ID, answer))
	if err != nil {
		return err
	}
	if err := s.held("the answer to "+wantMethod, rep, http.StatusAccepted); err != nil {
		return err
	}
	ev, err = st.next(5 * time.Second)
	if err != nil {
		return fmt.Errorf("%s: waiting for the result: %v", tool, err)
	}
	res := reply{status: 200, body: []byte(ev)}
	var m message
	if json.Unmarshal([]byte(ev), &m) == nil {
		res.messages = []message{m}
	}
	if res.text() != want {
		return fmt.Errorf("%s: want %q, got %s", tool, want, ev)
	}
	return nil
}

// checkClassic opens classic sessions through the balancer: initialize
// lands anywhere, and everything later in a session (POSTs, its GET
// stream, the answers to the server's elicitation, sampling and roots
// requests, DELETE) reaches the replica that holds it.
func checkClassic(c *cluster) error {
	hc := newClient("")
	defer hc.CloseIdleConnections()
	var sessions []*classicSession
	holders := map[string]bool{}
	for range 3 {
		s, err := openClassic(c, hc)
		if err != nil {
			return err
		}
		sessions = append(sessions, s)
		holders[s.holder] = true
	}
	if len(holders) < 2 {
		return fmt.Errorf("three initialize requests all landed on %v: the balancer does not spread them", holders)
	}
	s := sessions[0]
	get, err := openStream(hc, http.MethodGet, c.url, "", s.headers())
	if err != nil {
		return fmt.Errorf("GET stream: %v", err)
	}
	defer get.close()
	if get.servedBy != s.holder {
		return fmt.Errorf("GET stream: served by %s, the session is on %s", get.servedBy, s.holder)
	}
	for _, tt := range []struct {
		tool, args, method, answer, want string
	}{
		{"confirm_delete", `{"path":"/cluster"}`, "elicitation/create", `{"action":"accept","content":{"confirm":true}}`, "deleted /cluster"},
		{"ask_model", `{"question":"which replica?"}`, "sampling/createMessage", `{"role":"assistant","content":{"type":"text","text":"the one that asked"},"model":"m"}`, "model said: the one that asked"},
		{"list_roots", `{}`, "roots/list", `{"roots":[{"uri":"file:///cluster","name":"cluster"}]}`, "file:///cluster"},
	} {
		if err := s.bridged(10, tt.tool, tt.args, tt.method, tt.answer, tt.want); err != nil {
			return err
		}
	}
	// A list change on the session's replica reaches its GET stream at
	// once: the stream is on that replica and the proxy does not buffer.
	for i := range 2 {
		rep, err := s.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"toggle_extra_tool","arguments":{}}}`, 20+i))
		if err != nil {
			return err
		}
		if err := s.held("toggle_extra_tool", rep, http.StatusOK); err != nil {
			return err
		}
		ev, err := get.next(3 * time.Second)
		if err != nil || !strings.Contains(ev, `"notifications/tools/list_changed"`) {
			return fmt.Errorf("GET stream after toggle_extra_tool: want notifications/tools/list_changed, got %q (%v)", ev, err)
		}
	}
	for _, other := range sessions[1:] {
		for i := range 3 {
			rep, err := other.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, 30+i))
			if err != nil {
				return err
			}
			if err := other.held("tools/list", rep, http.StatusOK); err != nil {
				return err
			}
		}
	}
	for _, each := range sessions {
		rep, err := do(hc, http.MethodDelete, c.url, "", each.headers())
		if err != nil {
			return err
		}
		if rep.servedBy != each.holder || rep.status >= 300 {
			return fmt.Errorf("DELETE: want 2xx from %s, got %v", each.holder, rep)
		}
		after, err := each.post(`{"jsonrpc":"2.0","id":40,"method":"tools/list"}`)
		if err != nil {
			return err
		}
		if err := each.held("a request after DELETE", after, http.StatusNotFound); err != nil {
			return err
		}
	}
	if _, err := get.next(3 * time.Second); err == nil || !strings.Contains(err.Error(), errStreamEnded.Error()) {
		return fmt.Errorf("the GET stream did not end with its session: %v", err)
	}
	fmt.Printf("     initialize answered by %s; every later request by its session's replica\n", strings.Join(sortStrings(keys(holders)), ", "))
	return nil
}

// checkClassicSSE opens sessions of the 2024-11-05 HTTP+SSE transport:
// the stream's session id starts with its replica's id, and every POST to
// /messages reaches that replica.
func checkClassicSSE(c *cluster) error {
	hc := newClient("")
	defer hc.CloseIdleConnections()
	holders := map[string]bool{}
	for range 3 {
		st, err := openStream(hc, http.MethodGet, c.base+"/sse", "", nil)
		if err != nil {
			return fmt.Errorf("GET /sse: %v", err)
		}
		defer st.close()
		ev, err := st.next(3 * time.Second)
		if err != nil {
			return fmt.Errorf("GET /sse: endpoint event: %v", err)
		}
		endpoint, err := url.Parse(ev)
		if err != nil || !strings.HasPrefix(endpoint.Query().Get("sessionId"), st.servedBy+".") {
			return fmt.Errorf("GET /sse from %s: endpoint %q, want a sessionId starting with %s.", st.servedBy, ev, st.servedBy)
		}
		holders[st.servedBy] = true
		post := func(body string) error {
			rep, err := do(hc, http.MethodPost, c.base+endpoint.String(), body, nil)
			if err != nil {
				return err
			}
			if rep.status != http.StatusAccepted || rep.servedBy != st.servedBy {
				return fmt.Errorf("POST %s: want 202 from %s, got %v", endpoint, st.servedBy, rep)
			}
			return nil
		}
		steps := []struct{ body, want string }{
			{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"cluster-check","version":"1"}}}`, `"protocolVersion":"2024-11-05"`},
			{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, ""},
			{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"over /sse"}}}`, `"text":"over /sse"`},
		}
		for _, step := range steps {
			if err := post(step.body); err != nil {
				return err
			}
			if step.want == "" {
				continue
			}
			if ev, err := st.next(3 * time.Second); err != nil || !strings.Contains(ev, step.want) {
				return fmt.Errorf("/sse stream on %s: want %s, got %q (%v)", st.servedBy, step.want, ev, err)
			}
		}
	}
	if len(holders) < 2 {
		return fmt.Errorf("three GET /sse all landed on %v", holders)
	}
	fmt.Printf("     streams on %s; each stream's POSTs reached it\n", strings.Join(sortStrings(keys(holders)), ", "))
	return nil
}

// checkRateShares floods tools/call from one client address until every
// replica refuses it (429), then calls from another address, which must
// be served everywhere: behind HAProxy's X-Forwarded-For and the
// replicas' -trusted-proxy, each client has its own share of the limit.
func checkRateShares(c *cluster) error {
	flooder, other := newClient("127.0.0.50"), newClient("127.0.0.51")
	defer flooder.CloseIdleConnections()
	defer other.CloseIdleConnections()
	call := modern(1, "tools/call", `"name":"echo","arguments":{"message":"flood"}`, capsNone)
	limited := map[string]bool{}
	var mu sync.Mutex
	deadline := time.Now().Add(20 * time.Second)
	sent := 0
	for len(limited) < len(c.d.replicas) && time.Now().Before(deadline) {
		var wg sync.WaitGroup
		for range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rep, err := postModern(flooder, c.url, call)
				if err == nil && rep.status == http.StatusTooManyRequests {
					mu.Lock()
					limited[rep.servedBy] = true
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		sent += 32
	}
	if len(limited) < len(c.d.replicas) {
		return fmt.Errorf("after %d calls from one address only %v refused it: is the rate limit on?", sent, limited)
	}
	served := map[string]int{}
	for range 2 * len(c.d.replicas) {
		rep, err := postModern(other, c.url, call)
		if err != nil {
			return err
		}
		if !rep.ok() {
			return fmt.Errorf("another client, right after the flood: %v (it shares the flooder's limit)", rep)
		}
		served[rep.servedBy]++
	}
	fmt.Printf("     127.0.0.50 refused (429) by every replica after %d calls; 127.0.0.51 then served by %s\n", sent, strings.Join(sortStrings(mapLines(served)), ", "))
	return nil
}

// checkTasks creates tasks through the balancer and follows each one
// there: every tasks/get, tasks/update and tasks/cancel must reach the
// replica its id names. confirm_delete waits for its answer (input
// required, then updated, then completed); slow is cancelled while it
// works.
func checkTasks(c *cluster) error {
	hc := newClient("")
	defer hc.CloseIdleConnections()
	owners := map[string]bool{}
	follow := func(taskID string, body string) (reply, error) {
		rep, err := postModern(hc, c.url, body)
		if err != nil {
			return rep, err
		}
		owner, _, _ := strings.Cut(taskID, ".")
		if !rep.ok() || rep.servedBy != owner {
			return rep, fmt.Errorf("task %s: want an answer from %s, got %v", taskID, owner, rep)
		}
		return rep, nil
	}
	poll := func(taskID, want string) (reply, error) {
		deadline := time.Now().Add(10 * time.Second)
		for {
			rep, err := follow(taskID, modern(5, "tasks/get", fmt.Sprintf(`"taskId":%q`, taskID), capsTasks))
			if err != nil || rep.field("status") == want {
				return rep, err
			}
			if time.Now().After(deadline) {
				return rep, fmt.Errorf("task %s: status %q after 10s, want %q", taskID, rep.field("status"), want)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for i := range 3 {
		path := fmt.Sprintf("/cluster/%d", i)
		rep, err := postModern(hc, c.url, modern(1, "tools/call", fmt.Sprintf(`"name":"confirm_delete","arguments":{"path":%q}`, path), capsTasks))
		if err != nil {
			return err
		}
		taskID := rep.field("taskId")
		if !rep.ok() || rep.field("resultType") != "task" || !strings.HasPrefix(taskID, rep.servedBy+".") {
			return fmt.Errorf("confirm_delete as a task: want a task whose id starts with the creating replica %s, got %v", rep.servedBy, rep)
		}
		owners[rep.servedBy] = true
		if _, err := poll(taskID, "input_required"); err != nil {
			return err
		}
		if _, err := follow(taskID, modern(2, "tasks/update", fmt.Sprintf(`"taskId":%q,"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}`, taskID), capsTasks)); err != nil {
			return err
		}
		done, err := poll(taskID, "completed")
		if err != nil {
			return err
		}
		if !strings.Contains(string(done.body), `"text":"deleted `+path+`"`) {
			return fmt.Errorf("task %s completed with %s, want deleted %s", taskID, done.body, path)
		}
		rep, err = postModern(hc, c.url, modern(3, "tools/call", `"name":"slow","arguments":{"steps":100}`, capsTasks))
		if err != nil {
			return err
		}
		slowID := rep.field("taskId")
		if !rep.ok() || !strings.HasPrefix(slowID, rep.servedBy+".") {
			return fmt.Errorf("slow as a task: %v", rep)
		}
		owners[rep.servedBy] = true
		if _, err := follow(slowID, modern(4, "tasks/cancel", fmt.Sprintf(`"taskId":%q`, slowID), capsTasks)); err != nil {
			return err
		}
		if _, err := poll(slowID, "cancelled"); err != nil {
			return err
		}
	}
	if len(owners) < 2 {
		return fmt.Errorf("six tasks were all created on %v", owners)
	}
	fmt.Printf("     tasks created on %s; every poll, update and cancel reached the task's owner\n", strings.Join(sortStrings(keys(owners)), ", "))
	return nil
}
