//go:build linux && !(demo || conformance || bench || confinetest || stdio)

// Self-confinement of a real process. Landlock restricts the process that
// asks, for good, so these tests build the server with -tags confinetest
// (confine_seam.go: the build's registry plus tools that try what a
// confined server must not do) and drive it as a child, over stdio and
// over HTTP: every undeclared access comes back as a tool error with the
// system's words and the server goes on serving; what the registry
// declared works; /proc/PID/status shows NoNewPrivs; -confine=required
// refuses a kernel that lacks a feature (simulated through
// BAREMCP_CONFINETEST_ABI) or a cgo build. The stdio exchange runs on the
// full build and on the stdio build (-tags stdio). They run once, in the
// untagged build's tests, and skip where the kernel has no Landlock.

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The variables the confinetest build reads (confine_seam.go, which this
// build does not compile).
const (
	envConfineTestABI   = "BAREMCP_CONFINETEST_ABI"
	envConfineTestRead  = "BAREMCP_CONFINETEST_READ"
	envConfineTestWrite = "BAREMCP_CONFINETEST_WRITE"
	envConfineTestPort  = "BAREMCP_CONFINETEST_PORT"
	envConfineTestRun   = "BAREMCP_CONFINETEST_RUN"
)

// childWait bounds building the child (a cold build of the main package
// under a loaded CI) and each of its answers.
const childWait = 3 * time.Minute

func TestConfinedChild(t *testing.T) {
	abi, _, errno := syscall.Syscall(sysLandlockCreateRuleset, 0, 0, landlockCreateRulesetVersion)
	if errno != 0 {
		t.Skipf("this kernel has no Landlock (%v): nothing to confine with", errno)
	}
	bin := mustBuildConfineTest(t, "confinetest", "0")
	stdioBin := mustBuildConfineTest(t, "confinetest,stdio", "0")

	root := t.TempDir()
	readable := mustDir(t, root, "readable")
	writable := mustDir(t, root, "writable")
	outside := mustDir(t, root, "outside")
	key := mustWriteFile(t, mustDir(t, root, "home", ".ssh"), "id_ed25519", []byte("PRIVATE KEY"), 0o600)
	note := mustWriteFile(t, readable, "note", []byte("declared content"), 0o600)
	declared, undeclared := mustListen(t), mustListen(t)
	env := []string{
		envConfineTestRead + "=" + readable,
		envConfineTestWrite + "=" + writable,
		envConfineTestPort + "=" + strconv.Itoa(declared),
	}

	// Each case is one tools/call and the answer it must get: the text
	// (or, for a refusal, its words), and whether it is a tool error.
	type call struct {
		name, tool, args string
		want             string
		isError          bool
	}
	calls := func(tag string) []call {
		return []call{
			{"read outside", "read_file", fmt.Sprintf(`{"path":%q}`, key), "read_file: open: permission denied", true},
			{"read declared", "read_file", fmt.Sprintf(`{"path":%q}`, note), "declared content", false},
			{"write outside", "write_file", fmt.Sprintf(`{"path":%q,"text":"x"}`, filepath.Join(outside, tag)), "write_file: open: permission denied", true},
			{"write declared", "write_file", fmt.Sprintf(`{"path":%q,"text":"x"}`, filepath.Join(writable, tag)), "written", false},
			{"run a shell", "run_program", `{"path":"/bin/sh"}`, "run_program: fork/exec: permission denied", true},
			{"connect undeclared", "connect", fmt.Sprintf(`{"port":%d}`, undeclared), "connect: connect: permission denied", true},
			{"connect declared", "connect", fmt.Sprintf(`{"port":%d}`, declared), "connected", false},
			{"signal the parent", "signal_parent", `{}`, "signal_parent: operation not permitted", true},
		}
	}
	check := func(t *testing.T, tag string, do func(t *testing.T, tool, args string) string) {
		for _, c := range calls(tag) {
			t.Run(c.name, func(t *testing.T) {
				got := do(t, c.tool, c.args)
				v := mustDecode(t, got)
				text, _ := jsonPath(v, "result.content.0.text").(string)
				isError, _ := jsonPath(v, "result.isError").(bool)
				if text != c.want || isError != c.isError {
					t.Errorf("tools/call %s %s = %s, want text %q, isError %v", c.tool, c.args, got, c.want, c.isError)
				}
				if strings.Contains(got, root) {
					t.Errorf("the answer names a path the tool was refused: %s", got)
				}
			})
		}
		if _, err := os.Stat(filepath.Join(outside, tag)); err == nil {
			t.Errorf("a file was written outside the declared directory")
		}
		if _, err := os.Stat(filepath.Join(writable, tag)); err != nil {
			t.Errorf("the declared write did not happen: %v", err)
		}
	}

	for _, build := range []struct{ name, bin string }{{"stdio", bin}, {"stdio build", stdioBin}} {
		t.Run(build.name, func(t *testing.T) {
			c := startChild(t, build.bin, env)
			c.waitLog(t, `msg=confined kernel="Landlock ABI `)
			c.mustHaveNoNewPrivs(t)
			for _, w := range []string{`read="` + readable + ` (confinetest tools)"`, `write="` + writable + ` (confinetest tools)"`, `connect="` + strconv.Itoa(declared) + ` (confinetest tools)"`, `not_enforced=none`} {
				if !strings.Contains(c.log(), w) {
					t.Errorf("start-up log lacks %s:\n%s", w, c.log())
				}
			}
			id := 0
			check(t, build.name, func(t *testing.T, tool, args string) string {
				id++
				return c.roundTrip(t, req(strconv.Itoa(id), "tools/call", fmt.Sprintf(`"name":%q,"arguments":%s`, tool, args)))
			})
			if got := c.roundTrip(t, req("99", "server/discover", "")); !strings.Contains(got, `"supportedVersions"`) {
				t.Errorf("server/discover after the refusals = %s", got)
			}
			// The log is written in batches (logLinger): wait for the line.
			c.waitLog(t, `refused by the system`)
			if !strings.Contains(c.log(), "refused by the system") || !strings.Contains(c.log(), key) {
				t.Errorf("the log does not name what was refused:\n%s", c.log())
			}
			c.stop(t)
		})
	}

	t.Run("http", func(t *testing.T) {
		c := startChild(t, bin, env, "-http", "127.0.0.1:0")
		url := c.waitLog(t, `url=(http://\S+)`)
		c.mustHaveNoNewPrivs(t)
		check(t, "http", func(t *testing.T, tool, args string) string {
			return mustPostTool(t, url, tool, args)
		})
		if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		c.stop(t)
	})

	t.Run("a tool that runs a program", func(t *testing.T) {
		sh, err := filepath.EvalSymlinks("/bin/sh")
		if err != nil {
			t.Skip("no /bin/sh")
		}
		c := startChild(t, bin, append(env, envConfineTestRun+"="+sh))
		c.waitLog(t, `msg="confined in part"`)
		if w := `not_enforced="signals (confinetest tools runs programs`; !strings.Contains(c.log(), w) {
			t.Errorf("start-up log lacks %s:\n%s", w, c.log())
		}
		for i, tt := range []struct{ path, want string }{
			{sh, `"text":"ran"`},
			{"/usr/bin/env", `"text":"run_program: fork/exec: permission denied"`},
		} {
			got := c.roundTrip(t, req(strconv.Itoa(i), "tools/call", fmt.Sprintf(`"name":"run_program","arguments":{"path":%q}`, tt.path)))
			if !strings.Contains(got, tt.want) {
				t.Errorf("run_program %s = %s, want %s", tt.path, got, tt.want)
			}
		}
		c.stop(t)
	})

	t.Run("a kernel with ABI 3", func(t *testing.T) {
		if abi < 4 {
			t.Skipf("the kernel has ABI %d", abi)
		}
		c := startChild(t, bin, append(env, envConfineTestABI+"=3"))
		c.waitLog(t, `msg="confined in part"`)
		if w := "TCP bind and connect (Landlock ABI 4; this kernel has 3)"; !strings.Contains(c.log(), w) {
			t.Errorf("start-up log does not say %q is missing:\n%s", w, c.log())
		}
		got := c.roundTrip(t, req("1", "tools/call", fmt.Sprintf(`"name":"connect","arguments":{"port":%d}`, undeclared)))
		if !strings.Contains(got, `"text":"connected"`) {
			t.Errorf("connect with TCP not enforced = %s, want connected", got)
		}
		got = c.roundTrip(t, req("2", "tools/call", fmt.Sprintf(`"name":"read_file","arguments":{"path":%q}`, key)))
		if !strings.Contains(got, "permission denied") {
			t.Errorf("read with files enforced = %s, want permission denied", got)
		}
		c.stop(t)
	})

	t.Run("a kernel without Landlock", func(t *testing.T) {
		c := startChild(t, bin, append(env, envConfineTestABI+"=0"))
		c.waitLog(t, `msg="confined in part"`)
		c.mustHaveNoNewPrivs(t)
		if w := "kernel=\"no Landlock: the kernel is taken to have none"; !strings.Contains(c.log(), w) {
			t.Errorf("start-up log lacks %s:\n%s", w, c.log())
		}
		c.stop(t)
	})

	for _, tt := range []struct {
		name, abi string
		want      []string
	}{
		{"required without Landlock", "0", []string{"-confine=required: this system cannot enforce files read, written and executed (Landlock)", "no Landlock: the kernel is taken to have none"}},
		{"required with ABI 5", "5", []string{"abstract unix sockets (Landlock ABI 6; this kernel has 5); signals (Landlock ABI 6; this kernel has 5)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, code := mustRunChild(t, bin, append(env, envConfineTestABI+"="+tt.abi), "-confine=required")
			if code == 0 {
				t.Errorf("-confine=required exited 0:\n%s", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("-confine=required said\n%s\nlacking %q", out, w)
				}
			}
		})
	}

	t.Run("required in a cgo build", func(t *testing.T) {
		if _, err := exec.LookPath("gcc"); err != nil {
			t.Skip("no C compiler: no cgo build")
		}
		cgo := mustBuildConfineTest(t, "confinetest", "1")
		out, code := mustRunChild(t, cgo, env, "-confine=required")
		if code == 0 || !strings.Contains(out, "this binary links cgo") {
			t.Errorf("-confine=required of a cgo build exited %d:\n%s", code, out)
		}
	})
}

// mustBuildConfineTest builds the server with tags, and cgo as the value
// of CGO_ENABLED, into a temporary directory.
func mustBuildConfineTest(tb testing.TB, tags, cgo string) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "baremcp-confinetest")
	ctx, cancel := context.WithTimeout(context.Background(), childWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool(tb), "build", "-tags", tags, "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build -tags %s (CGO_ENABLED=%s): %v\n%s", tags, cgo, err, out)
	}
	return bin
}

