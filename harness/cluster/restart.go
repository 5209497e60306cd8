// The rolling restart under load: a load generator sends modern requests
// through HAProxy at a fixed rate from several client addresses while
// each replica in turn gets SIGTERM, drains (its /readyz turns 503 and
// HAProxy takes it out of rotation before its listener closes), exits 0,
// and starts again. No modern request may fail. Classic sessions and a
// subscriptions/listen held by the stopped replica end cleanly.

package main

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// sample is one request of the load.
type sample struct {
	start    time.Time
	latency  time.Duration
	servedBy string
	err      string // "" when it succeeded
}

// load sends modern requests at a fixed rate until stopped.
type load struct {
	url     string
	clients []*http.Client // one per client address, used in turn
	rate    int            // requests a second

	mu      sync.Mutex // guards samples
	samples []sample

	stop chan struct{}
	done chan struct{}
}

// loadRequests is the mix the load sends, in turn.
var loadRequests = []struct{ body, want string }{
	{modern(1, "tools/call", `"name":"echo","arguments":{"message":"load"}`, capsNone), "load"},
	{modern(2, "tools/list", "", capsNone), ""},
	{modern(3, "resources/read", `"uri":"demo://readme"`, capsNone), ""},
	{modern(4, "tools/call", `"name":"add","arguments":{"a":1,"b":2}`, capsNone), `{"sum":3}`},
	{modern(5, "prompts/get", `"name":"greet","arguments":{"name":"load"}`, capsNone), ""},
}

// startLoad starts sending rate requests a second, from addrs in turn.
func startLoad(url string, rate int, addrs []string) *load {
	l := &load{url: url, rate: rate, stop: make(chan struct{}), done: make(chan struct{})}
	for _, a := range addrs {
		l.clients = append(l.clients, newClient(a))
	}
	go l.run()
	return l
}

// run is the generator: one request every 1/rate, each on its own
// goroutine (at most 256 at once: past that the generator waits, and the
// rate it reports drops).
func (l *load) run() {
	defer close(l.done)
	var wg sync.WaitGroup
	slots := make(chan struct{}, 256)
	tick := time.NewTicker(time.Second / time.Duration(l.rate))
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-l.stop:
			wg.Wait()
			return
		case <-tick.C:
		}
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			l.one(l.clients[i%len(l.clients)], loadRequests[i%len(loadRequests)].body, loadRequests[i%len(loadRequests)].want)
		}()
	}
}

// one sends a request and records how it went.
func (l *load) one(hc *http.Client, body, want string) {
	start := time.Now()
	rep, err := postModern(hc, l.url, body)
	s := sample{start: start, latency: time.Since(start), servedBy: rep.servedBy}
	switch {
	case err != nil:
		s.err = err.Error()
	case !rep.ok():
		s.err = rep.String()
	case want != "" && rep.text() != want:
		s.err = fmt.Sprintf("want %q: %v", want, rep)
	}
	l.mu.Lock()
	l.samples = append(l.samples, s)
	l.mu.Unlock()
}

// end stops the generator once the requests in flight are answered.
func (l *load) end() []sample {
	close(l.stop)
	<-l.done
	for _, hc := range l.clients {
		hc.CloseIdleConnections()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.samples)
}

// servedSince reports whether a request started after t was answered by
// the named replica.
func (l *load) servedSince(name string, t time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.samples) - 1; i >= 0 && l.samples[i].start.After(t); i-- {
		if l.samples[i].servedBy == name && l.samples[i].err == "" {
			return true
		}
	}
	return false
}

// window is one replica's restart: from SIGTERM to back in rotation.
type window struct {
	replica    string
	sigterm    time.Time
	notReady   time.Duration // until /readyz said 503 (0: never seen)
	outOfLB    time.Duration // until HAProxy marked it DOWN
	closed     time.Duration // until its listener refused connections
	exited     time.Duration // until the process exited
	back       time.Duration // until HAProxy sent it requests again
	readiness  bool          // the replica serves /readyz
	exitStatus error
}

