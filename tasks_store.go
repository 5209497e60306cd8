// The task store: every task this process holds, in memory, bounded in count and bytes (in
// total and per caller share), bound to its creator (caller.binding), kept for its ttlMs once
// ended, and ended at shutdown (docs/GAPS.md, "Tasks"); tasks.go serves the protocol over it.
//
// Spec: SEP-2663 (io.modelcontextprotocol/tasks), ../shared/spec/seps/2663-tasks-extension.md.

package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults and fixed limits of the task store; docs/RELIABILITY.md lists each with what happens
// past it ("Limits", "Tasks: the worst case").
const (
	// defaultTaskTTL keeps an outcome for a reconnecting client (-task-ttl); pollers see it sooner.
	defaultTaskTTL = 10 * time.Minute
	// defaultTaskTimeout bounds a run with its input rounds (-task-timeout): tasks outlast requests.
	defaultTaskTimeout = time.Hour
	// defaultMaxTasks bounds the tasks held, running or finished and not expired (-max-tasks);
	// one client holds its share (limits_share.go).
	defaultMaxTasks = 1024
	// defaultMaxTaskBytes bounds what one task holds (arguments, input requests and answers,
	// result): the largest message, so what fits a request fits a task.
	defaultMaxTaskBytes = 4 << 20
	// defaultMaxTaskBytesTotal bounds what all tasks hold together.
	defaultMaxTaskBytesTotal = 64 << 20
	// taskRecordBytes is a task's cost beyond its contents (record, id, timestamps, a short error).
	taskRecordBytes = 512
	// taskShortErrorBytes bounds an error the record's cost covers; the server's own are shorter.
	taskShortErrorBytes = 256
	// maxTaskStatusMessage bounds statusMessage, which repeats a failed task's error message.
	maxTaskStatusMessage = 200
	// maxTaskIDBytes bounds an id looked up; issued ones are at most 59 (32-byte replica id, dot, 26).
	maxTaskIDBytes = 64
	// taskPollInterval is every task's pollIntervalMs: advisory, faster polls are served.
	taskPollInterval = time.Second
)

// taskConfig is the task store's settings, from the command line.
type taskConfig struct {
	ttl      time.Duration // -task-ttl: how long a finished task is kept
	timeout  time.Duration // -task-timeout: how long a task may run
	maxTasks int           // -max-tasks: tasks held at once
	// one task's bytes and all tasks' (0: the defaults); tests lower them
	maxBytes, maxTotalBytes int64
}

// taskFlags registers the task flags on fs, landing in c.
func taskFlags(fs *flag.FlagSet, c *taskConfig) {
	fs.DurationVar(&c.ttl, "task-ttl", defaultTaskTTL, "keep a finished task's result for `duration`")
	fs.DurationVar(&c.timeout, "task-timeout", defaultTaskTimeout, "fail a task still running after `duration`")
	fs.IntVar(&c.maxTasks, "max-tasks", defaultMaxTasks, "tasks held at once, running or finished (`n`); one client may hold its -client-share of them")
}

// check reports a task flag that cannot work.
func (c *taskConfig) check() error {
	if c.ttl <= 0 || c.timeout <= 0 {
		return errors.New("-task-ttl and -task-timeout must be positive")
	}
	if c.maxTasks <= 0 {
		return errors.New("-max-tasks must be positive")
	}
	return nil
}

// taskStatus is a task's state.
// [§Task Status]: SEP-2663, section Task Status
type taskStatus uint8

// The five statuses; the last three are terminal, never changing again (docs/GAPS.md, "Tasks").
const (
	taskWorking taskStatus = iota
	taskInputRequired
	taskCompleted
	taskFailed
	taskCancelled
)

// taskStatusNames spells the statuses on the wire, indexed by taskStatus.
var taskStatusNames = [...]string{"working", "input_required", "completed", "failed", "cancelled"}

// terminal reports whether st is final.
func (st taskStatus) terminal() bool { return st >= taskCompleted }

