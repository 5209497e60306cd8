// Tests of the operator's secrets (secrets.go): where the requestState key
// and the bearer token come from, binary keys kept byte for byte, short
// tokens refused, secret files others may read warned about, and the
// secret variables taken out of the environment. Issue 20, finding 3.

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// mustWriteFile writes data to a new file in dir with mode perm and
// returns its path.
func mustWriteFile(tb testing.TB, dir, name string, data []byte, perm os.FileMode) string {
	tb.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, perm); err != nil {
		tb.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil { // WriteFile's mode is masked by the umask
		tb.Fatal(err)
	}
	return path
}

// envOf is a getenv holding vars.
func envOf(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

// testToken is a bearer token long and random enough to be accepted:
// 32 hex digits drawn at random (openssl rand -hex 16).
const testToken = "9f3a1c7e4b2d8065f1e9c3a7b5d20486"

// TestLoadStateKey checks where the requestState secret comes from, and
// that a binary key file is the key byte for byte: a random 32-byte key
// whose first or last byte is white space (about 5 % of them) was trimmed
// and then refused as short.
func TestLoadStateKey(t *testing.T) {
	dir := t.TempDir()
	binary := append([]byte{'\n', 0x00, 0xff}, bytes.Repeat([]byte{0x9c}, 28)...)
	binary = append(binary, ' ') // 32 bytes, white space at both ends
	for _, tt := range []struct {
		name, path, env string
		want            []byte
		wantErr         string
	}{
		{"none: random", "", "", nil, ""},
		{"text file, newline trimmed", mustWriteFile(t, dir, "text", append(append([]byte{}, testStateKey...), '\n'), 0o600), "", testStateKey, ""},
		{"binary file, byte for byte", mustWriteFile(t, dir, "binary", binary, 0o600), "", binary, ""},
		{"file wins over env", mustWriteFile(t, dir, "wins", testStateKey, 0o600), "ignored-ignored-ignored-ignored-ignored", testStateKey, ""},
		{"env, white space trimmed", "", " " + string(testStateKey) + "\n", testStateKey, ""},
		{"short file", mustWriteFile(t, dir, "short", []byte("short"), 0o600), "", nil, "-state-key-file: the requestState secret must be at least 32 bytes"},
		{"short binary file", mustWriteFile(t, dir, "shortbin", binary[:31], 0o600), "", nil, "-state-key-file: the requestState secret must be at least 32 bytes"},
		{"short env", "", "short", nil, envStateKey + ": the requestState secret must be at least 32 bytes"},
		{"missing file", filepath.Join(dir, "nope"), "", nil, "-state-key-file: open"},
		{"huge file", mustWriteFile(t, dir, "huge", bytes.Repeat([]byte("k"), maxSecretFileBytes+1), 0o600), "", nil, "is larger than 65536 bytes: not a secret file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			key, err := loadStateKey(tt.path, envOf(map[string]string{envStateKey: tt.env}), func(string, ...any) {})
			if !bytes.Equal(key, tt.want) || (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("loadStateKey(%q) = %q, %v; want %q, error %q", tt.path, key, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestSecretFileWarnings checks that a secret file other users may read
// or write starts the server with a warning naming the file, and a file
// only its owner can read starts it silently. Windows has no Unix
// permissions to read (readSecretFile): there every file starts it
// silently.
func TestSecretFileWarnings(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		args []string
		warn string // "" means no warning about a secret file
	}{
		{"token file 0600", []string{"-http", "127.0.0.1:0", "-token-file", mustWriteFile(t, dir, "t600", []byte(testToken), 0o600)}, ""},
		{"token file 0644", []string{"-http", "127.0.0.1:0", "-token-file", mustWriteFile(t, dir, "t644", []byte(testToken), 0o644)}, "flag=-token-file path=" + filepath.Join(dir, "t644") + " mode=0644"},
		{"token file 0640", []string{"-http", "127.0.0.1:0", "-token-file", mustWriteFile(t, dir, "t640", []byte(testToken), 0o640)}, "mode=0640"},
		{"token file 0620", []string{"-http", "127.0.0.1:0", "-token-file", mustWriteFile(t, dir, "t620", []byte(testToken), 0o620)}, "mode=0620"},
		{"key file 0400", []string{"-state-key-file", mustWriteFile(t, dir, "k400", testStateKey, 0o400)}, ""},
		{"key file 0604", []string{"-state-key-file", mustWriteFile(t, dir, "k604", testStateKey, 0o604)}, "flag=-state-key-file path=" + filepath.Join(dir, "k604") + " mode=0604"},
	} {
		if runtime.GOOS == "windows" {
			tt.warn = ""
		}
		t.Run(tt.name, func(t *testing.T) {
			skipFlagsOfTheHTTPWing(t, tt.args)
			ctx, cancel := context.WithCancel(t.Context())
			cancel() // start, log, and stop at once
			logs := &syncBuffer{}
			if err := run(ctx, tt.args, strings.NewReader(""), io.Discard, logs, envOf(nil)); err != nil {
				t.Fatalf("run(%q) = %v", tt.args, err)
			}
			got := logs.String()
			const msg = `msg="secret file is accessible to users other than its owner; chmod 600 it"`
			switch {
			case tt.warn == "" && strings.Contains(got, msg):
				t.Errorf("run(%q) warned: %s", tt.args, got)
			case tt.warn != "" && !(strings.Contains(got, msg) && strings.Contains(got, tt.warn)):
				t.Errorf("run(%q) log = %s\nwant a warning with %q", tt.args, got, tt.warn)
			}
		})
	}
}

// TestTakeSecrets checks that the secret variables leave the environment
// when the process starts and are still served to run, and that other
// variables pass through.
func TestTakeSecrets(t *testing.T) {
	env := map[string]string{envToken: testToken, envStateKey: string(testStateKey), "HOME": "/home/x"}
	getenv := takeSecrets(envOf(env), func(name string) error { delete(env, name); return nil })
	if _, ok := env[envToken]; ok {
		t.Errorf("%s is still in the environment", envToken)
	}
	if _, ok := env[envStateKey]; ok {
		t.Errorf("%s is still in the environment", envStateKey)
	}
	if getenv(envToken) != testToken || getenv(envStateKey) != string(testStateKey) || getenv("HOME") != "/home/x" {
		t.Errorf("getenv = %q %q %q", getenv(envToken), getenv(envStateKey), getenv("HOME"))
	}
}

// TestTakeSecretsFromProcess checks takeSecrets as main calls it, on the
// real process environment: after it, os.Getenv and os.Environ (what a
// child process inherits) no longer hold the secrets.
func TestTakeSecretsFromProcess(t *testing.T) {
	t.Setenv(envToken, testToken)
	t.Setenv(envStateKey, string(testStateKey))
	getenv := takeSecrets(os.Getenv, os.Unsetenv)
	for _, name := range secretEnv {
		if _, ok := os.LookupEnv(name); ok {
			t.Errorf("%s is still in the process environment", name)
		}
		for _, kv := range os.Environ() {
			if strings.HasPrefix(kv, name+"=") {
				t.Errorf("os.Environ holds %s", name)
			}
		}
	}
	if getenv(envToken) != testToken || getenv(envStateKey) != string(testStateKey) {
		t.Errorf("run's getenv lost the secrets: %q %q", getenv(envToken), getenv(envStateKey))
	}
}

// TestSecretEnvName: the secret variables are named after the server, so
// a renamed server neither reads nor asks for baremcp's.
func TestSecretEnvName(t *testing.T) {
	for _, tt := range []struct{ name, what, want string }{
		{"baremcp", "TOKEN", "BAREMCP_TOKEN"},
		{"baremcp", "STATE_KEY", "BAREMCP_STATE_KEY"},
		{"shouter", "STATE_KEY", "SHOUTER_STATE_KEY"},
		{"my-server.v2", "TOKEN", "MY_SERVER_V2_TOKEN"},
		{"2fa", "TOKEN", "_2FA_TOKEN"},
		{"café", "TOKEN", "CAF__TOKEN"},
	} {
		if got := secretEnvName(tt.name, tt.what); got != tt.want {
			t.Errorf("secretEnvName(%q, %q) = %q, want %q", tt.name, tt.what, got, tt.want)
		}
	}
	if serverName == "baremcp" && (envToken != "BAREMCP_TOKEN" || envStateKey != "BAREMCP_STATE_KEY") {
		t.Errorf("baremcp reads %s and %s, want BAREMCP_TOKEN and BAREMCP_STATE_KEY (README, docs/OPERATIONS.md)", envToken, envStateKey)
	}
}

// TestSecretFileHandedOver: a relaunched process takes a secret file as
// its launcher read it (handoff), never the path, which it may not read
// once confined; the permission warning comes with it.
func TestSecretFileHandedOver(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone")
	var warned []string
	warn := func(msg string, args ...any) { warned = append(warned, msg) }
	getenv := envOf(map[string]string{secretFileKey("-state-key-file"): handedSecretFile(0o644, []byte("k\x00y"))})
	b, err := readSecretFile("-state-key-file", missing, getenv, warn)
	if err != nil || string(b) != "k\x00y" {
		t.Errorf("readSecretFile with a handed-over file = %q, %v; want its content", b, err)
	}
	if len(warned) != 1 {
		t.Errorf("a handed-over file readable by others warned %q, want once", warned)
	}
	for _, bad := range []string{"644", "9:x", ":x", "600:" + strings.Repeat("x", maxSecretFileBytes+1)} {
		getenv := envOf(map[string]string{secretFileKey("-token-file"): bad})
		if _, err := readSecretFile("-token-file", missing, getenv, warn); err == nil || !strings.Contains(err.Error(), "malformed") {
			t.Errorf("readSecretFile with a handed-over %.12q = %v, want it refused as malformed", bad, err)
		}
	}
}
