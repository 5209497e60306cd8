// Tests of the modern era's per-request contract (discover.go): _meta
// validation, version negotiation, result stamping, server/discover,
// cache hints, and the flags that set them (through run).

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// metaWith returns a request line whose params._meta is exactly meta.
func metaWith(meta string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":` + meta + `}}`
}

func TestMetaFailures(t *testing.T) {
	const v, c = `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`, `"io.modelcontextprotocol/clientCapabilities":{}`
	for _, tt := range []struct {
		name string
		line string
		code int
	}{
		{"params missing", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, codeInvalidParams},
		{"_meta missing", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, codeInvalidParams},
		{"_meta not an object", metaWith(`[]`), codeInvalidParams},
		{"version missing", metaWith(`{` + c + `}`), codeInvalidParams},
		{"capabilities missing", metaWith(`{` + v + `}`), codeInvalidParams},
		{"version a number", metaWith(`{"io.modelcontextprotocol/protocolVersion":20260728,` + c + `}`), codeInvalidParams},
		{"version null", metaWith(`{"io.modelcontextprotocol/protocolVersion":null,` + c + `}`), codeInvalidParams},
		{"capabilities a string", metaWith(`{` + v + `,"io.modelcontextprotocol/clientCapabilities":"all"}`), codeInvalidParams},
		{"capabilities null", metaWith(`{` + v + `,"io.modelcontextprotocol/clientCapabilities":null}`), codeInvalidParams},
		{"clientInfo a string", metaWith(`{` + v + `,` + c + `,"io.modelcontextprotocol/clientInfo":"me"}`), codeInvalidParams},
		{"logLevel unknown", metaWith(`{` + v + `,` + c + `,"io.modelcontextprotocol/logLevel":"loud"}`), codeInvalidParams},
		{"logLevel upper case", metaWith(`{` + v + `,` + c + `,"io.modelcontextprotocol/logLevel":"INFO"}`), codeInvalidParams},
		{"logLevel a number", metaWith(`{` + v + `,` + c + `,"io.modelcontextprotocol/logLevel":3}`), codeInvalidParams},
		{"progressToken fractional", metaWith(`{` + v + `,` + c + `,"progressToken":1.5}`), codeInvalidParams},
		{"progressToken boolean", metaWith(`{` + v + `,` + c + `,"progressToken":true}`), codeInvalidParams},
		{"progressToken object", metaWith(`{` + v + `,` + c + `,"progressToken":{}}`), codeInvalidParams},
		{"progressToken null", metaWith(`{` + v + `,` + c + `,"progressToken":null}`), codeInvalidParams},
		{"version unsupported", metaWith(`{"io.modelcontextprotocol/protocolVersion":"2025-11-25",` + c + `}`), codeUnsupportedVersion},
		{"version empty", metaWith(`{"io.modelcontextprotocol/protocolVersion":"",` + c + `}`), codeUnsupportedVersion},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t)
			got := mustServeOne(t, s, tt.line)
			if code := errorCode(t, got); code != tt.code {
				t.Errorf("serve(%s) = %s, want code %d", tt.line, got, tt.code)
			}
		})
	}
}

