// What a client that never reads its answers makes the server hold: a
// task's 1.8 MiB payload (the demo's confirm_delete, asked about a path
// of 1.8 MiB, waits for input with the question in its inputRequests)
// fetched with small tasks/get requests that are never read, first
// pipelined on every request slot of four addresses, then on 1,020 idle
// connections. The server's RSS must stay within the formula's worst
// case (budgetHTTP), the bytes the kernel holds unsent for its clients
// within C × 2 × httpSendBuffer, and another client's call must be
// answered within a second throughout (docs/RELIABILITY.md, "Answers").
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const (
	answerPayload = 1800 * kib // the path asked about, and so the question's size
	sendBuffer    = 64 * kib   // httpSendBuffer: SO_SNDBUF, which Linux doubles
	defSlotShare  = defMaxRequests / defShares
)

// tasksMeta declares the tasks extension and form elicitation.
const tasksMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// bigTask starts confirm_delete as a task on a path of size bytes and
// waits until it asks its question; it returns the raw tasks/get request
// that fetches it (about size bytes of answer).
func bigTask(url string, size int) ([]byte, error) {
	c := clientFrom("127.0.0.250", 1)
	defer c.Transport.(*http.Transport).CloseIdleConnections()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":%q},%s}}`, strings.Repeat("p", size), tasksMeta)
	resp, err := post(context.Background(), c, url, "tools/call", "confirm_delete", body)
	if err != nil {
		return nil, err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_, rest, ok := strings.Cut(string(b), `"taskId":"`)
	id, _, _ := strings.Cut(rest, `"`)
	if !ok || id == "" {
		return nil, fmt.Errorf("confirm_delete did not start a task: %.300s", b)
	}
	get := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":%q,%s}}`, id, tasksMeta)
	for range 200 {
		resp, err := post(context.Background(), c, url, "tasks/get", id, get)
		if err != nil {
			return nil, err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if bytes.Contains(b, []byte(`"status":"input_required"`)) {
			host := strings.TrimPrefix(url, "http://")
			return []byte(fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tasks/get\r\nMcp-Name: %s\r\nContent-Length: %d\r\n\r\n%s", host, id, len(get), get)), nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil, errors.New("the task never asked its question")
}

// kernelHeld returns the bytes the kernel holds unsent on the server's
// side of the connections to port (tx_queue in /proc/net/tcp), and the
// memory the whole host's TCP sockets take (/proc/net/sockstat, both
// ends of every loopback connection included).
func kernelHeld(port string) (unsent, hostTCP int64) {
	p, _ := strconv.Atoi(port)
	local := fmt.Sprintf(":%04X", p)
	data, _ := os.ReadFile("/proc/net/tcp")
	for _, line := range strings.Split(string(data), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 5 || !strings.HasSuffix(f[1], local) {
			continue
		}
		tx, _, _ := strings.Cut(f[4], ":")
		n, _ := strconv.ParseInt(tx, 16, 64)
		unsent += n
	}
	data, _ = os.ReadFile("/proc/net/sockstat")
	if _, rest, ok := strings.Cut(string(data), "TCP:"); ok {
		line, _, _ := strings.Cut(rest, "\n")
		if _, m, ok := strings.Cut(line, " mem "); ok {
			pages, _ := strconv.ParseInt(strings.Fields(m)[0], 10, 64)
			hostTCP = pages * int64(os.Getpagesize())
		}
	}
	return unsent, hostTCP
}

// watchCalls calls echo as another client (127.0.0.5, its connection
// opened before the attack) every 100 ms until stop is closed, and
// returns the slowest answer and the number of failures.
func watchCalls(url string, stop <-chan struct{}) (slowest func() (time.Duration, int)) {
	c := clientFrom("127.0.0.5", 1)
	var mu sync.Mutex
	var worst time.Duration
	failed := 0
	call := func(i int) {
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		resp, err := post(ctx, c, url, "tools/call", "echo", echoBody(i, "hi"))
		if err == nil {
			err = checkEcho(resp, i, "hi")
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failed++
		}
		worst = max(worst, time.Since(start))
	}
	call(0) // opens the connection before the attack
	mu.Lock()
	worst = 0
	mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			case <-t.C:
				call(i)
			}
		}
	}()
	return func() (time.Duration, int) {
		<-done
		c.Transport.(*http.Transport).CloseIdleConnections()
		mu.Lock()
		defer mu.Unlock()
		return worst, failed
	}
}

// testAnswers is the attack of unread answers, measured.
func testAnswers(bin string) error {
	s, err := startHTTP(bin)
	if err != nil {
		return err
	}
	defer s.stop()
	pid := s.cmd.Process.Pid
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(s.url, "http://"))
	get, err := bigTask(s.url, answerPayload)
	if err != nil {
		return err
	}
	host := strings.TrimPrefix(s.url, "http://")
	budget := budgetHTTP()
	kernelBound := int64(defMaxConnections) * 2 * sendBuffer
	for _, phase := range []struct {
		name      string
		perAddr   int // connections per address
		pipelined int // requests written on each before reading (never)
	}{
		{"pipelined on every request slot", defSlotShare, 4},
		{"idle connections", defMaxConnections/defShares - 1, 1},
	} {
		rss0 := rssKiB(pid)
		_, host0 := kernelHeld(port)
		sm := sample(pid)
		stop := make(chan struct{})
		slowest := watchCalls(s.url, stop)
		var conns []net.Conn
		for a := range defShares {
			d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(a+1))}}
			for range phase.perAddr {
				c, err := d.Dial("tcp", host)
				if err != nil {
					return err
				}
				conns = append(conns, c)
				go c.Write(bytes.Repeat(get, phase.pipelined))
			}
		}
		// Hold past the short idle timeout of a connection left after a
		// large answer (httpLargeAnswerIdle, 5 s).
		var unsent, hostTCP int64
		for range 40 {
			time.Sleep(200 * time.Millisecond)
			u, h := kernelHeld(port)
			unsent, hostTCP = max(unsent, u), max(hostTCP, h-host0)
		}
		close(stop)
		peak := sm.end()
		worst, failed := slowest()
		for _, c := range conns {
			c.Close()
		}
		fmt.Printf("%s: %d connections from %d addresses, %d tasks/get of a %d KiB answer each, never read, for 8 s; RSS %d MiB before, peak %d MiB (formula %d MiB); kernel unsent for the clients at most %d KiB (bound %d KiB), host TCP memory +%d MiB; another client's echo every 100 ms: slowest %v, %d failed\n",
			phase.name, len(conns), defShares, phase.pipelined, answerPayload/kib, rss0>>10, peak>>10, budget>>20, unsent>>10, kernelBound>>10, hostTCP>>20, worst.Round(time.Millisecond), failed)
		switch {
		case peak<<10 >= budget:
			return fmt.Errorf("%s: peak RSS %d MiB over the budget of %d MiB", phase.name, peak>>10, budget>>20)
		case unsent > kernelBound:
			return fmt.Errorf("%s: the kernel holds %d KiB unsent, over %d KiB", phase.name, unsent>>10, kernelBound>>10)
		case worst > time.Second || failed > 0:
			return fmt.Errorf("%s: another client's echo took up to %v, %d failed", phase.name, worst, failed)
		}
		time.Sleep(time.Second) // the server sees the closes
	}
	return nil
}

