//go:build conformance && !(bench || demo)

// The conformance registry: the tools, prompts, resources and template the
// official MCP conformance suite (@modelcontextprotocol/conformance,
// pinned in harness/conformance/package.json) calls by name, with the exact
// outputs its scenarios check. Built only with -tags conformance, in place
// of the demo registry (registry_demo.go); the product binary never
// contains them (harness/conformance/check.sh checks that it does not).
//
// Every fixture uses the ordinary registration API, and every fixture that
// needs the client (elicitation, sampling, roots) asks through MRTR
// (req.NeedInput), in both eras: the classic era turns NeedInput into real
// server-to-client requests.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/server,
// https://modelcontextprotocol.io/specification/2025-11-25/server,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions,
// SEP-2322 (MRTR), SEP-1034 (elicitation defaults), SEP-1330 (elicitation
// enums), SEP-2243 (x-mcp-header), SEP-2106 (JSON Schema 2020-12).
// What each scenario checks: the suite's sources, in
// harness/conformance/node_modules/@modelcontextprotocol/conformance/dist/.

package main

import (
	"context"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// buildRegistry fills s with the conformance fixtures; nothing runs in
// the background, so stop does nothing.
func buildRegistry(s *server, getenv func(string) string) (stop func()) {
	registerFixtures(s)
	return func() {}
}

// fixturePNG is a 1×1 red PNG.
const fixturePNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

// fixtureWAV is a 16-bit mono 8 kHz WAV of eight silent samples.
const fixtureWAV = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA"

// fixtureStep is the pause between the notifications of the progress and
// logging fixtures: the suite expects them spread out, not in one chunk.
const fixtureStep = 50 * time.Millisecond

// fixtureSchema2020 is json_schema_2020_12_tool's inputSchema, served
// byte for byte: json-schema-2020-12 checks that $schema, $defs, $anchor,
// allOf/anyOf, if/then/else and additionalProperties survive.
const fixtureSchema2020 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},` +
	`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},` +
	`"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],` +
	`"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},` +
	`"then":{"required":["phone"]},"else":{"required":["email"]},` +
	`"additionalProperties":false}`

// The elicitation schemas of the classic elicitation scenarios.
const (
	fixtureElicitSchema = `{"type":"object","properties":{` +
		`"username":{"type":"string","description":"User's response"},` +
		`"email":{"type":"string","description":"User's email address"}},` +
		`"required":["username","email"]}`

	// [SEP-1034]: every primitive type may carry a default.
	fixtureDefaultsSchema = `{"type":"object","properties":{` +
		`"name":{"type":"string","default":"John Doe"},` +
		`"age":{"type":"integer","default":30},` +
		`"score":{"type":"number","default":95.5},` +
		`"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},` +
		`"verified":{"type":"boolean","default":true}}}`

	// [SEP-1330]: untitled and titled single and multi select, and the
	// legacy enumNames form.
	fixtureEnumsSchema = `{"type":"object","properties":{` +
		`"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},` +
		`"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},` +
		`"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},` +
		`"untitledMulti":{"type":"array","items":{"type":"string","enum":["option1","option2","option3"]}},` +
		`"titledMulti":{"type":"array","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`

	fixtureNameSchema = `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`
)

