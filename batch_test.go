// Tests of JSON-RPC batches (batch.go): where a batch is accepted, how one
// is split, and the bounds a hostile batch meets. The exchanges themselves
// are testdata/classic/batch-2025-03-26.txt, on stdio and over HTTP.

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// pingBatch is a batch of n pings with ids 1..n.
func pingBatch(n int) string {
	pings := make([]string, n)
	for i := range pings {
		pings[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1)
	}
	return "[" + strings.Join(pings, ",") + "]"
}

// TestSplitBatch checks how a batch is cut into entries: a syntax error
// anywhere refuses it whole (-32700), an empty or oversize one is -32600,
// and an entry that parses but cannot be honoured is left to be refused
// alone.
// [§Batch]: https://www.jsonrpc.org/specification#batch
func TestSplitBatch(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     []string // the entries; nil with code
		code     int
	}{
		{"one", `[{"a":1}]`, []string{`{"a":1}`}, 0},
		{"white space", " [ 1 ,\t\"x\" , null ] \r\n", []string{`1`, `"x"`, `null`}, 0},
		{"brackets in strings", `["]", "[", "\"]"]`, []string{`"]"`, `"["`, `"\"]"`}, 0},
		{"nested", `[[[]],{"a":[1,{"b":2}]}]`, []string{`[[]]`, `{"a":[1,{"b":2}]}`}, 0},
		{"duplicate key is an entry's problem", `[{"a":1,"a":2}]`, []string{`{"a":1,"a":2}`}, 0},
		{"exactly the most", pingBatch(maxBatchEntries), nil, -1},
		{"empty", `[]`, nil, codeInvalidRequest},
		{"empty with spaces", `[ ]`, nil, codeInvalidRequest},
		{"one too many", pingBatch(maxBatchEntries + 1), nil, codeInvalidRequest},
		{"trailing comma", `[1,]`, nil, codeParseError},
		{"leading comma", `[,1]`, nil, codeParseError},
		{"missing comma", `[{"a":1}{"b":2}]`, nil, codeParseError},
		{"mismatched brackets", `[{]`, nil, codeParseError},
		{"unclosed", `[1`, nil, codeParseError},
		{"bad entry", `[tru]`, nil, codeParseError},
		{"bad string in an entry", `[{"a":"\x"}]`, nil, codeParseError},
		{"data after", `[1] 2`, nil, codeParseError},
		{"not utf-8", "[\"\xff\"]", nil, codeParseError},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, rerr := splitBatch([]byte(tt.in))
			code := 0
			if rerr != nil {
				code = rerr.Code
			}
			if tt.code == -1 {
				if rerr != nil || len(got) != maxBatchEntries {
					t.Errorf("splitBatch(%d entries) = %d entries, %v", maxBatchEntries, len(got), rerr)
				}
				return
			}
			if code != tt.code {
				t.Fatalf("splitBatch(%q) error %v, want code %d", tt.in, rerr, tt.code)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("splitBatch(%q) = %q, want %q", tt.in, got, tt.want)
			}
			for i := range got {
				if string(got[i]) != tt.want[i] {
					t.Errorf("splitBatch(%q)[%d] = %q, want %q", tt.in, i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestBatchRateLimited checks that a batch does not get around the
// tools/call rate limit: each of its calls takes a token.
func TestBatchRateLimited(t *testing.T) {
	c := newTestConn(t, newTestServer(t, withFlags("-rate-limit", "1", "-rate-burst", "1")))
	c.send(classicInitialize(1, version20250326))
	c.recv()
	echo := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}`, id)
	}
	c.send("[" + echo(2) + "," + echo(3) + "]")
	got := c.recv()
	if !strings.Contains(got, `"id":2,"result"`) || !strings.Contains(got, fmt.Sprintf(`"id":3,"error":{"code":%d`, codeRateLimited)) {
		t.Errorf("two calls in a batch with a burst of 1: %s, want the second rate-limited", got)
	}
}

// FuzzSplitBatch checks the batch splitter on any bytes: no panic, and
// every entry it returns is one valid JSON value of the input, in order,
// at most maxBatchEntries of them.
func FuzzSplitBatch(f *testing.F) {
	for _, seed := range []string{`[1,2]`, `[]`, `[{"a":"]"},[[]]]`, `[1,]`, "[\"\\\"\"]", pingBatch(3)} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, rerr := splitBatch(data)
		if rerr != nil {
			if entries != nil {
				t.Fatalf("splitBatch(%q) = %q and %v", data, entries, rerr)
			}
			return
		}
		if len(entries) == 0 || len(entries) > maxBatchEntries {
			t.Fatalf("splitBatch(%q) = %d entries", data, len(entries))
		}
		rest := string(data)
		for _, e := range entries {
			if err := checkJSON(e); err != nil && !strings.Contains(err.Error(), "nested") && !strings.Contains(err.Error(), "key") && !strings.Contains(err.Error(), "members") {
				t.Fatalf("splitBatch(%q): entry %q: %v", data, e, err)
			}
			i := strings.Index(rest, string(e))
			if i < 0 {
				t.Fatalf("splitBatch(%q): entry %q is not in the input in order", data, e)
			}
			rest = rest[i+len(e):]
		}
	})
}

// TestBatchAnswerBytes checks the bound on what a batch's answers hold: a
// batch of eight calls each answering 1 MiB runs the handler until the
// answers hold maxBatchAnswerBytes (the fourth crosses it and is kept),
// and the later calls are answered with errBatchAnswers, their handler
// never run; the answer is at most the bound, one more answer and short
// errors. An id the bound refused is free again for the next message.
func TestBatchAnswerBytes(t *testing.T) {
	s := newTestServer(t)
	var calls atomic.Int64
	s.addTool(tool{Name: "fat", Description: "Answers 1 MiB.", Call: func(ctx context.Context, req *request) (*toolResult, error) {
		calls.Add(1)
		return textResult(strings.Repeat("x", 1<<20)), nil
	}})
	c := newTestConn(t, s)
	c.send(classicInitialize(1, version20250326))
	c.recv()
	fat := make([]string, 8)
	for i := range fat {
		fat[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"fat"}}`, i+2)
	}
	c.send("[" + strings.Join(fat, ",") + "]")
	got := c.recv()
	var answers []map[string]any
	if err := json.Unmarshal([]byte(got), &answers); err != nil || len(answers) != len(fat) {
		t.Fatalf("the batch's answer: %v, %d entries, want %d", err, len(answers), len(fat))
	}
	for i, a := range answers {
		wantError := i >= 4
		if hasError := a["error"] != nil; hasError != wantError || (hasError && jsonPath(a, "error.data.maxBatchAnswerBytes") != float64(maxBatchAnswerBytes)) {
			t.Errorf("answer %d: %.200s; want an error naming maxBatchAnswerBytes %v", i, mustJSON(t, a), wantError)
		}
	}
	if n := calls.Load(); n != 4 {
		t.Errorf("the handler ran %d times, want 4", n)
	}
	if max := maxBatchAnswerBytes + 1<<20 + 4*512; len(got) > max {
		t.Errorf("the batch's answer is %d bytes, want at most %d", len(got), max)
	}
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 9))
	if got := c.recv(); !strings.Contains(got, `"id":9,"result"`) {
		t.Errorf("a request reusing a refused id: %s", got)
	}
}
