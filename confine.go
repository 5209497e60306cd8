// Self-confinement: what the process may touch once it serves. The
// registry's needs (addNeeds), what its programs need to start
// (confine_elf.go), the -allow-* flags and the server's own needs
// (confine_http.go) make a plan; before the first message, every thread
// is restricted to it, in process or by a relaunch (route; confine_linux.go,
// confine_relaunch_linux.go; confine_other.go enforces nothing).
// docs/SECURITY.md, "Confinement", has the threat model and the decisions.
//
// Spec: none; MCP leaves sandboxing a local server to whoever runs it.
// The kernel side is https://docs.kernel.org/userspace-api/landlock.html.

package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// needs is what code touches once the process is confined: files and
// directory trees it reads, those it writes (writing implies reading),
// programs it runs, and TCP ports it connects to on any host. A path must
// exist when the process confines itself; anything undeclared is refused.
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
// confined; a registry calls it in buildRegistry, beside that code:
//
//	s.addNeeds("tool notes", needs{Read: []string{dir}})
//
// Needs are read once, at confinement: a tool added later gets only what
// was allowed then. An empty from or path, or a port outside 1-65535,
// panics (TestAddNeedsPanics).
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

// The -confine modes.
const (
	confineOn       confineMode = "on"       // the default: as far as the kernel can, saying what it cannot
	confineOff      confineMode = "off"      // confines nothing
	confineRequired confineMode = "required" // refuses to start unless all of it is enforced
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
	verbose bool     // -v: -version also prints the plan
	// A relaunch that could not execute the binary goes on in process
	// (relaunch): relaunchFailed says why.
	route          confineRoute // how the process confines itself (settleRoute)
	relaunchWhy    string       // why it relaunches
	handoff        *handoff     // what a launcher handed this relaunched process (takeHandoff), or nil
	relaunchFailed error
	bound          map[string]*os.File // the listeners relaunch bound, by flag (listen)
}

