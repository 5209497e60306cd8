// README's flag tables against the flags of the build that runs the test:
// the full build has the HTTP wing's flags, the stdio build has none of
// them. The README tests that do not depend on the build are
// readme_test.go's.

package main

import (
	"flag"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// mustREADMESection returns the section of README.md under heading, up
// to the next second-level heading. It skips the test outside the baremcp
// module: a copy's README is its own.
func mustREADMESection(tb testing.TB, heading string) string {
	tb.Helper()
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		tb.Fatal(err)
	}
	if modulePath(string(mod)) != "baremcp" {
		tb.Skip("not the baremcp module: this copy's README is its own")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		tb.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), heading)
	if !ok {
		tb.Fatalf("README.md has no %q section", heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}

// modulePath returns the module path a go.mod declares, whatever its line
// ends (a Windows checkout may have CRLF), or "" if it declares none.
func modulePath(gomod string) string {
	for line := range strings.Lines(gomod) {
		if path, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(path), `"`)
		}
	}
	return ""
}

// readmeFlagRow is one row of README's flag tables: the flag's name and
// its default as written.
type readmeFlagRow struct{ name, def string }

// readmeFlagTables returns the rows of README's two flag tables: the
// flags of every build, and the HTTP wing's.
func readmeFlagTables(tb testing.TB) (every, wing []readmeFlagRow) {
	tb.Helper()
	section := mustREADMESection(tb, "## Flags")
	everyPart, wingPart, ok := strings.Cut(section, "### The HTTP wing")
	if !ok {
		tb.Fatal(`README's "## Flags" has no "### The HTTP wing" table`)
	}
	rows := func(part string) []readmeFlagRow {
		var out []readmeFlagRow
		for _, m := range regexp.MustCompile("(?m)^\\| `-([a-z0-9-]+)[^|]*\\|([^|]*)\\|").FindAllStringSubmatch(part, -1) {
			out = append(out, readmeFlagRow{m[1], strings.TrimSpace(m[2])})
		}
		return out
	}
	return rows(everyPart), rows(wingPart)
}

// TestREADMEFlags: README's flag tables are the one place the flags are
// documented, so they list exactly the flags of this build (the HTTP
// wing's table only where the build has the wing), each once, with the
// default the flag set gives: a duration or number in backquotes first,
// "on" or "off" for a boolean. A default that follows another flag (0 in
// the flag set) is described in words, and not checked.
func TestREADMEFlags(t *testing.T) {
	every, wing := readmeFlagTables(t)
	documented := map[string]readmeFlagRow{}
	for _, r := range every {
		documented[r.name] = r
	}
	for _, r := range wing {
		if hasHTTPWing {
			documented[r.name] = r
		}
	}
	if len(documented) != len(every)+len(wing) && hasHTTPWing {
		t.Errorf("README lists a flag twice")
	}
	fs, _ := flagSet(&config{}, io.Discard)
	fs.VisitAll(func(f *flag.Flag) {
		r, ok := documented[f.Name]
		if !ok {
			t.Errorf("-%s is not in README's flag tables", f.Name)
			return
		}
		delete(documented, f.Name)
		first := regexp.MustCompile("`([^`]*)`").FindStringSubmatch(r.def)
		switch def := f.DefValue; {
		case def == "false":
			if r.def != "off" {
				t.Errorf("-%s: README's default %q, want off", f.Name, r.def)
			}
		case def == "true":
			if r.def != "on" {
				t.Errorf("-%s: README's default %q, want on", f.Name, r.def)
			}
		case def == "" || def == "0" && (first == nil || first[1] != "0"):
			// No default, or one derived from other flags: in words.
		case first == nil:
			t.Errorf("-%s: README's default %q, want `%s`", f.Name, r.def, def)
		default:
			want, got := def, first[1]
			if d, err := time.ParseDuration(def); err == nil {
				if g, err := time.ParseDuration(got); err == nil && g == d {
					got = want
				}
			}
			if got != want {
				t.Errorf("-%s: README's default %q, want `%s`", f.Name, r.def, def)
			}
		}
	})
	for name := range documented {
		t.Errorf("README documents -%s, which this build does not have", name)
	}
	if !hasHTTPWing {
		for _, r := range wing {
			if fs.Lookup(r.name) != nil {
				t.Errorf("-%s is in README's HTTP wing table, but the stdio build has it", r.name)
			}
		}
	}
}
