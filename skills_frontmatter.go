// The frontmatter of a SKILL.md: the YAML block between its "---" lines,
// read by a small reader of the YAML subset frontmatter is written in and
// rendered verbatim as a JSON object, every field in the author's order.
//
// Spec: https://github.com/modelcontextprotocol/ext-skills/blob/main/specification/stable/skills.mdx
// (Frontmatter: "rendered verbatim as a JSON object"), the Agent Skills
// format https://agentskills.io/specification (SKILL.md format), and YAML
// 1.2.2 https://yaml.org/spec/1.2.2/ (block mappings and sequences, flow
// sequences, plain, quoted and block scalars; the core schema's tags).

package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The reader takes what frontmatter is written in and refuses the rest
// with a message saying what it met, so that what a host's YAML parser
// reads from the file is what the skill's entry says (hosts compare the
// two field by field, and refuse the skill on any difference):
//
//   - block mappings of plain or quoted keys, nested by indentation
//     (spaces only), each key once;
//   - block sequences of scalars ("- item"), at the key's indentation or
//     deeper, and one-line flow sequences of scalars ([a, "b"]);
//   - plain scalars, also over several more-indented lines (folded with
//     spaces), resolved by YAML 1.2's core schema: null, booleans,
//     decimal integers and floats, else strings;
//   - one-line single- and double-quoted scalars, double-quoted escapes;
//   - literal (|) and folded (>) block scalars with their chomping
//     indicator (- or +);
//   - comments, whole-line or after a value.
//
// Refused: anchors, aliases, tags, directives, complex keys, flow
// mappings other than {}, sequences of mappings or sequences, quoted
// scalars spanning lines, tabs in indentation, and plain scalars that
// YAML 1.1 (which many hosts still parse with) reads as another type
// than 1.2 does: yes/no/on/off, numbers with leading zeros or
// underscores, hexadecimal and octal, sexagesimal, dates, .inf and .nan
// (quote them). TestFrontmatter pins each; FuzzFrontmatter holds that
// any input is read or refused, never a panic, in bounded work.

// maxFrontmatterDepth bounds how deep mappings nest: the reader recurses
// once a level, and frontmatter is a handful of fields, metadata one
// level below.
const maxFrontmatterDepth = 32

// maxFrontmatterBytes bounds a frontmatter: it is copied into the skill's
// entry, which every skills/list page carries, and hosts keep it for every
// skill they know; the format's own fields fit in 2 KB (a name of 64
// characters, a description of 1024, a compatibility of 500).
const maxFrontmatterBytes = 64 << 10

// fmNode is one value of the frontmatter.
type fmNode struct {
	kind  fmKind
	text  string    // fmString: the string; fmScalar: its JSON text
	keys  []string  // fmMapping: the keys, in order
	items []*fmNode // fmMapping: the values, keys' order; fmSequence: the items
}

// fmKind is the kind of an fmNode.
type fmKind uint8

// The kinds of frontmatter values.
const (
	fmString   fmKind = iota
	fmScalar          // null, a boolean or a number, as JSON text
	fmMapping         // an object
	fmSequence        // an array
)

// field returns the value of key in a mapping, or nil.
func (n *fmNode) field(key string) *fmNode {
	for i, k := range n.keys {
		if k == key {
			return n.items[i]
		}
	}
	return nil
}

// appendJSON appends n as JSON, a mapping's keys in the author's order.
func (n *fmNode) appendJSON(b []byte) []byte {
	switch n.kind {
	case fmString:
		return appendJSONString(b, n.text)
	case fmScalar:
		return append(b, n.text...)
	case fmMapping:
		b = append(b, '{')
		for i, k := range n.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = n.items[i].appendJSON(b)
		}
		return append(b, '}')
	default:
		b = append(b, '[')
		for i, it := range n.items {
			if i > 0 {
				b = append(b, ',')
			}
			b = it.appendJSON(b)
		}
		return append(b, ']')
	}
}

