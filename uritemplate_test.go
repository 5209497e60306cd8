// Tests of the URI template matcher (uritemplate.go): matching one row
// per rule, bounded work on hostile URIs, and its fuzz targets.

package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

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
