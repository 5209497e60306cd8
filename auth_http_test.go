//go:build !stdio

// Tests of authorization over Streamable HTTP (auth_http.go, httpsse_auth.go)
// against the test authorization server: the protected resource metadata,
// one raw request per challenge rule (and no handler reached by any
// refused request), scopes per tool, prompt and resource in both eras,
// list filtering, the principal binding sessions, requestState and rate
// limits, static named tokens, introspection, the audit line, and the end
// of long-lived streams when their token expires.

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// withAuthRegistry serves what the authorization tests call instead of
// the test registry: a tool each handler of which counts its calls in
// calls, and a tool, prompt, resource and template that declare scopes.
func withAuthRegistry(calls *atomic.Int64) testOption {
	return func(st *testSetup) {
		withRegistry()(st)
		withSetup(func(s *server) { registerAuthTest(s, calls) })(st)
	}
}

// registerAuthTest registers the authorization tests' items on s.
func registerAuthTest(s *server, calls *atomic.Int64) {
	text := func(out string) func(ctx context.Context, req *request) (*toolResult, error) {
		return func(ctx context.Context, req *request) (*toolResult, error) {
			calls.Add(1)
			return textResult(out), nil
		}
	}
	s.addTool(tool{Name: "open", Call: text("ok")})
	s.addTool(tool{Name: "write", Scopes: []string{"files:write"}, Call: text("wrote")})
	s.addTool(tool{Name: "who", Call: func(ctx context.Context, req *request) (*toolResult, error) {
		calls.Add(1)
		return textResult(fmt.Sprintf("principal=%s scopes=%s write=%t", req.Principal(), strings.Join(req.Scopes(), ","), req.HasScope("files:write"))), nil
	}})
	s.addTool(tool{Name: "confirm", Call: func(ctx context.Context, req *request) (*toolResult, error) {
		calls.Add(1)
		if req.Input("ok") == nil {
			return nil, req.NeedInput(elicitForm("ok", "OK?", `{"type":"object","properties":{"ok":{"type":"boolean"}}}`))
		}
		return textResult("confirmed"), nil
	}})
	s.addPrompt(prompt{Name: "plan", Scopes: []string{"prompts:read"},
		Arguments: []promptArgument{{Name: "topic", Complete: prefixCompleter("alpha", "beta")}},
		Get: func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
			calls.Add(1)
			return &promptResult{Messages: []promptMessage{{Role: "user", Content: textContent("plan")}}}, nil
		}})
	public := &cacheHint{TTL: time.Minute, Scope: scopePublic}
	s.addResource(resource{URI: "docs://public", Name: "public", Text: "public", Cache: public})
	s.addResource(resource{URI: "docs://secret", Name: "secret", Text: "secret", Scopes: []string{"docs:read"}, Cache: public})
	s.addTemplate(resourceTemplate{URITemplate: "docs://items/{id}", Name: "item", Scopes: []string{"docs:read"},
		Complete: map[string]completer{"id": prefixCompleter("1", "2")},
		Read: func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
			calls.Add(1)
			return []resourceContents{{URI: uri, Text: "item " + vars["id"]}}, nil
		}})
}

// withBaseScopes sets -oauth-scopes.
func withBaseScopes(scopes ...string) testOption {
	return withConfig(func(c *config) { c.baseScopes = scopes })
}

// The challenges of the resource server the tests run (testResource).
const (
	testPRM          = "http://127.0.0.1:39217/.well-known/oauth-protected-resource/mcp"
	challengeNoToken = `Bearer realm="baremcp", resource_metadata="` + testPRM + `", scope="mcp:tools"`
	challengeInvalid = `Bearer realm="baremcp", error="invalid_token", resource_metadata="` + testPRM + `", scope="mcp:tools", error_description="the access token is not valid for this server"`
	challengeBadReq  = `Bearer realm="baremcp", error="invalid_request", resource_metadata="` + testPRM + `", error_description="send one Authorization header with a Bearer token, never a token in the URL"`
)

// challengeScope is the 403 challenge for scope.
func challengeScope(scope string) string {
	return `Bearer realm="baremcp", error="insufficient_scope", resource_metadata="` + testPRM + `", scope="` + scope + `", error_description="this request needs more scope"`
}

// authDo sends body to ts with edits.
func authDo(tb testing.TB, ts *testHTTP, body string, edits ...string) testHTTPReply {
	tb.Helper()
	return mustDo(tb, ts.Client(), newTestHTTPRequest(tb, authContext(tb), ts, "", body, edits))
}

// callLine is a modern tools/call of name without arguments.
func callLine(name string) string { return req("2", "tools/call", `"name":"`+name+`"`) }

// TestAuthResourceMetadata: the metadata document at the path-suffixed
// well-known URI and at the root, public and unauthenticated, naming the
// resource, the issuer verbatim, the base scopes and the header method.
func TestAuthResourceMetadata(t *testing.T) {
	as := newTestAS(t, "/tenant", "rsa-1")
	s := newTestServer(t, withAuthRegistry(new(atomic.Int64)), withBaseScopes("mcp:tools"))
	ts := newTestAuthHTTP(t, s, as, func(c *authConfig) { c.resource = "http://127.0.0.1:39217/api/mcp" })
	doc := `{"resource":"http://127.0.0.1:39217/api/mcp","authorization_servers":["http://127.0.0.1:39300/tenant"],` +
		`"scopes_supported":["mcp:tools"],"bearer_methods_supported":["header"],"resource_name":"baremcp"}`
	for _, tt := range []struct {
		name, method, path string
		edits              []string
		status             int
		body, header       string
	}{
		{name: "path of the resource", path: "/.well-known/oauth-protected-resource/api/mcp", status: 200, body: doc},
		{name: "path of the endpoint", path: "/.well-known/oauth-protected-resource/mcp", status: 200, body: doc},
		{name: "root", path: "/.well-known/oauth-protected-resource", status: 200, body: doc},
		{name: "any origin may read it", path: "/.well-known/oauth-protected-resource", edits: []string{"Origin: https://app.example"},
			status: 200, body: doc, header: "Access-Control-Allow-Origin: *"},
		{name: "no credential needed, one ignored", path: "/.well-known/oauth-protected-resource", edits: []string{"Authorization: Bearer nonsense"}, status: 200, body: doc},
		{name: "preflight", method: "OPTIONS", path: "/.well-known/oauth-protected-resource", edits: []string{"Origin: https://app.example", "Access-Control-Request-Method: GET"},
			status: 204, header: "Access-Control-Allow-Methods: GET"},
		{name: "POST is not allowed", method: "POST", path: "/.well-known/oauth-protected-resource", status: 405, header: "Allow: GET"},
		{name: "DNS rebinding: a foreign Host", path: "/.well-known/oauth-protected-resource", edits: []string{"Host: evil.example"}, status: 403},
		{name: "another path is not it", path: "/.well-known/oauth-protected-resource/other", status: 404},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := mustDo(t, ts.Client(), newTestHTTPGet(t, authContext(t), ts, tt.method, tt.path, tt.edits))
			if got.status != tt.status {
				t.Fatalf("status %d, want %d: %s", got.status, tt.status, got.body)
			}
			if tt.body != "" && !sameJSON(t, string(got.body), tt.body) {
				t.Errorf("body %s\nwant %s", got.body, tt.body)
			}
			if name, value, ok := strings.Cut(tt.header, ": "); ok && got.header.Get(name) != value {
				t.Errorf("%s = %q, want %q", name, got.header.Get(name), value)
			}
		})
	}
	if as.count("/tenant/jwks")+as.count("/.well-known/oauth-authorization-server/tenant") != 0 {
		t.Error("serving the metadata contacted the authorization server")
	}
	// Without an authorization server there is no metadata document.
	plain := newTestHTTP(t, newTestServer(t), &httpConfig{auth: authConfig{tokens: mustSingleToken(t, testToken)}})
	r, _ := http.NewRequestWithContext(authContext(t), http.MethodGet, plain.URL+wellKnownResourceMetadata, nil)
	if got := mustDo(t, plain.Client(), r); got.status != http.StatusNotFound {
		t.Errorf("metadata without -oauth-issuer: status %d, want 404", got.status)
	}
}

