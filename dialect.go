// Each revision's dialect, in one place: every field of a registry item, content block,
// resource contents, result or server-to-client request is fitted here to its message's
// revision (a field it does not define is left out, a content type becomes a text block
// saying what was there, a schema shape is rewritten or left out). What no revision allows
// is refused where it is made: at registration (a panic) or by the builder. harness/schema
// checks every transcript message against its revision's schema.json.
//
// Spec: the schema.json of each revision, https://github.com/modelcontextprotocol/modelcontextprotocol/tree/main/schema
// (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28).

package main

import (
	"cmp"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"time"
)

// contentFor returns blocks as version can carry them (downgrade); blocks is not modified.
func contentFor(version string, blocks []content) []content {
	if atLeast(version, version20251125) {
		return blocks
	}
	out := make([]content, len(blocks))
	for i, c := range blocks {
		out[i] = c.downgrade(version)
	}
	return out
}

// downgrade returns c in a pre-2025-11-25 shape: audio (2025-03-26) and resource_link
// (2025-06-18) become text, annotations lose lastModified and blocks their _meta (both
// 2025-06-18), links their icons (2025-11-25).
// [2024-11-05 schema]: https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema/2024-11-05/schema.json
func (c content) downgrade(version string) content {
	switch {
	case c.Type == "audio" && !atLeast(version, version20250326):
		c = content{Type: "text", Text: fmt.Sprintf("[audio content (%s, %d bytes) omitted: protocol version %s has no audio content]", c.MimeType, len(c.Data), version), Annotations: c.Annotations, Meta: c.Meta}
	case c.Type == "resource_link" && !atLeast(version, version20250618) && c.Link != nil:
		text := fmt.Sprintf("resource %q: %s", cmp.Or(c.Link.Title, c.Link.Name), c.Link.URI)
		if c.Link.Description != "" {
			text += "\n" + c.Link.Description
		}
		c = content{Type: "text", Text: text, Annotations: c.Annotations}
	case c.Type == "resource_link" && c.Link != nil:
		link := *c.Link
		link.Icons = iconsFor(version, link.Icons)
		c.Link = &link
	case c.Type == "resource" && c.Resource != nil:
		rc := c.Resource.forVersion(version)
		c.Resource = &rc
	}
	c.Annotations = c.Annotations.forVersion(version)
	c.Meta = metaFor(version, c.Meta)
	return c
}

// forVersion returns a without the fields version does not define.
func (a *annotations) forVersion(version string) *annotations {
	if a == nil || a.LastModified == "" || atLeast(version, version20250618) {
		return a
	}
	b := *a
	b.LastModified = ""
	if b.Audience == nil && b.Priority == nil {
		return nil
	}
	return &b
}

// forVersion returns c as version shows it: _meta from 2025-06-18.
func (c resourceContents) forVersion(version string) resourceContents {
	c.Meta = metaFor(version, c.Meta)
	return c
}

// contentsFor returns the contents of a read as version shows them.
func contentsFor(version string, contents []resourceContents) []resourceContents {
	if atLeast(version, version20250618) {
		return contents
	}
	out := make([]resourceContents, len(contents))
	for i, c := range contents {
		out[i] = c.forVersion(version)
	}
	return out
}

// since returns v when version is revision or later (v is a field revision introduced), else zero.
func since[T any](version, revision string, v T) T {
	if atLeast(version, revision) {
		return v
	}
	var zero T
	return zero
}

// iconsFor returns icons when version defines them (2025-11-25 on).
func iconsFor(version string, icons []icon) []icon { return since(version, version20251125, icons) }

// titleFor returns title when version defines it (2025-06-18 on).
func titleFor(version, title string) string { return since(version, version20250618, title) }

// metaFor returns m when version defines _meta on registry items, content blocks and
// resource contents (2025-06-18 on; results have it in all).
func metaFor(version string, m map[string]any) map[string]any {
	return since(version, version20250618, m)
}

