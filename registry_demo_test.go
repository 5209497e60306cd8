//go:build demo || !(conformance || bench)

// Tests of the demo registry (registry_demo.go), the product's registry
// in the default build: its own transcripts (testdata/demo, played by the
// one runner against buildRegistry), and the product registry as the
// binary serves it.

package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestDemoTranscripts plays testdata/demo, whose transcripts name the
// product's registry: in every build that has this file, that is the demo.
func TestDemoTranscripts(t *testing.T) {
	forEachTranscript(t, "testdata/demo", "", true)
}

// TestProductRegistry lists what the product binary serves: exactly the
// demo's tools, prompts, resources and template, in registration order,
// and nothing from the conformance fixtures, the benchmark fillers or the
// load-test build's flood tool (TestProductDebugRoutes).
func TestProductRegistry(t *testing.T) {
	for _, tt := range []struct{ method, member, key, want string }{
		{"tools/list", "tools", "name", "echo add slow confirm_delete ask_model list_roots toggle_extra_tool tally"},
		{"prompts/list", "prompts", "name", "greet personal_greeting"},
		{"resources/list", "resources", "uri", "ui://demo/tally.html demo://readme demo://logo demo://clock skill://demo-tools/SKILL.md skill://demo-tools/references/tools.md"},
		{"resources/templates/list", "resourceTemplates", "uriTemplate", "demo://items/{id}"},
		{"skills/list", "skills", "uri", demoSkillURI},
	} {
		t.Run(tt.method, func(t *testing.T) {
			out, err := runOnce(t, nil, req("1", tt.method, ""))
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if got := strings.Join(listNames(t, out, tt.member, tt.key), " "); got != tt.want {
				t.Errorf("run serves %s %s, want %s", tt.member, got, tt.want)
			}
		})
	}
}

// TestDemoSkill holds the demo's skill to the extension: its instructions
// name it, skills/get confirms it, and every file reads back with the
// size and SHA-256 its entry lists.
func TestDemoSkill(t *testing.T) {
	s := newTestServer(t, withRegistry("product"))
	if !strings.Contains(s.instructions, demoSkillURI) {
		t.Errorf("instructions %q do not point to %s", s.instructions, demoSkillURI)
	}
	mustCheckSkillManifests(t, s)
}

// TestRunServesTheDemo drives the product binary (run) with the demo's
// tools: initialize answers with the demo's capabilities and
// instructions under the product's own name, and a slow call still
// running at EOF is answered before run returns.
func TestRunServesTheDemo(t *testing.T) {
	out, err := runOnce(t, nil, classicInitialize(1, version20250618))
	want := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{},"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"completions":{}},"serverInfo":{"name":%q,"version":%q},"instructions":%q}}`,
		serverName, readBuild().version, serverName+demoInstructions)
	if err != nil || !sameJSON(t, strings.TrimSpace(out), want) {
		t.Errorf("run = %v, wrote\n%s\nwant\n%s", err, out, want)
	}
	out, err = runOnce(t, nil, req("1", "tools/call", `"name":"slow","arguments":{"steps":1}`))
	if err != nil || !strings.Contains(out, "done after 1 steps") {
		t.Errorf("run = %v, wrote %s; want nil and the slow answer", err, out)
	}
}