func TestUnsupportedVersionData(t *testing.T) {
	s := newTestServer(t)
	got := mustServeOne(t, s, metaWith(`{"io.modelcontextprotocol/protocolVersion":"2025-06-18","io.modelcontextprotocol/clientCapabilities":{}}`))
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2025-06-18"}}}`
	if !sameJSON(t, got, want) {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestMetaOptionalMembersAccepted(t *testing.T) {
	s := newTestServer(t)
	line := metaWith(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/logLevel":"debug","progressToken":"t",` +
		`"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","com.example/anything":[1,2]}`)
	if got := mustServeOne(t, s, line); errorCode(t, got) != 0 {
		t.Errorf("serve(%s) = %s, want a result", line, got)
	}
}

// everyMethod holds a valid request per method of the methods table; a
// method without a row fails TestEveryResultStamped.
var everyMethod = map[string]string{
	"server/discover":          ``,
	"tools/list":               ``,
	"tools/call":               `"name":"echo","arguments":{"message":"x"}`,
	"resources/list":           ``,
	"resources/templates/list": ``,
	"resources/read":           `"uri":"demo://readme"`,
	"prompts/list":             ``,
	"prompts/get":              `"name":"greet","arguments":{"name":"Ada"}`,
	"completion/complete":      `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"A"}`,
	"subscriptions/listen":     `"notifications":{"toolsListChanged":true}`,
	// TASK is a task of slow the test creates first (everyMethodLine).
	"tasks/get":    `"taskId":"TASK"`,
	"tasks/update": `"taskId":"TASK","inputResponses":{}`,
	"tasks/cancel": `"taskId":"TASK"`,
	// The skills extension's, served by the skills part.
	methodSkillsList:    ``,
	methodSkillsGet:     `"uri":"skill://git-workflow/SKILL.md"`,
	methodDirectoryRead: `"uri":"skill://pdf-processing"`,
}

// everyMethodLine returns the request line of everyMethod's row name for
// s. A tasks/* row gets a task of its own, and declares the extension.
func everyMethodLine(tb testing.TB, s *server, name string) string {
	tb.Helper()
	params := everyMethod[name]
	if !strings.Contains(params, "TASK") {
		return req("1", name, params)
	}
	id := mustTaskID(tb, mustServeLine(tb, s, mrtrLine(1, "tools/call", `"name":"slow","arguments":{"steps":1}`, capsTasks)))
	return mrtrLine(2, name, strings.ReplaceAll(params, "TASK", id), capsTasks)
}

// cacheableMethods are the six results the caching spec gives hints,
// and the two the skills extension makes CacheableResult.
// [§Caching]: https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching
// [Skills, §Listing Skills]: https://github.com/modelcontextprotocol/ext-skills/blob/main/specification/stable/skills.mdx#listing-skills
var cacheableMethods = []string{"server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read", methodSkillsList, methodSkillsGet}

func TestEveryResultStamped(t *testing.T) {
	for _, name := range slices.Sorted(maps.Keys(methods)) {
		if methods[name].notification || methods[name].era == classicEra {
			// Classic-era results are never stamped (classic_test.go).
			continue
		}
		t.Run(name, func(t *testing.T) {
			_, ok := everyMethod[name]
			if !ok {
				t.Fatalf("no request for %s in everyMethod", name)
			}
			s := newTestServer(t, withRegistry("base", "skills"))
			// The response is the last line but a listen request's: it
			// writes its acknowledgement first, is answered when input
			// ends, and then closed (listenClosed).
			lines := mustServeAll(t, s, everyMethodLine(t, s, name)+"\n")
			last := lines[len(lines)-1]
			if name == methodSubscriptionsListen {
				last = lines[len(lines)-2]
			}
			got := mustDecode(t, last)
			res, _ := got["result"].(map[string]any)
			if res == nil {
				t.Fatalf("%s: %v, want a result", name, got)
			}
			if res["resultType"] != "complete" {
				t.Errorf("%s: resultType = %v, want complete", name, res["resultType"])
			}
			meta, _ := res["_meta"].(map[string]any)
			info, _ := json.Marshal(meta["io.modelcontextprotocol/serverInfo"])
			if !sameJSON(t, string(info), `{"name":"baremcp","version":"0.1.0"}`) {
				t.Errorf("%s: serverInfo = %s", name, info)
			}
		})
	}
}

func TestCacheHints(t *testing.T) {
	for _, name := range slices.Sorted(maps.Keys(everyMethod)) {
		t.Run(name, func(t *testing.T) {
			want := slices.Contains(cacheableMethods, name)
			if methods[name].cacheable != want {
				t.Errorf("methods[%q].cacheable = %v, want %v", name, methods[name].cacheable, want)
			}
			s := newTestServer(t, withRegistry("base", "skills"), withFlags("-cache-ttl", "2.5s", "-cache-scope", "private"))
			lines := mustServeAll(t, s, everyMethodLine(t, s, name)+"\n")
			res, _ := mustDecode(t, lines[len(lines)-1])["result"].(map[string]any)
			ttl, hasTTL := res["ttlMs"]
			scope, hasScope := res["cacheScope"]
			if name == methodTasksGet {
				// A task's own ttlMs (SEP-2663), never overwritten by
				// the cache's.
				if hasScope || ttl == json.Number("2500") {
					t.Errorf("%s: ttlMs %v cacheScope %v, want the task's ttlMs and no cacheScope", name, ttl, scope)
				}
				return
			}
			if hasTTL != want || hasScope != want {
				t.Fatalf("%s: ttlMs present %v, cacheScope present %v, want %v", name, hasTTL, hasScope, want)
			}
			if want && (ttl != json.Number("2500") || scope != "private") {
				t.Errorf("%s: ttlMs %v cacheScope %v, want 2500 private", name, ttl, scope)
			}
		})
	}
	t.Run("absent on errors", func(t *testing.T) {
		s := newTestServer(t)
		got := mustServeOne(t, s, req("1", "resources/read", `"uri":"demo://nope"`))
		if strings.Contains(got, "ttlMs") || strings.Contains(got, "cacheScope") {
			t.Errorf("error carries cache hints: %s", got)
		}
	})
	for _, tt := range []struct {
		name, uri, ttl, scope string
	}{
		// A read may depend on who asks: private by default, whatever
		// -cache-scope says of the lists (public here).
		// [§Choosing a Cache Scope]: https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching#choosing-a-cache-scope
		{"a read defaults to private", "demo://readme", "60000", "private"},
		{"template override ttlMs 0", "demo://items/1", "0", "public"},
		{"resource override", "test://clock", "5000", "private"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withRegistry("base", "extras"), withFlags("-cache-scope", "public"))
			res, _ := mustDecode(t, mustServeOne(t, s, req("1", "resources/read", `"uri":"`+tt.uri+`"`)))["result"].(map[string]any)
			if res["ttlMs"] != json.Number(tt.ttl) || res["cacheScope"] != tt.scope {
				t.Errorf("read %s: ttlMs %v cacheScope %v, want %s %s", tt.uri, res["ttlMs"], res["cacheScope"], tt.ttl, tt.scope)
			}
		})
	}
}

