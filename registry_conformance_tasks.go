//go:build conformance && !(bench || demo)

// The conformance registry's task fixtures: the tools the suite's tasks-*
// scenarios call by name, each declaring how it may run as a task
// (tasks.go), with the behaviour the scenarios check. A part of
// registry_conformance.go, built only with -tags conformance.
//
// Spec: SEP-2663 (the tasks extension); what each scenario checks: the
// suite's sources (src/scenarios/server/tasks/*.ts in
// modelcontextprotocol/conformance; the installed build is
// harness/conformance/node_modules/@modelcontextprotocol/conformance/dist/).

package main

import (
	"context"
	"fmt"
	"time"
)

// fixtureJobPause is how long failing_job and protocol_error_job work
// before they fail: long enough that a poll may see them working.
const fixtureJobPause = 200 * time.Millisecond

// registerTaskFixtures adds greet (never a task), slow_compute (a task for
// a client that declares the extension, the result otherwise),
// failing_job and protocol_error_job (always tasks, ending completed with
// isError and failed), confirm_delete and multi_input (tasks that ask for
// input while they run) and test_tool_with_task (asks on the request
// first, then becomes a task).
func registerTaskFixtures(s *server) {
	s.addTool(tool{Name: "greet", Description: "Greets someone by name; never a task",
		InputSchema: `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			return textResult("Hello, " + req.String("name") + "!"), nil
		}})
	s.addTool(tool{Name: "slow_compute", Description: "Works for the given number of seconds; a task when the client declares the extension",
		InputSchema: `{"type":"object","properties":{"seconds":{"type":"integer","minimum":0},"label":{"type":"string"}}}`,
		Task:        taskMay,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			seconds := req.Int("seconds")
			if err := pause(ctx, time.Duration(seconds)*time.Second); err != nil {
				return nil, err
			}
			return textResult(fmt.Sprintf("computed %q in %ds", req.String("label"), seconds)), nil
		}})
	s.addTool(tool{Name: "failing_job", Description: "Always a task; ends with a tool error (completed, isError)",
		Task: taskMust,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			if err := pause(ctx, fixtureJobPause); err != nil {
				return nil, err
			}
			return errorResult("failing_job: the job failed, as it always does"), nil
		}})
	s.addTool(tool{Name: "protocol_error_job", Description: "Always a task; ends with a JSON-RPC error (failed)",
		Task: taskMust,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			if err := pause(ctx, fixtureJobPause); err != nil {
				return nil, err
			}
			return nil, newError(codeInternalError, "protocol_error_job: the job broke at the protocol level, as it always does")
		}})
	s.addTool(tool{Name: "confirm_delete", Description: "Always a task; asks the user to confirm before (pretending to) delete a file",
		InputSchema: `{"type":"object","properties":{"filename":{"type":"string"}}}`,
		Task:        taskMust,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			answer := req.Input("confirm")
			if answer == nil {
				return nil, req.NeedInput(elicitForm("confirm", "Delete "+req.String("filename")+"?",
					`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`))
			}
			if answer.Bool("confirm") {
				return textResult("deleted " + req.String("filename")), nil
			}
			return textResult("kept " + req.String("filename")), nil
		}})
	s.addTool(tool{Name: "multi_input", Description: "Always a task; asks two questions at once",
		Task: taskMust,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			name, confirm := req.Input("name"), req.Input("confirm")
			var ask []inputRequest
			if name == nil {
				ask = append(ask, elicitForm("name", "What is your name?", fixtureNameSchema))
			}
			if confirm == nil {
				ask = append(ask, elicitForm("confirm", "Shall I go on?",
					`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`))
			}
			if len(ask) > 0 {
				return nil, req.NeedInput(ask...)
			}
			return textResult(fmt.Sprintf("name=%s confirm=%t", name.String("name"), confirm.Bool("confirm"))), nil
		}})
	s.addTool(tool{Name: "test_tool_with_task", Description: "Asks for a name on the request, then greets as a task",
		Task: taskMust, TaskAfterInput: true,
		Call: func(ctx context.Context, req *request) (*toolResult, error) {
			name := req.Input("user_name").String("name")
			if name == "" {
				return nil, req.NeedInput(elicitForm("user_name", "What is your name?", fixtureNameSchema))
			}
			if err := req.Detach(); err != nil {
				return nil, err
			}
			return textResult("Hello, " + name + "!"), nil
		}})
}
