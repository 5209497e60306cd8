//go:build stdio

// What the stdio build itself needs once confined: nothing. It has no
// listener and connects nowhere; confine_http.go is the full build's.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#stdio

package main

// ownNeeds is nothing: the stdio build has no HTTP wing.
func (*httpConfig) ownNeeds() serverNeeds { return serverNeeds{} }
