// What the release is made from and called: the checkout's commit, module
// and toolchain (readCheckout), and the version, repository and names the
// artefacts carry (settle), each from the command line or else from git.

package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// checkout is what git and go say of the source.
type checkout struct {
	commit    string    // HEAD, 40 hex digits
	time      time.Time // HEAD's commit time, UTC: every timestamp of the release
	tag       string    // a vX.Y.Z tag on HEAD, or ""
	origin    string    // the origin remote's URL, or ""
	module    string    // the module path (go.mod)
	toolchain string    // `go version`: "go version go1.26.8 linux/amd64"
	goVersion string    // "go1.26.8"
}

// readCheckout reads dir's HEAD. It refuses uncommitted changes: the
// provenance names a commit, and the binaries must be built from it alone.
func readCheckout(dir string) (checkout, error) {
	var c checkout
	git := func(args ...string) (string, error) { return output(dir, nil, "git", args...) }
	status, err := git("status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return c, fmt.Errorf("%s is not a git checkout: %w", dir, err)
	}
	if status != "" {
		return c, fmt.Errorf("%s has uncommitted changes; commit them first (the release names its commit):\n%s", dir, status)
	}
	if c.commit, err = git("rev-parse", "HEAD"); err != nil {
		return c, err
	}
	ct, err := git("log", "-1", "--format=%ct", "HEAD")
	if err != nil {
		return c, err
	}
	secs, err := strconv.ParseInt(ct, 10, 64)
	if err != nil {
		return c, fmt.Errorf("commit time %q: %w", ct, err)
	}
	c.time = time.Unix(secs, 0).UTC()
	c.tag, _ = git("describe", "--tags", "--exact-match", "--match", "v[0-9]*", "HEAD")
	c.origin, _ = git("remote", "get-url", "origin")
	if c.module, err = output(dir, []string{"GOWORK=off"}, "go", "list", "-m"); err != nil {
		return c, err
	}
	if c.toolchain, err = output(dir, nil, "go", "version"); err != nil {
		return c, err
	}
	if f := strings.Fields(c.toolchain); len(f) >= 3 {
		c.goVersion = f[2]
	}
	return c, nil
}

// output runs name with args in dir (env added to the process's) and
// returns its standard output, trimmed.
func output(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// repository is where the release is published: a GitHub or GitLab
// project, the only hosts the MCP Registry takes bundles from.
type repository struct {
	host, owner, name string // "github.com", "ada", "shouter"
}

func (r repository) url() string { return "https://" + r.host + "/" + r.owner + "/" + r.name }

// source is server.json's repository.source: "github" or "gitlab".
func (r repository) source() string { return strings.TrimSuffix(r.host, ".com") }

// download is the URL of the release asset file of tag.
// [MCP Registry, MCPB packages]: https://github.com/modelcontextprotocol/registry/blob/main/docs/modelcontextprotocol-io/package-types.mdx
func (r repository) download(tag, file string) string {
	if r.host == "gitlab.com" {
		return r.url() + "/-/releases/" + tag + "/downloads/" + file
	}
	return r.url() + "/releases/download/" + tag + "/" + file
}

// blob is the URL of path at commit in the repository's web view.
func (r repository) blob(commit, path string) string {
	if r.host == "gitlab.com" {
		return r.url() + "/-/blob/" + commit + "/" + path
	}
	return r.url() + "/blob/" + commit + "/" + path
}

// repoForms are the ways a GitHub or GitLab project is written: a module
// path or host/owner/repo, an https URL (with credentials, as CI clones
// have them), an ssh remote.
var repoForms = regexp.MustCompile(`^(?:https://(?:[^@/]+@)?|ssh://git@|git@)?(github\.com|gitlab\.com)[/:]([A-Za-z0-9][A-Za-z0-9_.-]*)/([A-Za-z0-9_.-]+?)(?:\.git)?/?$`)

// parseRepo reads s in one of repoForms.
func parseRepo(s string) (repository, bool) {
	m := repoForms.FindStringSubmatch(s)
	if m == nil {
		return repository{}, false
	}
	return repository{m[1], m[2], m[3]}, true
}

// release is what the artefacts are called and where they will be.
type release struct {
	version      string // "1.2.3", no "v"
	tag          string // "v1.2.3"
	repo         repository
	registryName string // "io.github.ada/shouter"
	image        string // "ghcr.io/ada/shouter", no tag
	author       string
	server       string // the server's name, from the binary (name)
	commit       string // the checkout's HEAD
	opt          options
}

// semver is a version the bundles and the registry take: MAJOR.MINOR.PATCH,
// with an optional pre-release and build.
var semver = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// settle fills in what the command line left out from the checkout.
func settle(opt options, c checkout) (*release, error) {
	rel := &release{opt: opt, commit: c.commit}
	switch {
	case opt.version != "":
		rel.version = strings.TrimPrefix(opt.version, "v")
	case c.tag != "":
		rel.version = strings.TrimPrefix(c.tag, "v")
	default:
		// The go command's pseudo-version of an untagged commit.
		rel.version = "0.0.0-" + c.time.Format("20060102150405") + "-" + c.commit[:12]
	}
	if !semver.MatchString(rel.version) {
		return nil, fmt.Errorf("version %q is not MAJOR.MINOR.PATCH[-PRERELEASE]", rel.version)
	}
	rel.tag = "v" + rel.version
	var ok bool
	switch {
	case opt.repo != "":
		if rel.repo, ok = parseRepo(opt.repo); !ok {
			return nil, fmt.Errorf("-repo %q: want github.com/OWNER/REPO or gitlab.com/OWNER/REPO (the MCP Registry takes bundles from their releases only)", opt.repo)
		}
	default:
		if rel.repo, ok = parseRepo(c.origin); !ok {
			if rel.repo, ok = parseRepo(c.module); !ok {
				// The remote's URL is not quoted: it may hold a token.
				return nil, fmt.Errorf("cannot tell where the release is published: neither the origin remote nor the module path (%q) names a GitHub or GitLab project; name it with -repo github.com/OWNER/REPO", c.module)
			}
		}
	}
	rel.author = opt.author
	if rel.author == "" {
		rel.author = rel.repo.owner
	}
	return rel, nil
}

// name sets the names that follow the server's (f.name, the binary's own
// word): the registry name and the image, unless given.
func (rel *release) name(f *facts) error {
	rel.server = f.name
	owner := strings.ToLower(rel.repo.owner)
	rel.registryName = rel.opt.registryName
	if rel.registryName == "" {
		rel.registryName = "io." + rel.repo.source() + "." + rel.repo.owner + "/" + f.name
	}
	if !regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`).MatchString(rel.registryName) {
		return fmt.Errorf("registry name %q is not NAMESPACE/NAME (the MCP Registry's pattern)", rel.registryName)
	}
	rel.image = rel.opt.image
	if rel.image == "" {
		// GitHub's registry: one the MCP Registry takes images from
		// (GitLab's is not among them).
		rel.image = "ghcr.io/" + owner + "/" + f.name
	}
	return nil
}
