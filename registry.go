// The registry: tools, prompts, resources and templates in one immutable snapshot at a time
// (server.go swaps them), its lookups, its capabilities, list results encoded once per snapshot.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/server,
// https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/pagination

package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// registry is one immutable snapshot of what the server offers, in registration order.
type registry struct {
	tools      []*tool
	prompts    []*prompt
	resources  []*resource
	templates  []*resourceTemplate
	skills     []*skill        // the skills extension's skills (skills.go); their files are in resources
	middleware []middleware    // wraps every call, first added outermost (middleware.go)
	needs      []declaredNeeds // what its code needs once confined (addNeeds, confine.go)

	// published is set before the snapshot is stored; from then on the snapshot is
	// immutable and indexOnce may build the lookup maps.
	published     bool
	indexOnce     sync.Once
	toolByName    map[string]*tool
	promptByName  map[string]*prompt
	resourceByURI map[string]*resource
	skillsIndex   skillIndex // skills and directories by URI (skills.go)

	listMu    sync.Mutex            // guards lists, listBytes
	lists     map[listKey]*listPage // encoded list pages of this snapshot
	listBytes int                   // the bytes of lists, at most maxPageCacheBytes
}

// listPage is one encoded page of a list result (registry.page), read only once made,
// shared by every request that lists it; tail, made once, is the reply's second piece
// (replyParts): the response after its id with the default cache hints, its last byte its
// only line break. It pays on the tools/list row of docs/PERFORMANCE.md.
type listPage struct {
	body     []byte
	tailOnce sync.Once
	tail     []byte
}

// maxPageCacheBytes bounds the encoded list pages one snapshot keeps (its four lists in each
// version's shape: page takes only cursors it issues); past it pages are encoded per request.
const maxPageCacheBytes = 8 << 20

// listKey names one encoded page of a list result.
type listKey struct {
	kind    string // "tools", "prompts", "resources", "resourceTemplates", "skills"
	version string
	start   int
}

// clone copies the snapshot's slices (not the items, which are immutable).
func (r *registry) clone() *registry {
	return &registry{
		tools:      append([]*tool(nil), r.tools...),
		prompts:    append([]*prompt(nil), r.prompts...),
		resources:  append([]*resource(nil), r.resources...),
		templates:  append([]*resourceTemplate(nil), r.templates...),
		skills:     append([]*skill(nil), r.skills...),
		middleware: append([]middleware(nil), r.middleware...),
		needs:      append([]declaredNeeds(nil), r.needs...),
	}
}

// tool, prompt and resource look an item up by name or URI: in a published snapshot's index
// (built at first lookup: a call costs the same at any size), inside an update by a scan.
func (r *registry) tool(name string) *tool {
	if r.index() {
		return r.toolByName[name]
	}
	if i := slices.IndexFunc(r.tools, func(t *tool) bool { return t.Name == name }); i >= 0 {
		return r.tools[i]
	}
	return nil
}

func (r *registry) prompt(name string) *prompt {
	if r.index() {
		return r.promptByName[name]
	}
	if i := slices.IndexFunc(r.prompts, func(p *prompt) bool { return p.Name == name }); i >= 0 {
		return r.prompts[i]
	}
	return nil
}

func (r *registry) resource(uri string) *resource {
	if r.index() {
		return r.resourceByURI[uri]
	}
	if i := slices.IndexFunc(r.resources, func(res *resource) bool { return res.URI == uri }); i >= 0 {
		return r.resources[i]
	}
	return nil
}

// template returns the template registered as uriTemplate, or nil.
func (r *registry) template(uriTemplate string) *resourceTemplate {
	if i := slices.IndexFunc(r.templates, func(t *resourceTemplate) bool { return t.URITemplate == uriTemplate }); i >= 0 {
		return r.templates[i]
	}
	return nil
}

// index builds the lookup maps of a published snapshot once and reports whether they may
// be used; a snapshot still being built has none.
func (r *registry) index() bool {
	if !r.published {
		return false
	}
	r.indexOnce.Do(func() {
		r.toolByName = make(map[string]*tool, len(r.tools))
		for _, t := range r.tools {
			r.toolByName[t.Name] = t
		}
		r.promptByName = make(map[string]*prompt, len(r.prompts))
		for _, p := range r.prompts {
			r.promptByName[p.Name] = p
		}
		r.resourceByURI = make(map[string]*resource, len(r.resources))
		for _, res := range r.resources {
			r.resourceByURI[res.URI] = res
		}
	})
	return true
}

