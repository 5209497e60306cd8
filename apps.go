// MCP Apps (SEP-1865, the extension io.modelcontextprotocol/ui): a tool links an HTML view
// with Meta {"ui":{"resourceUri":"ui://..."}}; the view is a resource at that URI with MIME
// type mimeTypeApp, its "ui" _meta sent in the listing and on its contents (metaOfRead).
// The host renders it in a sandboxed iframe and relays its requests here like any client's.
// The demo's tally tool is one; harness/apps renders it in headless Chromium.
//
// Spec: https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx

package main

import "slices"

// The extension's identifier and the MIME type of its HTML views.
const (
	extensionApps = "io.modelcontextprotocol/ui"
	mimeTypeApp   = "text/html;profile=mcp-app"
)

// hasApps reports whether a tool of the snapshot links an MCP App view; the extension is
// advertised only then (capabilities).
func (r *registry) hasApps() bool {
	return slices.ContainsFunc(r.tools, func(t *tool) bool {
		ui, _ := t.Meta["ui"].(map[string]any)
		_, ok := ui["resourceUri"].(string)
		return ok
	})
}
