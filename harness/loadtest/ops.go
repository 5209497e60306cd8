// The operations tests (issue 26) on a real process: log-stall (standard
// error never read while calls keep coming: they keep answering, the log
// drops and counts, memory stays within the log's bound) and promtool (a
// scrape of -metrics under load is what Prometheus's promtool accepts,
// with the process and Go series present).

package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// stallFor is how long log-stall sends calls with standard error unread:
// 60 s, the acceptance criterion, and long enough for the pipe and the
// backlog (about 45 s of access lines at 100 a second) to fill and lines
// to drop.
var stallFor = flag.Duration("stall", 60*time.Second, "how long log-stall sends 100 calls a second with standard error never read")

// freePort returns a loopback address nobody listens on (now).
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// scrape returns the -metrics exposition at addr.
func scrape(addr string) (string, error) {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// metricValue returns the value of the sample named exactly series (name
// and labels as written) in text, or -1.
func metricValue(text, series string) float64 {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(text)
	if m == nil {
		return -1
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// testLogStall: an HTTP server whose standard error is a pipe nobody
// reads gets 100 tools/call a second for -stall (60 s); every call must
// be answered, within 3 s (a hung call never is; a loaded machine's
// slowest is about 1 s), baremcp_log_lines_dropped_total must rise
// and baremcp_log_write_blocked_seconds show the stall, and RSS must stay
// within its start plus the log's bound (4 MiB) and slack.
func testLogStall(bin string) error {
	mcpAddr, err := freePort()
	if err != nil {
		return err
	}
	metricsAddr, err := freePort()
	if err != nil {
		return err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer pr.Close() // held open, never read: writes to pw block once the pipe is full
	cmd := exec.Command(bin, "-http", mcpAddr, "-metrics", metricsAddr, "-rate-limit", "0")
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		return err
	}
	pw.Close()
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	url := "http://" + mcpAddr
	c := &http.Client{Timeout: 5 * time.Second}
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := c.Get(url + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Since(start) > 10*time.Second {
			return errors.New("server did not start")
		}
	}
	pid := cmd.Process.Pid
	rss0 := rssKiB(pid)
	sm := sample(pid)
	var answered, failed atomic.Int64
	var slowest atomic.Int64
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	msg := strings.Repeat("x", 200) // long access lines fill the pipe sooner
	// Call i is sent at start + i × 10 ms: a late wake-up (a busy
	// machine) sends the calls it owes at once, so the rate holds.
	for i := 1; i <= int(*stallFor/(10*time.Millisecond)); i++ {
		time.Sleep(time.Until(start.Add(time.Duration(i) * 10 * time.Millisecond)))
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			t0 := time.Now()
			resp, err := post(ctx, c, url, "tools/call", "echo", echoBody(i, msg))
			if err == nil {
				err = checkEcho(resp, i, msg)
			}
			d := time.Since(t0)
			for old := slowest.Load(); int64(d) > old && !slowest.CompareAndSwap(old, int64(d)); old = slowest.Load() {
			}
			if err == nil && d > 3*time.Second {
				err = fmt.Errorf("answered in %v", d)
			}
			if err != nil {
				failed.Add(1)
				mu.Lock()
				if firstErr == nil {
					firstErr = fmt.Errorf("call %d: %w", i, err)
				}
				mu.Unlock()
				return
			}
			answered.Add(1)
		})
	}
	wg.Wait()
	peak := sm.end()
	text, err := scrape(metricsAddr)
	if err != nil {
		return err
	}
	dropped := metricValue(text, "baremcp_log_lines_dropped_total")
	blocked := metricValue(text, "baremcp_log_write_blocked_seconds")
	backlog := metricValue(text, "baremcp_log_backlog_bytes")
	fmt.Printf("standard error never read, %v at 100 calls/s (%.0f/s sent): %d answered, %d failed, slowest %v; "+
		"baremcp_log_lines_dropped_total %.0f, baremcp_log_write_blocked_seconds %.1f, baremcp_log_backlog_bytes %.0f; RSS %d MiB at start, peak %d MiB (+%d KiB)\n",
		*stallFor, float64(answered.Load()+failed.Load())/stallFor.Seconds(), answered.Load(), failed.Load(), time.Duration(slowest.Load()).Round(time.Millisecond),
		dropped, blocked, backlog, rss0>>10, peak>>10, peak-int64(rss0))
	switch {
	case failed.Load() > 0:
		return firstErr
	case dropped <= 0:
		return errors.New("no log line dropped: was standard error read?")
	case blocked < 1:
		return fmt.Errorf("baremcp_log_write_blocked_seconds %.1f: the stall does not show", blocked)
	case backlog > 1<<20:
		return fmt.Errorf("backlog %.0f bytes, over the 1 MiB bound", backlog)
	case peak-int64(rss0) > 16<<10:
		return fmt.Errorf("RSS grew by %d KiB: the log's bound is 4 MiB", peak-int64(rss0))
	}
	return nil
}

// testPromtool: a scrape of -metrics taken while 16 clients call tools
// (ok, tool errors, unknown tools) is checked by promtool check metrics,
// and the process and Go series are in it. Skipped when promtool is not
// installed (.ci/run installs it: Debian's prometheus package).
func testPromtool(bin string) error {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		fmt.Println("SKIP: promtool is not installed (apt-get install prometheus)")
		return nil
	}
	metricsAddr, err := freePort()
	if err != nil {
		return err
	}
	s, err := startHTTP(bin, "-metrics", metricsAddr)
	if err != nil {
		return err
	}
	defer s.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var calls atomic.Int64
	for w := range 16 {
		c := clientFrom("127.0.0.1", 1)
		wg.Go(func() {
			for i := 1; ctx.Err() == nil; i++ {
				body := echoBody(i, "hi")
				if i%5 == 0 {
					body = toolBody(i, "nope", "{}", false)
				}
				resp, err := post(ctx, c, s.url, "tools/call", "echo", body)
				if err != nil {
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				calls.Add(1)
			}
			_ = w
		})
	}
	var scrapes []string
	for range 3 {
		time.Sleep(500 * time.Millisecond)
		text, err := scrape(metricsAddr)
		if err != nil {
			return err
		}
		scrapes = append(scrapes, text)
	}
	wg.Wait()
	for i, text := range scrapes {
		check := exec.Command(promtool, "check", "metrics")
		check.Stdin = strings.NewReader(text)
		var out bytes.Buffer
		check.Stdout, check.Stderr = &out, &out
		if err := check.Run(); err != nil || strings.TrimSpace(out.String()) != "" {
			return fmt.Errorf("promtool check metrics on scrape %d: %v\n%s", i+1, err, out.String())
		}
		for _, want := range []string{"process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds", "process_max_fds",
			"process_start_time_seconds", "go_goroutines", "go_threads", "go_gc_duration_seconds_count", "go_memstats_heap_alloc_bytes",
			`baremcp_requests_total{method="tools/call",era="modern",transport="http",outcome="server_error"}`, `baremcp_limit{flag="max-connections"}`,
			"baremcp_http_connections_open"} {
			if metricValue(text, want) < 0 {
				return fmt.Errorf("scrape %d has no %s", i+1, want)
			}
		}
	}
	fmt.Printf("%d calls from 16 clients; 3 scrapes under load (%d series each), promtool check metrics: clean\n",
		calls.Load(), strings.Count(scrapes[2], "\n")-2*strings.Count(scrapes[2], "# TYPE"))
	return nil
}