// TestAuthChallenges: one raw request per rule of the 401, 400 and 403
// answers, their WWW-Authenticate byte for byte and their JSON-RPC body;
// none of the refused requests reaches a handler.
func TestAuthChallenges(t *testing.T) {
	as := newTestAS(t, "", "rsa-1")
	calls := new(atomic.Int64)
	ts := newTestAuthHTTP(t, newTestServer(t, withAuthRegistry(calls), withBaseScopes("mcp:tools")), as, nil)
	good := as.mint(t, "rsa-1", "alice", "mcp:tools", nil)
	tok := func(edit func(h, c map[string]any)) string { return as.mint(t, "rsa-1", "alice", "mcp:tools", edit) }
	for _, tt := range []struct {
		name      string
		method    string
		edits     []string
		query     string
		status    int
		challenge string
		code      int
	}{
		{name: "no credential: 401 without an error code", status: 401, challenge: challengeNoToken, code: codeInvalidRequest},
		{name: "another scheme is no bearer credential", edits: []string{"Authorization: Basic " + good}, status: 401, challenge: challengeNoToken, code: codeInvalidRequest},
		{name: "opaque token without introspection", edits: []string{bearer("opaque-token-value")}, status: 401, challenge: challengeInvalid, code: codeInvalidRequest},
		{name: "expired", edits: []string{bearer(tok(func(h, c map[string]any) { c["exp"] = time.Now().Unix() - 3600 }))}, status: 401, challenge: challengeInvalid, code: codeInvalidRequest},
		{name: "not yet valid", edits: []string{bearer(tok(func(h, c map[string]any) { c["nbf"] = time.Now().Unix() + 3600 }))}, status: 401, challenge: challengeInvalid, code: codeInvalidRequest},
		{name: "for another resource of the same server", edits: []string{bearer(tok(func(h, c map[string]any) { c["aud"] = "http://127.0.0.1:39217/other" }))}, status: 401, challenge: challengeInvalid, code: codeInvalidRequest},
		{name: "for another audience", edits: []string{bearer(tok(func(h, c map[string]any) { c["aud"] = "https://api.example.com" }))}, status: 401, challenge: challengeInvalid, code: codeInvalidRequest},
		{name: "from another issuer", edits: []string{bearer(tok(func(h, c map[string]any) { c["iss"] = "https://evil.example" }))}, status: 401, challenge: challengeInvalid, code: codeInvalidRequest},
		{name: "alg none", edits: []string{bearer(b64url([]byte(`{"alg":"none","kid":"rsa-1"}`)) + "." + b64url([]byte(`{"sub":"x"}`)) + ".AA")}, status: 401, challenge: challengeInvalid, code: codeInvalidRequest},
		// Within the refetch gap of the first token's fetch: the key may
		// be new, and the server cannot tell yet (keyNotYetKnown).
		{name: "unknown kid", edits: []string{bearer(tok(func(h, c map[string]any) { h["kid"] = "nope" }))}, status: 503, code: codeServerBusy},
		{name: "signed by a key the server does not publish", edits: []string{bearer(as.mint(t, "rsa-1b", "alice", "mcp:tools", nil))}, status: 401, challenge: challengeInvalid, code: codeInvalidRequest},
		{name: "oversize token", edits: []string{bearer(tok(func(h, c map[string]any) { c["pad"] = strings.Repeat("x", maxTokenBytes) }))}, status: 401, challenge: challengeInvalid, code: codeInvalidRequest},
		{name: "two Authorization headers", edits: []string{bearer(good), bearer(good)}, status: 400, challenge: challengeBadReq, code: codeInvalidRequest},
		{name: "a token in the query string", edits: []string{bearer(good)}, query: "access_token=" + good, status: 400, challenge: challengeBadReq, code: codeInvalidRequest},
		{name: "empty bearer credential", edits: []string{"Authorization: Bearer "}, status: 400, challenge: challengeBadReq, code: codeInvalidRequest},
		{name: "bearer credential with a space", edits: []string{"Authorization: Bearer a b"}, status: 400, challenge: challengeBadReq, code: codeInvalidRequest},
		{name: "valid, without the base scope: 403", edits: []string{bearer(as.mint(t, "rsa-1", "alice", "other", nil))}, status: 403, challenge: challengeScope("mcp:tools"), code: codeInsufficientScope},
		{name: "without the base scope, a GET too", method: "GET", edits: []string{bearer(as.mint(t, "rsa-1", "alice", "other", nil))}, status: 403, challenge: challengeScope("mcp:tools"), code: codeInsufficientScope},
		{name: "no credential, a GET too", method: "GET", status: 401, challenge: challengeNoToken, code: codeInvalidRequest},
		{name: "valid", edits: []string{bearer(good)}, status: 200},
		{name: "scheme case-insensitive", edits: []string{"Authorization: bearer " + good}, status: 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := callLine("open")
			if tt.method == "GET" {
				body = ""
			}
			r := newTestHTTPRequest(t, authContext(t), ts, tt.method, body, tt.edits)
			r.URL.RawQuery = tt.query
			got := mustDo(t, ts.Client(), r)
			if got.status != tt.status || got.code != tt.code {
				t.Fatalf("status %d code %d, want %d and %d: %s", got.status, got.code, tt.status, tt.code, got.body)
			}
			if h := got.header.Get("WWW-Authenticate"); h != tt.challenge {
				t.Errorf("WWW-Authenticate\n got %s\nwant %s", h, tt.challenge)
			}
			if strings.Contains(string(got.body), good[:40]) {
				t.Errorf("the body quotes the token: %s", got.body)
			}
		})
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("handlers ran %d times, want 2 (the valid requests only)", n)
	}
}

