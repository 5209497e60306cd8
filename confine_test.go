// Self-confinement in process: the flags, the plan and its start-up line,
// -version -v, and how a refused system call reaches the model. A go test
// binary never confines itself (testBinary); confine_linux_test.go
// confines a child.

package main

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestRefusalText(t *testing.T) {
	secret := "/home/u/.ssh/id_ed25519"
	for _, tt := range []struct {
		name string
		err  error
		want string // "" means not a refusal
	}{
		{"open refused", &fs.PathError{Op: "open", Path: secret, Err: syscall.EACCES}, "open: permission denied"},
		{"wrapped in the tool's words", fmt.Errorf("read notes: %w", &fs.PathError{Op: "open", Path: secret, Err: syscall.EACCES}), "read notes: open: permission denied"},
		{"exec refused", fmt.Errorf("run: %w", &fs.PathError{Op: "fork/exec", Path: "/bin/sh", Err: syscall.EACCES}), "run: fork/exec: permission denied"},
		{"connect refused", fmt.Errorf("fetch: %w", &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 5432}, Err: os.NewSyscallError("connect", syscall.EACCES)}), "fetch: connect: permission denied"},
		{"signal refused, bare", fmt.Errorf("stop: %w", syscall.EPERM), "stop: operation not permitted"},
		{"rename refused", &os.LinkError{Op: "rename", Old: "/a", New: secret, Err: syscall.EACCES}, "rename: permission denied"},
		{"the tool's words around the path", fmt.Errorf("save %s: %w", "notes.txt", &fs.PathError{Op: "open", Path: secret, Err: syscall.EACCES}), "save notes.txt: open: permission denied"},
		{"not found is no refusal", &fs.PathError{Op: "open", Path: secret, Err: syscall.ENOENT}, ""},
		{"the tool's own error", errors.New("permission denied"), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := refusalText(tt.err)
			if !ok {
				got = ""
			}
			if got != tt.want {
				t.Errorf("refusalText(%q) = %q, want %q", tt.err, got, tt.want)
			}
			if strings.Contains(got, secret) || strings.Contains(got, "10.1.2.3") {
				t.Errorf("refusalText(%q) = %q names what was refused", tt.err, got)
			}
		})
	}
}

