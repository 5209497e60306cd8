// Tests of the registries (tools.go, resources.go, prompts.go,
// uritemplate.go, registry.go): content kinds, argument validation,
// registration panics, template matching, prompts, completion, pagination.

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestContentKinds(t *testing.T) {
	prio := 0.5
	for _, tt := range []struct {
		name string
		c    content
		want string
	}{
		{"text", textContent("hi"), `{"type":"text","text":"hi"}`},
		{"empty text keeps text", textContent(""), `{"type":"text","text":""}`},
		{"image", imageContent([]byte{1, 2, 3}, "image/png"), `{"type":"image","data":"AQID","mimeType":"image/png"}`},
		{"audio", audioContent([]byte("RIFF"), "audio/wav"), `{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}`},
		{"resource_link", linkContent(resourceLink{URI: "x://a", Name: "a", Size: 3}), `{"type":"resource_link","uri":"x://a","name":"a","size":3}`},
		{"embedded text resource", embeddedContent(resourceContents{URI: "x://a", MimeType: "text/plain", Text: "t"}), `{"type":"resource","resource":{"uri":"x://a","mimeType":"text/plain","text":"t"}}`},
		{"embedded blob resource", embeddedContent(resourceContents{URI: "x://b", Blob: []byte{0}}), `{"type":"resource","resource":{"uri":"x://b","blob":"AA=="}}`},
		{"annotations", content{Type: "text", Text: "a", Annotations: &annotations{Audience: []string{"user"}, Priority: &prio}}, `{"type":"text","text":"a","annotations":{"audience":["user"],"priority":0.5}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.c)
			if err != nil {
				t.Fatalf("Marshal(%+v) = %v", tt.c, err)
			}
			if !sameJSON(t, string(got), tt.want) {
				t.Errorf("Marshal(%+v) = %s, want %s", tt.c, got, tt.want)
			}
		})
	}
	t.Run("structuredContent with its JSON text block", func(t *testing.T) {
		s, _ := newTestServer(t, false)
		got := serveOne(t, s, req("1", "tools/call", `"name":"add","arguments":{"a":1,"b":2}`))
		res := mustDecode(t, got)["result"]
		text, _ := jsonPath(res, "content.0.text").(string)
		sc, _ := json.Marshal(jsonPath(res, "structuredContent"))
		if !sameJSON(t, text, `{"sum":3}`) || !sameJSON(t, string(sc), `{"sum":3}`) {
			t.Errorf("add: %s, want structuredContent and text both {\"sum\":3}", got)
		}
	})
}

func TestToolArgumentValidation(t *testing.T) {
	for _, tt := range []struct {
		name, args string
		want       string // substring of the in-band error; "" means valid
	}{
		{"valid", `{"s":"okay","n":3,"e":"red","c":"fixed","list":["a"]}`, ""},
		{"valid: only required", `{"s":"ok"}`, ""},
		{"valid: integer written 2.0", `{"s":"ok","n":2.0}`, ""},
		{"required", `{}`, `missing required property "s"`},
		{"type", `{"s":5}`, `/s: want string, got number`},
		{"type integer", `{"s":"ok","n":2.5}`, `/n: want integer`},
		{"enum", `{"s":"ok","e":"blue"}`, `/e: want one of`},
		{"const", `{"s":"ok","c":"other"}`, `/c: want "fixed"`},
		{"additionalProperties", `{"s":"ok","x":1}`, `unexpected property "x"`},
		{"items", `{"s":"ok","list":[1]}`, `/list/0: want string`},
		{"minimum", `{"s":"ok","n":0}`, `/n: want >= 1`},
		{"maximum", `{"s":"ok","n":11}`, `/n: want <= 10`},
		{"minLength", `{"s":"x"}`, `/s: want at least 2 characters`},
		{"maxLength in code points", `{"s":"ééééé"}`, `/s: want at most 4 characters`},
		{"valid: maxLength counts code points", `{"s":"éééé"}`, ""},
		{"minItems", `{"s":"ok","list":[]}`, `/list: want at least 1 items`},
		{"maxItems", `{"s":"ok","list":["a","b","c"]}`, `/list: want at most 2 items`},
		{"arguments absent", ``, `missing required property "s"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, true)
			params := `"name":"typed"`
			if tt.args != "" {
				params += `,"arguments":` + tt.args
			}
			got := serveOne(t, s, req("1", "tools/call", params))
			res := mustDecode(t, got)["result"]
			isError, _ := jsonPath(res, "isError").(bool)
			text, _ := jsonPath(res, "content.0.text").(string)
			if tt.want == "" {
				if isError || res == nil {
					t.Errorf("typed(%s) = %s, want success", tt.args, got)
				}
				return
			}
			if !isError || !strings.Contains(text, tt.want) {
				t.Errorf("typed(%s) = %s, want isError with %q", tt.args, got, tt.want)
			}
		})
	}
}

