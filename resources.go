// Resources and templates: registration, resources/list, resources/templates/list, resources/read.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/resources

package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// resource is one resource with a fixed URI, serving Read's contents, or else Blob or Text.
type resource struct {
	URI         string
	Name        string
	Title       string
	Description string
	MimeType    string
	// Size is the contents' size in bytes (0 is a size); nil: not given.
	Size        *int64
	Icons       []icon
	Annotations *annotations
	// Meta is its _meta in resources/list (2025-06-18 on); a read's contents carry their own.
	Meta map[string]any

	Text string // static text contents
	Blob []byte // static binary contents (sent base64)
	Read resourceReader
	// Cache overrides the default hints of its reads (handleResourcesRead): Scope public for
	// contents the same for every caller, TTL 0 for contents that change every read.
	Cache *cacheHint
	// Scopes are what a caller needs beyond -oauth-scopes to read or subscribe (scopes_http.go).
	Scopes []string
}

// resourceReader returns the contents of uri; vars, a template's variables as in the URI, or nil.
type resourceReader func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error)

// resourceTemplate is a family of resources by RFC 6570 level-1 URI template, as demo://items/{id}.
type resourceTemplate struct {
	URITemplate string
	Name        string
	Title       string
	Description string
	MimeType    string
	Icons       []icon
	Annotations *annotations
	Meta        map[string]any // its _meta (2025-06-18 on)

	Read  resourceReader
	Cache *cacheHint // as resource.Cache
	// Complete offers completions for the template's variables, by name.
	Complete map[string]completer
	Scopes   []string // as resource.Scopes, completion included

	compiled *uriTemplate
}

// resourceContents is one item of a resources/read result, text or blob.
type resourceContents struct {
	URI      string
	MimeType string
	Text     string
	Blob     []byte         // when non-nil the contents are binary
	Meta     map[string]any // its _meta (2025-06-18 on)
}

// MarshalJSON writes TextResourceContents or BlobResourceContents.
func (c resourceContents) MarshalJSON() ([]byte, error) {
	w := struct {
		URI      string         `json:"uri"`
		MimeType string         `json:"mimeType,omitempty"`
		Text     *string        `json:"text,omitempty"`
		Blob     *string        `json:"blob,omitempty"`
		Meta     map[string]any `json:"_meta,omitempty"`
	}{URI: c.URI, MimeType: c.MimeType, Text: &c.Text, Meta: c.Meta}
	if c.Blob != nil {
		blob := base64.StdEncoding.EncodeToString(c.Blob)
		w.Text, w.Blob = nil, &blob
	}
	return json.Marshal(w)
}

// checkItem panics, naming the registration what ("addTool echo"), when a registry item's
// scopes are not scope tokens (checkScopes) or its size, icons, annotations or _meta (nil
// when it has none) cannot be sent in any revision (dialect.go).
func checkItem(what string, scopes []string, size *int64, icons []icon, a *annotations, meta map[string]any) {
	checkScopes(what, scopes)
	err := checkIcons(icons)
	if size != nil && *size < 0 {
		err = fmt.Errorf("size %d is negative", *size)
	}
	if err == nil {
		err = a.check()
	}
	if err == nil {
		err = checkMeta(meta)
	}
	if err != nil {
		panic(fmt.Sprintf("%s: %v", what, err))
	}
}

// addResource registers r. It panics on an empty or duplicate URI or name.
func (s *server) addResource(r resource) {
	if r.URI == "" || r.Name == "" {
		panic(fmt.Sprintf("addResource: resource %q needs a URI and a Name", r.URI))
	}
	// checkItem checks r.Meta, so it checks metaOfRead's part of it too.
	checkItem("addResource "+r.URI, r.Scopes, r.Size, r.Icons, r.Annotations, r.Meta)
	s.update(func(reg *registry) {
		if reg.resource(r.URI) != nil {
			panic(fmt.Sprintf("addResource: duplicate resource %q", r.URI))
		}
		reg.resources = append(reg.resources, &r)
	})
}