// task is one task. The fields above status are set at creation; the rest are guarded by the
// store's mu. The runner goroutine (tasks.go) owns the handler's request; the store the record.
type task struct {
	id        string
	owner     string // caller.binding of the creating request: only it may see the task
	share     string // caller.share: whose part of the limits it takes
	createdAt time.Time
	cancel    context.CancelCauseFunc // ends the run's context, with the cause
	wake      chan struct{}           // capacity 1: the last outstanding input was answered

	status    taskStatus
	message   string                    // statusMessage
	updatedAt time.Time                 // lastUpdatedAt
	expiresAt time.Time                 // zero until terminal
	ended     uint64                    // the store's ends when it ended (oldestFinishedLocked)
	asks      []taskAsk                 // outstanding input requests, in the order asked
	asksSize  int64                     // the bytes of this round's asks, within size
	wires     map[string]bool           // every key ever put on the wire for this task
	answers   map[string]*inputResponse // this round's answers, by the handler's key
	result    []byte                    // completed: the CallToolResult
	errBody   []byte                    // failed: the JSON-RPC error object
	size      int64                     // bytes counted against the budgets
}

// taskAsk is an outstanding input request: the handler's, and its wire key, unique over the task.
type taskAsk struct {
	wire string
	q    inputRequest
}

// taskStore holds the tasks of one server; safe for concurrent use.
type taskStore struct {
	cfg      taskConfig
	replica  string // -replica-id: the prefix of every task id ("" none)
	now      func() time.Time
	changed  func(id string) // called, outside mu, after a task's state changed
	base     context.Context // parent of every run; cancelled by shutdown
	stopBase context.CancelFunc
	runners  sync.WaitGroup // one per task goroutine
	// count (of tasks) and bytes (their task.size) change only under mu: they agree with tasks.
	count, bytes *shareLimit

	mu     sync.Mutex       // guards tasks, ends, closed, the use of count and bytes, and the guarded fields of every task
	tasks  map[string]*task // by id
	ends   uint64           // tasks ended so far: orders them by their end
	closed bool             // shutdown began: no new task
}

// newTaskStore returns an empty store: ids start with replica, a caller share holds clientShare
// percent, now (nil: time.Now) is its clock, and changed publishes a task's new state.
func newTaskStore(cfg taskConfig, replica string, clientShare int, now func() time.Time, changed func(id string)) *taskStore {
	// Zero is unset; the flags cannot be negative (taskConfig.check).
	cfg.ttl = cmp.Or(cfg.ttl, defaultTaskTTL)
	cfg.timeout = cmp.Or(cfg.timeout, defaultTaskTimeout)
	cfg.maxTasks = cmp.Or(cfg.maxTasks, defaultMaxTasks)
	cfg.maxBytes = cmp.Or(cfg.maxBytes, defaultMaxTaskBytes)
	cfg.maxTotalBytes = cmp.Or(cfg.maxTotalBytes, defaultMaxTaskBytesTotal)
	if now == nil {
		now = time.Now
	}
	base, stop := context.WithCancel(context.Background())
	n := int64(cfg.maxTasks)
	largest := cfg.maxBytes + taskRecordBytes // a client's part holds one task at least
	return &taskStore{cfg: cfg, replica: replica, now: now, changed: changed,
		count: newShareLimit(n, shareOf(n, clientShare, shareFloor)),
		bytes: newShareLimit(cfg.maxTotalBytes, shareOf(cfg.maxTotalBytes, clientShare, largest)),
		base:  base, stopBase: stop, tasks: map[string]*task{}}
}

// Why a task's context ended, besides its run limit (taskTimeout).
var (
	errTaskCancelled = errors.New("task cancelled by the client")
	errTaskShutdown  = errors.New("server shutting down")
	errTaskDone      = errors.New("task run ended")
	errTaskExpired   = errors.New("task expired")
)

// taskTimeout is the cause of a run context that reached -task-timeout.
type taskTimeout struct{ after time.Duration }

func (e *taskTimeout) Error() string { return fmt.Sprintf("task timed out after %v", e.after) }

