//go:build confinetest && linux

// The attacks of the fifth review (docs/SECURITY.md, "Fifth review: the
// sandbox re-run as an attacker"), in the confinetest build only: tools
// that try, as a malicious tool handler would, the doors around Landlock
// that the tools of confine_seam.go do not: any system call by number,
// TCP Fast Open, addresses by other spellings, the host's sockets by
// netlink, files made with the setuid bit, a terminal's input, other
// processes by their pid, files executed from a descriptor or opened by
// their handle, user namespaces, x86's 32-bit entry point.
// TestConfinedChild drives them.
//
// Spec: none (test seam); the calls are syscall(2)'s.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// attackErr is what an attack tool answers for errno: a refusal (EACCES,
// EPERM) as an error, which reaches the model in the system's words
// (refusalText); any other errno as a result naming it, so that a test
// row sees what the kernel said.
func attackErr(tool, op string, errno syscall.Errno) (*toolResult, error) {
	if errno == syscall.EACCES || errno == syscall.EPERM {
		return nil, fmt.Errorf("%s: %w", tool, os.NewSyscallError(op, errno))
	}
	return textResult(fmt.Sprintf("%s: %s: failed: %s", tool, op, errnoName(errno))), nil
}

// errnoName is errno's constant name where it is one a row names.
func errnoName(errno syscall.Errno) string {
	for _, e := range []struct {
		errno syscall.Errno
		name  string
	}{
		{syscall.ENOSYS, "ENOSYS"}, {syscall.EINVAL, "EINVAL"}, {syscall.ENOENT, "ENOENT"},
		{syscall.EFAULT, "EFAULT"}, {syscall.EAFNOSUPPORT, "EAFNOSUPPORT"},
		{syscall.EPROTONOSUPPORT, "EPROTONOSUPPORT"}, {syscall.ESOCKTNOSUPPORT, "ESOCKTNOSUPPORT"},
		{syscall.EIO, "EIO"}, {syscall.EBADF, "EBADF"}, {syscall.ENOTTY, "ENOTTY"},
		{syscall.EXDEV, "EXDEV"}, {syscall.ECONNREFUSED, "ECONNREFUSED"}, {syscall.ESRCH, "ESRCH"},
		{syscall.EOPNOTSUPP, "EOPNOTSUPP"}, {syscall.ENODATA, "ENODATA"}, {syscall.ENOKEY, "ENOKEY"},
		{syscall.EINPROGRESS, "EINPROGRESS"}, {syscall.ENOTCONN, "ENOTCONN"}, {syscall.EPIPE, "EPIPE"},
	} {
		if e.errno == errno {
			return e.name
		}
	}
	return errno.Error()
}

// syscallArgs turns a tools/call "args" list into system call arguments:
// a number is itself (negative numbers as the kernel reads an int), a
// string a pointer to its bytes and a NUL, {"buf": n} a pointer to n
// zeroed bytes. keep holds what the pointers point at.
func syscallArgs(list []any) (args [6]uintptr, keep [][]byte, err error) {
	if len(list) > 6 {
		return args, nil, errors.New("at most 6 arguments")
	}
	for i, a := range list {
		switch v := a.(type) {
		case json.Number:
			n, err := v.Int64()
			if err != nil {
				return args, nil, err
			}
			args[i] = uintptr(n)
		case string:
			b := append([]byte(v), 0)
			keep = append(keep, b)
			args[i] = uintptr(unsafe.Pointer(&b[0]))
		case map[string]any:
			n, _ := v["buf"].(json.Number)
			size, err := n.Int64()
			if err != nil || size < 1 || size > 1<<16 {
				return args, nil, errors.New("buf wants a size of 1 to 65536")
			}
			b := make([]byte, size)
			keep = append(keep, b)
			args[i] = uintptr(unsafe.Pointer(&b[0]))
		default:
			return args, nil, fmt.Errorf("argument %d is neither a number, a string nor a buf", i)
		}
	}
	return args, keep, nil
}

