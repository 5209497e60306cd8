// Command loadtest runs baremcp's load and fault tests against a real
// server process on loopback and prints the figures docs/RELIABILITY.md
// records. It builds baremcp with -tags demo,loadtest: the demo, whose
// echo and slow tools it calls by name (demo keeps them in a copy that
// took the demo out of its product binary), and from loadtest only
// GET /debug/stats (goroutine count, heap) and a "flood" tool; memory is
// read from /proc/PID/status (VmRSS, VmHWM), so it runs on Linux.
//
// Usage (from the repository root):
//
//	cd harness/loadtest && go run . [-repo ../..] [-only NAME,...]
//
// Tests: load, disconnect, slowloris, unread-sse, sigterm, stdin-eof;
// and the bounds of issue 19 (bounds.go): stdio-stall, init-body,
// subscribe-memory, budget; unread answers (answers.go): answers,
// stdio-answers; the
// operations tests (ops.go): log-stall (-stall, 60 s by default),
// promtool; and connections held idle (conns.go): held-conns. Every count and duration is bounded; the whole run takes
// about four minutes.
// It exits non-zero when a test fails its criteria.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func main() {
	repo := flag.String("repo", "../..", "baremcp repository root")
	only := flag.String("only", "", "comma-separated tests to run (default all)")
	flag.Parse()
	dir, err := os.MkdirTemp("", "baremcp-loadtest")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "baremcp")
	build := exec.Command("go", "build", "-tags", "demo,loadtest", "-o", bin, ".")
	// CGO_ENABLED=0: a binary without cgo confines every one of its threads (confine_linux.go).
	build.Dir, build.Stdout, build.Stderr, build.Env = *repo, os.Stderr, os.Stderr, append(os.Environ(), "CGO_ENABLED=0")
	if err := build.Run(); err != nil {
		fatal(fmt.Errorf("build: %w", err))
	}
	fmt.Printf("# baremcp load and fault tests, %s, %d CPUs\n", time.Now().UTC().Format(time.RFC3339), cpus())
	tests := []struct {
		name string
		run  func(bin string) error
	}{
		{"load", testLoad},
		{"disconnect", testDisconnect},
		{"slowloris", testSlowloris},
		{"unread-sse", testUnreadSSE},
		{"sigterm", testSigterm},
		{"stdin-eof", testStdinEOF},
		{"stdio-stall", testStdioStall},
		{"stdio-answers", testStdioAnswers},
		{"init-body", testInitBody},
		{"subscribe-memory", testSubscribeMemory},
		{"budget", testBudget},
		{"log-stall", testLogStall},
		{"promtool", testPromtool},
		{"answers", testAnswers},
		{"held-conns", testHeldConns},
	}
	failed := 0
	for _, t := range tests {
		if *only != "" && !strings.Contains(","+*only+",", ","+t.name+",") {
			continue
		}
		fmt.Printf("\n## %s\n", t.name)
		start := time.Now()
		if err := t.run(bin); err != nil {
			failed++
			fmt.Printf("FAIL %s: %v\n", t.name, err)
		} else {
			fmt.Printf("PASS %s (%.1fs)\n", t.name, time.Since(start).Seconds())
		}
	}
	if failed > 0 {
		os.Exit(1)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "loadtest:", err)
	os.Exit(2)
}

func cpus() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return bytes.Count(b, []byte("processor\t:"))
}

// srv is a baremcp process serving HTTP.
type srv struct {
	cmd    *exec.Cmd
	url    string // http://127.0.0.1:PORT
	stderr *bytes.Buffer
	exited chan error
}

