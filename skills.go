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
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
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
	if rerr := s.skillsDeclared(req); rerr != nil {
		return result{}, rerr
	}
	return s.list("skills", req)
}

// skillsDeclared is -32601 when req's snapshot serves no skill: the
// extension is then not declared, and its methods are unknown, as the
// extension says of resources/directory/read without directoryRead
// (TestSkillsUndeclared).
// [§Error Handling]: https://github.com/modelcontextprotocol/ext-skills/blob/main/specification/stable/skills.mdx#error-handling
func (s *server) skillsDeclared(req *request) *rpcError {
	if len(s.snapshot(req).skills) > 0 {
		return nil
	}
	return newError(codeMethodNotFound, "method not found: %s (this server declares no %s extension)", req.method, extensionSkills)
}

// handleSkillsGet answers skills/get: the entry of the skill whose
// SKILL.md is params.uri, listed or not; -32602 for any other URI.
// [§Getting a Skill]: https://github.com/modelcontextprotocol/ext-skills/blob/main/specification/stable/skills.mdx#getting-a-skill
func (s *server) handleSkillsGet(ctx context.Context, req *request) (result, error) {
	if rerr := s.skillsDeclared(req); rerr != nil {
		return result{}, rerr
	}
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
	if rerr := s.skillsDeclared(req); rerr != nil {
		return result{}, rerr
	}
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
