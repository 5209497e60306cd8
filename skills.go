// Skills over MCP (SEP-2640, the extension io.modelcontextprotocol/skills):
// Agent Skills served as resources, skill://<skill-path>/<file-path>, and
// the extension's three methods, skills/list, skills/get and
// resources/directory/read. A skill's entry (frontmatter and manifest) is
// computed once, at registration, from exactly the bytes resources/read
// serves, and encoded once.
//
// Spec: https://github.com/modelcontextprotocol/ext-skills/blob/main/specification/stable/skills.mdx
// (declared against 2026-07-28; the handshake era: docs/GAPS.md, "Skills"),
// the skill format https://agentskills.io/specification.

package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// The extension's identifier, its methods, the file every skill has, the
// scheme of its URIs, and the MIME type of a directory resource.
const (
	extensionSkills         = "io.modelcontextprotocol/skills"
	methodSkillsList        = "skills/list"
	methodSkillsGet         = "skills/get"
	methodDirectoryRead     = "resources/directory/read"
	skillFileName           = "SKILL.md"
	skillScheme             = "skill://"
	mimeTypeDirectory       = "inode/directory"
	metaReservedSkillPrefix = "io.modelcontextprotocol/"
)

// The per-skill limits every conforming host accepts, checked when a
// skill is registered: a larger skill is refused at start, not served to
// hosts that may not load it.
// [§Limits]: https://github.com/modelcontextprotocol/ext-skills/blob/main/specification/stable/skills.mdx#limits
const (
	maxSkillFiles = 512
	maxSkillBytes = 16 << 20
)

// skill is one skill as served. Immutable once made; its entry is encoded
// once (skills/list pages copy it, skills/get sends getBody).
type skill struct {
	path        string // the skill path: "demo-tools", "acme/billing/refunds"
	uri         string // skill://<path>/SKILL.md
	name        string // the frontmatter's name, the path's last segment
	description string // the frontmatter's description
	frontmatter []byte // the frontmatter as JSON, the author's fields in order
	files       []skillFile
	// dynamic marks a generated skill (addGeneratedSkill): its entry's
	// resources are "dynamic" and files holds its SKILL.md alone.
	dynamic bool
	entry   []byte // the Skill entry, JSON
	getBody []byte // GetSkillResult's own members: {"skill":entry}
}

// skillFile is one file of a skill's manifest: its URI and the size and
// SHA-256 of the bytes resources/read returns.
type skillFile struct {
	uri    string
	size   int
	digest string // "sha256:" and 64 lowercase hex digits
}

// skillSet is what one registration serves: skills and one resource per
// file, registered together or not at all (serveSkills).
type skillSet struct {
	skills []*skill
	files  []resource
}

// addSkills serves every skill under dir of fsys, each directory there
// holding a SKILL.md (nested ones too), in one line:
//
//	//go:embed skills
//	var skillFiles embed.FS
//	...
//	s.addSkills(skillFiles, "skills")
//
// Every file is read now, once; what resources/read returns and what the
// entries say are those bytes. A skill the specification or its limits
// refuse panics, naming the file, with nothing served: a bad skill in the
// binary is a programming error the first run reveals. From a directory
// on disk, run reads them the same way (-skills, addSkillDir).
func (s *server) addSkills(fsys fs.FS, dir string) {
	set, err := readSkills(fsys, dir, dir)
	if err == nil {
		err = s.serveSkills(set)
	}
	if err != nil {
		panic("addSkills: " + err.Error())
	}
}

// addSkillDir serves every skill under the directory dir on disk
// (-skills): read once, now, through an os.Root, so that neither ".." nor
// a symbolic link leads out of dir (TestSkillDirRefusals). Afterwards the
// process keeps no handle on dir, and its confinement grants it nothing
// (docs/GAPS.md, "Skills").
func (s *server) addSkillDir(dir string) (*skillSet, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	}
	defer root.Close()
	set, err := readSkills(root.FS(), ".", dir)
	if err != nil {
		return nil, err
	}
	return set, s.serveSkills(set)
}

