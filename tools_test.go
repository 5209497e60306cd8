// Tests of tools (tools.go) beyond testdata/tools.txt: content kinds,
// argument validation, output schema, cancelled handlers, completion
// context errors, log level echo, and the hand-written result encoder.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestStructuredContentMatchesOutputSchema: servers MUST provide structured
// results that conform to the tool's outputSchema; one that does not is a
// server bug, answered -32603 with no internals.
// [§Output Schema]: https://modelcontextprotocol.io/specification/2026-07-28/server/tools#output-schema
func TestStructuredContentMatchesOutputSchema(t *testing.T) {
	for _, tt := range []struct {
		name     string
		produced any
		isError  bool
		wantCode int // 0: a result
	}{
		{"conforming result", map[string]any{"sum": 3}, false, 0},
		{"wrong type", map[string]any{"sum": "three"}, false, codeInternalError},
		{"missing required member", map[string]any{"total": 3}, false, codeInternalError},
		{"no structuredContent", nil, false, codeInternalError},
		{"tool error needs no structuredContent", nil, true, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withRegistry())
			s.addTool(tool{
				Name:         "sum",
				OutputSchema: `{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`,
				Call: func(ctx context.Context, req *request) (*toolResult, error) {
					return &toolResult{Content: []content{textContent("x")}, StructuredContent: tt.produced, IsError: tt.isError}, nil
				},
			})
			got := mustServeOne(t, s, req("1", "tools/call", `"name":"sum"`))
			if code := errorCode(t, got); code != tt.wantCode {
				t.Errorf("tools/call = %s, want code %d", got, tt.wantCode)
			}
		})
	}
}

// TestCancelledHandlerIsNotAnInternalError: a handler that stops because
// the client cancelled is answered "request cancelled" (when an answer is
// still written at all) and is not logged as a server fault.
func TestCancelledHandlerIsNotAnInternalError(t *testing.T) {
	var logs syncBuffer
	s := newTestServer(t, withRegistry(), withLogs(&logs))
	s.addTool(tool{Name: "wait", Call: func(ctx context.Context, req *request) (*toolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	msg, rerr := parseMessage([]byte(req("1", "tools/call", `"name":"wait"`)))
	if rerr != nil {
		t.Fatal(rerr)
	}
	got := string(s.dispatch(ctx, &msg, exchange{}))
	if !strings.Contains(got, `"message":"request cancelled"`) {
		t.Errorf("dispatch = %s, want request cancelled", got)
	}
	if l := logs.String(); strings.Contains(l, "ref=") {
		t.Errorf("cancellation logged as an internal error: %s", l)
	}
}

// TestCompletionContextErrors: a malformed completion context is -32602
// with a message that names what is wrong.
func TestCompletionContextErrors(t *testing.T) {
	for _, tt := range []struct {
		name, context, want string
	}{
		{"context not an object", `[]`, "context must be an object"},
		{"arguments an array", `{"arguments":[]}`, "context.arguments must be an object of strings"},
		{"arguments a number", `{"arguments":5}`, "context.arguments must be an object of strings"},
		{"argument value not a string", `{"arguments":{"a":1}}`, "context.arguments must be an object of strings"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t)
			got := mustServeOne(t, s, req("1", "completion/complete",
				`"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"A"},"context":`+tt.context))
			if errorCode(t, got) != codeInvalidParams || !strings.Contains(got, tt.want) {
				t.Errorf("completion/complete with context %s = %s, want -32602 %q", tt.context, got, tt.want)
			}
		})
	}
}

// TestUnknownLogLevelEchoBounded: the error for an unknown log level
// quotes at most a bounded prefix of what the client sent.
func TestUnknownLogLevelEchoBounded(t *testing.T) {
	s := newTestServer(t)
	long := strings.Repeat("x", 10000)
	line := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"` + long + `"}}}`
	got := mustServeOne(t, s, line)
	if errorCode(t, got) != codeInvalidParams || len(got) > 300 {
		t.Errorf("unknown log level answered with %d bytes: %.200s", len(got), got)
	}
}

// TestContentKinds checks each content block's wire shape, and that
// structuredContent travels with the same JSON as a text block.
func TestContentKinds(t *testing.T) {
	prio := 0.5
	for _, tt := range []struct {
		name string
		c    content
		want string
	}{
		{"text", textContent("hi"), `{"type":"text","text":"hi"}`},
		{"empty text keeps text", textContent(""), `{"type":"text","text":""}`},
		{"image", imageContent([]byte{1, 2, 3}, "image/png"), `{"type":"image","data":"AQID","mimeType":"image/png"}`},
		{"audio", audioContent([]byte("RIFF"), "audio/wav"), `{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}`},
		{"resource_link", linkContent(resourceLink{URI: "x://a", Name: "a", Size: new(int64(3))}), `{"type":"resource_link","uri":"x://a","name":"a","size":3}`},
		{"embedded text resource", embeddedContent(resourceContents{URI: "x://a", MimeType: "text/plain", Text: "t"}), `{"type":"resource","resource":{"uri":"x://a","mimeType":"text/plain","text":"t"}}`},
		{"embedded blob resource", embeddedContent(resourceContents{URI: "x://b", Blob: []byte{0}}), `{"type":"resource","resource":{"uri":"x://b","blob":"AA=="}}`},
		{"annotations", content{Type: "text", Text: "a", Annotations: &annotations{Audience: []string{"user"}, Priority: &prio}}, `{"type":"text","text":"a","annotations":{"audience":["user"],"priority":0.5}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.c)
			if err != nil {
				t.Fatalf("Marshal(%+v) = %v", tt.c, err)
			}
			if !sameJSON(t, string(got), tt.want) {
				t.Errorf("Marshal(%+v) = %s, want %s", tt.c, got, tt.want)
			}
		})
	}
	t.Run("structuredContent with its JSON text block", func(t *testing.T) {
		s := newTestServer(t)
		got := mustServeOne(t, s, req("1", "tools/call", `"name":"add","arguments":{"a":1,"b":2}`))
		res := mustDecode(t, got)["result"]
		text, _ := jsonPath(res, "content.0.text").(string)
		sc, _ := json.Marshal(jsonPath(res, "structuredContent"))
		if !sameJSON(t, text, `{"sum":3}`) || !sameJSON(t, string(sc), `{"sum":3}`) {
			t.Errorf("add: %s, want structuredContent and text both {\"sum\":3}", got)
		}
	})
}

