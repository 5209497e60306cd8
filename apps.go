// MCP Apps (SEP-1865, the extension io.modelcontextprotocol/ui): what the
// server says of a tool whose result a host renders with an HTML view. A
// tool links its view with Meta {"ui":{"resourceUri":"ui://..."}}; the
// view is a resource at that ui:// URI with MIME type mimeTypeApp, whose
// "ui" _meta (CSP, permissions, border) is sent in the listing and on its
// contents (metaOfRead, resources.go). The host renders the view in a
// sandboxed iframe and relays its JSON-RPC over postMessage: ui/initialize,
// the tool's input and result, and the view's own tools/call and
// resources/read, which reach this server as any client's requests. The
// demo's app is registry_demo.go's tally tool; harness/apps renders it in
// headless Chromium through the official host bridge.
//
// Spec: https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx

package main

// The extension's identifier and the MIME type of its HTML views.
const (
	extensionApps = "io.modelcontextprotocol/ui"
	mimeTypeApp   = "text/html;profile=mcp-app"
)

// hasApps reports whether a tool of the snapshot links an MCP App view
// (Meta ui.resourceUri); the extension is advertised only then
// (capabilities).
func (r *registry) hasApps() bool {
	for _, t := range r.tools {
		if ui, ok := t.Meta["ui"].(map[string]any); ok {
			if _, ok := ui["resourceUri"].(string); ok {
				return true
			}
		}
	}
	return false
}