// generatedSkill is a skill whose SKILL.md a handler writes at each read,
// after a fixed frontmatter: hosts cannot verify its content, and its
// entry says "resources": "dynamic".
type generatedSkill struct {
	// Path is the skill path; its last segment is the skill's name, and
	// Frontmatter's name must equal it.
	Path string
	// Frontmatter is the YAML between SKILL.md's "---" lines, with name
	// and description at least; it is the same on every read, so hosts
	// can compare it with the entry.
	Frontmatter string
	// Body returns the Markdown after the frontmatter.
	Body func(ctx context.Context, req *request) (string, error)
}

// addGeneratedSkill serves g. It panics when g's path or frontmatter is
// refused (as addSkills would refuse them), or its Body is missing.
func (s *server) addGeneratedSkill(g generatedSkill) {
	if g.Body == nil {
		panic(fmt.Sprintf("addGeneratedSkill %s: needs a Body", g.Path))
	}
	err := func() error {
		if !fs.ValidPath(g.Path) || g.Path == "." {
			return fmt.Errorf("skills: %q is not a skill path", g.Path)
		}
		fm := strings.TrimSuffix(g.Frontmatter, "\n") + "\n"
		head := "---\n" + fm + "---\n"
		sk, err := newSkill(g.Path, []byte(head), g.Path+"/"+skillFileName)
		if err != nil {
			return err
		}
		sk.dynamic, sk.files = true, []skillFile{{uri: sk.uri}} // for the directory index
		sk.encodeEntry()
		file := resource{
			URI: sk.uri, Name: sk.name, Description: sk.description, MimeType: "text/markdown",
			// Generated at each read: nothing to cache.
			Cache: &cacheHint{TTL: 0, Scope: scopePrivate},
			Read: func(ctx context.Context, req *request, uri string, _ map[string]string) ([]resourceContents, error) {
				body, err := g.Body(ctx, req)
				if err != nil {
					return nil, err
				}
				return []resourceContents{{URI: uri, MimeType: "text/markdown", Text: head + body}}, nil
			},
		}
		return s.serveSkills(&skillSet{skills: []*skill{sk}, files: []resource{file}})
	}()
	if err != nil {
		panic("addGeneratedSkill: " + err.Error())
	}
}

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

// serveSkills registers set: its skills and files, all or nothing, in one
// snapshot. It refuses a skill or file already served, and a skill inside
// another's directory, or holding another, served by another registration
// (the enclosing skill's manifest would not list the nested one's files;
// TestSkillRegistrationConflicts).
func (s *server) serveSkills(set *skillSet) error {
	if err := s.registry().skillConflict(set); err != nil {
		return err
	}
	s.update(func(reg *registry) {
		if err := reg.skillConflict(set); err != nil {
			panic(err.Error()) // a registration raced this one
		}
		reg.skills = append(reg.skills, set.skills...)
		for i := range set.files {
			r := set.files[i]
			reg.resources = append(reg.resources, &r)
		}
	})
	return nil
}

// skillConflict reports why set cannot join the snapshot, or nil.
func (r *registry) skillConflict(set *skillSet) error {
	for _, f := range set.files {
		if r.resource(f.URI) != nil {
			return fmt.Errorf("skills: %s is already served", f.URI)
		}
	}
	for _, sk := range set.skills {
		for _, old := range r.skills {
			if strings.HasPrefix(sk.path+"/", old.path+"/") || strings.HasPrefix(old.path+"/", sk.path+"/") {
				return fmt.Errorf("skills: %s and %s, served by separate registrations, lie one inside the other", sk.uri, old.uri)
			}
		}
	}
	return nil
}

// skillIndex is a published snapshot's lookups of skills and
// directories, built on the first lookup.
type skillIndex struct {
	once  sync.Once
	byURI map[string]*skill
	// dirs maps each directory of a skill namespace (skill roots, their
	// subdirectories and the prefixes above them) to its direct
	// children's URIs, sorted; a child in dirs is a directory.
	dirs map[string][]string
}

// skillIdx returns the snapshot's index; on a snapshot still being
// built, a fresh one.
func (r *registry) skillIdx() *skillIndex {
	if !r.published {
		r = &registry{skills: r.skills}
	}
	x := &r.skillsIndex
	x.once.Do(func() {
		x.byURI = make(map[string]*skill, len(r.skills))
		x.dirs = map[string][]string{}
		seen := map[string]bool{}
		for _, sk := range r.skills {
			x.byURI[sk.uri] = sk
			for _, f := range sk.files {
				for child := f.uri; ; {
					parent := child[:strings.LastIndexByte(child, '/')]
					if len(parent) <= len(skillScheme) || seen[child] {
						break
					}
					seen[child] = true
					x.dirs[parent] = append(x.dirs[parent], child)
					child = parent
				}
			}
		}
		for _, c := range x.dirs {
			slices.Sort(c)
		}
	})
	return x
}

