package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// testSkillPNG is a 1×1 PNG: a skill file served as a blob.
const testSkillPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// testSkillFiles is the skills part's tree (registry_test.go): skills
// with and without a prefix, a nested one, a binary file, a file name
// with a space, a file outside every skill and a hidden one (neither
// served).
func testSkillFiles() fstest.MapFS {
	png, _ := base64.StdEncoding.DecodeString(testSkillPNG)
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s), Mode: 0o644} }
	return fstest.MapFS{
		"skills/README.md":                                              file("Not part of any skill.\n"),
		"skills/.hidden/SKILL.md":                                       file("---\nname: hidden\ndescription: never served\n---\n"),
		"skills/git-workflow/SKILL.md":                                  file("---\nname: git-workflow\ndescription: Follow this team's Git conventions for branching and commits.\nlicense: MIT\nmetadata:\n  owner: platform\n  version: \"1.0\"\n---\n\n# Git workflow\n\nBranch from main; see nothing else.\n"),
		"skills/pdf-processing/SKILL.md":                                file("---\nname: pdf-processing\ndescription: >-\n  Extract, fill, and assemble PDF documents.\n  Use when a task mentions a PDF.\nallowed-tools: [Read, Write]\n---\n\n# PDF processing\n\nPick a template from `templates/`; forms are in references/FORMS.md.\n"),
		"skills/pdf-processing/references/FORMS.md":                     file("# Forms\r\n\r\nCRLF line ends, kept byte for byte.\r\n"),
		"skills/pdf-processing/templates/invoice.md":                    file("# Invoice\n"),
		"skills/pdf-processing/templates/purchase order.md":             file("# Purchase order\n"),
		"skills/pdf-processing/assets/logo.png":                         {Data: png, Mode: 0o644},
		"skills/pdf-processing/templates/regional/eu-invoice/SKILL.md":  file("---\nname: eu-invoice\ndescription: Invoices for the EU, with VAT.\n---\n\nSee notes.txt.\n"),
		"skills/pdf-processing/templates/regional/eu-invoice/notes.txt": file("VAT: 20%.\n"),
		"skills/pdf-processing/templates/regional/eu-invoice/.DS_Store": file("x"),
		"skills/acme/billing/refunds/SKILL.md":                          file("---\nname: refunds\ndescription: Process customer refund requests per company policy.\n---\n\nSee examples/email.md.\n"),
		"skills/acme/billing/refunds/examples/email.md":                 file("Dear customer, ...\n"),
	}
}

// TestSkillsServed pins what registering testSkillFiles serves: the
// skills found, their manifests (SKILL.md first), and the files that are
// resources; the wire is in testdata/skills/.
func TestSkillsServed(t *testing.T) {
	s := newTestServer(t, withRegistry("skills"))
	reg := s.registry()
	var skills []string
	for _, sk := range reg.skills {
		var files []string
		for _, f := range sk.files {
			files = append(files, strings.TrimPrefix(f.uri, sk.uri[:len(sk.uri)-len(skillFileName)]))
		}
		skills = append(skills, sk.path+" "+strings.Join(files, ","))
	}
	want := []string{
		"acme/billing/refunds SKILL.md,examples/email.md",
		"git-workflow SKILL.md",
		"pdf-processing SKILL.md,assets/logo.png,references/FORMS.md,templates/invoice.md,templates/purchase%20order.md,templates/regional/eu-invoice/SKILL.md,templates/regional/eu-invoice/notes.txt",
		"pdf-processing/templates/regional/eu-invoice SKILL.md,notes.txt",
		"reports/daily SKILL.md",
	}
	if !slices.Equal(skills, want) {
		t.Errorf("skills served:\n%s\nwant\n%s", strings.Join(skills, "\n"), strings.Join(want, "\n"))
	}
	var uris []string
	for _, r := range reg.resources {
		uris = append(uris, r.URI)
	}
	if len(uris) != 11 || slices.ContainsFunc(uris, func(u string) bool {
		return strings.Contains(u, "hidden") || strings.Contains(u, "README") || strings.Contains(u, "DS_Store")
	}) {
		t.Errorf("resources = %q, want the 11 files of the skills (the generated SKILL.md last), no hidden file, nothing outside a skill", uris)
	}
}

