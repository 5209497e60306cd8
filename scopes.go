// Scopes as a registration and a handler see them: the scope tokens a
// tool, prompt, resource or template declares (checked at registration),
// a caller's scopes widened by -scope-implies, and req.Principal,
// req.Scopes, req.HasScope. A transport decides who is scoped (auth_http.go
// over HTTP); an unscoped caller (stdio, no authentication, a static
// token without scopes) holds every scope. The check before every
// handler, the challenge and filtered lists are the HTTP wing's
// (scopes_http.go): the stdio build has no scoped caller.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#scope-challenge-handling,
// RFC 6749 §3.3 (scope tokens).

package main

import (
	"fmt"
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

// allowed reports whether who may do what needs: always for a caller
// whose credential carries no scope limit.
func (s *server) allowed(who caller, need []string) bool {
	if !who.scoped || len(need) == 0 {
		return true
	}
	have := s.holds(who.scopes)
	for _, sc := range need {
		if !have[sc] {
			return false
		}
	}
	return true
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
	out := make([]string, 0, len(have))
	for sc := range have {
		out = append(out, sc)
	}
	slices.Sort(out)
	return out
}

// HasScope reports whether the principal may act with scope: it holds it
// (or a broader scope implying it), or its credential is not limited by
// scopes at all.
func (r *request) HasScope(scope string) bool {
	return r.server.allowed(r.caller, []string{scope})
}