// implementationFor returns serverInfo as version defines Implementation:
// title from 2025-06-18; description, icons and websiteUrl from 2025-11-25.
func implementationFor(version string, impl implementation) implementation {
	impl.Title = titleFor(version, impl.Title)
	if !atLeast(version, version20251125) {
		impl.Description, impl.Icons, impl.WebsiteURL = "", nil, ""
	}
	return impl
}

// inputSchemaFor returns a tool's inputSchema as version can carry it: before 2026-07-28
// Tool.inputSchema.properties holds only objects, so a boolean property schema is written
// as its equivalent (objectProperties).
// [Boolean JSON Schemas]: https://json-schema.org/draft/2020-12/json-schema-core#section-4.3.2
func inputSchemaFor(version, text string) json.RawMessage {
	if isModern(version) {
		return json.RawMessage(text)
	}
	return objectProperties([]byte(text))
}

// outputSchemaFor returns a tool's outputSchema as version can carry it: nil before
// 2025-06-18, and before 2026-07-28 nil unless its root is "type":"object" (structuredFor follows).
// [§Output Schema]: https://modelcontextprotocol.io/specification/2026-07-28/server/tools#output-schema
func outputSchemaFor(version, text string) json.RawMessage {
	switch {
	case text == "" || !atLeast(version, version20250618):
		return nil
	case isModern(version):
		return json.RawMessage(text)
	case rootType([]byte(text)) != "object":
		return nil
	}
	return objectProperties([]byte(text))
}

// structuredFor returns encoded structuredContent as version can carry it:
// nil before 2025-06-18, and before 2026-07-28 nil unless a JSON object.
func structuredFor(version string, encoded []byte) []byte {
	if atLeast(version, version20250618) && (isModern(version) || jsonKind(encoded) == '{') {
		return encoded
	}
	return nil
}

// rootType returns the root "type" of a schema when it is a string, else "".
func rootType(schema []byte) string {
	members, _ := objectMembers(schema)
	t, _ := jsonString(memberValue(members, "type"))
	return t
}

// objectProperties returns schema with every boolean value of its root's
// properties written as an object: true as {}, false as {"not":{}}.
func objectProperties(schema []byte) json.RawMessage {
	members, err := objectMembers(schema)
	props, _ := objectMembers(memberValue(members, "properties"))
	isBool := func(p member) bool { k := jsonKind(p.value); return k == 't' || k == 'f' }
	if err != nil || !slices.ContainsFunc(props, isBool) {
		return schema
	}
	for i, p := range props {
		switch jsonKind(p.value) {
		case 't':
			props[i].value = []byte(`{}`)
		case 'f':
			props[i].value = []byte(`{"not":{}}`)
		}
	}
	for i, m := range members {
		if m.name == "properties" {
			members[i].value = appendObject(nil, props)
		}
	}
	return appendObject(nil, members)
}

// appendObject appends members to dst as one JSON object.
func appendObject(dst []byte, members []member) []byte {
	dst = append(dst, '{')
	for i, m := range members {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(appendJSONString(dst, m.name), ':')
		dst = append(dst, m.value...)
	}
	return append(dst, '}')
}

// classicInputParams returns q's params as version defines them: an elicitation has no mode
// before 2025-11-25, and a url mode one an elicitationId unique per request; a sampling
// request's content is fitted (contentFor) and its messages lose _meta before 2025-11-25.
// [§URL Mode]: https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#url-mode-elicitation-requests
// [§Elicitation (2025-06-18)]: https://modelcontextprotocol.io/specification/2025-06-18/client/elicitation#creating-elicitation-requests
func classicInputParams(version string, q inputRequest) (json.RawMessage, error) {
	if q.method == methodCreateMessage && q.sampling != nil {
		p := *q.sampling
		p.Messages = slices.Clone(p.Messages)
		for i, m := range p.Messages {
			m.Content = contentFor(version, []content{m.Content})[0]
			m.Meta = since(version, version20251125, m.Meta)
			p.Messages[i] = m
		}
		return json.Marshal(p)
	}
	if q.method != methodElicit {
		return q.params, nil
	}
	members, err := objectMembers(q.params)
	if err != nil {
		return nil, fmt.Errorf("bridge: %s params: %w", q.method, err)
	}
	if !atLeast(version, version20251125) {
		members = slices.DeleteFunc(members, func(m member) bool { return m.name == "mode" })
	}
	if q.mode == elicitModeURL {
		members = append(members, member{"elicitationId", appendJSONString(nil, rand.Text())})
	}
	return appendObject(nil, members), nil
}

