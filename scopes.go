// Scopes as a registration and a handler see them, all the stdio build
// keeps of them: the scope tokens a tool, prompt, resource or template
// declares (checked at registration), and req.Principal, req.Scopes and
// req.HasScope, widened by -scope-implies. A transport decides who is
// scoped (auth_http.go); an unscoped caller (stdio included) holds every
// scope. The check, its challenge and filtered lists are scopes_http.go's.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#scope-challenge-handling,
// RFC 6749 §3.3 (scope tokens).

package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// validScope reports whether s is a scope token (RFC 6749 §3.3):
// 1*( %x21 / %x23-5B / %x5D-7E ). The same bytes are what a challenge's
// quoted scope may carry (RFC 6750 §3), so a scope can never break one.
func validScope(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(c rune) bool { return c < 0x21 || c > 0x7e || c == '"' || c == '\\' })
}

// holds returns granted widened by s.scopeImplies, transitively: the
// scopes a caller effectively has.
// [§Step-Up Authorization Flow]: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#step-up-authorization-flow
func (s *server) holds(granted []string) map[string]bool {
	have := make(map[string]bool, len(granted))
	todo := slices.Clone(granted)
	for len(todo) > 0 {
		sc := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if have[sc] {
			continue
		}
		have[sc] = true
		todo = append(todo, s.scopeImplies[sc]...)
	}
	return have
}

// checkScopes panics on a scope a registration declares that is not a
// scope token: the first run reveals it.
func checkScopes(what string, scopes []string) {
	for _, sc := range scopes {
		if !validScope(sc) {
			panic(fmt.Sprintf("%s: %q is not a scope token (RFC 6749 §3.3)", what, sc))
		}
	}
}

// scopedCache is the cache hint of a read whose resource declares scopes:
// private even when the resource's hint says public, so that no shared cache
// hands it to a caller without them (without a hint a read is private).
// [§Security Considerations]: https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching#security-considerations
func scopedCache(hint *cacheHint, scopes []string) *cacheHint {
	if len(scopes) == 0 || hint == nil {
		return hint
	}
	h := *hint
	h.Scope = scopePrivate
	return &h
}

// Principal returns who sent the request: issuer "#" sub of its OAuth
// access token, the name of its static token, or "bearer:" and a digest for
// the single static token; "" when unauthenticated (stdio included). It
// is stable across token refreshes, keeping sessions and requestState.
func (r *request) Principal() string { return r.caller.principal }

// Scopes returns the scopes the principal holds, widened by -scope-implies,
// sorted; nil when its credential carries no scope limit (see HasScope).
func (r *request) Scopes() []string {
	if !r.caller.scoped {
		return nil
	}
	have := r.server.holds(r.caller.scopes)
	out := slices.AppendSeq(make([]string, 0, len(have)), maps.Keys(have)) // [] for a caller limited to none
	slices.Sort(out)
	return out
}

// HasScope reports whether the principal may act with scope: it holds it
// (or a broader scope implying it), or its credential is not limited by
// scopes at all.
func (r *request) HasScope(scope string) bool {
	return !r.caller.scoped || r.server.holds(r.caller.scopes)[scope]
}