// startHTTP starts bin -http on a free loopback port with extra flags.
// The tools/call rate limit (on by default over HTTP: 50/s per caller) is
// turned off: these tests drive far more calls from one address to load
// the server, not the limiter; a flag in flags may turn it back on.
func startHTTP(bin string, flags ...string) (*srv, error) {
	cmd := exec.Command(bin, append([]string{"-http", "127.0.0.1:0", "-rate-limit", "0"}, flags...)...)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &srv{cmd: cmd, stderr: &bytes.Buffer{}, exited: make(chan error, 1)}
	addr := make(chan string, 1)
	var mu sync.Mutex
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			s.stderr.WriteString(line + "\n")
			mu.Unlock()
			// The server logs msg="serving Streamable HTTP" url=http://ADDR/mcp.
			if strings.Contains(line, "serving Streamable HTTP") {
				if _, rest, ok := strings.Cut(line, "url="); ok {
					u, _, _ := strings.Cut(rest, " ")
					addr <- strings.TrimSuffix(strings.Trim(u, `"`), "/mcp")
				}
			}
		}
	}()
	go func() { s.exited <- cmd.Wait(); pw.Close() }()
	select {
	case a := <-addr:
		s.url = a
		return s, nil
	case err := <-s.exited:
		return nil, fmt.Errorf("server exited: %v", err)
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		return nil, errors.New("server did not start")
	}
}

// stop sends SIGTERM and waits for the exit status.
func (s *srv) stop() error {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exited:
		return err
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		return errors.New("no exit 30s after SIGTERM")
	}
}

// procStatus reads VmRSS, VmHWM (KiB) and Threads of pid.
func procStatus(pid int) (rss, hwm, threads int) {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.Atoi(f[1])
		switch f[0] {
		case "VmRSS:":
			rss = n
		case "VmHWM:":
			hwm = n
		case "Threads:":
			threads = n
		}
	}
	return
}

// stats is GET /debug/stats.
type stats struct {
	Goroutines int   `json:"goroutines"`
	HeapInuse  int64 `json:"heapInuse"`
}

func (s *srv) stats(gc bool) stats { return s.statsAt("?gc=" + map[bool]string{true: "1"}[gc]) }

// freed is stats after a collection that returned the freed memory to
// the system: RSS read after it holds what is live.
func (s *srv) freed() stats { return s.statsAt("?free=1") }

// statsAt is GET /debug/stats with query q.
func (s *srv) statsAt(q string) stats {
	u := s.url + "/debug/stats" + q
	// From an address of its own, so that it is not one more connection
	// of the clients under test (the server caps connections per address).
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 254)}}
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DialContext: d.DialContext}, Timeout: 10 * time.Second}
	resp, err := c.Get(u)
	if err != nil {
		return stats{Goroutines: -1}
	}
	defer resp.Body.Close()
	var st stats
	json.NewDecoder(resp.Body).Decode(&st)
	return st
}