// checkInputSchema reports why text cannot be an inputSchema: not an object with "type":"object".
// [§Input Schema]: https://modelcontextprotocol.io/specification/2026-07-28/server/tools#input-schema
func checkInputSchema(text string) error {
	if jsonKind([]byte(text)) != '{' {
		return errors.New(`not a JSON object`)
	}
	if rootType([]byte(text)) != "object" {
		return errors.New(`the root must be "type":"object" (every revision requires it)`)
	}
	return nil
}

// audiences are the roles an annotation's audience may name.
// [§Annotations]: https://modelcontextprotocol.io/specification/2026-07-28/schema#annotations
var audiences = []string{"user", "assistant"}

// check reports why a cannot be sent: an audience not in audiences, a priority outside
// 0..1, a lastModified that is not an RFC 3339 time.
func (a *annotations) check() error {
	if a == nil {
		return nil
	}
	for _, r := range a.Audience {
		if !slices.Contains(audiences, r) {
			return fmt.Errorf("annotations: audience %q is not user or assistant", r)
		}
	}
	if p := a.Priority; p != nil && (math.IsNaN(*p) || *p < 0 || *p > 1) {
		return fmt.Errorf("annotations: priority %v is outside 0..1", *p)
	}
	if a.LastModified != "" {
		if _, err := time.Parse(time.RFC3339, a.LastModified); err != nil {
			return fmt.Errorf("annotations: lastModified %q is not an ISO 8601 time", a.LastModified)
		}
	}
	return nil
}

// checkIcons reports why icons cannot be sent: a src not an absolute URI, a theme not light/dark.
// [§Icon]: https://modelcontextprotocol.io/specification/2026-07-28/schema#icon
func checkIcons(icons []icon) error {
	for i, ic := range icons {
		if ic.Src == "" {
			return fmt.Errorf("icon %d: no src", i)
		}
		if u, err := url.Parse(ic.Src); err != nil || u.Scheme == "" {
			return fmt.Errorf("icon %d: src %q is not an absolute URI", i, ic.Src)
		}
		if ic.Theme != "" && ic.Theme != "light" && ic.Theme != "dark" {
			return fmt.Errorf("icon %d: theme %q is not light or dark", i, ic.Theme)
		}
	}
	return nil
}

// check reports why c cannot be sent in any revision: its annotations, its _meta, a
// link's icons or its type's required members.
func (c content) check() error {
	if err := c.Annotations.check(); err != nil {
		return err
	}
	if err := checkMeta(c.Meta); err != nil {
		return err
	}
	switch c.Type {
	case "resource_link":
		if c.Link == nil || c.Link.URI == "" || c.Link.Name == "" {
			return errors.New("resource_link needs a URI and a Name")
		}
		if c.Meta != nil { // the block is the link: a second _meta would be dropped
			return errors.New("resource_link: set _meta in Link.Meta, not on the block")
		}
		if err := checkIcons(c.Link.Icons); err != nil {
			return fmt.Errorf("resource_link: %w", err)
		}
		return checkMeta(c.Link.Meta)
	case "resource":
		if c.Resource == nil || c.Resource.URI == "" {
			return errors.New("embedded resource needs contents with a URI")
		}
		return checkMeta(c.Resource.Meta)
	}
	return nil
}

// checkSamplingContent reports why c cannot be in a sampling message,
// whose content is text, image or audio (tool use is not offered).
// [§Sampling Message]: https://modelcontextprotocol.io/specification/2026-07-28/schema#samplingmessage
func checkSamplingContent(c content) error {
	switch c.Type {
	case "text", "image", "audio":
		return c.check()
	}
	return fmt.Errorf("a sampling message cannot carry %s content", c.Type)
}
