// The builds: both builds of the server for every target, as README's
// release command builds one, with the environment pinned so that two
// machines with one toolchain write the same bytes.

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// targets are the systems a release is built for, in the order every
// list of the release follows.
var targets = []struct{ goos, goarch string }{
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"linux", "amd64"}, {"linux", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// builds are the two builds of the server: the full one, and the stdio
// one local agents launch (README, "Builds").
var builds = []struct{ name, tags string }{
	{"full", ""},
	{"stdio", "stdio"},
}

// buildEnv is the environment of every build beside GOOS and GOARCH: no
// cgo (a static binary that can confine every thread), the commit stamped
// (VCS stamping), no go.work of a parent folder, and each architecture's
// baseline level, whatever the caller's environment says.
var buildEnv = []string{"CGO_ENABLED=0", "GOFLAGS=-buildvcs=true", "GOWORK=off", "GOAMD64=v1", "GOARM64=v8.0"}

// binary is one built executable.
type binary struct {
	goos, goarch, build string
	file                string // its name in the release folder
	sha256              string
	size                int64
}

func (b binary) target() string { return b.goos + "/" + b.goarch }

// exe is the binary's name once installed: the server's name, with .exe
// on Windows, where clients start only programs so named.
func exe(name, goos string) string {
	if goos == "windows" {
		return name + ".exe"
	}
	return name
}

// buildArgs is the go build command line of a build with version linked
// in, writing out: README's release command.
func buildArgs(tags, version, out string) []string {
	args := []string{"build", "-trimpath", "-ldflags=-s -w -X main.linkedVersion=v" + version}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	return append(args, "-o", out, ".")
}

// binaries are the builds of a release, in targets × builds order.
type binaries []binary

// find returns the build of target, or a zero binary.
func (bs binaries) find(target, build string) binary {
	for _, b := range bs {
		if b.target() == target && b.build == build {
			return b
		}
	}
	return binary{}
}

// buildAll builds every target of both builds into out, two at a time
// (the go command uses every core within one build; two keep the linker,
// which does not, from idling them). Their names are provisional until
// the binary itself says its name (rename).
func buildAll(src, out string, rel *release) (binaries, error) {
	var bins binaries
	for _, t := range targets {
		for _, b := range builds {
			name := "build-" + b.name + "-" + t.goos + "-" + t.goarch
			bins = append(bins, binary{goos: t.goos, goarch: t.goarch, build: b.name, file: exe(name, t.goos)})
		}
	}
	errs := make([]error, len(bins))
	var wg sync.WaitGroup
	slots := make(chan struct{}, 2)
	for i := range bins {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			b := &bins[i]
			tags := ""
			if b.build == "stdio" {
				tags = "stdio"
			}
			out, err := filepath.Abs(filepath.Join(out, b.file))
			if err != nil {
				errs[i] = err
				return
			}
			cmd := exec.Command("go", buildArgs(tags, rel.version, out)...)
			cmd.Dir = src
			cmd.Env = append(cmd.Environ(), append([]string{"GOOS=" + b.goos, "GOARCH=" + b.goarch}, buildEnv...)...)
			if msg, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("go build %s (%s): %w\n%s", b.target(), b.build, err, msg)
				return
			}
			fmt.Fprintf(os.Stderr, "mkrelease: built %s\n", b.file)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for i := range bins {
		sum, size, err := fileSHA256(filepath.Join(out, bins[i].file))
		if err != nil {
			return nil, err
		}
		bins[i].sha256, bins[i].size = sum, size
	}
	return bins, nil
}

// rename gives each binary in out its release name: NAME-VERSION-OS-ARCH
// for the full build, NAME-stdio-VERSION-OS-ARCH for the stdio build,
// .exe on Windows.
func (bs binaries) rename(out, name, version string) error {
	for i, b := range bs {
		file := name + "-" + version + "-" + b.goos + "-" + b.goarch
		if b.build == "stdio" {
			file = name + "-stdio-" + version + "-" + b.goos + "-" + b.goarch
		}
		file = exe(file, b.goos)
		if err := os.Rename(filepath.Join(out, b.file), filepath.Join(out, file)); err != nil {
			return err
		}
		bs[i].file = file
	}
	return nil
}