// splitFrontmatter returns the YAML between the "---" line that opens a
// SKILL.md (after a byte-order mark, if any) and the next "---" line.
// [Agent Skills, SKILL.md format]: https://agentskills.io/specification
func splitFrontmatter(md []byte) (string, error) {
	md = bytes.TrimPrefix(md, []byte("\uFEFF"))
	delimiter := func(line []byte) bool { return strings.TrimRight(string(line), " \t\r") == "---" }
	first, _, ok := bytes.Cut(md, []byte("\n"))
	if !ok || !delimiter(first) {
		return "", errors.New(`does not begin with a "---" line opening its YAML frontmatter`)
	}
	start := len(first) + 1
	for at := start; at < len(md); {
		line, _, _ := bytes.Cut(md[at:], []byte("\n"))
		if delimiter(line) {
			return string(md[start:at]), nil
		}
		at += len(line) + 1
	}
	return "", errors.New(`has no "---" line closing its YAML frontmatter`)
}

// parseFrontmatter reads text, the YAML of a frontmatter, into a mapping.
// Errors name the line (counted from the opening "---", line 1).
func parseFrontmatter(text string) (*fmNode, error) {
	n, _, err := readFrontmatter(text)
	return n, err
}

// readFrontmatter is parseFrontmatter, also returning the parser's work
// (fmParser.looks) and the lines it read.
func readFrontmatter(text string) (*fmNode, [2]int, error) {
	if len(text) > maxFrontmatterBytes {
		return nil, [2]int{}, fmt.Errorf("frontmatter: %d bytes, more than the %d a skill's entry carries", len(text), maxFrontmatterBytes)
	}
	if !utf8.ValidString(text) {
		return nil, [2]int{}, errors.New("frontmatter: not UTF-8")
	}
	text = strings.TrimSuffix(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	p := &fmParser{lines: strings.Split(text, "\n")}
	work := func() [2]int { return [2]int{p.looks, len(p.lines)} }
	if p.next() < 0 {
		return &fmNode{kind: fmMapping}, work(), nil
	}
	if p.indent(p.pos) != 0 {
		return nil, work(), p.errorf(p.pos, "the frontmatter's first key is indented")
	}
	m, err := p.mapping(0, 0)
	if err != nil {
		return nil, work(), err
	}
	if i := p.next(); i >= 0 {
		return nil, work(), p.errorf(i, "unexpected indentation")
	}
	return m, work(), nil
}

// fmParser reads frontmatter line by line.
type fmParser struct {
	lines []string
	pos   int // the line being read
	// looks counts how often a line was inspected (indent, blank): the
	// reader's work, which TestFrontmatterLinearWork holds linear in
	// the number of lines.
	looks int
}

// errorf is a reader error naming line i (the opening "---" is line 1).
func (p *fmParser) errorf(i int, format string, args ...any) error {
	return fmt.Errorf("frontmatter line %d: %s", i+2, fmt.Sprintf(format, args...))
}

// indent returns line i's indentation in spaces.
func (p *fmParser) indent(i int) int {
	p.looks++
	return len(p.lines[i]) - len(strings.TrimLeft(p.lines[i], " "))
}

// blank reports whether line i holds nothing, or only a comment.
func (p *fmParser) blank(i int) bool {
	p.looks++
	t := strings.TrimLeft(p.lines[i], " \t")
	return t == "" || t[0] == '#'
}

// next moves past blank and comment lines and returns the line it stops
// at, or -1 at the end.
func (p *fmParser) next() int {
	for p.pos < len(p.lines) && p.blank(p.pos) {
		p.pos++
	}
	if p.pos == len(p.lines) {
		return -1
	}
	return p.pos
}

// mapping reads the block mapping whose keys are at indent.
func (p *fmParser) mapping(indent, depth int) (*fmNode, error) {
	if depth > maxFrontmatterDepth {
		return nil, p.errorf(p.pos, "mappings nest deeper than %d levels", maxFrontmatterDepth)
	}
	m := &fmNode{kind: fmMapping}
	seen := map[string]bool{}
	for {
		i := p.next()
		if i < 0 || p.indent(i) < indent {
			return m, nil
		}
		if p.indent(i) > indent {
			return nil, p.errorf(i, "unexpected indentation")
		}
		line := p.lines[i][indent:]
		if line[0] == '\t' {
			return nil, p.errorf(i, "a tab in indentation")
		}
		if line[0] == '-' && (len(line) == 1 || line[1] == ' ') {
			return nil, p.errorf(i, "a list item where a key was expected")
		}
		key, rest, err := p.key(i, line)
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, p.errorf(i, "key %q appears twice", key)
		}
		seen[key] = true
		p.pos++
		v, err := p.value(i, indent, rest, depth)
		if err != nil {
			return nil, err
		}
		m.keys = append(m.keys, key)
		m.items = append(m.items, v)
	}
}