// testChild is a running server: its standard input, the lines of its
// standard output, and its log.
type testChild struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	logs   chan string
	logged strings.Builder // the log lines read so far (waitLog)
}

// startChild starts bin with env (and nothing else of this process's
// environment) and args.
func startChild(tb testing.TB, bin string, env []string, args ...string) *testChild {
	tb.Helper()
	c := &testChild{cmd: exec.Command(bin, args...), lines: make(chan string, 16), logs: make(chan string, 64)}
	c.cmd.Env = env
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		tb.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.cmd.Process.Kill() })
	forward := func(r io.Reader, to chan<- string) {
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			to <- sc.Text()
		}
		close(to)
	}
	go forward(stdout, c.lines)
	go forward(stderr, c.logs)
	return c
}

// waitLog reads the log until a line matches pattern and returns the
// pattern's first group (or the line).
func (c *testChild) waitLog(tb testing.TB, pattern string) string {
	tb.Helper()
	re := regexp.MustCompile(pattern)
	timeout := time.After(childWait)
	for {
		select {
		case line, ok := <-c.logs:
			if !ok {
				tb.Fatalf("the server ended before logging %s:\n%s", pattern, c.log())
			}
			c.logged.WriteString(line + "\n")
			if m := re.FindStringSubmatch(line); m != nil {
				return m[len(m)-1]
			}
		case <-timeout:
			tb.Fatalf("no log line matched %s in %v:\n%s", pattern, childWait, c.log())
		}
	}
}