// removeResource unregisters the resource uri; it reports whether it existed.
func (s *server) removeResource(uri string) (found bool) {
	s.update(func(reg *registry) {
		n := len(reg.resources)
		reg.resources = slices.DeleteFunc(reg.resources, func(r *resource) bool { return r.URI == uri })
		found = len(reg.resources) < n
	})
	return found
}

// addTemplate registers t. It panics on a template that does not compile, a duplicate, or no Read.
func (s *server) addTemplate(t resourceTemplate) {
	if t.Name == "" || t.Read == nil {
		panic(fmt.Sprintf("addTemplate: template %q needs a Name and a Read function", t.URITemplate))
	}
	checkItem("addTemplate "+t.URITemplate, t.Scopes, nil, t.Icons, t.Annotations, t.Meta)
	var err error
	if t.compiled, err = compileTemplate(t.URITemplate); err != nil {
		panic("addTemplate: " + err.Error())
	}
	for name := range t.Complete {
		if !slices.Contains(t.compiled.vars, name) {
			panic(fmt.Sprintf("addTemplate %s: completer for unknown variable %q", t.URITemplate, name))
		}
	}
	s.update(func(reg *registry) {
		if reg.template(t.URITemplate) != nil {
			panic(fmt.Sprintf("addTemplate: duplicate template %q", t.URITemplate))
		}
		reg.templates = append(reg.templates, &t)
	})
}

// removeTemplate unregisters uriTemplate; it reports whether it existed.
func (s *server) removeTemplate(uriTemplate string) (found bool) {
	s.update(func(reg *registry) {
		n := len(reg.templates)
		reg.templates = slices.DeleteFunc(reg.templates, func(t *resourceTemplate) bool { return t.URITemplate == uriTemplate })
		found = len(reg.templates) < n
	})
	return found
}

