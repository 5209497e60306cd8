//go:build !stdio

// Tests of tasks.go that need the HTTP wing (absent from the stdio build).

package main

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestTaskHTTPRules sends one raw HTTP request per rule of the tasks
// extension on Streamable HTTP: the Mcp-Name header mirrors params.taskId
// on tasks/get, tasks/update and tasks/cancel (-32020 otherwise, checked
// before the capability and the id), and the status of each answer.
func TestTaskHTTPRules(t *testing.T) {
	ts := newTestHTTP(t, newTestServer(t, withRegistry("base", "tasks")), nil)
	created := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", taskLine(1, "tools/call", `"name":"hold"`), nil))
	id := mustTaskID(t, mustDecode(t, string(created.body)))
	get := taskLine(2, "tasks/get", fmt.Sprintf(`"taskId":%q`, id))
	b64 := "Mcp-Name: =?base64?" + base64.StdEncoding.EncodeToString([]byte(id)) + "?="
	for _, tt := range []struct {
		name   string
		body   string
		edits  []string
		status int
		code   int // 0: a result
	}{
		{"tools/call answers CreateTaskResult as JSON", taskLine(3, "tools/call", `"name":"job","arguments":{"seconds":60}`), nil, 200, 0},
		{"Mcp-Name equal to taskId", get, nil, 200, 0},
		{"Mcp-Name in base64", get, []string{b64}, 200, 0},
		{"Mcp-Name missing is -32020", get, []string{"-Mcp-Name"}, 400, codeHeaderMismatch},
		{"Mcp-Name of another task is -32020", get, []string{"Mcp-Name: sep-2663-wrong-task-id"}, 400, codeHeaderMismatch},
		{"Mcp-Name checked on tasks/update", taskLine(4, "tasks/update", fmt.Sprintf(`"taskId":%q,"inputResponses":{}`, id)), []string{"Mcp-Name: x"}, 400, codeHeaderMismatch},
		{"Mcp-Name checked on tasks/cancel", taskLine(5, "tasks/cancel", fmt.Sprintf(`"taskId":%q`, id)), []string{"Mcp-Name: x"}, 400, codeHeaderMismatch},
		{"Mcp-Name checked before the capability", mrtrLine(6, "tasks/get", `"taskId":"gate-test"`, capsNone), []string{"Mcp-Name: other"}, 400, codeHeaderMismatch},
		{"Mcp-Method tasks/get on a tools/call is -32020", taskLine(7, "tools/call", `"name":"echo","arguments":{"message":"x"}`), []string{"Mcp-Method: tasks/get"}, 400, codeHeaderMismatch},
		{"undeclared is 400 -32021", mrtrLine(8, "tasks/get", fmt.Sprintf(`"taskId":%q`, id), capsNone), nil, 400, codeMissingCapability},
		{"undeclared must-task tool is 400 -32021", mrtrLine(9, "tools/call", `"name":"hold"`, capsNone), nil, 400, codeMissingCapability},
		{"unknown id is 400 -32602", taskLine(10, "tasks/get", `"taskId":"tasks-conformance-nonexistent-12345"`), nil, 400, codeInvalidParams},
		{"tasks/result is 404 -32601", taskLine(11, "tasks/result", fmt.Sprintf(`"taskId":%q`, id)), nil, 404, codeMethodNotFound},
		{"tasks/list is 404 -32601", taskLine(12, "tasks/list", ""), nil, 404, codeMethodNotFound},
		{"tasks/cancel acknowledged", taskLine(13, "tasks/cancel", fmt.Sprintf(`"taskId":%q`, id)), nil, 200, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := mustDo(t, ts.Client(), newTestHTTPRequest(t, t.Context(), ts, "", tt.body, tt.edits))
			if got.status != tt.status || got.code != tt.code {
				t.Errorf("POST %s %v = %d %d, want %d %d\n%s", tt.body, tt.edits, got.status, got.code, tt.status, tt.code, got.body)
			}
			if ct := got.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
		})
	}
	full := newTestHTTP(t, newTestServer(t, withRegistry("base", "tasks"), withFlags("-max-tasks", "1")), nil)
	hold := taskLine(1, "tools/call", `"name":"hold"`)
	mustDo(t, full.Client(), newTestHTTPRequest(t, t.Context(), full, "", hold, nil))
	if got := mustDo(t, full.Client(), newTestHTTPRequest(t, t.Context(), full, "", hold, nil)); got.status != 503 || got.code != codeServerBusy || got.header.Get("Retry-After") != "1" {
		t.Errorf("a task past -max-tasks = %d %d Retry-After %q, want 503 %d 1\n%s", got.status, got.code, got.header.Get("Retry-After"), codeServerBusy, got.body)
	}
}

// TestTaskShutdownHTTP checks the order of serveHTTP's shutdown: a
// subscriptions/listen watching a running task gets its final state
// (failed, "server shutting down") before its graceful closure, and
// serveHTTP returns once the task's handler has ended.
func TestTaskShutdownHTTP(t *testing.T) {
	s := newTestServer(t, withRegistry("base", "tasks"))
	ts, stop, served := mustServeHTTP(t, s, &httpConfig{maxBody: defaultMaxBodyBytes, drainTimeout: time.Minute})
	created := mustDo(t, http.DefaultClient, newTestHTTPRequest(t, t.Context(), ts, "", taskLine(1, "tools/call", `"name":"hold"`), nil))
	id := mustTaskID(t, mustDecode(t, string(created.body)))
	resp, err := http.DefaultClient.Do(newTestHTTPRequest(t, t.Context(), ts, "",
		taskLine(2, "subscriptions/listen", fmt.Sprintf(`"notifications":{"taskIds":[%q]}`, id)), nil))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan string, 16)
	go func() {
		defer close(events)
		r := bufio.NewReader(resp.Body)
		for {
			ev, ok := nextSSE(r)
			if !ok {
				return
			}
			events <- ev
		}
	}()
	for _, want := range []string{"notifications/subscriptions/acknowledged", `"status":"working"`} {
		if ev := mustReceive(t, events); !strings.Contains(ev, want) {
			t.Fatalf("listen: got %s, want %s", ev, want)
		}
	}
	stop()
	for _, want := range []string{`"status":"failed"`, `"id":2,"result"`} {
		if ev := mustReceive(t, events); !strings.Contains(ev, want) {
			t.Errorf("listen during shutdown: got %s, want %s", ev, want)
		}
	}
	if err := mustReceive(t, served); err != nil {
		t.Errorf("serveHTTP = %v, want nil", err)
	}
	if n, _ := s.tasks.live(); n != 1 {
		t.Errorf("tasks held after shutdown = %d, want the failed one", n)
	}
}
