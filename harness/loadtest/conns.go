// The connections of the fourth review (issue 35, R4-8) on a real
// process at the defaults: four addresses without a credential try to
// hold twice their share of every connection of the MCP listener and of
// the -metrics listener, silent, idle after a probe, idle after a 401;
// an authenticated client and the probes must still be answered within
// a second.

package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// testHeldConns: 127.0.0.1-4 each open twice their share of the MCP
// listener's connections (-max-connections 1024: 2 × 256) and of the
// metrics listener's (2 × 16, the share before the fix; 4 since), a third
// of them idle after GET /healthz, a third idle after a POST /mcp without
// a token (401; on the metrics listener a 404), the last third silent.
// Then, within the 10 s a silent connection is held (the header timeout),
// an authenticated call from a fifth address and from 127.0.0.1, and
// /healthz and /readyz on both listeners, must each be answered within
// 1 s. On main 8facd1b each waited in the kernel's backlog.
func testHeldConns(bin string) error {
	dir, err := os.MkdirTemp("", "baremcp-conns")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	raw := make([]byte, 32)
	rand.Read(raw)
	token := hex.EncodeToString(raw)
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		return err
	}
	metricsAddr, err := freePort()
	if err != nil {
		return err
	}
	s, err := startHTTP(bin, "-token-file", tokenFile, "-metrics", metricsAddr)
	if err != nil {
		return err
	}
	defer s.stop()
	pid := s.cmd.Process.Pid
	sm := sample(pid)
	mcpAddr := strings.TrimPrefix(s.url, "http://")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// hold opens n connections from ip to addr, each sending what (by its
	// index) and keeping the connection; it returns how many got an
	// answer, and closes them all when ctx ends.
	var held sync.WaitGroup
	hold := func(ip, addr string, n int, what func(i int) string) (answered int, err error) {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		// Answers come within milliseconds; one past the listener's
		// bounds never comes, and the silent ones must still be held
		// when the measures begin.
		deadline := time.Now().Add(time.Second)
		for i := range n {
			c, err := d.DialContext(ctx, "tcp", addr)
			if err != nil {
				return answered, err
			}
			held.Go(func() { <-ctx.Done(); c.Close() })
			req := what(i)
			if req == "" {
				continue
			}
			if _, err := io.WriteString(c, req); err != nil {
				continue // closed for a newcomer of its address already
			}
			c.SetReadDeadline(deadline)
			if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				answered++
			}
		}
		return answered, nil
	}
	probe := func(addr string) string {
		return "GET /healthz HTTP/1.1\r\nHost: " + addr + "\r\n\r\n"
	}
	unauthorized := func(addr string) string {
		body := echoBody(1, "held")
		return fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
	}
	notFound := "GET /nowhere HTTP/1.1\r\nHost: " + metricsAddr + "\r\n\r\n"
	ips := []string{"127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"}
	var answered atomic.Int64
	errs := make(chan error, 2*len(ips))
	var setup sync.WaitGroup
	start := time.Now()
	for _, ip := range ips {
		setup.Go(func() {
			n, err := hold(ip, mcpAddr, 2*defMaxConnections/defShares, func(i int) string {
				switch i * 3 / (2 * defMaxConnections / defShares) {
				case 0:
					return probe(mcpAddr)
				case 1:
					return unauthorized(mcpAddr)
				}
				return ""
			})
			answered.Add(int64(n))
			if err != nil {
				errs <- fmt.Errorf("%s on -http: %w", ip, err)
			}
			n, err = hold(ip, metricsAddr, 2*16, func(i int) string {
				switch i * 3 / (2 * 16) {
				case 0:
					return probe(metricsAddr)
				case 1:
					return notFound
				}
				return ""
			})
			answered.Add(int64(n))
			if err != nil {
				errs <- fmt.Errorf("%s on -metrics: %w", ip, err)
			}
		})
	}
	setup.Wait()
	close(errs)
	for err := range errs {
		return err
	}
	took := time.Since(start)

	var failed []string
	measure := func(what string, do func() (int, error)) {
		t0 := time.Now()
		status, err := do()
		d := time.Since(t0)
		fmt.Printf("  %s: %d in %.1f ms\n", what, status, float64(d.Microseconds())/1e3)
		if err != nil || status != 200 || d > time.Second {
			failed = append(failed, fmt.Sprintf("%s: status %d, %v, after %v", what, status, err, d.Round(time.Millisecond)))
		}
	}
	from := func(ip string) *http.Client {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}, Timeout: 5 * time.Second}
	}
	call := func(ip string) func() (int, error) {
		return func() (int, error) {
			req, err := http.NewRequestWithContext(ctx, "POST", s.url+"/mcp", strings.NewReader(echoBody(7, "through")))
			if err != nil {
				return 0, err
			}
			for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
				"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo", "Authorization": "Bearer " + token} {
				req.Header.Set(k, v)
			}
			resp, err := from(ip).Do(req)
			if err != nil {
				return 0, err
			}
			defer resp.Body.Close()
			return resp.StatusCode, checkEcho(resp, 7, "through")
		}
	}
	get := func(url string) func() (int, error) {
		return func() (int, error) {
			resp, err := from("127.0.0.6").Get(url)
			if err != nil {
				return 0, err
			}
			resp.Body.Close()
			if !resp.Close {
				return resp.StatusCode, errors.New("the probe's connection was kept")
			}
			return resp.StatusCode, nil
		}
	}
	fmt.Printf("four addresses opened %d connections to -http and %d to -metrics in %.1f s (%d answered before idling)\n",
		len(ips)*2*defMaxConnections/defShares, len(ips)*2*16, took.Seconds(), answered.Load())
	measure("an authenticated call from 127.0.0.5", call("127.0.0.5"))
	measure("an authenticated call from 127.0.0.1 (one of the four)", call("127.0.0.1"))
	measure("GET /healthz on -http", get(s.url+"/healthz"))
	measure("GET /readyz on -http", get(s.url+"/readyz"))
	measure("GET /healthz on -metrics", get("http://"+metricsAddr+"/healthz"))
	measure("GET /readyz on -metrics", get("http://"+metricsAddr+"/readyz"))
	open := metricValue(scrapeFrom("127.0.0.7", metricsAddr), "baremcp_http_connections_open")
	peak := sm.end()
	cancel()
	held.Wait()
	fmt.Printf("the MCP listener holds %.0f connections of 1024 (-1: the metrics listener did not answer); peak RSS %d MiB\n", open, peak>>10)
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "; "))
	}
	return nil
}

// scrapeFrom is scrape from the address ip, "" on failure.
func scrapeFrom(ip, addr string) string {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	c := &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}, Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