// TestAuthScopes: a tool, prompt, resource or template that declares
// scopes is refused before its handler with 403, in both eras, the
// challenge naming every scope the request needs (and those granted this
// server uses); lists are not filtered; a broader scope implies narrower
// ones (-scope-implies).
func TestAuthScopes(t *testing.T) {
	as := newTestAS(t, "", "rsa-1")
	calls := new(atomic.Int64)
	s := newTestServer(t, withAuthRegistry(calls), withBaseScopes("mcp:tools"),
		withConfig(func(c *config) { c.scopeImplies = map[string][]string{"files": {"files:write"}} }))
	ts := newTestAuthHTTP(t, s, as, nil)
	for _, tt := range []struct {
		name, scope, line string
		status            int
		challenge         string // the 403's scope
		contains          string
	}{
		{name: "tool without its scope", scope: "mcp:tools", line: callLine("write"), status: 403, challenge: "mcp:tools files:write"},
		{name: "tool with its scope", scope: "mcp:tools files:write", line: callLine("write"), status: 200, contains: "wrote"},
		{name: "challenge keeps granted scopes this server uses", scope: "mcp:tools docs:read unrelated", line: callLine("write"), status: 403, challenge: "mcp:tools files:write docs:read"},
		{name: "a broader scope implies the tool's", scope: "mcp:tools files", line: callLine("write"), status: 200, contains: "wrote"},
		{name: "unknown tool: the handler says so", scope: "mcp:tools", line: callLine("nope"), status: 400},
		{name: "tool without scopes", scope: "mcp:tools", line: callLine("open"), status: 200},
		{name: "prompt", scope: "mcp:tools", line: req("2", "prompts/get", `"name":"plan"`), status: 403, challenge: "mcp:tools prompts:read"},
		{name: "prompt with its scope", scope: "mcp:tools prompts:read", line: req("2", "prompts/get", `"name":"plan"`), status: 200},
		{name: "resource", scope: "mcp:tools", line: req("2", "resources/read", `"uri":"docs://secret"`), status: 403, challenge: "mcp:tools docs:read"},
		{name: "resource with its scope is private, whatever its hint", scope: "mcp:tools docs:read", line: req("2", "resources/read", `"uri":"docs://secret"`), status: 200, contains: `"cacheScope":"private"`},
		{name: "resource without scopes keeps its hint", scope: "mcp:tools", line: req("2", "resources/read", `"uri":"docs://public"`), status: 200, contains: `"cacheScope":"public"`},
		{name: "template", scope: "mcp:tools", line: req("2", "resources/read", `"uri":"docs://items/7"`), status: 403, challenge: "mcp:tools docs:read"},
		{name: "completion of a prompt argument", scope: "mcp:tools", line: req("2", "completion/complete", `"ref":{"type":"ref/prompt","name":"plan"},"argument":{"name":"topic","value":"a"}`), status: 403, challenge: "mcp:tools prompts:read"},
		{name: "completion of a template variable", scope: "mcp:tools", line: req("2", "completion/complete", `"ref":{"type":"ref/resource","uri":"docs://items/{id}"},"argument":{"name":"id","value":""}`), status: 403, challenge: "mcp:tools docs:read"},
		{name: "subscription to a resource", scope: "mcp:tools", line: req("2", "subscriptions/listen", `"notifications":{"resourceSubscriptions":["docs://public","docs://secret"]}`), status: 403, challenge: "mcp:tools docs:read"},
		{name: "tools/list lists every tool", scope: "mcp:tools", line: req("2", "tools/list", ""), status: 200, contains: `"name":"write"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := calls.Load()
			got := authDo(t, ts, tt.line, bearer(as.mint(t, "rsa-1", "alice", tt.scope, nil)))
			if got.status != tt.status {
				t.Fatalf("status %d, want %d: %s", got.status, tt.status, got.body)
			}
			if tt.status == 403 {
				if h := got.header.Get("WWW-Authenticate"); h != challengeScope(tt.challenge) {
					t.Errorf("WWW-Authenticate\n got %s\nwant %s", h, challengeScope(tt.challenge))
				}
				want := `{"jsonrpc":"2.0","id":2,"error":{"code":-31403,"message":"forbidden: insufficient scope: request a token with scope \"` + tt.challenge + `\"","data":{"scope":"` + tt.challenge + `"}}}`
				if !sameJSON(t, string(got.body), want) {
					t.Errorf("body %s\nwant %s", got.body, want)
				}
				if calls.Load() != before {
					t.Error("a handler ran for a refused request")
				}
			}
			if !strings.Contains(string(got.body), tt.contains) {
				t.Errorf("body lacks %s: %s", tt.contains, got.body)
			}
		})
	}

	// The classic era: 403 with the challenge too (not a JSON-RPC error
	// with 200), before the handler.
	c := newTestClassicClient(t, ts)
	c.always = []string{bearer(as.mint(t, "rsa-1", "alice", "mcp:tools", nil))}
	c.initialize(bridgeInit(version20251125, `{}`))
	for _, tt := range []struct {
		name, line string
		status     int
		challenge  string
	}{
		{"classic tools/call", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"write"}}`, 403, "mcp:tools files:write"},
		{"classic resources/subscribe", `{"jsonrpc":"2.0","id":6,"method":"resources/subscribe","params":{"uri":"docs://secret"}}`, 403, "mcp:tools docs:read"},
		{"classic tools/call allowed", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"open"}}`, 200, ""},
	} {
		status, h, out := c.post(tt.line)
		if status != tt.status {
			t.Errorf("%s: status %d, want %d: %v", tt.name, status, tt.status, out)
			continue
		}
		if tt.challenge != "" && h.Get("WWW-Authenticate") != challengeScope(tt.challenge) {
			t.Errorf("%s: WWW-Authenticate %s, want %s", tt.name, h.Get("WWW-Authenticate"), challengeScope(tt.challenge))
		}
	}
}

// TestAuthFilterLists: with -scope-filter-lists, lists show what the
// caller's scopes allow, privately cached, paginated over what is shown.
func TestAuthFilterLists(t *testing.T) {
	as := newTestAS(t, "", "rsa-1")
	s := newTestServer(t, withAuthRegistry(new(atomic.Int64)), withFlags("-page-size", "2"),
		withConfig(func(c *config) { c.filterLists = true }))
	const static = "a-static-token-without-scopes-0123456789"
	ts := newTestAuthHTTP(t, s, as, func(c *authConfig) { c.tokens = mustSingleToken(t, static) })
	names := func(body []byte, list string) []string {
		var out []string
		items, _ := jsonPath(mustDecode(t, string(body)), "result."+list).([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			out = append(out, fmt.Sprint(m["name"]))
		}
		return out
	}
	for _, tt := range []struct {
		name, scope, method, list string // scope "static": the static token, which has no scope limit
		pages                     [][]string
	}{
		// Unfiltered, yet private: a shared cache must not hand it to a
		// scoped caller (review B, finding 3: it was cacheScope public).
		{"tools for a credential without scope limit", "static", "tools/list", "tools", [][]string{{"open", "write"}, {"who", "confirm"}}},
		{"tools without files:write", "", "tools/list", "tools", [][]string{{"open", "who"}, {"confirm"}}},
		{"tools with files:write", "files:write", "tools/list", "tools", [][]string{{"open", "write"}, {"who", "confirm"}}},
		{"resources without docs:read", "", "resources/list", "resources", [][]string{{"public"}}},
		{"templates without docs:read", "", "resources/templates/list", "resourceTemplates", [][]string{nil}},
		{"templates with docs:read", "docs:read", "resources/templates/list", "resourceTemplates", [][]string{{"item"}}},
		{"prompts without prompts:read", "", "prompts/list", "prompts", [][]string{nil}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tok := static
			if tt.scope != "static" {
				tok = as.mint(t, "rsa-1", "alice", tt.scope, nil)
			}
			cursor := ""
			for i, want := range tt.pages {
				params := ""
				if cursor != "" {
					params = `"cursor":"` + cursor + `"`
				}
				got := authDo(t, ts, req("3", tt.method, params), bearer(tok))
				if got.status != 200 {
					t.Fatalf("page %d: status %d: %s", i, got.status, got.body)
				}
				if n := names(got.body, tt.list); !slices.Equal(n, want) {
					t.Errorf("page %d: %q, want %q", i, n, want)
				}
				if scope := jsonPath(mustDecode(t, string(got.body)), "result.cacheScope"); scope != "private" {
					t.Errorf("page %d: cacheScope %v, want private", i, scope)
				}
				cursor, _ = jsonPath(mustDecode(t, string(got.body)), "result.nextCursor").(string)
			}
			if cursor != "" {
				t.Errorf("a cursor after the last page: %q", cursor)
			}
		})
	}
}

// TestAuthPrincipal: the principal is the token's issuer and subject:
// handlers read it and the scopes; it binds classic sessions (a refreshed
// token of the same subject keeps them), requestState and the rate limit.
func TestAuthPrincipal(t *testing.T) {
	as := newTestAS(t, "", "rsa-1")
	s := newTestServer(t, withAuthRegistry(new(atomic.Int64)), withFlags("-rate-limit", "0.001", "-rate-burst", "3"),
		withConfig(func(c *config) { c.scopeImplies = map[string][]string{"files": {"files:write"}} }))
	ts := newTestAuthHTTP(t, s, as, nil)
	alice := bearer(as.mint(t, "rsa-1", "alice", "files", nil))
	alice2 := bearer(as.mint(t, "rsa-1", "alice", "files", func(h, c map[string]any) { c["jti"] = "refreshed" }))
	bob := bearer(as.mint(t, "rsa-1", "bob", "", nil))

	got := authDo(t, ts, callLine("who"), alice)
	if want := "principal=" + as.issuer + "#alice scopes=files,files:write write=true"; !strings.Contains(string(got.body), want) {
		t.Errorf("who: %s, want %s", got.body, want)
	}
	if got := authDo(t, ts, callLine("who"), bob); !strings.Contains(string(got.body), "#bob scopes= write=false") {
		t.Errorf("who (bob): %s", got.body)
	}

	// requestState issued to alice does not verify for bob.
	withForms := func(id, params string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + params + `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}}`
	}
	first := mustDecode(t, string(authDo(t, ts, withForms("3", `"name":"confirm"`), alice).body))
	state, _ := jsonPath(first, "result.requestState").(string)
	if state == "" {
		t.Fatalf("confirm: no requestState in %v", first)
	}
	retry := withForms("4", `"name":"confirm","inputResponses":{"ok":{"action":"accept","content":{"ok":true}}},"requestState":"`+state+`"`)
	if got := authDo(t, ts, retry, bob); got.code != codeInvalidParams {
		t.Errorf("bob retrying alice's requestState: %d %s, want -32602", got.status, got.body)
	}
	if got := authDo(t, ts, retry, alice2); !strings.Contains(string(got.body), "confirmed") {
		t.Errorf("alice retrying with a refreshed token: %s", got.body)
	}

	// The rate limit: alice spent her burst of 3 calls (who, confirm,
	// retry); bob has his own bucket.
	if got := authDo(t, ts, callLine("open"), alice); got.status != http.StatusTooManyRequests {
		t.Errorf("alice's fourth call: status %d, want 429", got.status)
	}
	if got := authDo(t, ts, callLine("open"), bob); got.status != 200 {
		t.Errorf("bob, in his own bucket: status %d, want 200: %s", got.status, got.body)
	}

	// A classic session belongs to alice: bob cannot use it; alice's
	// refreshed token can.
	c := newTestClassicClient(t, ts)
	c.always = []string{alice}
	c.initialize(bridgeInit(version20251125, `{}`))
	ping := `{"jsonrpc":"2.0","id":9,"method":"ping"}`
	if status, _, _ := c.post(ping, bob); status != http.StatusNotFound {
		t.Errorf("bob in alice's session: status %d, want 404", status)
	}
	if status, _, out := c.post(ping, alice2); status != http.StatusOK {
		t.Errorf("alice's refreshed token in her session: status %d: %v", status, out)
	}
}

// TestAuthStaticTokens: a token file of named tokens gives each its
// principal and scopes; the challenges without an authorization server
// have no resource_metadata; with one, static and OAuth tokens coexist.
func TestAuthStaticTokens(t *testing.T) {
	file := "# the named form\n" +
		"alice  alice-tok-0123456789abcdef0123456789abcdef  files:write\n" +
		"bob    sha256:" + hexDigest("bob-tok-0123456789abcdef0123456789abcdef") + "\n" +
		"carol  carol-tok-0123456789abcdef0123456789abcdef  mcp:tools\n"
	tokens, err := parseTokenFile([]byte(file), "-token-file t")
	if err != nil {
		t.Fatal(err)
	}
	calls := new(atomic.Int64)
	ts := newTestHTTP(t, newTestServer(t, withAuthRegistry(calls)), &httpConfig{auth: authConfig{tokens: tokens}})
	for _, tt := range []struct {
		name, line, token string
		status            int
		challenge, body   string
	}{
		{name: "alice", line: callLine("who"), token: "alice-tok-0123456789abcdef0123456789abcdef", status: 200, body: "principal=alice scopes=files:write write=true"},
		{name: "bob, given by digest, unrestricted", line: callLine("write"), token: "bob-tok-0123456789abcdef0123456789abcdef", status: 200, body: "wrote"},
		{name: "bob's principal", line: callLine("who"), token: "bob-tok-0123456789abcdef0123456789abcdef", status: 200, body: "principal=bob scopes= write=true"},
		{name: "carol lacks files:write", line: callLine("write"), token: "carol-tok-0123456789abcdef0123456789abcdef", status: 403,
			challenge: `Bearer realm="baremcp", error="insufficient_scope", scope="files:write", error_description="this request needs more scope"`},
		{name: "no token: as before", line: callLine("open"), status: 401, challenge: `Bearer realm="baremcp"`},
		{name: "unknown token", line: callLine("open"), token: "mallory", status: 401,
			challenge: `Bearer realm="baremcp", error="invalid_token", error_description="the access token is not valid for this server"`},
		{name: "the digest is not the token", line: callLine("open"), token: "sha256:" + hexDigest("bob-tok-0123456789abcdef0123456789abcdef"), status: 401,
			challenge: `Bearer realm="baremcp", error="invalid_token", error_description="the access token is not valid for this server"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var edits []string
			if tt.token != "" {
				edits = append(edits, bearer(tt.token))
			}
			got := authDo(t, ts, tt.line, edits...)
			if got.status != tt.status {
				t.Fatalf("status %d, want %d: %s", got.status, tt.status, got.body)
			}
			if h := got.header.Get("WWW-Authenticate"); h != tt.challenge {
				t.Errorf("WWW-Authenticate %q, want %q", h, tt.challenge)
			}
			if !strings.Contains(string(got.body), tt.body) {
				t.Errorf("body %s, want %s in it", got.body, tt.body)
			}
		})
	}

	// With an authorization server as well: a static token still works,
	// and an OAuth token beside it; challenges name the metadata.
	as := newTestAS(t, "", "rsa-1")
	both := newTestAuthHTTP(t, newTestServer(t, withAuthRegistry(calls)), as, func(c *authConfig) { c.tokens = tokens })
	if got := authDo(t, both, callLine("who"), bearer("alice-tok-0123456789abcdef0123456789abcdef")); !strings.Contains(string(got.body), "principal=alice ") {
		t.Errorf("static token beside OAuth: %s", got.body)
	}
	if got := authDo(t, both, callLine("who"), bearer(as.mint(t, "rsa-1", "dave", "", nil))); !strings.Contains(string(got.body), "#dave") {
		t.Errorf("OAuth token beside static ones: %s", got.body)
	}
	if got := authDo(t, both, callLine("write"), bearer("carol-tok-0123456789abcdef0123456789abcdef")); got.header.Get("WWW-Authenticate") !=
		`Bearer realm="baremcp", error="insufficient_scope", resource_metadata="`+testPRM+`", scope="files:write", error_description="this request needs more scope"` {
		t.Errorf("static token's 403 beside OAuth: %q", got.header.Get("WWW-Authenticate"))
	}
}

