//go:build !stdio

package main

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
)

// mustReadDoc returns the text of a file of docs/.
func mustReadDoc(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile("docs/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	return string(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")))
}

// docTable returns the rows of the first Markdown table after heading in
// doc, each as its cells, trimmed; the header and separator are left out.
func docTable(tb testing.TB, doc, heading string) [][]string {
	tb.Helper()
	_, rest, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		tb.Fatalf("no heading %q", heading)
	}
	var rows [][]string
	inTable := false
	for line := range strings.SplitSeq(rest, "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		if !inTable {
			inTable = true // the header
			continue
		}
		if strings.HasPrefix(line, "| ---") {
			continue
		}
		var cells []string
		for c := range strings.SplitSeq(strings.Trim(line, "|"), " | ") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	return rows
}

// TestOperationsRefusalTable checks docs/OPERATIONS.md's table of
// refusals against the code's (httpRefusals): the same rows, in order,
// with each reason's name and message.
func TestOperationsRefusalTable(t *testing.T) {
	rows := docTable(t, mustReadDoc(t, "OPERATIONS.md"), "### Refusals")
	if len(rows) != len(httpRefusals) {
		t.Fatalf("OPERATIONS.md lists %d refusals, the code %d", len(rows), len(httpRefusals))
	}
	for i, row := range httpRefusals {
		prefix := "(plain text)"
		if row.prefix != "" {
			prefix = "`" + row.prefix + "`"
		}
		want := []string{strconv.Itoa(row.status), "`" + httpReasonNames[row.reason] + "`", prefix}
		got := []string{rows[i][0], rows[i][1], rows[i][3]}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("refusal %d: OPERATIONS.md says %q, the code %q", i+1, got, want)
		}
		logLine := "`HTTP requests refused`"
		if row.reason == reasonAuth {
			logLine = "`authentication refused`"
		}
		if rows[i][4] != logLine {
			t.Errorf("refusal %d (%s): log line %s, want %s", i+1, row.prefix, rows[i][4], logLine)
		}
	}
}

// TestDerivedDefaultsDocumented checks the defaults README's flag table
// states in words, those the flag package cannot print because they
// depend on other flags (TestREADMEFlags checks the others): the HTTP
// tools/call rate limit, 50 a second with a burst of 100.
func TestDerivedDefaultsDocumented(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	cfg, err := parseFlags([]string{"-http", "127.0.0.1:0"}, io.Discard, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		row, says string
		got, want float64
	}{
		{"| `-rate-limit RATE` |", "| `50` over HTTP, off on stdio |", cfg.limits.rate, 50},
		{"| `-rate-burst N` |", "| `100` with the default HTTP rate, else `max(1, rate)` |", float64(cfg.limits.burst), 100},
	} {
		_, rest, ok := strings.Cut(readme, tt.row)
		line, _, _ := strings.Cut(rest, "\n")
		if !ok || !strings.HasPrefix(line, strings.TrimPrefix(tt.says, "|")) {
			t.Errorf("README's row %s does not say %s", tt.row, tt.says)
		}
		if tt.got != tt.want {
			t.Errorf("%s: the server uses %v over HTTP, README says %v", tt.row, tt.got, tt.want)
		}
	}
}