// key reads the key at the start of line (line i) and returns it and
// what follows its colon.
func (p *fmParser) key(i int, line string) (key, rest string, err error) {
	if line[0] == '"' || line[0] == '\'' {
		key, rest, err = p.quoted(i, line)
		if err != nil {
			return "", "", err
		}
		if !strings.HasPrefix(rest, ":") {
			return "", "", p.errorf(i, "a quoted key is not followed by a colon")
		}
		rest = rest[1:]
	} else {
		if strings.ContainsAny(line[:1], "?:,[]{}#&*!|>%@`") {
			return "", "", p.errorf(i, "a key starting with %q is not read (anchors, tags and complex keys are not)", line[:1])
		}
		colon := strings.Index(line, ": ")
		if colon < 0 {
			if !strings.HasSuffix(strings.TrimRight(line, " "), ":") {
				return "", "", p.errorf(i, "a line without a key")
			}
			colon = len(strings.TrimRight(line, " ")) - 1
		}
		key, rest = strings.TrimRight(line[:colon], " "), line[colon+1:]
		if key == "" || strings.ContainsAny(key[:1], "?:,[]{}#&*!|>%@`") || key == "<<" || strings.Contains(key, " #") {
			return "", "", p.errorf(i, "key %q is not read (anchors, tags, complex and merge keys are not)", key)
		}
		if n := resolvePlain(key); n == nil || n.kind != fmString {
			return "", "", p.errorf(i, "key %q is not read as a string by every YAML reader; quote it", key)
		}
	}
	if rest != "" && rest[0] != ' ' {
		return "", "", p.errorf(i, "a key's colon must be followed by a space")
	}
	return key, strings.TrimLeft(rest, " "), nil
}

// value reads the value of a key on line i at indent; rest is what
// follows the key's colon on that line.
func (p *fmParser) value(i, indent int, rest string, depth int) (*fmNode, error) {
	switch {
	case rest == "" || rest[0] == '#':
		j := p.next()
		if j < 0 || p.indent(j) < indent {
			return &fmNode{kind: fmScalar, text: "null"}, nil
		}
		child := p.lines[j][p.indent(j):]
		if child[0] == '-' && (len(child) == 1 || child[1] == ' ') {
			return p.sequence(p.indent(j))
		}
		if p.indent(j) == indent {
			return &fmNode{kind: fmScalar, text: "null"}, nil
		}
		return p.mapping(p.indent(j), depth+1)
	case rest[0] == '|' || rest[0] == '>':
		return p.block(i, indent, rest)
	}
	v, err := p.inline(i, rest)
	if err != nil {
		return nil, err
	}
	if v.kind == fmString && rest[0] != '"' && rest[0] != '\'' && !strings.Contains(rest, " #") {
		return p.continued(indent, v)
	}
	if j := p.next(); j >= 0 && p.indent(j) > indent {
		return nil, p.errorf(j, "unexpected indentation")
	}
	return v, nil
}