// failure is the error a task past its run limit fails with.
func (e *taskTimeout) failure() *rpcError {
	return &rpcError{Code: codeInternalError, Message: "tools/call: " + e.Error(), Data: map[string]int64{"timeoutMs": e.after.Milliseconds()}}
}

// create stores a working task of c holding size bytes, starts run on a goroutine, its context
// bounded by -task-timeout, and returns the task and its seed (CreateTaskResult), or the refusal.
// [§Task Creation]: SEP-2663, "MUST NOT return CreateTaskResult until the task is durably created"
func (st *taskStore) create(c caller, size int64, run func(ctx context.Context, t *task)) (*task, []byte, *rpcError) {
	// [§Security Implications]: SEP-2663, "Task ID unguessability"
	id := newScopedID(st.replica)
	now := st.now()
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return nil, nil, newError(codeServerBusy, "server busy: shutting down, no new task")
	}
	st.sweepLocked(now)
	if size > st.cfg.maxBytes {
		return nil, nil, st.tooLarge(taskLimitTask, "tools/call: the task's arguments")
	}
	size += taskRecordBytes
	if rerr := st.roomLocked(c.share, now); rerr != nil {
		return nil, nil, rerr
	}
	if limit := st.takeBytesLocked(c.share, size); limit != taskLimitNone {
		return nil, nil, st.tooLarge(limit, "tools/call: the task's arguments")
	}
	st.count.take(c.share, 1) // roomLocked made room
	runCtx, cancel := context.WithCancelCause(st.base)
	runCtx, stopTimer := context.WithTimeoutCause(runCtx, st.cfg.timeout, &taskTimeout{after: st.cfg.timeout})
	t := &task{id: id, owner: c.binding(), share: c.share, createdAt: now, updatedAt: now,
		wake: make(chan struct{}, 1), wires: map[string]bool{}, size: size, message: "the task is running"}
	t.cancel = func(cause error) { cancel(cause); stopTimer() }
	st.tasks[id] = t
	seed := st.encodeLocked(t, false).joinObject()
	// A run past -task-timeout fails even if its handler ignores its context; the watch, like the
	// run, is over once wait returns.
	watched := make(chan struct{})
	stopWatch := context.AfterFunc(runCtx, func() {
		defer close(watched)
		var to *taskTimeout
		if errors.As(context.Cause(runCtx), &to) {
			st.finish(t, taskFailed, nil, to.failure())
		}
	})
	st.runners.Add(1)
	go func() {
		defer st.runners.Done()
		defer t.cancel(errTaskDone)
		defer func() {
			if !stopWatch() {
				<-watched
			}
		}()
		run(runCtx, t)
	}()
	return t, seed, nil
}

// roomLocked makes room for one more task of share, or returns the -31503 that refuses it. A
// full share (stdio's "": the store) forgets its oldest finished task before its ttlMs runs out,
// so only running tasks refuse a client; other clients' tasks refuse it until the first expiry.
// [§Task Status]: SEP-2663, "ttlMs ... MAY change over the lifetime of a task"
func (st *taskStore) roomLocked(share string, now time.Time) *rpcError {
	if st.count.shareFull(share, 1) || share == "" && st.count.totalFull(1) {
		switch old := st.oldestFinishedLocked(share, false); {
		case old != nil:
			st.removeLocked(old)
		case share != "":
			return &rpcError{Code: codeServerBusy, Message: fmt.Sprintf("server busy: this client has %d tasks running, retry later", st.count.per),
				Data: map[string]int64{"maxTasksPerClient": st.count.per}}
		}
	}
	if !st.count.totalFull(1) {
		return nil
	}
	data := map[string]int64{"maxTasks": int64(st.cfg.maxTasks)}
	if old := st.oldestFinishedLocked("", true); old != nil {
		data["retryAfterMs"] = max(1, old.expiresAt.Sub(now).Milliseconds())
	}
	return &rpcError{Code: codeServerBusy, Message: fmt.Sprintf("server busy: %d tasks held, retry later", st.cfg.maxTasks), Data: data}
}

