// Tests of the Streamable HTTP headers that mirror the body
// (httpsse_headers.go) beyond TestHTTPRules: their encoding, fuzzed, and
// the x-mcp-header declarations registration refuses.

package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzBase64Header(f *testing.F) {
	for _, seed := range []string{"=?base64?ZWNobw==?=", "echo", "=?base64?AA==?=", "=?base64?ZW\nNobw==?=", "=?base64?ZWNobw=?=", "=?base64?_-?=", "=?BASE64?eA==?=", " \t=?base64??= ", "caf\xc3\xa9"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		h := http.Header{"Mcp-Name": {value}}
		got, present, valid := encodedHeader(h, "Mcp-Name")
		if !present {
			t.Fatalf("encodedHeader(%q): not present", value)
		}
		v := strings.Trim(value, " \t")
		if enc, ok := strings.CutPrefix(v, base64Prefix); ok && strings.HasSuffix(enc, base64Suffix) && len(v) >= len(base64Prefix)+len(base64Suffix) {
			enc = strings.TrimSuffix(enc, base64Suffix)
			if valid {
				// Accepted Base64 is canonical: it re-encodes to itself.
				if again := base64.StdEncoding.EncodeToString([]byte(got)); again != enc || !utf8.ValidString(got) {
					t.Errorf("encodedHeader(%q) = %q, which encodes to %q", value, got, again)
				}
			}
		} else if valid != isHeaderText(v) || (valid && got != v) {
			t.Errorf("encodedHeader(%q) = %q, %v", value, got, valid)
		}
		// Any UTF-8 string round-trips through the sentinel form.
		if utf8.ValidString(value) {
			h := http.Header{"Mcp-Name": {fmt.Sprintf("%s%s%s", base64Prefix, base64.StdEncoding.EncodeToString([]byte(value)), base64Suffix)}}
			if back, _, ok := encodedHeader(h, "Mcp-Name"); !ok || back != value {
				t.Errorf("round trip of %q = %q, %v", value, back, ok)
			}
		}
	})
}

// TestAddToolHeaderDeclarations checks that registration refuses invalid
// x-mcp-header annotations, also on tools that validate their own
// arguments.
func TestAddToolHeaderDeclarations(t *testing.T) {
	for _, tt := range []struct {
		name, schema     string
		handlerValidates bool
		wantPanic        bool
	}{
		{"valid", `{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}`, false, false},
		{"space in name", `{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"My Region"}}}`, false, true},
		{"number type", `{"type":"object","properties":{"r":{"type":"number","x-mcp-header":"R"}}}`, false, true},
		{"duplicate ignoring case", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"R"},"b":{"type":"string","x-mcp-header":"r"}}}`, false, true},
		{"under items", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"R"}}}}`, false, true},
		{"handler-validated valid", `{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"R"}},"anyOf":[{"required":["r"]}]}`, true, false},
		{"handler-validated bad name", `{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"R:1"}},"anyOf":[{"required":["r"]}]}`, true, true},
		{"handler-validated under anyOf", `{"type":"object","anyOf":[{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}]}`, true, true},
		{"handler-validated under $defs", `{"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"R"}},"properties":{"r":{"$ref":"#/$defs/d"}}}`, true, true},
		{"handler-validated object type", `{"type":"object","properties":{"r":{"type":"object","x-mcp-header":"R"}},"anyOf":[{}]}`, true, true},
		{"handler-validated at root", `{"type":"object","x-mcp-header":"R","anyOf":[{}]}`, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withRegistry())
			defer func() {
				if p := recover(); (p != nil) != tt.wantPanic {
					t.Errorf("addTool(%s) panic = %v, want panic %v", tt.schema, p, tt.wantPanic)
				}
			}()
			s.addTool(tool{Name: "t", InputSchema: tt.schema, HandlerValidates: tt.handlerValidates,
				Call: func(ctx context.Context, req *request) (*toolResult, error) { return textResult(""), nil }})
		})
	}
}