// TestSkillManifestsMatchReads walks every skill each registry serves
// (the skills part here, the demo's in registry_demo_test.go) and checks
// its entry against what resources/read returns.
func TestSkillManifestsMatchReads(t *testing.T) {
	mustCheckSkillManifests(t, newTestServer(t, withRegistry("skills")))
}

// mustCheckSkillManifests checks every skill skills/list shows on s: the
// same entry from skills/get; each manifest file read back with exactly
// its size and SHA-256; the frontmatter equal to the one the SKILL.md
// read back holds; the SKILL.md resource named and described by it; and
// the manifest complete: every file resources/directory/read shows under
// the skill's directory is in it.
func mustCheckSkillManifests(t *testing.T, s *server) {
	t.Helper()
	var list struct {
		Skills []struct {
			URI         string          `json:"uri"`
			Frontmatter json.RawMessage `json:"frontmatter"`
			Resources   json.RawMessage `json:"resources"`
		} `json:"skills"`
	}
	mustResultInto(t, mustServeOne(t, s, req("1", methodSkillsList, "")), &list)
	if len(list.Skills) == 0 {
		t.Fatal("skills/list shows no skill")
	}
	for _, e := range list.Skills {
		var get struct {
			Skill json.RawMessage `json:"skill"`
		}
		mustResultInto(t, mustServeOne(t, s, req("2", methodSkillsGet, `"uri":`+jsonQuote(e.URI))), &get)
		entry, _ := json.Marshal(e)
		if !sameJSON(t, string(get.Skill), string(entry)) {
			t.Errorf("skills/get %s = %s, want the listed entry %s", e.URI, get.Skill, entry)
		}
		md := mustReadBytes(t, s, e.URI)
		yaml, err := splitFrontmatter(md)
		if err != nil {
			t.Fatalf("%s: %v", e.URI, err)
		}
		fm, err := parseFrontmatter(yaml)
		if err != nil {
			t.Fatalf("%s: %v", e.URI, err)
		}
		if got := string(fm.appendJSON(nil)); got != string(e.Frontmatter) {
			t.Errorf("%s: entry frontmatter %s, SKILL.md's %s", e.URI, e.Frontmatter, got)
		}
		if r := s.registry().resource(e.URI); r == nil || r.MimeType != "text/markdown" || r.Name != fm.field("name").text || r.Description != fm.field("description").text {
			t.Errorf("%s: resource %+v, want text/markdown named and described by the frontmatter", e.URI, r)
		}
		if string(e.Resources) == `"dynamic"` {
			continue
		}
		var files []struct {
			URI    string `json:"uri"`
			Digest string `json:"digest"`
			Size   int    `json:"size"`
		}
		if err := json.Unmarshal(e.Resources, &files); err != nil {
			t.Fatalf("%s: resources %s: %v", e.URI, e.Resources, err)
		}
		listed := map[string]bool{}
		total := 0
		for _, f := range files {
			b := mustReadBytes(t, s, f.URI)
			sum := sha256.Sum256(b)
			if got := "sha256:" + hex.EncodeToString(sum[:]); got != f.Digest || len(b) != f.Size {
				t.Errorf("%s: read %d bytes, %s; the manifest says %d, %s", f.URI, len(b), got, f.Size, f.Digest)
			}
			listed[f.URI] = true
			total += f.Size
		}
		if !listed[e.URI] || len(listed) != len(files) || len(files) > maxSkillFiles || total > maxSkillBytes {
			t.Errorf("%s: manifest of %d files (%d distinct, %d bytes), want its SKILL.md and each file once, within the limits", e.URI, len(files), len(listed), total)
		}
		for _, u := range mustWalkDirectory(t, s, strings.TrimSuffix(e.URI, "/"+skillFileName)) {
			if !listed[u] {
				t.Errorf("%s: %s is in the skill's directory but not in its manifest", e.URI, u)
			}
		}
	}
}

// mustResultInto decodes the result of a response line into v.
func mustResultInto(tb testing.TB, line string, v any) {
	tb.Helper()
	var resp struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &resp); err != nil || resp.Result == nil {
		tb.Fatalf("want a result, got %s", line)
	}
	if err := json.Unmarshal(resp.Result, v); err != nil {
		tb.Fatalf("result %s: %v", resp.Result, err)
	}
}