// inline reads a value written on its key's line: a quoted scalar, a flow
// sequence, {}, or a plain scalar, with an optional comment after it.
func (p *fmParser) inline(i int, s string) (*fmNode, error) {
	switch s[0] {
	case '"', '\'':
		text, rest, err := p.quoted(i, s)
		if err != nil {
			return nil, err
		}
		if err := p.endOfValue(i, rest); err != nil {
			return nil, err
		}
		return &fmNode{kind: fmString, text: text}, nil
	case '[':
		return p.flowSequence(i, s)
	case '{':
		if r := strings.TrimLeft(s[1:], " "); strings.HasPrefix(r, "}") {
			if err := p.endOfValue(i, r[1:]); err != nil {
				return nil, err
			}
			return &fmNode{kind: fmMapping}, nil
		}
		return nil, p.errorf(i, "a flow mapping ({...}) is not read; write the mapping as indented lines")
	case '&', '*', '!', '%', '@', '`':
		return nil, p.errorf(i, "anchors, aliases, tags and reserved indicators are not read")
	case '-', '?', ':':
		if len(s) == 1 || s[1] == ' ' {
			return nil, p.errorf(i, "a value cannot start with %q", s[:1])
		}
	}
	text := stripComment(s)
	if strings.Contains(text, ": ") || strings.HasSuffix(text, ":") {
		return nil, p.errorf(i, "a plain value holds \": \"; quote it")
	}
	n := resolvePlain(text)
	if n == nil {
		return nil, p.errorf(i, "%q is read differently by YAML 1.1 and 1.2 (a boolean, a date or a number in one, a string in the other): quote it", text)
	}
	return n, nil
}

// continued reads the more-indented lines that continue a plain scalar
// begun on its key's line (v), folded as YAML folds them: a line break
// becomes a space, each blank line a newline.
func (p *fmParser) continued(indent int, v *fmNode) (*fmNode, error) {
	var b strings.Builder
	b.WriteString(v.text)
	blanks := 0
	for j := p.pos; j < len(p.lines); j++ {
		t := strings.TrimLeft(p.lines[j], " ")
		if strings.TrimLeft(t, "\t") == "" {
			blanks++
			continue
		}
		if p.indent(j) <= indent || t[0] == '#' {
			break // a comment ends the value; a line after it is unexpected
		}
		body := strings.TrimRight(t, " \t")
		if t[0] == '\t' || stripComment(t) != body || strings.Contains(body, ": ") || strings.HasSuffix(body, ":") {
			return nil, p.errorf(j, "a key, comment or tab inside a value that spans lines")
		}
		if blanks == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteString(strings.Repeat("\n", blanks))
		}
		b.WriteString(body)
		blanks, p.pos = 0, j+1
	}
	text := b.String()
	if n := resolvePlain(text); n == nil || n.kind != fmString {
		return nil, p.errorf(p.pos-1, "%q is read differently by YAML 1.1 and 1.2: quote it", text)
	}
	return &fmNode{kind: fmString, text: text}, nil
}

// sequence reads a block sequence whose "-" are at indent: scalars only.
func (p *fmParser) sequence(indent int) (*fmNode, error) {
	seq := &fmNode{kind: fmSequence}
	for {
		i := p.next()
		if i < 0 || p.indent(i) < indent {
			return seq, nil
		}
		line := p.lines[i][indent:]
		if p.indent(i) > indent || line[0] != '-' || (len(line) > 1 && line[1] != ' ') {
			if p.indent(i) == indent {
				return seq, nil // the parent mapping's next key, at the same indentation
			}
			return nil, p.errorf(i, "unexpected indentation in a list")
		}
		item := strings.TrimLeft(line[1:], " ")
		if item == "" || item[0] == '#' {
			return nil, p.errorf(i, "a list item is empty or holds a nested block; only lists of values are read")
		}
		if item[0] == '-' && (len(item) == 1 || item[1] == ' ') {
			return nil, p.errorf(i, "a list of lists is not read")
		}
		if !(item[0] == '"' || item[0] == '\'') {
			if t := stripComment(item); strings.Contains(t, ": ") || strings.HasSuffix(t, ":") {
				return nil, p.errorf(i, "a list of mappings is not read")
			}
		}
		p.pos++
		v, err := p.inline(i, item)
		if err != nil {
			return nil, err
		}
		if v.kind == fmSequence || v.kind == fmMapping {
			return nil, p.errorf(i, "a list of lists or mappings is not read")
		}
		if j := p.next(); j >= 0 && p.indent(j) > indent {
			return nil, p.errorf(j, "a list item spans lines; quote it or use one line")
		}
		seq.items = append(seq.items, v)
	}
}

