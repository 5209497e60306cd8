//go:build !stdio

// README's map of the code (section "Map of the code") against the
// files: every production .go file is listed, and every file the map
// names exists, so the map cannot drift from the layout. It is the
// baremcp project's check on its own README: in a copy under another
// module (README's "Make it yours") the README is the copy's own, and
// those tests skip. Every code fence of README.md and docs/*.md closes
// cleanly, in any copy. These tests read the checkout (README, docs/ and
// every .go file, whatever their build lines), which is the same in
// every build, so one build runs them: the full one. The flag tables,
// which differ by build, are readme_flags_test.go's.

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestModulePath(t *testing.T) {
	for _, tt := range []struct{ gomod, want string }{
		{"module baremcp\n\ngo 1.26\n", "baremcp"},
		{"module baremcp\r\n\r\ngo 1.26\r\n", "baremcp"},
		{"// a comment\nmodule \"example.com/shouter\"\n", "example.com/shouter"},
		{"go 1.26\n", ""},
	} {
		if got := modulePath(tt.gomod); got != tt.want {
			t.Errorf("modulePath(%q) = %q, want %q", tt.gomod, got, tt.want)
		}
	}
}

func TestREADMEMapsEveryFile(t *testing.T) {
	section := mustREADMESection(t, "## Map of the code")
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z0-9_]+\\.go)`").FindAllStringSubmatch(section, -1) {
		named[m[1]] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") && !named[f] {
			t.Errorf("README's map does not list %s", f)
		}
	}
	for f := range named {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		if _, err := os.Stat(f); err != nil {
			t.Errorf("README's map lists %s, which does not exist", f)
		}
	}
}

// TestREADMELifeOfARequestNamesTheCode: every function, method, type or
// field README's "The life of a request" names in backquotes exists in
// the production code, so a rename cannot leave the walk-through behind
// (review A, finding 10 found it naming what the code no longer did).
// Wire words are not Go names and are skipped.
func TestREADMELifeOfARequestNamesTheCode(t *testing.T) {
	section := mustREADMESection(t, "### The life of a request")
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src.Write(b)
		}
	}
	// What the code defines: a function or method (its name before its
	// parameters or type parameters), a type, or the first word of an
	// indented line (a field, or a constant or variable of a block). One
	// pass a kind over the whole source, so that no kind's match hides
	// another's and the work does not grow with the names README uses.
	defined := map[string]bool{}
	for _, kind := range []string{
		`func (?:\([^)]*\) )?([A-Za-z_][A-Za-z0-9_]*)[\[(]`,
		`type ([A-Za-z_][A-Za-z0-9_]*) `,
		`(?m)^\t+([A-Za-z_][A-Za-z0-9_]*)\s`,
	} {
		for _, m := range regexp.MustCompile(kind).FindAllStringSubmatch(src.String(), -1) {
			defined[m[1]] = true
		}
	}
	wire := map[string]bool{"_meta": true, "requestState": true, "resultType": true, "serverInfo": true}
	ident := regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_]*\.)*([A-Za-z_][A-Za-z0-9_]*)(?:\(.*\))?$`)
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(section, -1) {
		name := ident.FindStringSubmatch(m[1])
		if name == nil || strings.HasSuffix(m[1], ".go") || wire[name[1]] {
			continue
		}
		if !defined[name[1]] {
			t.Errorf("README's life of a request names %s, which the code does not define", m[1])
		}
	}
}

// TestMarkdownFencesClose: every code fence in README.md and docs/*.md
// closes on a line of only backticks (at least as many as opened it) and
// spaces. A closing fence with text after it is no fence in CommonMark:
// the block runs on and swallows the prose and headings below it.
func TestMarkdownFencesClose(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append([]string{"README.md"}, files...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, problem := range unclosedFences(string(data)) {
			t.Errorf("%s: %s", f, problem)
		}
	}
}

// unclosedFences returns what is wrong with the backtick fences of a
// Markdown text: a line inside a block that starts with the fence but has
// more after it (meant to close it, it does not), and a block still open
// at the end.
func unclosedFences(md string) []string {
	var problems []string
	open, opened := "", 0 // the opening fence's backticks and its line
	n := 0
	for line := range strings.Lines(md) {
		n++
		text := strings.TrimLeft(strings.TrimRight(line, "\r\n"), " ")
		ticks := text[:len(text)-len(strings.TrimLeft(text, "`"))]
		switch {
		case open == "" && len(ticks) >= 3:
			open, opened = ticks, n
		case open == "" || !strings.HasPrefix(text, open):
		case strings.Trim(text, "` ") == "" && !strings.Contains(strings.TrimRight(text, " "), " "):
			open = ""
		default:
			problems = append(problems, fmt.Sprintf("line %d: the block opened at line %d does not close: text after its fence", n, opened))
		}
	}
	if open != "" {
		problems = append(problems, fmt.Sprintf("the block opened at line %d never closes", opened))
	}
	return problems
}