// oldestFinishedLocked returns the finished task of share (of any share when anyShare) that
// ended, and so expires, first; nil if none.
func (st *taskStore) oldestFinishedLocked(share string, anyShare bool) *task {
	var old *task
	for _, t := range st.tasks {
		if t.status.terminal() && (anyShare || t.share == share) && (old == nil || t.ended < old.ended) {
			old = t
		}
	}
	return old
}

// lookupLocked returns owner's task id or nil: unknown, expired (forgotten) and others' look alike.
// [§Security Implications]: SEP-2663, "Auth binding"
func (st *taskStore) lookupLocked(id, owner string, now time.Time) *task {
	t := st.tasks[id]
	if t == nil || t.owner != owner {
		return nil
	}
	if st.expiredLocked(t, now) {
		st.removeLocked(t)
		return nil
	}
	return t
}

// expiredLocked reports whether finished t's ttlMs ran out (a running one ends by -task-timeout).
func (st *taskStore) expiredLocked(t *task, now time.Time) bool {
	return t.status.terminal() && !now.Before(t.expiresAt)
}

// removeLocked forgets t and releases what it held.
func (st *taskStore) removeLocked(t *task) {
	delete(st.tasks, t.id)
	st.count.give(t.share, 1)
	st.bytes.give(t.share, t.size)
	t.cancel(errTaskExpired)
}

// sweepLocked forgets every expired task; create runs it, so none holds a slot a new one needs.
func (st *taskStore) sweepLocked(now time.Time) {
	for _, t := range st.tasks {
		if st.expiredLocked(t, now) {
			st.removeLocked(t)
		}
	}
}

// taskLimit names the byte bound a task could not grow within.
type taskLimit uint8

const (
	taskLimitNone  taskLimit = iota
	taskLimitTask            // the task's own, maxBytes
	taskLimitShare           // its client's part of maxTotalBytes
	taskLimitTotal           // maxTotalBytes
)

// takeBytesLocked takes n bytes for share, forgetting its oldest finished tasks as roomLocked
// does (TestTaskByteShare). It returns the limit still full, or taskLimitNone once taken.
func (st *taskStore) takeBytesLocked(share string, n int64) taskLimit {
	for !st.bytes.take(share, n) {
		if share != "" && !st.bytes.shareFull(share, n) {
			return taskLimitTotal
		}
		old := st.oldestFinishedLocked(share, false)
		if old == nil {
			if share == "" {
				return taskLimitTotal
			}
			return taskLimitShare
		}
		st.removeLocked(old)
	}
	return taskLimitNone
}

// resizeLocked sets t's counted size: shrinking always succeeds, growing stays within the
// task's bound and takes the difference. It returns the limit that refused it, or taskLimitNone.
func (st *taskStore) resizeLocked(t *task, size int64) taskLimit {
	switch {
	case size <= t.size:
		st.bytes.give(t.share, t.size-size)
	case size-taskRecordBytes > st.cfg.maxBytes:
		return taskLimitTask
	default:
		if limit := st.takeBytesLocked(t.share, size-t.size); limit != taskLimitNone {
			return limit
		}
	}
	t.size = size
	return taskLimitNone
}

// tooLarge is the error for what the limit refused, naming the limit in data: the task's own
// (-32603: retrying cannot help), its client's part or the budget (-31503: retry later).
func (st *taskStore) tooLarge(limit taskLimit, what string) *rpcError {
	switch limit {
	case taskLimitTask:
		return &rpcError{Code: codeInternalError, Message: fmt.Sprintf("%s would pass what one task may hold, %d bytes", what, st.cfg.maxBytes),
			Data: map[string]int64{"maxTaskBytes": st.cfg.maxBytes}}
	case taskLimitShare:
		return &rpcError{Code: codeServerBusy, Message: fmt.Sprintf("server busy: this client's tasks hold its share of the task memory, %d of %d bytes; retry later", st.bytes.per, st.bytes.total),
			Data: map[string]int64{"maxTaskBytesPerClient": st.bytes.per, "maxTaskBytesTotal": st.bytes.total}}
	}
	return &rpcError{Code: codeServerBusy, Message: fmt.Sprintf("server busy: tasks hold the server's task memory, %d bytes; retry later", st.bytes.total),
		Data: map[string]int64{"maxTaskBytesTotal": st.bytes.total}}
}