// TestToolArgumentValidation checks that arguments breaking the input
// schema are a tool error the model can read (isError), one row per
// enforced keyword.
func TestToolArgumentValidation(t *testing.T) {
	for _, tt := range []struct {
		name, args string
		want       string // substring of the in-band error; "" means valid
	}{
		{"valid", `{"s":"okay","n":3,"e":"red","c":"fixed","list":["a"]}`, ""},
		{"valid: only required", `{"s":"ok"}`, ""},
		{"valid: integer written 2.0", `{"s":"ok","n":2.0}`, ""},
		{"required", `{}`, `missing required property "s"`},
		{"type", `{"s":5}`, `/s: want string, got number`},
		{"type integer", `{"s":"ok","n":2.5}`, `/n: want integer`},
		{"enum", `{"s":"ok","e":"blue"}`, `/e: want one of`},
		{"const", `{"s":"ok","c":"other"}`, `/c: want "fixed"`},
		{"additionalProperties", `{"s":"ok","x":1}`, `unexpected property "x"`},
		{"items", `{"s":"ok","list":[1]}`, `/list/0: want string`},
		{"minimum", `{"s":"ok","n":0}`, `/n: want >= 1`},
		{"maximum", `{"s":"ok","n":11}`, `/n: want <= 10`},
		{"minLength", `{"s":"x"}`, `/s: want at least 2 characters`},
		{"maxLength in code points", `{"s":"ééééé"}`, `/s: want at most 4 characters`},
		{"valid: maxLength counts code points", `{"s":"éééé"}`, ""},
		{"minItems", `{"s":"ok","list":[]}`, `/list: want at least 1 items`},
		{"maxItems", `{"s":"ok","list":["a","b","c"]}`, `/list: want at most 2 items`},
		{"arguments absent", ``, `missing required property "s"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withRegistry("base", "extras"))
			params := `"name":"typed"`
			if tt.args != "" {
				params += `,"arguments":` + tt.args
			}
			got := mustServeOne(t, s, req("1", "tools/call", params))
			res := mustDecode(t, got)["result"]
			isError, _ := jsonPath(res, "isError").(bool)
			text, _ := jsonPath(res, "content.0.text").(string)
			if tt.want == "" {
				if isError || res == nil {
					t.Errorf("typed(%s) = %s, want success", tt.args, got)
				}
				return
			}
			if !isError || !strings.Contains(text, tt.want) {
				t.Errorf("typed(%s) = %s, want isError with %q", tt.args, got, tt.want)
			}
		})
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
		body, err := json.Marshal(got.body)
		if err != nil || !bytes.Equal(body, want) {
			t.Errorf("result()\n got: %s, %v\nwant: %s", body, err, want)
		}
	}
}

// TestNonFiniteArguments checks that a number beyond a 64-bit float
// (1e400) is refused as an invalid argument the model can correct, in
// plain words, before the tool runs: req.Number would read it as an
// infinity. Issue 20, finding 4: add {"a":1e400} answered the model with
// "json: unsupported value: +Inf".
func TestNonFiniteArguments(t *testing.T) {
	const outOfRange = "is out of range: numbers must be finite, at most about 1.8e308 in magnitude"
	for _, tt := range []struct {
		name, tool, args, want string // want: the tool error's text; "" a result
	}{
		{"positive overflow", "add", `{"a":1e400,"b":1}`, "invalid arguments for tool add: /a: number 1e400 " + outOfRange},
		{"negative overflow", "add", `{"a":1,"b":-1e400}`, "invalid arguments for tool add: /b: number -1e400 " + outOfRange},
		{"three hundred and ten digits", "add", `{"a":1` + strings.Repeat("0", 310) + `,"b":1}`, "invalid arguments for tool add: /a: number 1" + strings.Repeat("0", 60)},
		{"nested, without a schema", "anything", `{"x":[1,{"y":1E+999}]}`, "invalid arguments for tool anything: /x/1/y: number 1E+999 " + outOfRange},
		{"underflow is finite", "add", `{"a":1e-400,"b":2}`, ""},
		{"the largest float", "add", `{"a":1.7976931348623157e308,"b":0}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, withSetup(func(s *server) {
				s.addTool(tool{Name: "anything", HandlerValidates: true, InputSchema: `{"type":"object","anyOf":[{}]}`,
					Call: func(ctx context.Context, req *request) (*toolResult, error) { return textResult("ran"), nil }})
			}))
			got := mustDecode(t, mustServeOne(t, s, req("1", "tools/call", `"name":"`+tt.tool+`","arguments":`+tt.args)))
			res, _ := got["result"].(map[string]any)
			text, _ := jsonPath(res, "content.0.text").(string)
			if tt.want == "" {
				if res == nil || res["isError"] != nil {
					t.Errorf("tools/call %s %s = %s, want a result", tt.tool, tt.args, mustJSON(t, got))
				}
				return
			}
			if res == nil || res["isError"] != true || !strings.HasPrefix(text, tt.want) {
				t.Errorf("tools/call %s = %s\nwant a tool error starting %q", tt.args, mustJSON(t, got), tt.want)
			}
		})
	}
}

