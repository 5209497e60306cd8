// The MCP Bundles: one .mcpb per OS and architecture (a manifest's
// overrides are per OS only), each a zip of manifest.json and the stdio
// build at server/NAME, the manifest made from the binary's own answers.
// [MCPB manifest 0.3]: https://github.com/modelcontextprotocol/mcpb/blob/main/MANIFEST.md

package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// mcpbManifest is manifest.json, version 0.3, in the order written.
type mcpbManifest struct {
	ManifestVersion string                    `json:"manifest_version"`
	Name            string                    `json:"name"`
	DisplayName     string                    `json:"display_name,omitempty"`
	Version         string                    `json:"version"`
	Description     string                    `json:"description"`
	LongDescription string                    `json:"long_description,omitempty"`
	Author          mcpbAuthor                `json:"author"`
	Repository      *mcpbRepository           `json:"repository,omitempty"`
	Homepage        string                    `json:"homepage,omitempty"`
	Server          mcpbServer                `json:"server"`
	Tools           []toolFact                `json:"tools,omitempty"`
	Compatibility   mcpbCompatibility         `json:"compatibility"`
	UserConfig      *orderedMap[mcpbUserItem] `json:"user_config,omitempty"`
}

type mcpbAuthor struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
}

type mcpbRepository struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

type mcpbServer struct {
	Type       string        `json:"type"`
	EntryPoint string        `json:"entry_point"`
	MCPConfig  mcpbMCPConfig `json:"mcp_config"`
}

type mcpbMCPConfig struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

type mcpbCompatibility struct {
	Platforms []string `json:"platforms"`
}

// mcpbUserItem is one install-time prompt.
type mcpbUserItem struct {
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
	Default     string `json:"default"`
}

// grantPrompt is how a bundle asks the user for one of the server's
// -allow-* grants: one value each, optional, default "". A host passes a
// prompt left empty as "", which the server takes as no grant (README's
// flags table), and a list only as separate arguments without the flag
// before each, which the flag set cannot read: so one directory, one
// port.
type grantPrompt struct {
	key, kind, title string
}

// grantPrompts are the prompts of the grants the server has. A grant flag
// without a prompt here (or a prompt without its flag) stops the release:
// the bundles would not offer what the binary takes (TestGrantPrompts).
var grantPrompts = map[string]grantPrompt{
	"allow-read":    {"allow_read", "directory", "A folder it may also read"},
	"allow-write":   {"allow_write", "directory", "A folder it may also write"},
	"allow-connect": {"allow_connect", "string", "A TCP port it may also connect to"},
}

// userConfig returns the prompts and the arguments that pass them, for
// the grant flags the binary prints in -h.
func userConfig(grants []flagFact) (*orderedMap[mcpbUserItem], []string, error) {
	items := &orderedMap[mcpbUserItem]{}
	var args []string
	seen := map[string]bool{}
	for _, g := range grants {
		p, ok := grantPrompts[g.name]
		if !ok {
			return nil, nil, fmt.Errorf("the server has the grant -%s, which the bundles have no prompt for: add it to grantPrompts (harness/release/mkrelease/bundle.go)", g.name)
		}
		seen[g.name] = true
		// One value per prompt: the flag's own words, less "repeatable".
		u := strings.NewReplacer("; repeatable)", ")", " (repeatable)", "").Replace(plainUsage(g.usage))
		items.add(p.key, mcpbUserItem{Type: p.kind, Title: p.title, Description: "-" + g.name + ": " + u + "; empty: none", Default: ""})
		// One argument, -flag=${...}: a host substitutes "" (a prompt
		// left empty) only inside a string; "${...}" alone, it passes on
		// the unsubstituted text (TestGrantPrompts; harness/release's
		// bundles.mjs starts each bundle as a host does).
		args = append(args, "-"+g.name+"=${user_config."+p.key+"}")
	}
	for name := range grantPrompts {
		if !seen[name] {
			return nil, nil, fmt.Errorf("the bundles have a prompt for -%s, which the server's -h does not list: remove it from grantPrompts (harness/release/mkrelease/bundle.go)", name)
		}
	}
	return items, args, nil
}

// platform is the MCPB name of a GOOS.
func platform(goos string) string {
	if goos == "windows" {
		return "win32"
	}
	return goos
}

// bundle is a written .mcpb.
type bundle struct {
	goos, goarch, file, sha256 string
}

// bundleName is the .mcpb of a target; ".mcpb" also puts "mcp" in its
// URL, which the MCP Registry requires of a bundle's.
func bundleName(rel *release, goos, goarch string) string {
	return rel.server + "-" + rel.version + "-" + goos + "-" + goarch + ".mcpb"
}

// description is the server's description, else a sentence made of its
// name and tools, at most 100 characters (the registry's bound).
func (f *facts) summary() string {
	d := f.description
	if d == "" {
		var names []string
		for _, t := range f.tools {
			names = append(names, t.Name)
		}
		d = f.name + ", an MCP server"
		if len(names) > 0 {
			d += " with the tools " + strings.Join(names, ", ")
		}
	}
	if len(d) > 100 {
		d = d[:97] + "..."
	}
	return d
}

// bundles writes a bundle of the stdio build for every target.
func (w *writer) bundles(bins binaries, rel *release, f *facts) ([]bundle, error) {
	items, args, err := userConfig(f.grants)
	if err != nil {
		return nil, err
	}
	var out []bundle
	for _, t := range targets {
		b := bins.find(t.goos+"/"+t.goarch, "stdio")
		entry := "server/" + exe(rel.server, t.goos)
		m := mcpbManifest{
			ManifestVersion: "0.3",
			Name:            rel.server,
			DisplayName:     f.title,
			Version:         rel.version,
			Description:     f.summary(),
			LongDescription: f.instructions,
			Author:          mcpbAuthor{Name: rel.author, URL: "https://" + rel.repo.host + "/" + rel.repo.owner},
			Repository:      &mcpbRepository{"git", rel.repo.url()},
			Homepage:        f.websiteURL,
			Server: mcpbServer{
				Type:       "binary",
				EntryPoint: entry,
				MCPConfig:  mcpbMCPConfig{Command: "${__dirname}/" + entry, Args: args},
			},
			Tools:         f.tools,
			Compatibility: mcpbCompatibility{Platforms: []string{platform(t.goos)}},
			UserConfig:    items,
		}
		manifest, err := marshal(m)
		if err != nil {
			return nil, err
		}
		exe, err := os.ReadFile(filepath.Join(w.dir, b.file))
		if err != nil {
			return nil, err
		}
		data, err := w.zip([]zipEntry{{"manifest.json", 0o644, manifest}, {entry, 0o755, exe}})
		if err != nil {
			return nil, err
		}
		name := bundleName(rel, t.goos, t.goarch)
		sum, err := w.file(name, data)
		if err != nil {
			return nil, err
		}
		out = append(out, bundle{t.goos, t.goarch, name, sum})
	}
	return out, nil
}

// zipEntry is one file of a zip.
type zipEntry struct {
	name string
	mode os.FileMode
	data []byte
}

// zip returns a zip of entries, in their order, each deflated, dated w.time
// and with its Unix mode (hosts restore the binary's execute bit from it).
// No directory entries: hosts create folders from the files' paths.
func (w *writer) zip(entries []zipEntry) ([]byte, error) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: w.time}
		h.SetMode(e.mode)
		f, err := z.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := f.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