// TestToolRefusalIsToolError: a tool whose system call is refused
// answers isError with the system's words, the server logs the whole
// error, and the path never reaches the client.
func TestToolRefusalIsToolError(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	logs := &syncBuffer{}
	s := newTestServer(t, withRegistry(), withLogs(logs), withSetup(func(s *server) {
		s.addTool(tool{Name: "reads", Call: func(ctx context.Context, req *request) (*toolResult, error) {
			return nil, fmt.Errorf("read it: %w", &fs.PathError{Op: "open", Path: secret, Err: syscall.EACCES})
		}})
	}))
	got := mustServeOne(t, s, req("1", "tools/call", `"name":"reads"`))
	want := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"read it: open: permission denied"}],"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":` + mustJSON(t, testIdentity) + `}}}`
	if !sameJSON(t, got, want) {
		t.Errorf("tools/call\n got: %s\nwant: %s", got, want)
	}
	if !strings.Contains(logs.String(), "refused by the system") || !strings.Contains(logs.String(), secret) {
		t.Errorf("the log does not hold the refusal with its path: %s", logs.String())
	}
}

func TestConfineFlags(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string
		wantErr string // "" means accepted
	}{
		{"default", nil, ""},
		{"off", []string{"-confine=off"}, ""},
		{"required", []string{"-confine", "required"}, ""},
		{"unknown mode", []string{"-confine=maybe"}, "want on, off or required"},
		{"allowances", []string{"-allow-read", "/srv", "-allow-write", ".", "-allow-connect", "443", "-allow-connect", "5432"}, ""},
		{"port zero", []string{"-allow-connect", "0"}, "want a TCP port"},
		{"port name", []string{"-allow-connect", "https"}, "want a TCP port"},
		{"empty values grant nothing", []string{"-allow-read", "", "-allow-write", "", "-allow-connect", ""}, ""},
		{"allowance with off", []string{"-confine=off", "-allow-read", "/srv"}, "-allow-read needs confinement"},
		{"-v alone", []string{"-v"}, "-v goes with -version"},
		{"-version -v", []string{"-version", "-v"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseFlags(tt.args, io.Discard, func(string) string { return "" })
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("parseFlags(%q) = %v, want success", tt.args, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("parseFlags(%q) = %v, want an error containing %q", tt.args, err, tt.wantErr)
			}
		})
	}
	cfg, err := parseFlags([]string{"-allow-read", "", "-allow-write", "", "-allow-connect", ""}, io.Discard, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if c := cfg.confine; len(c.read)+len(c.write)+len(c.connect) != 0 {
		t.Errorf("empty -allow-read, -allow-write, -allow-connect granted %q, %q, %v, want nothing", c.read, c.write, c.connect)
	}
	cfg, err = parseFlags([]string{"-allow-write", "data"}, io.Discard, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.confine.write; len(got) != 1 || !filepath.IsAbs(got[0]) || filepath.Base(got[0]) != "data" {
		t.Errorf("-allow-write data = %q, want it made absolute", got)
	}
}

// confinePlanCase is a row of TestConfinePlan and TestConfinePlanHTTP:
// flags, what a tool declares, and what the start-up line must say.
type confinePlanCase struct {
	name  string
	args  []string
	needs *needs
	want  []string // substrings of the line
	not   []string // and what it must not hold
}

// checkConfinePlan parses each case's flags, declares its needs on a test
// server, and checks the plan's start-up line.
func checkConfinePlan(t *testing.T, cases []confinePlanCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseFlags(tt.args, io.Discard, func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			s := newTestServer(t, withRegistry())
			if tt.needs != nil {
				s.addNeeds("tool notes", *tt.needs)
			}
			p := s.plan(&cfg.confine, cfg.http.ownNeeds(), func(string) string { return "" })
			var line bytes.Buffer
			slog.New(slog.NewTextHandler(&line, nil)).Info("plan", p.attrs()...)
			for _, w := range tt.want {
				if !strings.Contains(line.String(), w) {
					t.Errorf("plan line %s\nlacks %s", line.String(), w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(line.String(), w) {
					t.Errorf("plan line %s\nholds %s", line.String(), w)
				}
			}
		})
	}
}

// TestConfinePlan: the start-up line names every allowance and where it
// comes from: the registry's declarations, what their programs need to
// start (confine_elf.go) and the flags.
func TestConfinePlan(t *testing.T) {
	if _, err := elf.Open("/bin/sh"); err != nil {
		t.Skipf("/bin/sh is no ELF file here (%v)", err)
	}
	script := mustWriteFile(t, t.TempDir(), "script", []byte("#!/bin/sh -e\necho hi\n"), 0o755)
	checkConfinePlan(t, []confinePlanCase{
		{"the demo needs nothing", nil, nil,
			[]string{`read=none write=none run=none connect=none`, `preloaded="time zone"`}, nil},
		{"a registry's needs", nil, &needs{Read: []string{"/srv/notes"}, Write: []string{"/srv/out"}, Connect: []int{5432}},
			[]string{`read="/srv/notes (tool notes)"`, `write="/srv/out (tool notes)"`, `connect="5432 (tool notes)"`}, nil},
		{"a program to run brings its loader and libraries, not /lib", nil, &needs{Run: []string{"/bin/sh"}},
			[]string{`run="/bin/sh (tool notes), `, ` (loader of /bin/sh)`, ` (libraries of /bin/sh)`, `/etc/ld.so.cache (programs' loader)`, `/dev/null (programs' standard streams)`},
			[]string{`/lib (`, `/usr/lib (`}},
		{"a script brings its interpreter's", nil, &needs{Run: []string{script}},
			[]string{`run="` + script + ` (tool notes), /bin/sh (interpreter of ` + script + `)`, ` (loader of ` + script + `)`, ` (libraries of ` + script + `)`}, nil},
		{"a directory of programs brings every loader and library", nil, &needs{Run: []string{"/usr/bin"}},
			[]string{`read="/lib (loaders of the programs in /usr/bin), /lib64 (loaders of the programs in /usr/bin), /usr/lib (loaders of the programs in /usr/bin)`}, nil},
		{"the operator's flags", []string{"-allow-read", "/etc/ssl", "-allow-connect", "8443"}, nil,
			[]string{`read="/etc/ssl (-allow-read)"`, `connect="8443 (-allow-connect)"`}, nil},
	})
}

