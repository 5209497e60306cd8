//go:build !stdio

// Scopes over HTTP, where a caller can be scoped: what it holds (holds,
// widened by -scope-implies; req.Scopes, req.HasScope), the check before
// every handler in both eras (authorize: the base scopes and what the
// request's target declares), the insufficient-scope error and the scopes
// its challenge names, and lists filtered to what the caller may see
// (-scope-filter-lists).
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#scope-challenge-handling,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#runtime-insufficient-scope-errors,
// RFC 6749 §3.3 (scope tokens).

package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// codeInsufficientScope answers a request whose caller lacks a scope it
// needs. Like -31429 and -31503 (limits.go) it lies outside JSON-RPC's
// reserved range and ends in the HTTP status that carries it: 403 with an
// insufficient_scope challenge, in both eras, for step-up authorization.
// [§Runtime Insufficient Scope Errors]: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#runtime-insufficient-scope-errors
const codeInsufficientScope = -31403

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

// challengeScopes is the scope of an insufficient_scope challenge: every
// scope the operation needs (the 2026-07-28 SHOULD), then those the caller
// holds that this server uses, so a client that replaces its scope with the
// challenge's (the 1.x TypeScript SDK) keeps what it had.
// [§Runtime Insufficient Scope Errors]: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#runtime-insufficient-scope-errors
func (s *server) challengeScopes(who caller, need []string) string {
	out := slices.Clone(need)
	known := s.knownScopes()
	for _, sc := range who.scopes {
		if known[sc] && !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return strings.Join(out, " ")
}

// knownScopes is every scope this server uses: the base scopes and each
// scope a tool, prompt, resource or template of the registry declares.
func (s *server) knownScopes() map[string]bool {
	known := map[string]bool{}
	add := func(list []string) {
		for _, sc := range list {
			known[sc] = true
		}
	}
	add(s.baseScopes)
	reg := s.registry()
	for _, t := range reg.tools {
		add(t.Scopes)
	}
	for _, p := range reg.prompts {
		add(p.Scopes)
	}
	for _, r := range reg.resources {
		add(r.Scopes)
	}
	for _, t := range reg.templates {
		add(t.Scopes)
	}
	return known
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

// insufficientScope is the answer to a request its caller may not make:
// the words of the 403 challenge, and its scope in data.
func insufficientScope(scope string) *rpcError {
	return &rpcError{Code: codeInsufficientScope,
		Message: fmt.Sprintf("forbidden: insufficient scope: request a token with scope %q", scope),
		Data:    map[string]string{"scope": scope}}
}

// authorize is the scope check serve runs before every handler, in both
// eras: the base scopes (-oauth-scopes) and those the request's target
// declares. Unknown targets need only the base scopes; the handler then
// answers that they are unknown.
func (s *server) authorize(req *request) *rpcError {
	if !req.caller.scoped {
		return nil
	}
	need := slices.Clone(s.baseScopes)
	for _, sc := range s.requiredScopes(req) {
		if !slices.Contains(need, sc) {
			need = append(need, sc)
		}
	}
	if s.allowed(req.caller, need) {
		return nil
	}
	return insufficientScope(s.challengeScopes(req.caller, need))
}

// requiredScopes returns the scopes the target of req's method declares; a
// resource's are what resources/read would read (uriScopes), a completion
// needs its prompt's or template's (completions reveal values).
func (s *server) requiredScopes(req *request) []string {
	reg := s.snapshot(req)
	t := methods[req.method].target
	name, _ := jsonString(req.param(t.param()))
	switch t {
	case targetTool:
		if t := reg.tool(name); t != nil {
			return t.Scopes
		}
	case targetPrompt:
		if p := reg.prompt(name); p != nil {
			return p.Scopes
		}
	case targetResource:
		return reg.uriScopes(name)
	case targetRef:
		ref, rerr := objectParam(req.param("ref"), "ref", "type", "name", "uri")
		if rerr != nil {
			return nil
		}
		switch ref["type"] {
		case "ref/prompt":
			if p := reg.prompt(ref["name"]); p != nil {
				return p.Scopes
			}
		case "ref/resource":
			if t := reg.template(ref["uri"]); t != nil {
				return t.Scopes
			}
		}
	case targetListen:
		f, rerr := parseSubscriptionFilter(req.param("notifications"), s.subs.maxURIs)
		if rerr != nil {
			return nil
		}
		var need []string
		for _, u := range f.uris {
			for _, sc := range reg.uriScopes(u) {
				if !slices.Contains(need, sc) {
					need = append(need, sc)
				}
			}
		}
		return need
	}
	return nil
}

// uriScopes returns the scopes of what resources/read would read at uri.
func (r *registry) uriScopes(uri string) []string {
	switch res, tmpl, _ := r.resolveURI(uri); {
	case res != nil:
		return res.Scopes
	case tmpl != nil:
		return tmpl.Scopes
	}
	return nil
}

// filteredList answers a list method with only the items the caller's
// scopes allow (-scope-filter-lists): pages are offsets into the filtered
// list, and the result is private to the caller. TestAuthFilterLists.
func (s *server) filteredList(kind string, req *request) (result, error) {
	cursor, rerr := req.cursorParam()
	if rerr != nil {
		return result{}, rerr
	}
	reg := s.snapshot(req)
	var keep []int
	for i := range reg.count(kind) {
		var need []string
		switch kind {
		case "tools":
			need = reg.tools[i].Scopes
		case "prompts":
			need = reg.prompts[i].Scopes
		case "resources":
			need = reg.resources[i].Scopes
		case "skills":
			need = nil // a skill's files are ordinary resources, each with its own
		default:
			need = reg.templates[i].Scopes
		}
		if s.allowed(req.caller, need) {
			keep = append(keep, i)
		}
	}
	start := 0
	if cursor != "" {
		var ok bool
		if start, ok = decodeCursor(cursor); !ok || start <= 0 || start >= len(keep) {
			return result{}, invalidParams("invalid cursor")
		}
	}
	b, err := reg.encodePage(kind, req.version, len(keep), func(i int) int { return keep[i] }, start, s.pageSize)
	if err != nil {
		return result{}, err
	}
	return result{body: json.RawMessage(b), cache: &cacheHint{TTL: s.cache.TTL, Scope: scopePrivate}}, nil
}
