// Command mkrelease makes a release of the server in a git checkout (this
// project, or a copy made its own as README's "Make it yours" says):
// every artefact MCP hosts, the MCP Registry and auditors take, named after
// the server, from one commit, byte for byte the same wherever it runs.
// harness/release/build.sh runs it; README's "Release and install" says
// what each artefact is for.
//
// Usage:
//
//	mkrelease -src CHECKOUT -out DIR [-version 1.2.3] [-repo github.com/OWNER/REPO]
//	          [-registry-name io.github.OWNER/NAME] [-image ghcr.io/OWNER/NAME] [-author NAME]
//
// It builds, with CGO_ENABLED=0 -trimpath and the version linked in, the
// full server and the stdio build (-tags stdio) for linux, darwin and
// windows on amd64 and arm64, then asks the stdio and full binaries built
// for this machine what they are (-version, -h, server/discover and
// tools/list over stdio: facts.go), and writes from those answers alone:
//
//	NAME-VERSION-OS-ARCH[.exe]             the full server (HTTP and stdio)
//	NAME-stdio-VERSION-OS-ARCH[.exe]       the stdio build, what local agents launch
//	*.spdx.json                            an SPDX 2.3 SBOM per binary, from its build information (go version -m)
//	NAME-VERSION-OS-ARCH.mcpb              an MCP Bundle (manifest 0.3) of the stdio build, per OS and architecture
//	oci/                                   an OCI image layout: the full server FROM scratch, linux/amd64 and linux/arm64
//	server.json                            the MCP Registry entry (schema 2025-12-11): the bundles and the image
//	install.md                             how to install it in each client: claude, .mcp.json, VS Code, Claude Desktop, codex
//	provenance.intoto.json                 an in-toto statement (SLSA provenance v1): the commit, the toolchain, the flags
//	SHA256SUMS                             every file above (sha256sum -c SHA256SUMS)
//
// Nothing in DIR depends on the time, the machine's paths, the build
// cache or map order: timestamps are the commit's, archives list their
// entries in one order, JSON is written from structs.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

func main() {
	var opt options
	flag.StringVar(&opt.src, "src", ".", "the git checkout to release (its HEAD, which must be committed)")
	flag.StringVar(&opt.out, "out", "", "the folder to write the release in (created; must be empty if it exists)")
	flag.StringVar(&opt.version, "version", "", "the release's version, 1.2.3 (default: the tag vX.Y.Z on HEAD, else a Go pseudo-version of HEAD)")
	flag.StringVar(&opt.repo, "repo", "", "the repository the release is published from, github.com/OWNER/REPO or gitlab.com/OWNER/REPO (default: the origin remote, else the module path)")
	flag.StringVar(&opt.registryName, "registry-name", "", "the server's name in the MCP Registry (default: io.github.OWNER/NAME, io.gitlab.OWNER/NAME)")
	flag.StringVar(&opt.image, "image", "", "the OCI image's repository, without tag (default: ghcr.io/OWNER/NAME)")
	flag.StringVar(&opt.author, "author", "", "the bundles' author (default: OWNER)")
	flag.Parse()
	if opt.out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: mkrelease -src CHECKOUT -out DIR [-version V] [-repo HOST/OWNER/REPO] [-registry-name N] [-image REF] [-author NAME]")
		os.Exit(2)
	}
	if err := run(opt); err != nil {
		fmt.Fprintln(os.Stderr, "mkrelease:", err)
		os.Exit(1)
	}
}

// options are the command line.
type options struct {
	src, out, version, repo, registryName, image, author string
}

// run makes the release described by opt.
func run(opt options) error {
	src, err := filepath.Abs(opt.src)
	if err != nil {
		return err
	}
	if err := emptyDir(opt.out); err != nil {
		return err
	}
	c, err := readCheckout(src)
	if err != nil {
		return err
	}
	rel, err := settle(opt, c)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "mkrelease: %s %s from %s at %s (%s)\n", c.module, rel.version, rel.repo.url(), c.commit[:12], c.toolchain)
	bins, err := buildAll(src, opt.out, rel)
	if err != nil {
		return err
	}
	host := runtime.GOOS + "/" + runtime.GOARCH
	stdio, full := bins.find(host, "stdio"), bins.find(host, "full")
	if stdio.file == "" {
		return fmt.Errorf("no build runs on this machine (%s) to ask what the server is", host)
	}
	f, err := askBinaries(filepath.Join(opt.out, stdio.file), filepath.Join(opt.out, full.file))
	if err != nil {
		return err
	}
	if err := rel.name(f); err != nil {
		return err
	}
	if err := bins.rename(opt.out, f.name, rel.version); err != nil {
		return err
	}
	w := &writer{dir: opt.out, time: c.time}
	for _, b := range bins {
		if err := w.sbom(b, rel, c); err != nil {
			return err
		}
	}
	bundles, err := w.bundles(bins, rel, f)
	if err != nil {
		return err
	}
	img, err := w.oci(bins, rel, f)
	if err != nil {
		return err
	}
	if err := w.serverJSON(bundles, img, rel, f); err != nil {
		return err
	}
	if err := w.install(rel, f); err != nil {
		return err
	}
	if err := w.provenance(bins, rel, c); err != nil {
		return err
	}
	return w.sums()
}

// emptyDir creates dir, or checks that it is an empty folder: a release
// never mixes with what was there.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return err
	case len(entries) > 0:
		return fmt.Errorf("%s is not empty: a release goes in a folder of its own", dir)
	}
	return nil
}
