//go:build !stdio

package main

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
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

// TestOperationsFlagDefaults checks the defaults docs/OPERATIONS.md's
// flag table states against the flag set's (its usage, as -h prints it):
// a value in backticks is the flag's default (durations compared as
// durations), "off" or "none" is an empty, false or zero default. Flags
// whose default the flag package cannot print (those parsed by a
// function) are checked by their effect where the doc states one: the
// HTTP rate limit.
func TestOperationsFlagDefaults(t *testing.T) {
	var usage bytes.Buffer
	if _, err := parseFlags([]string{"-h"}, &usage, func(string) string { return "" }); err == nil {
		t.Fatal("parseFlags(-h) = nil error")
	}
	defaults := map[string]string{} // flag name -> default as printed; "" for none printed
	flagLine := regexp.MustCompile(`^  -([a-z0-9-]+)`)
	defaultOf := regexp.MustCompile(`\(default "?([^")]*)"?\)$`)
	var name string
	for line := range strings.SplitSeq(usage.String(), "\n") {
		if m := flagLine.FindStringSubmatch(line); m != nil {
			name = m[1]
			defaults[name] = ""
		}
		if m := defaultOf.FindStringSubmatch(line); m != nil && name != "" {
			defaults[name] = m[1]
		}
	}
	rows := docTable(t, mustReadDoc(t, "OPERATIONS.md"), "## Flags")
	checked := 0
	for _, row := range rows {
		flagName, _, _ := strings.Cut(strings.Trim(row[0], "`"), " ")
		flagName = strings.TrimPrefix(flagName, "-")
		def, known := defaults[flagName]
		if !known {
			t.Errorf("OPERATIONS.md documents -%s, which the flag set lacks", flagName)
			continue
		}
		doc := row[1]
		switch {
		case strings.HasPrefix(doc, "off") || strings.HasPrefix(doc, "none"):
			if def != "" && def != "false" && def != "0" && def != "0s" {
				t.Errorf("-%s: OPERATIONS.md says %s, the flag's default is %q", flagName, doc, def)
			}
			checked++
		case doc == "on":
			if def != "true" {
				t.Errorf("-%s: OPERATIONS.md says on, the flag's default is %q", flagName, def)
			}
			checked++
		case strings.Count(doc, "`") == 2 && strings.HasPrefix(doc, "`") && strings.HasSuffix(doc, "`") && def != "":
			v := strings.Trim(doc, "`")
			if v == def {
				checked++
				continue
			}
			dv, err1 := time.ParseDuration(v)
			dd, err2 := time.ParseDuration(def)
			if err1 != nil || err2 != nil || dv != dd {
				t.Errorf("-%s: OPERATIONS.md says %s, the flag's default is %q", flagName, doc, def)
			}
			checked++
		}
	}
	if checked < 25 {
		t.Errorf("checked %d of %d defaults: the table's format changed?", checked, len(rows))
	}
	cfg, err := parseFlags([]string{"-http", "127.0.0.1:0"}, io.Discard, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		switch {
		case strings.HasPrefix(row[0], "`-rate-limit") && (cfg.limits.rate != 50 || !strings.Contains(row[1], "`50/s` over HTTP")):
			t.Errorf("-rate-limit: OPERATIONS.md says %s, over HTTP the server uses %v/s", row[1], cfg.limits.rate)
		case strings.HasPrefix(row[0], "`-rate-burst") && (cfg.limits.burst != 100 || !strings.Contains(row[1], "`100` with the default HTTP rate")):
			t.Errorf("-rate-burst: OPERATIONS.md says %s, over HTTP the server uses %d", row[1], cfg.limits.burst)
		}
	}
}
