// Tests of the tasks extension (tasks.go, tasks_store.go): the test
// registry's tasks part, the rules of the surface over raw lines and raw
// HTTP requests, and the bounds. The whole life of a task, on stdio and
// over HTTP, is in testdata/tasks and testdata/tasks-http.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// live returns the number of tasks st holds and the bytes they hold, read
// together under st's lock.
func (st *taskStore) live() (count int, bytes int64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	_, held := st.bytes.held("")
	return len(st.tasks), held
}

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

// taskLine is a modern request line declaring the extension (and every
// input capability).
func taskLine(id int, method, params string) string {
	return mrtrLine(id, method, params, capsTasksAll)
}

// serveAs serves one line as caller who (principal and share), as a
// transport that authenticated it would, and returns the reply.
func serveAs(tb testing.TB, s *server, who caller, line string) map[string]any {
	tb.Helper()
	msg, rerr := parseMessage([]byte(line))
	if rerr != nil {
		tb.Fatalf("parseMessage(%s) = %v", line, rerr)
	}
	reply, _ := s.serve(tb.Context(), s.newRequest(&msg, nil, framing{}), exchange{caller: who})
	return mustDecode(tb, string(reply))
}

// TestTaskPrincipalBinding checks that a task is its creator's alone:
// another principal gets, from tasks/get, tasks/update and tasks/cancel,
// exactly the answer an unknown id gets, and cannot watch it; the task is
// untouched.
// [§Security Implications]: SEP-2663, "Auth binding"
func TestTaskPrincipalBinding(t *testing.T) {
	synctest.Test(t, testTaskPrincipalBinding)
}

func testTaskPrincipalBinding(t *testing.T) {
	s := newTestServer(t, withRegistry("base", "tasks"))
	alice, bob := caller{principal: "bearer:alice", share: "bearer:alice"}, caller{principal: "bearer:bob", share: "bearer:bob"}
	id := mustTaskID(t, serveAs(t, s, alice, taskLine(1, "tools/call", `"name":"approve","arguments":{"item":"x"}`)))
	synctest.Wait() // the task waits for input
	for _, tt := range []struct{ method, params string }{
		{"tasks/get", `"taskId":%q`},
		{"tasks/update", `"taskId":%q,"inputResponses":{"approve":{"action":"accept","content":{"approve":true}}}`},
		{"tasks/cancel", `"taskId":%q`},
	} {
		got := mustJSON(t, serveAs(t, s, bob, taskLine(2, tt.method, fmt.Sprintf(tt.params, id))))
		unknown := mustJSON(t, serveAs(t, s, bob, taskLine(2, tt.method, fmt.Sprintf(tt.params, "no-such-task"))))
		if got != unknown || !strings.Contains(got, `"code":-32602`) {
			t.Errorf("%s of alice's task as bob = %s, want the unknown-id answer %s", tt.method, got, unknown)
		}
	}
	// Nothing bob sent reached the task.
	task := mustResult(t, serveAs(t, s, alice, taskLine(3, "tasks/get", fmt.Sprintf(`"taskId":%q`, id))))
	if task["status"] != "input_required" {
		t.Errorf("alice's task after bob's attempts: %s, want input_required", mustJSON(t, task))
	}
	// Nor may bob watch it.
	if got := s.tasks.owned([]string{id}, bob.principal); got != nil {
		t.Errorf("owned(alice's task, bob) = %v, want none", got)
	}
}

