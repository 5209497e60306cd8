// Tests of the tasks extension (tasks.go, tasks_store.go): the test
// registry's tasks part, the rules of the surface over raw lines and raw
// HTTP requests, and the bounds. The whole life of a task, on stdio and
// over HTTP, is in testdata/tasks and testdata/tasks-http.

package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// testTasksWire is the tasks part of the test registry.
const testTasksWire = `{"tools":[
{"name":"job","description":"Works for the given number of seconds; a task when the client declares the extension.","inputSchema":{"type":"object","properties":{"seconds":{"type":"integer","minimum":0},"label":{"type":"string"}},"required":["seconds"]}},
{"name":"approve","description":"A task that asks the user to approve an item.","inputSchema":{"type":"object","properties":{"item":{"type":"string"}},"required":["item"]}},
{"name":"two_questions","description":"A task that asks two questions at once."},
{"name":"ask_twice","description":"A task that asks for a code until it is 42."},
{"name":"failing","description":"A task that fails with a JSON-RPC error."},
{"name":"tool_error","description":"A task that ends with a tool error (isError)."},
{"name":"crash","description":"A task whose handler panics."},
{"name":"hold","description":"A task that runs until it is cancelled."},
{"name":"needs_name","description":"Asks for a name on the request, then greets as a task."},
{"name":"big","description":"A task whose result has the given number of bytes.","inputSchema":{"type":"object","properties":{"bytes":{"type":"integer","minimum":0}},"required":["bytes"]}},
{"name":"sampler","description":"A task that asks the client's model."}]}`

// testTaskNameSchema is the form of a question whose answer is a name.
const testTaskNameSchema = `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`

// addTestTasks registers the tasks part: every tool but job must run as a
// task; needs_name asks before it becomes one.
func addTestTasks(s *server, d *testDefs, _ *testGates) {
	must := func(name string, call func(ctx context.Context, req *request) (*toolResult, error)) {
		t := d.tool(name, call)
		t.Task = taskMust
		s.addTool(t)
	}
	job := d.tool("job", func(ctx context.Context, req *request) (*toolResult, error) {
		if err := sleepCtx(ctx, time.Duration(req.Int("seconds"))*time.Second); err != nil {
			return nil, err
		}
		return textResult(fmt.Sprintf("job %q done after %ds", req.String("label"), req.Int("seconds"))), nil
	})
	job.Task = taskMay
	s.addTool(job)
	must("approve", func(ctx context.Context, req *request) (*toolResult, error) {
		item := req.Input("approve")
		if item == nil {
			return nil, req.NeedInput(elicitForm("approve", "Approve "+req.String("item")+"?",
				`{"type":"object","properties":{"approve":{"type":"boolean"}},"required":["approve"]}`))
		}
		if item.Bool("approve") {
			return textResult("approved " + req.String("item")), nil
		}
		return textResult("rejected " + req.String("item")), nil
	})
	must("two_questions", func(ctx context.Context, req *request) (*toolResult, error) {
		name, color := req.Input("name"), req.Input("color")
		var ask []inputRequest
		if name == nil {
			ask = append(ask, elicitForm("name", "Your name?", testTaskNameSchema))
		}
		if color == nil {
			ask = append(ask, elicitForm("color", "Your favourite colour?", `{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`))
		}
		if len(ask) > 0 {
			return nil, req.NeedInput(ask...)
		}
		return textResult(name.String("name") + " likes " + color.String("color")), nil
	})
	must("ask_twice", func(ctx context.Context, req *request) (*toolResult, error) {
		if code := req.Input("code").String("code"); code != "42" {
			return nil, req.NeedInput(elicitForm("code", "The code?", `{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}`))
		}
		return textResult("code accepted"), nil
	})
	must("failing", func(ctx context.Context, req *request) (*toolResult, error) {
		return nil, newError(codeInternalError, "failing: the backend refused the job")
	})
	must("tool_error", func(ctx context.Context, req *request) (*toolResult, error) {
		return nil, errors.New("the input file is empty")
	})
	must("crash", func(ctx context.Context, req *request) (*toolResult, error) {
		panic("crash: a bug in the tool")
	})
	must("hold", func(ctx context.Context, req *request) (*toolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	needsName := d.tool("needs_name", func(ctx context.Context, req *request) (*toolResult, error) {
		name := req.Input("user_name").String("name")
		if name == "" {
			return nil, req.NeedInput(elicitForm("user_name", "What is your name?", testTaskNameSchema))
		}
		if err := req.Detach(); err != nil {
			return nil, err
		}
		return textResult(fmt.Sprintf("Hello, %s! (in a task: %t)", name, req.InTask())), nil
	})
	needsName.Task, needsName.TaskAfterInput = taskMust, true
	s.addTool(needsName)
	must("big", func(ctx context.Context, req *request) (*toolResult, error) {
		return textResult(strings.Repeat("x", int(req.Int("bytes")))), nil
	})
	must("sampler", func(ctx context.Context, req *request) (*toolResult, error) {
		if a := req.Input("answer"); a != nil {
			return textResult("the model said " + a.Text), nil
		}
		return nil, req.NeedInput(createMessage("answer", samplingRequest{Messages: userText("Say hi"), MaxTokens: 10}))
	})
}

// Client capabilities that declare the tasks extension: alone, and with
// every input capability.
const (
	capsTasks    = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	capsTasksAll = `{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`
)

// mustTaskID returns the taskId of a CreateTaskResult response.
func mustTaskID(tb testing.TB, resp map[string]any) string {
	tb.Helper()
	res := mustResult(tb, resp)
	id, _ := res["taskId"].(string)
	if res["resultType"] != "task" || id == "" {
		tb.Fatalf("response is not a CreateTaskResult: %s", mustJSON(tb, resp))
	}
	return id
}