// registerFixtures adds every fixture, tools first in a fixed order whose
// first tool takes no arguments (http-header-validation calls tools[0]
// with arguments {}).
func registerFixtures(s *server) {
	png := mustBase64(fixturePNG)
	wav := mustBase64(fixtureWAV)
	text := func(t string) func(context.Context, *request) (*toolResult, error) {
		return func(context.Context, *request) (*toolResult, error) { return textResult(t), nil }
	}

	// Content of every kind (tools-call-*).
	s.addTool(tool{Name: "test_simple_text", Description: "Returns a simple text response",
		Call: text("This is a simple text response for testing.")})
	s.addTool(tool{Name: "test_image_content", Description: "Returns an image",
		Call: func(context.Context, *request) (*toolResult, error) {
			return &toolResult{Content: []content{imageContent(png, "image/png")}}, nil
		}})
	s.addTool(tool{Name: "test_audio_content", Description: "Returns audio",
		Call: func(context.Context, *request) (*toolResult, error) {
			return &toolResult{Content: []content{audioContent(wav, "audio/wav")}}, nil
		}})
	s.addTool(tool{Name: "test_embedded_resource", Description: "Returns an embedded resource",
		Call: func(context.Context, *request) (*toolResult, error) {
			return &toolResult{Content: []content{embeddedContent(resourceContents{
				URI: "test://embedded-resource", MimeType: "text/plain", Text: "This is an embedded resource content.",
			})}}, nil
		}})
	s.addTool(tool{Name: "test_multiple_content_types", Description: "Returns text, an image and an embedded resource",
		Call: func(context.Context, *request) (*toolResult, error) {
			return &toolResult{Content: []content{
				textContent("Multiple content types test:"),
				imageContent(png, "image/png"),
				embeddedContent(resourceContents{URI: "test://mixed-content-resource", MimeType: "application/json", Text: `{"test":"data","value":123}`}),
			}}, nil
		}})
	s.addTool(tool{Name: "test_error_handling", Description: "Always fails, in band (isError)",
		Call: func(context.Context, *request) (*toolResult, error) {
			return errorResult("This tool intentionally returns an error for testing"), nil
		}})

	// Notifications on the request's stream (tools-call-with-progress,
	// tools-call-with-logging).
	s.addTool(tool{Name: "test_tool_with_progress", Description: "Reports progress 0, 50 and 100 of 100",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			for i, p := range []float64{0, 50, 100} {
				if i > 0 {
					if err := pause(ctx, fixtureStep); err != nil {
						return nil, err
					}
				}
				req.Progress(p, 100, fmt.Sprintf("%v%%", p))
			}
			// Leave a gap before the result: a client that reads the last
			// notification and the result in one chunk may drop one.
			if err := pause(ctx, fixtureStep); err != nil {
				return nil, err
			}
			return textResult("Progress test completed"), nil
		}})
	s.addTool(tool{Name: "test_tool_with_logging", Description: "Logs three messages at level info",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			for i, m := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					if err := pause(ctx, fixtureStep); err != nil {
						return nil, err
					}
				}
				req.Log(levelInfo, m)
			}
			return textResult("Logging test completed"), nil
		}})

	// Classic-era client requests, asked through MRTR (tools-call-sampling,
	// tools-call-elicitation, elicitation-sep1034-defaults,
	// elicitation-sep1330-enums).
	s.addTool(tool{Name: "test_sampling", Description: "Asks the client's model to answer a prompt",
		InputSchema: `{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send"}},"required":["prompt"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			answer := req.Input("response")
			if answer == nil {
				return nil, req.NeedInput(createMessage("response", samplingRequest{Messages: userText(req.String("prompt")), MaxTokens: 100}))
			}
			return textResult("LLM response: " + answer.Text), nil
		}})
	s.addTool(tool{Name: "test_elicitation", Description: "Asks the user for a username and an email address",
		InputSchema: `{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]}`,
		Call:        elicitFixture(req2message, fixtureElicitSchema, "User response"),
	})
	s.addTool(tool{Name: "test_elicitation_sep1034_defaults", Description: "Asks for a form whose fields have defaults (SEP-1034)",
		Call: elicitFixture(constMessage("Please review and update the form fields with defaults"), fixtureDefaultsSchema, "Elicitation completed"),
	})
	s.addTool(tool{Name: "test_elicitation_sep1330_enums", Description: "Asks for a form with every enum variant (SEP-1330)",
		Call: elicitFixture(constMessage("Please select options from the enum fields"), fixtureEnumsSchema, "Elicitation completed"),
	})

	// JSON Schema 2020-12 keywords the validator does not enforce: the
	// handler takes the arguments as they come.
	s.addTool(tool{Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features",
		InputSchema: fixtureSchema2020, HandlerValidates: true,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			args, err := json.Marshal(req.args)
			if err != nil {
				return nil, err
			}
			return textResult("Received: " + string(args)), nil
		}})

	// A mirrored argument (http-custom-header-server-validation).
	s.addTool(tool{Name: "test_x_mcp_header", Description: "Echoes an argument mirrored in the Mcp-Param-Region header",
		InputSchema: `{"type":"object","properties":{"region":{"type":"string","description":"Region","x-mcp-header":"Region"}},"required":["region"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			return textResult("region: " + req.String("region")), nil
		}})

	// Modern-era server-stateless probes.
	s.addTool(tool{Name: "test_missing_capability", Description: "Needs the client's sampling capability",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			answer := req.Input("answer")
			if answer == nil {
				// Without sampling declared the dispatcher answers -32021.
				return nil, req.NeedInput(createMessage("answer", samplingRequest{Messages: userText("Say hello"), MaxTokens: 50}))
			}
			return textResult("model said: " + answer.Text), nil
		}})
	s.addTool(tool{Name: "test_streaming_elicitation", Description: "Asks the user a question (input_required, never a request on the stream)",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			answer := req.Input("user_name")
			if answer == nil {
				return nil, req.NeedInput(elicitForm("user_name", "What is your name?", fixtureNameSchema))
			}
			return textResult("Hello, " + answer.String("name") + "!"), nil
		}})
	s.addTool(tool{Name: "test_logging_tool", Description: "Logs one message, only when the request asked for logs",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			req.Log(levelInfo, "test_logging_tool ran")
			return textResult("Logging tool completed"), nil
		}})
	registerInputFixtures(s)
	// greet, slow_compute, failing_job, ... (the tasks-* scenarios):
	// registry_conformance_tasks.go.
	registerTaskFixtures(s)

	registerFixturePrompts(s, png)
	registerFixtureResources(s, png)
	// test_trigger_tool_change, test_trigger_prompt_change and
	// test://watched-resource (subscriptions). Last: the suite reads
	// resources[0].
	registerSubscriptionFixtures(s)
	registerSkillFixtures(s)
}

