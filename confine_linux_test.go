//go:build linux && !(demo || conformance || bench || confinetest || stdio)

// Self-confinement of a real process. Landlock restricts the process that
// asks, for good, so these tests build the server with -tags confinetest
// (confine_seam.go: the build's registry plus tools that try what a
// confined server must not do) and drive it as a child, over stdio and
// over HTTP: every undeclared access comes back as a tool error with the
// system's words and the server goes on serving; what the registry
// declared works; /proc/PID/task/*/status shows no_new_privs, the seccomp
// filter and no capability on every thread; -confine=required refuses a
// kernel that lacks a feature (simulated through
// BAREMCP_CONFINETEST_ABI); a process that claims a relaunch it did not
// get refuses to serve. Each build is tried on each route: the full and
// the stdio build without cgo, in process and (as root) relaunched, and
// with cgo (a C compiler found), relaunched. docs/SECURITY.md's "What it
// stops" names each case. They run once, in the untagged build's tests,
// and skip where the kernel has no Landlock.

package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// The variables the confinetest build reads (confine_seam.go, which this
// build does not compile).
const (
	envConfineTestABI      = "BAREMCP_CONFINETEST_ABI"
	envConfineTestRead     = "BAREMCP_CONFINETEST_READ"
	envConfineTestWrite    = "BAREMCP_CONFINETEST_WRITE"
	envConfineTestPort     = "BAREMCP_CONFINETEST_PORT"
	envConfineTestRun      = "BAREMCP_CONFINETEST_RUN"
	envConfineTestTestFlag = "BAREMCP_CONFINETEST_TESTFLAG"
)

// childWait bounds building the child (a cold build of the main package
// under a loaded CI) and each of its answers.
const childWait = 3 * time.Minute

// confineCall is one tools/call of TestConfinedChild and the answer it
// must get: the text (or, for a refusal, its words), and whether it is a
// tool error.
type confineCall struct {
	name, tool, args string
	want             string
	isError          bool
}

// confineBuild is a build of the confinetest server and how it is
// started: wrap runs it under another program (setpriv), route is the
// route it takes, as the start-up line says.
type confineBuild struct {
	name   string
	bin    string
	wrap   []string
	route  string // "every thread at once" or "relaunched"
	cgo    bool
	stdio  bool
	asRoot bool // the child keeps root's capabilities until it drops them
	// capsKept: the child cannot drop them (a cgo build whose relaunch
	// failed: no thread but one is reached but by the filter's TSYNC)
	capsKept bool
}

// command is the build started with args under its wrapper.
func (b confineBuild) command(args ...string) *exec.Cmd {
	if len(b.wrap) > 0 {
		return exec.Command(b.wrap[0], slices.Concat(b.wrap[1:], []string{b.bin}, args)...)
	}
	return exec.Command(b.bin, args...)
}

