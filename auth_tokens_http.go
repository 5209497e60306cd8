//go:build !stdio

// Static bearer tokens (-token-file, $BAREMCP_TOKEN): the two forms of the
// token file, the check every token meets, and the lookup of a presented
// token. A static token is the simple install's credential: no
// authorization server, an identity per token, optional scopes.
//
// Spec: RFC 6750 §2.1 (Bearer), RFC 6749 §3.3 (scope tokens),
// https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#token-handling.

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
)

// tokenSet is the static tokens the HTTP transport accepts, keyed by the
// SHA-256 of the token: the presented token is hashed and looked up, so
// the time a lookup takes says nothing about the stored tokens, and a
// file may hold digests instead of the secrets. Immutable once loaded.
type tokenSet struct {
	byHash map[[sha256.Size]byte]*staticToken
}

// staticToken is one token's identity and grant.
type staticToken struct {
	// name is the principal the token grants: its name in the file, or
	// for the single-token form "bearer:" and 16 hex digits of its
	// digest, so logs and tools never see the token.
	name string
	// scopes bound what the token may do; nil means unrestricted (the
	// single-token form, and a named token listed without scopes).
	scopes []string
}

// validTokenName reports whether a named token's principal is spelled
// with 1 to 64 of A-Z, a-z, 0-9, '.', '_' and '-': it appears in logs and
// in what handlers read (req.Principal), and cannot contain ':' or '#', so
// it never collides with the single token's "bearer:..." or an OAuth
// principal (issuer "#" subject).
func validTokenName(name string) bool { return isName(name, 64, true, "._-") }

// tokenDigestPrefix marks a token given by its SHA-256 in the named form.
const tokenDigestPrefix = "sha256:"

// singleToken returns the set of one unrestricted token, the form of
// $BAREMCP_TOKEN and of a token file that holds one word; source names
// where it came from. The token passes checkToken (secrets.go), the one
// check of every static token given in clear.
func singleToken(source, tok string) (*tokenSet, error) {
	if err := checkToken(source, tok); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(tok))
	return &tokenSet{byHash: map[[sha256.Size]byte]*staticToken{
		sum: {name: "bearer:" + hex.EncodeToString(sum[:8])},
	}}, nil
}

// parseTokenFile reads a token file. Its content, surrounding white space
// trimmed, is either one word, the single token (the original form,
// unchanged), or lines of the named form:
//
//	# name   token or sha256:HEX                          scopes (optional)
//	alice    sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  mcp:tools mcp:write
//	ci-bot   a-long-random-token                           mcp:tools
//
// A comment runs from a word starting with "#" to the end of its line (a
// token, a name or a scope never starts with one), so "# ..." lines and
// trailing comments are skipped, and never taken for scopes; a file whose
// only word outside comments is one token is the single form. Names and
// tokens are unique; a token without scopes is unrestricted. source names
// the file in errors, which name the line, never the token.
func parseTokenFile(data []byte, source string) (*tokenSet, error) {
	type entry struct {
		line   int
		fields []string
	}
	if strings.TrimSpace(string(data)) == "" {
		return nil, fmt.Errorf("%s is empty", source)
	}
	var entries []entry
	for i, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		for j, f := range fields {
			if strings.HasPrefix(f, "#") {
				fields = fields[:j]
				break
			}
		}
		if len(fields) > 0 {
			entries = append(entries, entry{i + 1, fields})
		}
	}
	switch {
	case len(entries) == 0:
		return nil, fmt.Errorf("%s holds no token", source)
	case len(entries) == 1 && len(entries[0].fields) == 1:
		return singleToken(source, entries[0].fields[0])
	}
	set := &tokenSet{byHash: map[[sha256.Size]byte]*staticToken{}}
	names := map[string]bool{}
	for _, e := range entries {
		i, fields := e.line-1, e.fields
		if len(fields) < 2 {
			return nil, fmt.Errorf("%s line %d: want NAME TOKEN [SCOPE...]", source, i+1)
		}
		name, tok, scopes := fields[0], fields[1], fields[2:]
		if !validTokenName(name) {
			return nil, fmt.Errorf("%s line %d: a name is 1 to 64 of A-Z a-z 0-9 . _ -", source, i+1)
		}
		if names[name] {
			return nil, fmt.Errorf("%s line %d: name %s appears twice", source, i+1, name)
		}
		names[name] = true
		var sum [sha256.Size]byte
		if hexSum, ok := strings.CutPrefix(tok, tokenDigestPrefix); ok {
			b, err := hex.DecodeString(hexSum)
			if err != nil || len(b) != sha256.Size {
				return nil, fmt.Errorf("%s line %d: %s must be followed by 64 hex digits", source, i+1, tokenDigestPrefix)
			}
			copy(sum[:], b)
		} else {
			if err := checkToken(fmt.Sprintf("%s line %d", source, i+1), tok); err != nil {
				return nil, err
			}
			sum = sha256.Sum256([]byte(tok))
		}
		if set.byHash[sum] != nil {
			return nil, fmt.Errorf("%s line %d: the token of %s is another name's too", source, i+1, name)
		}
		for _, sc := range scopes {
			if !validScope(sc) {
				return nil, fmt.Errorf("%s line %d: %q is not a scope token (RFC 6749 §3.3)", source, i+1, sc)
			}
		}
		entry := &staticToken{name: name}
		if len(scopes) > 0 {
			entry.scopes = scopes
		}
		set.byHash[sum] = entry
	}
	if len(set.byHash) == 0 {
		return nil, fmt.Errorf("%s holds no token", source)
	}
	return set, nil
}

