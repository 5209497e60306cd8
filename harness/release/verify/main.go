// Command verify checks a release made by harness/release/build.sh the
// way the MCP Registry and its clients would: server.json against the
// registry's own schema (the one its Go module embeds, validated with the
// JSON Schema library the registry uses, both pinned in go.mod), the
// registry's rules for mcpb and oci packages (those that need no network:
// the registry also fetches each file and image), every fileSha256
// against its file, and the OCI layout's image configs (the label that
// names the server, a user that is not root).
//
// Usage:
//
//	go run . -schema SCHEMA.json -release DIR
//
// SCHEMA.json is internal/validators/schemas/2025-12-11.json of the module
// github.com/modelcontextprotocol/registry (harness/release/check.sh finds
// it with go list -m). Prints PASS or FAIL per check and last "N passed,
// M failed"; exits 1 when one failed.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/registry/pkg/model"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

var passed, failed int

func check(name string, err error) {
	if err != nil {
		fmt.Printf("FAIL %s: %v\n", name, err)
		failed++
		return
	}
	fmt.Printf("PASS %s\n", name)
	passed++
}

func main() {
	schemaPath := flag.String("schema", "", "the registry's server.json schema")
	dir := flag.String("release", "", "the release folder")
	flag.Parse()
	if *schemaPath == "" || *dir == "" {
		fmt.Fprintln(os.Stderr, "usage: verify -schema SCHEMA.json -release DIR")
		os.Exit(2)
	}
	raw, err := os.ReadFile(filepath.Join(*dir, "server.json"))
	if err != nil {
		check("server.json", err)
		os.Exit(1)
	}
	var s serverJSON
	check("server.json against the registry's schema "+model.CurrentSchemaVersion, validate(*schemaPath, raw, &s))
	for _, p := range s.Packages {
		switch p.RegistryType {
		case model.RegistryTypeMCPB:
			check("mcpb "+p.Identifier+": the registry's rules", mcpbRules(p))
			check("mcpb "+path.Base(p.Identifier)+": fileSha256 matches the file", fileMatches(*dir, p))
		case model.RegistryTypeOCI:
			check("oci "+p.Identifier+": the registry's rules", ociRules(p))
			check("oci "+p.Identifier+": the layout holds it, labelled "+s.Name+", not root", layoutMatches(*dir, p, s.Name))
		default:
			check("package "+p.Identifier, fmt.Errorf("registryType %q is not one a release makes", p.RegistryType))
		}
	}
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}

// serverJSON is what the checks read of server.json.
type serverJSON struct {
	Schema   string    `json:"$schema"`
	Name     string    `json:"name"`
	Packages []pkgJSON `json:"packages"`
}

type pkgJSON struct {
	RegistryType    string `json:"registryType"`
	RegistryBaseURL string `json:"registryBaseUrl"`
	Identifier      string `json:"identifier"`
	Version         string `json:"version"`
	FileSHA256      string `json:"fileSha256"`
}

