// The tasks extension (io.modelcontextprotocol/tasks): a modern tools/call run in the background
// answers CreateTaskResult at once; the client follows it with tasks/get (or notifications/tasks
// on a listen), answers its input requests with tasks/update and stops it with tasks/cancel.
// Inside a task req.NeedInput moves it to input_required and the handler runs again from the top
// with the answers, as for MRTR. docs/GAPS.md ("Tasks") records the choices.
//
// Spec: SEP-2663 (the tasks extension), ../shared/spec/seps/2663-tasks-extension.md;
// https://modelcontextprotocol.io/extensions/tasks/overview;
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
)

// extensionTasks is the extension's identifier, in capabilities.extensions.
// [§Extension Identifier]: SEP-2663, section Extension Identifier
const extensionTasks = "io.modelcontextprotocol/tasks"

// capabilityTasks names the extension in -32021's missing list.
const capabilityTasks = "extensions." + extensionTasks

// The extension's methods; tasks/result and tasks/list (2025-11-25) are -32601.
const (
	methodTasksGet    = "tasks/get"
	methodTasksUpdate = "tasks/update"
	methodTasksCancel = "tasks/cancel"
	methodTasksStatus = "notifications/tasks"
)

// taskMode says whether a modern tools/call of a tool may run as a task.
type taskMode uint8

// The three modes a tool declares (tool.Task).
const (
	taskNever taskMode = iota // never a task (the default)
	taskMay                   // a task when the request declares the extension and the store has room
	taskMust                  // always a task; a request not declaring the extension gets -32021
)

// taskPlan is how one tools/call runs.
type taskPlan uint8

const (
	planSync        taskPlan = iota // the tool's result, on the request
	planTask                        // a task, started before the handler runs
	planUntilDetach                 // on the request until the handler calls req.Detach
)

// planTask decides how req runs tool t, once, before its arguments are read: only a modern
// request that declares the extension may get a task; a taskMust tool refuses others -32021.
// [§Capability Negotiation]: SEP-2663, section Capability Negotiation
func (s *server) planTask(req *request, t *tool) (taskPlan, *rpcError) {
	if t.Task == taskNever || req.session != nil || !isModern(req.version) {
		return planSync, nil // the extension is not defined for the classic era
	}
	if !clientCaps(req.meta.capabilities).tasks {
		if t.Task == taskMust {
			return planSync, missingCapabilityError([]string{capabilityTasks})
		}
		return planSync, nil
	}
	if t.TaskAfterInput {
		return planUntilDetach, nil
	}
	return planTask, nil
}

// detachRequested is req.Detach's error for a call to go on as a task; handleToolsCall makes one.
type detachRequested struct{}

func (*detachRequested) Error() string { return "detach requested" }

// Detach says "from here on, run as a task", for a tool with TaskAfterInput: an error to return
// at once when the call becomes a task (the handler then runs again from the top in it), nil when
// it goes on here (no extension declared, the classic era, no room, or already in the task). Code
// before Detach runs twice: keep it free of side effects, as for an MRTR round.
//
//	if err := req.Detach(); err != nil {
//		return nil, err
//	}
func (r *request) Detach() error {
	if r.taskable {
		return &detachRequested{}
	}
	return nil
}

// InTask reports whether the handler runs inside a task.
func (r *request) InTask() bool { return r.task != nil }