// TestTaskIDs checks the ids: 128 random bits (26 base32 characters, no
// two alike), after the replica id and a dot with -replica-id, which
// accepts only names safe in a header.
// [§Security Implications]: SEP-2663, "Task ID unguessability"
func TestTaskIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := newScopedID("")
		if len(id) != 26 || strings.Trim(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" || seen[id] {
			t.Fatalf("newScopedID(\"\") = %q: want 26 fresh base32 characters", id)
		}
		seen[id] = true
	}
	skipFlagsOfTheHTTPWing(t, []string{"-replica-id", "r1"})
	s := newTestServer(t, withRegistry("base", "tasks"), withFlags("-replica-id", "r1"))
	if id := mustTaskID(t, mustServeLine(t, s, taskLine(1, "tools/call", `"name":"hold"`))); !strings.HasPrefix(id, "r1.") || len(id) != 29 {
		t.Errorf("task id with -replica-id r1 = %q, want r1. and 26 characters", id)
	}
	for _, tt := range []struct {
		replica string
		ok      bool
	}{
		{"r1", true}, {"eu-west-3", true}, {strings.Repeat("a", 32), true},
		{strings.Repeat("a", 33), false}, {"R1", false}, {"-r1", false}, {"r.1", false}, {"r 1", false},
	} {
		_, err := parseFlags([]string{"-replica-id", tt.replica}, io.Discard, func(string) string { return "" })
		if (err == nil) != tt.ok {
			t.Errorf("-replica-id %q: err = %v, want ok %v", tt.replica, err, tt.ok)
		}
	}
}

// TestTaskCountBounds checks -max-tasks and one client's part of it
// (-client-share) at the limit and past it, with -max-tasks 32: a client
// may hold 8. Past its part of running tasks a taskMust call is refused
// with -31503 naming the part, and a taskMay call runs on the request; a
// client whose part holds finished tasks gives up its oldest finished
// one for each new task, however many it has started (review B, finding
// 2: finished tasks held the part for -task-ttl, and with -client-share
// 100 too); a store full of running tasks refuses everyone, naming
// maxTasks and, when a finished task will expire, retryAfterMs. stdio's
// one client (share "") is bound by the store alone.
func TestTaskCountBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, withRegistry("base", "tasks"), withFlags("-max-tasks", "32"))
		hold, job := taskLine(1, "tools/call", `"name":"hold"`), taskLine(1, "tools/call", `"name":"job","arguments":{"seconds":0,"label":"sync"}`)
		done := taskLine(1, "tools/call", `"name":"big","arguments":{"bytes":1}`)
		get := func(id string) string { return taskLine(2, "tasks/get", fmt.Sprintf(`"taskId":%q`, id)) }
		a, b, c := caller{share: "addr:192.0.2.1"}, caller{share: "addr:192.0.2.2"}, caller{share: "addr:192.0.2.3"}
		busy := func(got map[string]any, member string, want int) bool {
			return jsonPath(got, "error.code") == json.Number("-31503") && jsonPath(got, "error.data."+member) == json.Number(fmt.Sprint(want))
		}
		for range 8 {
			mustTaskID(t, serveAs(t, s, a, hold))
		}
		if got := serveAs(t, s, a, hold); !busy(got, "maxTasksPerClient", 8) {
			t.Errorf("a ninth running task for one client = %s, want -31503 with maxTasksPerClient 8", mustJSON(t, got))
		}
		if got := serveAs(t, s, a, job); jsonPath(got, "result.resultType") != "complete" {
			t.Errorf("a taskMay call past the client's part = %s, want its result on the request", mustJSON(t, got))
		}
		var finished []string
		for range 8 {
			finished = append(finished, mustTaskID(t, serveAs(t, s, b, done)))
			synctest.Wait()
		}
		mustTaskID(t, serveAs(t, s, b, done))
		if got := serveAs(t, s, b, get(finished[0])); jsonPath(got, "error.code") != json.Number("-32602") {
			t.Errorf("the oldest finished task of a client past its part = %s, want it forgotten (-32602)", mustJSON(t, got))
		}
		if got := serveAs(t, s, b, get(finished[1])); jsonPath(got, "result.status") != "completed" {
			t.Errorf("the second oldest finished task = %s, want it kept", mustJSON(t, got))
		}
		for range 32 - 16 {
			mustTaskID(t, serveAs(t, s, caller{}, hold))
		}
		for _, who := range []caller{{}, c} {
			got := serveAs(t, s, who, hold)
			if !busy(got, "maxTasks", 32) || jsonPath(got, "error.data.retryAfterMs") != json.Number(fmt.Sprint(defaultTaskTTL.Milliseconds())) {
				t.Errorf("task 33 (share %q) = %s, want -31503 with maxTasks 32 and the ttl in retryAfterMs", who.share, mustJSON(t, got))
			}
		}
		if n, _ := s.tasks.live(); n != 32 {
			t.Errorf("tasks held = %d, want 32", n)
		}
		one := newTestServer(t, withRegistry("base", "tasks"), withFlags("-max-tasks", "4", "-client-share", "100"))
		for i := range 10 {
			if got := serveAs(t, one, a, done); jsonPath(got, "result.resultType") != "task" {
				t.Fatalf("-client-share 100: task %d of one client = %s, want a task", i+1, mustJSON(t, got))
			}
			synctest.Wait()
		}
	})
}

