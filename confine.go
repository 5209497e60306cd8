// Self-confinement: what the process may touch once it serves. A
// registry declares what its code needs (addNeeds), the operator adds to
// it (-allow-read, -allow-write, -allow-connect), the transport adds what
// the server itself needs after start-up (confine_http.go), and once the
// flags are read, the secrets loaded and the listeners bound, before the
// first message is read, every thread of the process is restricted to
// that (confine_linux.go: Landlock and no_new_privs; confine_other.go:
// nothing, said once). docs/SECURITY.md has the threat model.
//
// Spec: none; MCP leaves sandboxing a local server to whoever runs it.
// The kernel side is https://docs.kernel.org/userspace-api/landlock.html.

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// needs is what code touches after start-up, once the process is
// confined: the files and directory trees it reads, those it writes
// (creates, truncates, removes in; writing implies reading), the programs
// it runs (files, or directories of them) and the TCP ports it connects
// to, on any host. A path names a file or a directory and everything
// beneath it; it must exist when the process confines itself. Anything
// not declared is refused by the kernel, and the refusal reaches the
// model as a tool error (refusalText).
type needs struct {
	Read    []string
	Write   []string
	Run     []string
	Connect []int
}

// declaredNeeds is one addNeeds call: what some code needs, and the words
// that name that code in the start-up log ("tool notes").
type declaredNeeds struct {
	from string
	needs
}

// addNeeds declares what the code named from needs once the process is
// confined; a registry calls it in buildRegistry, beside the code that
// needs it:
//
//	s.addNeeds("tool notes", needs{Read: []string{dir}})
//	s.addTool(tool{Name: "notes", ...})
//
// The needs are read once, when the process confines itself, before the
// first message: a tool added later (the demo's toggle_extra_tool) gets
// only what was allowed then, and what it touches beyond that is refused
// as any undeclared access is. An empty from, an empty path or a port
// outside 1-65535 is a programming error.
func (s *server) addNeeds(from string, n needs) {
	if from == "" {
		panic("addNeeds: from must name the code that needs the access")
	}
	for _, list := range [][]string{n.Read, n.Write, n.Run} {
		for _, p := range list {
			if p == "" {
				panic(fmt.Sprintf("addNeeds %s: empty path", from))
			}
		}
	}
	for _, p := range n.Connect {
		if p < 1 || p > 65535 {
			panic(fmt.Sprintf("addNeeds %s: port %d outside 1-65535", from, p))
		}
	}
	s.update(func(r *registry) { r.needs = append(r.needs, declaredNeeds{from, n}) })
}

// confineMode is -confine: on (the default), off, or required.
type confineMode string

const (
	// confineOn confines as far as the kernel can, and says what it could
	// not. It is the default: the registry declares what it needs, so
	// confinement costs a correct server nothing, and a tool turned by
	// prompt injection or a path bug then reaches nothing else of the
	// user's (docs/SECURITY.md, "Confinement").
	confineOn confineMode = "on"
	// confineOff confines nothing (a registry that has not declared its
	// needs yet, a debugging session).
	confineOff confineMode = "off"
	// confineRequired refuses to start unless every restriction is
	// enforced.
	confineRequired confineMode = "required"
)

// String and Set make confineMode a flag.Value.
func (m *confineMode) String() string { return string(*m) }

func (m *confineMode) Set(v string) error {
	switch confineMode(v) {
	case confineOn, confineOff, confineRequired:
		*m = confineMode(v)
		return nil
	}
	return fmt.Errorf("want on, off or required, got %q", v)
}

// confineConfig is the confinement flags.
type confineConfig struct {
	mode    confineMode
	read    []string // -allow-read, absolute
	write   []string // -allow-write, absolute
	connect []int    // -allow-connect
	// verbose is -v: -version also prints what the process may touch.
	verbose bool
}

