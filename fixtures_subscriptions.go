// The conformance suite's subscription fixtures: the two trigger tools and
// the watched resource. The conformance registry (-tags conformance) calls
// registerSubscriptionFixtures; the file has no build tag so that its tests
// run in the default build.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
// (the suite's server-stateless scenario, sep-2575-server-*-subscription*).

package main

import "context"

// registerSubscriptionFixtures adds test_trigger_tool_change,
// test_trigger_prompt_change and test://watched-resource to s. The
// triggers announce a list change without changing the list: the suite's
// later tools-list order check must see the same set.
func registerSubscriptionFixtures(s *server) {
	s.addTool(tool{
		Name:        "test_trigger_tool_change",
		Description: "Sends notifications/tools/list_changed to every subscription that asked for toolsListChanged.",
		InputSchema: `{"type":"object","additionalProperties":false}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			s.listChanged(noticeToolsListChanged)
			return textResult("sent notifications/tools/list_changed"), nil
		},
	})
	s.addTool(tool{
		Name:        "test_trigger_prompt_change",
		Description: "Sends notifications/prompts/list_changed to every subscription that asked for promptsListChanged.",
		InputSchema: `{"type":"object","additionalProperties":false}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			s.listChanged(noticePromptsListChanged)
			return textResult("sent notifications/prompts/list_changed"), nil
		},
	})
	s.addResource(resource{
		URI:         "test://watched-resource",
		Name:        "watched-resource",
		Description: "A resource clients may watch with resourceSubscriptions.",
		MimeType:    "text/plain",
		Text:        "This is a watched resource.",
	})
}
