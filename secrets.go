// The operator's secrets: the bearer token (-token-file, $BAREMCP_TOKEN)
// and the requestState key (-state-key-file, $BAREMCP_STATE_KEY; both
// variables named after the server: envToken, envStateKey). Files
// are read bounded, checked for permissions that let other users read
// them, and a binary key is kept byte for byte; a token is checked for a
// length that resists guessing; both variables are taken out of the
// process environment as soon as the process starts (takeSecrets).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security-%26-endpoint
// (servers SHOULD authenticate every connection),
// https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/security-considerations#token-theft
// (secure token storage); RFC 6750 §2.1 (the b64token syntax of a bearer
// credential), RFC 2104 §3 (HMAC keys).

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
)

// envToken and envStateKey name the environment variables that may hold
// the bearer token (HTTP only; taken out of the environment by every
// build) and the requestState secret: BAREMCP_TOKEN and BAREMCP_STATE_KEY,
// and in a server renamed shouter (README, "Make it yours") SHOUTER_TOKEN
// and SHOUTER_STATE_KEY, which its flags, warnings and errors then name.
// Read-only after start, as the other tables.
var (
	envToken    = secretEnvName(serverName, "TOKEN")
	envStateKey = secretEnvName(serverName, "STATE_KEY")
)

// secretEnv names the environment variables that hold secrets; takeSecrets
// removes them from the process environment.
var secretEnv = []string{envToken, envStateKey}

// secretEnvName returns the environment variable of the secret what for
// the server named name: the name in upper case with every character but
// an ASCII letter or digit written "_" (and "_" before a leading digit),
// then "_" and what, so that any server name gives a name a shell can
// set. TestSecretEnvName.
func secretEnvName(name, what string) string {
	var b strings.Builder
	for i, c := range strings.ToUpper(name) {
		switch {
		case c >= '0' && c <= '9' && i == 0:
			b.WriteByte('_')
			b.WriteRune(c)
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String() + "_" + what
}

// maxSecretFileBytes bounds a key or token file. A secret is a few dozen
// bytes; a file larger than this is a wrong path (a log, a binary), and is
// refused before it is read whole.
const maxSecretFileBytes = 64 << 10

// startupWarning is something about the configuration the operator should
// hear once the server starts: run logs it through the server's logger
// (msg and slog attributes).
type startupWarning struct {
	msg  string
	args []any
}

// warnFunc records a startupWarning.
type warnFunc func(msg string, args ...any)

// takeSecrets returns the getenv run is given: the process environment,
// except that each variable of secretEnv is read once, removed from the
// environment (unsetenv), and served from memory. A child process the
// server or a tool starts then does not inherit the secret, and code that
// reads the environment (os.Environ, a tool that prints it) no longer
// finds it. Known limitation: /proc/PID/environ still shows the
// environment the process was started with (unsetenv changes Go's copy,
// not that memory): prefer the files.
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

// readSecretFile reads the secret file path, named by its flag in errors
// and warnings. It refuses a file over maxSecretFileBytes, and warns when
// the file is a regular file that users other than its owner may access:
// such a secret is not one.
func readSecretFile(flagName, path string, warn warnFunc) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flagName, err)
	}
	defer f.Close()
	// The mode of the file that was opened, not of whatever the path
	// names a moment later. Windows reports no Unix permissions.
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() && runtime.GOOS != "windows" {
		if perm := info.Mode().Perm(); perm&0o077 != 0 {
			warn("secret file is accessible to users other than its owner; chmod 600 it", "flag", flagName, "path", path, "mode", fmt.Sprintf("%#o", perm))
		}
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flagName, err)
	}
	if len(b) > maxSecretFileBytes {
		return nil, fmt.Errorf("%s %s is larger than %d bytes: not a secret file", flagName, path, maxSecretFileBytes)
	}
	return b, nil
}

// isText reports whether b is printable ASCII and white space, as a key
// written in base64 or hex (and its trailing newline) is.
func isText(b []byte) bool {
	for _, c := range b {
		if (c < 0x20 || c > 0x7e) && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// loadStateKey returns the requestState secret from path, else from the
// environment, else nil (random per process). A key file of text has its
// surrounding white space trimmed (a base64 key and its newline); any
// other file is the key byte for byte, so that a random binary key whose
// first or last byte happens to be white space is not shortened (about 5 %
// of random 32-byte keys were, and then refused). A secret shorter than
// stateMinKeyBytes is refused.
func loadStateKey(path string, getenv func(string) string, warn warnFunc) ([]byte, error) {
	var key []byte
	source := envStateKey
	switch {
	case path != "":
		b, err := readSecretFile("-state-key-file", path, warn)
		if err != nil {
			return nil, err
		}
		if isText(b) {
			b = bytes.TrimSpace(b)
		}
		key, source = b, "-state-key-file"
	default:
		v := strings.TrimSpace(getenv(envStateKey))
		if v == "" {
			return nil, nil
		}
		key = []byte(v)
	}
	if len(key) < stateMinKeyBytes {
		return nil, fmt.Errorf("%s: the requestState secret must be at least %d bytes", source, stateMinKeyBytes)
	}
	return key, nil
}