// TestToolErrorsCarryNoGoText checks that an error a tool returns reaches
// the model only when the tool wrote it: one that wraps the standard
// library's (JSON, strconv, files, network) describes the server's
// internals, and is answered -32603 "internal error" with a log reference,
// the details in the log. Issue 20, finding 4.
func TestToolErrorsCarryNoGoText(t *testing.T) {
	_, fileErr := os.ReadFile(filepath.Join(t.TempDir(), "secret", "path"))
	_, numErr := strconv.Atoi("x")
	_, jsonErr := structuredResult(map[string]float64{"v": math.Inf(1)})
	for _, tt := range []struct {
		name     string
		err      error
		internal bool
	}{
		{"the tool's own words", errors.New("the city is unknown"), false},
		{"the tool's own words around its own error", fmt.Errorf("lookup: %w", errors.New("no such city")), false},
		{"structuredResult of an infinity", jsonErr, true},
		{"a file error", fileErr, true},
		{"a file error, wrapped", fmt.Errorf("load settings: %w", fileErr), true},
		{"a strconv error", numErr, true},
		{"an early end of input", io.ErrUnexpectedEOF, true},
		{"an unmarshal error", json.Unmarshal([]byte(`{"a":"x"}`), &struct{ A int }{}), true},
		{"a DNS error", fmt.Errorf("fetch: %w", &net.DNSError{Err: "no such host", Name: "internal.example"}), true},
		{"an address error", &net.AddrError{Err: "missing port", Addr: "10.0.0.1"}, true},
		{"a URL error", &url.Error{Op: "Get", URL: "http://10.0.0.1/secret", Err: errors.New("refused")}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			logs := &syncBuffer{}
			s := newTestServer(t, withRegistry(), withLogs(logs), withSetup(func(s *server) {
				s.addTool(tool{Name: "fails", Call: func(ctx context.Context, req *request) (*toolResult, error) { return nil, tt.err }})
			}))
			got := mustServeOne(t, s, req("1", "tools/call", `"name":"fails"`))
			if !tt.internal {
				if text, _ := jsonPath(mustDecode(t, got), "result.content.0.text").(string); text != tt.err.Error() {
					t.Errorf("tools/call = %s, want the tool error %q", got, tt.err.Error())
				}
				return
			}
			if errorCode(t, got) != codeInternalError || !strings.Contains(got, `"message":"internal error"`) || !strings.Contains(got, `"ref":`) {
				t.Errorf("tools/call = %s, want -32603 internal error with a ref", got)
			}
			if strings.Contains(got, tt.err.Error()) {
				t.Errorf("the Go error text reached the client: %s", got)
			}
			if !strings.Contains(logs.String(), "tool fails") {
				t.Errorf("log has no line for the failure: %s", logs.String())
			}
		})
	}
}
