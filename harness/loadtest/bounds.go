// The bounds of issue 19, measured on a real server process: what the
// hostile peers of its findings make the server hold (its RSS, from
// /proc), against the acceptance figures and the worst-case memory
// budget docs/RELIABILITY.md gives for the default flags.
//
// Tests: stdio-stall, init-body, subscribe-memory, budget. .ci/run runs
// them (about a minute); docs/RELIABILITY.md records their figures.
package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The server's defaults the budget is computed from (main.go, limits.go,
// httpsse*.go, subscriptions.go, classic_http.go); docs/RELIABILITY.md
// gives the formula.
const (
	kib = 1 << 10
	mib = 1 << 20

	defMaxConnections = 1024
	defHeaderBytes    = 32 * kib
	defMaxBody        = 4 * mib
	defBodyBudget     = 8 * defMaxBody
	defMaxRequests    = 256
	defMaxSessions    = 1000
	defMaxListens     = 32
	defMaxURIs        = 256
	defWatchedBudget  = 64 * defMaxURIs * kib
	defPageCache      = 8 * mib
	defRateBuckets    = 4096
	defMaxTasks       = 1024
	defTaskBytes      = 64 * mib // what all tasks hold together (tasks_store.go)
	defLogBacklog     = 1 * mib
	defAnswerBudget   = 8 * defMaxBody // answers being written, until their clients read them (httpAnswerBudget)
	defShares         = 4              // -client-share 25: four clients exhaust every bound
	defReplyBuffers   = 2 * 2 * mib    // reply buffers kept for reuse (buffers.go)
	defBodyChunks     = 32 * 64 * kib  // body chunks kept for reuse (httpsse.go)

	stdioLineBudget = 8 * mib
	stdioQueue      = 4 * mib
	stdioLine       = 4 * mib
	stdioAnswers    = 8 * mib // maxStdioAnswerBytes: answers charged before they are encoded
)

// The per-item costs of the formula (docs/RELIABILITY.md, "Worst-case
// memory").
const (
	perConnection   = 32 * kib // goroutine, read and write buffers, beside its headers
	amplification   = 6        // what serving a body allocates, in bodies (decoded, handler copies, result, encoding)
	perRequest      = 64 * kib // goroutine, request, context, response buffers
	perSession      = 16 * kib // session state and its 64 queued messages
	watchedOverhead = 2        // set and list entries beside the URI bytes counted
	perListen       = 8 * kib
	perRateBucket   = 128
	perTask         = 8 * kib  // a task's record, and its goroutine while it runs
	runtimeBase     = 16 * mib // runtime, binary, idle heap
	gcFactor        = 2        // GOGC=100: the heap may reach twice what is live
)

// budgetHTTP is the formula's figure for HTTP with the defaults, in bytes.
func budgetHTTP() int64 {
	live := int64(defMaxConnections)*(defHeaderBytes+perConnection) +
		amplification*defBodyBudget +
		defAnswerBudget +
		defMaxRequests*perRequest +
		defMaxSessions*perSession +
		watchedOverhead*defWatchedBudget +
		defMaxListens*perListen +
		2*defPageCache +
		defRateBuckets*perRateBucket +
		defMaxTasks*perTask + defTaskBytes +
		defLogBacklog +
		defReplyBuffers + defBodyChunks
	return runtimeBase + gcFactor*live
}

// budgetStdio is the formula's figure for stdio with the defaults.
func budgetStdio() int64 {
	live := int64(amplification*stdioLineBudget) + // lines in flight and what serving them allocates
		2*stdioQueue + stdioLine + // the queue, and the batch and message being written
		stdioAnswers + // answers encoded and not yet written (the rest wait unbuilt)
		3*stdioLine + // the reader: a line being read, one handed over, one held
		watchedOverhead*(defMaxListens+1)*defMaxURIs*kib + // the listens' and the session's URIs
		defMaxRequests*perRequest +
		2*defPageCache +
		defMaxTasks*perTask + defTaskBytes +
		defLogBacklog +
		defReplyBuffers
	return runtimeBase + gcFactor*live
}

