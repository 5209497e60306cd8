// Tests of the classic bridge (classic_bridge.go: NeedInput as real
// server-to-client requests) that the transcripts (testdata/classic/bridge-*,
// each played on stdio and over HTTP) do not show.

package main

import (
	"strings"
	"testing"
)

// bridgeInit is an initialize line at version declaring caps.
func bridgeInit(version, caps string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":` + caps + `,"clientInfo":{"name":"bridge","version":"1"}}}`
}

// TestClientRefused: the client's error answer to a bridged request is
// quoted back as its code and message, read as every peer object is:
// exact member names (review A, finding 9: encoding/json matched "CODE"
// and "Message" case-insensitively), a code that is not an int as 0, the
// message cut to maxClientErrorText bytes of valid UTF-8.
func TestClientRefused(t *testing.T) {
	long := "x" + strings.Repeat("é", maxClientErrorText) // the cut falls inside an é
	for _, tt := range []struct {
		name, raw, want string
	}{
		{"code and message", `{"code":-1,"message":"User rejected sampling request"}`, "with error -1: User rejected sampling request"},
		{"names that differ in case are not read", `{"CODE":-1,"Message":"no"}`, "with error 0: "},
		{"a code that is not an int", `{"code":1e3,"message":"m"}`, "with error 0: m"},
		{"a code out of range", `{"code":99999999999999999999,"message":"m"}`, "with error 0: m"},
		{"a long message is cut", `{"code":1,"message":"` + long + `"}`, "with error 1: " + long[:maxClientErrorText-1]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := clientRefused("tools/call", methodCreateMessage, []byte(tt.raw)).Message
			if want := "tools/call: the client answered " + methodCreateMessage + " " + tt.want; got != want {
				t.Errorf("clientRefused(%s) = %q, want %q", tt.raw, got, want)
			}
		})
	}
}
