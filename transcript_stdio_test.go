//go:build stdio

// The stdio build has no HTTP transport: its transcripts over HTTP are
// played by the full build (transcript_http_test.go).

package main

import "testing"

// hasHTTPWing says whether this build has the HTTP wing: transcripts over
// HTTP (checkTranscript skips them) and its flags (skipFlagsOfTheHTTPWing).
const hasHTTPWing = false

// newTestTranscriptHTTPClient is never called in this build
// (hasHTTPWing).
func newTestTranscriptHTTPClient(t *testing.T, _ *server, _ []string) (transcriptClient, func() int) {
	t.Fatal("transport: http in the stdio build")
	return nil, nil
}