// testStdioAnswers: over stdio, a task holding 4 MB (the demo's
// confirm_delete asked about a path of 2,000,000 bytes: the path in its
// arguments and in its question, the task's inputRequests), whose 2 MB
// answer 600 tasks/get lines fetch and never read. Each answer is charged to the answer budget before it
// is encoded, and written from its pieces, the stored result shared: peak
// RSS must stay within the stdio formula (budgetStdio); at 8facd1b it
// reached 998 MiB (issue 35, R4-7).
func testStdioAnswers(bin string) error {
	const size, gets = 2_000_000, 600 // the task holds the path twice (its arguments, its question): 4 MB stored, a 2 MB answer
	cmd := exec.Command(bin, "-confine=off")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		stdin.Close()
		go io.Copy(io.Discard, stdout)
		cmd.Wait()
	}()
	out := bufio.NewReaderSize(stdout, 64*kib)
	next := func() (string, error) {
		line, err := out.ReadString('\n')
		return line, err
	}
	call := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":%q},%s}}`, strings.Repeat("p", size), tasksMeta)
	if _, err := io.WriteString(stdin, call+"\n"); err != nil {
		return err
	}
	line, err := next()
	if err != nil {
		return err
	}
	_, rest, ok := strings.Cut(line, `"taskId":"`)
	id, _, _ := strings.Cut(rest, `"`)
	if !ok || id == "" {
		return fmt.Errorf("confirm_delete did not start a task: %.300s", line)
	}
	get := func(n int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tasks/get","params":{"taskId":%q,%s}}`, n, id, tasksMeta) + "\n"
	}
	asked, last := 0, ""
	for i := 0; ; i++ {
		if i == 200 {
			return fmt.Errorf("the task never asked its question: %.300s", last)
		}
		if _, err := io.WriteString(stdin, get(2)); err != nil {
			return err
		}
		line, err := next()
		if err != nil {
			return err
		}
		last = line
		if strings.Contains(line, `"status":"input_required"`) {
			asked = len(line)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	pid := cmd.Process.Pid
	rss0 := rssKiB(pid)
	sm := sample(pid)
	var sent atomic.Int64
	go func() {
		for i := range gets {
			if _, err := io.WriteString(stdin, get(10+i)); err != nil {
				return
			}
			sent.Add(1)
		}
	}()
	time.Sleep(8 * time.Second)
	peak := sm.end()
	fmt.Printf("stdio, stdout never read: %d of %d tasks/get sent of a %d KiB answer each; RSS %d MiB before, peak %d MiB (formula for stdio: %d MiB; 998 MiB at 8facd1b)\n",
		sent.Load(), gets, asked/kib, rss0>>10, peak>>10, budgetStdio()>>20)
	if peak<<10 > budgetStdio() {
		return fmt.Errorf("peak RSS %d MiB over the formula's %d MiB", peak>>10, budgetStdio()>>20)
	}
	return nil
}