// testTaskResultOverhead is the size of a completed task's result besides
// its text.
func testTaskResultOverhead(tb testing.TB) int {
	tb.Helper()
	r, err := textResult("").result(version20260728)
	if err != nil {
		tb.Fatal(err)
	}
	body, err := taskResultBody(r.body)
	if err != nil {
		tb.Fatal(err)
	}
	return len(body)
}

// TestTaskByteBounds checks the byte budgets at the limit and past it: a
// result as large as the per-task budget is kept, one byte more fails the
// task (-32603); a result that would pass the total budget fails it with
// -31503; answers that would pass the task's budget are -32602 and leave
// the task waiting; input requests count for their round only, so rounds
// that each fit the budget never add up past it (review B, finding 8:
// the third round of 1.5 KB asks failed a 4 KB task).
func TestTaskByteBounds(t *testing.T) {
	const perTask, total = 4096, 3 * (4096 + taskRecordBytes)
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, withRegistry("base", "tasks"), withConfig(func(c *config) {
			c.tasks.maxBytes, c.tasks.maxTotalBytes = perTask, total
		}))
		// settled creates a task and returns its state once its handler
		// has returned or waits for input.
		settled := func(params string) (string, map[string]any) {
			t.Helper()
			id := mustTaskID(t, mustServeLine(t, s, taskLine(1, "tools/call", params)))
			synctest.Wait()
			return id, mustResult(t, mustServeLine(t, s, taskLine(2, "tasks/get", fmt.Sprintf(`"taskId":%q`, id))))
		}
		n := perTask - testTaskResultOverhead(t)
		for _, tt := range []struct {
			bytes       int
			status      string
			code, words string
		}{
			{n, "completed", "", ""},
			{n + 1, "failed", "-32603", "what one task may hold, 4096 bytes"},
			{n, "completed", "", ""},
			// The budget is full: the oldest finished task gives way
			// (TestTaskByteShare).
			{n, "completed", "", ""},
		} {
			_, task := settled(fmt.Sprintf(`"name":"big","arguments":{"bytes":%d}`, tt.bytes))
			code, msg := fmt.Sprint(jsonPath(task, "error.code")), fmt.Sprint(jsonPath(task, "error.message"))
			if task["status"] != tt.status || (tt.code != "" && (code != tt.code || !strings.Contains(msg, tt.words))) {
				t.Errorf("a result of %d bytes: %s %s %q, want %s %s %q", tt.bytes, task["status"], code, msg, tt.status, tt.code, tt.words)
			}
		}
		if _, held := s.tasks.live(); held > total {
			t.Errorf("tasks hold %d bytes, over the budget of %d", held, total)
		}
		id, _ := settled(`"name":"two_questions"`)
		huge := taskLine(3, "tasks/update", fmt.Sprintf(`"taskId":%q,"inputResponses":{"name":{"action":"accept","content":{"name":%q}}}`, id, strings.Repeat("n", perTask)))
		if got := mustServeLine(t, s, huge); fmt.Sprint(jsonPath(got, "error.code")) != "-32602" {
			t.Errorf("an answer past the task's budget = %s, want -32602", mustJSON(t, got))
		}
		task := mustResult(t, mustServeLine(t, s, taskLine(4, "tasks/get", fmt.Sprintf(`"taskId":%q`, id))))
		if task["status"] != "input_required" || jsonPath(task, "inputRequests.name") == nil {
			t.Errorf("the task after a refused update: %s, want still waiting for name", mustJSON(t, task))
		}
		s.addTool(tool{Name: "asker", Task: taskMust, Call: func(ctx context.Context, req *request) (*toolResult, error) {
			if req.Input("ok").Bool("ok") {
				return textResult("done"), nil
			}
			return nil, req.NeedInput(elicitForm("ok", strings.Repeat("?", perTask*3/8), `{"type":"object","properties":{"ok":{"type":"boolean"}}}`))
		}})
		id, task = settled(`"name":"asker"`)
		for round := 2; round <= 4; round++ {
			key := ""
			for k := range task["inputRequests"].(map[string]any) {
				key = k
			}
			answer := fmt.Sprintf(`"taskId":%q,"inputResponses":{%q:{"action":"accept","content":{"ok":%t}}}`, id, key, round == 4)
			mustServeLine(t, s, taskLine(5, "tasks/update", answer))
			synctest.Wait()
			task = mustResult(t, mustServeLine(t, s, taskLine(6, "tasks/get", fmt.Sprintf(`"taskId":%q`, id))))
			if want := map[bool]string{false: "input_required", true: "completed"}[round == 4]; task["status"] != want {
				t.Fatalf("round %d of %d-byte asks: %s, want %s", round, perTask*3/8, mustJSON(t, task), want)
			}
		}
	})
}