// clientFrom returns a client whose connections come from ip (127.0.0.x).
func clientFrom(ip string, conns int) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, MaxConnsPerHost: conns, MaxIdleConnsPerHost: conns}}
}

// classicSession is a classic client's session on a server.
type classicSession struct {
	c   *http.Client
	url string
	sid string
}

// initialize opens a classic session (declaring elicitation), with pad
// bytes of padding in an extra params member.
func initialize(c *http.Client, url string, pad int) (*classicSession, error) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"bounds","version":"1"},"pad":%q}}`, strings.Repeat("p", pad))
	k := &classicSession{c: c, url: url}
	resp, err := k.post(context.Background(), body)
	if err != nil {
		return nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") == "" {
		return nil, fmt.Errorf("initialize: status %d", resp.StatusCode)
	}
	k.sid = resp.Header.Get("Mcp-Session-Id")
	resp, err = k.post(context.Background(), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err != nil {
		return nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return k, nil
}

// post sends body (or, for "GET", opens the session's stream).
func (k *classicSession) post(ctx context.Context, body string) (*http.Response, error) {
	method := "POST"
	if body == "GET" {
		method, body = "GET", ""
	}
	req, err := http.NewRequestWithContext(ctx, method, k.url+"/mcp", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if k.sid != "" {
		req.Header.Set("Mcp-Session-Id", k.sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	return k.c.Do(req)
}

// call posts body and reports whether the answer is a result (not a
// JSON-RPC error), reading it whole.
func (k *classicSession) call(body string) (bool, error) {
	resp, err := k.post(context.Background(), body)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return false, err
	}
	return resp.StatusCode == 200 && !strings.Contains(string(b), `"error"`), nil
}

// watchURI is a 4 KiB URI the demo's template demo://items/{id} matches.
func watchURI(i int) string {
	s := fmt.Sprintf("demo://items/%d-", i)
	return s + strings.Repeat("u", 4096-len(s))
}

// rssKiB is the server's resident memory now.
func rssKiB(pid int) int { r, _, _ := procStatus(pid); return r }

// testStdioStall: a stdio client that never reads stdout sends 1 MiB echo
// lines as fast as the server takes them, for 5 s. The server must stop
// reading, not grow: peak RSS under 300 MB (finding 2).
func testStdioStall(bin string) error {
	cmd := exec.Command(bin)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe() // never read until the end
	if err := cmd.Start(); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	sm := sample(pid)
	line := func(i int) string {
		return echoBody(i, strings.Repeat("x", 1<<20)) + "\n"
	}
	var sent atomic.Int64
	go func() {
		for i := 1; ; i++ {
			if _, err := io.WriteString(stdin, line(i)); err != nil {
				return
			}
			sent.Add(1)
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && rssKiB(pid) < 1<<20 { // stop at 1 GiB: enough to fail
		time.Sleep(100 * time.Millisecond)
	}
	peak := sm.end()
	accepted := sent.Load()
	cmd.Process.Kill()
	go io.Copy(io.Discard, stdout)
	cmd.Wait()
	fmt.Printf("stdout never read, 1 MiB echo lines: %d taken by the server, peak RSS %d MiB (acceptance: under 300 MB; formula for stdio: %d MiB)\n",
		accepted, peak>>10, budgetStdio()>>20)
	if peak<<10 >= 300e6 || peak<<10 >= budgetStdio() {
		return fmt.Errorf("peak RSS %d MiB", peak>>10)
	}
	return nil
}

// testInitBody: 25 initialize requests of 4 MiB (padding in an extra
// params member) must grow RSS by under 10 MB more than 25 tools/call
// requests of 4 MiB, which keep nothing, already did (finding 1). RSS is
// read after the freed memory went back to the system (debug.FreeOSMemory,
// GET /debug/stats?free=1 of the loadtest build), so it is what the
// server holds, not when its collector last ran.
func testInitBody(bin string) error {
	s, err := startHTTP(bin)
	if err != nil {
		return err
	}
	defer s.stop()
	pid := s.cmd.Process.Pid
	c := clientFrom("127.0.0.1", 4)
	pad := defMaxBody - 1024
	rss0 := rssKiB(pid)
	for i := range 25 {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"},"pad":%q,%s}}`, i+1, strings.Repeat("p", pad), meta)
		resp, err := post(context.Background(), c, s.url, "tools/call", "echo", body)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	heap1 := s.freed().HeapInuse
	rss1 := rssKiB(pid)
	var sessions []*classicSession
	for range 25 {
		k, err := initialize(c, s.url, pad)
		if err != nil {
			return err
		}
		sessions = append(sessions, k)
	}
	heap2 := s.freed().HeapInuse
	rss2 := rssKiB(pid)
	grew := rss2 - rss1
	fmt.Printf("RSS %d MiB idle; after 25 tools/call of 4 MiB %d MiB; after 25 initialize of 4 MiB (25 sessions open) %d MiB: +%d KiB (acceptance: under 10 MB); live heap %+d KiB\n",
		rss0>>10, rss1>>10, rss2>>10, grew, (heap2-heap1)>>10)
	if grew<<10 >= 10e6 {
		return fmt.Errorf("initialize grew RSS by %d KiB", grew)
	}
	return nil
}