// get returns the task as tasks/get shows it (DetailedTask), its stored values not copied, and
// whether it is final; -32602 when owner has no such task.
func (st *taskStore) get(id, owner string) (m storedMembers, terminal bool, err error) {
	err = st.withTask(id, owner, methodTasksGet, func(t *task, _ time.Time) (bool, error) {
		m, terminal = st.encodeLocked(t, true), t.status.terminal()
		return false, nil
	})
	return m, terminal, err
}

// owned returns the ids, in order, that name a live task of owner.
func (st *taskStore) owned(ids []string, owner string) []string {
	now := st.now()
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []string
	for _, id := range ids {
		if st.lookupLocked(id, owner, now) != nil {
			out = append(out, id)
		}
	}
	return out
}

// withTask runs f on owner's task id under mu (-32602 if none), publishing it after if f changed it.
// mu is released however f returns: a panic the dispatcher recovers leaves the store usable
// (TestTaskStoreSurvivesPanic).
func (st *taskStore) withTask(id, owner, method string, f func(t *task, now time.Time) (bool, error)) error {
	now := st.now()
	changed, err := func() (bool, error) {
		st.mu.Lock()
		defer st.mu.Unlock()
		t := st.lookupLocked(id, owner, now)
		if t == nil {
			return false, taskNotFound(method)
		}
		return f(t, now)
	}()
	if changed {
		st.changed(id)
	}
	return err
}

// update applies a tasks/update's inputResponses (raw) before it returns: an answer under a key
// the task waits for is checked and kept, others are ignored, a malformed one refuses the whole
// update (-32602); once none is outstanding the task works again.
// [§Task Update Requests]: SEP-2663, section Task Update Requests
func (st *taskStore) update(id, owner string, raw []byte) error {
	return st.withTask(id, owner, methodTasksUpdate, func(t *task, now time.Time) (bool, error) {
		if t.status != taskInputRequired {
			return false, nil // nothing outstanding: every answer is ignored
		}
		members, _ := objectMembers(raw)
		got := map[string]*inputResponse{} // by wire key
		size := t.size
		for _, m := range members {
			i := slices.IndexFunc(t.asks, func(a taskAsk) bool { return a.wire == m.name })
			if i < 0 {
				continue // never issued, already answered or superseded
			}
			q := t.asks[i].q
			resp, err := parseInputResponse(q.method, q.mode, q.schema, m.value)
			if err != nil {
				return false, invalidParams("invalid params: inputResponses[%q]: %v", m.name, err)
			}
			got[m.name] = resp
			size += int64(len(resp.raw))
		}
		if len(got) == 0 {
			return false, nil
		}
		if limit := st.resizeLocked(t, size); limit == taskLimitTask {
			return false, invalidParams("invalid params: inputResponses: the task would hold more than %d bytes", st.cfg.maxBytes)
		} else if limit != taskLimitNone {
			return false, st.tooLarge(limit, "tasks/update: the answers")
		}
		for _, a := range t.asks {
			if resp := got[a.wire]; resp != nil {
				t.answers[a.q.key] = resp // keys are unique in a round (mayAsk)
			}
		}
		t.asks = slices.DeleteFunc(t.asks, func(a taskAsk) bool { return got[a.wire] != nil })
		t.updatedAt = now
		if len(t.asks) == 0 {
			t.status, t.message = taskWorking, "the task is running"
			select {
			case t.wake <- struct{}{}:
			default:
			}
		}
		return true, nil
	})
}

// cancelTask applies a tasks/cancel: a task running or waiting is cancelled at once (what its
// handler returns later is discarded); a finished one is left as it is.
// [§Task Cancellation]: SEP-2663, section Task Cancellation
func (st *taskStore) cancelTask(id, owner string) error {
	return st.withTask(id, owner, methodTasksCancel, func(t *task, now time.Time) (bool, error) {
		if t.status.terminal() {
			return false, nil
		}
		st.endLocked(t, taskCancelled, "the task was cancelled", nil, nil, now)
		t.cancel(errTaskCancelled) // as removeLocked does, under mu
		return true, nil
	})
}