// flowSequence reads a one-line flow sequence of scalars: [a, "b", 3].
func (p *fmParser) flowSequence(i int, s string) (*fmNode, error) {
	seq := &fmNode{kind: fmSequence}
	s = strings.TrimLeft(s[1:], " ")
	if strings.HasPrefix(s, "]") {
		return seq, p.endOfValue(i, s[1:])
	}
	for {
		var v *fmNode
		switch {
		case s == "":
			return nil, p.errorf(i, "a flow sequence ([...]) is not closed on its line")
		case s[0] == '"' || s[0] == '\'':
			text, rest, err := p.quoted(i, s)
			if err != nil {
				return nil, err
			}
			v, s = &fmNode{kind: fmString, text: text}, strings.TrimLeft(rest, " ")
		case strings.ContainsRune("[]{},&*!|>%@`#", rune(s[0])):
			return nil, p.errorf(i, "a flow sequence holds %q; only values are read", s[:1])
		default:
			end := strings.IndexAny(s, ",]")
			if end < 0 {
				return nil, p.errorf(i, "a flow sequence ([...]) is not closed on its line")
			}
			text := strings.TrimRight(s[:end], " ")
			if strings.ContainsAny(text, "[{#") || strings.Contains(text, ": ") || strings.HasSuffix(text, ":") {
				return nil, p.errorf(i, "a flow sequence holds %q; only values are read", text)
			}
			if v = resolvePlain(text); v == nil {
				return nil, p.errorf(i, "%q is read differently by YAML 1.1 and 1.2: quote it", text)
			}
			s = s[end:]
		}
		seq.items = append(seq.items, v)
		switch {
		case strings.HasPrefix(s, "]"):
			return seq, p.endOfValue(i, s[1:])
		case strings.HasPrefix(s, ","):
			s = strings.TrimLeft(s[1:], " ")
			if strings.HasPrefix(s, "]") {
				return seq, p.endOfValue(i, s[1:]) // a trailing comma
			}
		default:
			return nil, p.errorf(i, "a flow sequence ([...]) is not closed on its line")
		}
	}
}

