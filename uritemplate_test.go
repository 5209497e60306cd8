// Tests of the URI template matcher (uritemplate.go): matching one row
// per rule, bounded work on hostile URIs, and its fuzz targets.

package main

import (
	"context"
	"encoding/json"
	"fmt"
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