// endLocked makes t terminal and starts its retention (-task-ttl). The caller made room for
// outcomeSize (finish); a short error or none never grows the record.
func (st *taskStore) endLocked(t *task, status taskStatus, message string, result, errBody []byte, now time.Time) {
	st.resizeLocked(t, outcomeSize(result, errBody))
	if len(message) > maxTaskStatusMessage {
		message = strings.ToValidUTF8(message[:maxTaskStatusMessage], "") + "…"
	}
	t.status, t.message, t.result, t.errBody = status, message, result, errBody
	t.asks, t.asksSize, t.answers, t.wires = nil, 0, nil, nil
	t.updatedAt, t.expiresAt = now, now.Add(st.cfg.ttl)
	st.ends++
	t.ended = st.ends
}

// outcomeSize is what a final task holds: record, result, long error.
func outcomeSize(result, errBody []byte) int64 {
	size := taskRecordBytes + int64(len(result))
	if len(errBody) > taskShortErrorBytes {
		size += int64(len(errBody))
	}
	return size
}

// ask records the handler's input requests under keys unique over the task's life (its own, then
// key#2, key#3...) and the task waits for them (input_required); fails if it ended or is too big.
// [§Task Update Requests]: SEP-2663, "Each request key in inputRequests MUST be unique over the lifetime of a single task"
func (st *taskStore) ask(t *task, qs []inputRequest) error {
	now := st.now()
	st.mu.Lock()
	if t.status.terminal() {
		st.mu.Unlock()
		return errTaskDone
	}
	// This round's asks replace the last round's in the count; answers stay counted: the runner
	// carries them into every later round.
	var asksSize int64
	asks := make([]taskAsk, 0, len(qs))
	for _, q := range qs {
		wire := q.key
		for n := 2; t.wires[wire]; n++ {
			wire = q.key + "#" + strconv.Itoa(n)
		}
		t.wires[wire] = true
		q.params = compactLine(q.params) // a piece of a line (storedMembers)
		asks = append(asks, taskAsk{wire: wire, q: q})
		asksSize += int64(len(wire) + len(q.method) + len(q.params) + len(q.schema))
	}
	if limit := st.resizeLocked(t, t.size-t.asksSize+asksSize); limit != taskLimitNone {
		st.mu.Unlock()
		return st.tooLarge(limit, "tools/call: the task's input requests")
	}
	t.asks, t.asksSize, t.answers = asks, asksSize, map[string]*inputResponse{} // update fills it
	t.status, t.message, t.updatedAt = taskInputRequired, "the task is waiting for input (tasks/update)", now
	st.mu.Unlock()
	st.changed(t.id)
	return nil
}