// jsonQuote returns s as a JSON string.
func jsonQuote(s string) string { return string(appendJSONString(nil, s)) }

// mustReadBytes returns the bytes resources/read returns for uri: its
// text, or its blob decoded.
func mustReadBytes(tb testing.TB, s *server, uri string) []byte {
	tb.Helper()
	var read struct {
		Contents []struct {
			URI  string  `json:"uri"`
			Text *string `json:"text"`
			Blob *string `json:"blob"`
		} `json:"contents"`
	}
	mustResultInto(tb, mustServeOne(tb, s, req("3", "resources/read", `"uri":`+jsonQuote(uri))), &read)
	if len(read.Contents) != 1 || read.Contents[0].URI != uri {
		tb.Fatalf("resources/read %s: %+v, want one contents for it", uri, read.Contents)
	}
	if c := read.Contents[0]; c.Text != nil {
		return []byte(*c.Text)
	}
	b, err := base64.StdEncoding.DecodeString(*read.Contents[0].Blob)
	if err != nil {
		tb.Fatalf("resources/read %s: blob: %v", uri, err)
	}
	return b
}

// mustWalkDirectory returns every file under the directory resource dir,
// descending through resources/directory/read.
func mustWalkDirectory(tb testing.TB, s *server, dir string) []string {
	tb.Helper()
	var page struct {
		Resources []resourceWire `json:"resources"`
	}
	mustResultInto(tb, mustServeOne(tb, s, req("4", methodDirectoryRead, `"uri":`+jsonQuote(dir))), &page)
	var files []string
	for _, r := range page.Resources {
		if r.MimeType == mimeTypeDirectory {
			files = append(files, mustWalkDirectory(tb, s, r.URI)...)
		} else {
			files = append(files, r.URI)
		}
	}
	return files
}

