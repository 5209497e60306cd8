// install.md: how to install the release in each client, from the same
// facts as the manifests (the name, the variables the server reads), so
// that README's copy of it (harness/release/check.sh compares them) cannot
// drift from the binary either.

package main

import (
	"fmt"
	"strings"
)

// installPath is where install.md puts the binary on Linux and macOS.
func installPath(name string) string { return "/usr/local/bin/" + name }

// stdioServer is the one entry every JSON snippet holds: the command, no
// arguments, and the variables the stdio build reads, empty.
type stdioServer struct {
	Type    string              `json:"type,omitempty"`
	Command string              `json:"command"`
	Args    []string            `json:"args"`
	Env     *orderedMap[string] `json:"env,omitempty"`
}

// install writes install.md.
func (w *writer) install(rel *release, f *facts) error {
	name, cmd := rel.server, installPath(rel.server)
	env := &orderedMap[string]{}
	var envFlags, codexFlags []string
	for _, e := range f.stdioEnv {
		env.add(e.name, "")
		envFlags = append(envFlags, "-e "+e.name+"=")
		codexFlags = append(codexFlags, "--env "+e.name+"=")
	}
	if len(f.stdioEnv) == 0 {
		env = nil
	}
	entry := func(typ string) stdioServer { return stdioServer{Type: typ, Command: cmd, Args: []string{}, Env: env} }
	servers := func(key, typ string) (string, error) {
		m := &orderedMap[stdioServer]{}
		m.add(name, entry(typ))
		top := &orderedMap[*orderedMap[stdioServer]]{}
		top.add(key, m)
		b, err := marshal(top)
		return strings.TrimSpace(string(b)), err
	}
	mcpJSON, err := servers("mcpServers", "stdio")
	if err != nil {
		return err
	}
	vscode, err := servers("servers", "stdio")
	if err != nil {
		return err
	}
	desktop, err := servers("mcpServers", "")
	if err != nil {
		return err
	}
	add := struct {
		Name string `json:"name"`
		stdioServer
	}{name, entry("stdio")}
	addJSON, err := compact(add)
	if err != nil {
		return err
	}
	var vars []string
	for _, e := range f.stdioEnv {
		vars = append(vars, "`"+e.name+"`")
	}
	sh := func(s ...string) string { return strings.Join(strings.Fields(strings.Join(s, " ")), " ") }
	stdio := name + "-stdio-" + rel.version + "-linux-amd64"
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("<!-- install.md of %s %s, written by harness/release/build.sh -->\n", name, rel.version)
	p("Download the stdio build for your system (`%s-stdio-%s-OS-ARCH`, `.exe` on Windows) and `SHA256SUMS`\n", name, rel.version)
	p("from the release, check it, and install it where clients can start it (here on Linux, amd64):\n\n")
	p("```sh\n")
	p("curl -LO %s\n", rel.repo.download(rel.tag, stdio))
	p("curl -LO %s\n", rel.repo.download(rel.tag, "SHA256SUMS"))
	p("sha256sum -c --ignore-missing SHA256SUMS\n")
	p("sudo install -m 755 %s %s\n", stdio, cmd)
	p("```\n\n")
	p("Claude Desktop, and any host that installs MCP Bundles, takes `%s` (your\n", bundleName(rel, "OS", "ARCH"))
	p("system's) instead, in one click: it asks for a folder the server may also read, one it may also\n")
	p("write and a port it may also connect to, each optional.\n\n")
	if len(vars) > 0 {
		p("Each snippet below sets %s, the environment the server reads (empty: unset); `getenv` in\n", strings.Join(vars, ", "))
		p("your registry reads the same environment, so your own variables go beside it. Grants go in the\n")
		p("arguments: `-allow-read DIR`, `-allow-write DIR`, `-allow-connect PORT`.\n\n")
	}
	p("Claude Code:\n\n```sh\n%s\n```\n\n", sh("claude mcp add", name, strings.Join(envFlags, " "), "--", cmd))
	p("`.mcp.json` (Claude Code, the project's servers):\n\n```json\n%s\n```\n\n", mcpJSON)
	p("`.vscode/mcp.json` (VS Code, the workspace's servers):\n\n```json\n%s\n```\n\n", vscode)
	p("VS Code, from the command line:\n\n```sh\ncode --add-mcp '%s'\n```\n\n", addJSON)
	p("`claude_desktop_config.json` (Claude Desktop, without the bundle):\n\n```json\n%s\n```\n\n", desktop)
	p("Codex:\n\n```sh\n%s\n```\n\n", sh("codex mcp add", name, strings.Join(codexFlags, " "), "--", cmd))
	p("The container image, from the release's `oci/` layout, runs the full server on stdio (arguments\n")
	p("after the image are its flags):\n\n")
	p("```sh\nskopeo copy --all oci:oci:%s docker://%s\ndocker run -i --rm %s\n```\n", rel.version, rel.image+":"+rel.version, rel.image+":"+rel.version)
	_, err = w.file("install.md", []byte(b.String()))
	return err
}