// block reads a literal (|) or folded (>) block scalar whose header, rest,
// is on line i, a key's at indent.
// [YAML §8.1]: https://yaml.org/spec/1.2.2/#81-block-scalar-styles
func (p *fmParser) block(i, indent int, rest string) (*fmNode, error) {
	literal := rest[0] == '|'
	chomp := byte(0)
	header := rest[1:]
	if header != "" && (header[0] == '-' || header[0] == '+') {
		chomp, header = header[0], header[1:]
	}
	if header != "" && header[0] != ' ' {
		return nil, p.errorf(i, "a block scalar's indentation indicator is not read")
	}
	if t := strings.TrimLeft(header, " "); t != "" && t[0] != '#' {
		return nil, p.errorf(i, "text after a block scalar's indicator")
	}
	var lines []string
	blockIndent := -1
	for j := p.pos; j < len(p.lines); j++ {
		line := p.lines[j]
		if strings.TrimLeft(line, " ") == "" {
			lines = append(lines, "")
			continue
		}
		n := p.indent(j)
		if blockIndent < 0 {
			if n <= indent {
				break
			}
			blockIndent = n
		}
		if n < blockIndent {
			if n > indent {
				return nil, p.errorf(j, "a line of a block scalar is less indented than its first")
			}
			break
		}
		if !literal && (line[blockIndent] == ' ' || line[blockIndent] == '\t') {
			return nil, p.errorf(j, "a more-indented line in a folded (>) scalar is not read; use |")
		}
		lines = append(lines, line[blockIndent:])
		p.pos = j + 1
	}
	// The blank lines after the last text line, up to the next key, are
	// kept by the + chomping indicator only.
	trailing := 0
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
		trailing++
	}
	var b strings.Builder
	if literal {
		b.WriteString(strings.Join(lines, "\n"))
	} else {
		empties, text := 0, false
		for _, l := range lines {
			if l == "" {
				empties++
				continue
			}
			switch {
			case !text:
				b.WriteString(strings.Repeat("\n", empties))
			case empties == 0:
				b.WriteByte(' ')
			default:
				b.WriteString(strings.Repeat("\n", empties))
			}
			empties, text = 0, true
			b.WriteString(l)
		}
	}
	switch {
	case len(lines) == 0:
		if chomp == '+' {
			b.WriteString(strings.Repeat("\n", trailing))
		}
	case chomp == 0:
		b.WriteByte('\n')
	case chomp == '+':
		b.WriteString(strings.Repeat("\n", 1+trailing))
	}
	return &fmNode{kind: fmString, text: b.String()}, nil
}

// quoted reads the single- or double-quoted scalar s starts with, on line
// i, and returns it and what follows its closing quote.
// [YAML §7.3]: https://yaml.org/spec/1.2.2/#73-flow-scalar-styles
func (p *fmParser) quoted(i int, s string) (string, string, error) {
	q := s[0]
	var b strings.Builder
	for k := 1; k < len(s); k++ {
		c := s[k]
		switch {
		case q == '\'' && c == '\'':
			if k+1 < len(s) && s[k+1] == '\'' {
				b.WriteByte('\'')
				k++
				continue
			}
			return b.String(), s[k+1:], nil
		case q == '"' && c == '"':
			return b.String(), s[k+1:], nil
		case q == '"' && c == '\\':
			if k+1 == len(s) {
				return "", "", p.errorf(i, "a quoted value spans lines; use a block scalar (| or >)")
			}
			r, size, ok := unescapeYAML(s[k+1:])
			if !ok {
				return "", "", p.errorf(i, "an escape in a double-quoted value is not read")
			}
			b.WriteRune(r)
			k += size
		default:
			b.WriteByte(c)
		}
	}
	return "", "", p.errorf(i, "a quoted value spans lines; use a block scalar (| or >)")
}

// unescapeYAML reads the escape after a backslash in s: the rune and the
// bytes it took.
// [YAML §5.7]: https://yaml.org/spec/1.2.2/#57-escaped-characters
func unescapeYAML(s string) (rune, int, bool) {
	simple := map[byte]rune{'0': 0, 'a': 7, 'b': 8, 't': 9, '\t': 9, 'n': 10, 'v': 11, 'f': 12, 'r': 13, 'e': 0x1b,
		' ': ' ', '"': '"', '/': '/', '\\': '\\', 'N': 0x85, '_': 0xa0, 'L': 0x2028, 'P': 0x2029}
	if r, ok := simple[s[0]]; ok {
		return r, 1, true
	}
	width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[0]]
	if width == 0 || len(s) < 1+width {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(s[1:1+width], 16, 32)
	if err != nil || v > utf8.MaxRune || (v >= 0xd800 && v <= 0xdfff) {
		return 0, 0, false
	}
	return rune(v), 1 + width, true
}

// endOfValue checks that only spaces and a comment follow a value.
func (p *fmParser) endOfValue(i int, rest string) error {
	if t := strings.TrimLeft(rest, " "); t != "" && (t[0] != '#' || t == rest) {
		return p.errorf(i, "text after a value: %q", t)
	}
	return nil
}