func TestConfinedChild(t *testing.T) {
	abi, _, errno := syscall.Syscall(sysLandlockCreateRuleset, 0, 0, landlockCreateRulesetVersion)
	if errno != 0 {
		t.Skipf("this kernel has no Landlock (%v): nothing to confine with", errno)
	}
	builds := confineBuilds(t)
	bin := builds[0].bin
	// Every SIGCONT a confined tool sends this process (its parent):
	// none may arrive, whatever route it takes ("signal the parent", "a
	// signal to the parent by SIGIO").
	conts := make(chan os.Signal, 16)
	signal.Notify(conts, syscall.SIGCONT)
	defer signal.Stop(conts)

	root := mustDir(t, t.TempDir(), "tree")
	readable := mustDir(t, root, "readable")
	writable := mustDir(t, root, "writable")
	outside := mustDir(t, root, "outside")
	secrets := mustDir(t, root, "secrets")
	key := mustWriteFile(t, mustDir(t, root, "home", ".ssh"), "id_ed25519", []byte("PRIVATE KEY"), 0o600)
	note := mustWriteFile(t, readable, "note", []byte("declared content"), 0o600)
	// A program the tools may read but not run (memfd_exec's payload):
	// the static build itself.
	static := filepath.Join(readable, "static")
	if err := os.Link(bin, static); err != nil {
		t.Fatal(err)
	}
	token := rand.Text() + rand.Text()
	tokenFile := mustWriteFile(t, secrets, "token", []byte(token+"\n"), 0o600)
	stateKeyFile := mustWriteFile(t, secrets, "state-key", []byte(strings.Repeat("k", 40)), 0o600)
	declared, undeclared := mustListen(t), mustListen(t)
	abstract := fmt.Sprintf("baremcp-confinetest-%d", os.Getpid())
	if ln, err := net.Listen("unix", "@"+abstract); err != nil {
		t.Fatal(err)
	} else {
		t.Cleanup(func() { ln.Close() })
	}
	env := []string{
		envConfineTestRead + "=" + readable,
		envConfineTestWrite + "=" + writable,
		envConfineTestPort + "=" + strconv.Itoa(declared),
	}

	calls := func(tag string) []confineCall {
		target := mustWriteFile(t, writable, tag+".target", []byte("x"), 0o644)
		return append([]confineCall{
			{"read outside", "read_file", fmt.Sprintf(`{"path":%q}`, key), "read_file: open: permission denied", true},
			{"read a secret file of the flags", "read_file", fmt.Sprintf(`{"path":%q}`, tokenFile), "read_file: open: permission denied", true},
			{"read declared", "read_file", fmt.Sprintf(`{"path":%q}`, note), "declared content", false},
			{"write outside", "write_file", fmt.Sprintf(`{"path":%q,"text":"x"}`, filepath.Join(outside, tag)), "write_file: open: permission denied", true},
			{"write declared", "write_file", fmt.Sprintf(`{"path":%q,"text":"x"}`, filepath.Join(writable, tag)), "written", false},
			{"run a shell", "run_program", `{"path":"/bin/sh"}`, "run_program: fork/exec: permission denied", true},
			{"connect undeclared", "connect", fmt.Sprintf(`{"port":%d}`, undeclared), "connect: connect: permission denied", true},
			{"connect declared", "connect", fmt.Sprintf(`{"port":%d}`, declared), "connected", false},
			{"signal the parent", "signal_parent", `{}`, "signal_parent: operation not permitted", true},
			{"trace the parent", "ptrace_parent", `{}`, "ptrace_parent: ptrace: operation not permitted", true},
			{"an abstract unix socket", "connect_abstract", fmt.Sprintf(`{"name":%q}`, abstract), "connect_abstract: connect: operation not permitted", true},
			// R4-1: Multipath TCP is refused, and Go falls back to TCP,
			// whose rules hold.
			{"MPTCP connect undeclared", "mptcp_connect", fmt.Sprintf(`{"port":%d}`, undeclared), "mptcp_connect: connect: permission denied", true},
			{"MPTCP connect declared", "mptcp_connect", fmt.Sprintf(`{"port":%d}`, declared), "connected", false},
			{"MPTCP listen", "mptcp_listen", `{}`, "mptcp_listen: bind: permission denied", true},
			{"listen without bind", "listen_unbound", `{}`, "listen_unbound: listen: permission denied", true},
			{"MPTCP socket", "socket", fmt.Sprintf(`{"family":%d,"type":%d,"protocol":262}`, syscall.AF_INET, syscall.SOCK_STREAM), "socket: socket: permission denied", true},
			{"SCTP socket", "socket", fmt.Sprintf(`{"family":%d,"type":%d,"protocol":132}`, syscall.AF_INET6, syscall.SOCK_SEQPACKET), "socket: socket: permission denied", true},
			{"SMC socket", "socket", fmt.Sprintf(`{"family":43,"type":%d,"protocol":0}`, syscall.SOCK_STREAM), "socket: socket: permission denied", true},
			{"packet socket", "socket", fmt.Sprintf(`{"family":%d,"type":%d,"protocol":768}`, syscall.AF_PACKET, syscall.SOCK_RAW), "socket: socket: permission denied", true},
			{"io_uring", "io_uring", `{}`, "io_uring: io_uring_setup: operation not permitted", true},
			// R4-4: bytes run from memory, no Run declared.
			{"memfd exec", "memfd_exec", fmt.Sprintf(`{"path":%q}`, static), "memfd_exec: memfd_create: operation not permitted", true},
			{"execveat", "execveat", fmt.Sprintf(`{"path":%q}`, filepath.Join(outside, "none")), "execveat: execveat: operation not permitted", true},
			// R4-3: no privilege kept, whoever started it.
			{"setuid bit", "chmod", fmt.Sprintf(`{"path":%q,"mode":"4755"}`, target), "chmod: chmod: operation not permitted", true},
			{"chown (CAP_CHOWN)", "chown", fmt.Sprintf(`{"path":%q,"id":65534}`, target), "chown: chown: operation not permitted", true},
			{"raw ICMP socket (CAP_NET_RAW)", "socket", fmt.Sprintf(`{"family":%d,"type":%d,"protocol":1}`, syscall.AF_INET, syscall.SOCK_RAW), "socket: socket: operation not permitted", true},
			// I-3: a written tree holds no link the user could follow
			// later, unconfined.
			{"a symbolic link in the written tree", "symlink", fmt.Sprintf(`{"path":%q,"target":%q}`, filepath.Join(writable, tag+".link"), key), "symlink: symlink: permission denied", true},
			// R4-2: the relaunch's handoff and the secrets leave no trace a
			// program started by a tool would see.
			{"no handoff in the environment", "getenv", fmt.Sprintf(`{"name":%q}`, envHandoff), "[]", false},
			{"no state key in the environment", "getenv", fmt.Sprintf(`{"name":%q}`, envStateKey), "[]", false},
		}, fifthReview(tag, writable, readable, static, key, undeclared)...)
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
		if n := len(conts); n > 0 {
			t.Errorf("the test process, the server's parent, got %d SIGCONT from its tools", n)
		}
		if _, err := os.Stat(filepath.Join(writable, tag)); err != nil {
			t.Errorf("the declared write did not happen: %v", err)
		}
	}

	for _, b := range builds {
		t.Run(b.name, func(t *testing.T) {
			// A descriptor the parent leaves open (I-1), and the secrets
			// the flags name, in a directory nobody declared.
			leak, err := os.OpenFile(filepath.Join(outside, b.name+".leak"), os.O_CREATE|os.O_WRONLY, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			defer leak.Close()
			args := []string{"-state-key-file", stateKeyFile}
			c := startOnTerminal(t, b.command(args...), env, leak)
			c.waitLog(t, `msg="?confined`)
			c.mustBeConfined(t, b)
			wants := []string{
				`read="` + readable + ` (confinetest tools)`, `write="` + writable + ` (confinetest tools)"`,
				`connect="` + strconv.Itoa(declared) + ` (confinetest tools)"`,
				"inherited descriptors closed (3 (" + leak.Name() + ")",
				"system calls (seccomp: MPTCP",
				"UDP and ICMP datagrams, to any address and port",
				"threads=\"" + map[bool]string{true: "one thread restricted, then this binary relaunched", false: "every thread at once"}[b.route == "relaunched"],
			}
			if b.cgo {
				wants = append(wants, "execution by the loader (this binary needs one")
			}
			for _, w := range wants {
				if !strings.Contains(c.log(), w) {
					t.Errorf("start-up log lacks %s:\n%s", w, c.log())
				}
			}
			if cmdline := c.cmdline(t); !slices.Equal(cmdline[len(cmdline)-2:], args) {
				t.Errorf("the running server's arguments are %q, want them to end with %q", cmdline, args)
			}
			id := 0
			check(t, b.name, func(t *testing.T, tool, args string) string {
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

	for _, b := range builds {
		if b.stdio {
			continue
		}
		t.Run("http, "+b.name, func(t *testing.T) {
			c := startCmd(t, b.command("-http", "127.0.0.1:0", "-metrics", "127.0.0.1:0", "-token-file", tokenFile), append(env, envStateKey+"="+strings.Repeat("s", 40)))
			url := c.waitLog(t, `url=(http://\S+/mcp)`)
			c.mustBeConfined(t, b)
			check(t, "http-"+b.name, func(t *testing.T, tool, args string) string {
				return mustPostTool(t, url, token, tool, args)
			})
			if got := mustPostTool(t, url, "", "read_file", `{"path":"/"}`); got != "401" {
				t.Errorf("a call without the token of -token-file = %s, want 401", got)
			}
			if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			c.stop(t)
		})
	}

	sh, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		t.Fatal("no /bin/sh")
	}
	loader, err := filepath.EvalSymlinks("/lib64/ld-linux-x86-64.so.2")
	if err != nil {
		loader = ""
	}
	// A dynamically linked program the tools can write (copied here, as
	// a tool would), which the loader would run.
	written := filepath.Join(writable, "written")
	if b, err := os.ReadFile("/bin/true"); err != nil {
		loader = "" // nothing for the loader to run: its rows are left out
	} else if err := os.WriteFile(written, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, b := range builds[:2] {
		t.Run("a tool that runs a shell, "+b.name, func(t *testing.T) {
			c := startCmd(t, b.command(), append(env, envConfineTestRun+"="+sh))
			c.waitLog(t, `msg="confined in part"`)
			gaps := []string{`(confinetest tools)`, "loader of " + sh, "libraries of " + sh, "execution by the loader (" + sh + " needs one"}
			if b.route == "every thread at once" {
				gaps = append(gaps, `signals (confinetest tools runs programs`)
			}
			for _, w := range gaps {
				if !strings.Contains(c.log(), w) {
					t.Errorf("start-up log lacks %s:\n%s", w, c.log())
				}
			}
			rows := []struct{ name, tool, args, want string }{
				{"the shell", "run_program", fmt.Sprintf(`{"path":%q}`, sh), `"text":"ran"`},
				{"another program", "run_program", `{"path":"/usr/bin/env"}`, `"text":"run_program: fork/exec: permission denied"`},
			}
			if _, err := os.Stat("/usr/lib/os-release"); err == nil {
				// R4-4: the libraries granted are the shell's, not /usr/lib.
				rows = append(rows, struct{ name, tool, args, want string }{"a file under /usr/lib", "read_file", `{"path":"/usr/lib/os-release"}`, `"text":"read_file: open: permission denied"`})
			}
			if loader != "" {
				// What Run still allows, and the start-up line says: the
				// loader the shell needs runs what it can read.
				rows = append(rows, struct{ name, tool, args, want string }{"the loader running a written file", "run_args", fmt.Sprintf(`{"path":%q,"args":[%q]}`, loader, written), `"text":"ran"`})
			}
			for i, tt := range rows {
				got := c.roundTrip(t, req(strconv.Itoa(i), "tools/call", fmt.Sprintf(`"name":%q,"arguments":%s`, tt.tool, tt.args)))
				if !strings.Contains(got, tt.want) {
					t.Errorf("%s: %s %s = %s, want %s", tt.name, tt.tool, tt.args, got, tt.want)
				}
			}
			c.stop(t)
		})
		t.Run("a tool that runs a static program, "+b.name, func(t *testing.T) {
			prog := filepath.Join(t.TempDir(), "static")
			if err := os.Link(bin, prog); err != nil {
				t.Fatal(err)
			}
			c := startCmd(t, b.command(), append(env, envConfineTestRun+"="+prog))
			c.waitLog(t, `msg="?confined`)
			if strings.Contains(c.log(), "execution by the loader") || strings.Contains(c.log(), "loader of") {
				t.Errorf("a static program brought a loader:\n%s", c.log())
			}
			rows := []struct{ name, tool, args, want string }{
				{"the program", "run_args", fmt.Sprintf(`{"path":%q,"args":["-version"]}`, prog), `"text":"ran"`},
			}
			if loader != "" {
				rows = append(rows, struct{ name, tool, args, want string }{"the loader running a written file", "run_args", fmt.Sprintf(`{"path":%q,"args":[%q]}`, loader, written), `"text":"run_args: fork/exec: permission denied"`})
			}
			for i, tt := range rows {
				got := c.roundTrip(t, req(strconv.Itoa(i), "tools/call", fmt.Sprintf(`"name":%q,"arguments":%s`, tt.tool, tt.args)))
				if !strings.Contains(got, tt.want) {
					t.Errorf("%s: %s %s = %s, want %s", tt.name, tt.tool, tt.args, got, tt.want)
				}
			}
			c.stop(t)
		})
	}

	// A relaunch whose execve fails (a binary run by qemu-user) goes on
	// in process, its every thread given the filter by the thread it
	// restricted, and says what it could not enforce.
	for _, b := range builds {
		if b.route != "relaunched" || b.stdio {
			continue
		}
		t.Run("a relaunch that cannot execute, "+b.name, func(t *testing.T) {
			c := startCmd(t, b.command("-http", "127.0.0.1:0"), append(env, "BAREMCP_CONFINETEST_EXEC="+filepath.Join(outside, "none")))
			url := c.waitLog(t, `url=(http://\S+/mcp)`)
			want := "every thread at once, as far as that reaches (the relaunch failed: " + filepath.Join(outside, "none") + " cannot be executed: no such file or directory)"
			if !strings.Contains(c.log(), want) {
				t.Errorf("start-up log lacks %s:\n%s", want, c.log())
			}
			c.mustBeConfined(t, confineBuild{route: "every thread at once", asRoot: b.asRoot, capsKept: b.cgo && b.asRoot})
			if b.cgo && b.asRoot && !strings.Contains(c.log(), "capabilities (this binary links cgo") {
				t.Errorf("a cgo build that could not relaunch does not say its capabilities are kept:\n%s", c.log())
			}
			for _, tt := range []struct{ tool, args, want string }{
				{"listen_unbound", `{}`, "listen_unbound: listen: permission denied"},
				{"read_file", fmt.Sprintf(`{"path":%q}`, key), map[bool]string{false: "read_file: open: permission denied", true: "PRIVATE KEY"}[b.cgo]},
			} {
				if got := mustPostTool(t, url, "", tt.tool, tt.args); !strings.Contains(got, `"text":"`+tt.want+`"`) {
					t.Errorf("tools/call %s %s = %s, want %q", tt.tool, tt.args, got, tt.want)
				}
			}
			if b.cgo && !strings.Contains(c.log(), "files read, written and executed (Landlock)") {
				t.Errorf("a cgo build that could not relaunch does not say Landlock is missing:\n%s", c.log())
			}
			if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			c.stop(t)
		})
	}

	// -skills DIR is read at start, by a relaunched image confined
	// already: it is granted that directory (what it serves anyway).
	t.Run("skills read after a relaunch", func(t *testing.T) {
		skills := mustDir(t, root, "skills", "pdf-processing")
		mustWriteFile(t, skills, "SKILL.md", []byte("---\nname: pdf-processing\ndescription: Fill PDF forms.\n---\n\n# PDF\n"), 0o600)
		c := startCmd(t, builds[0].command("-skills", filepath.Dir(skills)), env)
		c.waitLog(t, `msg="skills read".* skills=1 `)
		c.waitLog(t, `msg="?confined`)
		got := c.roundTrip(t, req("1", "tools/call", fmt.Sprintf(`"name":"read_file","arguments":{"path":%q}`, key)))
		if !strings.Contains(got, "permission denied") {
			t.Errorf("read outside with -skills = %s, want permission denied", got)
		}
		c.stop(t)
	})

	// R4-5: a dependency that registers a global flag named test.v does
	// not make the server a test binary.
	t.Run("a dependency's test.v flag", func(t *testing.T) {
		c := startChild(t, bin, append(env, envConfineTestTestFlag+"=1"))
		c.waitLog(t, `msg="?confined`)
		got := c.roundTrip(t, req("1", "tools/call", fmt.Sprintf(`"name":"read_file","arguments":{"path":%q}`, key)))
		if !strings.Contains(got, "permission denied") {
			t.Errorf("read outside with a test.v flag registered = %s, want permission denied", got)
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
		got = c.roundTrip(t, req("3", "tools/call", `"name":"listen_unbound"`))
		if !strings.Contains(got, "listen: permission denied") {
			t.Errorf("listen with the seccomp filter and no TCP rules = %s, want permission denied", got)
		}
		c.stop(t)
	})

	t.Run("a kernel without Landlock", func(t *testing.T) {
		c := startChild(t, bin, append(env, envConfineTestABI+"=0"))
		c.waitLog(t, `msg="confined in part"`)
		c.mustBeConfined(t, builds[0])
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
			out, code := mustRunChild(t, exec.Command(bin, "-confine=required"), append(env, envConfineTestABI+"="+tt.abi))
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

	// R4-2: the variable that names a handoff proves nothing; a process
	// that is not confined refuses to serve, whatever it was handed.
	t.Run("a handoff in a process not confined", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		h := &handoff{why: "a test", env: map[string]string{}, files: map[string]string{}, listeners: map[string]int{}}
		if _, err := w.Write(h.encode()); err != nil {
			t.Fatal(err)
		}
		w.Close()
		for _, tt := range []struct {
			name, value string
			want        string
		}{
			{"a pipe with a handoff", "3", "says this process was relaunched confined, but it is not"},
			{"standard input", "0", "names no handoff of a relaunch"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				cmd := exec.Command(bin, "-confine=off")
				cmd.ExtraFiles = []*os.File{r}
				out, code := mustRunChild(t, cmd, append(env, envHandoff+"="+tt.value))
				if code == 0 || !strings.Contains(out, tt.want) {
					t.Errorf("%s=%s exited %d:\n%s\nwant a refusal saying %q", envHandoff, tt.value, code, out, tt.want)
				}
			})
		}
	})
}

// fifthReview is the fifth review's rows (docs/SECURITY.md, "Fifth
// review"), tried by the tools of confine_seam_attacks.go in each run of
// TestConfinedChild: the doors it found, each refused since its fix,
// and the attacks that were refused already, kept as regressions. tag
// names the run's files.
func fifthReview(tag, writable, readable, static, key string, undeclared int) []confineCall {
	rows := []confineCall{
		// Doors: each row failed before its fix.
		{"TCP Fast Open to an undeclared port", "tcp_fastopen", fmt.Sprintf(`{"port":%d}`, undeclared), "tcp_fastopen: sendto: permission denied", true},
		{"an IP socket of the type's default protocol beyond TCP and UDP (SCTP where loaded)", "socket", fmt.Sprintf(`{"family":%d,"type":%d,"protocol":0}`, syscall.AF_INET, syscall.SOCK_SEQPACKET), "socket: socket: permission denied", true},
		{"type into the terminal", "tiocsti", `{"fd":2,"text":"x"}`, "tiocsti: ioctl: operation not permitted", true},
		{"the parent's resource limits", "other_process", `{"pid":0,"call":"prlimit"}`, "other_process: prlimit: operation not permitted", true},
		{"the parent's priority", "other_process", `{"pid":0,"call":"setpriority"}`, "other_process: setpriority: operation not permitted", true},
		{"the parent's CPUs", "other_process", `{"pid":0,"call":"sched_setaffinity"}`, "other_process: sched_setaffinity: operation not permitted", true},
		{"the parent's scheduling policy", "other_process", `{"pid":0,"call":"sched_setscheduler"}`, "other_process: sched_setscheduler: operation not permitted", true},
		{"the parent's I/O priority", "other_process", `{"pid":0,"call":"ioprio_set"}`, "other_process: ioprio_set: operation not permitted", true},
		{"the user's keyring", "syscall", fmt.Sprintf(`{"name":"keyctl","nr":%d,"args":[0,-4,1]}`, syscall.SYS_KEYCTL), "syscall: keyctl: operation not permitted", true},
		{"a setuid file created", "make_file", fmt.Sprintf(`{"path":%q,"how":"open","mode":"4755"}`, filepath.Join(writable, tag+".suid")), "make_file: open: operation not permitted", true},
		{"a setgid file made by mknod", "make_file", fmt.Sprintf(`{"path":%q,"how":"mknod","mode":"2755"}`, filepath.Join(writable, tag+".sgid")), "make_file: mknod: operation not permitted", true},
		{"a setuid file created by openat2", "make_file", fmt.Sprintf(`{"path":%q,"how":"openat2","mode":"4755"}`, filepath.Join(writable, tag+".suid2")), "make_file: openat2: failed: ENOSYS", false},
		{"the host's sockets by sock_diag", "sock_diag", `{}`, "sock_diag: netlink: permission denied", true},
		{"a user namespace", "clone_namespaces", fmt.Sprintf(`{"flags":%d}`, syscall.CLONE_NEWUSER), "clone_namespaces: clone: operation not permitted", true},
		// Refused already, by Landlock, seccomp or the kernel.
		{"the parent's memory", "other_process", `{"pid":0,"call":"process_vm_readv"}`, "other_process: process_vm_readv: operation not permitted", true},
		{"a descriptor of the parent", "other_process", `{"pid":0,"call":"pidfd_getfd"}`, "other_process: pidfd_getfd: operation not permitted", true},
		{"a signal to the parent by pidfd", "other_process", `{"pid":0,"call":"pidfd_send_signal"}`, "other_process: pidfd_send_signal: operation not permitted", true},
		{"a signal to the parent by SIGIO", "other_process", `{"pid":0,"call":"sigio"}`, "done", false}, // and none arrives (conts)
		{"a stacked filter that allows everything", "stack_seccomp", `{}`, "stack_seccomp: memfd_create: operation not permitted", true},
		{"run an unnamed file (O_TMPFILE)", "exec_fd", fmt.Sprintf(`{"dir":%q,"from":%q}`, writable, static), "exec_fd: fork/exec: permission denied", true},
		{"open a key by its handle", "file_op", fmt.Sprintf(`{"op":"handle","path":%q,"to":%q}`, key, readable), "file_op: open_by_handle_at: operation not permitted", true},
		{"reopen a key from O_PATH", "file_op", fmt.Sprintf(`{"op":"reopen","path":%q}`, key), "file_op: open: permission denied", true},
		{"a hard link to a key", "file_op", fmt.Sprintf(`{"op":"link","path":%q,"to":%q}`, key, filepath.Join(writable, tag+".key")), "file_op: link: failed: EXDEV", false},
		{"TCP_FASTOPEN_CONNECT to an undeclared port", "tcp_fastopen_connect", fmt.Sprintf(`{"port":%d}`, undeclared), "tcp_fastopen_connect: connect: permission denied", true},
		{"connect undeclared, IPv4-mapped", "dial", fmt.Sprintf(`{"network":"tcp","address":"[::ffff:127.0.0.1]:%d"}`, undeclared), "dial: connect: permission denied", true},
	}
	if runtime.GOARCH == "amd64" {
		rows = append(rows,
			confineCall{"a call through int 0x80", "int80", `{"name":"getpid","nr":20,"args":[]}`, "int80: getpid: operation not permitted", true},
			confineCall{"an x32 call", "syscall", `{"name":"getpid","nr":1073741863,"args":[]}`, "syscall: getpid: operation not permitted", true})
	}
	return rows
}

// TestLinksCgo: linksCgo says what syscall.AllThreadsSyscall finds, of
// this test binary, without stopping the world (the tests of a binary
// that links cgo and of one that does not are TestConfinedChild's cgo
// and other builds).
func TestLinksCgo(t *testing.T) {
	_, _, errno := syscall.AllThreadsSyscall(syscall.SYS_PRCTL, prGetNoNewPrivs, 0, 0)
	if got, want := linksCgo(), errno == syscall.ENOTSUP; got != want {
		t.Errorf("linksCgo() = %v, but AllThreadsSyscall answered %v", got, errno)
	}
}

// confineBuilds builds the confinetest server, full and stdio, without
// cgo and, where a C compiler is found, with it (a tool in the seam
// imports net, so both link cgo), and says how each starts: a build
// without cgo confines every thread at once, unless it runs as root
// (its bounding set to empty), when it relaunches like a cgo build. As
// root, each build without cgo also runs under setpriv without
// CAP_SETPCAP, so that both routes are tried.
func confineBuilds(t *testing.T) []confineBuild {
	t.Helper()
	root := os.Geteuid() == 0
	plain := map[bool]string{true: "relaunched", false: "every thread at once"}[root]
	var builds []confineBuild
	for _, stdio := range []bool{false, true} {
		tags, name := "confinetest", "full"
		if stdio {
			tags, name = "confinetest,stdio", "stdio build"
		}
		bin := mustBuildConfineTest(t, tags, "0")
		builds = append(builds, confineBuild{name: name, bin: bin, route: plain, stdio: stdio, asRoot: root})
		if root {
			if setpriv, err := exec.LookPath("setpriv"); err == nil {
				builds = append(builds, confineBuild{name: name + ", root without CAP_SETPCAP", bin: bin, wrap: []string{setpriv, "--bounding-set=-setpcap", "--inh-caps=-all"}, route: "every thread at once", stdio: stdio, asRoot: true})
			} else {
				t.Log("no setpriv (util-linux): as root, the route in process is not tried")
			}
		}
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Log("no C compiler: no cgo build")
		return builds
	}
	for _, stdio := range []bool{false, true} {
		tags, name := "confinetest", "full, cgo"
		if stdio {
			tags, name = "confinetest,stdio", "stdio build, cgo"
		}
		builds = append(builds, confineBuild{name: name, bin: mustBuildConfineTest(t, tags, "1"), route: "relaunched", cgo: true, stdio: stdio, asRoot: root})
	}
	return builds
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
	return startCmd(tb, exec.Command(bin, args...), env)
}

// startCmd starts cmd with env (and nothing else of this process's
// environment), and extra as its descriptors 3 and up.
func startCmd(tb testing.TB, cmd *exec.Cmd, env []string, extra ...*os.File) *testChild {
	tb.Helper()
	return startLogged(tb, cmd, env, nil, extra)
}

// startOnTerminal starts cmd as startCmd does, but in a session of its
// own whose controlling terminal, a new pseudo-terminal, is its standard
// error (the log is read from the terminal's other end): a server
// started from a shell, whose input its tools must not type into
// ("type into the terminal"). Without /dev/ptmx it is startCmd.
func startOnTerminal(tb testing.TB, cmd *exec.Cmd, env []string, extra ...*os.File) *testChild {
	tb.Helper()
	terminal, pts, err := openPseudoTerminal()
	if err != nil {
		tb.Logf("no pseudo-terminal (%v): the server's standard error is a pipe", err)
		return startCmd(tb, cmd, env, extra...)
	}
	tb.Cleanup(func() { terminal.Close() })
	defer pts.Close()
	cmd.Stderr = pts
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 2}
	return startLogged(tb, cmd, env, terminal, extra)
}

// openPseudoTerminal opens a pseudo-terminal's two ends, neither as this
// process's controlling terminal (pty(7)).
func openPseudoTerminal() (terminal, pts *os.File, err error) {
	terminal, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	var unlock int32
	var n uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, terminal.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		terminal.Close()
		return nil, nil, os.NewSyscallError("TIOCSPTLCK", errno)
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, terminal.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); errno != 0 {
		terminal.Close()
		return nil, nil, os.NewSyscallError("TIOCGPTN", errno)
	}
	pts, err = os.OpenFile("/dev/pts/"+strconv.FormatUint(uint64(n), 10), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		terminal.Close()
		return nil, nil, err
	}
	return terminal, pts, nil
}

// startLogged starts cmd with env (and nothing else of this process's
// environment), and extra as its descriptors 3 and up, reading its log
// from logs, or from a pipe of its standard error when logs is nil.
func startLogged(tb testing.TB, cmd *exec.Cmd, env []string, logs io.Reader, extra []*os.File) *testChild {
	tb.Helper()
	c := &testChild{cmd: cmd, lines: make(chan string, 16), logs: make(chan string, 64)}
	c.cmd.Env = env
	c.cmd.ExtraFiles = extra
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		tb.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stderr := logs
	if stderr == nil {
		if stderr, err = c.cmd.StderrPipe(); err != nil {
			tb.Fatal(err)
		}
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

// mustBeConfined checks the kernel's word on every thread of the running
// process: no_new_privs, a seccomp filter, no capability (and, when it
// started as root and relaunched, an empty bounding set).
func (c *testChild) mustBeConfined(tb testing.TB, b confineBuild) {
	tb.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", c.cmd.Process.Pid))
	if err != nil || len(tasks) == 0 {
		tb.Fatalf("no threads of %d: %v", c.cmd.Process.Pid, err)
	}
	want := []string{`NoNewPrivs:\s+1`, `Seccomp:\s+2`}
	if !b.capsKept {
		want = append(want, `CapInh:\s+0+`, `CapPrm:\s+0+`, `CapEff:\s+0+`, `CapAmb:\s+0+`)
	}
	if b.asRoot && b.route == "relaunched" {
		want = append(want, `CapBnd:\s+0+`)
	}
	for _, task := range tasks {
		status, err := os.ReadFile(task)
		if err != nil {
			continue // the thread ended
		}
		for _, w := range want {
			if !regexp.MustCompile(`(?m)^` + w + `$`).Match(status) {
				tb.Errorf("%s lacks %s:\n%s", task, w, status)
			}
		}
	}
}

// cmdline is the running process's arguments, as the kernel has them.
func (c *testChild) cmdline(tb testing.TB) []string {
	tb.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c.cmd.Process.Pid))
	if err != nil {
		tb.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
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

// mustRunChild runs cmd to its end with env and empty input and returns
// its log and exit code.
func mustRunChild(tb testing.TB, cmd *exec.Cmd, env []string) (string, int) {
	tb.Helper()
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stderr = &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee := (*exec.ExitError)(nil); err != nil && !errors.As(err, &ee) {
			tb.Fatal(err)
		}
	case <-time.After(childWait):
		_ = cmd.Process.Kill()
		tb.Fatalf("%s did not exit in %v", cmd, childWait)
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// mustPostTool calls tool over Streamable HTTP with the bearer token
// (none when empty) and returns the answer, or its status when not 200.
func mustPostTool(tb testing.TB, url, token, tool, args string) string {
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
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
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
	if resp.StatusCode != http.StatusOK {
		return strconv.Itoa(resp.StatusCode)
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
