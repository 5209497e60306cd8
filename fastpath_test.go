// The hand-written fast paths must agree with encoding/json, which they
// replace on the hot path: same members, same decoded values, same bytes.

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
)

// fastPathObjects are checked JSON objects with the shapes the fast paths
// must get right: escapes next to quotes, nested brackets inside strings,
// every scalar kind, escaped keys.
var fastPathObjects = []string{
	`{}`,
	` { } `,
	`{"a":1}`,
	` { "a" : "x\"y\\\\" , "b":[1,{"c":"]}"}], "d":-1.5e3,"e":true,"f":null,"g\u0041":{"h":"\\"}} `,
	`{"s":"\\\\\\\"","t":"\"","u":"\\","v":[[],{},[{}]],"w":""}`,
	`{"uni":"\u00e9\ud83d\ude00 é \u2028","num":[0,-0,1e400,12345678901234567890,0.5E-3]}`,
	`{"message":"hi","nested":{"deep":[{"x":[1,2,{"y":"}"}]}]}}`,
}

func TestObjectMembersMatchesEncodingJSON(t *testing.T) {
	for _, in := range fastPathObjects {
		if err := checkJSON([]byte(in)); err != nil {
			t.Fatalf("checkJSON(%s) = %v", in, err)
		}
		members, err := objectMembers([]byte(in))
		if err != nil {
			t.Fatalf("objectMembers(%s) = %v", in, err)
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		got := map[string]json.RawMessage{}
		for _, m := range members {
			got[m.name] = bytes.TrimSpace(m.value)
		}
		if len(members) != len(want) || !reflect.DeepEqual(got, want) {
			t.Errorf("objectMembers(%s)\n got: %q\nwant: %q", in, got, want)
		}
	}
}

func TestDecodeCheckedMatchesEncodingJSON(t *testing.T) {
	values := append([]string{`[]`, `[1,"a",[null,true,false]]`, `"x\"y"`, `-12.5e-3`, `null`, ` true `},
		fastPathObjects...)
	for _, in := range values {
		if err := checkJSON([]byte(in)); err != nil {
			t.Fatalf("checkJSON(%s) = %v", in, err)
		}
		got, err := decodeChecked([]byte(in))
		if err != nil {
			t.Fatalf("decodeChecked(%s) = %v", in, err)
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(in)))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("decodeChecked(%s)\n got: %#v\nwant: %#v", in, got, want)
		}
	}
}

func TestToolResultMatchesEncodingJSON(t *testing.T) {
	for _, r := range []*toolResult{
		{},
		textResult("hi <b>&</b> \u2028 \"q\""),
		textResult(strings.Repeat("plain ascii text ", 100)),
		textResult(""),
		textResult("tab\tnewline\n nul\x00 del\x7f back\\slash"),
		textResult("é ü 中文 😀 invalid\xff\xfe utf-8 \u2029"),
		{Content: []content{textContent("one"), textContent("two <"), {Type: "text", Text: "annotated",
			Annotations: &annotations{Audience: []string{"user"}}}}},
		errorResult("failed"),
		{Content: []content{textContent("a"), imageContent([]byte{1, 2}, "image/png"),
			linkContent(resourceLink{URI: "demo://x", Name: "x"})}, StructuredContent: map[string]any{"sum": 3}},
	} {
		got, err := r.result(version20260728)
		if err != nil {
			t.Fatalf("result() = %v", err)
		}
		c := r.Content
		if c == nil {
			c = []content{}
		}
		want, err := json.Marshal(struct {
			Content           []content `json:"content"`
			StructuredContent any       `json:"structuredContent,omitempty"`
			IsError           bool      `json:"isError,omitempty"`
		}{c, r.StructuredContent, r.IsError})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.body.(json.RawMessage), want) {
			t.Errorf("result()\n got: %s\nwant: %s", got.body, want)
		}
	}
}

// countingWriter records each Write it receives.
type countingWriter struct {
	mu     sync.Mutex // guards writes, buf
	writes int
	buf    bytes.Buffer
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return w.buf.Write(p)
}

func TestStdioWriteKeepsLinesWholeAndInOrder(t *testing.T) {
	const writers, lines = 8, 200
	out := &countingWriter{}
	c := &stdioConn{s: newTestServer(t, withRegistry()), out: out}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range lines {
				c.write(fmt.Appendf(nil, `{"w":%d,"i":%d}`+"\n", w, i))
			}
		})
	}
	wg.Wait()
	next := make([]int, writers)
	got := strings.Split(strings.TrimSuffix(out.buf.String(), "\n"), "\n")
	for _, line := range got {
		var w, i int
		if _, err := fmt.Sscanf(line, `{"w":%d,"i":%d}`, &w, &i); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if i != next[w] {
			t.Fatalf("writer %d: line %d after %d, want in order", w, i, next[w]-1)
		}
		next[w]++
	}
	if len(got) != writers*lines {
		t.Errorf("got %d lines, want %d", len(got), writers*lines)
	}
	t.Logf("%d lines in %d writes", len(got), out.writes)
}

func TestReadBodyMatchesReadAll(t *testing.T) {
	big := strings.Repeat("x", 3*readBodyFirst+5)
	for _, tt := range []struct {
		name string
		body string
		size int64
	}{
		{"empty", "", 0},
		{"small exact", `{"a":1}`, 7},
		{"large exact", big, int64(len(big))},
		{"unknown length", big, -1},
		{"overstated length", `{"a":1}`, 1 << 20},
		{"understated length", big, 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readBody(iotest.HalfReader(strings.NewReader(tt.body)), tt.size)
			if err != nil || string(got) != tt.body {
				t.Errorf("readBody(%d bytes, size %d) = %d bytes, %v; want the body", len(tt.body), tt.size, len(got), err)
			}
		})
	}
}
