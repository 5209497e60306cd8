// Tests of the URI template matcher (uritemplate.go): matching one row
// per rule, bounded work on hostile URIs, its fuzz targets, and localPath.

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTemplateMatch checks level 1 URI template matching (RFC 6570 as the
// spec uses it): variables take any non-empty text, slashes included, the
// leftmost shortest split wins, and nothing is percent-decoded.
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

// templateSeeds are the template and URI pairs both template fuzz targets
// start from: backtracking, separators, slashes, escapes.
var templateSeeds = [][2]string{
	{"demo://items/{id}", "demo://items/42"},
	{"x://{owner}/repos/{repo}", "x://a/repos/b/repos/c"},
	{"x://files/{path}.json", "x://files/a.json.json"},
	{"x://{a}.{b}.end", "x://1.2.end.end"},
	{"x://{a}-{b}-{c}", "x://-------"},
	{"{a}/{b}", "//"},
	{"x://{a}?q={b}", "x://%20?q=%41"},
	{"x://{a}/{b}/{c}.json", "x://" + strings.Repeat("/", 2000)},
	{"{a}", "%00"},
}

// FuzzTemplateMatch checks the matcher alone: whatever it matches, the
// variables are non-empty and expand back to the URI.
func FuzzTemplateMatch(f *testing.F) {
	for _, seed := range templateSeeds {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, template, uri string) {
		ut, err := compileTemplate(template)
		if err != nil || len(uri) > maxURILength {
			return
		}
		vars, ok := ut.match(uri)
		if !ok {
			return
		}
		for _, v := range ut.vars {
			if vars[v] == "" {
				t.Errorf("match(%q, %q): variable %s is empty", template, uri, v)
			}
		}
		if got := expandTemplate(ut, vars); got != uri {
			t.Errorf("match(%q, %q) = %v, which expands to %q", template, uri, vars, got)
		}
	})
}

// FuzzTemplateRead sends a URI through resources/read against a template:
// within fuzzInputBudget, an accepted URI expands back from its variables
// as JSON carried it, and anything refused is -32602.
func FuzzTemplateRead(f *testing.F) {
	for _, seed := range templateSeeds {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, template, uri string) {
		if _, err := compileTemplate(template); err != nil {
			return
		}
		s := newTestServer(t, withRegistry())
		s.addTemplate(resourceTemplate{URITemplate: template, Name: "t",
			Read: func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
				b, _ := json.Marshal(vars)
				return []resourceContents{{URI: uri, Text: string(b)}}, nil
			}})
		line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "resources/read",
			"params": map[string]any{"uri": uri, "_meta": map[string]any{metaProtocolVersion: "2026-07-28", metaClientCapabilities: map[string]any{}}}})
		msg, rerr := parseMessage(line)
		if rerr != nil {
			t.Fatalf("parseMessage of an encoded request: %v", rerr)
		}
		start := time.Now()
		reply := s.dispatch(context.Background(), &msg, exchange{send: func([]byte) {}})
		if d := time.Since(start); d > fuzzInputBudget {
			t.Errorf("resources/read of %d bytes against %q took %v", len(uri), template, d)
		}
		var r struct {
			Result *struct {
				Contents []struct{ URI, Text string }
			}
			Error *struct{ Code int }
		}
		if err := json.Unmarshal(reply, &r); err != nil {
			t.Fatalf("reply %q: %v", reply, err)
		}
		if r.Error != nil {
			if r.Error.Code != codeInvalidParams {
				t.Errorf("resources/read error %d, want -32602", r.Error.Code)
			}
			return
		}
		// An accepted URI round-trips: the variables expand back to it.
		ut, _ := compileTemplate(template)
		var vars map[string]string
		if len(r.Result.Contents) != 1 || json.Unmarshal([]byte(r.Result.Contents[0].Text), &vars) != nil {
			t.Fatalf("contents %+v", r.Result.Contents)
		}
		// The server saw the URI as JSON carried it: each invalid UTF-8
		// byte became one U+FFFD.
		var want string
		_ = json.Unmarshal(mustMarshalString(uri), &want)
		if got := expandTemplate(ut, vars); got != want || r.Result.Contents[0].URI != want {
			t.Errorf("%q matched %q as %v, which expands to %q", uri, template, vars, got)
		}
	})
}