func TestUnclosedFences(t *testing.T) {
	for _, tt := range []struct {
		name, md string
		want     int // problems found
	}{
		{"closed", "text\n```go\ncode\n```\nmore\n", 0},
		{"closed with spaces", "```\ncode\n```  \r\n", 0},
		{"indented in a list", "1. step\n\n   ```sh\n   go vet\n   ```\n", 0},
		{"a longer fence holds a shorter one", "````\n```\n````\n", 0},
		{"text after the closing fence", "```go\ncode\n``` Registries may change\n## Next\n", 2},
		{"never closed", "```\ncode\n", 1},
	} {
		if got := unclosedFences(tt.md); len(got) != tt.want {
			t.Errorf("%s: unclosedFences(%q) = %q, want %d problems", tt.name, tt.md, got, tt.want)
		}
	}
}

// TestREADMEBuildsTable: README's "Builds" table has the shape
// harness/builds/table.sh prints: its header, a row for the full build,
// one for the stdio build once a file names that tag, and the minimal Go
// program's, each cell a figure in its unit (a build's start before main
// too; the minimal program's is its cold start, so "—"). The figures are
// measured, not checked: the script prints them.
func TestREADMEBuildsTable(t *testing.T) {
	section := mustREADMESection(t, "## Builds")
	const header = "| build | command | Go files | lines | packages linked | stripped size | cold start, median (× minimal) | its CPU time, median (× minimal) | before `main`, median (× minimal) |"
	var rows []string
	for line := range strings.Lines(section) {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "|") {
			rows = append(rows, line)
		}
	}
	if len(rows) < 2 || rows[0] != header || !regexp.MustCompile(`^\|( --- \|){9}$`).MatchString(rows[1]) {
		t.Fatalf("README's Builds table does not open with\n%s\nand its separator; it has\n%s", header, strings.Join(rows, "\n"))
	}
	want := []string{"full"}
	if mustHaveStdioBuild(t) {
		want = append(want, "stdio")
	}
	want = append(want, "minimal")
	ms := `[0-9]+\.[0-9]{2} ms \([0-9]+\.[0-9]{2}x\)`
	cell := regexp.MustCompile("^\\| ([a-z]+) \\| `[^`|]+` \\| [0-9]+ \\| [0-9]{1,3}(,[0-9]{3})* \\| [0-9]+ \\| [0-9]+\\.[0-9]{2} MiB \\| " + ms + " \\| " + ms + " \\| (" + ms + "|—) \\|$")
	var got []string
	for _, r := range rows[2:] {
		m := cell.FindStringSubmatch(r)
		if m == nil {
			t.Errorf("README's Builds table: row %q is not build, `command`, files, lines, packages, N.NN MiB, N.NN ms (N.NNx) twice, and before main's (or —)", r)
			continue
		}
		if dash := strings.HasSuffix(r, "| — |"); dash != (m[1] == "minimal") {
			t.Errorf("README's Builds table: row %q: only the minimal program's before-main cell is —", r)
		}
		got = append(got, m[1])
	}
	if !slices.Equal(got, want) {
		t.Errorf("README's Builds table has rows %q, want %q (harness/builds/table.sh prints them)", got, want)
	}
}

// mustHaveStdioBuild reports whether a file of the package names the
// stdio tag in its build line, as harness/builds/table.sh decides.
func mustHaveStdioBuild(tb testing.TB) bool {
	tb.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		if regexp.MustCompile(`(?m)^//go:build .*stdio`).Match(b) {
			return true
		}
	}
	return false
}

// TestREADMESizes: every size README gives of a build in MiB with one
// decimal (its first lines, the HTTP/2 note of "Make it yours") is the
// stripped size of the full or the stdio build in the Builds table, which
// harness/builds/table.sh measures: one figure per build, from one place.
func TestREADMESizes(t *testing.T) {
	builds := mustREADMESection(t, "## Builds")
	sizes := map[string]bool{}
	row := regexp.MustCompile("(?m)^\\| (full|stdio) \\| `[^`]*` \\|[^|]*\\|[^|]*\\|[^|]*\\| ([0-9]+\\.[0-9]+) MiB \\|")
	for _, m := range row.FindAllStringSubmatch(builds, -1) {
		var mib float64
		if _, err := fmt.Sscan(m[2], &mib); err != nil {
			t.Fatalf("Builds table: size %q of %s: %v", m[2], m[1], err)
		}
		sizes[fmt.Sprintf("%.1f MiB", mib)] = true
	}
	if len(sizes) != 2 {
		t.Fatalf("Builds table: found the sizes %v, want the full build's and the stdio build's", sizes)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range regexp.MustCompile(`\b[0-9]+\.[0-9] MiB\b`).FindAllString(string(readme), -1) {
		if !sizes[got] {
			t.Errorf("README.md says %q, which is not a build's stripped size in the Builds table %v", got, sizes)
		}
	}
}