// hexDigest is the hex SHA-256 of s.
func hexDigest(s string) string {
	sum := tokenDigest(s)
	return fmt.Sprintf("%x", sum[:])
}

// TestTokenFile: the two forms of -token-file, and what each refuses;
// no error quotes a token. Every token given in clear passes checkToken
// (at least 32 bytes of the b64token characters).
func TestTokenFile(t *testing.T) {
	a, b := "a-"+testToken, "b-"+testToken
	for _, tt := range []struct {
		name, file string
		err        string // "" accepted
		names      []string
	}{
		{name: "one word: the single token", file: testToken + "\n", names: []string{"bearer:" + hexDigest(testToken)[:16]}},
		{name: "one word among blank lines", file: "\n\n  " + testToken + "  \n", names: []string{"bearer:" + hexDigest(testToken)[:16]}},
		{name: "one short word", file: "s3cret", err: "-token-file t: the bearer token must be at least 32 bytes"},
		{name: "named", file: "# c\nalice " + a + " x:y\n\nbob  " + b + "\n", names: []string{"alice", "bob"}},
		{name: "trailing comments are not scopes", file: "alice " + a + " x:y # the CI bot\nbob " + b + " #no scopes\n", names: []string{"alice", "bob"}},
		{name: "one word and comments: the single token", file: "# the token\n" + testToken + "  # made with openssl rand -hex 16\n", names: []string{"bearer:" + hexDigest(testToken)[:16]}},
		{name: "a guessable token", file: "alice " + strings.Repeat("a", 32) + "\n", err: "-token-file t line 1: the bearer token looks guessable"},
		{name: "named by digest", file: "alice sha256:" + hexDigest("short") + "\n", names: []string{"alice"}},
		{name: "empty", file: " \n", err: "-token-file t is empty"},
		{name: "comments only", file: "# a\n# b\n", err: "-token-file t holds no token"},
		{name: "a name alone", file: "alice " + a + "\nbob\n", err: "-token-file t line 2: want NAME TOKEN"},
		{name: "a bad name", file: "al:ce " + a + "\n", err: "-token-file t line 1: a name is"},
		{name: "a name twice", file: "alice " + a + "\nalice " + b + "\n", err: "-token-file t line 2: name alice appears twice"},
		{name: "a token twice", file: "alice " + a + "\nbob " + a + "\n", err: "-token-file t line 2: the token of bob is another name's too"},
		{name: "a token and its digest", file: "alice " + a + "\nbob sha256:" + hexDigest(a) + "\n", err: "-token-file t line 2: the token of bob"},
		{name: "a short digest", file: "alice sha256:abcd\n", err: "-token-file t line 1: sha256: must be followed by 64 hex digits"},
		{name: "a scope with a quote", file: "alice " + a + " a\"b\n", err: `-token-file t line 1: "a\"b" is not a scope token`},
		{name: "a short token", file: "alice tok-a\n", err: "-token-file t line 1: the bearer token must be at least 32 bytes"},
		{name: "a token with a control byte", file: "alice " + a + "\x01\n", err: "-token-file t line 1: the bearer token may hold only"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			set, err := parseTokenFile([]byte(tt.file), "-token-file t")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("parseTokenFile = %v, want %q", err, tt.err)
				}
				for _, secret := range []string{a, b, testToken, "s3cret", "tok-a"} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("the error quotes a token: %v", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range set.byHash {
				names = append(names, e.name)
			}
			slices.Sort(names)
			if !slices.Equal(names, tt.names) {
				t.Errorf("principals %q, want %q", names, tt.names)
			}
		})
	}
}