// mustMarshalString is the JSON encoding of s.
func mustMarshalString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// expandTemplate writes ut with vars in place of its variables: the
// inverse of a match, which the fuzz targets check.
func expandTemplate(ut *uriTemplate, vars map[string]string) string {
	var b strings.Builder
	for i, v := range ut.vars {
		b.WriteString(ut.literals[i] + vars[v])
	}
	return b.String() + ut.literals[len(ut.vars)]
}

// TestLocalPath checks the helper that turns a template variable into a
// path under a root: every way a client could write a path that leaves
// the root, or that another decoder would turn into one, is refused.
// Issue 20, finding 4.
// [§Security Considerations]: https://modelcontextprotocol.io/specification/2026-07-28/server/resources#security-considerations
func TestLocalPath(t *testing.T) {
	for _, tt := range []struct {
		in, want string // want "" means refused
	}{
		{"notes.txt", "notes.txt"},
		{"2026/07/28.md", filepath.FromSlash("2026/07/28.md")},
		{"a%20b.txt", "a b.txt"},
		{"a//b", filepath.FromSlash("a/b")},
		{"./a", "a"},
		{"..", ""},
		{"../etc/passwd", ""},
		{"a/../../b", ""},
		{"a/../b", ""},
		{"%2e%2e/etc/passwd", ""},
		{"%2E%2E%2Fetc", ""},
		{"%252e%252e/etc", ""},
		{"/etc/passwd", ""},
		{"%2Fetc%2Fpasswd", ""},
		{"a%00b", ""},
		{"a\x00b", ""},
		{"a%0Ab", ""},
		{`..\windows`, ""},
		{"a%5Cb", ""},
		{"%zz", ""},
		{".", ""},
		{"", ""},
	} {
		got, err := localPath(tt.in)
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("localPath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestTemplateReadsUnderRoot serves files through a template the way
// README shows (localPath, then os.Root): a file inside the root is read;
// traversal is -32602 before the disk is touched; a symbolic link inside
// the root that points out of it is refused by os.Root.
func TestTemplateReadsUnderRoot(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	for name, text := range map[string]string{filepath.Join(dir, "note.txt"): "inside", filepath.Join(outside, "secret.txt"): "outside"} {
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	s := newTestServer(t, withRegistry(), withSetup(func(s *server) {
		s.addTemplate(resourceTemplate{URITemplate: "notes://file/{name}", Name: "note",
			Read: func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
				name, err := localPath(vars["name"])
				if err != nil {
					return nil, invalidParams("invalid params: %v", err)
				}
				text, err := root.ReadFile(name)
				if err != nil {
					return nil, s.resourceNotFound(req, uri)
				}
				return []resourceContents{{URI: uri, Text: string(text)}}, nil
			}})
	}))
	for _, tt := range []struct {
		uri, want string
	}{
		{"notes://file/note.txt", `"text":"inside"`},
		{"notes://file/../secret.txt", `"code":-32602,"message":"invalid params: path leaves its directory (..)"`},
		{"notes://file/%2e%2e%2f" + url.PathEscape(filepath.Base(outside)) + "%2fsecret.txt", `"message":"invalid params: path leaves its directory (..)"`},
		{"notes://file/link.txt", `"code":-32602,"message":"resource not found"`},
	} {
		got := mustServeOne(t, s, req("1", "resources/read", `"uri":"`+tt.uri+`"`))
		if !strings.Contains(got, tt.want) || strings.Contains(got, "outside") {
			t.Errorf("read %s = %s, want %s", tt.uri, got, tt.want)
		}
	}
}