func TestRegistrationPanics(t *testing.T) {
	noop := func(ctx context.Context, req *request) (*toolResult, error) { return nil, nil }
	read := func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
		return nil, nil
	}
	get := func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
		return nil, nil
	}
	for _, tt := range []struct {
		name     string
		register func(s *server)
	}{
		{"tool without name", func(s *server) { s.addTool(tool{Call: noop}) }},
		{"tool name with space", func(s *server) { s.addTool(tool{Name: "a b", Call: noop}) }},
		{"tool without Call", func(s *server) { s.addTool(tool{Name: "t"}) }},
		{"duplicate tool", func(s *server) { s.addTool(tool{Name: "t", Call: noop}); s.addTool(tool{Name: "t", Call: noop}) }},
		{"schema not JSON", func(s *server) { s.addTool(tool{Name: "t", Call: noop, InputSchema: `{`}) }},
		{"schema not an object type", func(s *server) { s.addTool(tool{Name: "t", Call: noop, InputSchema: `{"type":"string"}`}) }},
		{"unenforceable schema", func(s *server) {
			s.addTool(tool{Name: "t", Call: noop, InputSchema: `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"}]}}}`})
		}},
		{"resource without name", func(s *server) { s.addResource(resource{URI: "x://a"}) }},
		{"duplicate resource", func(s *server) {
			s.addResource(resource{URI: "x://a", Name: "a"})
			s.addResource(resource{URI: "x://a", Name: "b"})
		}},
		{"template without variables", func(s *server) { s.addTemplate(resourceTemplate{URITemplate: "x://a", Name: "a", Read: read}) }},
		{"template with adjacent variables", func(s *server) { s.addTemplate(resourceTemplate{URITemplate: "x://{a}{b}", Name: "a", Read: read}) }},
		{"template with an operator", func(s *server) { s.addTemplate(resourceTemplate{URITemplate: "x://{+a}", Name: "a", Read: read}) }},
		{"template without Read", func(s *server) { s.addTemplate(resourceTemplate{URITemplate: "x://{a}", Name: "a"}) }},
		{"completer for an unknown variable", func(s *server) {
			s.addTemplate(resourceTemplate{URITemplate: "x://{a}", Name: "a", Read: read, Complete: map[string]completer{"b": nil}})
		}},
		{"prompt without Get", func(s *server) { s.addPrompt(prompt{Name: "p"}) }},
		{"prompt with duplicate argument", func(s *server) {
			s.addPrompt(prompt{Name: "p", Get: get, Arguments: []promptArgument{{Name: "a"}, {Name: "a"}}})
		}},
		{"duplicate prompt", func(s *server) { s.addPrompt(prompt{Name: "p", Get: get}); s.addPrompt(prompt{Name: "p", Get: get}) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newEmptyServer(t)
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registration did not panic", tt.name)
				}
			}()
			tt.register(s)
		})
	}
	t.Run("unenforceable schema accepted with HandlerValidates", func(t *testing.T) {
		s, _ := newEmptyServer(t)
		s.addTool(tool{Name: "t", Call: noop, HandlerValidates: true, InputSchema: `{"type":"object","anyOf":[{"required":["a"]}]}`})
	})
}