// TestTaskFloodBoundedMemory is the attack of a client that starts tasks
// far faster than it polls them: 2,000 calls each leaving a 60 kB result,
// a poll every 50 calls, the clock moving past -task-ttl every 500. The
// store never holds more than -max-tasks tasks nor more than its byte
// budget (1 MiB here: 17 results): the client's oldest finished task
// gives way to each new one (takeBytesLocked), so every call makes a
// task; and the heap after the flood is within twice the byte budget of
// before (the count bound alone would let 3.8 MB stay, no bound 120 MB).
func TestTaskFloodBoundedMemory(t *testing.T) {
	synctest.Test(t, testTaskFloodBoundedMemory)
}

func testTaskFloodBoundedMemory(t *testing.T) {
	const (
		maxTasks = 64
		total    = 1 << 20
		calls    = 2000
		window   = 500
		size     = 60000
	)
	var clock atomic.Int64
	clock.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	s := newTestServer(t, withRegistry("base", "tasks"), withFlags("-max-tasks", fmt.Sprint(maxTasks), "-task-ttl", "1m"),
		withClock(func() time.Time { return time.Unix(0, clock.Load()) }),
		withConfig(func(c *config) { c.tasks.maxBytes, c.tasks.maxTotalBytes = 64<<10, total }))
	// Two collections: the first moves sync.Pool buffers to the victim
	// cache, the second frees them.
	runtime.GC()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var created, refused, polled int
	var ids []string
	perWindow := make([]int, calls/window)
	line := taskLine(1, "tools/call", fmt.Sprintf(`"name":"big","arguments":{"bytes":%d}`, size))
	for i := range calls {
		if i > 0 && i%window == 0 {
			clock.Add(int64(2 * time.Minute)) // every finished task expires
		}
		got := serveAs(t, s, caller{}, line)
		switch {
		case jsonPath(got, "result.resultType") == "task":
			created++
			perWindow[i/window]++
			ids = append(ids, jsonPath(got, "result.taskId").(string))
		case jsonPath(got, "error.code") == json.Number("-31503"):
			refused++
		default:
			t.Fatalf("call %d = %s, want a task or -31503", i, mustJSON(t, got))
		}
		synctest.Wait() // the task's handler has returned
		if i%50 == 49 && len(ids) > 0 {
			serveAs(t, s, caller{}, taskLine(2, "tasks/get", fmt.Sprintf(`"taskId":%q`, ids[0]))) // the slow poller
			ids, polled = ids[1:], polled+1
		}
		n, held := s.tasks.live()
		if n > maxTasks || held > total {
			t.Fatalf("after call %d the store holds %d tasks and %d bytes, bounds %d and %d", i, n, held, maxTasks, total)
		}
		// baremcp_tasks_held reads the count: it agrees with the tasks held, expiry included.
		if _, counted := s.tasks.count.held(""); counted != int64(n) {
			t.Fatalf("after call %d the store counts %d tasks and holds %d", i, counted, n)
		}
	}
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d calls: %d tasks created (%v per window), %d refused, %d polls; heap %+d bytes", calls, created, perWindow, refused, polled, grown)
	for _, n := range perWindow {
		if n != window {
			t.Errorf("tasks made per window of %d calls: %v, want every call a task", window, perWindow)
			break
		}
	}
	if grown > 2*total {
		t.Errorf("heap grew by %d bytes over the flood, want at most %d", grown, 2*total)
	}
}