// addConfineTestAttackTools adds the fifth review's attack tools.
func addConfineTestAttackTools(s *server) {
	s.addTool(tool{
		Name:        "syscall",
		Description: "Makes the system call nr (named name) with args: numbers, strings (pointers to them), {\"buf\":n} (a pointer to n zeroed bytes).",
		InputSchema: `{"type":"object","properties":{"name":{"type":"string"},"nr":{"type":"integer"},"args":{"type":"array"}},"required":["name","nr","args"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			list, _ := req.Arg("args").([]any)
			a, keep, err := syscallArgs(list)
			if err != nil {
				return nil, fmt.Errorf("syscall: %w", err)
			}
			r, _, errno := syscall.Syscall6(uintptr(req.Int("nr")), a[0], a[1], a[2], a[3], a[4], a[5])
			runtime.KeepAlive(keep)
			if errno != 0 {
				return attackErr("syscall", req.String("name"), errno)
			}
			return textResult(fmt.Sprintf("ok %d", r)), nil
		},
	})
	s.addTool(tool{
		Name:        "tcp_fastopen",
		Description: "Opens a TCP connection to a port on 127.0.0.1 by sendto with MSG_FASTOPEN (no connect), sending one byte.",
		InputSchema: `{"type":"object","properties":{"port":{"type":"integer"}},"required":["port"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			const msgFastopen = 0x20000000
			fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
			if err != nil {
				return nil, fmt.Errorf("tcp_fastopen: %w", os.NewSyscallError("socket", err))
			}
			defer syscall.Close(fd)
			to := &syscall.SockaddrInet4{Port: int(req.Int("port")), Addr: [4]byte{127, 0, 0, 1}}
			if err := syscall.Sendto(fd, []byte("x"), msgFastopen, to); err != nil {
				errno, _ := err.(syscall.Errno)
				return attackErr("tcp_fastopen", "sendto", errno)
			}
			if _, err := syscall.Getpeername(fd); err != nil {
				return textResult("tcp_fastopen: sent, not connected"), nil
			}
			return textResult("connected"), nil
		},
	})
	s.addTool(tool{
		Name:        "tcp_fastopen_connect",
		Description: "Connects to a port on 127.0.0.1 on a socket set TCP_FASTOPEN_CONNECT (the connection made by the first write).",
		InputSchema: `{"type":"object","properties":{"port":{"type":"integer"}},"required":["port"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			const tcpFastopenConnect = 30
			fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
			if err != nil {
				return nil, fmt.Errorf("tcp_fastopen_connect: %w", os.NewSyscallError("socket", err))
			}
			defer syscall.Close(fd)
			if err := syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, tcpFastopenConnect, 1); err != nil {
				errno, _ := err.(syscall.Errno)
				return attackErr("tcp_fastopen_connect", "setsockopt", errno)
			}
			if err := syscall.Connect(fd, &syscall.SockaddrInet4{Port: int(req.Int("port")), Addr: [4]byte{127, 0, 0, 1}}); err != nil {
				errno, _ := err.(syscall.Errno)
				return attackErr("tcp_fastopen_connect", "connect", errno)
			}
			if _, err := syscall.Write(fd, []byte("x")); err != nil {
				errno, _ := err.(syscall.Errno)
				return attackErr("tcp_fastopen_connect", "write", errno)
			}
			return textResult("connected"), nil
		},
	})
	s.addTool(tool{
		Name:        "sock_diag",
		Description: "Lists the host's TCP sockets over netlink (NETLINK_SOCK_DIAG, inet_diag) and says how many it got and their local ports.",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			text, errno := sockDiagTCP()
			if errno != 0 {
				return attackErr("sock_diag", "netlink", errno)
			}
			return textResult(text), nil
		},
	})
	s.addTool(tool{
		Name:        "dial",
		Description: "Dials network (tcp, tcp6, udp, unix, ...) address with the net package and, for a datagram network, sends one byte.",
		InputSchema: `{"type":"object","properties":{"network":{"type":"string"},"address":{"type":"string"}},"required":["network","address"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			d := net.Dialer{Timeout: 5 * time.Second}
			c, err := d.DialContext(ctx, req.String("network"), req.String("address"))
			if err != nil {
				return nil, fmt.Errorf("dial: %w", err)
			}
			defer c.Close()
			if strings.HasPrefix(req.String("network"), "udp") || req.String("network") == "unixgram" {
				if _, err := c.Write([]byte("x")); err != nil {
					return nil, fmt.Errorf("dial: %w", err)
				}
				return textResult("sent"), nil
			}
			return textResult("connected"), nil
		},
	})
	s.addTool(tool{
		Name:        "make_file",
		Description: "Makes a file at path with mode (octal, setuid and setgid bits included) by open or openat2 with O_CREAT, mknod or mkdir, and says the mode it got.",
		InputSchema: `{"type":"object","properties":{"path":{"type":"string"},"how":{"enum":["open","openat2","mknod","mkdir"]},"mode":{"type":"string"}},"required":["path","how","mode"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			mode, err := strconv.ParseUint(req.String("mode"), 8, 32)
			if err != nil {
				return nil, err
			}
			path := req.String("path")
			syscall.Umask(0)
			switch req.String("how") {
			case "open":
				var fd int
				fd, err = syscall.Open(path, syscall.O_CREAT|syscall.O_EXCL|syscall.O_WRONLY|syscall.O_CLOEXEC, uint32(mode))
				if err == nil {
					syscall.Close(fd)
				}
			case "openat2":
				err = openat2Create(path, mode)
			case "mknod":
				err = syscall.Mknod(path, syscall.S_IFREG|uint32(mode), 0)
			case "mkdir":
				err = syscall.Mkdir(path, uint32(mode))
			}
			if err != nil {
				errno, _ := err.(syscall.Errno)
				return attackErr("make_file", req.String("how"), errno)
			}
			var st syscall.Stat_t
			if err := syscall.Lstat(path, &st); err != nil {
				return nil, fmt.Errorf("make_file: %w", err)
			}
			return textResult(fmt.Sprintf("mode %o", st.Mode&0o7777)), nil
		},
	})
	s.addTool(tool{
		Name:        "tiocsti",
		Description: "Pushes text into the input of the terminal on descriptor fd (TIOCSTI), as if typed.",
		InputSchema: `{"type":"object","properties":{"fd":{"type":"integer"},"text":{"type":"string"}},"required":["fd","text"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			text := []byte(req.String("text"))
			for i := range text {
				if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(req.Int("fd")), syscall.TIOCSTI, uintptr(unsafe.Pointer(&text[i]))); errno != 0 {
					return attackErr("tiocsti", "ioctl", errno)
				}
			}
			return textResult("typed"), nil
		},
	})
	s.addTool(tool{
		Name:        "other_process",
		Description: "Acts on the process pid (0: the parent) by a call Landlock does not scope, leaving it as it was: its resource limit, priority, CPU affinity, scheduling policy or I/O priority set to what it is.",
		InputSchema: `{"type":"object","properties":{"pid":{"type":"integer"},"call":{"enum":["prlimit","setpriority","sched_setaffinity","sched_setscheduler","ioprio_set","process_vm_readv","pidfd_getfd","pidfd_send_signal","kill","setns","sigio"]}},"required":["pid","call"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			pid := uintptr(req.Int("pid"))
			if pid == 0 {
				pid = uintptr(os.Getppid())
			}
			op := req.String("call")
			errno := otherProcess(op, pid)
			if errno != 0 {
				return attackErr("other_process", op, errno)
			}
			return textResult("done"), nil
		},
	})
	s.addTool(tool{
		Name:        "exec_fd",
		Description: "Copies the file from into an unnamed file of dir (O_TMPFILE) and runs it from its descriptor (/proc/self/fd/N) with -version.",
		InputSchema: `{"type":"object","properties":{"dir":{"type":"string"},"from":{"type":"string"}},"required":["dir","from"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			const oTmpfile = 0x410000 // O_TMPFILE | O_DIRECTORY
			b, err := os.ReadFile(req.String("from"))
			if err != nil {
				return nil, fmt.Errorf("exec_fd: %w", err)
			}
			fd, err := syscall.Open(req.String("dir"), oTmpfile|syscall.O_RDWR, 0o700)
			if err != nil {
				return nil, fmt.Errorf("exec_fd: %w", os.NewSyscallError("open", err))
			}
			f := os.NewFile(uintptr(fd), "tmpfile")
			defer f.Close()
			if _, err := f.Write(b); err != nil {
				return nil, fmt.Errorf("exec_fd: %w", err)
			}
			cmd := exec.CommandContext(ctx, fmt.Sprintf("/proc/self/fd/%d", fd), "-version")
			cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), io.Discard, io.Discard
			if err := cmd.Run(); err != nil {
				return nil, fmt.Errorf("exec_fd: %w", err)
			}
			return textResult("ran"), nil
		},
	})
	s.addTool(tool{
		Name:        "copy_file",
		Description: "Copies the file from to to, with mode (octal).",
		InputSchema: `{"type":"object","properties":{"from":{"type":"string"},"to":{"type":"string"},"mode":{"type":"string"}},"required":["from","to","mode"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			mode, err := strconv.ParseUint(req.String("mode"), 8, 32)
			if err != nil {
				return nil, err
			}
			b, err := os.ReadFile(req.String("from"))
			if err == nil {
				err = os.WriteFile(req.String("to"), b, os.FileMode(mode))
			}
			if err != nil {
				return nil, fmt.Errorf("copy_file: %w", err)
			}
			return textResult("copied"), nil
		},
	})
	s.addTool(tool{
		Name:        "file_op",
		Description: "Does op on path (and to): link, rename, truncate, reopen (O_PATH, then /proc/self/fd/N), flink (linkat AT_EMPTY_PATH of an O_PATH descriptor), handle (open_by_handle_at on the directory to), stat, getxattr, inotify, fanotify.",
		InputSchema: `{"type":"object","properties":{"op":{"type":"string"},"path":{"type":"string"},"to":{"type":"string"}},"required":["op","path"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			op, path, to := req.String("op"), req.String("path"), req.String("to")
			text, err := fileOp(op, path, to)
			if err != nil {
				var errno syscall.Errno
				if errors.As(err, &errno) && errno != syscall.EACCES && errno != syscall.EPERM {
					return attackErr("file_op", op, errno)
				}
				return nil, fmt.Errorf("file_op: %w", err)
			}
			return textResult(text), nil
		},
	})
	s.addTool(tool{
		Name:        "stack_seccomp",
		Description: "Installs a filter that allows everything on this thread (stacked on the server's), then calls memfd_create from it.",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			n, _ := seccompArchCalls()
			prog := []sockFilter{{code: bpfReturn, k: seccompRetAllow}}
			fprog := sockFprog{len: 1, filter: &prog[0]}
			if _, _, errno := syscall.RawSyscall(uintptr(n.seccomp), seccompSetModeFilter, 0, uintptr(unsafe.Pointer(&fprog))); errno != 0 {
				return attackErr("stack_seccomp", "seccomp", errno)
			}
			name := []byte("x\x00")
			fd, _, errno := syscall.RawSyscall(uintptr(n.memfd), uintptr(unsafe.Pointer(&name[0])), 0, 0)
			if errno != 0 {
				return attackErr("stack_seccomp", "memfd_create", errno)
			}
			syscall.Close(int(fd))
			return textResult("made"), nil
		},
	})
	s.addTool(tool{
		Name:        "clone_namespaces",
		Description: "Starts a child in new namespaces (clone flags) executing a path that does not exist, and says whether the clone or the execution failed.",
		InputSchema: `{"type":"object","properties":{"flags":{"type":"integer"}},"required":["flags"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			cmd := exec.CommandContext(ctx, "/nonexistent/baremcp-confinetest")
			cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: uintptr(req.Int("flags"))}
			cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), io.Discard, io.Discard
			err := cmd.Run()
			var errno syscall.Errno
			if errors.As(err, &errno) && errno == syscall.ENOENT {
				return textResult("cloned"), nil
			}
			if errors.As(err, &errno) {
				return attackErr("clone_namespaces", "clone", errno)
			}
			return nil, fmt.Errorf("clone_namespaces: %w", err)
		},
	})
	s.addTool(tool{
		Name:        "int80",
		Description: "Makes a system call through x86's 32-bit entry point (int 0x80), numbered as i386 numbers it, with three integer arguments.",
		InputSchema: `{"type":"object","properties":{"name":{"type":"string"},"nr":{"type":"integer"},"args":{"type":"array"}},"required":["name","nr","args"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			list, _ := req.Arg("args").([]any)
			var a [3]uintptr
			for i := 0; i < len(list) && i < 3; i++ {
				n, _ := list[i].(json.Number)
				v, _ := n.Int64()
				a[i] = uintptr(v)
			}
			r, ok := int80(uintptr(req.Int("nr")), a[0], a[1], a[2])
			if !ok {
				return textResult("int80: not on this architecture"), nil
			}
			if errno := syscall.Errno(-int32(r)); int32(r) < 0 && int32(r) > -4096 {
				return attackErr("int80", req.String("name"), errno)
			}
			return textResult("ok"), nil
		},
	})
}

// otherProcess does op on pid, leaving it as it was, and returns the
// errno of the call that failed.
func otherProcess(op string, pid uintptr) syscall.Errno {
	const (
		pidfdOpen        = 434
		pidfdSendSignal  = 424
		pidfdGetfd       = 438
		ioprioWhoProcess = 1
		fSetsig          = 10
	)
	call := func(nr uintptr, a ...uintptr) (uintptr, syscall.Errno) {
		var x [6]uintptr
		copy(x[:], a)
		r, _, errno := syscall.Syscall6(nr, x[0], x[1], x[2], x[3], x[4], x[5])
		return r, errno
	}
	pidfd := func() (uintptr, syscall.Errno) { return call(pidfdOpen, pid, 0) }
	switch op {
	case "prlimit":
		var lim [2]uint64
		if _, errno := call(syscall.SYS_PRLIMIT64, pid, syscall.RLIMIT_CORE, 0, uintptr(unsafe.Pointer(&lim))); errno != 0 {
			return errno
		}
		_, errno := call(syscall.SYS_PRLIMIT64, pid, syscall.RLIMIT_CORE, uintptr(unsafe.Pointer(&lim)), 0)
		return errno
	case "setpriority":
		prio, errno := call(syscall.SYS_GETPRIORITY, syscall.PRIO_PROCESS, pid)
		if errno != 0 {
			return errno
		}
		_, errno = call(syscall.SYS_SETPRIORITY, syscall.PRIO_PROCESS, pid, uintptr(20-int(prio)))
		return errno
	case "sched_setaffinity":
		var mask [128]byte
		if _, errno := call(syscall.SYS_SCHED_GETAFFINITY, pid, uintptr(len(mask)), uintptr(unsafe.Pointer(&mask[0]))); errno != 0 {
			return errno
		}
		_, errno := call(syscall.SYS_SCHED_SETAFFINITY, pid, uintptr(len(mask)), uintptr(unsafe.Pointer(&mask[0])))
		return errno
	case "sched_setscheduler":
		policy, errno := call(syscall.SYS_SCHED_GETSCHEDULER, pid)
		if errno != 0 {
			return errno
		}
		var param [1]int32
		if _, errno := call(syscall.SYS_SCHED_GETPARAM, pid, uintptr(unsafe.Pointer(&param))); errno != 0 {
			return errno
		}
		_, errno = call(syscall.SYS_SCHED_SETSCHEDULER, pid, policy, uintptr(unsafe.Pointer(&param)))
		return errno
	case "ioprio_set":
		prio, errno := call(syscall.SYS_IOPRIO_GET, ioprioWhoProcess, pid)
		if errno != 0 {
			return errno
		}
		_, errno = call(syscall.SYS_IOPRIO_SET, ioprioWhoProcess, pid, prio)
		return errno
	case "process_vm_readv":
		var b [1]byte
		local := syscall.Iovec{Base: &b[0], Len: 1}
		remote := [2]uint64{0x400000, 1} // struct iovec of an address in the other process
		_, errno := call(sysProcessVMReadv, pid, uintptr(unsafe.Pointer(&local)), 1, uintptr(unsafe.Pointer(&remote)), 1, 0)
		return errno
	case "pidfd_getfd", "pidfd_send_signal", "setns":
		fd, errno := pidfd()
		if errno != 0 {
			return errno
		}
		defer syscall.Close(int(fd))
		switch op {
		case "pidfd_getfd":
			got, errno := call(pidfdGetfd, fd, 0, 0)
			if errno == 0 {
				syscall.Close(int(got))
			}
			return errno
		case "pidfd_send_signal":
			_, errno := call(pidfdSendSignal, fd, uintptr(syscall.SIGCONT), 0, 0)
			return errno
		default:
			_, errno := call(sysSetns, fd, syscall.CLONE_NEWNET)
			return errno
		}
	case "kill":
		_, errno := call(syscall.SYS_KILL, pid, 0)
		return errno
	case "sigio":
		// SIGCONT (harmless) sent to pid by the kernel when a pipe the
		// tool owns becomes readable (F_SETOWN, F_SETSIG, O_ASYNC).
		var p [2]int
		if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
			return err.(syscall.Errno)
		}
		defer syscall.Close(p[0])
		defer syscall.Close(p[1])
		for _, c := range [][3]uintptr{{uintptr(p[0]), syscall.F_SETOWN, pid}, {uintptr(p[0]), fSetsig, uintptr(syscall.SIGCONT)}, {uintptr(p[0]), syscall.F_SETFL, syscall.O_ASYNC}} {
			if _, errno := call(syscall.SYS_FCNTL, c[0], c[1], c[2]); errno != 0 {
				return errno
			}
		}
		if _, err := syscall.Write(p[1], []byte("x")); err != nil {
			return err.(syscall.Errno)
		}
		return 0
	}
	return syscall.EINVAL
}

// openat2Create creates path with mode by openat2(2), whose mode is in
// a struct (struct open_how) a seccomp filter cannot read.
func openat2Create(path string, mode uint64) error {
	const sysOpenat2 = 437
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	how := struct{ flags, mode, resolve uint64 }{syscall.O_CREAT | syscall.O_EXCL | syscall.O_WRONLY | syscall.O_CLOEXEC, mode, 0}
	fd, _, errno := syscall.Syscall6(sysOpenat2, uintptr(^uint(99)), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&how)), unsafe.Sizeof(how), 0, 0) // AT_FDCWD is -100
	if errno != 0 {
		return errno
	}
	return syscall.Close(int(fd))
}

