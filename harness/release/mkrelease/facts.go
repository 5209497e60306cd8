// What the server says of itself, asked of the binaries the release ships
// through what every build already answers (-version, -h, and over stdio
// server/discover and tools/list), so that no manifest can say anything
// the binary does not: the product carries no flag or file for releases.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"time"
)

// facts are the binaries' answers.
type facts struct {
	name, version                  string // serverInfo, and -version's first words
	title, description, websiteURL string // serverInfo (describe)
	instructions                   string // server/discover
	tools                          []toolFact
	grants                         []flagFact // the stdio build's -allow-* flags, in -h order
	stdioEnv, fullEnv              []envFact  // the variables each build's -h names
}

// toolFact is a tool as tools/list shows it.
type toolFact struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
}

// flagFact is one flag as -h prints it.
type flagFact struct {
	name, arg, usage string // "allow-read", "path", "also let ... (repeatable)"
}

// envFact is an environment variable a build reads, and the flag whose
// usage names it (the variable stands in for that flag).
type envFact struct {
	name, flag, usage string
}

// describe says what the variable is, in its flag's words.
func (e envFact) describe() string {
	return "read when -" + e.flag + " is not given (-" + e.flag + ": " + e.usage + ")"
}

// askTimeout bounds each question: the binary answers in milliseconds.
const askTimeout = 30 * time.Second

// askBinaries asks the stdio build (and the full one, for the variables
// only it reads) what the server is.
func askBinaries(stdio, full string) (*facts, error) {
	f := &facts{}
	line, err := ask(stdio, nil, "-version")
	if err != nil {
		return nil, err
	}
	words := strings.Fields(line)
	if len(words) < 2 {
		return nil, fmt.Errorf("%s -version: %q", stdio, line)
	}
	f.name, f.version = words[0], words[1]
	flags, err := usage(stdio)
	if err != nil {
		return nil, err
	}
	for _, fl := range flags {
		if strings.HasPrefix(fl.name, "allow-") {
			f.grants = append(f.grants, fl)
		}
	}
	f.stdioEnv = envOf(flags)
	if full != "" {
		fullFlags, err := usage(full)
		if err != nil {
			return nil, err
		}
		f.fullEnv = envOf(fullFlags)
	}
	if err := f.askStdio(stdio); err != nil {
		return nil, err
	}
	return f, nil
}

// ask runs bin with args, stdin as given, and returns its standard output
// (or, with no output, its standard error: -h writes there).
func ask(bin string, stdin []byte, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), askTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", bin, strings.Join(args, " "), err, stderr.String())
	}
	if stdout.Len() == 0 {
		return stderr.String(), nil
	}
	return strings.TrimSpace(stdout.String()), nil
}

// usage returns bin's flags as -h prints them.
func usage(bin string) ([]flagFact, error) {
	text, err := ask(bin, nil, "-h")
	if err != nil {
		return nil, err
	}
	flags := parseUsage(text)
	if len(flags) == 0 {
		return nil, fmt.Errorf("%s -h printed no flag: %q", bin, text)
	}
	return flags, nil
}

// parseUsage reads the flag package's PrintDefaults: "  -name arg" (or
// "  -name\tusage" for a boolean with a short usage), then the usage on
// lines that start with four spaces and a tab. TestParseUsage.
func parseUsage(text string) []flagFact {
	var flags []flagFact
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "  -"):
			head := line[3:]
			if i := strings.IndexAny(head, " \t"); i >= 0 && head[i] == '\t' {
				flags = append(flags, flagFact{name: head[:i], usage: head[i+1:]})
				break
			}
			name, arg, _ := strings.Cut(head, " ")
			flags = append(flags, flagFact{name: name, arg: strings.TrimSpace(arg)})
		case strings.HasPrefix(line, "    \t") && len(flags) > 0:
			fl := &flags[len(flags)-1]
			fl.usage = strings.TrimSpace(fl.usage + "\n" + line[5:])
		}
	}
	return flags
}

// defaultSuffix is what PrintDefaults adds to a usage.
var defaultSuffix = regexp.MustCompile(` \(default [^)]*\)$`)

// plainUsage is a flag's usage without its default.
func plainUsage(u string) string { return defaultSuffix.ReplaceAllString(u, "") }

// envVar matches a variable a usage names: "$SHOUTER_STATE_KEY".
var envVar = regexp.MustCompile(`\$([A-Z_][A-Z0-9_]*)`)

// envOf returns the variables the flags' usages name, in -h order.
func envOf(flags []flagFact) []envFact {
	var env []envFact
	for _, fl := range flags {
		for _, m := range envVar.FindAllStringSubmatch(fl.usage, -1) {
			if !slices.ContainsFunc(env, func(e envFact) bool { return e.name == m[1] }) {
				env = append(env, envFact{m[1], fl.name, plainUsage(fl.usage)})
			}
		}
	}
	return env
}

// modernMeta is the _meta of a modern request.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// askStdio asks bin over stdio, as a host would, for server/discover and
// tools/list, and keeps what the manifests say.
func (f *facts) askStdio(bin string) error {
	in := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + modernMeta + `}}` + "\n"
	out, err := ask(bin, []byte(in))
	if err != nil {
		return err
	}
	type info struct {
		Name        string `json:"name"`
		Version     string `json:"version"`
		Title       string `json:"title"`
		Description string `json:"description"`
		WebsiteURL  string `json:"websiteUrl"`
	}
	var discover struct {
		Instructions string `json:"instructions"`
		Meta         struct {
			Info info `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
	var list struct {
		Tools      []toolFact `json:"tools"`
		NextCursor *string    `json:"nextCursor"`
	}
	got := 0
	for line := range strings.Lines(out) {
		var msg struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			return fmt.Errorf("%s: a line that is not JSON: %q", bin, line)
		}
		if msg.Error != nil {
			return fmt.Errorf("%s: request %d: %s", bin, msg.ID, msg.Error)
		}
		var dst any = &discover
		if msg.ID == 2 {
			dst = &list
		}
		if err := json.Unmarshal(msg.Result, dst); err != nil {
			return fmt.Errorf("%s: request %d: %w", bin, msg.ID, err)
		}
		got++
	}
	switch {
	case got != 2:
		return fmt.Errorf("%s answered %d of server/discover and tools/list: %q", bin, got, out)
	case discover.Meta.Info.Name != f.name:
		return fmt.Errorf("%s: serverInfo.name %q, but -version says %q", bin, discover.Meta.Info.Name, f.name)
	case list.NextCursor != nil:
		return errors.New("tools/list has more than one page: the bundles list every tool, so release with the default -page-size")
	}
	i := discover.Meta.Info
	f.title, f.description, f.websiteURL = i.Title, i.Description, i.WebsiteURL
	f.instructions = discover.Instructions
	f.tools = list.Tools
	return nil
}