// confineFlags registers the confinement flags on fs, landing in c.
func confineFlags(fs *flag.FlagSet, c *confineConfig) {
	c.mode = confineOn
	fs.Var(&c.mode, "confine", "`mode` of self-confinement once serving: on (what the kernel can enforce), off, or required (refuse to start unless all of it is enforced)")
	path := func(list *[]string) func(string) error {
		return func(v string) error {
			if v == "" {
				return errors.New("empty path")
			}
			abs, err := filepath.Abs(v)
			if err != nil {
				return errors.New("cannot make the path absolute")
			}
			*list = append(*list, abs)
			return nil
		}
	}
	fs.Func("allow-read", "also let the confined process read `path` (a file, or a directory and all beneath it; repeatable)", path(&c.read))
	fs.Func("allow-write", "also let the confined process write, create and remove in `path` (a file, or a directory tree; implies reading it; repeatable)", path(&c.write))
	fs.Func("allow-connect", "also let the confined process connect to TCP `port` on any host (repeatable)", func(v string) error {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 || p > 65535 {
			return fmt.Errorf("want a TCP port, 1 to 65535, got %q", v)
		}
		c.connect = append(c.connect, p)
		return nil
	})
	fs.BoolVar(&c.verbose, "v", false, "with -version: also print what the process may touch once confined, and what this kernel enforces")
}

// check refuses flags that contradict each other: an allowance with
// -confine=off (which allows everything), -v without -version.
func (c *confineConfig) check(set map[string]bool, printVersion bool) error {
	if c.mode == confineOff {
		for _, name := range []string{"allow-read", "allow-write", "allow-connect"} {
			if set[name] {
				return fmt.Errorf("-%s needs confinement: -confine=off allows everything", name)
			}
		}
	}
	if c.verbose && !printVersion {
		return errors.New("-v goes with -version")
	}
	return nil
}

// grantKind is what a grant allows.
type grantKind uint8

const (
	grantRead grantKind = iota
	grantWrite
	grantRun
	grantConnect
)

// grant is one allowance of the plan and where it comes from.
type grant struct {
	kind grantKind
	path string // grantRead, grantWrite, grantRun
	port int    // grantConnect
	from string // the code or flag that asked for it
	// optional grants are the system's files the server or a program's
	// loader may use; one this system lacks is skipped. Any other path
	// must exist when the process confines itself.
	optional bool
}

// preload is something the server would read lazily after start-up and
// reads instead before confining, so that it need not be allowed.
type preload struct {
	what string
	load func()
}

// serverNeeds is what the server itself needs once confined, besides the
// registry's needs and the operator's flags: the HTTP wing says
// (httpConfig.ownNeeds, confine_http.go); over stdio, nothing.
type serverNeeds struct {
	grants   []grant
	preloads []preload
}

// confinePlan is everything the confined process may touch, and what was
// read before confining instead.
type confinePlan struct {
	grants   []grant
	preloads []preload
	// runner names the first code that runs programs ("" for none):
	// signals are then not scoped (confine_linux.go, rulesFor).
	runner string
}

// programLoader is what running a dynamically linked program needs
// besides the program: the shared libraries and the loader's cache, read
// (the kernel checks execution when a program or its loader is started,
// not when a library is mapped), and /dev/null, which os/exec opens for a
// child's standard streams left unset. Paths this system lacks are
// skipped. The loader itself is executed: programLoaders.
var programLoader = []grant{
	{kind: grantRead, path: "/lib"},
	{kind: grantRead, path: "/lib64"},
	{kind: grantRead, path: "/usr/lib"},
	{kind: grantRead, path: "/usr/lib64"},
	{kind: grantRead, path: "/etc/ld.so.cache"},
	{kind: grantWrite, path: "/dev/null"},
}

// loaderPatterns are where the systems Go runs on keep the dynamic loader
// (ld-linux-x86-64.so.2, ld-linux-aarch64.so.1, ld-musl-x86_64.so.1, ...),
// the one file besides a program that starting it executes.
var loaderPatterns = []string{"/lib/ld-*.so*", "/lib64/ld-*.so*", "/lib/*/ld-*.so*", "/usr/lib/ld-*.so*", "/usr/lib64/ld-*.so*", "/usr/lib/*/ld-*.so*"}

// programLoaders returns programLoader's grants and one to run each
// dynamic loader this system has, all from "programs' loader".
func programLoaders() []grant {
	const from = "programs' loader"
	var gs []grant
	for _, g := range programLoader {
		g.from, g.optional = from, true
		gs = append(gs, g)
	}
	for _, pattern := range loaderPatterns {
		matches, _ := filepath.Glob(pattern) // only a malformed pattern errs
		for _, m := range matches {
			gs = append(gs, grant{kind: grantRun, path: m, from: from, optional: true})
		}
	}
	return gs
}

