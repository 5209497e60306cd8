//go:build !stdio

// The driver's HTTP half: what only the HTTP transports (Streamable HTTP,
// classic_http.go; 2024-11-05, classic_sse_http.go) ask of a message the
// driver took (conn.go), kept out of the stdio build.
//
// Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http

package main

// join puts in, taken before its session was known, in sess: Streamable
// HTTP names a message's session in its framing, and looks it up once the
// era is decided (decideEra).
func (in *incoming) join(sess *session) { in.c.sess = sess }

// requests reports whether the message holds a request to serve, which
// takes a request slot (anything else takes a control slot).
func (in *incoming) requests() bool {
	if in.kind == incomingBatch {
		for _, it := range in.items {
			if it.kind == batchRequest {
				return true
			}
		}
	}
	return in.kind == incomingRequest
}