// FuzzTokenFile: no token file makes the parser panic, and an accepted
// file's every entry is well formed.
func FuzzTokenFile(f *testing.F) {
	f.Add(testToken)
	f.Add("alice a-" + testToken + " files:write\nbob sha256:" + hexDigest("x") + "\n")
	f.Add("# x\n\nal ice")
	f.Fuzz(func(t *testing.T, file string) {
		set, err := parseTokenFile([]byte(file), "-token-file t")
		if err != nil {
			return
		}
		for _, e := range set.byHash {
			if e.name == "" || strings.ContainsAny(e.name, " \t\r\n") {
				t.Errorf("principal %q", e.name)
			}
			for _, sc := range e.scopes {
				if !validScope(sc) {
					t.Errorf("scope %q", sc)
				}
			}
		}
	})
}

// TestAuthIntrospection: an opaque token is asked about (RFC 7662) and
// its answer cached; inactive, foreign or expired answers are 401; a
// failing, garbled or busy endpoint is 503; a JWT is never sent to it.
func TestAuthIntrospection(t *testing.T) {
	as := newTestAS(t, "", "rsa-1")
	calls := new(atomic.Int64)
	ts := newTestAuthHTTP(t, newTestServer(t, withAuthRegistry(calls)), as, func(c *authConfig) {
		c.introspect, c.introspectID, c.introspectPass = as.issuer+"/introspect", "rs", "rs-secret"
	})
	exp := time.Now().Add(time.Hour).Unix()
	active := func(extra string) string {
		return `{"active":true,"sub":"svc","aud":["` + testResource + `"],"scope":"files:write","exp":` + itoa(exp) + extra + `}`
	}
	as.activate("op-good", active(""))
	as.activate("op-iss", active(`,"iss":"`+as.issuer+`"`))
	as.activate("op-other-iss", active(`,"iss":"https://evil.example"`))
	as.activate("op-no-aud", `{"active":true,"sub":"svc","exp":`+itoa(exp)+`}`)
	as.activate("op-other-aud", `{"active":true,"sub":"svc","aud":"https://other","exp":`+itoa(exp)+`}`)
	as.activate("op-expired", `{"active":true,"sub":"svc","aud":"`+testResource+`","exp":1}`)
	as.activate("op-refresh", active(`,"token_type":"refresh_token"`))
	as.activate("op-no-sub", `{"active":true,"aud":"`+testResource+`"}`)
	as.activate("op-active-string", `{"active":"true","sub":"svc","aud":"`+testResource+`"}`)
	as.activate("op-bound", active(`,"cnf":{"x5t#S256":"bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2"}`))
	for i, tt := range []struct {
		name, token, mode string
		status            int
		body              string
	}{
		{name: "active", token: "op-good", status: 200, body: "wrote"},
		{name: "active, issuer named", token: "op-iss", status: 200, body: "wrote"},
		{name: "inactive", token: "op-unknown", status: 401},
		{name: "another issuer", token: "op-other-iss", status: 401},
		{name: "no audience", token: "op-no-aud", status: 401},
		{name: "another audience", token: "op-other-aud", status: 401},
		{name: "expired", token: "op-expired", status: 401},
		{name: "a refresh token", token: "op-refresh", status: 401},
		{name: "no subject", token: "op-no-sub", status: 401},
		{name: "active not true", token: "op-active-string", status: 401},
		{name: "certificate-bound", token: "op-bound", status: 401},
		{name: "endpoint down", token: "op-down", mode: "down", status: 503},
		{name: "garbled answer", token: "op-garbage", mode: "garbage", status: 503},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as.set(func(as *testAS) { as.introMode = tt.mode })
			// Each case from an address of its own: one address may cause
			// introspectBurst introspections at once.
			got := mustDo(t, ts.clientFrom(t, fmt.Sprintf("192.0.2.%d:40000", i+1)), newTestHTTPRequest(t, authContext(t), ts, "", callLine("write"), []string{bearer(tt.token)}))
			if got.status != tt.status || !strings.Contains(string(got.body), tt.body) {
				t.Fatalf("status %d, want %d: %s", got.status, tt.status, got.body)
			}
			if tt.status == 503 && got.header.Get("Retry-After") == "" {
				t.Error("503 without Retry-After")
			}
		})
	}
	n := as.count("/introspect")
	if got := authDo(t, ts, callLine("write"), bearer("op-good")); got.status != 200 || as.count("/introspect") != n {
		t.Errorf("a cached token was introspected again (%d -> %d)", n, as.count("/introspect"))
	}
	if got := authDo(t, ts, callLine("write"), bearer("aaaa.bbbb.cccc")); got.status != 401 || as.count("/introspect") != n {
		t.Errorf("a JWT was introspected: status %d, %d -> %d", got.status, n, as.count("/introspect"))
	}
	if got := authDo(t, ts, callLine("write"), bearer("op-"+strings.Repeat("x", maxTokenBytes))); got.status != 401 || as.count("/introspect") != n {
		t.Errorf("an oversize token was introspected: status %d, %d -> %d", got.status, n, as.count("/introspect"))
	}
}