// TestSkillRefusals holds that a skill the format, the extension or its
// limits refuse stops the registration with a message naming the file,
// and that nothing of it is served: readSkills over files in memory.
func TestSkillRefusals(t *testing.T) {
	skillMD := func(fm string) *fstest.MapFile { return &fstest.MapFile{Data: []byte("---\n" + fm + "\n---\nbody\n")} }
	ok := skillMD("name: ok\ndescription: fine")
	many := fstest.MapFS{"s/big/SKILL.md": skillMD("name: big\ndescription: many files")}
	for i := range maxSkillFiles {
		many[fmt.Sprintf("s/big/f%03d.txt", i)] = &fstest.MapFile{Data: []byte("x")}
	}
	for _, tt := range []struct {
		name  string
		files fstest.MapFS
		dir   string
		want  string // the file named, then the reason
	}{
		{"name differs from its directory", fstest.MapFS{"s/ok/SKILL.md": ok, "s/other/SKILL.md": skillMD("name: ok\ndescription: x")},
			"s", "s/other/SKILL.md: frontmatter name \"ok\" differs from the skill's directory name \"other\""},
		{"unreadable frontmatter", fstest.MapFS{"s/a/SKILL.md": skillMD("name: a\ndescription: x\nsince: 2026-01-02")},
			"s", "s/a/SKILL.md: frontmatter line 4: \"2026-01-02\" is read differently"},
		{"no frontmatter", fstest.MapFS{"s/a/SKILL.md": {Data: []byte("# A\n")}}, "s", "s/a/SKILL.md: does not begin with a \"---\" line"},
		{"frontmatter not closed", fstest.MapFS{"s/a/SKILL.md": {Data: []byte("---\nname: a\n")}}, "s", "s/a/SKILL.md: has no \"---\" line closing"},
		{"no description", fstest.MapFS{"s/a/SKILL.md": skillMD("name: a")}, "s", "s/a/SKILL.md: frontmatter has no description"},
		{"description not a string", fstest.MapFS{"s/a/SKILL.md": skillMD("name: a\ndescription: 42")}, "s", "s/a/SKILL.md: frontmatter description is not a string"},
		{"description too long", fstest.MapFS{"s/a/SKILL.md": skillMD("name: a\ndescription: " + strings.Repeat("é", 1025))}, "s", "s/a/SKILL.md: frontmatter description has 1025 characters, not 1 to 1024"},
		{"compatibility too long", fstest.MapFS{"s/a/SKILL.md": skillMD("name: a\ndescription: x\ncompatibility: " + strings.Repeat("x", 501))}, "s", "compatibility has 501 characters"},
		{"uppercase name", fstest.MapFS{"s/PDF/SKILL.md": skillMD("name: PDF\ndescription: x")}, "s", "s/PDF/SKILL.md: the directory name \"PDF\" is not a skill name"},
		{"consecutive hyphens", fstest.MapFS{"s/a--b/SKILL.md": skillMD("name: a--b\ndescription: x")}, "s", "s/a--b/SKILL.md: the directory name \"a--b\" is not a skill name"},
		{"name too long", fstest.MapFS{"s/" + strings.Repeat("a", 65) + "/SKILL.md": skillMD("name: " + strings.Repeat("a", 65) + "\ndescription: x")}, "s", "is not a skill name"},
		{"reserved metadata key", fstest.MapFS{"s/a/SKILL.md": skillMD("name: a\ndescription: x\nmetadata:\n  io.modelcontextprotocol/x: z")}, "s", "s/a/SKILL.md: frontmatter metadata key \"io.modelcontextprotocol/x\" is reserved"},
		{"metadata not a mapping", fstest.MapFS{"s/a/SKILL.md": skillMD("name: a\ndescription: x\nmetadata: v1")}, "s", "metadata is not a mapping"},
		{"prefix needing encoding", fstest.MapFS{"s/my team/a/SKILL.md": skillMD("name: a\ndescription: x")}, "s", "s/my team/a/SKILL.md: the first segment of the skill path, the URI's authority, \"my team\""},
		{"over 512 files", many, "s", fmt.Sprintf("s/big/SKILL.md: the skill has %d files, more than the 512", maxSkillFiles+1)},
		{"over 16 MiB", fstest.MapFS{"s/a/SKILL.md": ok, "s/a/big.bin": {Data: make([]byte, maxSkillBytes)}}, "s",
			"s/a/SKILL.md: the skill's files hold 16777256 bytes, more than the 16777216"},
		{"nested over the limit", fstest.MapFS{"s/a/SKILL.md": skillMD("name: a\ndescription: x"), "s/a/b/SKILL.md": skillMD("name: b\ndescription: x"), "s/a/b/big.bin": {Data: make([]byte, maxSkillBytes-20)}}, "s",
			"s/a/SKILL.md: the skill's files hold"},
		{"the directory is a skill", fstest.MapFS{"s/SKILL.md": ok}, "s", "s/SKILL.md: the directory given is itself a skill"},
		{"no skill", fstest.MapFS{"s/README.md": {Data: []byte("x")}}, "s", "s holds no skill"},
		{"dot-dot", fstest.MapFS{"s/ok/SKILL.md": ok}, "s/../s", "\"s/../s\" is not a path inside the files given"},
		{"absolute", fstest.MapFS{"s/ok/SKILL.md": ok}, "/s", "\"/s\" is not a path inside the files given"},
		{"not a regular file", fstest.MapFS{"s/ok/SKILL.md": ok, "s/ok/pipe": {Mode: fs.ModeNamedPipe}}, "s", "s/ok/pipe: not a regular file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withRegistry("skills"))
			before := s.registry()
			err := func() (err error) {
				defer func() {
					if p := recover(); p != nil {
						err = fmt.Errorf("%v", p)
					}
				}()
				s.addSkills(tt.files, tt.dir)
				return nil
			}()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("addSkills = %v, want a refusal with %q", err, tt.want)
			}
			if after := s.registry(); after != before {
				t.Errorf("the refused registration changed the registry: %d skills, %d resources (were %d, %d)", len(after.skills), len(after.resources), len(before.skills), len(before.resources))
			}
		})
	}
}

