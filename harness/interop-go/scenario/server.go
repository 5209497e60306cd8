package scenario

import (
	"fmt"
	"io"
	"net"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"
)

// httpServer is one `baremcp -http` process, started per configuration so
// that no run sees another's sessions.
type httpServer struct {
	cmd    *exec.Cmd
	url    string
	done   chan struct{} // closed when the process has exited
	exitOK atomic.Bool   // set when done is closed
}

// startHTTPServer starts binary on a free loopback port and returns once
// the port accepts connections (at most 20 s).
func startHTTPServer(binary string, stderr io.Writer) (*httpServer, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(binary, "-http", addr)
	cmd.Stdout = stderr
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", binary, err)
	}
	s := &httpServer{cmd: cmd, url: "http://" + addr + "/mcp", done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		s.exitOK.Store(true)
		close(s.done)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if s.exited() {
			return nil, fmt.Errorf("%s -http %s exited before listening", binary, addr)
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return s, nil
		}
		select {
		case <-s.done:
		case <-time.After(50 * time.Millisecond):
		}
	}
	s.stop()
	return nil, fmt.Errorf("%s -http %s did not listen within 20s", binary, addr)
}

// exited reports whether the server process has ended.
func (s *httpServer) exited() bool { return s.exitOK.Load() }

// stop sends SIGTERM, then SIGKILL after 3 s, and waits for the exit.
func (s *httpServer) stop() {
	if s.exited() {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(3 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