// TestTaskShutdown checks what shutdown does to tasks (taskStore.stop,
// which run and serveHTTP call): every task still running or waiting for
// input fails at once ("server shutting down"), so a poller sees a final
// state; their handlers end (wait returns); no task is created any more:
// a taskMay call runs on the request, a taskMust call is refused.
func TestTaskShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, withRegistry("base", "tasks"))
		working := mustTaskID(t, mustServeLine(t, s, taskLine(1, "tools/call", `"name":"hold"`)))
		waiting := mustTaskID(t, mustServeLine(t, s, taskLine(2, "tools/call", `"name":"approve","arguments":{"item":"x"}`)))
		done := mustTaskID(t, mustServeLine(t, s, taskLine(3, "tools/call", `"name":"job","arguments":{"seconds":0}`)))
		synctest.Wait()
		s.tasks.stop()
		s.tasks.wait() // in the bubble: a handler left running would deadlock it
		for _, tt := range []struct{ id, status, message string }{
			{working, "failed", "server shutting down"},
			{waiting, "failed", "server shutting down"},
			{done, "completed", "<nil>"},
		} {
			task := mustResult(t, mustServeLine(t, s, taskLine(4, "tasks/get", fmt.Sprintf(`"taskId":%q`, tt.id))))
			if task["status"] != tt.status || fmt.Sprint(jsonPath(task, "error.message")) != tt.message {
				t.Errorf("after shutdown: %s, want %s with error %q", mustJSON(t, task), tt.status, tt.message)
			}
		}
		if got := mustServeLine(t, s, taskLine(5, "tools/call", `"name":"job","arguments":{"seconds":0,"label":"late"}`)); jsonPath(got, "result.resultType") != "complete" {
			t.Errorf("a taskMay call during shutdown = %s, want its result on the request", mustJSON(t, got))
		}
		if got := mustServeLine(t, s, taskLine(6, "tools/call", `"name":"hold"`)); fmt.Sprint(jsonPath(got, "error.code")) != "-31503" {
			t.Errorf("a taskMust call during shutdown = %s, want -31503", mustJSON(t, got))
		}
	})
}

// TestTaskErrorBodies checks the errors a task may end with: every error
// the server writes itself is short (it costs nothing beyond the task's
// record, so ending a task never passes the total budget), and a
// handler's error too large for a task is replaced by a short one, with
// statusMessage cut to maxTaskStatusMessage.
func TestTaskErrorBodies(t *testing.T) {
	huge := &taskStore{cfg: taskConfig{maxBytes: 1 << 62}, bytes: newShareLimit(1<<62, 1<<62)}
	for _, e := range []*rpcError{
		(&taskTimeout{after: 100000 * time.Hour}).failure(),
		{Code: codeInternalError, Message: errTaskShutdown.Error()},
		huge.tooLarge(taskLimitTask, "tools/call: the task's result"),
		huge.tooLarge(taskLimitShare, "tools/call: the task's result"),
		huge.tooLarge(taskLimitTotal, "tools/call: the task's result"),
		{Code: codeInternalError, Message: "internal error", Data: map[string]int64{"ref": 1 << 62}},
	} {
		if body := marshalError(e); len(body) > taskShortErrorBytes {
			t.Errorf("%s is %d bytes, more than taskShortErrorBytes (%d)", body, len(body), taskShortErrorBytes)
		}
	}
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, withConfig(func(c *config) { c.tasks.maxBytes = 1024 }))
		for _, tt := range []struct {
			message, wantError string
			wantStatusBytes    int
		}{
			// 300 bytes: kept as the error, cut in statusMessage.
			{strings.Repeat("é", 150), strings.Repeat("é", 150), maxTaskStatusMessage + len("…")},
			// 4000 bytes: more than the task may hold, replaced.
			{strings.Repeat("é", 2000), "tools/call: the task's error would pass what one task may hold, 1024 bytes", len("tools/call: the task's error would pass what one task may hold, 1024 bytes")},
		} {
			tk, _, rerr := s.tasks.create(caller{}, 0, func(ctx context.Context, tk *task) {
				s.tasks.finish(tk, taskFailed, nil, newError(codeInternalError, "%s", tt.message))
			})
			if rerr != nil {
				t.Fatal(rerr)
			}
			synctest.Wait()
			body, _, _ := s.tasks.get(tk.id, "")
			task := mustDecode(t, string(body.joinObject()))
			msg, _ := task["statusMessage"].(string)
			if jsonPath(task, "error.message") != tt.wantError || len(msg) != tt.wantStatusBytes {
				t.Errorf("a task failing with a %d-byte error: %s", len(tt.message), body)
			}
		}
		if _, held := s.tasks.live(); held != 2*taskRecordBytes+int64(len(marshalError(newError(codeInternalError, "%s", strings.Repeat("é", 150))))) {
			t.Errorf("the two hold %d bytes, want the records and the long error", held)
		}
	})
}

