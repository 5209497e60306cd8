package scenario

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// demoTools are the demo registry's tools every listing must show.
var demoTools = []string{"echo", "add", "slow", "confirm_delete", "ask_model", "list_roots", "toggle_extra_tool"}

// pngMagic starts every PNG file.
var pngMagic = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}

// The wire shapes the scenarios read, decoded from each SDK's JSON.
type (
	toolInfo struct {
		Name         string         `json:"name"`
		InputSchema  map[string]any `json:"inputSchema"`
		OutputSchema map[string]any `json:"outputSchema"`
	}
	content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	callResult struct {
		Content           []content       `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	promptInfo struct {
		Name      string `json:"name"`
		Arguments []struct {
			Name     string `json:"name"`
			Required bool   `json:"required"`
		} `json:"arguments"`
	}
	resourceContents struct {
		URI      string `json:"uri"`
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
		Blob     string `json:"blob"`
	}
)

// scenario is one named check; needs, when set, returns why the scenario
// does not apply to this run ("" when it does).
type scenario struct {
	name  string
	needs func(*run) string
	run   func(context.Context, *run) error
}

// since returns a needs function for what revision introduced.
func since(revision string) func(*run) string {
	return func(r *run) string {
		if r.cfg.Expect < revision {
			return "not defined before " + revision
		}
		return ""
	}
}

// all combines needs functions: the first reason wins.
func all(needs ...func(*run) string) func(*run) string {
	return func(r *run) string {
		for _, n := range needs {
			if why := n(r); why != "" {
				return why
			}
		}
		return ""
	}
}

// feature returns a needs function for a client feature.
func feature(name string, has func(Features) bool) func(*run) string {
	return func(r *run) string {
		if !has(r.cfg.Features) {
			return "the client does not implement " + name
		}
		return ""
	}
}

// serverRequests is needed by scenarios in which the server asks the
// client something: in the classic era that is a server-to-client request,
// which some clients cannot take over HTTP; in the modern era it is a
// multi round-trip result, which every modern client handles.
func serverRequests(r *run) string {
	if r.transport == "http" && !r.cfg.Modern() && !r.cfg.Features.ServerRequestsOverHTTP {
		return "the client's HTTP transport does not answer server-to-client requests"
	}
	return ""
}

// classicOnly is needed by logging/setLevel, which the modern era dropped.
func classicOnly(r *run) string {
	if r.cfg.Modern() {
		return "no logging/setLevel in " + V20260728
	}
	return ""
}

var (
	hasElicitation = feature("elicitation", func(f Features) bool { return f.Elicitation })
	hasSampling    = feature("sampling", func(f Features) bool { return f.Sampling })
	hasRoots       = feature("roots", func(f Features) bool { return f.Roots })
	hasLogging     = feature("logging notifications", func(f Features) bool { return f.Logging })
	hasCompletion  = feature("completion", func(f Features) bool { return f.Completion })
)

// decode turns an SDK value into a wire shape through its JSON.
func decode(v any, out any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("marshal %T: %w", v, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decode %s: %w", short(raw), err)
	}
	return nil
}

// short bounds a value for a failure message.
func short(v any) string {
	var s string
	switch x := v.(type) {
	case []byte:
		s = string(x)
	case json.RawMessage:
		s = string(x)
	case string:
		s = x
	default:
		b, _ := json.Marshal(v)
		s = string(b)
	}
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// call calls a tool and decodes the result.
func call(ctx context.Context, r *run, name string, args map[string]any, meta map[string]any) (callResult, error) {
	var res callResult
	v, err := r.s.CallTool(ctx, name, args, meta)
	if err != nil {
		return res, err
	}
	return res, decode(v, &res)
}

// expectText checks that res is a success whose first text is want.
func expectText(res callResult, want string) error {
	if res.IsError {
		return fmt.Errorf("isError result %s", short(res.Content))
	}
	for _, c := range res.Content {
		if c.Type == "text" {
			if strings.TrimSpace(c.Text) != want {
				return fmt.Errorf("text %q, want %q", c.Text, want)
			}
			return nil
		}
	}
	return fmt.Errorf("no text content in %s", short(res.Content))
}

// readOne reads uri and returns its first contents.
func readOne(ctx context.Context, r *run, uri string) (resourceContents, error) {
	v, err := r.s.ReadResource(ctx, uri)
	if err != nil {
		return resourceContents{}, err
	}
	var res struct {
		Contents []resourceContents `json:"contents"`
	}
	if err := decode(v, &res); err != nil {
		return resourceContents{}, err
	}
	if len(res.Contents) == 0 {
		return resourceContents{}, errors.New("no contents")
	}
	return res.Contents[0], nil
}

// waitFor polls cond until it holds or ms pass: notifications may trail
// the response they belong to.
func waitFor(cond func() bool, ms int) bool {
	end := time.Now().Add(time.Duration(ms) * time.Millisecond)
	for !cond() && time.Now().Before(end) {
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}

// scenarios are run in this order; later ones read what earlier ones left
// in run (tools, prompts, slow).
var scenarios = []scenario{
	{name: "connect.version", run: func(ctx context.Context, r *run) error {
		if got := r.s.Negotiated(); got != r.cfg.Expect {
			return fmt.Errorf("negotiated %q, want %q (the client offered %q)", got, r.cfg.Expect, r.cfg.Offer)
		}
		if !r.cfg.Modern() {
			var info struct {
				Name string `json:"name"`
			}
			if err := decode(r.s.ServerInfo(), &info); err != nil || info.Name == "" {
				return fmt.Errorf("initialize result has no serverInfo.name: %s", short(r.s.ServerInfo()))
			}
		}
		return nil
	}},
	{name: "server.capabilities", run: func(ctx context.Context, r *run) error {
		var caps map[string]json.RawMessage
		if err := decode(r.s.ServerCapabilities(), &caps); err != nil {
			return err
		}
		want := []string{"tools", "resources", "prompts"}
		if r.cfg.Expect >= V20250326 && r.cfg.Features.CompletionsCapability {
			want = append(want, "completions")
		}
		for _, k := range want {
			if v, ok := caps[k]; !ok || string(v) == "null" {
				return fmt.Errorf("capabilities.%s missing in %s", k, short(caps))
			}
		}
		return nil
	}},
	{name: "logging.setLevel", needs: all(classicOnly, hasLogging), run: func(ctx context.Context, r *run) error {
		return r.s.SetLogLevel(ctx, "debug")
	}},
	{name: "tools.list", run: func(ctx context.Context, r *run) error {
		v, err := r.s.ListTools(ctx)
		if err != nil {
			return err
		}
		var res struct {
			Tools []toolInfo `json:"tools"`
		}
		if err := decode(v, &res); err != nil {
			return err
		}
		r.tools = res.Tools
		var names []string
		for _, t := range res.Tools {
			names = append(names, t.Name)
			if t.InputSchema["type"] != "object" {
				return fmt.Errorf("tool %s inputSchema.type is %v", t.Name, t.InputSchema["type"])
			}
		}
		for _, n := range demoTools {
			if !slices.Contains(names, n) {
				return fmt.Errorf("tool %s missing; got %v", n, names)
			}
		}
		return nil
	}},
	{name: "tools.list.add-outputSchema", needs: since(V20250618), run: func(ctx context.Context, r *run) error {
		for _, t := range r.tools {
			if t.Name == "add" {
				props, _ := t.OutputSchema["properties"].(map[string]any)
				if t.OutputSchema["type"] != "object" || props["sum"] == nil {
					return fmt.Errorf("add outputSchema %s, want an object with sum", short(t.OutputSchema))
				}
				return nil
			}
		}
		return errors.New("tools.list did not run or lacks add")
	}},
	{name: "tools.call.echo", run: func(ctx context.Context, r *run) error {
		res, err := call(ctx, r, "echo", map[string]any{"message": "hello interop"}, nil)
		if err != nil {
			return err
		}
		return expectText(res, "hello interop")
	}},
	{name: "tools.call.add", run: func(ctx context.Context, r *run) error {
		res, err := call(ctx, r, "add", map[string]any{"a": 2, "b": 3}, nil)
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("isError result %s", short(res.Content))
		}
		hasStructured := len(res.StructuredContent) > 0 && string(res.StructuredContent) != "null"
		if r.cfg.Expect >= V20250618 {
			var sc struct {
				Sum float64 `json:"sum"`
			}
			if !hasStructured || json.Unmarshal(res.StructuredContent, &sc) != nil || sc.Sum != 5 {
				return fmt.Errorf("structuredContent %s, want {\"sum\":5}", short(res.StructuredContent))
			}
		} else if hasStructured {
			return fmt.Errorf("structuredContent %s in %s, which does not define it", short(res.StructuredContent), r.cfg.Expect)
		}
		for _, c := range res.Content {
			if strings.Contains(c.Text, "5") {
				return nil
			}
		}
		return fmt.Errorf("no sum in text content %s", short(res.Content))
	}},
	{name: "tools.call.slow", run: func(ctx context.Context, r *run) error {
		before, beforeLogs, _, _, _ := r.ev.snapshot()
		meta := map[string]any{"progressToken": "slow-1"}
		if r.cfg.Modern() {
			meta[LogLevelMetaKey] = "debug"
		}
		res, err := call(ctx, r, "slow", map[string]any{"steps": 3}, meta)
		if err != nil {
			return err
		}
		if err := expectText(res, "done after 3 steps"); err != nil {
			return err
		}
		var progress []float64
		var logs []string
		waitFor(func() bool {
			p, l, _, _, _ := r.ev.snapshot()
			progress, logs = p[len(before):], l[len(beforeLogs):]
			return len(progress) >= 3 && (!r.cfg.Features.Logging || len(logs) >= 3)
		}, 500)
		r.slow = &slowOutcome{progress: progress, logs: logs}
		return nil
	}},
	{name: "notifications.progress", run: func(ctx context.Context, r *run) error {
		if r.slow == nil {
			return errors.New("slow did not run")
		}
		p := r.slow.progress
		if len(p) != 3 {
			return fmt.Errorf("got %d progress notifications, want 3: %v", len(p), p)
		}
		for i := 1; i < len(p); i++ {
			if p[i] <= p[i-1] {
				return fmt.Errorf("progress not increasing: %v", p)
			}
		}
		return nil
	}},
	{name: "notifications.log", needs: hasLogging, run: func(ctx context.Context, r *run) error {
		if r.slow == nil {
			return errors.New("slow did not run")
		}
		n := 0
		for _, l := range r.slow.logs {
			if l == "info" {
				n++
			}
		}
		if n != 3 {
			return fmt.Errorf("got %d info log notifications during slow, want 3: %v", n, r.slow.logs)
		}
		return nil
	}},
	{name: "elicitation.confirm_delete", needs: all(since(V20250618), hasElicitation, serverRequests), run: func(ctx context.Context, r *run) error {
		_, _, before, _, _ := r.ev.snapshot()
		res, err := call(ctx, r, "confirm_delete", map[string]any{"path": "/tmp/interop.txt"}, nil)
		if err != nil {
			return err
		}
		if err := expectText(res, "deleted /tmp/interop.txt"); err != nil {
			return err
		}
		if _, _, after, _, _ := r.ev.snapshot(); after == before {
			return errors.New("the elicitation handler was never called")
		}
		var p struct {
			Message         string `json:"message"`
			RequestedSchema struct {
				Type       string `json:"type"`
				Properties map[string]struct {
					Type string `json:"type"`
				} `json:"properties"`
			} `json:"requestedSchema"`
		}
		raw := r.ev.lastElicitation()
		if err := json.Unmarshal(raw, &p); err != nil || p.Message == "" ||
			p.RequestedSchema.Type != "object" || p.RequestedSchema.Properties["confirm"].Type != "boolean" {
			return fmt.Errorf("elicitation params %s lack a message or a boolean confirm", short(raw))
		}
		return nil
	}},
	{name: "sampling.ask_model", needs: all(hasSampling, serverRequests), run: func(ctx context.Context, r *run) error {
		_, _, _, before, _ := r.ev.snapshot()
		res, err := call(ctx, r, "ask_model", map[string]any{"question": "What is six times seven?"}, nil)
		if err != nil {
			return err
		}
		if err := expectText(res, "model said: "+SamplingAnswer); err != nil {
			return err
		}
		if _, _, _, after, _ := r.ev.snapshot(); after == before {
			return errors.New("the sampling handler was never called")
		}
		var p struct {
			Messages  []json.RawMessage `json:"messages"`
			MaxTokens *int              `json:"maxTokens"`
		}
		raw := r.ev.lastSampling()
		if err := json.Unmarshal(raw, &p); err != nil || len(p.Messages) == 0 || p.MaxTokens == nil {
			return fmt.Errorf("sampling params %s lack messages or maxTokens", short(raw))
		}
		return nil
	}},
	{name: "roots.list_roots", needs: all(hasRoots, serverRequests), run: func(ctx context.Context, r *run) error {
		// Only the client knows RootURI; some SDKs answer roots/list
		// from their own root list without calling a handler.
		res, err := call(ctx, r, "list_roots", map[string]any{}, nil)
		if err != nil {
			return err
		}
		return expectText(res, RootURI)
	}},
	{name: "tools.call.unknown-tool", run: func(ctx context.Context, r *run) error {
		res, err := call(ctx, r, "no_such_tool", map[string]any{}, nil)
		if err != nil {
			return nil // a JSON-RPC error is the answer
		}
		if !res.IsError {
			return fmt.Errorf("calling an unknown tool succeeded: %s", short(res))
		}
		return nil
	}},
	{name: "resources.list", run: func(ctx context.Context, r *run) error {
		v, err := r.s.ListResources(ctx)
		if err != nil {
			return err
		}
		var res struct {
			Resources []struct {
				URI      string `json:"uri"`
				MimeType string `json:"mimeType"`
			} `json:"resources"`
		}
		if err := decode(v, &res); err != nil {
			return err
		}
		want := map[string]string{"demo://readme": "text/plain", "demo://logo": "image/png"}
		for _, x := range res.Resources {
			if m, ok := want[x.URI]; ok {
				if x.MimeType != m {
					return fmt.Errorf("%s mimeType %q, want %q", x.URI, x.MimeType, m)
				}
				delete(want, x.URI)
			}
		}
		if len(want) > 0 {
			return fmt.Errorf("resources missing: %v (got %s)", want, short(res.Resources))
		}
		return nil
	}},
	{name: "resources.read.readme", run: func(ctx context.Context, r *run) error {
		c, err := readOne(ctx, r, "demo://readme")
		if err != nil {
			return err
		}
		if c.URI != "demo://readme" || c.Text == "" || c.MimeType != "text/plain" {
			return fmt.Errorf("contents %s, want text/plain text for demo://readme", short(c))
		}
		return nil
	}},
	{name: "resources.read.logo", run: func(ctx context.Context, r *run) error {
		c, err := readOne(ctx, r, "demo://logo")
		if err != nil {
			return err
		}
		b, err := base64.StdEncoding.DecodeString(c.Blob)
		if err != nil || !bytes.HasPrefix(b, pngMagic) || c.MimeType != "image/png" {
			return fmt.Errorf("contents %s, want an image/png blob", short(c))
		}
		return nil
	}},
	{name: "resources.templates.list", run: func(ctx context.Context, r *run) error {
		v, err := r.s.ListResourceTemplates(ctx)
		if err != nil {
			return err
		}
		var res struct {
			ResourceTemplates []struct {
				URITemplate string `json:"uriTemplate"`
			} `json:"resourceTemplates"`
		}
		if err := decode(v, &res); err != nil {
			return err
		}
		for _, t := range res.ResourceTemplates {
			if t.URITemplate == "demo://items/{id}" {
				return nil
			}
		}
		return fmt.Errorf("demo://items/{id} missing in %s", short(res.ResourceTemplates))
	}},
	{name: "resources.read.template", run: func(ctx context.Context, r *run) error {
		c, err := readOne(ctx, r, "demo://items/42")
		if err != nil {
			return err
		}
		if c.URI != "demo://items/42" || c.Text != "item 42" {
			return fmt.Errorf("contents %s, want demo://items/42 with text \"item 42\"", short(c))
		}
		return nil
	}},
	{name: "resources.read.unknown", run: func(ctx context.Context, r *run) error {
		if v, err := r.s.ReadResource(ctx, "demo://no-such-resource"); err == nil {
			return fmt.Errorf("reading an unknown resource succeeded: %s", short(v))
		}
		return nil
	}},
	{name: "prompts.list", run: func(ctx context.Context, r *run) error {
		v, err := r.s.ListPrompts(ctx)
		if err != nil {
			return err
		}
		var res struct {
			Prompts []promptInfo `json:"prompts"`
		}
		if err := decode(v, &res); err != nil {
			return err
		}
		r.prompts = res.Prompts
		for _, p := range res.Prompts {
			if p.Name == "greet" {
				for _, a := range p.Arguments {
					if a.Name == "name" {
						return nil
					}
				}
				return fmt.Errorf("greet has no argument name: %s", short(p))
			}
		}
		return fmt.Errorf("prompt greet missing in %s", short(res.Prompts))
	}},
	{name: "prompts.get.greet", run: func(ctx context.Context, r *run) error {
		v, err := r.s.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"})
		if err != nil {
			return err
		}
		var res struct {
			Messages []struct {
				Role    string  `json:"role"`
				Content content `json:"content"`
			} `json:"messages"`
		}
		if err := decode(v, &res); err != nil {
			return err
		}
		if len(res.Messages) == 0 || res.Messages[0].Role != "user" || res.Messages[0].Content.Text != "Hello, Ada!" {
			return fmt.Errorf("messages %s, want one user text \"Hello, Ada!\"", short(res.Messages))
		}
		return nil
	}},
	{name: "completion.greet.name", needs: hasCompletion, run: func(ctx context.Context, r *run) error {
		v, err := r.s.CompletePrompt(ctx, "greet", "name", "A")
		if err != nil {
			return err
		}
		var res struct {
			Completion struct {
				Values []string `json:"values"`
			} `json:"completion"`
		}
		if err := decode(v, &res); err != nil {
			return err
		}
		if !slices.Equal(res.Completion.Values, []string{"Ada", "Alan"}) {
			return fmt.Errorf("completion values %v, want [Ada Alan]", res.Completion.Values)
		}
		return nil
	}},
	{name: "elicitation.prompts.get.personal_greeting", needs: all(since(V20250618), hasElicitation, serverRequests), run: func(ctx context.Context, r *run) error {
		_, _, before, _, _ := r.ev.snapshot()
		v, err := r.s.GetPrompt(ctx, "personal_greeting", nil)
		if err != nil {
			return err
		}
		if _, _, after, _, _ := r.ev.snapshot(); after == before {
			return errors.New("the elicitation handler was never called")
		}
		var res struct {
			Messages []struct {
				Content content `json:"content"`
			} `json:"messages"`
		}
		if err := decode(v, &res); err != nil {
			return err
		}
		if len(res.Messages) == 0 || res.Messages[0].Content.Text != "Hello, alice!" {
			return fmt.Errorf("messages %s, want the text \"Hello, alice!\"", short(res.Messages))
		}
		return nil
	}},
	{name: "client.no-errors", run: func(ctx context.Context, r *run) error {
		if _, _, _, _, errs := r.ev.snapshot(); len(errs) > 0 {
			return fmt.Errorf("the client reported %d error(s): %s", len(errs), short(errs))
		}
		return nil
	}},
}
