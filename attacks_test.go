// The attacks of issue 19, one test per finding: each drives the hostile
// peer over loopback (or the stdio pipe) and asserts the bound it must
// meet (bytes held, slots taken, time), not merely that the server
// survives. A second client connects from 127.0.0.2, so that it is a
// different client (another share of the limits) from the attacker on
// 127.0.0.1. The figures before and after each fix are in
// docs/RELIABILITY.md; docs/SECURITY.md maps each finding to its test.

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// loopbackConfig returns the HTTP settings run would derive from args,
// for a server on 127.0.0.1 that shuts down at once when the test ends.
func loopbackConfig(tb testing.TB, args ...string) *httpConfig {
	tb.Helper()
	pcfg, err := parseFlags(append([]string{"-http", "127.0.0.1:0", "-shutdown-timeout", "0"}, args...), io.Discard, func(string) string { return "" })
	hcfg := pcfg.http
	if err != nil {
		tb.Fatalf("parseFlags(%q) = %v", args, err)
	}
	return hcfg
}

// mustHeapHeldBy returns how much the live heap shrinks when release
// runs: what that held. Measuring a release, not a growth, leaves out
// what the test itself and the tests before it allocated.
func mustHeapHeldBy(tb testing.TB, release func()) int64 {
	tb.Helper()
	before := heapInUse()
	release()
	return int64(before) - int64(heapInUse())
}

// Finding 2: over stdio, finished responses queued without bound when
// stdout stalled, and a request's slot was freed once its response was
// queued, so a client that never read stdout made the server read and
// answer without end. With stdout stalled the server must stop reading
// once its budget is held.
func TestAttackStdioStalledStdout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t)
		inR, inW := io.Pipe()
		outR, outW := io.Pipe() // nobody reads outR until the end
		read := &countingReader{r: inR}
		served := make(chan error, 1)
		go func() { served <- s.serveStdio(t.Context(), read, outW) }()
		message := strings.Repeat("x", 512<<10)
		line := func(i int) string {
			return req(fmt.Sprintf(`"x%03d"`, i), "tools/call", `"name":"echo","arguments":{"message":"`+message+`"}`) + "\n"
		}
		const offered = 64 // 32 MiB of requests
		go func() {
			for i := range offered {
				if _, err := io.WriteString(inW, line(i)); err != nil {
					return
				}
			}
		}()
		synctest.Wait()
		lines := read.count() / len(line(0))
		t.Logf("with stdout stalled the server read %d of %d requests of %d KiB", lines, offered, len(line(0))>>10)
		// What the server may hold: its budget of request bytes, a queue
		// of responses, plus the lines on their way in (being read,
		// handed over, held).
		if limit := (maxStdioInFlightBytes+maxStdioQueuedBytes)/len(line(0)) + 4; lines > limit {
			t.Errorf("with stdout stalled the server read %d requests of %d KiB, want at most %d", lines, len(line(0))>>10, limit)
		}
		go func() { _, _ = io.Copy(io.Discard, outR) }()
		inW.Close()
		if err := <-served; err != nil {
			t.Errorf("serveStdio = %v", err)
		}
		outR.Close()
	})
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r  io.Reader
	mu sync.Mutex // guards n
	n  int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.mu.Lock()
	c.n += n
	c.mu.Unlock()
	return n, err
}