// log is what the server logged so far, including lines waitLog has not
// read yet.
func (c *testChild) log() string {
	for {
		select {
		case line, ok := <-c.logs:
			if !ok {
				return c.logged.String()
			}
			c.logged.WriteString(line + "\n")
		default:
			return c.logged.String()
		}
	}
}

// roundTrip sends one request line over stdio and returns the answer.
func (c *testChild) roundTrip(tb testing.TB, line string) string {
	tb.Helper()
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		tb.Fatal(err)
	}
	select {
	case got, ok := <-c.lines:
		if !ok {
			tb.Fatalf("the server ended instead of answering %s:\n%s", line, c.log())
		}
		return got
	case <-time.After(childWait):
		tb.Fatalf("no answer to %s in %v", line, childWait)
	}
	return ""
}

// mustHaveNoNewPrivs checks the kernel's word on the running process.
func (c *testChild) mustHaveNoNewPrivs(tb testing.TB) {
	tb.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		tb.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^NoNewPrivs:\s+1$`).Match(status) {
		tb.Errorf("/proc/%d/status has no NoNewPrivs: 1:\n%s", c.cmd.Process.Pid, status)
	}
}

// stop ends the server's input and checks that it exits 0.
func (c *testChild) stop(tb testing.TB) {
	tb.Helper()
	c.stdin.Close()
	done := make(chan error, 1)
	go func() {
		for range c.lines {
		}
		done <- c.cmd.Wait()
	}()
	select {
	case err := <-done:
		if err != nil {
			tb.Errorf("the server exited with %v:\n%s", err, c.log())
		}
	case <-time.After(childWait):
		tb.Fatalf("the server did not exit in %v", childWait)
	}
}

// mustRunChild runs bin to its end with empty input and returns its log
// and exit code.
func mustRunChild(tb testing.TB, bin string, env []string, args ...string) (string, int) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), childWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stderr = &out
	err := cmd.Run()
	if ee := (*exec.ExitError)(nil); err != nil && !errors.As(err, &ee) {
		tb.Fatal(err)
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// mustPostTool calls tool over Streamable HTTP and returns the answer.
func mustPostTool(tb testing.TB, url, tool, args string) string {
	tb.Helper()
	body := req("1", "tools/call", fmt.Sprintf(`"name":%q,"arguments":%s`, tool, args))
	r, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("MCP-Protocol-Version", version20260728)
	r.Header.Set("Mcp-Method", "tools/call")
	r.Header.Set("Mcp-Name", tool)
	client := &http.Client{Timeout: childWait}
	resp, err := client.Do(r)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	if !json.Valid(b) {
		tb.Fatalf("POST %s: %s %s", tool, resp.Status, b)
	}
	return string(b)
}

// mustListen opens a loopback TCP listener for the test's life and
// returns its port; connections complete in its backlog.
func mustListen(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// mustDir makes the directory root/elem... and returns it.
func mustDir(tb testing.TB, root string, elem ...string) string {
	tb.Helper()
	dir := filepath.Join(append([]string{root}, elem...)...)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	return dir
}