// sockDiagTCP asks NETLINK_SOCK_DIAG for every IPv4 TCP socket of the
// network namespace (sock_diag(7)) and names how many came back and the
// local ports of the first few.
func sockDiagTCP() (string, syscall.Errno) {
	const netlinkSockDiag, sockDiagByFamily, nlmDump = 4, 20, 0x300
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, netlinkSockDiag)
	if err != nil {
		return "", err.(syscall.Errno)
	}
	defer syscall.Close(fd)
	// struct nlmsghdr (16 bytes), then struct inet_diag_req_v2 (56):
	// family, protocol, ext, pad, states, and a zeroed inet_diag_sockid.
	msg := make([]byte, 16+56)
	*(*uint32)(unsafe.Pointer(&msg[0])) = uint32(len(msg))
	*(*uint16)(unsafe.Pointer(&msg[4])) = sockDiagByFamily
	*(*uint16)(unsafe.Pointer(&msg[6])) = syscall.NLM_F_REQUEST | nlmDump
	msg[16], msg[17] = syscall.AF_INET, syscall.IPPROTO_TCP
	*(*uint32)(unsafe.Pointer(&msg[20])) = 0xffffffff // every state
	if err := syscall.Sendto(fd, msg, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return "", err.(syscall.Errno)
	}
	var ports []string
	count := 0
	buf := make([]byte, 1<<16)
	for {
		n, _, err := syscall.Recvfrom(fd, buf, 0)
		if err != nil {
			return "", err.(syscall.Errno)
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return "", syscall.EINVAL
		}
		for _, m := range msgs {
			switch m.Header.Type {
			case syscall.NLMSG_DONE:
				return fmt.Sprintf("%d sockets, local ports %s", count, strings.Join(ports, " ")), 0
			case syscall.NLMSG_ERROR:
				return "", syscall.Errno(-*(*int32)(unsafe.Pointer(&m.Data[0])))
			}
			count++
			if len(m.Data) >= 8 && len(ports) < 5 {
				ports = append(ports, strconv.Itoa(int(m.Data[4])<<8|int(m.Data[5]))) // idiag_sport, big endian
			}
		}
	}
}

