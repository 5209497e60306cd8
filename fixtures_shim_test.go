//go:build !conformance

// Interim (issue 18): the subscription tests use the conformance
// registry's trigger tools and watched resource, which only the
// conformance build carries (registry_conformance.go); in the other
// builds this stands in for registerSubscriptionFixtures, with the same
// names and answers.

package main

import "context"

// registerSubscriptionFixtures adds test_trigger_tool_change,
// test_trigger_prompt_change and test://watched-resource to s.
func registerSubscriptionFixtures(s *server) {
	for _, tr := range []struct {
		name, list string
		kind       noticeKind
	}{
		{"test_trigger_tool_change", "tools", noticeToolsListChanged},
		{"test_trigger_prompt_change", "prompts", noticePromptsListChanged},
	} {
		s.addTool(tool{
			Name:        tr.name,
			Description: "Sends notifications/" + tr.list + "/list_changed.",
			InputSchema: `{"type":"object","additionalProperties":false}`,
			Call: func(ctx context.Context, req *request) (*toolResult, error) {
				s.listChanged(tr.kind)
				return textResult("sent notifications/" + tr.list + "/list_changed"), nil
			},
		})
	}
	s.addResource(resource{URI: "test://watched-resource", Name: "watched-resource", MimeType: "text/plain", Text: "This is a watched resource."})
}