// startTask makes req's call of t a task, its handler started with what the request carried
// (arguments, capabilities, MRTR answers), and returns CreateTaskResult. When the store refuses,
// a taskMay call runs on the request (started false) and a taskMust call gets the refusal.
// [§Task Creation]: SEP-2663, "CreateTaskResult"
// [§Composition with MRTR]: SEP-2663, "resolve all MRTR exchanges synchronously before responding with a CreateTaskResult"
func (s *server) startTask(req *request, t *tool) (res result, started bool, err error) {
	caps := bytes.Clone(req.meta.capabilities)
	size := int64(len(req.param("arguments")) + len(caps))
	for _, a := range req.input.answers {
		size += int64(len(a.raw))
	}
	// Nothing of the transport's, so Progress and Log do nothing.
	// [§Task Status Notifications]: SEP-2663, "notifications/progress and notifications/message ... are not supported on tasks"
	run := &request{
		method:  req.method,
		version: req.version,
		caller:  req.caller,
		server:  s,
		meta:    requestMeta{modern: true, version: req.meta.version, hasVersion: true, capabilities: caps},
		args:    req.args,
		input:   req.input,
		trace:   req.trace.child(), // a span of its own under the request's
		target:  req.target,
	}
	_, seed, rerr := s.tasks.create(req.caller, size, func(ctx context.Context, tk *task) {
		run.task = tk
		s.runTask(run.context(ctx), tk, t, run)
	})
	if rerr != nil {
		if t.Task == taskMay {
			return result{}, false, nil
		}
		return result{}, false, rerr
	}
	return result{body: json.RawMessage(seed), task: true}, true, nil
}

// runTask drives t's handler inside task tk as bridgeInput does for a classic client, the answers
// coming from tasks/update, up to maxBridgeRounds rounds; the outcome is the task's final state.
func (s *server) runTask(ctx context.Context, tk *task, t *tool, r *request) {
	for round := 1; ; round++ {
		res, err := s.callInTask(ctx, t, r)
		need := (*inputRequired)(nil)
		if !errors.As(err, &need) {
			s.endTask(ctx, tk, r, res, err)
			return
		}
		if round > maxBridgeRounds {
			s.tasks.finish(tk, taskFailed, nil, newError(codeInternalError, "tools/call: the handler asked for input more than %d times", maxBridgeRounds))
			return
		}
		if _, err := s.mayAsk(r, method{mrtr: true}, need); err != nil { // tools/call may ask
			s.endTask(ctx, tk, r, result{}, err)
			return
		}
		answers := map[string]*inputResponse{}
		maps.Copy(answers, r.input.answers)
		if len(need.requests) > 0 {
			if err := s.tasks.ask(tk, need.requests); err != nil {
				if !errors.Is(err, errTaskDone) {
					s.endTask(ctx, tk, r, result{}, err)
				}
				return // or it ended meanwhile, and the store knows how
			}
			got, err := s.tasks.awaitInput(ctx, tk)
			if err != nil {
				return
			}
			maps.Copy(answers, got) // a key asked again: the new answer wins
		}
		r.input = inputRound{answers: answers, data: need.data}
	}
}

