//go:build conformance

// Tests for the conformance fixtures (registry_conformance.go): they
// register, keep the shapes the suite relies on beyond single outputs, and
// every fixture that asks the client builds a request the dispatcher
// accepts. The suite itself is the real test (harness/conformance/check.sh).
// Run with go test -tags conformance -run Fixture .

package main

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestFixtureRegistry(t *testing.T) {
	reg := newTestServer(t, withStateKey(testStateKey), withRegistry("product")).registry()
	// http-header-validation calls tools[0] with arguments {}.
	if got := reg.tools[0].Name; got != "test_simple_text" {
		t.Errorf("tools[0] = %s, want test_simple_text", got)
	}
	// caching reads resources[0].
	if got := reg.resources[0].URI; got != "test://static-text" {
		t.Errorf("resources[0] = %s, want test://static-text", got)
	}
	// tools-list and prompts-list require a description on every item.
	for _, tl := range reg.tools {
		if tl.Description == "" {
			t.Errorf("tool %s has no description", tl.Name)
		}
	}
	for _, p := range reg.prompts {
		if p.Description == "" {
			t.Errorf("prompt %s has no description", p.Name)
		}
	}
}

func TestFixtureAsksValidInput(t *testing.T) {
	s := newTestServer(t, withStateKey(testStateKey), withRegistry("product"))
	for _, tt := range []struct {
		method, name, args string
	}{
		{"tools/call", "test_sampling", `{"prompt":"hi"}`},
		{"tools/call", "test_elicitation", `{"message":"hi"}`},
		{"tools/call", "test_elicitation_sep1034_defaults", `{}`},
		{"tools/call", "test_elicitation_sep1330_enums", `{}`},
		{"tools/call", "test_missing_capability", `{}`},
		{"tools/call", "test_streaming_elicitation", `{}`},
		{"tools/call", "test_input_required_result_elicitation", `{}`},
		{"tools/call", "test_input_required_result_sampling", `{}`},
		{"tools/call", "test_input_required_result_list_roots", `{}`},
		{"tools/call", "test_input_required_result_request_state", `{}`},
		{"tools/call", "test_input_required_result_multiple_inputs", `{}`},
		{"tools/call", "test_input_required_result_multi_round", `{}`},
		{"tools/call", "test_input_required_result_tampered_state", `{}`},
		{"tools/call", "test_input_required_result_capabilities", `{}`},
		{"prompts/get", "test_input_required_result_prompt", `{}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			line := mrtrLine(1, tt.method, fmt.Sprintf(`"name":%q,"arguments":%s`, tt.name, tt.args), capsAll)
			res := mustResult(t, mustServeLine(t, s, line))
			if res["resultType"] != "input_required" {
				t.Errorf("%s %s = %s, want an input_required result", tt.method, tt.name, mustJSON(t, res))
			}
		})
	}
}

func TestFixtureTriggersRestoreLists(t *testing.T) {
	s := newTestServer(t, withStateKey(testStateKey), withRegistry("product"))
	before := mustJSON(t, mustResult(t, mustServeLine(t, s, mrtrLine(1, "tools/list", "", capsAll))))
	beforePrompts := mustJSON(t, mustResult(t, mustServeLine(t, s, mrtrLine(2, "prompts/list", "", capsAll))))
	for _, name := range []string{"test_trigger_tool_change", "test_trigger_prompt_change"} {
		mustResult(t, mustServeLine(t, s, mrtrLine(3, "tools/call", fmt.Sprintf(`"name":%q`, name), capsAll)))
	}
	if after := mustJSON(t, mustResult(t, mustServeLine(t, s, mrtrLine(4, "tools/list", "", capsAll)))); after != before {
		t.Errorf("tools/list changed after the triggers:\n got %s\nwant %s", after, before)
	}
	if after := mustJSON(t, mustResult(t, mustServeLine(t, s, mrtrLine(5, "prompts/list", "", capsAll)))); after != beforePrompts {
		t.Errorf("prompts/list changed after the triggers:\n got %s\nwant %s", after, beforePrompts)
	}
}

// TestFixtureTasks drives each task fixture as the suite's tasks-*
// scenarios do, in a synctest bubble whose clock the fixtures' pauses
// follow: how each one runs (a task or not), and the state it settles in.
func TestFixtureTasks(t *testing.T) {
	for _, tt := range []struct {
		name, args, caps string
		after            time.Duration // time passed before the task is read
		want             string        // the response (no task), or the task's status
		path, value      string        // a member of the task (or the response) and its value
	}{
		{"greet", `{"name":"sep-2243"}`, capsTasksAll, 0, "complete", "content.0.text", "Hello, sep-2243!"},
		{"slow_compute", `{"seconds":0,"label":"no-ext"}`, capsNone, 0, "complete", "content.0.text", `computed "no-ext" in 0s`},
		{"slow_compute", `{"seconds":2,"label":"lifecycle"}`, capsTasks, 2 * time.Second, "completed", "result.content.0.text", `computed "lifecycle" in 2s`},
		{"failing_job", `{}`, capsTasks, time.Second, "completed", "result.isError", "true"},
		{"failing_job", `{}`, capsNone, 0, "error", "error.code", "-32021"},
		{"protocol_error_job", `{}`, capsTasks, time.Second, "failed", "error.code", "-32603"},
		{"confirm_delete", `{"filename":"a.txt"}`, capsTasksAll, 0, "input_required", "inputRequests.confirm.method", "elicitation/create"},
		{"multi_input", `{}`, capsTasksAll, 0, "input_required", "inputRequests.name.method", "elicitation/create"},
		{"test_tool_with_task", `{}`, capsTasksAll, 0, "input_required", "inputRequests.user_name.method", "elicitation/create"},
	} {
		t.Run(tt.name+"/"+tt.want, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newTestServer(t, withRegistry("product"))
				resp := mustServeLine(t, s, mrtrLine(1, "tools/call", fmt.Sprintf(`"name":%q,"arguments":%s`, tt.name, tt.args), tt.caps))
				got, kind := any(resp), "error"
				if res, ok := resp["result"].(map[string]any); ok {
					got, kind = res, res["resultType"].(string)
				}
				if kind == "task" {
					synctest.Wait()
					time.Sleep(tt.after) // the bubble's clock: the fixture's pause ends
					synctest.Wait()
					task := mustResult(t, mustServeLine(t, s, mrtrLine(2, "tasks/get", fmt.Sprintf(`"taskId":%q`, resultOf(resp)["taskId"]), tt.caps)))
					got, kind = task, task["status"].(string)
				}
				if v := fmt.Sprint(jsonPath(got, tt.path)); kind != tt.want || v != tt.value {
					t.Errorf("tools/call %s %s: %s with %s = %s, want %s and %s", tt.name, tt.args, kind, tt.path, v, tt.want, tt.value)
				}
			})
		})
	}
}

// resultOf returns the result member of a response, or nil.
func resultOf(resp map[string]any) map[string]any {
	r, _ := resp["result"].(map[string]any)
	return r
}

// TestFixtureSkills holds what the sep-2640-skills-* scenarios find: the
// first skill listed has a subdirectory (resources/directory/read needs
// one), its SKILL.md is the first in resources/list, names are unique,
// and every manifest matches what resources/read returns.
func TestFixtureSkills(t *testing.T) {
	s := newTestServer(t, withStateKey(testStateKey), withRegistry("product"))
	reg := s.registry()
	first := reg.skills[0]
	var sub bool
	for _, f := range first.files {
		sub = sub || strings.Count(strings.TrimPrefix(f.uri, skillScheme+first.path+"/"), "/") > 0
	}
	if !sub {
		t.Errorf("the first skill listed, %s, has no subdirectory", first.uri)
	}
	for _, r := range reg.resources {
		if strings.HasSuffix(r.URI, "/"+skillFileName) {
			if r.URI != first.uri {
				t.Errorf("the first SKILL.md in resources/list is %s, want %s", r.URI, first.uri)
			}
			break
		}
	}
	names := map[string]bool{}
	for _, sk := range reg.skills {
		if names[sk.name] {
			t.Errorf("two skills named %s", sk.name)
		}
		names[sk.name] = true
	}
	mustCheckSkillManifests(t, s)
}