// validate checks raw against the schema at schemaPath, which must be the
// registry's current one, named by the file's $schema, and decodes it.
func validate(schemaPath string, raw []byte, s *serverJSON) error {
	schemaData, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var id struct {
		ID string `json:"$id"`
	}
	if err := json.Unmarshal(schemaData, &id); err != nil {
		return err
	}
	if id.ID != model.CurrentSchemaURL {
		return fmt.Errorf("the schema file is %s, the registry's current one %s", id.ID, model.CurrentSchemaURL)
	}
	if err := json.Unmarshal(raw, s); err != nil {
		return err
	}
	if s.Schema != model.CurrentSchemaURL {
		return fmt.Errorf("$schema is %q, the registry's current one %s", s.Schema, model.CurrentSchemaURL)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(id.ID, bytes.NewReader(schemaData)); err != nil {
		return err
	}
	schema, err := c.Compile(id.ID)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	return schema.Validate(v)
}

// githubRelease and gitlabRelease are the release asset paths the registry
// takes a bundle from.
var (
	githubRelease = regexp.MustCompile(`^/([a-zA-Z0-9]([a-zA-Z0-9\-]{0,37}[a-zA-Z0-9])?)/([a-zA-Z0-9._\-]+)/releases/download/([^/]+)/([^/]+)$`)
	gitlabRelease = regexp.MustCompile(`^/([a-zA-Z0-9._\-]+(?:/[a-zA-Z0-9._\-]+)*)/-/releases/([^/]+)/downloads/([^/]+)$`)
)

// mcpbRules are the registry's checks of an mcpb package short of
// fetching it: a fileSha256, no registryBaseUrl, an https release asset
// of GitHub or GitLab whose URL says "mcp".
func mcpbRules(p pkgJSON) error {
	u, err := url.Parse(p.Identifier)
	switch {
	case err != nil:
		return err
	case p.FileSHA256 == "":
		return fmt.Errorf("no fileSha256")
	case p.RegistryBaseURL != "":
		return fmt.Errorf("registryBaseUrl set")
	case u.Scheme != "https":
		return fmt.Errorf("not https")
	case !strings.Contains(strings.ToLower(p.Identifier), "mcp"):
		return fmt.Errorf("the URL does not contain mcp")
	case u.Host == "github.com" && !githubRelease.MatchString(u.Path),
		u.Host == "gitlab.com" && !gitlabRelease.MatchString(u.Path):
		return fmt.Errorf("not a release asset URL of %s", u.Host)
	case u.Host != "github.com" && u.Host != "gitlab.com":
		return fmt.Errorf("host %s: bundles come from GitHub or GitLab", u.Host)
	}
	return nil
}

// fileMatches checks that the release holds the bundle p names, with its
// fileSha256.
func fileMatches(dir string, p pkgJSON) error {
	data, err := os.ReadFile(filepath.Join(dir, path.Base(p.Identifier)))
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != p.FileSHA256 {
		return fmt.Errorf("file %s, fileSha256 %s", got, p.FileSHA256)
	}
	return nil
}

// ociRegistries are the registries the registry takes images from.
var ociRegistries = []string{"docker.io", "ghcr.io", "quay.io", "mcr.microsoft.com"}

// ociRules are the registry's checks of an oci package short of pulling
// it: a reference with a tag on an allowed registry, no version, no
// fileSha256, no registryBaseUrl.
func ociRules(p pkgJSON) error {
	host, _, _ := strings.Cut(p.Identifier, "/")
	allowed := strings.HasSuffix(host, ".pkg.dev") || strings.HasSuffix(host, ".azurecr.io")
	for _, r := range ociRegistries {
		allowed = allowed || host == r
	}
	switch {
	case p.Version != "" || p.FileSHA256 != "" || p.RegistryBaseURL != "":
		return fmt.Errorf("version, fileSha256 or registryBaseUrl set")
	case !allowed:
		return fmt.Errorf("registry %s is not one the MCP Registry takes", host)
	case !strings.Contains(path.Base(p.Identifier), ":"):
		return fmt.Errorf("no tag")
	}
	return nil
}

// layoutMatches checks the layout in dir/oci: its index tags an image
// index with the identifier's tag, every image of which is labelled with
// the server's name and runs as a user other than root.
func layoutMatches(dir string, p pkgJSON, name string) error {
	tag := p.Identifier[strings.LastIndex(p.Identifier, ":")+1:]
	type desc struct {
		MediaType   string            `json:"mediaType"`
		Digest      string            `json:"digest"`
		Annotations map[string]string `json:"annotations"`
	}
	var top, idx struct {
		Manifests []desc `json:"manifests"`
	}
	blob := func(d string, v any) error {
		data, err := os.ReadFile(filepath.Join(dir, "oci", "blobs", "sha256", strings.TrimPrefix(d, "sha256:")))
		if err != nil {
			return err
		}
		if sum := sha256.Sum256(data); "sha256:"+hex.EncodeToString(sum[:]) != d {
			return fmt.Errorf("blob %s does not hash to its name", d)
		}
		return json.Unmarshal(data, v)
	}
	data, err := os.ReadFile(filepath.Join(dir, "oci", "index.json"))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return err
	}
	i := slices.IndexFunc(top.Manifests, func(d desc) bool {
		return d.Annotations["org.opencontainers.image.ref.name"] == tag && d.MediaType == "application/vnd.oci.image.index.v1+json"
	})
	if i < 0 {
		return fmt.Errorf("index.json tags no image index %s: %s", tag, data)
	}
	if err := blob(top.Manifests[i].Digest, &idx); err != nil {
		return err
	}
	if len(idx.Manifests) == 0 {
		return fmt.Errorf("the image index lists no image")
	}
	for _, m := range idx.Manifests {
		var man struct {
			Config desc `json:"config"`
		}
		if err := blob(m.Digest, &man); err != nil {
			return err
		}
		var cfg struct {
			Config struct {
				User   string            `json:"User"`
				Labels map[string]string `json:"Labels"`
			} `json:"config"`
		}
		if err := blob(man.Config.Digest, &cfg); err != nil {
			return err
		}
		if got := cfg.Config.Labels["io.modelcontextprotocol.server.name"]; got != name {
			return fmt.Errorf("image %s: label io.modelcontextprotocol.server.name %q, server.json's name %q", m.Digest, got, name)
		}
		if u, _, _ := strings.Cut(cfg.Config.User, ":"); u == "" || u == "0" || u == "root" {
			return fmt.Errorf("image %s runs as %q", m.Digest, cfg.Config.User)
		}
	}
	return nil
}
