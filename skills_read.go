// Reading skills: every skill under a directory of an fs.FS, each file
// read once, checked against the skill format and the extension's limits
// and rules before anything is served, and the skill:// resource each
// file becomes. Part of skills.go.
//
// Spec: https://github.com/modelcontextprotocol/ext-skills/blob/main/specification/stable/skills.mdx
// (Skill Format, Resource Mapping, Limits), https://agentskills.io/specification.

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// readSkills reads every skill under dir of fsys. label names dir in
// messages (its path on disk, or in the embedded files): every error
// names the file it is about, and nothing is returned with it
// (TestSkillRefusals).
func readSkills(fsys fs.FS, dir, label string) (*skillSet, error) {
	if !fs.ValidPath(dir) {
		return nil, fmt.Errorf("skills: %q is not a path inside the files given (no .., no leading /)", dir)
	}
	name := func(rel string) string { return filepath.Join(label, filepath.FromSlash(rel)) }
	// First the tree: which directories are skills, which files lie in
	// each. Names starting with "." (.git, .DS_Store) are not served.
	var skillDirs []string
	files := map[string]fs.FileInfo{} // path under dir → its file (a link's target)
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		rel := relPath(dir, p)
		if err != nil {
			return fmt.Errorf("skills: %s: %w", name(rel), unwrapPathError(err))
		}
		if rel != "" && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err == nil && d.Type()&fs.ModeSymlink != 0 {
			// Followed inside the tree only: an os.Root refuses a link
			// that leads out of it.
			info, err = fs.Stat(fsys, p)
			if err == nil && info.IsDir() {
				return fmt.Errorf("skills: %s: a symbolic link to a directory is not followed", name(rel))
			}
		}
		switch {
		case err != nil:
			return fmt.Errorf("skills: %s: %w", name(rel), unwrapPathError(err))
		case d.IsDir():
			if _, err := fs.Stat(fsys, path.Join(p, skillFileName)); err == nil {
				skillDirs = append(skillDirs, rel)
			}
		case info.Mode().IsRegular():
			files[rel] = info
		default:
			return fmt.Errorf("skills: %s: not a regular file", name(rel))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(skillDirs) == 0 {
		return nil, fmt.Errorf("skills: %s holds no skill (no directory with a %s)", label, skillFileName)
	}
	if slices.Contains(skillDirs, "") {
		return nil, fmt.Errorf("skills: %s: the directory given is itself a skill; give the directory that holds it", name(skillFileName))
	}
	// Then each skill's files, checked against the limits before they
	// are read, and read once.
	set := &skillSet{}
	data := map[string][]byte{}
	paths := slices.Sorted(func(yield func(string) bool) {
		for p := range files {
			if !yield(p) {
				return
			}
		}
	})
	for _, sp := range skillDirs {
		var mine []string
		total := int64(0)
		for _, p := range paths {
			if strings.HasPrefix(p, sp+"/") {
				mine = append(mine, p)
				total += files[p].Size()
			}
		}
		if len(mine) > maxSkillFiles {
			return nil, fmt.Errorf("skills: %s: the skill has %d files, more than the %d every host accepts", name(sp+"/"+skillFileName), len(mine), maxSkillFiles)
		}
		if total > maxSkillBytes {
			return nil, fmt.Errorf("skills: %s: the skill's files hold %d bytes, more than the %d (16 MiB) every host accepts", name(sp+"/"+skillFileName), total, maxSkillBytes)
		}
		for _, p := range mine {
			if _, ok := data[p]; ok {
				continue
			}
			b, err := fs.ReadFile(fsys, path.Join(dir, p))
			if err != nil {
				return nil, fmt.Errorf("skills: %s: %w", name(p), unwrapPathError(err))
			}
			data[p] = b
		}
		sk, err := newSkill(sp, data[sp+"/"+skillFileName], name(sp+"/"+skillFileName))
		if err != nil {
			return nil, err
		}
		// SKILL.md first, then the rest by path.
		mine = slices.DeleteFunc(mine, func(p string) bool { return p == sp+"/"+skillFileName })
		mine = append([]string{sp + "/" + skillFileName}, mine...)
		total = 0
		for _, p := range mine {
			b := data[p]
			total += int64(len(b))
			sum := sha256.Sum256(b)
			sk.files = append(sk.files, skillFile{uri: fileURI(p), size: len(b), digest: "sha256:" + hex.EncodeToString(sum[:])})
		}
		if total > maxSkillBytes { // the files grew while being read
			return nil, fmt.Errorf("skills: %s: the skill's files hold %d bytes, more than the %d (16 MiB) every host accepts", name(sp+"/"+skillFileName), total, maxSkillBytes)
		}
		sk.encodeEntry()
		set.skills = append(set.skills, sk)
	}
	// One resource per file of any skill, in path order; a SKILL.md is
	// described by its skill's frontmatter.
	bySkillFile := map[string]*skill{}
	for _, sk := range set.skills {
		bySkillFile[sk.uri] = sk
	}
	for _, p := range paths {
		b, ok := data[p]
		if !ok {
			continue // not inside any skill
		}
		r := resource{URI: fileURI(p), Name: path.Base(p), MimeType: mimeTypeOf(p, b)}
		if sk := bySkillFile[r.URI]; sk != nil {
			r.Name, r.Description = sk.name, sk.description
		}
		size := int64(len(b))
		r.Size = &size
		if servedAsText(r.MimeType, b) {
			r.Text = string(b)
		} else {
			r.Blob = b
		}
		set.files = append(set.files, r)
	}
	return set, nil
}

// relPath returns p relative to dir, "" for dir itself.
func relPath(dir, p string) string {
	if dir == "." {
		if p == "." {
			return ""
		}
		return p
	}
	return strings.TrimPrefix(strings.TrimPrefix(p, dir), "/")
}

// unwrapPathError returns the reason of a *fs.PathError, whose path the
// message already names.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// fileURI returns the resource URI of the file at p, a path under the
// skills' directory: skill:// and its segments, percent-encoded where a
// URI path segment needs it.
func fileURI(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return skillScheme + strings.Join(segs, "/")
}

// newSkill checks a skill's path and its SKILL.md, md, and returns the
// skill without files; file names SKILL.md in errors.
// [§Resource Mapping]: https://github.com/modelcontextprotocol/ext-skills/blob/main/specification/stable/skills.mdx#resource-mapping
// [Agent Skills, name field]: https://agentskills.io/specification#name-field
func newSkill(sp string, md []byte, file string) (*skill, error) {
	segs := strings.Split(sp, "/")
	name := segs[len(segs)-1]
	for i, s := range segs[:len(segs)-1] {
		if !isRegName(s) {
			what := "a segment of the skill path"
			if i == 0 {
				what = "the first segment of the skill path, the URI's authority,"
			}
			return nil, fmt.Errorf("skills: %s: %s %q has characters a URI would need to encode (letters, digits and -._~ only)", file, what, s)
		}
	}
	if !isSkillName(name) {
		return nil, fmt.Errorf("skills: %s: the directory name %q is not a skill name (1 to 64 lowercase letters, digits and hyphens; no hyphen first, last or twice in a row)", file, name)
	}
	yaml, err := splitFrontmatter(md)
	if err != nil {
		return nil, fmt.Errorf("skills: %s: %w", file, err)
	}
	fm, err := parseFrontmatter(yaml)
	if err != nil {
		return nil, fmt.Errorf("skills: %s: %w", file, err)
	}
	if err := checkFrontmatter(fm, name); err != nil {
		return nil, fmt.Errorf("skills: %s: %w", file, err)
	}
	return &skill{path: sp, uri: fileURI(sp + "/" + skillFileName), name: name,
		description: fm.field("description").text, frontmatter: fm.appendJSON(nil)}, nil
}

// checkFrontmatter checks the fields the Agent Skills format constrains,
// and that name is the skill's directory name.
// [Agent Skills, Frontmatter]: https://agentskills.io/specification#frontmatter
// [§Frontmatter]: https://github.com/modelcontextprotocol/ext-skills/blob/main/specification/stable/skills.mdx#frontmatter
func checkFrontmatter(fm *fmNode, dirName string) error {
	str := func(key string, minRunes, maxRunes int, required bool) error {
		v := fm.field(key)
		switch {
		case v == nil && !required:
			return nil
		case v == nil:
			return fmt.Errorf("frontmatter has no %s", key)
		case v.kind != fmString:
			return fmt.Errorf("frontmatter %s is not a string", key)
		case utf8.RuneCountInString(v.text) < minRunes || utf8.RuneCountInString(v.text) > maxRunes:
			return fmt.Errorf("frontmatter %s has %d characters, not %d to %d", key, utf8.RuneCountInString(v.text), minRunes, maxRunes)
		}
		return nil
	}
	if err := str("name", 1, 64, true); err != nil {
		return err
	}
	if got := fm.field("name").text; got != dirName {
		return fmt.Errorf("frontmatter name %q differs from the skill's directory name %q", got, dirName)
	}
	if err := str("description", 1, 1024, true); err != nil {
		return err
	}
	if err := str("compatibility", 1, 500, false); err != nil {
		return err
	}
	if md := fm.field("metadata"); md != nil {
		if md.kind != fmMapping {
			return errors.New("frontmatter metadata is not a mapping")
		}
		for _, k := range md.keys {
			if strings.HasPrefix(k, metaReservedSkillPrefix) {
				return fmt.Errorf("frontmatter metadata key %q is reserved for MCP extensions, and none defines it", k)
			}
		}
	}
	return nil
}

// isSkillName reports whether s is an Agent Skills name: 1 to 64 ASCII
// lowercase letters, digits and hyphens, no hyphen first, last or twice
// in a row (the conformance suite's rule; the format's "unicode
// lowercase" is read as a-z, which every host accepts).
func isSkillName(s string) bool {
	return isName(s, 64, false, "-") && s[0] != '-' && s[len(s)-1] != '-' && !strings.Contains(s, "--")
}

// isRegName reports whether s is made of RFC 3986's unreserved
// characters: a reg-name, and a path segment, that needs no encoding.
// [RFC 3986 §3.2.2]: https://www.rfc-editor.org/rfc/rfc3986#section-3.2.2
func isRegName(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~") == "" && s != "." && s != ".."
}

// encodeEntry encodes sk's Skill entry and GetSkillResult body, once:
// skills/list pages and skills/get copy them (TestSkillManifestsMatchReads
// reads every file back against them).
// [§Skill Entries]: https://github.com/modelcontextprotocol/ext-skills/blob/main/specification/stable/skills.mdx#skill-entries
func (sk *skill) encodeEntry() {
	b := append(make([]byte, 0, len(sk.frontmatter)+64+len(sk.files)*128), `{"uri":`...)
	b = appendJSONString(b, sk.uri)
	b = append(b, `,"frontmatter":`...)
	b = append(b, sk.frontmatter...)
	b = append(b, `,"resources":`...)
	if sk.dynamic {
		b = append(b, `"dynamic"`...)
	} else {
		b = append(b, '[')
		for i, f := range sk.files {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"uri":`...)
			b = appendJSONString(b, f.uri)
			b = append(b, `,"digest":"`...)
			b = append(b, f.digest...)
			b = append(b, `","size":`...)
			b = fmt.Appendf(b, "%d}", f.size)
		}
		b = append(b, ']')
	}
	sk.entry = append(b, '}')
	sk.getBody = append(append([]byte(`{"skill":`), sk.entry...), '}')
}

// skillMimeTypes maps file extensions to the MIME types skill files are
// served with; a fixed table, so that what a file is served as does not
// depend on the machine (mime.TypeByExtension reads the system's).
var skillMimeTypes = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain", ".csv": "text/csv",
	".html": "text/html", ".htm": "text/html", ".css": "text/css", ".js": "text/javascript", ".mjs": "text/javascript",
	".py": "text/x-python", ".sh": "text/x-shellscript", ".json": "application/json", ".yaml": "application/yaml",
	".yml": "application/yaml", ".toml": "application/toml", ".xml": "application/xml", ".svg": "image/svg+xml",
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
	".pdf": "application/pdf", ".zip": "application/zip",
}

// mimeTypeOf returns the MIME type file p, holding b, is served with: by
// its extension, else text/plain for text and application/octet-stream
// for the rest.
func mimeTypeOf(p string, b []byte) string {
	if t, ok := skillMimeTypes[strings.ToLower(path.Ext(p))]; ok {
		return t
	}
	if servedAsText("", b) {
		return "text/plain"
	}
	return "application/octet-stream"
}

// servedAsText reports whether a file of MIME type t holding b is served as
// text: UTF-8 without NUL, and not of a binary type. Text is served as
// it is, byte for byte (JSON escapes, never alters, valid UTF-8), so the
// manifest's digests hold for either form.
func servedAsText(t string, b []byte) bool {
	binary := strings.HasPrefix(t, "image/") && t != "image/svg+xml" || t == "application/pdf" || t == "application/zip" || t == "application/octet-stream"
	return !binary && utf8.Valid(b) && !slices.Contains(b, 0)
}
