//go:build confinetest && linux

// The test seam of self-confinement, in the confinetest build only
// (go build -tags confinetest, which confine_linux_test.go makes and
// drives as a child process):
//
//   - BAREMCP_CONFINETEST_ABI lowers the Landlock ABI the kernel is taken
//     to offer (0: none), so that the tests see -confine=required refuse
//     and -confine=on degrade on a kernel that has more;
//   - BAREMCP_CONFINETEST_EXEC makes a relaunch execute another path, so
//     that the tests see a failed relaunch go on in process;
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
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
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

// envConfineTestExec names a path the relaunch executes instead of this
// binary: one that does not exist makes the execve fail, as a binary run
// by qemu-user does (relaunch).
const envConfineTestExec = "BAREMCP_CONFINETEST_EXEC"

// relaunchExecutable is what the relaunch executes: this binary, or what
// the tests name.
func relaunchExecutable(getenv func(string) string) string {
	if p := getenv(envConfineTestExec); p != "" {
		return p
	}
	return selfExe
}

// The variables that name what the test registry declares, and what it
// does as a dependency might.
const (
	envConfineTestRead     = "BAREMCP_CONFINETEST_READ"     // a directory it may read
	envConfineTestWrite    = "BAREMCP_CONFINETEST_WRITE"    // a directory it may write in
	envConfineTestPort     = "BAREMCP_CONFINETEST_PORT"     // a TCP port it may connect to
	envConfineTestRun      = "BAREMCP_CONFINETEST_RUN"      // a program it may run
	envConfineTestTestFlag = "BAREMCP_CONFINETEST_TESTFLAG" // "1": register a global flag test.v, as a dependency may
)