// TestAuthIntrospectionBounds: one client address holds at most its
// share of the maxIntrospections slots, and more of its tokens are 503 at
// once, so made-up tokens from one address leave a valid token from
// another its exchange (review B, finding 1: it got 503 while they were
// in flight). With every slot held (four addresses) a newcomer waits
// introspectWait, then gets 503; a slow endpoint holds a request for the
// fetch timeout at most.
func TestAuthIntrospectionBounds(t *testing.T) {
	per := int(shareOf(maxIntrospections, defaultClientShare, 1))
	type answer struct {
		status int
		took   time.Duration
	}
	// flood starts n calls with the tokens prefix-0, prefix-1, ... from
	// client, answered on the channel returned; start is when took counts
	// from.
	flood := func(t *testing.T, ts *testHTTP, client *http.Client, prefix string, n int, start time.Time) <-chan answer {
		answers := make(chan answer, n)
		for i := range n {
			r := newTestHTTPRequest(t, t.Context(), ts, "", callLine("open"), []string{bearer(fmt.Sprint(prefix, "-", i))})
			go func() {
				got, err := doTestHTTP(client, r)
				if err != nil {
					t.Error(err)
				}
				answers <- answer{got.status, time.Since(start)}
			}()
		}
		return answers
	}
	newSlowAS := func(t *testing.T) (*testAS, *testHTTP) {
		as := newTestAS(t, "", "rsa-1")
		as.set(func(as *testAS) { as.introMode = "slow" })
		return as, newTestAuthHTTP(t, newTestServer(t, withAuthRegistry(new(atomic.Int64))), as, func(c *authConfig) {
			c.introspect, c.introspectID, c.introspectPass = as.issuer+"/introspect", "rs", "rs-secret"
		})
	}
	t.Run("made-up tokens from one address", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			as, ts := newSlowAS(t)
			as.activate("op-good-0", `{"active":true,"sub":"svc","aud":"`+testResource+`"}`)
			start := time.Now()
			madeUp := flood(t, ts, ts.clientFrom(t, "192.0.2.1:40000"), "made-up", maxIntrospections, start)
			synctest.Wait()
			for range maxIntrospections - per {
				if a := <-madeUp; a.status != 503 || a.took != 0 {
					t.Errorf("past the address's share: status %d after %v, want 503 at once", a.status, a.took)
				}
			}
			good := flood(t, ts, ts.clientFrom(t, "198.51.100.7:40000"), "op-good", 1, start)
			synctest.Wait()
			if n := as.count("/introspect"); n != per+1 {
				t.Errorf("%d introspections in flight, want the address's %d and the valid token's", n, per)
			}
			as.unblock()
			if a := <-good; a.status != 200 {
				t.Errorf("a valid token from another address: status %d, want 200", a.status)
			}
			for range per {
				if a := <-madeUp; a.status != 401 {
					t.Errorf("a made-up token introspected: status %d, want 401", a.status)
				}
			}
		})
	})
	t.Run("every slot held", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			_, ts := newSlowAS(t)
			start := time.Now()
			var held []<-chan answer
			for i := range maxIntrospections / per {
				held = append(held, flood(t, ts, ts.clientFrom(t, fmt.Sprintf("192.0.2.%d:40000", i+1)), "slow", per, start))
			}
			synctest.Wait()
			late := flood(t, ts, ts.clientFrom(t, "198.51.100.7:40000"), "late", 1, start)
			if a := <-late; a.status != 503 || a.took != introspectWait {
				t.Errorf("one more than %d in flight: status %d after %v, want 503 after %v", maxIntrospections, a.status, a.took, introspectWait)
			}
			for _, answers := range held {
				for range per {
					if a := <-answers; a.status != 503 || a.took != defaultFetchTimeout {
						t.Errorf("slow introspection: status %d after %v, want 503 after %v", a.status, a.took, defaultFetchTimeout)
					}
				}
			}
		})
	})
}

// TestAuthUnavailableBound: over HTTP, a request whose keys are being
// fetched from a slow authorization server is answered after the bound,
// 503 with Retry-After; once the keys came, requests are served.
func TestAuthUnavailableBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		as := newTestAS(t, "", "rsa-1")
		as.set(func(as *testAS) { as.jwksMode = "slow" })
		ts := newTestAuthHTTP(t, newTestServer(t, withAuthRegistry(new(atomic.Int64))), as, nil)
		tok := bearer(as.mint(t, "rsa-1", "alice", "", nil))
		start := time.Now()
		got := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", callLine("open"), []string{tok}))
		if got.status != 503 || got.code != codeServerBusy || got.header.Get("Retry-After") != "10" || time.Since(start) != defaultKeyWait {
			t.Errorf("status %d code %d Retry-After %q after %v, want 503 -31503 10 after %v: %s",
				got.status, got.code, got.header.Get("Retry-After"), time.Since(start), defaultKeyWait, got.body)
		}
		if got.header.Get("WWW-Authenticate") != "" {
			t.Errorf("503 with a challenge: %q", got.header.Get("WWW-Authenticate"))
		}
		as.unblock()
		synctest.Wait()
		if got := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", callLine("open"), []string{tok})); got.status != 200 {
			t.Errorf("after the keys came: status %d: %s", got.status, got.body)
		}
	})
}

// TestAuthStreamsEndAtExpiry: a subscriptions/listen stream and a classic
// GET stream opened with a token end when it expires: a JWT's exp, and
// for an introspected token the earlier of its exp and the end of its
// cached answer, since RFC 7662 makes exp optional and revocation is only
// seen by introspecting again (review B, finding 5: such streams never
// ended). A revoked token then opens nothing.
func TestAuthStreamsEndAtExpiry(t *testing.T) {
	const life = 90 * time.Second
	for _, tt := range []struct {
		name  string
		token func(as *testAS, name string) (tok string, revoke func()) // a token named name, valid at least life
		life  time.Duration
	}{
		{"a JWT ends its streams at exp", func(as *testAS, name string) (string, func()) {
			return as.mint(t, "rsa-1", "alice", "", func(h, c map[string]any) { c["exp"], c["jti"] = time.Now().Add(life).Unix(), name }), nil
		}, life},
		{"an introspected token with exp: its cached answer ends first", func(as *testAS, name string) (string, func()) {
			tok := "op-exp-" + name
			as.activate(tok, `{"active":true,"sub":"svc","aud":"`+testResource+`","exp":`+itoa(time.Now().Add(life).Unix())+`}`)
			return tok, func() { as.activate(tok, `{"active":false}`) }
		}, introspectionTTL},
		{"an introspected token without exp", func(as *testAS, name string) (string, func()) {
			tok := "op-" + name
			as.activate(tok, `{"active":true,"sub":"svc","aud":"`+testResource+`"}`)
			return tok, func() { as.activate(tok, `{"active":false}`) }
		}, introspectionTTL},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				as := newTestAS(t, "", "rsa-1")
				ts := newTestAuthHTTP(t, newTestServer(t, withAuthRegistry(new(atomic.Int64))), as, func(c *authConfig) {
					c.introspect, c.introspectID, c.introspectPass = as.issuer+"/introspect", "rs", "rs-secret"
				})
				tok, _ := tt.token(as, "listen")
				start := time.Now()
				listen := req("8", "subscriptions/listen", `"notifications":{"toolsListChanged":true}`)
				resp, err := ts.Client().Do(newTestHTTPRequest(t, t.Context(), ts, "", listen, []string{bearer(tok)}))
				if err != nil {
					t.Fatal(err)
				}
				r := bufio.NewReader(resp.Body)
				ack, _ := nextSSE(r)
				closure, ok := nextSSE(r)
				resp.Body.Close()
				if !strings.Contains(ack, "acknowledged") || !ok || time.Since(start) != tt.life {
					t.Errorf("listen: %s then %s after %v, want the closure result after %v", ack, closure, time.Since(start), tt.life)
				}
				mustBeListenCompletion(t, closure, "8") // the 2026-07-28 errata (errata_test.go)

				tok, revoke := tt.token(as, "get")
				c := newTestClassicClient(t, ts)
				c.always = []string{bearer(tok)}
				c.initialize(bridgeInit(version20251125, `{}`))
				start = time.Now()
				get := c.open(http.MethodGet)
				_, _ = bufio.NewReader(get.Body).ReadString(0) // until the stream ends
				get.Body.Close()
				if took := time.Since(start); took != tt.life {
					t.Errorf("classic GET stream ended after %v, want %v", took, tt.life)
				}
				if revoke != nil {
					revoke()
					if got := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", listen, []string{bearer(tok)})); got.status != 401 {
						t.Errorf("listen again with the revoked token: status %d, want 401", got.status)
					}
				}
			})
		})
	}
}

