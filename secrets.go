// The operator's secrets: the bearer token (-token-file, envToken) and the requestState key
// (-state-key-file, envStateKey), read bounded and checked for permissions; both variables
// leave the environment at start (takeSecrets). docs/SECURITY.md has the decisions.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security-%26-endpoint
// (servers SHOULD authenticate every connection),
// https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/security-considerations#token-theft
// (secure token storage); RFC 2104 §3 (HMAC keys).

package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// envToken and envStateKey name the variables of the bearer token (HTTP only, but taken out
// of the environment by every build) and the requestState secret: BAREMCP_TOKEN and
// BAREMCP_STATE_KEY, SHOUTER_* in a server renamed shouter. Read-only.
var (
	envToken    = secretEnvName(serverName, "TOKEN")
	envStateKey = secretEnvName(serverName, "STATE_KEY")
	// envHandoff names the descriptor a relaunched process reads what its
	// launcher handed over from (confine_relaunch.go).
	envHandoff = secretEnvName(serverName, "HANDOFF")
	// secretEnv is what takeSecrets unsets: the secrets' variables and a relaunch's handoff.
	secretEnv = []string{envToken, envStateKey, envHandoff}
)

// secretEnvName returns the environment variable of the secret what for the server named
// name, one a shell can set: the name upper-cased, every character but an ASCII letter or
// digit written "_" (and "_" before a leading digit), then "_" and what. TestSecretEnvName.
func secretEnvName(name, what string) string {
	s := strings.Map(func(c rune) rune {
		if c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return c
		}
		return '_'
	}, strings.ToUpper(name))
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		s = "_" + s
	}
	return s + "_" + what
}

// maxSecretFileBytes bounds a key or token file: a secret is a few dozen
// bytes, a larger file a wrong path (a log, a binary), refused unread.
const maxSecretFileBytes = 64 << 10

// startupWarning is something about the configuration the operator should hear once the
// server starts: run logs it through the server's logger (msg and slog attributes).
type startupWarning struct {
	msg  string
	args []any
}

// warnFunc records a startupWarning.
type warnFunc func(msg string, args ...any)

// takeSecrets returns the getenv run is given: the environment, but each variable of secretEnv
// read once, unset and served from memory, so no child process or os.Environ reader finds it.
// Known limitation: /proc/PID/environ still shows the starting environment.
func takeSecrets(getenv func(string) string, unsetenv func(string) error) func(string) string {
	kept := map[string]string{}
	for _, name := range secretEnv {
		kept[name] = getenv(name)
		_ = unsetenv(name) // fails only for a name with NUL or '='
	}
	return func(name string) string {
		if v, ok := kept[name]; ok {
			return v
		}
		return getenv(name)
	}
}

// readSecretFile reads the secret file path, named by its flag in errors and warnings
// (secretFileContent). It warns when users other than its owner may access a regular file.
func readSecretFile(flagName, path string, getenv func(string) string, warn warnFunc) ([]byte, error) {
	perm, b, err := secretFileContent(flagName, path, getenv)
	if err != nil {
		return nil, err
	}
	if perm&0o077 != 0 {
		warn("secret file is accessible to users other than its owner; chmod 600 it", "flag", flagName, "path", path, "mode", fmt.Sprintf("%#o", perm))
	}
	return b, nil
}

// secretFileKey is the getenv name under which a relaunched process finds the secret file
// flagName names, as its launcher read it (handedSecretFile): the relaunched image starts
// confined and may not read it. No environment variable has such a name (names hold no '=').
func secretFileKey(flagName string) string { return "=" + flagName }

// handedSecretFile is secretFileKey's value: the file's octal permissions, ':', its content.
func handedSecretFile(perm fs.FileMode, content []byte) string {
	return strconv.FormatUint(uint64(perm.Perm()), 8) + ":" + string(content)
}

// secretFileContent reads the secret file path, or what getenv hands over for flagName
// (secretFileKey), and its permissions (0 unless a regular file, and always on Windows); it
// refuses more than maxSecretFileBytes.
func secretFileContent(flagName, path string, getenv func(string) string) (fs.FileMode, []byte, error) {
	if v := getenv(secretFileKey(flagName)); v != "" {
		perm, content, ok := strings.Cut(v, ":")
		p, err := strconv.ParseUint(perm, 8, 32)
		if !ok || err != nil || len(content) > maxSecretFileBytes {
			return 0, nil, fmt.Errorf("%s: the relaunch handed over a malformed file", flagName)
		}
		return fs.FileMode(p).Perm(), []byte(content), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", flagName, err)
	}
	defer f.Close()
	// The opened file's mode, not the path's a moment later.
	var perm fs.FileMode
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() && runtime.GOOS != "windows" {
		perm = info.Mode().Perm()
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFileBytes+1))
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", flagName, err)
	}
	if len(b) > maxSecretFileBytes {
		return 0, nil, fmt.Errorf("%s %s is larger than %d bytes: not a secret file", flagName, path, maxSecretFileBytes)
	}
	return perm, b, nil
}

// secretFiles lists the secret files cfg's flags name, by flag, in fixed order, for a relaunch.
func (cfg *config) secretFiles() [][2]string {
	var files [][2]string
	if cfg.stateKeyFile != "" {
		files = append(files, [2]string{"-state-key-file", cfg.stateKeyFile})
	}
	return append(files, cfg.http.secretFiles()...)
}

// isText reports whether b is printable ASCII and white space, as a key
// written in base64 or hex (and its trailing newline) is.
func isText(b []byte) bool {
	return !bytes.ContainsFunc(b, func(r rune) bool { return (r < 0x20 || r > 0x7e) && r != '\t' && r != '\n' && r != '\r' })
}

// loadStateKey returns the requestState secret from path, else the environment, else nil
// (random per process). A text file is trimmed (a base64 key and its newline), any other used
// byte for byte; a secret under stateMinKeyBytes is refused. TestLoadStateKey.
func loadStateKey(path string, getenv func(string) string, warn warnFunc) ([]byte, error) {
	if path == "" {
		// The environment is read only without a file: its copy of a secret is not made to be
		// thrown away.
		if v := strings.TrimSpace(getenv(envStateKey)); v != "" {
			return checkStateKey([]byte(v), envStateKey)
		}
		return nil, nil
	}
	b, err := readSecretFile("-state-key-file", path, getenv, warn)
	if err != nil {
		return nil, err
	}
	if isText(b) {
		b = bytes.TrimSpace(b)
	}
	return checkStateKey(b, "-state-key-file")
}

// checkStateKey refuses a requestState secret under stateMinKeyBytes, naming its source.
func checkStateKey(key []byte, source string) ([]byte, error) {
	if len(key) < stateMinKeyBytes {
		return nil, fmt.Errorf("%s: the requestState secret must be at least %d bytes", source, stateMinKeyBytes)
	}
	return key, nil
}