func TestDiscoverCapabilities(t *testing.T) {
	noop := func(ctx context.Context, req *request) (*toolResult, error) { return textResult(""), nil }
	read := func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
		return []resourceContents{{URI: uri, Text: ""}}, nil
	}
	get := func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
		return &promptResult{}, nil
	}
	complete := func(ctx context.Context, value string, args map[string]string) ([]string, error) { return nil, nil }
	for _, tt := range []struct {
		name     string
		register func(s *server)
		want     string
	}{
		{"empty registry", func(s *server) {}, `{"logging":{}}`},
		{"tools only", func(s *server) { s.addTool(tool{Name: "t", Call: noop}) }, `{"logging":{},"tools":{"listChanged":true}}`},
		{"resources only", func(s *server) { s.addResource(resource{URI: "x://a", Name: "a"}) }, `{"logging":{},"resources":{"listChanged":true,"subscribe":true}}`},
		{"templates only", func(s *server) { s.addTemplate(resourceTemplate{URITemplate: "x://{a}", Name: "a", Read: read}) }, `{"logging":{},"resources":{"listChanged":true,"subscribe":true}}`},
		{"prompt without completer", func(s *server) {
			s.addPrompt(prompt{Name: "p", Arguments: []promptArgument{{Name: "a"}}, Get: get})
		}, `{"logging":{},"prompts":{"listChanged":true}}`},
		{"prompt with completer", func(s *server) {
			s.addPrompt(prompt{Name: "p", Arguments: []promptArgument{{Name: "a", Complete: complete}}, Get: get})
		}, `{"logging":{},"prompts":{"listChanged":true},"completions":{}}`},
		{"template with completer", func(s *server) {
			s.addTemplate(resourceTemplate{URITemplate: "x://{a}", Name: "a", Read: read, Complete: map[string]completer{"a": complete}})
		}, `{"logging":{},"resources":{"listChanged":true,"subscribe":true},"completions":{}}`},
		{"tool removed", func(s *server) { s.addTool(tool{Name: "t", Call: noop}); s.removeTool("t") }, `{"logging":{}}`},
		{"every kind", func(s *server) {
			s.addTool(tool{Name: "t", Call: noop})
			s.addResource(resource{URI: "x://a", Name: "a"})
			s.addPrompt(prompt{Name: "p", Arguments: []promptArgument{{Name: "a", Complete: complete}}, Get: get})
		}, `{"logging":{},"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"completions":{}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withRegistry())
			tt.register(s)
			res, _ := mustDecode(t, mustServeOne(t, s, req("1", "server/discover", "")))["result"].(map[string]any)
			got, _ := json.Marshal(res["capabilities"])
			if !sameJSON(t, string(got), tt.want) {
				t.Errorf("capabilities = %s, want %s", got, tt.want)
			}
			if v, _ := json.Marshal(res["supportedVersions"]); string(v) != `["2026-07-28"]` {
				t.Errorf("supportedVersions = %s", v)
			}
		})
	}
	t.Run("completion without completers is method not found", func(t *testing.T) {
		s := newTestServer(t, withRegistry())
		s.addPrompt(prompt{Name: "p", Arguments: []promptArgument{{Name: "a"}}, Get: get})
		got := mustServeOne(t, s, req("1", "completion/complete", `"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":""}`))
		if errorCode(t, got) != codeMethodNotFound {
			t.Errorf("got %s, want -32601", got)
		}
	})
}

// runOnce calls run with args and one line of stdin and returns stdout.
func runOnce(tb testing.TB, args []string, line string) (string, error) {
	tb.Helper()
	var out, errOut bytes.Buffer
	err := run(tb.Context(), args, strings.NewReader(line+"\n"), &out, &errOut, func(string) string { return "" })
	return out.String(), err
}

func TestFlags(t *testing.T) {
	for _, tt := range []struct {
		name      string
		args      []string
		line      string
		wantErr   string // substring of run's error; "" means success
		wantInOut string
	}{
		{"defaults", nil, req("1", "server/discover", ""), "", `"ttlMs":60000,"cacheScope":"public"`},
		{"cache-ttl", []string{"-cache-ttl", "1500ms"}, req("1", "tools/list", ""), "", `"ttlMs":1500,`},
		{"cache-ttl zero", []string{"-cache-ttl", "0"}, req("1", "prompts/list", ""), "", `"ttlMs":0,`},
		{"cache-scope private", []string{"-cache-scope", "private"}, req("1", "resources/list", ""), "", `"cacheScope":"private"`},
		{"negative cache-ttl", []string{"-cache-ttl", "-1s"}, "", "-cache-ttl", ""},
		{"bad cache-scope", []string{"-cache-scope", "shared"}, "", "-cache-scope", ""},
		{"negative page-size", []string{"-page-size", "-1"}, "", "-page-size", ""},
		{"unknown flag", []string{"-nope"}, "", "not defined", ""},
		{"stray argument", []string{"serve"}, "", "unexpected argument", ""},
		{"help", []string{"-h"}, "", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runOnce(t, tt.args, tt.line)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("run(%q) = %v", tt.args, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("run(%q) = %v, want an error about %s", tt.args, err, tt.wantErr)
			}
			if !strings.Contains(out, tt.wantInOut) {
				t.Errorf("run(%q) wrote %s, want %s in it", tt.args, out, tt.wantInOut)
			}
		})
	}
}