// plan gathers what the process may touch once confined: the registry's
// declared needs, the operator's flags, and own (what the server itself
// needs after start-up), plus the time zone, read before confining (slog
// writes local times, and time.Local reads /etc/localtime or $TZ's file
// on first use).
func (s *server) plan(c *confineConfig, own serverNeeds) confinePlan {
	var p confinePlan
	for _, d := range s.registry().needs {
		for _, path := range d.Read {
			p.grants = append(p.grants, grant{kind: grantRead, path: path, from: d.from})
		}
		for _, path := range d.Write {
			p.grants = append(p.grants, grant{kind: grantWrite, path: path, from: d.from})
		}
		for _, path := range d.Run {
			p.grants = append(p.grants, grant{kind: grantRun, path: path, from: d.from})
			if p.runner == "" {
				p.runner = d.from
			}
		}
		for _, port := range d.Connect {
			p.grants = append(p.grants, grant{kind: grantConnect, port: port, from: d.from})
		}
	}
	if p.runner != "" {
		p.grants = append(p.grants, programLoaders()...)
	}
	for _, path := range c.read {
		p.grants = append(p.grants, grant{kind: grantRead, path: path, from: "-allow-read"})
	}
	for _, path := range c.write {
		p.grants = append(p.grants, grant{kind: grantWrite, path: path, from: "-allow-write"})
	}
	for _, port := range c.connect {
		p.grants = append(p.grants, grant{kind: grantConnect, port: port, from: "-allow-connect"})
	}
	p.grants = append(p.grants, own.grants...)
	// time.Local's String loads the zone once; a missing file means UTC.
	p.preloads = append([]preload{{what: "time zone", load: func() { _ = time.Local.String() }}}, own.preloads...)
	return p
}

// attrs are the plan's start-up log attributes: each kind of access, each
// entry with where it comes from ("none" when empty), and what was
// preloaded instead of allowed.
func (p *confinePlan) attrs() []any {
	list := func(kind grantKind) string {
		var b strings.Builder
		for _, g := range p.grants {
			if g.kind != kind {
				continue
			}
			if b.Len() > 0 {
				b.WriteString(", ")
			}
			if kind == grantConnect {
				b.WriteString(strconv.Itoa(g.port))
			} else {
				b.WriteString(g.path)
			}
			b.WriteString(" (" + g.from + ")")
		}
		if b.Len() == 0 {
			return "none"
		}
		return b.String()
	}
	var loaded []string
	for _, pl := range p.preloads {
		loaded = append(loaded, pl.what)
	}
	return []any{
		"read", list(grantRead), "write", list(grantWrite), "run", list(grantRun),
		"connect", list(grantConnect), "bind", "none (listeners are bound before)",
		"preloaded", strings.Join(loaded, ", "),
	}
}

// confiner returns the function that confines the process: the transport
// calls it once the listeners are bound and before the first message is
// read (serveTransport; listenHTTP right after its bind). It logs the plan
// and what is enforced, each in one line, and fails only under
// -confine=required when the kernel cannot enforce all of it, or when a
// path the registry or the operator named cannot be opened. getenv is
// run's, read by the confinetest build's seam only.
func (s *server) confiner(getenv func(string) string) func() error {
	return func() error {
		addConfineTestTools(s, getenv) // the confinetest build's (confine_seam.go)
		c := &s.confine
		if c.mode == confineOff {
			s.log.Info("confinement off (-confine=off): the process may touch whatever its user may")
			return nil
		}
		if testBinary() {
			s.log.Debug("confinement skipped: a go test binary never confines itself (confine_linux_test.go confines a child)")
			return nil
		}
		p := s.plan(c, s.http.ownNeeds())
		for _, pl := range p.preloads {
			pl.load()
		}
		s.log.Info("confinement: what the process may touch once serving", p.attrs()...)
		rep, err := enforce(&p, c.mode, getenv)
		if err != nil {
			return err
		}
		switch {
		case len(rep.enforced) == 0:
			s.log.Warn("not confined: this system enforces nothing", rep.attrs()...)
		case len(rep.missing) > 0 || len(rep.off) > 0:
			s.log.Warn("confined in part", rep.attrs()...)
		default:
			s.log.Info("confined", rep.attrs()...)
		}
		return nil
	}
}