func TestTemplateMatch(t *testing.T) {
	for _, tt := range []struct {
		name, template, uri string
		want                map[string]string // nil means no match
	}{
		{"one variable", "demo://items/{id}", "demo://items/42", map[string]string{"id": "42"}},
		{"variable takes slashes", "demo://items/{id}", "demo://items/a/b", map[string]string{"id": "a/b"}},
		{"empty variable", "demo://items/{id}", "demo://items/", nil},
		{"wrong prefix", "demo://items/{id}", "demo://item/42", nil},
		{"multiple variables", "x://{owner}/repos/{repo}", "x://ada/repos/engine", map[string]string{"owner": "ada", "repo": "engine"}},
		{"multiple variables, leftmost-shortest", "x://{a}/{b}", "x://1/2/3", map[string]string{"a": "1", "b": "2/3"}},
		{"three variables", "x://{a}-{b}-{c}", "x://1-2-3", map[string]string{"a": "1", "b": "2", "c": "3"}},
		{"backtracking past a false end", "x://files/{path}.json", "x://files/a.json.json", map[string]string{"path": "a.json"}},
		{"backtracking the first variable", "x://{a}.{b}.end", "x://1.2.end.end", map[string]string{"a": "1", "b": "2.end"}},
		{"backtracking when the last variable would be empty", "x://{a}/{b}", "x://p//", map[string]string{"a": "p", "b": "/"}},
		{"no match: suffix missing", "x://files/{path}.json", "x://files/a.txt", nil},
		{"no match: variable empty before literal", "x://files/{path}.json", "x://files/.json", nil},
		{"no match: trailing text", "x://{a}/end", "x://1/end/more", nil},
		{"not percent-decoded", "demo://items/{id}", "demo://items/a%20b%2F", map[string]string{"id": "a%20b%2F"}},
		{"literal after the last variable", "x://{a}?v=1", "x://q?v=1", map[string]string{"a": "q"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ut, err := compileTemplate(tt.template)
			if err != nil {
				t.Fatalf("compileTemplate(%q) = %v", tt.template, err)
			}
			got, ok := ut.match(tt.uri)
			if (tt.want != nil) != ok || fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("match(%q, %q) = %v, %v, want %v", tt.template, tt.uri, got, ok, tt.want)
			}
		})
	}
}

func TestResourcesRead(t *testing.T) {
	for _, tt := range []struct {
		name, uri string
		wantText  string // "" means an error
	}{
		{"exact wins over template", "demo://items/special", "the exact resource"},
		{"template", "demo://items/7", "item 7"},
		{"template values not percent-decoded", "demo://items/%41", "item %41"},
		{"multiple variables", "test://ada/repos/engine", `{"owner":"ada","repo":"engine"}`},
		{"backtracking", "test://files/x.json.json", `{"path":"x.json"}`},
		{"no match", "test://files/x.txt", ""},
		{"unknown scheme", "other://readme", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, true)
			got := mustDecode(t, serveOne(t, s, req("1", "resources/read", `"uri":"`+tt.uri+`"`)))
			if tt.wantText == "" {
				want := fmt.Sprintf(`{"code":-32602,"message":"resource not found","data":{"uri":%q}}`, tt.uri)
				e, _ := json.Marshal(got["error"])
				if !sameJSON(t, string(e), want) {
					t.Errorf("read %s: error %s, want %s", tt.uri, e, want)
				}
				return
			}
			if text := jsonPath(got, "result.contents.0.text"); text != tt.wantText {
				t.Errorf("read %s: %v, want %q", tt.uri, text, tt.wantText)
			}
		})
	}
}

