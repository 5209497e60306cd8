//go:build confinetest && linux

// The test seam of self-confinement, in the confinetest build only
// (go build -tags confinetest, which confine_linux_test.go makes and
// drives as a child process):
//
//   - BAREMCP_CONFINETEST_ABI lowers the Landlock ABI the kernel is taken
//     to offer (0: none), so that the tests see -confine=required refuse
//     and -confine=on degrade on a kernel that has more;
//   - tools that try what a confined server must not do (read or write
//     outside what it declared, run a shell, connect to a port it did not
//     declare, signal its parent) and what it declared (a directory to
//     read, one to write, a port, a program, named by the environment),
//     added to whichever registry the build serves.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/tools#error-handling

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// envConfineTestABI names the variable of the ABI, read through run's
// getenv.
const envConfineTestABI = "BAREMCP_CONFINETEST_ABI"

// simulatedLandlock returns the ABI the tests ask for, and the reason to
// give for none, when they ask.
func simulatedLandlock(getenv func(string) string) (abi int, why string, ok bool) {
	v := getenv(envConfineTestABI)
	if v == "" {
		return 0, "", false
	}
	abi, err := strconv.Atoi(v)
	if err != nil || abi < 0 {
		return 0, "", false
	}
	return abi, "the kernel is taken to have none (" + envConfineTestABI + "=" + v + ")", true
}

// The variables that name what the test registry declares.
const (
	envConfineTestRead  = "BAREMCP_CONFINETEST_READ"  // a directory it may read
	envConfineTestWrite = "BAREMCP_CONFINETEST_WRITE" // a directory it may write in
	envConfineTestPort  = "BAREMCP_CONFINETEST_PORT"  // a TCP port it may connect to
	envConfineTestRun   = "BAREMCP_CONFINETEST_RUN"   // a program it may run
)

// addConfineTestTools adds the test tools to the registry the build
// serves, and declares what they need; the confiner calls it before
// working out what the process may touch.
func addConfineTestTools(s *server, getenv func(string) string) {
	var n needs
	if dir := getenv(envConfineTestRead); dir != "" {
		n.Read = append(n.Read, dir)
	}
	if dir := getenv(envConfineTestWrite); dir != "" {
		n.Write = append(n.Write, dir)
	}
	if prog := getenv(envConfineTestRun); prog != "" {
		n.Run = append(n.Run, prog)
	}
	if port, err := strconv.Atoi(getenv(envConfineTestPort)); err == nil {
		n.Connect = append(n.Connect, port)
	}
	s.addNeeds("confinetest tools", n)

	s.addTool(tool{
		Name:        "read_file",
		Description: "Reads a file.",
		InputSchema: `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			b, err := os.ReadFile(req.String("path"))
			if err != nil {
				return nil, fmt.Errorf("read_file: %w", err)
			}
			return textResult(string(b)), nil
		},
	})
	s.addTool(tool{
		Name:        "write_file",
		Description: "Writes text to a file, creating it.",
		InputSchema: `{"type":"object","properties":{"path":{"type":"string"},"text":{"type":"string"}},"required":["path","text"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			if err := os.WriteFile(req.String("path"), []byte(req.String("text")), 0o600); err != nil {
				return nil, fmt.Errorf("write_file: %w", err)
			}
			return textResult("written"), nil
		},
	})
	s.addTool(tool{
		Name:        "run_program",
		Description: "Runs a program with -c true (a shell).",
		InputSchema: `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			cmd := exec.CommandContext(ctx, req.String("path"), "-c", "true")
			// Pipes, not /dev/null (which os/exec opens for streams left
			// nil): the refusal seen is the execution's own.
			cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), io.Discard, io.Discard
			if err := cmd.Run(); err != nil {
				return nil, fmt.Errorf("run_program: %w", err)
			}
			return textResult("ran"), nil
		},
	})
	s.addTool(tool{
		Name:        "connect",
		Description: "Connects to a TCP port on 127.0.0.1, then closes the connection.",
		InputSchema: `{"type":"object","properties":{"port":{"type":"integer","minimum":1,"maximum":65535}},"required":["port"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			d := net.Dialer{Timeout: 5 * time.Second}
			c, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.FormatInt(req.Int("port"), 10)))
			if err != nil {
				return nil, fmt.Errorf("connect: %w", err)
			}
			c.Close()
			return textResult("connected"), nil
		},
	})
	s.addTool(tool{
		Name:        "signal_parent",
		Description: "Sends SIGCONT (harmless to a running process) to the process that started the server.",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			p, err := os.FindProcess(os.Getppid())
			if err == nil {
				err = p.Signal(syscall.SIGCONT)
			}
			if err != nil {
				return nil, fmt.Errorf("signal_parent: %w", err)
			}
			return textResult("signalled"), nil
		},
	})
}