// TestAuthAudit: one line per request of an authenticated caller, with
// its principal, method, name, outcome and duration, never the token: the
// access line (logging.go), or with -access-log=false the audit line;
// refused credentials are counted in a rate-limited line.
func TestAuthAudit(t *testing.T) {
	for _, tt := range []struct {
		name  string
		flags []string
		want  []string
		never string
	}{
		{"access lines", nil, []string{
			`msg=request id=2 transport=http era=modern protocol=2026-07-28 method=tools/call name=open principal=http://127.0.0.1:39300#alice client=pipe outcome=ok duration_us=`,
			`msg=request id=2 transport=http era=modern protocol=2026-07-28 method=tools/call name=write principal=http://127.0.0.1:39300#alice client=pipe outcome=forbidden code=-31403 duration_us=`,
			`msg=request id=3 transport=http era=modern protocol=2026-07-28 method=resources/read name=docs://public principal=http://127.0.0.1:39300#alice client=pipe outcome=ok duration_us=`,
			`msg=request id=2 transport=http era=modern protocol=2026-07-28 method=tools/call name=confirm principal=http://127.0.0.1:39300#alice client=pipe outcome=client_error code=-32021 duration_us=`,
		}, "msg=audit"},
		{"audit lines without access lines", []string{"-access-log=false"}, []string{
			// The access line's fields, spelt as it spells them.
			`msg=audit id=2 transport=http era=modern protocol=2026-07-28 method=tools/call name=open principal=http://127.0.0.1:39300#alice client=pipe outcome=ok duration_us=`,
			`msg=audit id=2 transport=http era=modern protocol=2026-07-28 method=tools/call name=write principal=http://127.0.0.1:39300#alice client=pipe outcome=forbidden code=-31403 duration_us=`,
			`msg=audit id=3 transport=http era=modern protocol=2026-07-28 method=resources/read name=docs://public principal=http://127.0.0.1:39300#alice client=pipe outcome=ok duration_us=`,
			`msg=audit id=2 transport=http era=modern protocol=2026-07-28 method=tools/call name=confirm principal=http://127.0.0.1:39300#alice client=pipe outcome=client_error code=-32021 duration_us=`,
			` trace_id=`,
		}, "msg=request"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as := newTestAS(t, "", "rsa-1")
			logs := &syncBuffer{}
			ts := newTestAuthHTTP(t, newTestServer(t, withAuthRegistry(new(atomic.Int64)), withLogs(logs), withFlags(tt.flags...)), as, nil)
			tok := as.mint(t, "rsa-1", "alice", "", nil)
			authDo(t, ts, callLine("open"), bearer(tok))
			authDo(t, ts, callLine("write"), bearer(tok))
			authDo(t, ts, req("3", "resources/read", `"uri":"docs://public"`), bearer(tok))
			authDo(t, ts, callLine("confirm"), bearer(tok))
			authDo(t, ts, callLine("open"), bearer("not-"+tok))
			out := logs.String()
			for _, want := range append(tt.want, `msg="authentication refused" counts="malformed JWT: 1" last="malformed JWT: header: invalid JSON"`) {
				if !strings.Contains(out, want) {
					t.Errorf("log lacks %s:\n%s", want, out)
				}
			}
			if strings.Contains(out, tt.never) {
				t.Errorf("log has %s lines as well: one line per request:\n%s", tt.never, out)
			}
			if strings.Contains(out, tok[len(tok)-20:]) {
				t.Errorf("the log holds the token:\n%s", out)
			}
		})
	}
}

// TestAuthCORS: a browser client of an allowed origin can read the
// challenge.
func TestAuthCORS(t *testing.T) {
	as := newTestAS(t, "", "rsa-1")
	ts := newTestAuthHTTP(t, newTestServer(t), as, nil)
	ts.tr.origins["https://app.example"] = true
	_ = ts.tr.cop.AddTrustedOrigin("https://app.example")
	got := authDo(t, ts, callLine("echo"), "Origin: https://app.example")
	if got.status != 401 || got.header.Get("Access-Control-Expose-Headers") != "Mcp-Session-Id, WWW-Authenticate" {
		t.Errorf("status %d, Access-Control-Expose-Headers %q", got.status, got.header.Get("Access-Control-Expose-Headers"))
	}
}

// TestAuthFlags: what the authorization flags accept and refuse, and the
// resource derived from -http.
func TestAuthFlags(t *testing.T) {
	creds := mustIntrospectCredentials(t)
	badCreds := mustWriteFile(t, t.TempDir(), "creds", []byte("only-one-line\n"), 0o600)
	tokens := mustWriteFile(t, t.TempDir(), "tokens", []byte("alice "+testToken+"\n"), 0o600)
	for _, tt := range []struct {
		name string
		args []string
		err  string // "" accepted
	}{
		{name: "https issuer", args: []string{"-http", "8080", "-oauth-issuer", "https://as.example.com/t"}},
		{name: "loopback http issuer", args: []string{"-http", "8080", "-oauth-issuer", "http://localhost:9000"}},
		{name: "all flags", args: []string{"-http", "8080", "-oauth-issuer", "https://as.example.com", "-oauth-resource", "https://mcp.example.com/mcp",
			"-oauth-audience", "api://x", "-oauth-jwks", "https://as.example.com/keys?v=2", "-oauth-introspect", "https://as.example.com/introspect",
			"-oauth-introspect-credentials", creds, "-oauth-scopes", "mcp:tools mcp:read", "-scope-implies", "mcp:admin=mcp:tools,mcp:read", "-scope-filter-lists"}},
		{name: "scopes with a token file", args: []string{"-http", "8080", "-token-file", tokens, "-oauth-scopes", "mcp:tools"}},
		{name: "without -http", args: []string{"-oauth-issuer", "https://as.example.com"}, err: "need -http"},
		{name: "scope flags without -http", args: []string{"-scope-filter-lists"}, err: "need -http"},
		{name: "a token file without -http", args: []string{"-token-file", "/nonexistent"}, err: "-token-file needs -http"},
		{name: "a trusted proxy without -http", args: []string{"-trusted-proxy", "10.0.0.1"}, err: "-trusted-proxy needs -http"},
		{name: "http issuer elsewhere", args: []string{"-http", "8080", "-oauth-issuer", "http://as.example.com"}, err: "must be https"},
		{name: "issuer with a query", args: []string{"-http", "8080", "-oauth-issuer", "https://as.example.com/?x=1"}, err: "no query"},
		{name: "issuer with a fragment", args: []string{"-http", "8080", "-oauth-issuer", "https://as.example.com/#x"}, err: "no user information or fragment"},
		{name: "relative issuer", args: []string{"-http", "8080", "-oauth-issuer", "/as"}, err: "absolute URL"},
		{name: "resource needed off loopback", args: []string{"-http", "0.0.0.0:8080", "-oauth-issuer", "https://as.example.com"}, err: "-oauth-resource is required"},
		{name: "http resource elsewhere", args: []string{"-http", "8080", "-oauth-issuer", "https://as.example.com", "-oauth-resource", "http://mcp.example.com/mcp"}, err: "must be https"},
		{name: "http JWKS elsewhere", args: []string{"-http", "8080", "-oauth-issuer", "https://as.example.com", "-oauth-jwks", "http://as.example.com/keys"}, err: "must be https"},
		{name: "resource flags without issuer", args: []string{"-http", "8080", "-oauth-jwks", "https://as.example.com/keys"}, err: "need -oauth-issuer"},
		{name: "scopes without any authentication", args: []string{"-http", "8080", "-oauth-scopes", "a"}, err: "need -oauth-issuer or -token-file"},
		{name: "introspection without credentials", args: []string{"-http", "8080", "-oauth-issuer", "https://as.example.com", "-oauth-introspect", "https://as.example.com/i"}, err: "go together"},
		{name: "credentials of one line", args: []string{"-http", "8080", "-oauth-issuer", "https://as.example.com", "-oauth-introspect", "https://as.example.com/i", "-oauth-introspect-credentials", badCreds}, err: "want two lines"},
		{name: "offline_access", args: []string{"-http", "8080", "-oauth-issuer", "https://as.example.com", "-oauth-scopes", "mcp offline_access"}, err: "offline_access"},
		{name: "a scope with a quote", args: []string{"-http", "8080", "-oauth-issuer", "https://as.example.com", "-oauth-scopes", `a"b`}, err: "not a scope token"},
		{name: "scope-implies without =", args: []string{"-http", "8080", "-token-file", tokens, "-scope-implies", "admin"}, err: "want broad=narrow"},
		{name: "scope-implies of itself", args: []string{"-http", "8080", "-token-file", tokens, "-scope-implies", "admin=admin"}, err: "not a narrower scope"},
		{name: "an empty audience", args: []string{"-http", "8080", "-oauth-issuer", "https://as.example.com", "-oauth-audience", ""}, err: "empty audience"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseFlags(tt.args, io.Discard, func(string) string { return "" })
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("parseFlags = %v, want %q", err, tt.err)
			}
		})
	}
	for _, tt := range []struct {
		addr  string
		bound *net.TCPAddr
		want  string
	}{
		{"127.0.0.1:8080", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, "http://127.0.0.1:8080/mcp"},
		{"localhost:0", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5555}, "http://localhost:5555/mcp"},
		{"[::1]:8080", &net.TCPAddr{IP: net.IPv6loopback, Port: 8080}, "http://[::1]:8080/mcp"},
	} {
		if got := derivedResource("", tt.addr, tt.bound); got != tt.want {
			t.Errorf("derivedResource(%q, %v) = %q, want %q", tt.addr, tt.bound, got, tt.want)
		}
	}
}

