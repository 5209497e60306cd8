package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// usageText is what -h of a stdio build prints, cut to a few flags of each
// shape.
const usageText = `Usage of shouter:
  -access-log
    	write one line per request at info level (-access-log=false for silence) (default true)
  -allow-connect port
    	also let the confined process connect to TCP port on any host (repeatable)
  -allow-read path
    	also let the confined process read path (a file, or a directory and all beneath it; repeatable)
  -allow-write path
    	also let the confined process write, create and remove in path (a file, or a directory tree; implies reading it; repeatable)
  -state-key-file path
    	path of the secret (at least 32 bytes) that signs requestState; default $SHOUTER_STATE_KEY, else random per process
  -v	with -version: also print what the process may touch once confined
`

func TestParseUsage(t *testing.T) {
	flags := parseUsage(usageText)
	var names []string
	for _, f := range flags {
		names = append(names, f.name+"|"+f.arg)
	}
	if got, want := strings.Join(names, " "), "access-log| allow-connect|port allow-read|path allow-write|path state-key-file|path v|"; got != want {
		t.Errorf("parseUsage: flags %q, want %q", got, want)
	}
	if got := plainUsage(flags[0].usage); got != "write one line per request at info level (-access-log=false for silence)" {
		t.Errorf("plainUsage(%q) = %q", flags[0].usage, got)
	}
	if got := flags[5].usage; got != "with -version: also print what the process may touch once confined" {
		t.Errorf("-v usage %q", got)
	}
	env := envOf(flags)
	if len(env) != 1 || env[0].name != "SHOUTER_STATE_KEY" {
		t.Errorf("envOf = %v, want SHOUTER_STATE_KEY", env)
	}
}

// TestGrantPrompts: the bundles offer a prompt for each -allow-* flag the
// binary prints, passed as the flag and its value, and a grant flag the
// release tool does not know, or one it knows that the binary lacks,
// stops the release instead of making a manifest that disagrees with the
// binary.
func TestGrantPrompts(t *testing.T) {
	var grants []flagFact
	for _, f := range parseUsage(usageText) {
		if strings.HasPrefix(f.name, "allow-") {
			grants = append(grants, f)
		}
	}
	items, args, err := userConfig(grants)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(args, " "), "-allow-connect=${user_config.allow_connect} -allow-read=${user_config.allow_read} -allow-write=${user_config.allow_write}"; got != want {
		t.Errorf("args %q, want %q", got, want)
	}
	if got := strings.Join(items.keys, ","); got != "allow_connect,allow_read,allow_write" {
		t.Errorf("user_config keys %q", got)
	}
	if d := items.vals[1].Description; strings.Contains(d, "repeatable") || !strings.HasPrefix(d, "-allow-read: also let") {
		t.Errorf("allow_read description %q", d)
	}
	for _, tt := range []struct {
		name   string
		grants []flagFact
		want   string
	}{
		{"a new grant flag", append(grants, flagFact{name: "allow-run", arg: "path"}), "no prompt for"},
		{"a grant flag gone", grants[1:], "does not list"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := userConfig(tt.grants); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("userConfig = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestParseRepo(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"github.com/ada/shouter", "https://github.com/ada/shouter"},
		{"https://github.com/ada/shouter.git", "https://github.com/ada/shouter"},
		{"git@github.com:ada/shouter.git", "https://github.com/ada/shouter"},
		{"https://x-access-token:secret@github.com/ada/shouter.git", "https://github.com/ada/shouter"},
		{"gitlab.com/ada/shouter", "https://gitlab.com/ada/shouter"},
		{"example.com/shouter", ""},
		{"baremcp", ""},
	} {
		r, ok := parseRepo(tt.in)
		got := ""
		if ok {
			got = r.url()
		}
		if got != tt.want {
			t.Errorf("parseRepo(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestThisServer asks this checkout's own stdio build (../../..) what
// the manifests would say: its -h must parse, every grant flag it has
// must have a prompt (a flag added, renamed or removed in the server
// without its prompt here fails this test before it fails a release), and
// the manifests' facts must be the binary's.
func TestThisServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server")
	}
	bin := filepath.Join(t.TempDir(), "server")
	cmd := exec.Command("go", "build", "-tags", "stdio", "-o", bin, ".")
	cmd.Dir = filepath.Join("..", "..", "..")
	cmd.Env = append(cmd.Environ(), "CGO_ENABLED=0", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags stdio: %v\n%s", err, out)
	}
	f, err := askBinaries(bin, "")
	if err != nil {
		t.Fatal(err)
	}
	if f.name == "" || len(f.tools) == 0 {
		t.Errorf("askBinaries: name %q, tools %v", f.name, f.tools)
	}
	if len(f.grants) != len(grantPrompts) {
		t.Errorf("the server's grant flags %v, the prompts %d", f.grants, len(grantPrompts))
	}
	if _, _, err := userConfig(f.grants); err != nil {
		t.Error(err)
	}
	if len(f.stdioEnv) == 0 {
		t.Error("-h names no environment variable: the snippets' env would be empty")
	}
}