// confineReport is what enforce did: what the kernel enforces now, what
// it cannot (missing: an older kernel, another system, a cgo build) and
// what this plan leaves off by design (off).
type confineReport struct {
	kernel   string // "Landlock ABI 7", "no Landlock (...)", "GOOS has no Landlock"
	enforced []string
	missing  []string
	off      []string
}

// attrs are the report's log attributes.
func (r *confineReport) attrs() []any {
	none := func(l []string) string {
		if len(l) == 0 {
			return "none"
		}
		return strings.Join(l, "; ")
	}
	return []any{"kernel", r.kernel, "enforced", none(r.enforced), "not_enforced", none(append(append([]string(nil), r.missing...), r.off...))}
}

// testBinary reports whether the process is a go test binary (the testing
// package registers -test.v on the command line's flag set). Such a
// process never confines itself: Landlock cannot be undone, and every
// later test of the process would run confined. The tests confine a
// child instead (confine_linux_test.go).
func testBinary() bool { return flag.Lookup("test.v") != nil }

// printVersion is -version: the build, and with -v what the process may
// touch once confined and what this kernel enforces, worked out as at
// start-up (the registry built, then stopped) without confining anything.
func printVersion(w io.Writer, cfg config, getenv func(string) string) error {
	if _, err := fmt.Fprintln(w, readBuild()); err != nil || !cfg.confine.verbose {
		return err
	}
	s := newServer(cfg, slog.New(slog.DiscardHandler))
	stop := buildRegistry(s, getenv)
	stop()
	s.tasks.shutdown()
	c := &cfg.confine
	var b strings.Builder
	fmt.Fprintf(&b, "confinement: %s (-confine)\n", c.mode)
	lines := func(attrs []any) {
		for i := 0; i < len(attrs); i += 2 {
			fmt.Fprintf(&b, "  %-14s %s\n", attrs[i].(string)+":", attrs[i+1])
		}
	}
	if c.mode != confineOff {
		p := s.plan(c, cfg.http.ownNeeds())
		lines(p.attrs())
		rep := probe(&p, getenv)
		lines(rep.attrs())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// refusalText returns what the model reads when a tool's error is the
// system refusing a call (EACCES, EPERM: what a confined process gets for
// what it was not allowed, and what file permissions give): the tool's
// own words with the system's message in place of the standard library's
// error, which names the path, address or process it was refused. "read
// notes: open /home/u/.ssh/id_ed25519: permission denied" becomes "read
// notes: open: permission denied"; "fetch: dial tcp 10.0.0.5:5432:
// connect: permission denied" becomes "fetch: connect: permission
// denied" (a net or net/url error is known by its Timeout method, as
// internalCause knows it, so that the core links no net package). The
// full error is logged. It reports false for any other error, which keeps
// its usual path (internalCause). TestRefusalText pins the shapes.
func refusalText(err error) (string, bool) {
	var errno syscall.Errno
	if !errors.As(err, &errno) || (errno != syscall.EACCES && errno != syscall.EPERM) {
		return "", false
	}
	// The outermost error of the standard library's in the chain, and the
	// operations it and those beneath it name.
	var outer error
	var ops []string
	for e := err; e != nil; e = errors.Unwrap(e) {
		op := ""
		switch x := e.(type) {
		case *fs.PathError:
			op = x.Op
		case *os.LinkError:
			op = x.Op
		case *os.SyscallError:
			op = x.Syscall
		case syscall.Errno, interface{ Timeout() bool }:
			// The errno itself, or a network error whose words (an
			// address) are left out with it.
		default:
			continue
		}
		if outer == nil {
			outer = e
		}
		if op != "" {
			ops = append(ops, op)
		}
	}
	words := strings.Join(append(ops, errno.Error()), ": ")
	if prefix, ok := strings.CutSuffix(err.Error(), outer.Error()); ok {
		return prefix + words, true
	}
	return words, true
}