func (c *countingReader) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// classicInit is an initialize line declaring elicitation.
const classicInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`

// mustEnd reads body to its end, failing if that takes longer than
// testWait.
func mustEnd(tb testing.TB, what string, body io.Reader) {
	tb.Helper()
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, body)
		ended <- err
	}()
	select {
	case err := <-ended:
		if err != nil {
			tb.Errorf("%s: %v", what, err)
		}
	case <-time.After(testWait):
		tb.Errorf("%s did not end", what)
	}
}

// heapInUse returns the live heap after a full collection.
func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// watchURI is a 4 KiB URI the test registry's template demo://items/{id}
// matches, distinct for each i.
func watchURI(i int) string {
	s := fmt.Sprintf("demo://items/%d-", i)
	return s + strings.Repeat("u", maxSubscriptionURIBytes-len(s))
}

// Finding 8: the keys enum, const and uniqueItems compare by were built
// by appends that grew the buffer by exactly what each needed, so an
// argument of many strings cost quadratic time (45 s for 1 MiB, minutes
// for 4 MiB, whatever the request timeout). Key building must be linear
// (a 64 KiB argument allocates a few times its size), a 4 MiB argument
// validates well within a second, keys built at every nesting level stop
// at the work budget, and cancellation stops validation.
func TestAttackQuadraticValidation(t *testing.T) {
	strs := func(n int) string { return `["` + strings.Repeat(`a","`, n/4) + `a"]` }
	mustValue := func(tb testing.TB, arg string) any {
		tb.Helper()
		v, rerr := decodeArguments([]byte(arg))
		if rerr != nil {
			tb.Fatal(rerr)
		}
		return v
	}
	small := `{"v":[` + strs(64<<10) + `]}`
	// What {"v":[["a","a",...]]} of n strings decodes to, built directly;
	// the largest is what a 4 MiB line holds.
	arrayOf := func(n int) map[string]any {
		many := make([]any, n)
		for i := range many {
			many[i] = "a"
		}
		return map[string]any{"v": []any{many}}
	}
	const most = (maxLineBytes - 64) / 4
	large := arrayOf(most)
	for _, tt := range []struct{ name, schema string }{
		{"enum without type", `{"type":"object","properties":{"v":{"enum":["a",[["a"]]]}}}`},
		{"const array", `{"type":"object","properties":{"v":{"const":[["a"]]}}}`},
		{"uniqueItems", `{"type":"object","properties":{"v":{"type":"array","uniqueItems":true}}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := compileSchema([]byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			v := mustValue(t, small)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_ = sc.validate(t.Context(), v)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			if alloc > 16*uint64(len(small)) {
				t.Errorf("validating a %d KiB argument allocated %d KiB, want at most 16 times its size", len(small)>>10, alloc>>10)
			}
			values := map[int]map[string]any{most / 64: arrayOf(most / 64), most: large}
			mustScaleLinearly(t, "validating an array of strings", most/64, 64, func(n int) { _ = sc.validate(t.Context(), values[n]) })
		})
	}
	t.Run("kind checked before the key", func(t *testing.T) {
		sc, err := compileSchema([]byte(`{"type":"object","properties":{"v":{"enum":["a","b"]}}}`))
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err = sc.validate(t.Context(), large)
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; err == nil || alloc > 64<<10 {
			t.Errorf("a 4 MiB array against an enum of strings: %v, %d KiB allocated; want refused with no key built", err, alloc>>10)
		}
	})
	// uniqueItems at every level of 31 nested arrays: each level's key is
	// the whole 256 KiB below it, so validation costs 31 times the value,
	// past a budget of 4 times (schemaWorkBudget is 16 times the largest
	// message).
	deep := `{"type":"array","uniqueItems":true}`
	for range schemaMaxDepth - 2 {
		deep = `{"type":"array","uniqueItems":true,"items":` + deep + `}`
	}
	sc, err := compileSchema([]byte(`{"type":"object","properties":{"v":` + deep + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	nested := `{"v":` + strings.Repeat("[", schemaMaxDepth-1) + strs(256<<10) + strings.Repeat("]", schemaMaxDepth-1) + `}`
	v := mustValue(t, nested)
	t.Run("work budget", func(t *testing.T) {
		if err := sc.validateWithin(t.Context(), v, 4*len(nested)); !errors.Is(err, errSchemaTooCostly) {
			t.Errorf("keys of 256 KiB at 31 levels within 1 MiB of work = %v, want %v", err, errSchemaTooCostly)
		}
		if err := sc.validateWithin(t.Context(), v, 64*len(nested)); err != nil {
			t.Errorf("the same within 16 MiB of work = %v, want nil", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if err := sc.validate(ctx, v); !errors.Is(err, context.Canceled) {
			t.Errorf("validate with a cancelled context = %v, want context.Canceled", err)
		}
	})
}

// Finding 11: any offset was accepted as a cursor, even with -page-size 0
// where none is ever issued, and every distinct page was encoded and
// cached for the snapshot's life (quadratic: 2006 forged cursors over 2007
// tools held 857 MiB). Only cursors the server could have issued are
// accepted, and the pages cached stay within the size of the list.
func TestAttackForgedCursors(t *testing.T) {
	const tools = 500
	many := func(s *server) {
		for i := range tools {
			s.addTool(tool{Name: fmt.Sprintf("t%03d", i), Description: strings.Repeat("d", 100), Call: func(context.Context, *request) (*toolResult, error) { return nil, nil }})
		}
	}
	list := req("0", "tools/list", "")
	full := len(newTestServer(t, withRegistry(), withSetup(many)).dispatch(t.Context(), mustParse(t, list), exchange{}))
	for _, tt := range []struct {
		pageSize string
		issued   int // offsets from 1 to tools-1 the server issues as cursors
	}{
		{"0", 0},
		{"10", tools/10 - 1},
	} {
		t.Run("-page-size "+tt.pageSize, func(t *testing.T) {
			s := newTestServer(t, withRegistry(), withSetup(many), withFlags("-page-size", tt.pageSize))
			s.dispatch(t.Context(), mustParse(t, list), exchange{})
			accepted := 0
			for i := 1; i < tools; i++ {
				reply := s.dispatch(t.Context(), mustParse(t, req("1", "tools/list", fmt.Sprintf(`"cursor":%q`, encodeCursor(i)))), exchange{})
				if errorCode(t, string(reply)) == 0 {
					accepted++
				}
			}
			if accepted != tt.issued {
				t.Errorf("%d of the offsets 1 to %d accepted as cursors, want the %d the server issues", accepted, tools-1, tt.issued)
			}
			r := s.registry()
			r.listMu.Lock()
			cached := r.listBytes
			r.listMu.Unlock()
			if cached > full+full/10 {
				t.Errorf("the snapshot caches %d bytes of pages, want about one list (%d bytes)", cached, full)
			}
		})
	}
}

// Finding 12: subscriptions/listen deduplicated its URIs in O(tokens x
// URIs) before any limit, and completion/complete echoed names and values
// of any length in its errors (a 4 MB name came back as a 4 MB error). An
// oversize URI array is refused before it costs, and completion's strings
// are capped at 8 KiB and never echoed.
func TestAttackSmallAmplifiers(t *testing.T) {
	s := newTestServer(t)
	t.Run("listen URI array", func(t *testing.T) {
		lines := map[int]*message{}
		for _, n := range []int{1 << 12, 1 << 18} {
			var b strings.Builder
			for i := range n {
				fmt.Fprintf(&b, `"a://%d",`, i%defaultMaxSubscriptionURIs)
			}
			lines[n] = mustParse(t, req("1", "subscriptions/listen", `"notifications":{"resourceSubscriptions":[`+strings.TrimSuffix(b.String(), ",")+`]}`))
		}
		// The transport is closing: a listen the server accepts ends at
		// once with its graceful closure.
		closing := make(chan struct{})
		close(closing)
		listen := func(n int) []byte {
			return s.dispatch(t.Context(), lines[n], exchange{send: func([]byte) {}, closing: closing})
		}
		if reply := listen(1 << 18); errorCode(t, string(reply)) != codeInvalidParams {
			t.Errorf("a listen with %d URIs (256 distinct): %.200s, want -32602", 1<<18, reply)
		}
		mustScaleLinearly(t, "refusing a listen of many URIs", 1<<12, 1<<6, func(n int) { listen(n) })
	})
	big := strings.Repeat("n", 4<<20)
	for _, tt := range []struct{ name, params string }{
		{"completion ref.name", `"ref":{"type":"ref/prompt","name":"` + big + `"},"argument":{"name":"name","value":"b"}`},
		{"completion ref.uri", `"ref":{"type":"ref/resource","uri":"` + big + `"},"argument":{"name":"id","value":"b"}`},
		{"completion argument.value", `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"` + big + `"}`},
		{"completion context", `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"b"},"context":{"arguments":{"a":"` + big + `"}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reply := s.dispatch(t.Context(), mustParse(t, req("1", "completion/complete", tt.params)), exchange{})
			if errorCode(t, string(reply)) != codeInvalidParams || len(reply) > 1024 {
				t.Errorf("completion/complete with 4 MiB in %s: %d bytes: %.200s, want a short -32602", tt.name, len(reply), reply)
			}
		})
	}
}

// mustParse parses a request line.
func mustParse(tb testing.TB, line string) *message {
	tb.Helper()
	msg, rerr := parseMessage([]byte(line))
	if rerr != nil {
		tb.Fatalf("parseMessage(%.80s) = %v", line, rerr)
	}
	return &msg
}