// resolveURI finds what resources/read reads at uri: the resource with that URI, else the
// first template (in registration order) matching it, with the variables it matched;
// neither when nothing does. Every URI (scope check, subscriptions, read) is resolved here.
func (r *registry) resolveURI(uri string) (*resource, *resourceTemplate, map[string]string) {
	if res := r.resource(uri); res != nil {
		return res, nil, nil
	}
	for _, t := range r.templates {
		if vars, ok := t.compiled.match(uri); ok {
			return nil, t, vars
		}
	}
	return nil, nil, nil
}

// knows reports whether resources/read could find uri.
func (r *registry) knows(uri string) bool {
	res, tmpl, _ := r.resolveURI(uri)
	return res != nil || tmpl != nil
}

// registry returns the current snapshot (server.update swaps it). Callers must not modify it.
func (s *server) registry() *registry { return s.reg.Load() }

// snapshot returns the snapshot req is served on (request.reg), taking the current one at first.
func (s *server) snapshot(req *request) *registry {
	if req.reg == nil {
		req.reg = s.registry()
	}
	return req.reg
}

// capabilities encodes ServerCapabilities for what this snapshot serves, in version's shape
// (completions from 2025-03-26). Both eras deliver listChanged and subscribe: through
// subscriptions/listen, or the classic session and resources/subscribe (classic_subscriptions.go).
// [§ServerCapabilities]: https://modelcontextprotocol.io/specification/2026-07-28/schema#servercapabilities
// [§Capabilities (2025-11-25)]: https://modelcontextprotocol.io/specification/2025-11-25/server/resources#capabilities
func (r *registry) capabilities(version string) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"logging":{}`)
	if len(r.tools) > 0 {
		b.WriteString(`,"tools":{"listChanged":true}`)
	}
	if len(r.prompts) > 0 {
		b.WriteString(`,"prompts":{"listChanged":true}`)
	}
	if len(r.resources) > 0 || len(r.templates) > 0 {
		b.WriteString(`,"resources":{"subscribe":true,"listChanged":true}`)
	}
	if r.hasCompleters() && atLeast(version, version20250326) {
		b.WriteString(`,"completions":{}`)
	}
	// Extensions (SEP-2663's tasks, SEP-1865's MCP Apps, SEP-2640's skills, which needs
	// the resources capability its files give) exist from 2026-07-28; a classic host of MCP
	// Apps reads the tool's _meta.ui, one of skills reads skill:// resources (docs/GAPS.md).
	if isModern(version) {
		var ext []string
		if slices.ContainsFunc(r.tools, func(t *tool) bool { return t.Task != taskNever }) {
			ext = append(ext, `"`+extensionTasks+`":{}`)
		}
		if r.hasApps() {
			ext = append(ext, `"`+extensionApps+`":{"mimeTypes":["`+mimeTypeApp+`"]}`)
		}
		if len(r.skills) > 0 {
			ext = append(ext, `"`+extensionSkills+`":{"directoryRead":true}`)
		}
		if len(ext) > 0 {
			b.WriteString(`,"extensions":{` + strings.Join(ext, ",") + `}`)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// hasCompleters reports whether any prompt argument or template variable can be
// completed; the completions capability is advertised only then.
func (r *registry) hasCompleters() bool {
	return slices.ContainsFunc(r.prompts, func(p *prompt) bool {
		return slices.ContainsFunc(p.Arguments, func(a promptArgument) bool { return a.Complete != nil })
	}) || slices.ContainsFunc(r.templates, func(t *resourceTemplate) bool { return len(t.Complete) > 0 })
}

// page returns the encoded list result for kind, starting at cursor. Pages are encoded
// once per snapshot, version and start, up to maxPageCacheBytes. A cursor is accepted only
// if the server could have issued it: a multiple of the page size inside the list, none
// when there are no pages (-page-size 0), so forged cursors cache nothing (TestAttackForgedCursors).
// [§Pagination]: https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/pagination
func (r *registry) page(kind, version, cursor string, pageSize int) (*listPage, *rpcError) {
	n := r.count(kind)
	start := 0
	if cursor != "" {
		var ok bool
		if start, ok = decodeCursor(cursor); !ok || pageSize <= 0 || start <= 0 || start >= n || start%pageSize != 0 {
			return nil, invalidParams("invalid cursor")
		}
	}
	key := listKey{kind: kind, version: version, start: start}
	r.listMu.Lock()
	defer r.listMu.Unlock()
	if p, ok := r.lists[key]; ok {
		return p, nil
	}
	body, err := r.encodePage(kind, version, n, func(i int) int { return i }, start, pageSize)
	if err != nil {
		return nil, &rpcError{Code: codeInternalError, Message: "internal error"}
	}
	p := &listPage{body: body}
	if r.listBytes+len(body) <= maxPageCacheBytes {
		if r.lists == nil {
			r.lists = make(map[listKey]*listPage)
		}
		r.lists[key] = p
		r.listBytes += len(body)
	}
	return p, nil
}

// encodePage encodes the page of kind's list of n items (the i-th being at(i)) that starts
// at start: at most pageSize items (all with 0), then nextCursor when the list goes on.
func (r *registry) encodePage(kind, version string, n int, at func(int) int, start, pageSize int) ([]byte, error) {
	end := n
	if pageSize > 0 && start+pageSize < n {
		end = start + pageSize
	}
	b := append(make([]byte, 0, 256), `{"`...)
	b = append(b, kind...)
	b = append(b, `":[`...)
	for i := start; i < end; i++ {
		if i > start {
			b = append(b, ',')
		}
		item, err := r.encodeItem(kind, at(i), version)
		if err != nil {
			return nil, err
		}
		b = append(b, item...)
	}
	b = append(b, ']')
	if end < n {
		b = append(b, `,"nextCursor":"`...)
		b = append(b, encodeCursor(end)...)
		b = append(b, '"')
	}
	return append(b, '}'), nil
}