// stripComment cuts a plain scalar at " #", where a comment begins, and
// trims the spaces after it.
func stripComment(s string) string {
	if k := strings.Index(s, " #"); k >= 0 {
		s = s[:k]
	}
	return strings.TrimRight(s, " \t")
}

// resolvePlain resolves a plain scalar by YAML 1.2's core schema: null,
// a boolean, an integer, a float, else a string. It returns nil for a
// scalar YAML 1.1 reads as another type (a boolean, a date, a number in
// another base or with leading zeros or underscores, a time, .inf, .nan),
// which the reader refuses rather than guess how a host reads it.
// [YAML §10.3]: https://yaml.org/spec/1.2.2/#103-core-schema
func resolvePlain(s string) *fmNode {
	scalar := func(text string) *fmNode { return &fmNode{kind: fmScalar, text: text} }
	switch s {
	case "", "~", "null", "Null", "NULL":
		return scalar("null")
	case "true", "True", "TRUE":
		return scalar("true")
	case "false", "False", "FALSE":
		return scalar("false")
	}
	switch strings.ToLower(s) {
	case "y", "yes", "n", "no", "on", "off", ".inf", "+.inf", "-.inf", ".nan":
		return nil
	}
	digits := strings.TrimLeft(s, "+-")
	if len(s)-len(digits) > 1 || digits == "" {
		return &fmNode{kind: fmString, text: s}
	}
	if strings.Trim(digits, "0123456789") == "" {
		if len(digits) > 1 && digits[0] == '0' {
			return nil // octal in YAML 1.1
		}
		return scalar(strings.TrimPrefix(s, "+"))
	}
	if c := digits[0]; !('0' <= c && c <= '9') && !(c == '.' && len(digits) > 1 && '0' <= digits[1] && digits[1] <= '9') {
		return &fmNode{kind: fmString, text: s}
	}
	// Something numeric-looking: a 1.2 float, or refused when 1.1 reads
	// it otherwise (0x1F, 0o17, 1_000, 1:30, 2026-01-02).
	if isCoreFloat(digits) {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) || (len(digits) > 1 && digits[0] == '0' && digits[1] != '.') {
			return nil
		}
		return scalar(strconv.FormatFloat(f, 'g', -1, 64))
	}
	if len(digits) > 2 && digits[0] == '0' && strings.ContainsRune("xXoObB", rune(digits[1])) ||
		strings.Trim(digits, "0123456789_:.") == "" && strings.ContainsAny(digits, "_:") || looksLikeDate(digits) {
		return nil
	}
	return &fmNode{kind: fmString, text: s}
}

// isCoreFloat reports whether s (without its sign) matches the core
// schema's float: ( \.[0-9]+ | [0-9]+ ( \.[0-9]* )? ) ( [eE][-+]?[0-9]+ )?
func isCoreFloat(s string) bool {
	i, n := 0, len(s)
	digits := func() int {
		start := i
		for i < n && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if lead := digits(); i < n && s[i] == '.' {
		i++
		if frac := digits(); lead == 0 && frac == 0 {
			return false
		}
	} else if lead == 0 {
		return false
	}
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < n && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == n
}

// looksLikeDate reports whether s starts like a YAML 1.1 timestamp:
// [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.
func looksLikeDate(s string) bool {
	y, rest, ok := strings.Cut(s, "-")
	if !ok || len(y) != 4 || strings.Trim(y, "0123456789") != "" {
		return false
	}
	m, rest, ok := strings.Cut(rest, "-")
	if !ok || len(m) < 1 || len(m) > 2 || strings.Trim(m, "0123456789") != "" {
		return false
	}
	d := rest
	for k := 0; k < len(rest); k++ {
		if rest[k] < '0' || rest[k] > '9' {
			d = rest[:k]
			break
		}
	}
	return len(d) >= 1 && len(d) <= 2
}