// TestTaskResultBody: a task's result is the call's encoded object with
// its resultType first; anything else is an error, not an empty result
// (review B, finding 13).
func TestTaskResultBody(t *testing.T) {
	for _, tt := range []struct {
		name string
		body any
		want string // "" wants an error
	}{
		{"an encoded object", json.RawMessage(`{"content":[]}`), `{"resultType":"complete","content":[]}`},
		{"an empty object", json.RawMessage(` {} `), `{"resultType":"complete"}`},
		{"not encoded", map[string]any{"content": []any{}}, ""},
		{"not an object", json.RawMessage(`[]`), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := taskResultBody(tt.body)
			if string(got) != tt.want || (err == nil) != (tt.want != "") {
				t.Errorf("taskResultBody(%v) = %s, %v; want %q", tt.body, got, err, tt.want)
			}
		})
	}
}

// TestTaskGetNoCopy checks that a tasks/get answer shares the task's
// stored values instead of copying them, for each status that has one: a
// completed task's result and a waiting task's input request params are
// pieces of the reply of their own (replyParts), the very bytes the store
// holds; and that the pieces, joined, are the answer serve gives.
func TestTaskGetNoCopy(t *testing.T) {
	for _, tt := range []struct {
		name, call string
		stored     func(tk *task) []byte
	}{
		{"result", `"name":"big","arguments":{"bytes":100000}`, func(tk *task) []byte { return tk.result }},
		{"input request", `"name":"approve","arguments":{"item":"` + strings.Repeat("i", 100000) + `"}`, func(tk *task) []byte { return tk.asks[0].q.params }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newTestServer(t, withRegistry("base", "tasks"))
				id := mustTaskID(t, serveAs(t, s, caller{}, taskLine(1, "tools/call", tt.call)))
				synctest.Wait()
				s.tasks.mu.Lock()
				stored := tt.stored(s.tasks.tasks[id])
				s.tasks.mu.Unlock()
				line := taskLine(2, "tasks/get", fmt.Sprintf(`"taskId":%q`, id))
				msg, _ := parseMessage([]byte(line))
				parts := s.serveReply(t.Context(), s.newRequest(&msg, nil, framing{}), exchange{}).parts
				shared := false
				for _, p := range parts {
					shared = shared || len(p) > 0 && &p[0] == &stored[0]
				}
				if !shared || len(parts) < 3 {
					t.Errorf("tasks/get answered in %d pieces, none of them the stored %d bytes", len(parts), len(stored))
				}
				joined := serveAs(t, s, caller{}, line)
				if !sameJSON(t, string(parts.join()), mustJSON(t, joined)) {
					t.Errorf("the pieces joined differ from serve's answer")
				}
				s.tasks.shutdown()
			})
		})
	}
}