// skill returns the skill whose SKILL.md is at uri, or nil.
func (r *registry) skill(uri string) *skill {
	if !r.published {
		i := slices.IndexFunc(r.skills, func(sk *skill) bool { return sk.uri == uri })
		if i < 0 {
			return nil
		}
		return r.skills[i]
	}
	return r.skillIdx().byURI[uri]
}

// handleSkillsList answers skills/list: the entries, paginated as every
// list is (an entry is never split), each page encoded once per snapshot
// (registry.page).
// [§Listing Skills]: https://github.com/modelcontextprotocol/ext-skills/blob/main/specification/stable/skills.mdx#listing-skills
func (s *server) handleSkillsList(ctx context.Context, req *request) (result, error) {
	return s.list("skills", req)
}

// handleSkillsGet answers skills/get: the entry of the skill whose
// SKILL.md is params.uri, listed or not; -32602 for any other URI.
// [§Getting a Skill]: https://github.com/modelcontextprotocol/ext-skills/blob/main/specification/stable/skills.mdx#getting-a-skill
func (s *server) handleSkillsGet(ctx context.Context, req *request) (result, error) {
	uri, rerr := req.stringParam("uri")
	if rerr != nil {
		return result{}, rerr
	}
	if len(uri) > maxURILength {
		return result{}, invalidParams("invalid params: uri longer than %d bytes", maxURILength)
	}
	sk := s.snapshot(req).skill(uri)
	if sk == nil {
		return result{}, &rpcError{Code: codeInvalidParams, Message: "invalid params: no skill is served at this uri", Data: map[string]string{"uri": uri}}
	}
	return result{body: json.RawMessage(sk.getBody)}, nil
}

// handleDirectoryRead answers resources/directory/read: the direct
// children of a directory of the skill namespaces, files with their
// resource metadata and subdirectories as inode/directory, paginated as
// the lists are; -32602 for anything else.
// [§Reading Directories]: https://github.com/modelcontextprotocol/ext-skills/blob/main/specification/stable/skills.mdx#reading-directories
func (s *server) handleDirectoryRead(ctx context.Context, req *request) (result, error) {
	uri, rerr := req.stringParam("uri")
	if rerr != nil {
		return result{}, rerr
	}
	cursor, rerr := req.cursorParam()
	if rerr != nil {
		return result{}, rerr
	}
	if len(uri) > maxURILength {
		return result{}, invalidParams("invalid params: uri longer than %d bytes", maxURILength)
	}
	reg := s.snapshot(req)
	children, ok := reg.skillIdx().dirs[uri]
	if !ok {
		return result{}, &rpcError{Code: codeInvalidParams, Message: "invalid params: not a directory resource", Data: map[string]string{"uri": uri}}
	}
	start := 0
	if cursor != "" {
		if start, ok = decodeCursor(cursor); !ok || s.pageSize <= 0 || start <= 0 || start >= len(children) || start%s.pageSize != 0 {
			return result{}, invalidParams("invalid cursor")
		}
	}
	end := len(children)
	if s.pageSize > 0 && start+s.pageSize < end {
		end = start + s.pageSize
	}
	page := directoryPage{Resources: make([]resourceWire, 0, end-start)}
	for _, c := range children[start:end] {
		if r := reg.resource(c); r != nil {
			page.Resources = append(page.Resources, r.wire(req.version))
			continue
		}
		name, _ := url.PathUnescape(path.Base(c))
		page.Resources = append(page.Resources, resourceWire{URI: c, Name: name, MimeType: mimeTypeDirectory})
	}
	if end < len(children) {
		page.NextCursor = encodeCursor(end)
	}
	return result{body: page}, nil
}

// directoryPage is ReadResourceDirectoryResult without the stamped
// members.
type directoryPage struct {
	Resources  []resourceWire `json:"resources"`
	NextCursor string         `json:"nextCursor,omitempty"`
}