// settle polls the goroutine count until it is at most want (plus slack)
// or the deadline passes, and returns the last count and how long it took.
func (s *srv) settle(want, slack int, within time.Duration) (int, time.Duration) {
	start := time.Now()
	for {
		g := s.stats(false).Goroutines
		if g <= want+slack || time.Since(start) > within {
			return g, time.Since(start)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sampler records the peak RSS of pid while running.
type sampler struct {
	peak atomic.Int64
	stop chan struct{}
	done chan struct{}
}

func sample(pid int) *sampler {
	sm := &sampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(sm.done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if rss, _, _ := procStatus(pid); int64(rss) > sm.peak.Load() {
				sm.peak.Store(int64(rss))
			}
			select {
			case <-sm.stop:
				return
			case <-t.C:
			}
		}
	}()
	return sm
}

func (sm *sampler) end() int64 { close(sm.stop); <-sm.done; return sm.peak.Load() }

// post sends one JSON-RPC request with the headers a modern client sends.
func post(ctx context.Context, c *http.Client, url, method, name, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", url+"/mcp", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	return c.Do(req)
}

func echoBody(id int, msg string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":%q},%s}}`, id, msg, meta)
}

func toolBody(id int, name, args string, progress bool) string {
	m := meta
	if progress {
		m = strings.Replace(meta, `"_meta":{`, fmt.Sprintf(`"_meta":{"progressToken":%d,`, id), 1)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,%s}}`, id, name, args, m)
}

// checkEcho reads an echo response and reports whether it is complete and right.
func checkEcho(resp *http.Response, id int, msg string) error {
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 {
		return fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	var r struct {
		ID     int `json:"id"`
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("half-written or bad body %q: %v", b, err)
	}
	if r.ID != id || len(r.Result.Content) != 1 || r.Result.Content[0].Text != msg {
		return fmt.Errorf("wrong answer %s", b)
	}
	return nil
}

// testLoad: 10,000 requests over 256 concurrent connections, twice; no
// error, memory flat between rounds, goroutines back to baseline.
func testLoad(bin string) error {
	const conns, total = 256, 10000
	s, err := startHTTP(bin)
	if err != nil {
		return err
	}
	defer s.stop()
	pid := s.cmd.Process.Pid
	base := s.stats(true)
	rss0, _, _ := procStatus(pid)
	fmt.Printf("before: goroutines %d, heap %d KiB, RSS %d KiB\n", base.Goroutines, base.HeapInuse>>10, rss0)
	tr := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	var afterRSS []int
	for round := 1; round <= 3; round++ {
		sm := sample(pid)
		var next, errs atomic.Int64
		var firstErr atomic.Value
		var wg sync.WaitGroup
		start := time.Now()
		for range conns {
			wg.Go(func() {
				for {
					i := int(next.Add(1))
					if i > total {
						return
					}
					msg := "m" + strconv.Itoa(i)
					resp, err := post(context.Background(), client, s.url, "tools/call", "echo", echoBody(i, msg))
					if err == nil {
						err = checkEcho(resp, i, msg)
					}
					if err != nil {
						errs.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
					}
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		peak := sm.end()
		mid := s.stats(true)
		rss, _, threads := procStatus(pid)
		afterRSS = append(afterRSS, rss)
		fmt.Printf("round %d: %d requests over %d connections in %.2fs (%.0f req/s), errors %d, peak RSS %d KiB, RSS after %d KiB, heap after GC %d KiB, goroutines %d, threads %d\n",
			round, total, conns, elapsed.Seconds(), float64(total)/elapsed.Seconds(), errs.Load(), peak, rss, mid.HeapInuse>>10, mid.Goroutines, threads)
		if errs.Load() > 0 {
			return fmt.Errorf("%d errors, first: %v", errs.Load(), firstErr.Load())
		}
	}
	tr.CloseIdleConnections()
	g, took := s.settle(base.Goroutines, 0, 5*time.Second)
	fmt.Printf("after: goroutines %d (baseline %d) %.2fs after the clients closed\n", g, base.Goroutines, took.Seconds())
	if g > base.Goroutines {
		return fmt.Errorf("goroutines %d > baseline %d", g, base.Goroutines)
	}
	// Flat: the third round's RSS is within 10% (or 4 MiB) of the first's.
	if d := afterRSS[2] - afterRSS[0]; d > max(afterRSS[0]/10, 4096) {
		return fmt.Errorf("RSS grew from %d to %d KiB across rounds", afterRSS[0], afterRSS[2])
	}
	return nil
}

// testDisconnect: clients that leave mid-stream; every handler is cancelled
// and goroutines return to baseline well before the tools would finish.
func testDisconnect(bin string) error {
	const clients = 200
	s, err := startHTTP(bin)
	if err != nil {
		return err
	}
	defer s.stop()
	base := s.stats(true)
	var wg sync.WaitGroup
	var streamed atomic.Int64
	for i := range clients {
		wg.Go(func() {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			// 100 steps of 20 ms: 2 s if not cancelled.
			resp, err := post(ctx, c, s.url, "tools/call", "slow", toolBody(i+1, "slow", `{"steps":100}`, true))
			if err != nil {
				return
			}
			br := bufio.NewReader(resp.Body)
			if line, err := br.ReadString('\n'); err == nil && strings.HasPrefix(line, "event: message") {
				streamed.Add(1)
			}
			cancel() // leave mid-stream
			resp.Body.Close()
		})
	}
	wg.Wait()
	peak := s.stats(false).Goroutines
	g, took := s.settle(base.Goroutines, 0, 5*time.Second)
	fmt.Printf("%d clients read one SSE event of a 2 s tool and disconnected (%d streamed); goroutines before %d, right after %d, settled %d after %.2fs\n",
		clients, streamed.Load(), base.Goroutines, peak, g, took.Seconds())
	if streamed.Load() != clients {
		return fmt.Errorf("only %d of %d streams opened", streamed.Load(), clients)
	}
	if g > base.Goroutines || took > 1500*time.Millisecond {
		return fmt.Errorf("goroutines %d (baseline %d) after %v: handlers not cancelled", g, base.Goroutines, took)
	}
	return nil
}

// testSlowloris: connections that send headers or a body one byte at a
// time are cut off by the header (10 s) and body (30 s) timeouts, while a
// normal client is still served.
func testSlowloris(bin string) error {
	const each = 50
	s, err := startHTTP(bin)
	if err != nil {
		return err
	}
	defer s.stop()
	base := s.stats(true)
	host := strings.TrimPrefix(s.url, "http://")
	type cut struct {
		kind  string
		after time.Duration
		reply string
	}
	cuts := make(chan cut, 2*each)
	trickle := func(kind, head string) {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			cuts <- cut{kind, 0, "dial: " + err.Error()}
			return
		}
		defer conn.Close()
		start := time.Now()
		conn.Write([]byte(head))
		go func() {
			for i := 0; ; i++ {
				if _, err := conn.Write([]byte("x")); err != nil {
					return
				}
				time.Sleep(time.Second)
			}
		}()
		conn.SetReadDeadline(time.Now().Add(60 * time.Second))
		b, _ := io.ReadAll(conn)
		first, _, _ := strings.Cut(string(b), "\r\n")
		cuts <- cut{kind, time.Since(start), first}
	}
	for range each {
		go trickle("header", "POST /mcp HTTP/1.1\r\nHost: "+host+"\r\nX-Slow: ")
		go trickle("body", "POST /mcp HTTP/1.1\r\nHost: "+host+"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n")
	}
	time.Sleep(2 * time.Second)
	mid := s.stats(false)
	once := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := post(context.Background(), once, s.url, "tools/call", "echo", echoBody(1, "still served"))
	if err == nil {
		err = checkEcho(resp, 1, "still served")
	}
	if err != nil {
		return fmt.Errorf("normal client during slowloris: %v", err)
	}
	worst := map[string]time.Duration{}
	replies := map[string]map[string]int{"header": {}, "body": {}}
	for range 2 * each {
		c := <-cuts
		worst[c.kind] = max(worst[c.kind], c.after)
		replies[c.kind][c.reply]++
	}
	g, _ := s.settle(base.Goroutines, 0, 5*time.Second)
	fmt.Printf("%d slow-header and %d slow-body connections; goroutines before %d, during %d, after %d; a normal request was served meanwhile\n", each, each, base.Goroutines, mid.Goroutines, g)
	fmt.Printf("slow headers cut after at most %.1fs, replies %v; slow bodies cut after at most %.1fs, replies %v\n",
		worst["header"].Seconds(), replies["header"], worst["body"].Seconds(), replies["body"])
	if worst["header"] > 15*time.Second || worst["body"] > 35*time.Second || g > base.Goroutines {
		return errors.New("slow connections were not cut off in time")
	}
	return nil
}

// testUnreadSSE: clients that open an SSE stream of 100 MB each and never
// read it; server memory stays bounded and the calls end at the write
// timeout (30 s).
func testUnreadSSE(bin string) error {
	const clients = 8
	s, err := startHTTP(bin)
	if err != nil {
		return err
	}
	defer s.stop()
	pid := s.cmd.Process.Pid
	base := s.stats(true)
	rss0, _, _ := procStatus(pid)
	host := strings.TrimPrefix(s.url, "http://")
	sm := sample(pid)
	var conns []net.Conn
	for i := range clients {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			return err
		}
		conns = append(conns, conn)
		body := toolBody(i+1, "flood", `{"n":100000,"size":1000}`, true)
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: flood\r\nContent-Length: %d\r\n\r\n%s", host, len(body), body)
		// never read
	}
	// Sample for 36 s: past the 30 s write timeout that ends each call.
	var during []int
	var gDuring []int
	for range 6 {
		time.Sleep(6 * time.Second)
		rss, _, _ := procStatus(pid)
		during = append(during, rss)
		gDuring = append(gDuring, s.stats(false).Goroutines)
	}
	peak := sm.end()
	cpu := cpuSeconds(pid)
	g := gDuring[len(gDuring)-1]
	for _, c := range conns {
		c.Close()
	}
	fmt.Printf("%d clients each asked for 100,000 SSE events of 1 KB (100 MB) and read none; server RSS before %d KiB, peak %d KiB, every 6 s %v KiB; goroutines before %d, every 6 s %v; server CPU %.2fs in 36 s\n",
		clients, rss0, peak, during, base.Goroutines, gDuring, cpu)
	if peak-int64(rss0) > 64<<10 {
		return fmt.Errorf("RSS grew by %d KiB", peak-int64(rss0))
	}
	if g > base.Goroutines {
		return errors.New("flood handlers did not end at the write timeout")
	}
	return nil
}

// testSigterm: SIGTERM while 256 clients keep sending; every response that
// arrives is complete, the server exits 0.
func testSigterm(bin string) error {
	const conns = 256
	s, err := startHTTP(bin)
	if err != nil {
		return err
	}
	tr := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	var ok, refused, halfWritten, other atomic.Int64
	var firstOther atomic.Value
	stopping := make(chan struct{})
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := range conns {
		wg.Go(func() {
			for {
				select {
				case <-stopping:
					return
				default:
				}
				i := int(next.Add(1))
				var resp *http.Response
				var err error
				msg := "m" + strconv.Itoa(i)
				if w%8 == 0 { // some slower calls in flight: 5 steps of 20 ms
					resp, err = post(context.Background(), client, s.url, "tools/call", "slow", toolBody(i, "slow", `{"steps":5}`, false))
				} else {
					resp, err = post(context.Background(), client, s.url, "tools/call", "echo", echoBody(i, msg))
				}
				if err != nil {
					refused.Add(1) // connection refused or closed before a response
					continue
				}
				b, rerr := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch {
				case rerr != nil || !json.Valid(b):
					halfWritten.Add(1)
					firstOther.CompareAndSwap(nil, fmt.Sprintf("status %d body %q err %v", resp.StatusCode, b, rerr))
				case resp.StatusCode == 200:
					ok.Add(1)
				default:
					other.Add(1)
					firstOther.CompareAndSwap(nil, fmt.Sprintf("status %d body %q", resp.StatusCode, b))
				}
			}
		})
	}
	time.Sleep(time.Second)
	before := ok.Load()
	start := time.Now()
	err = s.stop()
	exit := time.Since(start)
	close(stopping)
	wg.Wait()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return err
	}
	fmt.Printf("SIGTERM after %d answered requests; exit status %d after %.2fs; totals: complete %d, refused after shutdown %d, half-written %d, other %d\n",
		before, code, exit.Seconds(), ok.Load(), refused.Load(), halfWritten.Load(), other.Load())
	if code != 0 || halfWritten.Load() > 0 || other.Load() > 0 {
		return fmt.Errorf("exit %d, half-written %d, other %d (first: %v)", code, halfWritten.Load(), other.Load(), firstOther.Load())
	}
	return nil
}

// testStdinEOF: 2,000 requests written to stdio, stdin closed at once;
// every one is answered and the process exits 0.
func testStdinEOF(bin string) error {
	const n = 2000
	cmd := exec.Command(bin)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() {
		w := bufio.NewWriter(stdin)
		for i := 1; i <= n; i++ {
			if i%10 == 0 {
				fmt.Fprintln(w, toolBody(i, "slow", `{"steps":3}`, false))
			} else {
				fmt.Fprintln(w, echoBody(i, "m"+strconv.Itoa(i)))
			}
		}
		w.Flush()
		stdin.Close() // mid-flight: the slow calls are still running
	}()
	seen := map[int]bool{}
	bad := 0
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 8<<20)
	for sc.Scan() {
		var r struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Result == nil || seen[r.ID] {
			bad++
			continue
		}
		seen[r.ID] = true
	}
	err := cmd.Wait()
	fmt.Printf("%d requests (every 10th a 60 ms tool) written, stdin closed; answered %d, bad %d, exit %v\n", n, len(seen), bad, exitText(err))
	if len(seen) != n || bad > 0 || err != nil {
		return fmt.Errorf("answered %d of %d, bad %d, exit %v", len(seen), n, bad, err)
	}
	return nil
}

// cpuSeconds is the user+system CPU time of pid so far.
func cpuSeconds(pid int) float64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	_, rest, _ := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if len(f) < 13 {
		return -1
	}
	ut, _ := strconv.Atoi(f[11])
	st, _ := strconv.Atoi(f[12])
	return float64(ut+st) / 100 // USER_HZ
}

func exitText(err error) string {
	if err == nil {
		return "0"
	}
	return err.Error()
}