// fixtureSkills are the skills of the sep-2640-skills-* scenarios, which
// find what they check through skills/list and resources/list: the first
// skill listed (acme/billing/refunds) has a subdirectory for
// resources/directory/read, and its SKILL.md is the first in
// resources/list. Frontmatter in several YAML forms (a folded scalar, a
// block sequence, a nested mapping), which the suite's YAML parser reads
// back and compares with each entry.
//
//go:embed testdata/skill-trees/conformance
var fixtureSkills embed.FS

// registerSkillFixtures serves fixtureSkills and one generated skill,
// whose entry is "dynamic".
func registerSkillFixtures(s *server) {
	s.addSkills(fixtureSkills, "testdata/skill-trees/conformance")
	s.addGeneratedSkill(generatedSkill{
		Path:        "reports/daily",
		Frontmatter: "name: daily\ndescription: Assemble today's operational report from live data.",
		Body: func(ctx context.Context, req *request) (string, error) {
			return "# Daily report\n\nGenerated at " + time.Now().UTC().Format(time.RFC3339) + ".\n", nil
		},
	})
}

// registerInputFixtures adds the tools of the input-required-result-*
// scenarios (SEP-2322). Each completes from its answers alone: the server
// keeps nothing between rounds, answers from earlier rounds come back in
// the signed requestState.
func registerInputFixtures(s *server) {
	askName := func(key, message string) inputRequest { return elicitForm(key, message, fixtureNameSchema) }

	// Completes when user_name was accepted with a name; anything else
	// asks again. input-required-result-ignore-extra-params sends that
	// answer on the first call, before it was asked, and expects a
	// complete result. The engine ignores an answer it did not ask for
	// (SEP-2322: a server SHOULD ignore input it does not need; issue 20),
	// so this fixture alone reads it itself (fixtureUnaskedAnswer), checked
	// against the form it would have asked.
	s.addTool(tool{Name: "test_input_required_result_elicitation", Description: "Asks the user for their name (MRTR elicitation)",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			answer := req.Input("user_name")
			if answer == nil {
				answer = fixtureUnaskedAnswer(req, askName("user_name", ""))
			}
			if name := answer.String("name"); name != "" {
				return textResult("Hello, " + name + "!"), nil
			}
			return nil, req.NeedInput(askName("user_name", "What is your name?"))
		}})
	s.addTool(tool{Name: "test_input_required_result_sampling", Description: "Asks the client's model a question (MRTR sampling)",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			if answer := req.Input("capital_question"); answer != nil {
				return textResult("The model answered: " + answer.Text), nil
			}
			return nil, req.NeedInput(createMessage("capital_question", samplingRequest{
				Messages: userText("What is the capital of France?"), MaxTokens: 100}))
		}})
	s.addTool(tool{Name: "test_input_required_result_list_roots", Description: "Lists the client's roots (MRTR roots)",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			if answer := req.Input("client_roots"); answer != nil {
				return textResult(fmt.Sprintf("The client has %d root(s): %s", len(answer.Roots), rootURIs(answer.Roots))), nil
			}
			return nil, req.NeedInput(listRoots("client_roots"))
		}})
	// The state the first round attaches must come back intact: the
	// final text says state-ok only then.
	s.addTool(tool{Name: "test_input_required_result_request_state", Description: "Asks for a confirmation and carries state between rounds",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			answer := req.Input("confirm")
			if answer == nil {
				return nil, req.NeedInput(elicitForm("confirm", "Please confirm",
					`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)).WithState("round-1")
			}
			state := "state-missing"
			if req.State() == "round-1" {
				state = "state-ok"
			}
			return textResult(fmt.Sprintf("%s: confirmed=%t", state, answer.Bool("ok"))), nil
		}})
	s.addTool(tool{Name: "test_input_required_result_multiple_inputs", Description: "Asks for a name, a model greeting and the roots in one round",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			name, greeting, roots := req.Input("user_name"), req.Input("greeting"), req.Input("client_roots")
			var ask []inputRequest
			if name == nil {
				ask = append(ask, askName("user_name", "What is your name?"))
			}
			if greeting == nil {
				ask = append(ask, createMessage("greeting", samplingRequest{Messages: userText("Generate a greeting"), MaxTokens: 50}))
			}
			if roots == nil {
				ask = append(ask, listRoots("client_roots"))
			}
			if len(ask) > 0 {
				return nil, req.NeedInput(ask...)
			}
			return textResult(fmt.Sprintf("name=%s greeting=%q roots=%s", name.String("name"), greeting.Text, rootURIs(roots.Roots))), nil
		}})
	// Three rounds: the name from round one reaches round three only
	// through the requestState.
	s.addTool(tool{Name: "test_input_required_result_multi_round", Description: "Asks two questions in two rounds",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			step1 := req.Input("step1")
			if step1 == nil {
				return nil, req.NeedInput(askName("step1", "Step 1: What is your name?"))
			}
			step2 := req.Input("step2")
			if step2 == nil {
				return nil, req.NeedInput(elicitForm("step2", "Step 2: What is your favorite color?",
					`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`))
			}
			return textResult(fmt.Sprintf("%s likes %s", step1.String("name"), step2.String("color"))), nil
		}})
	// A tampered requestState fails its HMAC before the handler runs.
	s.addTool(tool{Name: "test_input_required_result_tampered_state", Description: "Asks for a confirmation; its requestState is signed",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			answer := req.Input("confirm")
			if answer == nil {
				return nil, req.NeedInput(elicitForm("confirm", "Please confirm",
					`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`))
			}
			return textResult(fmt.Sprintf("confirmed=%t", answer.Bool("ok"))), nil
		}})
	// Asks only for what the client declared it can answer.
	s.addTool(tool{Name: "test_input_required_result_capabilities", Description: "Asks through whichever capability the client declared",
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			if a := req.Input("user_name"); a != nil {
				return textResult("elicited: " + a.String("name")), nil
			}
			if a := req.Input("capital_question"); a != nil {
				return textResult("sampled: " + a.Text), nil
			}
			if a := req.Input("client_roots"); a != nil {
				return textResult("roots: " + rootURIs(a.Roots)), nil
			}
			for _, q := range []inputRequest{
				askName("user_name", "What is your name?"),
				createMessage("capital_question", samplingRequest{Messages: userText("What is the capital of France?"), MaxTokens: 100}),
				listRoots("client_roots"),
			} {
				if req.CanAsk(q) {
					return nil, req.NeedInput(q)
				}
			}
			return textResult("the client declared no capability to ask through"), nil
		}})
}

// fixtureUnaskedAnswer returns the client's answer under q's key on a
// call that carries no requestState, checked as if q had been asked, or
// nil. Only the fixture of input-required-result-ignore-extra-params uses
// it: the engine never hands a handler an answer it did not ask for.
func fixtureUnaskedAnswer(req *request, q inputRequest) *inputResponse {
	if req.param("requestState") != nil {
		return nil
	}
	members, err := objectMembers(req.param("inputResponses"))
	if err != nil {
		return nil
	}
	for _, m := range members {
		if m.name == q.key {
			a, err := parseInputResponse(q.method, q.mode, q.schema, m.value)
			if err != nil {
				return nil
			}
			return a
		}
	}
	return nil
}

// registerFixturePrompts adds the prompts of the prompts-* scenarios and
// input-required-result-non-tool-request.
func registerFixturePrompts(s *server, png []byte) {
	user := func(c content) promptMessage { return promptMessage{Role: "user", Content: c} }
	s.addPrompt(prompt{Name: "test_simple_prompt", Description: "A simple prompt without arguments",
		Get: func(context.Context, *request, map[string]string) (*promptResult, error) {
			return &promptResult{Messages: []promptMessage{user(textContent("This is a simple prompt for testing."))}}, nil
		}})
	s.addPrompt(prompt{Name: "test_prompt_with_arguments", Description: "A prompt with two required arguments",
		Arguments: []promptArgument{
			{Name: "arg1", Description: "First test argument", Required: true, Complete: prefixCompleter("test", "testValue1", "value1")},
			{Name: "arg2", Description: "Second test argument", Required: true},
		},
		Get: func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
			return &promptResult{Messages: []promptMessage{user(textContent(
				fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", args["arg1"], args["arg2"])))}}, nil
		}})
	s.addPrompt(prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds a resource",
		Arguments: []promptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}},
		Get: func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
			return &promptResult{Messages: []promptMessage{
				user(embeddedContent(resourceContents{URI: args["resourceUri"], MimeType: "text/plain", Text: "Embedded resource content for testing."})),
				user(textContent("Please process the embedded resource above.")),
			}}, nil
		}})
	s.addPrompt(prompt{Name: "test_prompt_with_image", Description: "A prompt with an image",
		Get: func(context.Context, *request, map[string]string) (*promptResult, error) {
			return &promptResult{Messages: []promptMessage{
				user(imageContent(png, "image/png")),
				user(textContent("Please analyze the image above.")),
			}}, nil
		}})
	s.addPrompt(prompt{Name: "test_input_required_result_prompt", Description: "A prompt that asks the user for context first (MRTR)",
		Get: func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
			answer := req.Input("user_context")
			if c := answer.String("context"); c != "" {
				return &promptResult{Messages: []promptMessage{user(textContent("Use this context: " + c))}}, nil
			}
			return nil, req.NeedInput(elicitForm("user_context", "What context should the prompt use?",
				`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`))
		}})
}

// registerFixtureResources adds the resources and the template of the
// resources-* scenarios. test://static-text comes first: caching reads
// resources[0].
func registerFixtureResources(s *server, png []byte) {
	s.addResource(resource{URI: "test://static-text", Name: "static-text", Description: "A static text resource",
		MimeType: "text/plain", Text: "This is the content of the static text resource."})
	s.addResource(resource{URI: "test://static-binary", Name: "static-binary", Description: "A static binary resource (a PNG)",
		MimeType: "image/png", Blob: png})
	s.addTemplate(resourceTemplate{URITemplate: "test://template/{id}/data", Name: "template-data",
		Description: "Data for one id", MimeType: "application/json",
		Read: func(ctx context.Context, req *request, uri string, vars map[string]string) ([]resourceContents, error) {
			body, err := json.Marshal(struct {
				ID           string `json:"id"`
				TemplateTest bool   `json:"templateTest"`
				Data         string `json:"data"`
			}{vars["id"], true, "Data for ID: " + vars["id"]})
			if err != nil {
				return nil, err
			}
			return []resourceContents{{URI: uri, MimeType: "application/json", Text: string(body)}}, nil
		}})
}

// registerSubscriptionFixtures adds the fixtures of the suite's
// subscription scenarios (server-stateless, sep-2575-server-*-subscription*):
// test_trigger_tool_change, test_trigger_prompt_change and
// test://watched-resource. The triggers announce a list change without
// changing the list: the suite's later tools-list order check must see
// the same set.
// [§Subscriptions]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
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

// elicitFixture is a tool that asks the user to fill in schema under the
// key "response" and reports the answer as "<label>: action=..., content=...".
func elicitFixture(message func(*request) string, schema, label string) func(context.Context, *request) (*toolResult, error) {
	return func(ctx context.Context, req *request) (*toolResult, error) {
		answer := req.Input("response")
		if answer == nil {
			return nil, req.NeedInput(elicitForm("response", message(req), schema))
		}
		got, err := json.Marshal(answer.Content)
		if err != nil {
			return nil, err
		}
		return textResult(fmt.Sprintf("%s: action=%s, content=%s", label, answer.Action, got)), nil
	}
}

// req2message reads the elicitation message from the message argument.
func req2message(req *request) string { return req.String("message") }

// constMessage is a fixed elicitation message.
func constMessage(m string) func(*request) string { return func(*request) string { return m } }

// rootURIs joins the roots' URIs with commas.
func rootURIs(roots []root) string {
	uris := make([]string, len(roots))
	for i, r := range roots {
		uris[i] = r.URI
	}
	return strings.Join(uris, ",")
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// mustBase64 decodes a constant; a bad one is a programming error.
func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic("fixtures: " + err.Error())
	}
	return b
}