// lookup returns the static token tok is, or nil.
func (ts *tokenSet) lookup(tok string) *staticToken {
	if ts == nil {
		return nil
	}
	return ts.byHash[sha256.Sum256([]byte(tok))]
}

// minTokenBytes is the shortest bearer token accepted. Every request may
// guess the token (there is no lockout, and a refused request costs the
// guesser almost nothing), so it must hold at least 128 bits: 32 bytes do
// even as hex, the sparsest common alphabet (4 bits a character). openssl
// rand -hex 32 or head -c 32 /dev/urandom | base64 make one.
const minTokenBytes = 32

// loadTokens returns the static bearer tokens: those of the file path
// (parseTokenFile: one token, or named tokens with their scopes), else the
// one token of the environment, else nil (no static tokens). Every token
// given in clear passes checkToken.
func loadTokens(path string, getenv func(string) string, warn warnFunc) (*tokenSet, error) {
	if path != "" {
		b, err := readSecretFile("-token-file", path, getenv, warn)
		if err != nil {
			return nil, err
		}
		return parseTokenFile(b, "-token-file "+path)
	}
	token := strings.TrimSpace(getenv(envToken))
	if token == "" {
		return nil, nil
	}
	return singleToken("$"+envToken, token)
}

// minTokenBits is the least entropy a static token must show
// (tokenEntropy): below what the shortest random token made as advised
// shows (openssl rand -hex 16: 32 hex digits, 128 bits, of which the
// measure sees at least 89 in 200,000 draws), far above a word repeated
// or a run of one character (32 × "a": 0).
const minTokenBits = 80

// tokenEntropy estimates the bits of entropy token shows: its length
// times the Shannon entropy of its characters, or 0 when it is one
// shorter string repeated, or when more than three quarters of its
// neighbouring characters are equal or adjacent (aaaa, abcd, 1234). It
// cannot tell a phrase a person made up from a random string: it refuses
// the tokens people type when asked for one, not every weak one.
func tokenEntropy(token string) float64 {
	n := len(token)
	for p := 1; p <= n/2; p++ {
		if token[p:] == token[:n-p] {
			return 0 // a period of p: token is its first p bytes repeated
		}
	}
	var counts [256]int
	near := 0
	for i := 0; i < n; i++ {
		counts[token[i]]++
		if i > 0 {
			if d := int(token[i]) - int(token[i-1]); d >= -1 && d <= 1 {
				near++
			}
		}
	}
	if n > 1 && 4*near > 3*(n-1) {
		return 0
	}
	bits := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(n)
			bits -= p * math.Log2(p)
		}
	}
	return bits * float64(n)
}

// checkToken refuses a bearer token shorter than minTokenBytes, one that
// shows less than minTokenBits of entropy, or one no client can send: a
// bearer credential is a b64token (RFC 6750 §2.1), letters, digits and
// -._~+/ with trailing = only. source names where the token came from;
// the error never quotes the token, and says how to make a good one
// (TestCheckToken).
func checkToken(source, token string) error {
	if len(token) < minTokenBytes {
		return fmt.Errorf("%s: the bearer token must be at least %d bytes (it has %d): a shorter one can be guessed; make one with openssl rand -hex 32", source, minTokenBytes, len(token))
	}
	body := strings.TrimRight(token, "=")
	if body == "" {
		return errors.New(source + ": the bearer token is only padding (=)")
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			return errors.New(source + ": the bearer token may hold only letters, digits and -._~+/ (then = at the end), as an Authorization header carries it (RFC 6750)")
		}
	}
	if bits := tokenEntropy(token); bits < minTokenBits {
		return fmt.Errorf("%s: the bearer token looks guessable (about %.0f bits of entropy, want %d: repeated, sequential or few different characters); make one at random, e.g. openssl rand -hex 32", source, bits, minTokenBits)
	}
	return nil
}