// testSubscribeMemory: 100 classic sessions each subscribe 256 URIs of 4
// KiB; RSS must grow by under 40 MB (finding 9).
func testSubscribeMemory(bin string) error {
	s, err := startHTTP(bin)
	if err != nil {
		return err
	}
	defer s.stop()
	pid := s.cmd.Process.Pid
	c := clientFrom("127.0.0.1", 8)
	var sessions []*classicSession
	for range 100 {
		k, err := initialize(c, s.url, 0)
		if err != nil {
			return err
		}
		sessions = append(sessions, k)
	}
	s.freed()
	rss0 := rssKiB(pid)
	var accepted, refused atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	for g := range 8 {
		wg.Go(func() {
			for i := g; i < len(sessions); i += 8 {
				for j := range defMaxURIs {
					ok, err := sessions[i].call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/subscribe","params":{"uri":%q}}`, j+1, watchURI(i*1000+j)))
					switch {
					case err != nil:
						failed.CompareAndSwap(nil, err)
						return
					case ok:
						accepted.Add(1)
					default:
						refused.Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		return err
	}
	s.freed()
	rss1 := rssKiB(pid)
	fmt.Printf("100 sessions x 256 subscriptions of 4 KiB URIs: %d watched, %d refused; RSS %d MiB before, %d MiB after: +%d KiB (acceptance: under 40 MB)\n",
		accepted.Load(), refused.Load(), rss0>>10, rss1>>10, rss1-rss0)
	if (rss1-rss0)<<10 >= 40e6 {
		return fmt.Errorf("RSS grew by %d KiB", rss1-rss0)
	}
	return nil
}

// testBudget drives every limit at once, from four client addresses (the
// shares are a quarter each, so four clients together reach every total):
// all sessions, each address's share of watched URIs, all listens, all
// requests waiting for answers (with the body budget full of 4 MiB
// bodies), every request slot, every connection (the rest of them
// sending headers of nearly the cap). Peak RSS must stay under the
// formula's figure for the defaults.
func testBudget(bin string) error {
	// The rate limit is a bound too, one that keeps clients from reaching
	// the others: off here, so that they are reached.
	s, err := startHTTP(bin, "-rate-limit", "0")
	if err != nil {
		return err
	}
	defer s.stop()
	pid := s.cmd.Process.Pid
	rss0 := rssKiB(pid)
	sm := sample(pid)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The payload of the unread answers (answers.go), before the tasks
	// fill the store.
	answer, err := bigTask(s.url, answerPayload)
	if err != nil {
		return err
	}
	// Tasks first (they hold no connection once created): a client may
	// hold a quarter of them running, so four addresses hold them all.
	// Each is the demo's slow tool, kept after it ends.
	var tasks atomic.Int64
	var taskers sync.WaitGroup
	for a := range defShares {
		taskers.Go(func() {
			c := clientFrom(fmt.Sprintf("127.0.0.%d", 101+a), 4)
			defer c.Transport.(*http.Transport).CloseIdleConnections()
			for i := range defMaxTasks / defShares {
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow","arguments":{"steps":100},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`, i+1)
				resp, err := post(ctx, c, s.url, "tools/call", "slow", body)
				if err != nil {
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if strings.Contains(string(b), `"resultType":"task"`) {
					tasks.Add(1)
				}
			}
		})
	}
	taskers.Wait()
	ips := []string{"127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"}
	got := make([]shareCounts, len(ips))
	var setup sync.WaitGroup
	errs := make(chan error, len(ips))
	held := make(chan struct{}) // closed when every address holds its share
	var ready sync.WaitGroup
	for n, ip := range ips {
		ready.Add(1)
		setup.Go(func() {
			readyOnce := sync.OnceFunc(ready.Done)
			defer readyOnce()
			if err := driveShare(ctx, s.url, ip, answer, &got[n], held, readyOnce); err != nil {
				errs <- fmt.Errorf("%s: %w", ip, err)
			}
		})
	}
	ready.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	// Everything is held: let the server settle, then read the peak.
	time.Sleep(2 * time.Second)
	peak := sm.end()
	total := shareCounts{}
	for _, c := range got {
		total.sessions += c.sessions
		total.watched += c.watched
		total.listens += c.listens
		total.bridged += c.bridged
		total.bigBodies += c.bigBodies
		total.floods += c.floods
		total.streams += c.streams
		total.headers += c.headers
		total.answers += c.answers
	}
	close(held)
	cancel()
	setup.Wait()
	budget := budgetHTTP()
	fmt.Printf("four clients hold: %d sessions (%d with a GET stream), %d watched URIs of 4 KiB, %d listens, %d requests waiting for answers (%d with a 4 MiB body), %d unread answers of %d KiB (their share of the answer budget), %d floods never read, %d connections sending 31 KiB of headers; four more hold %d tasks\n",
		total.sessions, total.streams, total.watched, total.listens, total.bridged, total.bigBodies, total.answers, answerPayload/kib, total.floods, total.headers, tasks.Load())
	fmt.Printf("RSS %d MiB idle, peak %d MiB; the formula's worst case for the defaults: %d MiB\n", rss0>>10, peak>>10, budget>>20)
	if peak<<10 >= budget {
		return fmt.Errorf("peak RSS %d MiB over the budget of %d MiB", peak>>10, budget>>20)
	}
	return nil
}

// shareCounts is what one client address holds.
type shareCounts struct{ sessions, watched, listens, bridged, bigBodies, answers, floods, streams, headers int }

// driveShare takes one client address's share of every limit and holds
// it until held is closed; it calls ready once it holds everything.
func driveShare(ctx context.Context, url, ip string, answer []byte, got *shareCounts, held <-chan struct{}, ready func()) error {
	setup := clientFrom(ip, 8)
	defer setup.Transport.(*http.Transport).CloseIdleConnections()
	hold := clientFrom(ip, 0)
	var sessions []*classicSession
	for range defMaxSessions / defShares {
		k, err := initialize(setup, url, 0)
		if err != nil {
			return err
		}
		sessions = append(sessions, k)
	}
	got.sessions = len(sessions)
	// Watched URIs: 4 KiB each, 60 a session (under its 256 KiB), until
	// the address's share of the budget refuses.
	for i, refused := 0, false; !refused && i < len(sessions); i++ {
		for j := range 60 {
			ok, err := sessions[i].call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/subscribe","params":{"uri":%q}}`, j+1, watchURI(i*1000+j)))
			if err != nil {
				return err
			}
			if !ok {
				refused = true
				break
			}
			got.watched++
		}
	}
	setup.Transport.(*http.Transport).CloseIdleConnections()
	// open starts a request that stays open: an event stream, whose
	// first line it reads when firstLine says one comes at once; the rest
	// stays unread.
	open := func(firstLine bool, do func() (*http.Response, error)) (bool, error) {
		resp, err := do()
		if err != nil {
			return false, err
		}
		if resp.Header.Get("Content-Type") != "text/event-stream" {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return false, nil
		}
		go func() { <-held; resp.Body.Close() }()
		if !firstLine {
			return true, nil
		}
		_, err = bufio.NewReader(resp.Body).ReadString('\n')
		return err == nil, err
	}
	for i := range defMaxListens / defShares {
		ok, err := open(true, func() (*http.Response, error) {
			return post(ctx, hold, url, "subscriptions/listen", "", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},%s}}`, i+1, meta))
		})
		if err != nil {
			return err
		}
		if ok {
			got.listens++
		}
	}
	// Requests waiting for the client's answer: the first four carry a
	// 4 MiB path (the address's share of the body budget).
	for i := range defMaxRequests / 4 / defShares {
		path := "/p"
		if i < defBodyBudget/defShares/defMaxBody {
			path = strings.Repeat("p", defMaxBody-8*kib) // room for the small bodies held
		}
		k := &classicSession{c: hold, url: url, sid: sessions[i].sid}
		ok, err := open(true, func() (*http.Response, error) {
			return k.post(ctx, fmt.Sprintf(`{"jsonrpc":"2.0","id":"b%d","method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":%q}}}`, i, path))
		})
		if err != nil {
			return err
		}
		if ok {
			got.bridged++
			if len(path) > 2 {
				got.bigBodies++
			}
		}
	}
	// Its share of the answer budget: the large answer (answers.go),
	// asked for twice on each of as many connections as the share holds,
	// and never read.
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	host := strings.TrimPrefix(url, "http://")
	for range defAnswerBudget / defShares / answerPayload {
		conn, err := d.DialContext(ctx, "tcp", host)
		if err != nil {
			return err
		}
		go func() { <-held; conn.Close() }()
		if _, err := conn.Write(bytes.Repeat(answer, 2)); err != nil {
			return err
		}
		got.answers++
	}
	// The rest of the address's request slots: floods it never reads.
	for i := range defMaxRequests/defShares - got.listens - got.bridged - got.answers {
		ok, err := open(true, func() (*http.Response, error) {
			return post(ctx, hold, url, "tools/call", "flood", toolBody(1000+i, "flood", `{"n":1000000000,"size":1024}`, true))
		})
		if err != nil {
			return err
		}
		if ok {
			got.floods++
		}
	}
	// GET streams on half its sessions.
	for i := range len(sessions) / 2 {
		k := &classicSession{c: hold, url: url, sid: sessions[i].sid}
		ok, err := open(false, func() (*http.Response, error) { return k.post(ctx, "GET") })
		if err != nil {
			return err
		}
		if ok {
			got.streams++
		}
	}
	// The rest of its connections (but a few, for the setup's closing
	// ones): headers of nearly the cap, never ended.
	pad := strings.Repeat("h", defHeaderBytes-1024)
	for range defMaxConnections/defShares - got.listens - got.bridged - got.answers - got.floods - got.streams - 4 {
		conn, err := d.DialContext(ctx, "tcp", host)
		if err != nil {
			return err
		}
		go func() { <-held; conn.Close() }()
		if _, err := io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: "+host+"\r\nX-Pad: "+pad+"\r\n"); err != nil {
			return err
		}
		got.headers++
	}
	ready()
	<-held
	return nil
}