// count returns the length of kind's list.
func (r *registry) count(kind string) int {
	switch kind {
	case "tools":
		return len(r.tools)
	case "prompts":
		return len(r.prompts)
	case "resources":
		return len(r.resources)
	case "skills":
		return len(r.skills)
	default:
		return len(r.templates)
	}
}

// encodeItem encodes the i-th item of kind as the given version shows it.
func (r *registry) encodeItem(kind string, i int, version string) ([]byte, error) {
	switch kind {
	case "tools":
		return json.Marshal(r.tools[i].wire(version))
	case "prompts":
		return json.Marshal(r.prompts[i].wire(version))
	case "resources":
		return json.Marshal(r.resources[i].wire(version))
	case "skills":
		return r.skills[i].entry, nil // encoded once, at registration
	default:
		return json.Marshal(r.templates[i].wire(version))
	}
}

// Cursors are opaque to clients; here they are the base64url offset of the next item. A
// cursor from an older snapshot may point past the end and is then invalid (-32602); the
// client starts over, as the caching rules say.
func encodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(offset)))
}

func decodeCursor(c string) (int, bool) {
	if len(c) > 32 {
		return 0, false
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(string(b))
	return n, err == nil
}

// cursorParam reads the optional cursor of a list request.
func (r *request) cursorParam() (string, *rpcError) {
	raw := r.param("cursor")
	if raw == nil || jsonKind(raw) == 'n' {
		return "", nil
	}
	c, ok := jsonString(raw)
	if !ok || c == "" {
		return "", invalidParams("invalid cursor")
	}
	return c, nil
}

// list answers one of the four list methods: the whole list, or what the caller's scopes
// allow with -scope-filter-lists. Under that flag every list is cacheScope private, an
// unscoped caller's too: lists then differ between callers (TestAuthFilterLists).
func (s *server) list(kind string, req *request) (result, error) {
	if s.filterLists && req.caller.scoped {
		return s.filteredList(kind, req)
	}
	cursor, rerr := req.cursorParam()
	if rerr != nil {
		return result{}, rerr
	}
	page, rerr := s.snapshot(req).page(kind, req.version, cursor, s.pageSize)
	if rerr != nil {
		return result{}, rerr
	}
	if s.filterLists {
		return result{body: json.RawMessage(page.body), cache: &cacheHint{TTL: s.cache.TTL, Scope: scopePrivate}}, nil
	}
	return result{body: page}, nil
}
