package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestFrontmatter pins what the frontmatter reader reads, as the JSON it
// renders (keys in the author's order), and what it refuses, by the words
// of its message.
func TestFrontmatter(t *testing.T) {
	for _, tt := range []struct {
		name, yaml string
		want       string // JSON, or "error: " and words of the message
	}{
		{"order kept", "name: b\ndescription: a\nlicense: MIT", `{"name":"b","description":"a","license":"MIT"}`},
		{"empty", "", `{}`},
		{"comments and blank lines", "# top\nname: x # trailing\n\n  # indented\ndescription: d", `{"name":"x","description":"d"}`},
		{"core schema scalars", "a: ~\nb: null\nc: true\nd: False\ne: 42\nf: -7\ng: +3\nh: 1.5\ni: .5\nj: 1e3\nk: 1.0\nl:", `{"a":null,"b":null,"c":true,"d":false,"e":42,"f":-7,"g":3,"h":1.5,"i":0.5,"j":1000,"k":1,"l":null}`},
		{"strings that look numeric", "a: 1.0.0\nb: v2\nc: 3.14abc\nd: -foo\ne: 1e", `{"a":"1.0.0","b":"v2","c":"3.14abc","d":"-foo","e":"1e"}`},
		{"plain with colons", "a: https://example.com/x\nb: Bash(git:*) Read", `{"a":"https://example.com/x","b":"Bash(git:*) Read"}`},
		{"quoted", `a: "x: y # z"` + "\n" + `b: 'it''s'` + "\n" + `c: "tab\there \u00e9 \x41 \\ \""`, `{"a":"x: y # z","b":"it's","c":"tab\there é A \\ \""}`},
		{"quoted key", `"a key": 1` + "\n'b': 2", `{"a key":1,"b":2}`},
		{"nested mapping", "name: x\nmetadata:\n  author: me\n  version: \"1.0\"\n  deep:\n    k: v\nafter: 1", `{"name":"x","metadata":{"author":"me","version":"1.0","deep":{"k":"v"}},"after":1}`},
		{"block sequence indented", "tools:\n  - Bash(git:*)\n  - Read\nx: 1", `{"tools":["Bash(git:*)","Read"],"x":1}`},
		{"block sequence at key indentation", "tools:\n- a\n- 'b'\nx: 1", `{"tools":["a","b"],"x":1}`},
		{"flow sequence", `tags: [a, "b c", 3, true, ]`, `{"tags":["a","b c",3,true]}`},
		{"empty flow", "a: []\nb: {}", `{"a":[],"b":{}}`},
		{"multi-line plain", "description: one\n  two\n\n  three\nname: x", `{"description":"one two\nthree","name":"x"}`},
		{"literal", "a: |\n  one\n    two\n\n  three\n\nb: 1", `{"a":"one\n  two\n\nthree\n","b":1}`},
		{"literal strip", "a: |-\n  one\n  two\nb: 1", `{"a":"one\ntwo","b":1}`},
		{"literal keep", "a: |+\n  one\n\n\nb: 1", `{"a":"one\n\n\n","b":1}`},
		{"folded", "a: >\n  one\n  two\n\n  three\nb: 1", `{"a":"one two\nthree\n","b":1}`},
		{"folded strip", "a: >-\n  one\n  two", `{"a":"one two"}`},
		{"block with hash", "a: |\n  # not a comment\n  x", `{"a":"# not a comment\nx\n"}`},
		{"empty block", "a: |\nb: 1", `{"a":"","b":1}`},
		{"crlf", "name: x\r\ndescription: d\r\n", `{"name":"x","description":"d"}`},
		{"y is a 1.1 boolean", "a: y", "error: read differently"},
		{"unicode", "d: héllo ✓", `{"d":"héllo ✓"}`},

		{"yes", "a: yes", "error: line 2: \"yes\" is read differently"},
		{"On", "a: On", "error: read differently"},
		{"leading zero", "a: 0777", "error: read differently"},
		{"hex", "a: 0x1F", "error: read differently"},
		{"octal", "a: 0o17", "error: read differently"},
		{"underscores", "a: 1_000", "error: read differently"},
		{"sexagesimal", "a: 1:30", "error: read differently"},
		{"date", "a: 2026-12-03", "error: read differently"},
		{"inf", "a: .inf", "error: read differently"},
		{"nan", "a: .NaN", "error: read differently"},
		{"float overflow", "a: 1e400", "error: read differently"},
		{"duplicate", "a: 1\nb: 2\na: 3", "error: line 4: key \"a\" appears twice"},
		{"anchor", "a: &x 1", "error: anchors"},
		{"alias", "a: *x", "error: anchors"},
		{"tag", "a: !!str 1", "error: anchors"},
		{"merge key", "<<: x", "error: merge"},
		{"complex key", "? a\n: b", "error: not read"},
		{"flow mapping", "a: {b: 1}", "error: flow mapping"},
		{"tab indentation", "a:\n\tb: 1", "error: tab"},
		{"tab after indentation", "a:\n  \tb: 1", "error: tab"},
		{"unexpected indentation", "a: 1\n  b: 2", "error: unexpected indentation"},
		{"key inside a continued value", "a: x\n  b: 2", "error: key, comment or tab inside a value"},
		{"comment ends a value", "a: x\n  # c\n  y", "error: unexpected indentation"},
		{"indented scalar", "a: 1\n  2", "error: unexpected indentation"},
		{"first key indented", "  a: 1", "error: first key is indented"},
		{"list of mappings", "a:\n  - b: 1", "error: list of mappings"},
		{"list of lists", "a:\n  - - 1", "error: list of lists"},
		{"nested flow", "a: [[1]]", "error: only values"},
		{"unclosed flow", "a: [1, 2", "error: not closed"},
		{"multi-line quoted", "a: \"x\n  y\"", "error: spans lines"},
		{"text after quote", `a: "x" y`, "error: text after a value"},
		{"bad escape", `a: "\q"`, "error: escape"},
		{"surrogate escape", `a: "\ud800"`, "error: escape"},
		{"colon space in plain", "a: b: c", "error: holds \": \""},
		{"no colon", "a", "error: without a key"},
		{"colon without space", "a:b", "error: without a key"},
		{"indentation indicator", "a: |2\n  x", "error: indentation indicator"},
		{"more-indented folded", "a: >\n  x\n    y", "error: more-indented line"},
		{"text after block header", "a: | x", "error: text after"},
		{"list where key expected", "- a", "error: list item where a key"},
		{"bool key", "true: 1", "error: key \"true\""},
		{"not utf-8", "a: \xff", "error: not UTF-8"},
		{"too large", "a: " + strings.Repeat("x", maxFrontmatterBytes), "error: more than the 65536"},
		{"deep nesting", strings.Repeat("  ", 0) + nestedMappings(40), "error: nest deeper"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n, err := parseFrontmatter(tt.yaml)
			if want, ok := strings.CutPrefix(tt.want, "error: "); ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("parseFrontmatter(%q) = %v, want an error with %q", tt.yaml, err, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseFrontmatter(%q): %v", tt.yaml, err)
			}
			if got := string(n.appendJSON(nil)); got != tt.want {
				t.Errorf("parseFrontmatter(%q)\n got: %s\nwant: %s", tt.yaml, got, tt.want)
			}
		})
	}
}