func TestPromptsGet(t *testing.T) {
	for _, tt := range []struct {
		name, params string
		code         int
	}{
		{"ok", `"name":"greet","arguments":{"name":"Ada"}`, 0},
		{"optional argument absent", `"name":"kinds","arguments":{"topic":"tea"}`, 0},
		{"unknown prompt", `"name":"nope"`, codeInvalidParams},
		{"name missing", ``, codeInvalidParams},
		{"missing required argument", `"name":"greet","arguments":{}`, codeInvalidParams},
		{"arguments absent", `"name":"greet"`, codeInvalidParams},
		{"non-string argument", `"name":"greet","arguments":{"name":7}`, codeInvalidParams},
		{"null argument", `"name":"greet","arguments":{"name":null}`, codeInvalidParams},
		{"arguments not an object", `"name":"greet","arguments":["Ada"]`, codeInvalidParams},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, true)
			got := serveOne(t, s, req("1", "prompts/get", tt.params))
			if code := errorCode(t, got); code != tt.code {
				t.Errorf("prompts/get {%s} = %s, want code %d", tt.params, got, tt.code)
			}
		})
	}
}

func TestCompletion(t *testing.T) {
	for _, tt := range []struct {
		name, params string
		code         int
		values       []string // checked when code is 0 and values is non-nil
		total        int
		hasMore      bool
	}{
		{"prompt argument", `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"g"}`, 0, []string{"Grace"}, 1, false},
		{"template variable", `"ref":{"type":"ref/resource","uri":"demo://items/{id}"},"argument":{"name":"id","value":""}`, 0, []string{"1", "2", "3", "42"}, 4, false},
		{"context arguments", `"ref":{"type":"ref/prompt","name":"many"},"argument":{"name":"echo","value":"v"},"context":{"arguments":{"n":"9"}}`, 0, []string{"v|9"}, 1, false},
		{"argument without completer", `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"other","value":""}`, 0, []string{}, 0, false},
		{"capped at 100 with hasMore", `"ref":{"type":"ref/prompt","name":"many"},"argument":{"name":"n","value":"v"}`, 0, nil, 150, true},
		{"unknown prompt", `"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"name","value":""}`, codeInvalidParams, nil, 0, false},
		{"unknown template", `"ref":{"type":"ref/resource","uri":"x://{nope}"},"argument":{"name":"nope","value":""}`, codeInvalidParams, nil, 0, false},
		{"unknown ref type", `"ref":{"type":"ref/tool","name":"echo"},"argument":{"name":"message","value":""}`, codeInvalidParams, nil, 0, false},
		{"ref missing", `"argument":{"name":"name","value":""}`, codeInvalidParams, nil, 0, false},
		{"argument missing", `"ref":{"type":"ref/prompt","name":"greet"}`, codeInvalidParams, nil, 0, false},
		{"argument value not a string", `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":1}`, codeInvalidParams, nil, 0, false},
		{"context argument not a string", `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":""},"context":{"arguments":{"a":1}}`, codeInvalidParams, nil, 0, false},
		{"ref member folded", `"ref":{"TYPE":"ref/prompt","name":"greet"},"argument":{"name":"name","value":""}`, codeInvalidRequest, nil, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, true)
			line := serveOne(t, s, req("1", "completion/complete", tt.params))
			if code := errorCode(t, line); code != tt.code {
				t.Fatalf("complete {%s} = %s, want code %d", tt.params, line, tt.code)
			}
			if tt.code != 0 {
				return
			}
			var got struct {
				Result struct {
					Completion struct {
						Values  []string
						Total   int
						HasMore bool
					}
				}
			}
			if err := json.Unmarshal([]byte(line), &got); err != nil {
				t.Fatal(err)
			}
			c := got.Result.Completion
			if tt.values != nil && !slices.Equal(c.Values, tt.values) {
				t.Errorf("values = %q, want %q", c.Values, tt.values)
			}
			if len(c.Values) > maxCompletions || c.Total != tt.total || c.HasMore != tt.hasMore {
				t.Errorf("%d values, total %d, hasMore %v; want <= %d, %d, %v", len(c.Values), c.Total, c.HasMore, maxCompletions, tt.total, tt.hasMore)
			}
		})
	}
}