// fileOp does one of file_op's operations.
func fileOp(op, path, to string) (string, error) {
	switch op {
	case "link":
		return "linked", os.Link(path, to)
	case "rename":
		return "renamed", os.Rename(path, to)
	case "truncate":
		return "truncated", os.Truncate(path, 0)
	case "reopen", "flink":
		fd, err := syscall.Open(path, oPath|syscall.O_CLOEXEC, 0)
		if err != nil {
			return "", os.NewSyscallError("open O_PATH", err)
		}
		defer syscall.Close(fd)
		if op == "flink" {
			const atEmptyPath = 0x1000
			p, _ := syscall.BytePtrFromString(to)
			empty := []byte{0}
			_, _, errno := syscall.Syscall6(syscall.SYS_LINKAT, uintptr(fd), uintptr(unsafe.Pointer(&empty[0])), uintptr(^uint(99)), uintptr(unsafe.Pointer(p)), atEmptyPath, 0) // AT_FDCWD is -100
			if errno != 0 {
				return "", os.NewSyscallError("linkat", errno)
			}
			return "linked", nil
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/self/fd/%d", fd))
		if err != nil {
			return "", err
		}
		return string(b), nil
	case "handle":
		// The file opened by its handle (name_to_handle_at, then
		// open_by_handle_at on a descriptor of the directory to, of the
		// same mount), which walks no path.
		const sysNameToHandleAt, sysOpenByHandleAt = 303, 304
		p, _ := syscall.BytePtrFromString(path)
		fh := make([]byte, 8+128) // struct file_handle: handle_bytes, handle_type, f_handle
		*(*uint32)(unsafe.Pointer(&fh[0])) = 128
		var mountID int32
		if _, _, errno := syscall.Syscall6(sysNameToHandleAt, uintptr(^uint(99)), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&fh[0])), uintptr(unsafe.Pointer(&mountID)), 0, 0); errno != 0 {
			return "", os.NewSyscallError("name_to_handle_at", errno)
		}
		root, err := syscall.Open(to, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return "", os.NewSyscallError("open", err)
		}
		defer syscall.Close(root)
		fd, _, errno := syscall.Syscall(sysOpenByHandleAt, uintptr(root), uintptr(unsafe.Pointer(&fh[0])), syscall.O_RDONLY|syscall.O_CLOEXEC)
		if errno != 0 {
			return "", os.NewSyscallError("open_by_handle_at", errno)
		}
		f := os.NewFile(fd, "handle")
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, 1<<16))
		return string(b), err
	case "stat":
		var st syscall.Stat_t
		if err := syscall.Stat(path, &st); err != nil {
			return "", os.NewSyscallError("stat", err)
		}
		return fmt.Sprintf("size %d", st.Size), nil
	case "getxattr":
		b := make([]byte, 256)
		n, err := syscall.Getxattr(path, to, b)
		if err != nil {
			return "", os.NewSyscallError("getxattr", err)
		}
		return string(b[:n]), nil
	case "inotify":
		fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
		if err != nil {
			return "", os.NewSyscallError("inotify_init1", err)
		}
		defer syscall.Close(fd)
		if _, err := syscall.InotifyAddWatch(fd, path, syscall.IN_ALL_EVENTS); err != nil {
			return "", os.NewSyscallError("inotify_add_watch", err)
		}
		return "watching", nil
	case "fanotify":
		const fanReportDFIDName = 0x00000c00
		const fanCreate, fanOnlydir = 0x100, 0x01000000
		fd, _, errno := syscall.Syscall(syscall.SYS_FANOTIFY_INIT, fanReportDFIDName, syscall.O_RDONLY, 0)
		if errno != 0 {
			return "", os.NewSyscallError("fanotify_init", errno)
		}
		defer syscall.Close(int(fd))
		p, _ := syscall.BytePtrFromString(path)
		const fanMarkAdd = 1
		if _, _, errno := syscall.Syscall6(syscall.SYS_FANOTIFY_MARK, fd, fanMarkAdd, fanCreate|fanOnlydir, uintptr(^uint(99)), uintptr(unsafe.Pointer(p)), 0); errno != 0 {
			return "", os.NewSyscallError("fanotify_mark", errno)
		}
		return "watching", nil
	}
	return "", fmt.Errorf("no op %q", op)
}