// nestedMappings returns a frontmatter of n mappings, each inside the last.
func nestedMappings(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat("  ", i) + "k:\n")
	}
	b.WriteString(strings.Repeat("  ", n) + "v: 1")
	return b.String()
}

// TestSplitFrontmatter pins where the frontmatter of a SKILL.md is.
func TestSplitFrontmatter(t *testing.T) {
	for _, tt := range []struct {
		name, md, want string // want "error: ..." for a refusal
	}{
		{"lf", "---\nname: x\n---\nbody", "name: x\n"},
		{"crlf", "---\r\nname: x\r\n---\r\nbody", "name: x\r\n"},
		{"bom", "\uFEFF---\nname: x\n---\n", "name: x\n"},
		{"empty", "---\n---\n", ""},
		{"closing at end of file", "---\nname: x\n---", "name: x\n"},
		{"trailing spaces on delimiters", "--- \nname: x\n---  \n", "name: x\n"},
		{"no opening", "name: x\n---\n", "error: does not begin"},
		{"text before", "\n---\nname: x\n---\n", "error: does not begin"},
		{"no closing", "---\nname: x\n", "error: no \"---\" line closing"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := splitFrontmatter([]byte(tt.md))
			if want, ok := strings.CutPrefix(tt.want, "error: "); ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("splitFrontmatter(%q) = %q, %v; want an error with %q", tt.md, got, err, want)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("splitFrontmatter(%q) = %q, %v; want %q", tt.md, got, err, tt.want)
			}
		})
	}
}

// TestFrontmatterLinearWork holds that the reader's work grows with its
// input's lines, not faster: many keys, list items, a long multi-line
// value, a long block scalar and blank lines, each of the largest size
// read, each line looked at a few times at most (fmParser.looks).
func TestFrontmatterLinearWork(t *testing.T) {
	n := maxFrontmatterBytes / 16
	for _, tt := range []struct{ name, yaml string }{
		{"keys", func() string {
			var b strings.Builder
			for i := 0; b.Len() < maxFrontmatterBytes-32; i++ {
				fmt.Fprintf(&b, "k%d: v\n", i)
			}
			return b.String()
		}()},
		{"list items", "a:\n" + strings.Repeat("  - x\n", n)},
		{"multi-line value", "a: x\n" + strings.Repeat("  y\n", n)},
		{"block scalar", "a: |\n" + strings.Repeat("  y\n\n", n/2)},
		{"blank lines", strings.Repeat("\n", maxFrontmatterBytes-8) + "a: 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, work, err := readFrontmatter(tt.yaml)
			if err != nil {
				t.Fatalf("readFrontmatter: %v", err)
			}
			if looks, lines := work[0], work[1]; looks > 8*lines || lines < 1000 {
				t.Errorf("readFrontmatter of %d lines looked at lines %d times, want at most 8 a line", lines, looks)
			}
		})
	}
}

// FuzzFrontmatter holds that the reader reads or refuses any input, in
// time linear in its size, and that what it reads renders as valid JSON.
func FuzzFrontmatter(f *testing.F) {
	for _, s := range []string{"name: x\ndescription: y", "a:\n  - b\n  - 'c'\nd: |\n  e\n", "a: [1, \"2\"]\nb: >-\n  c\n\n  d", "a:\n  b:\n    c: 1.5e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		start := time.Now()
		n, err := parseFrontmatter(s)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("parseFrontmatter took %v on %d bytes", d, len(s))
		}
		if err != nil {
			return
		}
		if b := n.appendJSON(nil); !json.Valid(b) {
			t.Fatalf("parseFrontmatter(%q) rendered invalid JSON %s", s, b)
		}
	})
}