// confineFlags registers the confinement flags on fs, landing in c.
func confineFlags(fs *flag.FlagSet, c *confineConfig) {
	c.mode = confineOn
	fs.Var(&c.mode, "confine", "`mode` of self-confinement once serving: on (what the kernel can enforce), off, or required (refuse to start unless all of it is enforced)")
	// An empty value grants nothing, never the working directory that
	// filepath.Abs("") would give: an MCP Bundle host passes a prompt the
	// user left empty as "" (harness/release, the bundles' user_config).
	path := func(list *[]string) func(string) error {
		return func(v string) error {
			if v == "" {
				return nil
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
		if v == "" {
			return nil
		}
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
	kind     grantKind
	path     string // grantRead, grantWrite, grantRun
	port     int    // grantConnect
	from     string // the code or flag that asked for it
	optional bool   // a system file this system may lack: skipped if absent
}

// preload is something the server would read lazily after start-up and
// reads instead before confining, so that it need not be allowed. reads
// names the files load reads: a relaunched image (route) starts confined
// and cannot read anything first, so there they are allowed instead.
type preload struct {
	what  string
	load  func()
	reads func(getenv func(string) string) []string
}

// serverNeeds is what the server itself needs once confined
// (httpConfig.ownNeeds; over stdio, nothing).
type serverNeeds struct {
	grants   []grant
	preloads []preload
}

// confinePlan is everything the confined process may touch, and what was
// read before confining instead.
type confinePlan struct {
	grants   []grant
	preloads []preload
	runner   string   // the first code that runs programs: signals are then not scoped (rulesFor)
	loaded   []string // programs that need a loader, which runs any ELF file it can read (rulesFor)
}

// programLoader is what dynamically linked programs need to start when Run
// names a directory: every library directory read (execution is checked at
// a program's start, not a library's mapping) and the loader's cache;
// programStart (confine_elf.go) grants a named program's loader and libraries.
var programLoader = []grant{
	{kind: grantRead, path: "/lib"},
	{kind: grantRead, path: "/lib64"},
	{kind: grantRead, path: "/usr/lib"},
	{kind: grantRead, path: "/usr/lib64"},
	{kind: grantRead, path: ldCachePath},
}

// loaderPatterns are where systems keep the dynamic loader a program's
// start executes (ld-linux-x86-64.so.2, ld-musl-x86_64.so.1, ...).
var loaderPatterns = []string{"/lib/ld-*.so*", "/lib64/ld-*.so*", "/lib/*/ld-*.so*", "/usr/lib/ld-*.so*", "/usr/lib64/ld-*.so*", "/usr/lib/*/ld-*.so*"}

// selfExe is this binary, as the kernel knows it whatever its path: a
// relaunch executes it again (confine_relaunch_linux.go).
const selfExe = "/proc/self/exe"

// devNull is what os/exec opens for a child's standard stream left nil.
const devNull = "/dev/null"

// plan gathers what the confined process may touch: the registry's needs,
// what their programs need to start (confine_elf.go), the operator's flags
// and own, and the time zone as a preload (slog writes local times). A
// relaunch (route) adds this binary and its start, and allows what the
// preloads read instead. TestConfinePlan.
func (s *server) plan(c *confineConfig, own serverNeeds, getenv func(string) string) confinePlan {
	var p confinePlan
	paths := func(kind grantKind, list []string, from string) {
		for _, path := range list {
			p.grants = append(p.grants, grant{kind: kind, path: path, from: from})
		}
	}
	ports := func(list []int, from string) {
		for _, port := range list {
			p.grants = append(p.grants, grant{kind: grantConnect, port: port, from: from})
		}
	}
	var ps *programStart
	start := func(path, name string) {
		if ps == nil {
			ps = newProgramStart(getenv)
		}
		if info, err := os.Stat(path); err == nil && info.IsDir() {
			// programLoader, and a grant to run each dynamic loader this system has.
			from := "loaders of the programs in " + path
			for _, g := range programLoader {
				g.from, g.optional = from, true
				p.grants = append(p.grants, g)
			}
			for _, pattern := range loaderPatterns {
				matches, _ := filepath.Glob(pattern) // only a malformed pattern errs
				for _, m := range matches {
					p.grants = append(p.grants, grant{kind: grantRun, path: m, from: from, optional: true})
				}
			}
			p.loaded = append(p.loaded, path+"/*")
			return
		}
		ps.add(path, name)
	}
	for _, d := range s.registry().needs {
		paths(grantRead, d.Read, d.from)
		paths(grantWrite, d.Write, d.from)
		paths(grantRun, d.Run, d.from)
		for _, path := range d.Run {
			start(path, path)
		}
		if len(d.Run) > 0 && p.runner == "" {
			p.runner = d.from
		}
		ports(d.Connect, d.from)
	}
	if p.runner != "" {
		p.grants = append(p.grants, grant{kind: grantWrite, path: devNull, from: "programs' standard streams", optional: true})
	}
	relaunch := c.route == routeRelaunch || c.route == routeRelaunched
	if relaunch {
		p.grants = append(p.grants, grant{kind: grantRun, path: selfExe, from: "relaunch of this binary"})
		start(selfExe, "this binary")
	}
	if relaunch && s.skillsDir != "" {
		// Read at start (main.go, addSkillDir), after a relaunch by the
		// confined image itself: what it serves to every client anyway.
		p.grants = append(p.grants, grant{kind: grantRead, path: s.skillsDir, from: "-skills: a relaunched image reads it itself"})
	}
	if ps != nil {
		p.grants = append(p.grants, ps.grants...)
		p.loaded = append(p.loaded, ps.dynamic...)
		if len(ps.dynamic) > 0 {
			p.grants = append(p.grants, grant{kind: grantRead, path: ldCachePath, from: "programs' loader", optional: true})
		}
	}
	paths(grantRead, c.read, "-allow-read")
	paths(grantWrite, c.write, "-allow-write")
	ports(c.connect, "-allow-connect")
	p.grants = append(p.grants, own.grants...)
	// time.Local's String loads the zone; a missing file means UTC.
	preloads := append([]preload{{what: "time zone", load: func() { _ = time.Local.String() }, reads: zoneFiles}}, own.preloads...)
	if relaunch {
		for _, pl := range preloads {
			for _, path := range pl.reads(getenv) {
				p.grants = append(p.grants, grant{kind: grantRead, path: path, from: pl.what + ": a relaunched image reads it itself", optional: true})
			}
		}
	} else {
		p.preloads = preloads
	}
	return p
}

// zoneFiles are the files the time package reads for the local zone
// (zoneinfo_unix.go, initLocal): $TZ's, else /etc/localtime; a zone named
// by $TZ in $ZONEINFO or the system's zone directories.
func zoneFiles(getenv func(string) string) []string {
	tz := strings.TrimPrefix(getenv("TZ"), ":")
	var files []string
	if zi := getenv("ZONEINFO"); zi != "" {
		files = append(files, zi)
	}
	switch {
	case tz == "":
		return append(files, "/etc/localtime")
	case filepath.IsAbs(tz):
		return append(files, tz)
	case tz == "UTC":
		return files
	}
	for _, dir := range []string{"/usr/share/zoneinfo", "/usr/share/lib/zoneinfo", "/usr/lib/locale/TZ", "/etc/zoneinfo"} {
		files = append(files, filepath.Join(dir, tz))
	}
	return files
}

// attrs are the plan's start-up log attributes: each kind of access, each
// entry with where it comes from, and what was preloaded.
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
		return cmp.Or(b.String(), "none")
	}
	var loaded []string
	for _, pl := range p.preloads {
		loaded = append(loaded, pl.what)
	}
	return []any{
		"read", list(grantRead), "write", list(grantWrite), "run", list(grantRun),
		"connect", list(grantConnect), "bind", "none (listeners are bound before)",
		"preloaded", cmp.Or(strings.Join(loaded, ", "), "none"),
	}
}

// confineRoute is how the process confines itself, decided once the flags
// are read (settleRoute) and before anything else is built.
type confineRoute uint8

// The routes.
const (
	routeNone      confineRoute = iota // confines nothing: -confine=off, or a go test binary
	routeInProcess                     // every thread at once, at the confiner (confine_linux.go)
	// routeRelaunch restricts one thread, then executes this binary again
	// from it, so that every thread of the new image starts restricted
	// (confine_relaunch_linux.go): for a binary that cannot restrict every
	// thread at once (relaunchReason).
	routeRelaunch
	// routeRelaunched is that new image: its confiner checks, from the
	// kernel, that it is confined, and refuses to serve if not.
	routeRelaunched
)

// settleRoute decides c.route: relaunched when a launcher handed this
// process over (c.handoff, whatever the mode: an unconfined process that
// claims to be relaunched refuses to serve); none under -confine=off or in
// a go test binary; else chooseRoute's.
func (c *confineConfig) settleRoute() {
	switch {
	case c.handoff != nil:
		c.route, c.relaunchWhy = routeRelaunched, c.handoff.why
	case c.mode == confineOff, testBinary():
		c.route = routeNone
	default:
		c.chooseRoute()
	}
}

// chooseRoute sets the route of a process that confines itself: a
// relaunch when relaunchReason gives one, else in process.
func (c *confineConfig) chooseRoute() {
	c.route, c.relaunchWhy = routeInProcess, relaunchReason()
	if c.relaunchWhy != "" {
		c.route = routeRelaunch
	}
}

// confiner returns the function the transport calls to confine the process
// once its listeners are bound, before the first message. It logs the plan
// and what is enforced, and fails only under -confine=required when the
// kernel cannot enforce all of it, on a named path it cannot open, or in a
// relaunched image not confined. getenv is for the confinetest seam and plan.
func (s *server) confiner(getenv func(string) string) func() error {
	return func() error {
		addConfineTestTools(s, getenv) // the confinetest build's (confine_seam.go)
		c := &s.confine
		switch c.route {
		case routeNone:
			if c.mode != confineOff {
				s.log.Warn("confinement skipped: a go test binary never confines itself (confine_linux_test.go confines a child)")
				return nil
			}
			s.log.Info("confinement off (-confine=off): the process may touch whatever its user may")
			if os.Getuid() == 0 {
				s.log.Warn("started as root, and -confine=off keeps every capability: run the server as a user")
			}
			return nil
		case routeRelaunch:
			return errors.New("confine: a process that must relaunch got to serving") // run relaunches before building the server
		}
		p := s.plan(c, s.http.ownNeeds(), getenv)
		for _, pl := range p.preloads {
			pl.load()
		}
		s.log.Info("confinement: what the process may touch once serving", p.attrs()...)
		confine := enforce
		if c.route == routeRelaunched {
			confine = checkRelaunched
		}
		rep, err := confine(&p, c, getenv)
		if err != nil {
			return err
		}
		if os.Getuid() == 0 {
			s.log.Warn("started as root: run the server as a user; without a capability, root still owns root's files (their metadata, and their contents where granted)")
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

// confineReport is what enforce did: what the kernel enforces, what it
// cannot (missing), what the plan leaves off (off), and what confinement
// never covers (gaps, listed so that the start-up line claims no more
// than holds: docs/SECURITY.md, "What it does not stop").
type confineReport struct {
	kernel   string // "Landlock ABI 7", "no Landlock (...)", "GOOS has no Landlock"
	threads  string // how every thread was reached
	enforced []string
	missing  []string
	off      []string
	gaps     []string
}

// attrs are the report's log attributes.
func (r *confineReport) attrs() []any {
	none := func(l []string) string { return cmp.Or(strings.Join(l, "; "), "none") }
	return []any{"kernel", r.kernel, "threads", r.threads, "enforced", none(r.enforced), "not_enforced", none(slices.Concat(r.missing, r.off, r.gaps))}
}

// testBinary reports whether the process is a go test binary, which never
// confines itself: Landlock cannot be undone, and later tests would run
// confined (TestConfinedChild confines a child). testing.Testing is set by
// the generated test main alone, not by a flag test.v any package can add.
func testBinary() bool { return testing.Testing() }

// printVersion is -version: the build, and with -v the plan and what this
// kernel enforces, worked out as at start-up without confining anything.
func printVersion(w io.Writer, cfg config, getenv func(string) string) error {
	if _, err := fmt.Fprintln(w, readBuild()); err != nil || !cfg.confine.verbose {
		return err
	}
	s := newServer(cfg, slog.New(slog.DiscardHandler))
	buildRegistry(s, getenv)() // and stop it: only its needs are read
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
		c.chooseRoute()
		p := s.plan(c, cfg.http.ownNeeds(), getenv)
		lines(p.attrs())
		rep := probe(&p, c, getenv)
		lines(rep.attrs())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// refusalText returns what the model reads when a tool's error is the
// system refusing a call (EACCES, EPERM): the tool's own words with the
// standard library's error, which names the path or address, cut to its
// operations and the system's message ("read notes: open: permission
// denied"). It reports false for any other error. docs/SECURITY.md says
// why; TestRefusalText pins the shapes.
func refusalText(err error) (string, bool) {
	var errno syscall.Errno
	if !errors.As(err, &errno) || (errno != syscall.EACCES && errno != syscall.EPERM) {
		return "", false
	}
	// The outermost standard-library error in the chain, and the
	// operations named from it down.
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
			// The errno, or a net error (known by Timeout, so that the
			// core links no net package): its address is left out.
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
