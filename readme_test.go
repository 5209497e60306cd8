// README's map of the code (section "Map of the code") against the
// files: every production .go file is listed, and every file the map
// names exists, so the map cannot drift from the layout. It is the
// baremcp project's check on its own README: in a copy under another
// module (README's "Make it yours") the README is the copy's own, and
// the test skips.

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestREADMEMapsEveryFile(t *testing.T) {
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(mod), "module baremcp\n") {
		t.Skip("not the baremcp module: this copy's README is its own")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Map of the code")
	if !ok {
		t.Fatal(`README.md has no "## Map of the code" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
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