// TestVersionVerbose: -version -v prints the build, then what the
// process may touch and what this kernel enforces, confining nothing.
func TestVersionVerbose(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), []string{"-version", "-v", "-allow-read", "/srv/data"}, strings.NewReader(""), &out, io.Discard, func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{readBuild().String() + "\n", "confinement: on (-confine)\n", "/srv/data (-allow-read)", "  connect:       none\n", "  kernel:", "  threads:", "  enforced:", "  not_enforced:"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("-version -v printed\n%s\nlacking %q", out.String(), w)
		}
	}
	out.Reset()
	if err := run(t.Context(), []string{"-version", "-v", "-confine=off"}, strings.NewReader(""), &out, io.Discard, func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	if want := readBuild().String() + "\nconfinement: off (-confine)\n"; out.String() != want {
		t.Errorf("-version -v -confine=off printed %q, want %q", out.String(), want)
	}
}

// TestStdioBuildLinksNoCgo: the stdio build confines every thread at
// once however it is built, without a relaunch: it links no runtime/cgo
// even where cgo is on (a binary that links it cannot make a system call
// on every thread, and relaunches, confine_relaunch_linux.go).
func TestStdioBuildLinksNoCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the go command")
	}
	cmd := exec.Command(goTool(t), "list", "-deps", "-tags", "stdio", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps -tags stdio .: %v", err)
	}
	if deps := strings.Fields(string(out)); slices.Contains(deps, "runtime/cgo") {
		t.Errorf("with CGO_ENABLED=1, go build -tags stdio links runtime/cgo")
	}
}

// TestAddNeedsPanics: a declaration that cannot be right is a
// programming error the first run reveals.
func TestAddNeedsPanics(t *testing.T) {
	for _, tt := range []struct {
		name string
		from string
		n    needs
	}{
		{"no source", "", needs{}},
		{"empty path", "tool x", needs{Read: []string{""}}},
		{"port zero", "tool x", needs{Connect: []int{0}}},
		{"port too high", "tool x", needs{Connect: []int{65536}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("addNeeds(%q, %+v) did not panic", tt.from, tt.n)
				}
			}()
			newTestServer(t, withRegistry()).addNeeds(tt.from, tt.n)
		})
	}
}

// TestParseLDCache: glibc's loader cache read as its loader reads it,
// from a cache made here and from this system's, and anything else
// refused whole.
func TestParseLDCache(t *testing.T) {
	var b []byte
	b = append(b, ldCacheMagic...)
	b = binary.NativeEndian.AppendUint32(b, 2) // entries
	b = binary.NativeEndian.AppendUint32(b, 0) // string table's length (unread)
	b = append(b, make([]byte, 48-len(b))...)  // flags, extension, unused
	strings0 := 48 + 2*24
	names := []string{"libz.so.1", "/usr/lib/libz.so.1", "libz.so.1", "/usr/lib/hw/libz.so.1"}
	offs := make([]uint32, len(names))
	off := strings0
	for i, n := range names {
		offs[i] = uint32(off)
		off += len(n) + 1
	}
	for i := 0; i < 2; i++ {
		b = binary.NativeEndian.AppendUint32(b, 0x303) // flags
		b = binary.NativeEndian.AppendUint32(b, offs[2*i])
		b = binary.NativeEndian.AppendUint32(b, offs[2*i+1])
		b = append(b, make([]byte, 12)...) // OS version, hwcaps
	}
	for _, n := range names {
		b = append(append(b, n...), 0)
	}
	got := parseLDCache(b)
	if want := []string{"/usr/lib/libz.so.1", "/usr/lib/hw/libz.so.1"}; !slices.Equal(got["libz.so.1"], want) {
		t.Errorf("parseLDCache = %q, want libz.so.1 at %q", got, want)
	}
	for _, bad := range [][]byte{nil, b[:40], append([]byte("ld.so-1.7.0"), b[11:]...), b[:len(b)-3]} {
		if got := parseLDCache(bad); got != nil {
			t.Errorf("parseLDCache of %d bytes of a damaged cache = %q, want nil", len(bad), got)
		}
	}
	if sys, err := os.ReadFile(ldCachePath); err == nil && bytes.HasPrefix(sys, []byte(ldCacheMagic)) {
		cache := parseLDCache(sys)
		if len(cache["libc.so.6"]) == 0 {
			t.Errorf("this system's %s names no libc.so.6: %d names", ldCachePath, len(cache))
		}
	}
}