// awaitInput waits until every outstanding request of t is answered and returns the answers by
// the handler's keys, or the run's end.
func (st *taskStore) awaitInput(ctx context.Context, t *task) (map[string]*inputResponse, error) {
	select {
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-t.wake:
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if t.status != taskWorking {
		return nil, errTaskDone
	}
	answers := t.answers
	t.answers = nil
	return answers, nil
}

// finish makes t terminal: completed with result (a CallToolResult), failed with rerr, or
// cancelled with neither. An outcome past a byte budget is replaced by tooLarge's error. The
// first end wins: a result arriving after tasks/cancel, a timeout or shutdown is discarded.
func (st *taskStore) finish(t *task, status taskStatus, result []byte, rerr *rpcError) {
	var errBody []byte
	if rerr != nil {
		errBody = marshalError(rerr)
	}
	result = compactLine(result) // stored values are written as they are (storedMembers)
	now := st.now()
	st.mu.Lock()
	if t.status.terminal() {
		st.mu.Unlock()
		return
	}
	if limit := st.resizeLocked(t, outcomeSize(result, errBody)); limit != taskLimitNone {
		what := "tools/call: the task's error"
		if status == taskCompleted {
			what = "tools/call: the task's result"
		}
		rerr = st.tooLarge(limit, what)
		status, result, errBody = taskFailed, nil, marshalError(rerr)
	}
	switch status {
	case taskCompleted:
		st.endLocked(t, status, "the task completed", result, nil, now)
	case taskCancelled:
		st.endLocked(t, status, "the task was cancelled", nil, nil, now)
	default:
		st.endLocked(t, status, rerr.Message, nil, errBody, now)
	}
	st.mu.Unlock()
	st.changed(t.id)
}

// stop begins shutdown: no new task, and every task running or waiting fails at once ("server
// shutting down"), so a client polling during the drain sees a final status; wait awaits handlers.
func (st *taskStore) stop() {
	now := st.now()
	st.mu.Lock()
	st.closed = true
	var ended []*task
	body := marshalError(&rpcError{Code: codeInternalError, Message: errTaskShutdown.Error()})
	for _, t := range st.tasks {
		if !t.status.terminal() {
			st.endLocked(t, taskFailed, errTaskShutdown.Error(), nil, body, now)
			ended = append(ended, t)
		}
	}
	st.mu.Unlock()
	for _, t := range ended {
		t.cancel(errTaskShutdown)
		st.changed(t.id)
	}
	st.stopBase()
}

// wait returns once every task's goroutine has; a handler ignoring its context delays it, as it
// delays the transports' drain.
func (st *taskStore) wait() { st.runners.Wait() }

// shutdown is stop, then wait; it may be called again.
func (st *taskStore) shutdown() {
	st.stop()
	st.wait()
}

// taskTimestamp is createdAt's and lastUpdatedAt's ISO 8601 form.
const taskTimestamp = "2006-01-02T15:04:05.000Z07:00"

// encodeLocked writes t's members as the wire shows them, without braces: Task's, and when
// detailed the one its status adds. Stored values never change, so they are pieces of their own
// (storedMembers), never copied under the lock (TestTaskGetNoCopy). ttlMs: docs/GAPS.md, "Tasks".
// [§Tasks]: SEP-2663, sections Tasks and Task Polling
func (st *taskStore) encodeLocked(t *task, detailed bool) storedMembers {
	b := make([]byte, 0, 320)
	b = append(b, `"taskId":`...)
	b = appendJSONString(b, t.id)
	b = append(b, `,"status":"`...)
	b = append(b, taskStatusNames[t.status]...)
	b = append(b, '"')
	if t.message != "" {
		b = append(b, `,"statusMessage":`...)
		b = appendJSONString(b, t.message)
	}
	b = append(b, `,"createdAt":"`...)
	b = t.createdAt.UTC().AppendFormat(b, taskTimestamp)
	b = append(b, `","lastUpdatedAt":"`...)
	b = t.updatedAt.UTC().AppendFormat(b, taskTimestamp)
	ttl := st.cfg.ttl
	if t.status.terminal() {
		ttl = t.expiresAt.Sub(t.createdAt)
	}
	b = append(b, `","ttlMs":`...)
	b = strconv.AppendInt(b, max(1, ttl.Milliseconds()), 10)
	b = append(b, `,"pollIntervalMs":`...)
	b = strconv.AppendInt(b, taskPollInterval.Milliseconds(), 10)
	if !detailed {
		return storedMembers{b}
	}
	switch t.status {
	case taskInputRequired:
		m := make(storedMembers, 0, 2*len(t.asks)+1)
		b = append(b, `,"inputRequests":{`...)
		for i, a := range t.asks {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, a.wire)
			b = append(b, `:{"method":`...)
			b = appendJSONString(b, a.q.method)
			b = append(b, `,"params":`...)
			m = append(m, b, a.q.params)
			b = []byte{'}'}
		}
		return append(m, append(b, '}'))
	case taskCompleted:
		return storedMembers{append(b, `,"result":`...), t.result, nil}
	case taskFailed:
		return storedMembers{append(b, `,"error":`...), t.errBody, nil}
	}
	return storedMembers{b}
}