// percentile returns the p-th percentile of the latencies (p in 0..100).
func percentile(samples []sample, p float64) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	lat := make([]time.Duration, len(samples))
	for i, s := range samples {
		lat[i] = s.latency
	}
	slices.Sort(lat)
	i := int(float64(len(lat)-1) * p / 100)
	return lat[i]
}

// hasReadiness reports whether the replica at addr serves /readyz.
func hasReadiness(addr string) bool {
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// readyzStatus is the status /readyz answers at addr (0 when refused).
func readyzStatus(hc *http.Client, addr string) int {
	resp, err := hc.Get("http://" + addr + "/readyz")
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// onReplica opens what a client holds on one replica: a classic session
// with its GET stream, and a subscriptions/listen. Requests land where the
// balancer sends them; the ones that landed elsewhere are closed.
func onReplica(c *cluster, hc *http.Client, name string) (*classicSession, *stream, *listener, error) {
	var sess *classicSession
	for attempt := 0; sess == nil && attempt < placementAttempts; attempt++ {
		s, err := openClassic(c, hc)
		if err != nil {
			return nil, nil, nil, err
		}
		if s.holder == name {
			sess = s
			continue
		}
		_, _ = do(hc, http.MethodDelete, c.url, "", s.headers())
	}
	var lis *listener
	// Each listen tried on a connection of its own, which closing it
	// closes: a misplaced listen closed must end on its replica, or it
	// counts against this client's share there.
	lc := newClient("")
	lc.Transport.(*http.Transport).DisableKeepAlives = true
	for attempt := 0; lis == nil && attempt < placementAttempts; attempt++ {
		l, err := openListen(c, lc)
		if err != nil && strings.Contains(err.Error(), "subscriptions open, its share") && attempt+1 < placementAttempts {
			// The listens closed before still count against this client's
			// share on the replica that served them, until it sees the
			// close through HAProxy: on a loaded machine (CI's other
			// checks beside this one) later than listenReleasePause.
			time.Sleep(10 * listenReleasePause)
			continue
		}
		if err != nil {
			return nil, nil, nil, err
		}
		if l.st.servedBy == name {
			lis = l
			continue
		}
		l.st.close()
		// The replica that served it sees the close through HAProxy a
		// few milliseconds later; until then the listen counts against
		// this client's share (8 of -max-subscriptions 32), and a run
		// of misplaced listens on one replica was refused 500 with it.
		time.Sleep(listenReleasePause)
	}
	if sess == nil || lis == nil {
		return nil, nil, nil, fmt.Errorf("%d attempts never placed a session and a listen on %s", placementAttempts, name)
	}
	get, err := openStream(hc, http.MethodGet, c.url, "", sess.headers())
	if err != nil {
		return nil, nil, nil, fmt.Errorf("GET stream: %v", err)
	}
	if get.servedBy != name {
		return nil, nil, nil, fmt.Errorf("GET stream of a session on %s served by %s", name, get.servedBy)
	}
	return sess, get, lis, nil
}

// restartOne stops replica r with SIGTERM under load, watches it drain,
// checks what its clients see, and starts it again.
func restartOne(c *cluster, s *suite, lg *load, r replica) window {
	w := window{replica: r.name, readiness: hasReadiness(r.addr)}
	hc := newClient("")
	defer hc.CloseIdleConnections()
	sess, get, lis, err := onReplica(c, hc, r.name)
	s.check(fmt.Sprintf("restart %s: a classic session, its GET stream and a listen placed on it", r.name), err)
	p := c.replica(r.name)
	w.sigterm = time.Now()
	p.signal(syscall.SIGTERM)
	since := func() time.Duration { return time.Since(w.sigterm) }
	probe := &http.Client{Timeout: time.Second}
	// persisted is what a request of the session got while the replica
	// drained: out of rotation, still listening.
	var persisted error = fmt.Errorf("never out of rotation while still listening")
	probed := false
	for deadline := time.Now().Add(40 * time.Second); time.Now().Before(deadline) && w.exited == 0; time.Sleep(20 * time.Millisecond) {
		if w.readiness && w.notReady == 0 && readyzStatus(probe, r.addr) == http.StatusServiceUnavailable {
			w.notReady = since()
		}
		if w.outOfLB == 0 {
			if st, err := c.stats(); err == nil && !strings.HasPrefix(st[r.name].status, "UP") {
				w.outOfLB = since()
			}
		}
		if w.closed == 0 && !listening(r.addr) {
			w.closed = since()
		}
		if sess != nil && !probed && w.outOfLB != 0 && w.closed == 0 {
			probed = true
			rep, err := sess.post(`{"jsonrpc":"2.0","id":60,"method":"tools/list"}`)
			if persisted = err; err == nil {
				persisted = sess.held("a request of its session while it drains", rep, http.StatusOK)
			}
		}
		select {
		case <-p.exited:
			w.exited, w.exitStatus = since(), p.err
		default:
		}
	}
	if w.exited == 0 {
		w.exitStatus = fmt.Errorf("still running 40s after SIGTERM")
	}
	s.check(fmt.Sprintf("restart %s: SIGTERM ends the process with status 0", r.name), w.exitStatus)
	if w.readiness {
		var err error
		switch {
		case w.notReady == 0:
			err = fmt.Errorf("/readyz never answered 503 after SIGTERM")
		case w.outOfLB == 0 || w.closed == 0 || w.outOfLB >= w.closed:
			err = fmt.Errorf("HAProxy took it out of rotation %v after SIGTERM, its listener closed after %v: the drain must come first", w.outOfLB, w.closed)
		}
		s.check(fmt.Sprintf("restart %s: /readyz 503 after %v, out of HAProxy's rotation after %v, listener closed after %v", r.name, w.notReady.Round(time.Millisecond), w.outOfLB.Round(time.Millisecond), w.closed.Round(time.Millisecond)), err)
	} else {
		s.skip(fmt.Sprintf("restart %s: readiness drains it first", r.name), "the replica does not serve /readyz (404; the operations issue adds it): HAProxy learns of the stop from refused connections and retries them elsewhere")
	}
	if sess != nil && w.readiness {
		s.check(fmt.Sprintf("restart %s: out of rotation but draining, it still serves its classic session (option persist)", r.name), persisted)
	}
	if lis != nil {
		s.check(fmt.Sprintf("restart %s: its subscriptions/listen ends with a result (graceful closure)", r.name), endsWithResult(lis.st))
	}
	if get != nil {
		_, err := get.next(5 * time.Second)
		if err != nil && strings.Contains(err.Error(), errStreamEnded.Error()) {
			err = nil
		} else if err == nil {
			err = fmt.Errorf("the GET stream carried an event instead of ending")
		}
		get.close()
		s.check(fmt.Sprintf("restart %s: the session's GET stream ends", r.name), err)
	}
	if sess != nil {
		s.check(fmt.Sprintf("restart %s: its classic session answers 404 on next use, and the client re-initializes", r.name), sessionGone(c, hc, sess))
	}
	start := time.Now()
	if err := c.startReplica(r); err != nil {
		s.check(fmt.Sprintf("restart %s: starts again", r.name), err)
		return w
	}
	var back error = fmt.Errorf("HAProxy sent it no request within 30s of its restart")
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if lg.servedSince(r.name, start) {
			back = nil
			break
		}
	}
	w.back = since()
	s.check(fmt.Sprintf("restart %s: back in rotation %v after SIGTERM", r.name, w.back.Round(time.Millisecond)), back)
	return w
}

// endsWithResult waits for a listen's last event, the response that
// closes it gracefully, then for the stream to end.
func endsWithResult(st *stream) error {
	defer st.close()
	for {
		ev, err := st.next(20 * time.Second)
		if err != nil {
			return fmt.Errorf("no result before the stream ended: %v", err)
		}
		if strings.Contains(ev, `"id":1,"result"`) {
			if _, err := st.next(5 * time.Second); err == nil || !strings.Contains(err.Error(), errStreamEnded.Error()) {
				return fmt.Errorf("the stream went on after its result: %v", err)
			}
			return nil
		}
	}
}

// sessionGone uses a session whose replica stopped: 404, from whichever
// replica the balancer chose, and a new initialize succeeds.
func sessionGone(c *cluster, hc *http.Client, sess *classicSession) error {
	rep, err := sess.post(`{"jsonrpc":"2.0","id":50,"method":"tools/list"}`)
	if err != nil {
		return err
	}
	if rep.status != http.StatusNotFound {
		return fmt.Errorf("a request of the stopped replica's session: want 404, got %v", rep)
	}
	again, err := openClassic(c, hc)
	if err != nil {
		return fmt.Errorf("re-initializing: %v", err)
	}
	_, _ = do(hc, http.MethodDelete, c.url, "", again.headers())
	return nil
}

// rollingRestart runs the load, restarts every replica in turn, and
// checks that no modern request failed; it prints the figures.
func rollingRestart(c *cluster, s *suite, rate int, settle time.Duration) {
	var addrs []string
	for i := range 16 {
		addrs = append(addrs, fmt.Sprintf("127.0.0.%d", 10+i))
	}
	before, _ := c.stats()
	lg := startLoad(c.url, rate, addrs)
	time.Sleep(settle)
	var windows []window
	for _, r := range c.d.replicas {
		windows = append(windows, restartOne(c, s, lg, r))
		time.Sleep(settle)
	}
	samples := lg.end()
	if len(samples) == 0 {
		s.check("rolling restart under load: 0 failed modern requests", fmt.Errorf("the load generator sent nothing"))
		return
	}
	after, _ := c.stats()
	var failed []sample
	var during []sample
	served := map[string]int{}
	for _, x := range samples {
		if x.err != "" {
			failed = append(failed, x)
		}
		served[x.servedBy]++
		for _, w := range windows {
			if !x.start.Before(w.sigterm) && x.start.Before(w.sigterm.Add(w.back)) {
				during = append(during, x)
				break
			}
		}
	}
	elapsed := samples[len(samples)-1].start.Sub(samples[0].start)
	retries, redispatches := 0, 0
	for _, r := range c.d.replicas {
		retries += after[r.name].retries - before[r.name].retries
		redispatches += after[r.name].redispatches - before[r.name].redispatches
	}
	fmt.Printf("     load: %d modern requests in %v (%.0f/s) from %d client addresses; %d failed\n", len(samples), elapsed.Round(time.Second), float64(len(samples))/elapsed.Seconds(), len(addrs), len(failed))
	fmt.Printf("     latency, whole run: p50 %v, p99 %v, max %v\n", percentile(samples, 50).Round(10*time.Microsecond), percentile(samples, 99).Round(10*time.Microsecond), percentile(samples, 100).Round(10*time.Microsecond))
	fmt.Printf("     latency during the restarts (%d requests): p50 %v, p99 %v, max %v\n", len(during), percentile(during, 50).Round(10*time.Microsecond), percentile(during, 99).Round(10*time.Microsecond), percentile(during, 100).Round(10*time.Microsecond))
	fmt.Printf("     answered by: %s; HAProxy retried %d and redispatched %d requests\n", strings.Join(sortStrings(mapLines(served)), ", "), retries, redispatches)
	var err error
	if len(failed) > 0 {
		var lines []string
		for _, f := range failed[:min(5, len(failed))] {
			lines = append(lines, fmt.Sprintf("at +%v: %s", f.start.Sub(samples[0].start).Round(time.Millisecond), f.err))
		}
		err = fmt.Errorf("%d of %d modern requests failed during the rolling restart:\n       %s", len(failed), len(samples), strings.Join(lines, "\n       "))
	}
	s.check("rolling restart under load: 0 failed modern requests", err)
}

// mapLines prints each key with its count.
func mapLines(m map[string]int) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s %d", k, v))
	}
	return out
}