// resourceWire is a Resource as resources/list shows it.
type resourceWire struct {
	URI         string         `json:"uri"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	MimeType    string         `json:"mimeType,omitempty"`
	Size        *int64         `json:"size,omitempty"`
	Icons       []icon         `json:"icons,omitempty"`
	Annotations *annotations   `json:"annotations,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// wire returns r as version shows it (dialect.go).
func (r *resource) wire(version string) resourceWire {
	return resourceWire{r.URI, r.Name, titleFor(version, r.Title), r.Description, r.MimeType, r.Size,
		iconsFor(version, r.Icons), r.Annotations.forVersion(version), metaFor(version, r.Meta)}
}

// templateWire is a ResourceTemplate as resources/templates/list shows it.
type templateWire struct {
	URITemplate string         `json:"uriTemplate"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	MimeType    string         `json:"mimeType,omitempty"`
	Icons       []icon         `json:"icons,omitempty"`
	Annotations *annotations   `json:"annotations,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// wire returns t as version shows it (dialect.go).
func (t *resourceTemplate) wire(version string) templateWire {
	return templateWire{t.URITemplate, t.Name, titleFor(version, t.Title), t.Description, t.MimeType,
		iconsFor(version, t.Icons), t.Annotations.forVersion(version), metaFor(version, t.Meta)}
}

// handleResourcesList answers resources/list in registration order.
func (s *server) handleResourcesList(ctx context.Context, req *request) (result, error) {
	return s.list("resources", req)
}

// handleTemplatesList answers resources/templates/list.
func (s *server) handleTemplatesList(ctx context.Context, req *request) (result, error) {
	return s.list("resourceTemplates", req)
}

// methodResourcesRead is the method that reads a resource.
const methodResourcesRead = "resources/read"

// maxURILength bounds a URI the server will look up or match.
const maxURILength = 8 << 10

// handleResourcesRead reads a resource: an exact URI wins over templates, tried in
// registration order. An unknown URI is resourceNotFound, never an empty contents array.
// [§Error Handling]: https://modelcontextprotocol.io/specification/2026-07-28/server/resources#error-handling
func (s *server) handleResourcesRead(ctx context.Context, req *request) (result, error) {
	uri, rerr := req.stringParam("uri")
	if rerr != nil {
		return result{}, rerr
	}
	req.target = uri
	if len(uri) > maxURILength {
		return result{}, invalidParams("invalid params: uri longer than %d bytes", maxURILength)
	}
	reg := s.snapshot(req)
	r, tmpl, vars := reg.resolveURI(uri)
	var cache *cacheHint
	switch {
	case r != nil:
		cache = scopedCache(r.Cache, r.Scopes)
	case tmpl != nil:
		cache = scopedCache(tmpl.Cache, tmpl.Scopes)
	default:
		return result{}, s.resourceNotFound(req, uri)
	}
	read := readResource
	if len(reg.middleware) > 0 {
		read = reg.aroundResource
	}
	contents, err := read(ctx, req, uri, r, tmpl, vars)
	if err != nil {
		// A read the system refused (EACCES, EPERM: the confinement, file permissions) is
		// answered in the system's words as a tool's refusal is (refusalText): -32603, the code
		// the spec gives a failed read, the path left out, the URI in data; the log holds the
		// whole error (TestResourceRefusalInSystemWords).
		if text, ok := refusalText(err); ok && !errors.As(err, new(*rpcError)) {
			req.Logger().Warn("resource read refused by the system", "uri", uri, "error", err)
			return result{}, &rpcError{Code: codeInternalError, Message: text, Data: map[string]string{"uri": uri}}
		}
		return result{}, fmt.Errorf("read %s: %w", uri, err) // an *rpcError stands (peerError)
	}
	if len(contents) == 0 {
		return result{}, fmt.Errorf("read %s: reader returned no contents", uri)
	}
	for _, c := range contents {
		if err := checkMeta(c.Meta); err != nil {
			return result{}, fmt.Errorf("read %s: contents %s: %w", uri, c.URI, err)
		}
	}
	if cache == nil {
		// A read may depend on who asks, so it is private; lists and server/discover, the
		// same for everyone, keep -cache-scope.
		// [§Choosing a Cache Scope]: https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching#choosing-a-cache-scope
		cache = &cacheHint{TTL: s.cache.TTL, Scope: scopePrivate}
	}
	// A struct, not a map: json.Marshal walks a map by reflection and sorts its keys (four more
	// allocations a read).
	body := struct {
		Contents []resourceContents `json:"contents"`
	}{contentsFor(req.version, contents)}
	return result{body: body, cache: cache}, nil
}

// readResource reads uri from r when it is not nil, else from tmpl with the variables it matched.
func readResource(ctx context.Context, req *request, uri string, r *resource, tmpl *resourceTemplate, vars map[string]string) ([]resourceContents, error) {
	switch {
	case r == nil:
		return tmpl.Read(ctx, req, uri, vars)
	case r.Read != nil:
		return r.Read(ctx, req, uri, nil)
	default: // Blob when it is set, else Text (resourceContents.MarshalJSON)
		return []resourceContents{{URI: uri, MimeType: r.MimeType, Text: r.Text, Blob: r.Blob, Meta: metaOfRead(r.MimeType, r.Meta)}}, nil
	}
}

// metaOfRead is the _meta of a static MCP App view's contents: only the listing's "ui" member
// (CSP, permissions, border), which hosts read there first; the rest describes the resource.
// [MCP Apps, Metadata Location]: https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx
func metaOfRead(mimeType string, meta map[string]any) map[string]any {
	ui, ok := meta["ui"]
	if !ok || mimeType != mimeTypeApp {
		return nil
	}
	return map[string]any{"ui": ui}
}

// resourceNotFound is the error for an unknown URI in req's era: -32602 in the modern era,
// which forbids -32002; -32002 in the classic revisions.
// [§Error Handling (2025-11-25)]: https://modelcontextprotocol.io/specification/2025-11-25/server/resources#error-handling
func (s *server) resourceNotFound(req *request, uri string) *rpcError {
	code := codeInvalidParams
	if !isModern(req.version) {
		code = codeResourceNotFound
	}
	return &rpcError{Code: code, Message: "resource not found", Data: map[string]string{"uri": uri}}
}
