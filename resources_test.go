// Tests of resources (resources.go) beyond testdata/resources.txt:
// resources/read against fixed resources and templates.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
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

// TestResourceRefusalInSystemWords: a read the system refuses (EACCES,
// EPERM) answers -32603 with the reader's words and the system's message,
// as a tool's refusal reads (TestToolRefusalIsToolError), the path left
// out and the URI in data; the log holds the whole error. Any other
// failure of the standard library stays "internal error" with a log
// reference.
// [§Error Handling]: https://modelcontextprotocol.io/specification/2026-07-28/server/resources#error-handling
func TestResourceRefusalInSystemWords(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	for _, tt := range []struct {
		name string
		err  error
		want string // the error object
	}{
		{"EACCES", fmt.Errorf("read notes: %w", &fs.PathError{Op: "open", Path: secret, Err: syscall.EACCES}),
			`{"code":-32603,"message":"read notes: open: permission denied","data":{"uri":"test://notes/a"}}`},
		{"EPERM", &fs.PathError{Op: "open", Path: secret, Err: syscall.EPERM},
			`{"code":-32603,"message":"open: operation not permitted","data":{"uri":"test://notes/a"}}`},
		{"not a refusal", fmt.Errorf("read notes: %w", &fs.PathError{Op: "open", Path: secret, Err: syscall.ENOENT}),
			`{"code":-32603,"message":"internal error","data":{"ref":1}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			logs := &syncBuffer{}
			s := newTestServer(t, withRegistry(), withLogs(logs), withSetup(func(s *server) {
				s.addTemplate(resourceTemplate{URITemplate: "test://notes/{name}", Name: "notes",
					Read: func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
						return nil, tt.err
					}})
			}))
			got := mustServeOne(t, s, req("1", "resources/read", `"uri":"test://notes/a"`))
			want := `{"jsonrpc":"2.0","id":1,"error":` + tt.want + `}`
			if !sameJSON(t, got, want) {
				t.Errorf("resources/read\n got: %s\nwant: %s", got, want)
			}
			if !strings.Contains(logs.String(), secret) {
				t.Errorf("the log does not hold the error with its path: %s", logs.String())
			}
			if errors.Is(tt.err, syscall.ENOENT) == strings.Contains(logs.String(), "refused by the system") {
				t.Errorf("the log says refused for %v, or not for a refusal: %s", tt.err, logs.String())
			}
		})
	}
}