// addConfineTestTools adds the test tools to the registry the build
// serves, and declares what they need; the confiner calls it before
// working out what the process may touch.
func addConfineTestTools(s *server, getenv func(string) string) {
	if getenv(envConfineTestTestFlag) == "1" && flag.Lookup("test.v") == nil {
		flag.Bool("test.v", false, "a flag a dependency registered, named as the testing package names its own")
	}
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
	addConfineTestSystemTools(s)
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

// addConfineTestSystemTools adds the tools that try the doors beside
// Landlock's: Multipath TCP, listen without bind, raw socket kinds,
// running bytes from memory, the loader, capabilities and setuid bits.
func addConfineTestSystemTools(s *server) {
	s.addTool(tool{
		Name:        "mptcp_connect",
		Description: "Connects to a TCP port on 127.0.0.1 with Multipath TCP, then closes the connection.",
		InputSchema: `{"type":"object","properties":{"port":{"type":"integer","minimum":1,"maximum":65535}},"required":["port"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			d := net.Dialer{Timeout: 5 * time.Second}
			d.SetMultipathTCP(true)
			c, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.FormatInt(req.Int("port"), 10)))
			if err != nil {
				return nil, fmt.Errorf("mptcp_connect: %w", err)
			}
			c.Close()
			return textResult("connected"), nil
		},
	})
	s.addTool(tool{
		Name:        "mptcp_listen",
		Description: "Listens on 127.0.0.1, on an ephemeral port, with Multipath TCP, then closes the listener.",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			var lc net.ListenConfig
			lc.SetMultipathTCP(true)
			ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
			if err != nil {
				return nil, fmt.Errorf("mptcp_listen: %w", err)
			}
			ln.Close()
			return textResult("listening"), nil
		},
	})
	s.addTool(tool{
		Name:        "listen_unbound",
		Description: "Listens on a TCP socket never bound (the kernel picks a port), then closes it.",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
			if err != nil {
				return nil, fmt.Errorf("listen_unbound: %w", os.NewSyscallError("socket", err))
			}
			defer syscall.Close(fd)
			if err := syscall.Listen(fd, 1); err != nil {
				return nil, fmt.Errorf("listen_unbound: %w", os.NewSyscallError("listen", err))
			}
			return textResult("listening"), nil
		},
	})
	s.addTool(tool{
		Name:        "socket",
		Description: "Opens a socket of the family, type and protocol given, then closes it.",
		InputSchema: `{"type":"object","properties":{"family":{"type":"integer"},"type":{"type":"integer"},"protocol":{"type":"integer"}},"required":["family","type","protocol"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			fd, err := syscall.Socket(int(req.Int("family")), int(req.Int("type"))|syscall.SOCK_CLOEXEC, int(req.Int("protocol")))
			if err != nil {
				return nil, fmt.Errorf("socket: %w", os.NewSyscallError("socket", err))
			}
			syscall.Close(fd)
			return textResult("opened"), nil
		},
	})
	s.addTool(tool{
		Name:        "memfd_exec",
		Description: "Copies a file into memory (memfd_create) and runs it from there (/proc/self/fd/N) with -version.",
		InputSchema: `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			b, err := os.ReadFile(req.String("path"))
			if err != nil {
				return nil, fmt.Errorf("memfd_exec: %w", err)
			}
			n, ok := seccompArchCalls()
			if !ok {
				return nil, errors.New("memfd_exec: no memfd_create number for this architecture")
			}
			name := []byte("x\x00")
			fd, _, errno := syscall.Syscall(uintptr(n.memfd), uintptr(unsafe.Pointer(&name[0])), 0, 0)
			if errno != 0 {
				return nil, fmt.Errorf("memfd_exec: %w", os.NewSyscallError("memfd_create", errno))
			}
			f := os.NewFile(fd, "memfd")
			defer f.Close()
			if _, err := f.Write(b); err != nil {
				return nil, fmt.Errorf("memfd_exec: %w", err)
			}
			cmd := exec.CommandContext(ctx, fmt.Sprintf("/proc/self/fd/%d", fd), "-version")
			cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), io.Discard, io.Discard
			if err := cmd.Run(); err != nil {
				return nil, fmt.Errorf("memfd_exec: %w", err)
			}
			return textResult("ran"), nil
		},
	})
	s.addTool(tool{
		Name:        "execveat",
		Description: "Calls execveat on a path, which must not exist (it would replace the server).",
		InputSchema: `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			n, ok := seccompArchCalls()
			if !ok {
				return nil, errors.New("execveat: no number for this architecture")
			}
			if _, err := os.Lstat(req.String("path")); err == nil {
				return nil, errors.New("execveat: the path exists")
			}
			path, err := syscall.BytePtrFromString(req.String("path"))
			if err != nil {
				return nil, err
			}
			argv := []*byte{path, nil}
			dirfd := -100 // AT_FDCWD
			_, _, errno := syscall.Syscall6(uintptr(n.execveat), uintptr(dirfd), uintptr(unsafe.Pointer(path)), uintptr(unsafe.Pointer(&argv[0])), uintptr(unsafe.Pointer(&argv[1])), 0, 0)
			return nil, fmt.Errorf("execveat: %w", os.NewSyscallError("execveat", errno))
		},
	})
	s.addTool(tool{
		Name:        "run_args",
		Description: "Runs a program with the arguments given.",
		InputSchema: `{"type":"object","properties":{"path":{"type":"string"},"args":{"type":"array","items":{"type":"string"}}},"required":["path","args"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			var args []string
			list, _ := req.Arg("args").([]any)
			for _, a := range list {
				s, _ := a.(string)
				args = append(args, s)
			}
			cmd := exec.CommandContext(ctx, req.String("path"), args...)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), io.Discard, io.Discard
			if err := cmd.Run(); err != nil {
				return nil, fmt.Errorf("run_args: %w", err)
			}
			return textResult("ran"), nil
		},
	})
	s.addTool(tool{
		Name:        "chown",
		Description: "Gives a file to the user and group id given.",
		InputSchema: `{"type":"object","properties":{"path":{"type":"string"},"id":{"type":"integer"}},"required":["path","id"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			if err := os.Chown(req.String("path"), int(req.Int("id")), int(req.Int("id"))); err != nil {
				return nil, fmt.Errorf("chown: %w", err)
			}
			return textResult("given"), nil
		},
	})
	s.addTool(tool{
		Name:        "chmod",
		Description: "Sets a file's permission bits (an octal string, setuid and setgid included).",
		InputSchema: `{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string"}},"required":["path","mode"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			mode, err := strconv.ParseUint(req.String("mode"), 8, 32)
			if err != nil {
				return nil, err
			}
			if err := syscall.Chmod(req.String("path"), uint32(mode)); err != nil {
				return nil, fmt.Errorf("chmod: %w", os.NewSyscallError("chmod", err))
			}
			return textResult("set"), nil
		},
	})
	s.addTool(tool{
		Name:        "connect_abstract",
		Description: "Connects to an abstract unix socket (its name without the leading @), then closes the connection.",
		InputSchema: `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, "unix", "@"+req.String("name"))
			if err != nil {
				return nil, fmt.Errorf("connect_abstract: %w", err)
			}
			c.Close()
			return textResult("connected"), nil
		},
	})
	s.addTool(tool{
		Name:        "ptrace_parent",
		Description: "Attaches to the process that started the server without stopping it (PTRACE_SEIZE), then detaches.",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			const ptraceSeize = 0x4206
			ppid := os.Getppid()
			if _, _, errno := syscall.Syscall6(syscall.SYS_PTRACE, ptraceSeize, uintptr(ppid), 0, 0, 0, 0); errno != 0 {
				return nil, fmt.Errorf("ptrace_parent: %w", os.NewSyscallError("ptrace", errno))
			}
			_ = syscall.PtraceDetach(ppid)
			return textResult("attached"), nil
		},
	})
	s.addTool(tool{
		Name:        "symlink",
		Description: "Makes a symbolic link at path pointing at target.",
		InputSchema: `{"type":"object","properties":{"path":{"type":"string"},"target":{"type":"string"}},"required":["path","target"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			if err := os.Symlink(req.String("target"), req.String("path")); err != nil {
				return nil, fmt.Errorf("symlink: %w", err)
			}
			return textResult("linked"), nil
		},
	})
	s.addTool(tool{
		Name:        "getenv",
		Description: "Returns an environment variable of the process, as a program it started would see it.",
		InputSchema: `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			return textResult("[" + os.Getenv(req.String("name")) + "]"), nil
		},
	})
	s.addTool(tool{
		Name:        "io_uring",
		Description: "Sets up an io_uring instance, then closes it.",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			var params [120]byte // struct io_uring_params
			fd, _, errno := syscall.Syscall(sysIOURingSetup, 4, uintptr(unsafe.Pointer(&params[0])), 0)
			if errno != 0 {
				return nil, fmt.Errorf("io_uring: %w", os.NewSyscallError("io_uring_setup", errno))
			}
			syscall.Close(int(fd))
			return textResult("set up"), nil
		},
	})
}