// TestSkillDirRefusals holds the refusals only a directory on disk can
// cause (-skills DIR, read through an os.Root): a symbolic link out of
// the tree, by an absolute or a relative ("../..") path, or to a
// directory; and that run refuses to start, naming the file.
func TestSkillDirRefusals(t *testing.T) {
	write := func(t *testing.T, root, rel, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const ok = "---\nname: ok\ndescription: fine\n---\n"
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, dir, outside string)
		want  string // the file, relative to dir, then the reason
	}{
		{"symbolic link out of the tree", func(t *testing.T, dir, outside string) {
			write(t, dir, "ok/SKILL.md", ok)
			write(t, outside, "secret.txt", "secret")
			mustSymlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(dir, "ok", "leak.txt"))
		}, "ok/leak.txt: path escapes from parent"},
		{"relative symbolic link climbing out", func(t *testing.T, dir, outside string) {
			write(t, dir, "ok/SKILL.md", ok)
			mustSymlink(t, "../../../etc/passwd", filepath.Join(dir, "ok", "passwd"))
		}, "ok/passwd: path escapes from parent"},
		{"symbolic link to a directory", func(t *testing.T, dir, outside string) {
			write(t, dir, "ok/SKILL.md", ok)
			write(t, dir, "ok/sub/x.md", "x")
			mustSymlink(t, "sub", filepath.Join(dir, "ok", "again"))
		}, "ok/again: a symbolic link to a directory is not followed"},
		{"SKILL.md a link out of the tree", func(t *testing.T, dir, outside string) {
			write(t, outside, "SKILL.md", ok)
			mustSymlink(t, filepath.Join(outside, "SKILL.md"), filepath.Join(dir, "ok", "SKILL.md"))
		}, "ok/SKILL.md: path escapes from parent"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "ok"), 0o755); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, dir, outside)
			s := newTestServer(t, withRegistry("base"))
			before := s.registry()
			_, err := s.addSkillDir(dir)
			want := filepath.Join(dir, filepath.FromSlash(tt.want))
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("addSkillDir = %v, want a refusal with %q", err, want)
			}
			if s.registry() != before {
				t.Error("the refused directory changed the registry")
			}
			var stderr bytes.Buffer
			err = run(t.Context(), []string{"-skills", dir, "-confine=off"}, strings.NewReader(""), &bytes.Buffer{}, &stderr, func(string) string { return "" })
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("run -skills %s = %v, want it to refuse to start naming %s", dir, err, want)
			}
		})
	}
	t.Run("served, link inside the tree followed", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, "ok/SKILL.md", ok)
		write(t, dir, "ok/a.md", "A\n")
		mustSymlink(t, "a.md", filepath.Join(dir, "ok", "b.md"))
		s := newTestServer(t, withRegistry("base"))
		set, err := s.addSkillDir(dir)
		if err != nil || len(set.skills) != 1 || len(set.files) != 3 {
			t.Fatalf("addSkillDir = %v, %v; want one skill of three files", set, err)
		}
		mustCheckSkillManifests(t, s)
	})
}

// mustSymlink makes a symbolic link, or skips where the system has none.
func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
}

// TestSkillRegistrationConflicts holds that registrations do not
// overlap: a skill already served, or one inside another's directory,
// served by another registration, is refused with nothing served.
func TestSkillRegistrationConflicts(t *testing.T) {
	gen := func(p, name string) generatedSkill {
		return generatedSkill{Path: p, Frontmatter: "name: " + name + "\ndescription: x",
			Body: func(context.Context, *request) (string, error) { return "", nil }}
	}
	for _, tt := range []struct {
		name string
		add  func(s *server)
		want string
	}{
		{"the same tree twice", func(s *server) { s.addSkills(testSkillFiles(), "skills") }, "skill://acme/billing/refunds/SKILL.md is already served"},
		{"inside a served skill", func(s *server) { s.addGeneratedSkill(gen("git-workflow/extra", "extra")) }, "lie one inside the other"},
		{"around a served skill", func(s *server) { s.addGeneratedSkill(gen("reports", "reports")) }, "lie one inside the other"},
		{"generated path with dot-dot", func(s *server) { s.addGeneratedSkill(gen("a/../b", "b")) }, "\"a/../b\" is not a skill path"},
		{"generated name differs", func(s *server) { s.addGeneratedSkill(gen("c", "d")) }, "differs from the skill's directory name"},
		{"generated without a body", func(s *server) {
			s.addGeneratedSkill(generatedSkill{Path: "c", Frontmatter: "name: c\ndescription: x"})
		}, "needs a Body"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withRegistry("skills"))
			before := s.registry()
			err := func() (err error) {
				defer func() {
					if p := recover(); p != nil {
						err = fmt.Errorf("%v", p)
					}
				}()
				tt.add(s)
				return nil
			}()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want a refusal with %q", err, tt.want)
			}
			if s.registry() != before {
				t.Error("the refused registration changed the registry")
			}
		})
	}
}