// BenchmarkAuthHTTPToolsCall is BenchmarkHTTPToolsCall with an OAuth
// access token on every request (verified once, then from the cache),
// and scopes checked: the cost of authorization on the hot path.
func BenchmarkAuthHTTPToolsCall(b *testing.B) {
	as := newTestAS(b, "", "rsa-1")
	ts := newTestAuthHTTP(b, newTestServer(b, withBaseScopes("mcp:tools")), as, nil)
	benchHTTPToolsCall(b, ts, bearer(as.mint(b, "rsa-1", "alice", "mcp:tools", nil)))
}

// TestAuthFailureLog: refusals are logged at most once a second with
// their counts; those within the second are logged when it ends, not at
// the next refusal however late, and what is left when the transport
// stops is logged by close; a request without any credential (the first
// step of discovery) is not warned of (review B, finding 11).
func TestAuthFailureLog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := &syncBuffer{}
		l := &failureLog{log: slog.New(slog.NewTextHandler(logs, nil))}
		lines := func() []string {
			return slices.DeleteFunc(strings.Split(logs.String(), "\n"), func(s string) bool { return s == "" })
		}
		l.add("expired", "exp 1")
		l.add("wrong audience", "aud x")
		l.add("expired", "exp 2")
		if got := lines(); len(got) != 1 || !strings.Contains(got[0], `counts="expired: 1"`) {
			t.Fatalf("after three refusals at once: %q, want the first alone", got)
		}
		<-time.After(failureLogEvery)
		synctest.Wait()
		if got := lines(); len(got) != 2 || !strings.Contains(got[1], `counts="expired: 1; wrong audience: 1" last="expired: exp 2"`) {
			t.Fatalf("a second later: %q, want the other two counted", got)
		}
		l.add("expired", "exp 3")
		l.close()
		if got := lines(); len(got) != 3 || !strings.Contains(got[2], `counts="expired: 1"`) {
			t.Errorf("after close: %q, want the last refusal logged", got)
		}
	})
	as := newTestAS(t, "", "rsa-1")
	logs := &syncBuffer{}
	ts := newTestAuthHTTP(t, newTestServer(t, withAuthRegistry(new(atomic.Int64)), withLogs(logs)), as, nil)
	if got := authDo(t, ts, callLine("open"), "-Authorization"); got.status != 401 {
		t.Fatalf("no credential: status %d", got.status)
	}
	if strings.Contains(logs.String(), "authentication refused") {
		t.Errorf("a request without a credential was warned of:\n%s", logs.String())
	}
}

// TestAuthOneSnapshot: the scope check and the handler find the target in
// one registry snapshot. A tool replaced between them by one that declares
// a scope the caller lacks does not run: the call runs the tool that was
// checked (review B, finding 7: the handler looked the name up again and
// ran a tool whose scopes were never checked).
func TestAuthOneSnapshot(t *testing.T) {
	s := newTestServer(t, withRegistry())
	s.addTool(tool{Name: "x", Call: func(ctx context.Context, req *request) (*toolResult, error) { return textResult("open"), nil }})
	msg, rerr := parseMessage([]byte(callLine("x")))
	if rerr != nil {
		t.Fatal(rerr)
	}
	req := s.newRequest(&msg, nil, framing{})
	req.caller = caller{principal: "p", share: "p", scoped: true}
	if rerr := s.authorize(req); rerr != nil {
		t.Fatalf("authorize = %v, want the unscoped tool allowed", rerr)
	}
	s.removeTool("x")
	s.addTool(tool{Name: "x", Scopes: []string{"admin"}, Call: func(ctx context.Context, req *request) (*toolResult, error) { return textResult("admin only"), nil }})
	res, err := s.handleToolsCall(t.Context(), req)
	if body, _ := json.Marshal(res.body); err != nil || !strings.Contains(string(body), `"text":"open"`) {
		t.Errorf("handleToolsCall after the tool was replaced = %s, %v; want the checked tool's result", body, err)
	}
}

// TestAuthBindingClient: what a caller creates is bound to its principal
// and to the OAuth client its token was issued to (client_id, else azp):
// a token of the same user issued to another client reaches none of a
// task, a classic session or a requestState, exactly as a token of
// another user does not; a refreshed token of the same client reaches
// all three.
func TestAuthBindingClient(t *testing.T) {
	as := newTestAS(t, "", "rsa-1")
	s := newTestServer(t, withAuthRegistry(new(atomic.Int64)), withFlags("-rate-limit", "0"), withSetup(func(s *server) {
		s.addTool(tool{Name: "later", Task: taskMust, Call: func(ctx context.Context, req *request) (*toolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}})
	}))
	ts := newTestAuthHTTP(t, s, as, nil)
	token := func(edit func(c map[string]any)) string {
		return bearer(as.mint(t, "rsa-1", "alice", "", func(h, c map[string]any) {
			c["jti"] = fmt.Sprint(time.Now().UnixNano())
			edit(c)
		}))
	}
	appA := token(func(c map[string]any) { c["client_id"] = "app-a" })
	appAAgain := token(func(c map[string]any) { c["client_id"] = "app-a" })
	appAByAzp := token(func(c map[string]any) { delete(c, "client_id"); c["azp"] = "app-a" })
	appB := token(func(c map[string]any) { c["client_id"] = "app-b" })

	id := mustTaskID(t, mustDecode(t, string(authDo(t, ts, taskLine(1, "tools/call", `"name":"later"`), appA).body)))
	get := taskLine(2, "tasks/get", fmt.Sprintf(`"taskId":%q`, id))
	for _, tt := range []struct {
		name, token string
		reaches     bool
	}{
		{"the same client, a refreshed token", appAAgain, true},
		{"the same client named by azp", appAByAzp, true},
		{"another client of the same user", appB, false},
	} {
		if got := authDo(t, ts, get, tt.token); (got.code == 0) != tt.reaches {
			t.Errorf("%s: tasks/get of the task = %d %s, want reached %v", tt.name, got.status, got.body, tt.reaches)
		}
	}

	init := authDo(t, ts, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, appA, "-MCP-Protocol-Version")
	sid := init.header.Get(headerSessionID)
	if sid == "" {
		t.Fatalf("initialize: %d %s", init.status, init.body)
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	if got := authDo(t, ts, ping, appAAgain, headerSessionID+": "+sid, "-MCP-Protocol-Version"); got.status != http.StatusOK {
		t.Errorf("the session with app-a's refreshed token: %d %s, want 200", got.status, got.body)
	}
	if got := authDo(t, ts, ping, appB, headerSessionID+": "+sid, "-MCP-Protocol-Version"); got.status != http.StatusNotFound {
		t.Errorf("app-a's session with app-b's token: %d %s, want 404", got.status, got.body)
	}

	withForms := func(id, params string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + params + `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}}`
	}
	state, _ := jsonPath(mustDecode(t, string(authDo(t, ts, withForms("3", `"name":"confirm"`), appA).body)), "result.requestState").(string)
	retry := withForms("4", `"name":"confirm","inputResponses":{"ok":{"action":"accept","content":{"ok":true}}},"requestState":"`+state+`"`)
	if got := authDo(t, ts, retry, appB); got.code != codeInvalidParams {
		t.Errorf("app-a's requestState with app-b's token: %d %s, want -32602", got.status, got.body)
	}
	if got := authDo(t, ts, retry, appAAgain); !strings.Contains(string(got.body), "confirmed") {
		t.Errorf("app-a's requestState with its refreshed token: %s", got.body)
	}
}
