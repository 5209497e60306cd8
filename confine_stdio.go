//go:build stdio

// What the stdio build itself needs once confined: nothing. It has no
// listener and connects nowhere; confine_http.go is the full build's.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#stdio

package main

import "os"

// ownNeeds is nothing: the stdio build has no HTTP wing.
func (*httpConfig) ownNeeds() serverNeeds { return serverNeeds{} }

// secretFiles are none: the stdio build reads -state-key-file alone.
func (*httpConfig) secretFiles() [][2]string { return nil }

// bindListeners binds nothing: the stdio build has no listener.
func bindListeners(config) (map[string]*os.File, error) { return nil, nil }