// TestTaskByteShare checks the task bytes' share per client: a client
// whose share is full gives up its oldest finished task for a new one; a
// client whose share is full of tasks still waiting is refused -31503
// naming its share (maxTaskBytesPerClient); a store full of other
// clients' tasks refuses naming the total alone; and the clients' tasks
// never hold more than the budget.
func TestTaskByteShare(t *testing.T) {
	const perTask = 4096
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, withRegistry("base", "tasks"), withConfig(func(c *config) {
			c.tasks.maxBytes, c.tasks.maxTotalBytes = perTask, 4*(perTask+taskRecordBytes)
		}))
		full := fmt.Sprintf(`"name":"big","arguments":{"bytes":%d}`, perTask-testTaskResultOverhead(t))
		a, b, c, d, e := caller{share: "a"}, caller{share: "b"}, caller{share: "c"}, caller{share: "d"}, caller{share: "e"}
		start := func(who caller, params string) (string, map[string]any) {
			t.Helper()
			got := serveAs(t, s, who, taskLine(1, "tools/call", params))
			synctest.Wait()
			id, _ := jsonPath(got, "result.taskId").(string)
			return id, got
		}
		known := func(who caller, id string) bool {
			return jsonPath(serveAs(t, s, who, taskLine(2, "tasks/get", fmt.Sprintf(`"taskId":%q`, id))), "result.taskId") == id
		}
		first, _ := start(a, full)
		second, _ := start(a, full)
		if known(a, first) || !known(a, second) {
			t.Errorf("a's second full task: the first known %v, the second %v; want the first forgotten to make room", known(a, first), known(a, second))
		}
		// failure is the error a task of who failed with, nil if none.
		failure := func(who caller, id string) any {
			return jsonPath(serveAs(t, s, who, taskLine(2, "tasks/get", fmt.Sprintf(`"taskId":%q`, id))), "result.error")
		}
		waiting, _ := start(a, `"name":"approve","arguments":{"item":"`+strings.Repeat("i", 1200)+`"}`)
		id, _ := start(a, full)
		if f := failure(a, id); jsonPath(f, "code") != json.Number("-31503") || jsonPath(f, "data.maxTaskBytesPerClient") == nil {
			t.Errorf("a full result with a's share held by a waiting task failed with %s, want -31503 naming maxTaskBytesPerClient", mustJSON(t, f))
		}
		if !known(a, waiting) {
			t.Errorf("a's waiting task was forgotten")
		}
		for _, who := range []caller{b, c, d} {
			start(who, full)
		}
		id, _ = start(e, full)
		if f := failure(e, id); jsonPath(f, "code") != json.Number("-31503") || jsonPath(f, "data.maxTaskBytesTotal") == nil || jsonPath(f, "data.maxTaskBytesPerClient") != nil {
			t.Errorf("e's first full result in a store full of others' failed with %s, want -31503 naming maxTaskBytesTotal alone", mustJSON(t, f))
		}
		if _, held := s.tasks.live(); held > s.tasks.bytes.total {
			t.Errorf("tasks hold %d bytes, over the budget of %d", held, s.tasks.bytes.total)
		}
		s.tasks.shutdown()
	})
}

// TestTaskStoreSurvivesPanic: a change that panics under the store's lock (recovered by the
// dispatcher as -32603) leaves the lock free, so every later task request is still served.
func TestTaskStoreSurvivesPanic(t *testing.T) {
	st := newTaskStore(taskConfig{}, "", 100, time.Now, func(string) {})
	tk, _, rerr := st.create(caller{}, 10, func(ctx context.Context, _ *task) { <-ctx.Done() })
	if rerr != nil {
		t.Fatalf("create = %v", rerr)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("nothing panicked (the change did not run?): the lock was never at risk")
			}
		}()
		_ = st.withTask(tk.id, caller{}.binding(), methodTasksGet, func(*task, time.Time) (bool, error) {
			panic("a change that panics")
		})
	}()
	done := make(chan error, 1)
	go func() {
		_, _, err := st.get(tk.id, caller{}.binding())
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("get after a panic = %v, want the task", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("get after a panic still waits for the store's lock") // st is left wedged
	}
	st.shutdown()
}
