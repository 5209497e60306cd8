// The cluster's processes: three baremcp replicas and HAProxy, started
// from the deployment docs/DEPLOY.md describes, and HAProxy's view of
// them (its statistics page).

package main

import (
	"bytes"
	"encoding/csv"
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
	"syscall"
	"time"
)

// process is a child process whose output goes to a log file.
type process struct {
	name   string
	cmd    *exec.Cmd
	log    string        // path of its stdout and stderr
	exited chan struct{} // closed when it has exited
	err    error         // its exit status, once exited is closed
}

// startProcess starts bin with args and env (added to this process's),
// its output appended to logPath.
func startProcess(name, bin string, args, env []string, logPath string) (*process, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, log: logPath, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.exited)
	}()
	return p, nil
}

// signal sends sig unless the process has exited.
func (p *process) signal(sig os.Signal) {
	select {
	case <-p.exited:
	default:
		_ = p.cmd.Process.Signal(sig)
	}
}

// wait waits up to d for the process to exit and returns its status.
func (p *process) wait(d time.Duration) error {
	select {
	case <-p.exited:
		return p.err
	case <-time.After(d):
		return fmt.Errorf("%s did not exit within %v", p.name, d)
	}
}

// kill ends the process for good (cleanup).
func (p *process) kill() {
	p.signal(syscall.SIGKILL)
	_ = p.wait(5 * time.Second)
}

// tail is the end of the process's log, for a failure report.
func (p *process) tail(n int) string {
	b, _ := os.ReadFile(p.log)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// cluster is the running deployment.
type cluster struct {
	d       *deployment
	bin     string   // the baremcp binary
	haproxy string   // the haproxy binary
	dir     string   // scratch directory: configuration and logs
	env     []string // the replicas' environment (BAREMCP_STATE_KEY)
	url     string   // http://frontend/mcp
	base    string   // http://frontend

	mu    sync.Mutex // guards procs
	procs map[string]*process
	lb    *process
}

// freePorts fails when something already listens on an address the
// deployment uses: the check would talk to it instead.
func (c *cluster) freePorts() error {
	addrs := []string{c.d.frontend, c.d.stats}
	for _, r := range c.d.replicas {
		addrs = append(addrs, r.addr)
	}
	for _, a := range addrs {
		conn, err := net.DialTimeout("tcp", a, 200*time.Millisecond)
		if err == nil {
			conn.Close()
			return fmt.Errorf("%s is already in use; the check needs the addresses docs/DEPLOY.md names", a)
		}
	}
	return nil
}

// startReplica starts replica r (again) and waits until it serves.
func (c *cluster) startReplica(r replica) error {
	p, err := startProcess(r.name, c.bin, r.args, c.env, filepath.Join(c.dir, r.name+".log"))
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.procs[r.name] = p
	c.mu.Unlock()
	direct := newClient("")
	defer direct.CloseIdleConnections()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited at start (%v):\n%s", r.name, p.err, p.tail(20))
		default:
		}
		if rep, err := postModern(direct, "http://"+r.addr+"/mcp", modern(1, "server/discover", "", capsNone)); err == nil && rep.ok() {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s did not serve within 15s:\n%s", r.name, p.tail(20))
}

// replica returns the running process of the named replica.
func (c *cluster) replica(name string) *process {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.procs[name]
}

// startHAProxy writes the configuration and starts HAProxy in the
// foreground (-db), then waits until it sees every replica up.
func (c *cluster) startHAProxy() error {
	cfg := filepath.Join(c.dir, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(c.d.haproxyCfg), 0o600); err != nil {
		return err
	}
	check := exec.Command(c.haproxy, "-c", "-f", cfg)
	if out, err := check.CombinedOutput(); err != nil {
		return fmt.Errorf("haproxy -c refuses the configuration of docs/DEPLOY.md: %v\n%s", err, out)
	}
	p, err := startProcess("haproxy", c.haproxy, []string{"-db", "-f", cfg}, nil, filepath.Join(c.dir, "haproxy.log"))
	if err != nil {
		return err
	}
	c.lb = p
	return c.waitStatus(15*time.Second, func(s map[string]serverStats) bool {
		for _, r := range c.d.replicas {
			if !strings.HasPrefix(s[r.name].status, "UP") {
				return false
			}
		}
		return true
	})
}

// stop ends every process: replicas gracefully (SIGTERM), then HAProxy.
func (c *cluster) stop() {
	c.mu.Lock()
	procs := c.procs
	c.mu.Unlock()
	for _, p := range procs {
		p.signal(syscall.SIGTERM)
	}
	for _, p := range procs {
		if p.wait(20*time.Second) != nil {
			p.kill()
		}
	}
	if c.lb != nil {
		c.lb.signal(syscall.SIGTERM)
		if c.lb.wait(5*time.Second) != nil {
			c.lb.kill()
		}
	}
}

// serverStats is one backend server as HAProxy's statistics show it.
type serverStats struct {
	status       string // UP, DOWN, "UP 1/2", MAINT, ...
	retries      int    // wretr: retries after a failure
	redispatches int    // wredis: requests sent to another server on retry
	connErrors   int    // econ
	respErrors   int    // eresp
	http5xx      int    // hrsp_5xx
}

// stats reads HAProxy's statistics (CSV) for the backend's servers.
func (c *cluster) stats() (map[string]serverStats, error) {
	hc := &http.Client{Timeout: 2 * time.Second}
	resp, err := hc.Get("http://" + c.d.stats + c.d.statsURI + ";csv")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("# ")))).ReadAll()
	if err != nil || len(rows) < 2 {
		return nil, fmt.Errorf("statistics: %v (%d rows)", err, len(rows))
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	num := func(row []string, name string) int {
		n, _ := strconv.Atoi(row[col[name]])
		return n
	}
	out := map[string]serverStats{}
	for _, row := range rows[1:] {
		if len(row) != len(rows[0]) || row[col["svname"]] == "FRONTEND" {
			continue
		}
		out[row[col["svname"]]] = serverStats{
			status: row[col["status"]], retries: num(row, "wretr"), redispatches: num(row, "wredis"),
			connErrors: num(row, "econ"), respErrors: num(row, "eresp"), http5xx: num(row, "hrsp_5xx"),
		}
	}
	return out, nil
}

// waitStatus polls the statistics until ok holds or d passes.
func (c *cluster) waitStatus(d time.Duration, ok func(map[string]serverStats) bool) error {
	deadline := time.Now().Add(d)
	var last map[string]serverStats
	var err error
	for time.Now().Before(deadline) {
		if last, err = c.stats(); err == nil && ok(last) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("HAProxy's view after %v: %v", d, last)
}

// listening reports whether addr accepts connections.
func listening(addr string) bool {
	conn, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}