// TestHandoffRoundTrip: a relaunch's handoff reads back as written, and
// anything but a whole one is refused.
func TestHandoffRoundTrip(t *testing.T) {
	h := &handoff{
		why:       "a test",
		env:       map[string]string{envToken: "t\x00k", envStateKey: ""},
		files:     map[string]string{"-state-key-file": handedSecretFile(0o640, []byte{0, 1, 2})},
		listeners: map[string]int{"-http": 5, "-metrics": 6},
		closed:    []string{"3 (pipe:[1])", "9 (/x)"},
	}
	b := h.encode()
	got, err := decodeHandoff(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, h) {
		t.Errorf("decodeHandoff(encode(%+v)) = %+v", h, got)
	}
	dup := append(slices.Clone(b), handoffListener, 5, '-', 'h', 't', 't', 'p', 1, '7')
	for _, tt := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"another magic", append([]byte("baremcp handoff 2\n"), b[len(handoffMagic):]...)},
		{"truncated", b[:len(b)-1]},
		{"a listener given twice", dup},
		{"a listener on standard input", append([]byte(handoffMagic), handoffWhy, 0, 0, handoffListener, 1, 'x', 1, '0')},
		{"an unknown record", append(slices.Clone(b), 'z', 0, 0)},
		{"no reason", []byte(handoffMagic)},
	} {
		if _, err := decodeHandoff(tt.b); err == nil {
			t.Errorf("decodeHandoff(%s) succeeded", tt.name)
		}
	}
	getenv := h.getenv(envOf(map[string]string{"HOME": "/h", envToken: "from the environment"}))
	for name, want := range map[string]string{"HOME": "/h", envToken: "t\x00k", secretFileKey("-state-key-file"): "640:\x00\x01\x02", secretFileKey("-token-file"): ""} {
		if got := getenv(name); got != want {
			t.Errorf("handoff getenv(%q) = %q, want %q", name, got, want)
		}
	}
}

// FuzzDecodeHandoff: no input panics the decoder, and what it accepts
// encodes back to an equivalent handoff.
func FuzzDecodeHandoff(f *testing.F) {
	f.Add((&handoff{why: "w", env: map[string]string{"A": "1"}, files: map[string]string{}, listeners: map[string]int{"-http": 3}}).encode())
	f.Add([]byte(handoffMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := decodeHandoff(b)
		if err != nil {
			return
		}
		again, err := decodeHandoff(h.encode())
		if err != nil || !reflect.DeepEqual(again, h) {
			t.Errorf("decodeHandoff(encode(%+v)) = %+v, %v", h, again, err)
		}
	})
}

// TestZoneFiles: what a relaunched image is allowed to read for its
// local time zone is what the time package reads.
func TestZoneFiles(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want []string
	}{
		{nil, []string{"/etc/localtime"}},
		{map[string]string{"TZ": ":/etc/zone"}, []string{"/etc/zone"}},
		{map[string]string{"TZ": "UTC"}, nil},
		{map[string]string{"TZ": "Europe/Paris", "ZONEINFO": "/z.zip"}, []string{"/z.zip", "/usr/share/zoneinfo/Europe/Paris", "/usr/share/lib/zoneinfo/Europe/Paris", "/usr/lib/locale/TZ/Europe/Paris", "/etc/zoneinfo/Europe/Paris"}},
	} {
		if got := zoneFiles(envOf(tt.env)); !slices.Equal(got, tt.want) {
			t.Errorf("zoneFiles(%v) = %q, want %q", tt.env, got, tt.want)
		}
	}
}
