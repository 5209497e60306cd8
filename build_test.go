// Tests of the builds: the stdio build (go build -tags stdio) links none
// of the HTTP wing's packages and knows none of its flags, as net/http's
// TestOmitHTTP2Vet holds its own omission.

package main

import (
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// stdioForbidden are the packages the stdio build must not link: the
// HTTP stack, TLS and certificates, the public-key algorithms only OAuth's
// token verification needs, and net itself (a stdio server opens no
// socket of its own, and without net no build links cgo, which would keep
// self-confinement from reaching every thread).
var stdioForbidden = []string{"net", "net/http", "crypto/tls", "crypto/x509", "crypto/rsa", "crypto/ecdsa"}

// goTool returns the go command that runs this test.
func goTool(tb testing.TB) string {
	tb.Helper()
	name := "go"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if p := filepath.Join(runtime.GOROOT(), "bin", name); fileExists(p) {
		return p
	}
	p, err := exec.LookPath("go")
	if err != nil {
		tb.Fatalf("no go command to list the build's packages: %v", err)
	}
	return p
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestStdioBuildDeps lists the packages the stdio build links and fails
// on any of stdioForbidden, for every registry build the stdio build may
// be combined with. The full build is checked to link them, so that the
// list keeps meaning something.
func TestStdioBuildDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the go command")
	}
	deps := func(tags string) []string {
		out, err := exec.Command(goTool(t), "list", "-deps", "-tags", tags, ".").Output()
		if err != nil {
			t.Fatalf("go list -deps -tags %q .: %v", tags, err)
		}
		return strings.Fields(string(out))
	}
	for _, tags := range []string{"stdio", "stdio,demo", "stdio,conformance"} {
		t.Run(tags, func(t *testing.T) {
			got := deps(tags)
			for _, pkg := range stdioForbidden {
				if slices.Contains(got, pkg) {
					t.Errorf("go build -tags %s links %s", tags, pkg)
				}
			}
		})
	}
	t.Run("a file's name says its build", func(t *testing.T) {
		// The HTTP wing is httpsse*.go (the transport) and *_http.go (another
		// root's HTTP part, an OS suffix after it): the stdio build's files
		// are the others, stdio_build.go and its stand-ins included. A test
		// named so is the wing's too (others may leave the stdio build for
		// reasons of their own: confine_linux_test.go).
		files := func(tags, list string) []string {
			out, err := exec.Command(goTool(t), "list", "-tags", tags, "-f", "{{join ."+list+" \" \"}}", ".").Output()
			if err != nil {
				t.Fatalf("go list -tags %q .: %v", tags, err)
			}
			return strings.Fields(string(out))
		}
		for _, list := range []string{"GoFiles", "TestGoFiles"} {
			stdio := files("stdio", list)
			for _, f := range files("", list) {
				named := httpWingFile(f)
				if in := slices.Contains(stdio, f); in == named && (named || list == "GoFiles") {
					t.Errorf("%s: in the stdio build %v, but its name says %v", f, in, !named)
				}
			}
		}
	})
	t.Run("full build", func(t *testing.T) {
		got := deps("")
		for _, pkg := range stdioForbidden {
			if !slices.Contains(got, pkg) {
				t.Errorf("the full build does not link %s: the stdio build's list is out of date", pkg)
			}
		}
	})
}

// TestStdioBuildKnowsNoHTTPFlag: the flags the full build has and the
// stdio build lacks are exactly the HTTP wing's (httpFlags); this build
// refuses each of them as undefined, or, in the full build, registers them.
func TestStdioBuildKnowsNoHTTPFlag(t *testing.T) {
	wing := flag.NewFlagSet("wing", flag.ContinueOnError)
	httpFlags(wing, &config{})
	var names []string
	wing.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if hasHTTPWing != (len(names) > 0) {
		t.Fatalf("hasHTTPWing %v, but httpFlags registers %q", hasHTTPWing, names)
	}
	for _, name := range names {
		_, err := parseFlags([]string{"-" + name + "=1"}, io.Discard, func(string) string { return "" })
		if err != nil && strings.Contains(err.Error(), "flag provided but not defined") {
			t.Errorf("-%s: %v, want it registered in the full build", name, err)
		}
	}
	if !hasHTTPWing {
		for _, name := range []string{"http", "metrics", "token-file", "oauth-issuer", "max-connections", "replica-id", "shutdown-timeout"} {
			_, err := parseFlags([]string{"-" + name + "=x"}, io.Discard, func(string) string { return "" })
			if err == nil || !strings.Contains(err.Error(), "flag provided but not defined: -"+name) {
				t.Errorf("-%s in the stdio build: %v, want it undefined", name, err)
			}
		}
	}
}

// httpWingFile reports whether a file's name says it belongs to the HTTP
// wing alone (//go:build !stdio): httpsse*.go, or a part named *_http
// (before _test, before an OS suffix).
func httpWingFile(name string) bool {
	base := strings.TrimSuffix(strings.TrimSuffix(name, ".go"), "_test")
	for _, os := range []string{"_linux", "_other"} {
		base = strings.TrimSuffix(base, os)
	}
	return strings.HasPrefix(base, "httpsse") || strings.HasSuffix(base, "_http")
}
