// Scopes as registrations declare them, all the stdio build keeps of them: the scope tokens a
// tool, prompt, resource or template declares (checked at registration), the private cache
// hint of a scoped resource, and req.Principal. A transport decides who is scoped
// (auth_http.go); -scope-implies, req.Scopes, req.HasScope, the check, its challenge and
// filtered lists are scopes_http.go's. No stdio caller is scoped (stdio_build.go).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#scope-challenge-handling,
// RFC 6749 §3.3 (scope tokens).

package main

import (
	"fmt"
	"strings"
)

// validScope reports whether s is a scope token (RFC 6749 §3.3): 1*( %x21 / %x23-5B / %x5D-7E ),
// the bytes a challenge's quoted scope may carry (RFC 6750 §3), so a scope never breaks one.
func validScope(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(c rune) bool { return c < 0x21 || c > 0x7e || c == '"' || c == '\\' })
}

// checkScopes panics on a declared scope that is not a scope token: the first run reveals it.
func checkScopes(what string, scopes []string) {
	for _, sc := range scopes {
		if !validScope(sc) {
			panic(fmt.Sprintf("%s: %q is not a scope token (RFC 6749 §3.3)", what, sc))
		}
	}
}

// scopedCache is the cache hint of a read whose resource declares scopes: private even when
// the resource's hint says public, so no shared cache hands it to a caller without them
// (without a hint a read is private).
// [§Security Considerations]: https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching#security-considerations
func scopedCache(hint *cacheHint, scopes []string) *cacheHint {
	if len(scopes) == 0 || hint == nil {
		return hint
	}
	h := *hint
	h.Scope = scopePrivate
	return &h
}

// Principal returns who sent the request: issuer "#" sub of its OAuth access token, the name
// of its static token, or "bearer:" and a digest for the single static token; "" when
// unauthenticated (stdio included). Stable across token refreshes, it keeps sessions and
// requestState.
func (r *request) Principal() string { return r.caller.principal }