// callInTask runs the handler once, a panic answered -32603 and logged with a ref as dispatch does.
func (s *server) callInTask(ctx context.Context, t *tool, r *request) (res result, err error) {
	defer func() {
		if p := recover(); p != nil {
			ref := s.nextRef()
			s.log.Error("task handler panicked", "ref", ref, "tool", t.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = &rpcError{Code: codeInternalError, Message: "internal error", Data: map[string]int64{"ref": ref}}
		}
	}()
	return s.callTool(ctx, t, r)
}

// endTask records the handler's outcome: a result (isError included) completes the task, any
// error fails it (a non-rpcError as -32603, logged with r's method and trace); an ended context
// means the store ended the task already (cancel, shutdown) or the run limit did.
// [§Task Execution Errors]: SEP-2663, section Task Execution Errors
func (s *server) endTask(ctx context.Context, tk *task, r *request, res result, err error) {
	var rerr *rpcError
	var to *taskTimeout
	switch {
	case err == nil:
		body, berr := taskResultBody(res.body)
		if berr != nil {
			s.tasks.finish(tk, taskFailed, nil, s.peerError(r, berr))
			return
		}
		s.tasks.finish(tk, taskCompleted, body, nil)
	case errors.As(err, &rerr):
		s.tasks.finish(tk, taskFailed, nil, rerr)
	case ctx.Err() != nil && errors.As(context.Cause(ctx), &to):
		s.tasks.finish(tk, taskFailed, nil, to.failure())
	case ctx.Err() != nil:
		s.tasks.finish(tk, taskCancelled, nil, nil)
	default:
		s.tasks.finish(tk, taskFailed, nil, s.peerError(r, err))
	}
}

// taskResultBody returns the CallToolResult as the request would have, resultType included;
// anything but a toolBody or an encoded JSON object is an error, not an empty result hiding it.
// [§Task Polling]: SEP-2663, "the result field containing the final result of the task"
func taskResultBody(body any) ([]byte, error) {
	if tool, ok := body.(*toolBody); ok {
		out := make([]byte, 0, tool.size+32)
		out = append(out, `{"resultType":"complete",`...)
		return append(tool.appendMembers(out), '}'), nil
	}
	raw, ok := body.(json.RawMessage)
	inner := bytes.TrimSpace(raw)
	if !ok || len(inner) < 2 || inner[0] != '{' {
		return nil, fmt.Errorf("task result: %T is not an encoded JSON object", body)
	}
	inner = bytes.TrimSpace(inner[1 : len(inner)-1])
	out := make([]byte, 0, len(inner)+32)
	out = append(out, `{"resultType":"complete"`...)
	if len(inner) > 0 {
		out = append(append(out, ','), inner...)
	}
	return append(out, '}'), nil
}

// taskNotFound answers a task id unknown, expired or another principal's, alike.
// [§Protocol Errors]: SEP-2663, "Invalid or nonexistent taskId: -32602"
func taskNotFound(method string) *rpcError {
	return invalidParams("%s: task not found", method)
}

// taskIDParam checks a tasks/* request's declared extension (else -32021), then its string taskId.
// [§Protocol Errors]: SEP-2663, "MUST return this error for non-declaring clients issuing tasks/get, tasks/update, and tasks/cancel"
func taskIDParam(req *request) (string, *rpcError) {
	if !clientCaps(req.meta.capabilities).tasks {
		return "", missingCapabilityError([]string{capabilityTasks})
	}
	raw := req.param("taskId")
	if raw == nil {
		return "", invalidParams("invalid params: taskId is required")
	}
	id, ok := jsonString(raw)
	if !ok {
		return "", invalidParams("invalid params: taskId must be a string")
	}
	if id == "" || len(id) > maxTaskIDBytes {
		return "", taskNotFound(req.method)
	}
	return id, nil
}

// handleTasksGet answers tasks/get with the task's state (DetailedTask).
// [§Task Polling]: SEP-2663, section Task Polling
func (s *server) handleTasksGet(ctx context.Context, req *request) (result, error) {
	id, rerr := taskIDParam(req)
	if rerr != nil {
		return result{}, rerr
	}
	body, _, err := s.tasks.get(id, req.caller.binding())
	return result{body: body}, err // answer reads no result beside an error
}

// handleTasksUpdate answers tasks/update once taskStore.update applied it.
// [§Task Update Requests]: SEP-2663, section Task Update Requests
func (s *server) handleTasksUpdate(ctx context.Context, req *request) (result, error) {
	id, rerr := taskIDParam(req)
	if rerr != nil {
		return result{}, rerr
	}
	raw := req.param("inputResponses")
	switch {
	case raw == nil:
		return result{}, invalidParams("invalid params: inputResponses is required")
	case jsonKind(raw) != '{':
		return result{}, invalidParams("invalid params: inputResponses must be an object")
	}
	return result{}, s.tasks.update(id, req.caller.binding(), raw)
}

// handleTasksCancel answers tasks/cancel, for a finished task too.
// [§Task Cancellation]: SEP-2663, section Task Cancellation
func (s *server) handleTasksCancel(ctx context.Context, req *request) (result, error) {
	id, rerr := taskIDParam(req)
	if rerr != nil {
		return result{}, rerr
	}
	return result{}, s.tasks.cancelTask(id, req.caller.binding())
}

// publishTask tells the listens watching task id that its state changed.
func (s *server) publishTask(id string) {
	s.subs.publish(notice{kind: noticeTaskStatus, task: id})
}