// TestSkillFilesServedAs pins how each kind of file is served: its MIME
// type, and text (byte for byte) or a blob.
func TestSkillFilesServedAs(t *testing.T) {
	for _, tt := range []struct {
		path, data, mime string
		text             bool
	}{
		{"a/SKILL.md", "# x", "text/markdown", true},
		{"a/x.py", "print(1)", "text/x-python", true},
		{"a/X.JSON", "{}", "application/json", true},
		{"a/notes", "plain words", "text/plain", true},
		{"a/data.bin", "\x00\x01", "application/octet-stream", false},
		{"a/latin1.txt", "caf\xe9", "text/plain", false},
		{"a/logo.png", "\x89PNG", "image/png", false},
		{"a/logo.svg", "<svg/>", "image/svg+xml", true},
		{"a/crlf.md", "a\r\nb\r\n", "text/markdown", true},
	} {
		mime := mimeTypeOf(tt.path, []byte(tt.data))
		if text := servedAsText(mime, []byte(tt.data)); mime != tt.mime || text != tt.text {
			t.Errorf("%s: served as %s, text %v; want %s, text %v", tt.path, mime, text, tt.mime, tt.text)
		}
	}
}

// TestSkillsUndeclared holds that a server serving no skill, which then
// does not declare the extension, knows none of its methods.
func TestSkillsUndeclared(t *testing.T) {
	s := newTestServer(t)
	if caps := mustServeOne(t, s, req("1", "server/discover", "")); strings.Contains(caps, extensionSkills) {
		t.Errorf("server/discover declares the skills extension without a skill: %s", caps)
	}
	for _, m := range []string{methodSkillsList, methodSkillsGet, methodDirectoryRead} {
		got := mustDecode(t, mustServeOne(t, s, req("2", m, `"uri":"skill://a/SKILL.md"`)))
		if e, _ := got["error"].(map[string]any); e["code"] != json.Number("-32601") {
			t.Errorf("%s without a skill = %v, want -32601", m, got)
		}
	}
}

// BenchmarkSkillsList measures skills/list of 100 skills (each a SKILL.md
// and one reference file) through the dispatcher, beside tools/list of
// 100 tools in the same run: both pages are encoded once per snapshot
// (registry.page). It reports the p50 of one request (docs/PERFORMANCE.md).
func BenchmarkSkillsList(b *testing.B) {
	files := fstest.MapFS{}
	for i := range 100 {
		name := fmt.Sprintf("skill-%03d", i)
		files["skills/"+name+"/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: Skill " + name + " for benchmarks, saying what it does and when to use it.\nlicense: MIT\n---\n\n# " + name + "\n\nSee references/guide.md.\n")}
		files["skills/"+name+"/references/guide.md"] = &fstest.MapFile{Data: bytes.Repeat([]byte("A line of the guide.\n"), 50)}
	}
	for _, tt := range []struct {
		name, line string
		opt        testOption
	}{
		{"skills=100", `{"jsonrpc":"2.0","id":7,"method":"skills/list","params":{` + benchMeta + `}}`,
			withSetup(func(s *server) { s.addSkills(files, "skills") })},
		{"tools=100", benchList, withBenchTools(100)},
	} {
		b.Run(tt.name, func(b *testing.B) {
			s := newTestServer(b, withRegistry("base"), withFlags("-cache-ttl", "0"), tt.opt)
			data := []byte(tt.line)
			var took []time.Duration
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				msg, rerr := parseMessage(data)
				if rerr != nil {
					b.Fatal(rerr)
				}
				reply := s.dispatch(b.Context(), &msg, exchange{})
				took = append(took, time.Since(start))
				if i == 0 && !bytes.Contains(reply, []byte(`"result"`)) {
					b.Fatalf("%.200s", reply)
				}
			}
			sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
			b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
		})
	}
}