func TestPagination(t *testing.T) {
	for _, kind := range []struct{ method, member, key string }{
		{"tools/list", "tools", "name"},
		{"resources/list", "resources", "uri"},
		{"resources/templates/list", "resourceTemplates", "uriTemplate"},
		{"prompts/list", "prompts", "name"},
	} {
		t.Run(kind.method, func(t *testing.T) {
			all, _ := newTestServer(t, true)
			want := listNames(t, serveOne(t, all, req("1", kind.method, "")), kind.member, kind.key)
			s, _ := newTestServer(t, true, "-page-size", "2")
			c := newTestConn(t, s)
			var got []string
			cursor := ""
			for page := 0; ; page++ {
				if page > len(want) {
					t.Fatalf("%s: more pages than items", kind.method)
				}
				params := ""
				if cursor != "" {
					params = `"cursor":"` + cursor + `"`
				}
				c.send(req(fmt.Sprint(page), kind.method, params))
				line := c.recv()
				names := listNames(t, line, kind.member, kind.key)
				if len(names) == 0 || len(names) > 2 {
					t.Fatalf("%s page %d has %d items: %s", kind.method, page, len(names), line)
				}
				got = append(got, names...)
				next, _ := jsonPath(mustDecode(t, line), "result.nextCursor").(string)
				if next == "" {
					break
				}
				cursor = next
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s pages = %q, want %q", kind.method, got, want)
			}
		})
	}
	for _, tt := range []struct{ name, cursor string }{
		{"garbage", `"%%%"`},
		{"empty", `""`},
		{"zero offset", `"MA"`},
		{"negative offset", `"LTE"`},
		{"past the end", `"OTk5"`},
		{"too long", `"` + strings.Repeat("M", 100) + `"`},
		{"not a string", `3`},
		{"an object", `{}`},
	} {
		t.Run("invalid cursor "+tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, true, "-page-size", "2")
			got := serveOne(t, s, req("1", "tools/list", `"cursor":`+tt.cursor))
			if errorCode(t, got) != codeInvalidParams {
				t.Errorf("tools/list cursor %s = %s, want -32602", tt.cursor, got)
			}
		})
	}
	t.Run("null cursor is the first page", func(t *testing.T) {
		s, _ := newTestServer(t, false, "-page-size", "2")
		got := serveOne(t, s, req("1", "tools/list", `"cursor":null`))
		if errorCode(t, got) != 0 || !strings.Contains(got, `"nextCursor"`) {
			t.Errorf("tools/list cursor null = %s, want the first page", got)
		}
	})
}

// listNames returns the key member of each item of a list result.
func listNames(tb testing.TB, line, member, key string) []string {
	tb.Helper()
	items, _ := jsonPath(mustDecode(tb, line), "result."+member).([]any)
	var out []string
	for _, it := range items {
		s, _ := jsonPath(it, key).(string)
		out = append(out, s)
	}
	return out
}

func TestTemplateMatchBoundedWork(t *testing.T) {
	// A backtracking matcher took about a second per call here; the
	// linear one takes microseconds. The bound is loose enough for -race
	// on a loaded machine and still far below the old cost.
	ut, err := compileTemplate("x://{a}/{b}/{c}.json")
	if err != nil {
		t.Fatal(err)
	}
	uri := "x://" + strings.Repeat("/", maxURILength-4)
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := ut.match(uri); ok {
			t.Fatalf("match(%q) = true", uri)
		}
	})
	if allocs > 2 {
		t.Errorf("match allocates %v times on a failing URI, want <= 2", allocs)
	}
	start := time.Now()
	for range 200 {
		ut.match(uri)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("200 pathological matches took %v", d)
	}
}
