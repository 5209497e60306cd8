// Tests of resources (resources.go) beyond testdata/resources.txt:
// resources/read against fixed resources and templates.

package main

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestResourcesRead checks how resources/read finds what it reads: an
// exact resource wins over a template, variables are matched (not
// percent-decoded, backtracking where needed), and an unknown URI is
// -32602 with data.uri.
// [§Reading Resources]: https://modelcontextprotocol.io/specification/2026-07-28/server/resources#reading-resources
func TestResourcesRead(t *testing.T) {
	for _, tt := range []struct {
		name, uri string
		wantText  string // "" means an error
	}{
		{"exact wins over template", "demo://items/special", "the exact resource"},
		{"template", "demo://items/7", "item 7"},
		{"template values not percent-decoded", "demo://items/%41", "item %41"},
		{"multiple variables", "test://ada/repos/engine", `{"owner":"ada","repo":"engine"}`},
		{"backtracking", "test://files/x.json.json", `{"path":"x.json"}`},
		{"no match", "test://files/x.txt", ""},
		{"unknown scheme", "other://readme", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withRegistry("base", "extras"))
			got := mustDecode(t, mustServeOne(t, s, req("1", "resources/read", `"uri":"`+tt.uri+`"`)))
			if tt.wantText == "" {
				want := fmt.Sprintf(`{"code":-32602,"message":"resource not found","data":{"uri":%q}}`, tt.uri)
				e, _ := json.Marshal(got["error"])
				if !sameJSON(t, string(e), want) {
					t.Errorf("read %s: error %s, want %s", tt.uri, e, want)
				}
				return
			}
			if text := jsonPath(got, "result.contents.0.text"); text != tt.wantText {
				t.Errorf("read %s: %v, want %q", tt.uri, text, tt.wantText)
			}
		})
	}
}
