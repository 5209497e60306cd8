// Prompts and argument completion: registration, prompts/list, prompts/get, completion/complete.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/prompts,
// https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/completion

package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// prompt is one prompt template. Get renders its messages from arguments
// checked against Arguments first (required ones present, all strings).
type prompt struct {
	Name        string
	Title       string
	Description string
	Arguments   []promptArgument
	Icons       []icon
	Meta        map[string]any // its _meta (2025-06-18 on)
	Get         func(ctx context.Context, req *request, args map[string]string) (*promptResult, error)
	// Scopes are what a caller needs beyond -oauth-scopes to get or complete it (scopes_http.go).
	Scopes []string
}

// promptArgument declares one argument of a prompt.
type promptArgument struct {
	Name        string    `json:"name"`
	Title       string    `json:"title,omitempty"`
	Description string    `json:"description,omitempty"`
	Required    bool      `json:"required,omitempty"`
	Complete    completer `json:"-"`
}

// completer suggests values for an argument that starts with value; args
// holds the arguments already resolved. The server truncates to maxCompletions.
type completer func(ctx context.Context, value string, args map[string]string) ([]string, error)

// prefixCompleter offers the values, in order, starting with what the client typed, ignoring case.
func prefixCompleter(values ...string) completer {
	return func(ctx context.Context, value string, args map[string]string) ([]string, error) {
		var out []string
		for _, v := range values {
			if strings.HasPrefix(strings.ToLower(v), strings.ToLower(value)) {
				out = append(out, v)
			}
		}
		return out, nil
	}
}

// promptResult is what Get returns.
type promptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []promptMessage `json:"messages"`
	// Meta is the result's _meta (every revision).
	Meta map[string]any `json:"-"`
}

// promptMessage is one message of a rendered prompt.
type promptMessage struct {
	Role    string  `json:"role"` // "user" or "assistant"
	Content content `json:"content"`
}

// addPrompt registers p. It panics on a missing name or Get, a duplicate name or argument.
func (s *server) addPrompt(p prompt) {
	if p.Name == "" || p.Get == nil {
		panic(fmt.Sprintf("addPrompt: prompt %q needs a Name and a Get function", p.Name))
	}
	checkItem("addPrompt "+p.Name, p.Scopes, nil, p.Icons, nil, p.Meta)
	seen := map[string]bool{}
	for _, a := range p.Arguments {
		if a.Name == "" || seen[a.Name] {
			panic(fmt.Sprintf("addPrompt %s: empty or duplicate argument %q", p.Name, a.Name))
		}
		seen[a.Name] = true
	}
	s.update(func(r *registry) {
		if r.prompt(p.Name) != nil {
			panic(fmt.Sprintf("addPrompt: duplicate prompt %q", p.Name))
		}
		r.prompts = append(r.prompts, &p)
	})
}

// removePrompt unregisters the prompt name; it reports whether it existed.
func (s *server) removePrompt(name string) (found bool) {
	s.update(func(r *registry) {
		n := len(r.prompts)
		r.prompts = slices.DeleteFunc(r.prompts, func(p *prompt) bool { return p.Name == name })
		found = len(r.prompts) < n
	})
	return found
}

// promptWire is a Prompt as prompts/list shows it.
type promptWire struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []promptArgument `json:"arguments,omitempty"`
	Icons       []icon           `json:"icons,omitempty"`
	Meta        map[string]any   `json:"_meta,omitempty"`
}

// wire returns p as version shows it (dialect.go); argument titles exist from 2025-06-18.
func (p *prompt) wire(version string) promptWire {
	args := p.Arguments
	if !atLeast(version, version20250618) && len(args) > 0 {
		args = slices.Clone(args)
		for i := range args {
			args[i].Title = ""
		}
	}
	return promptWire{p.Name, titleFor(version, p.Title), p.Description, args, iconsFor(version, p.Icons), metaFor(version, p.Meta)}
}

// handlePromptsList answers prompts/list in registration order.
func (s *server) handlePromptsList(ctx context.Context, req *request) (result, error) {
	return s.list("prompts", req)
}

// methodPromptsGet is the method that renders a prompt.
const methodPromptsGet = "prompts/get"

// handlePromptsGet renders a prompt. Unknown prompt and missing required arguments are -32602.
// [§Error Handling]: https://modelcontextprotocol.io/specification/2026-07-28/server/prompts#error-handling
func (s *server) handlePromptsGet(ctx context.Context, req *request) (result, error) {
	name, rerr := req.stringParam("name")
	if rerr != nil {
		return result{}, rerr
	}
	req.target = name
	reg := s.snapshot(req)
	p := reg.prompt(name)
	if p == nil {
		return result{}, &rpcError{Code: codeInvalidParams, Message: "unknown prompt: " + name, Data: map[string]string{"name": name}}
	}
	args, rerr := stringArguments(req.param("arguments"))
	if rerr != nil {
		return result{}, rerr
	}
	for _, a := range p.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return result{}, invalidParams("invalid params: prompt %s needs argument %q", name, a.Name)
		}
	}
	get := p.Get
	if len(reg.middleware) > 0 {
		get = reg.aroundPrompt(p)
	}
	res, err := get(ctx, req, args)
	if err != nil {
		return result{}, fmt.Errorf("prompt %s: %w", name, err) // an *rpcError stands (peerError)
	}
	if res == nil {
		return result{}, fmt.Errorf("prompt %s returned no result", name)
	}
	for i, m := range res.Messages {
		if err := m.Content.check(); err != nil {
			return result{}, fmt.Errorf("prompt %s: message %d: %w", name, i, err)
		}
	}
	if err := checkMeta(res.Meta); err != nil {
		return result{}, fmt.Errorf("prompt %s: %w", name, err)
	}
	meta, err := appendMetaMembers(nil, res.Meta)
	if err != nil {
		return result{}, err
	}
	return result{body: res.wire(req.version), meta: meta}, nil
}

// wire returns r as version shows it (contentFor).
func (r *promptResult) wire(version string) *promptResult {
	w := &promptResult{Description: r.Description, Messages: make([]promptMessage, len(r.Messages))}
	for i, m := range r.Messages {
		m.Content = contentFor(version, []content{m.Content})[0]
		w.Messages[i] = m
	}
	return w
}

// stringArguments decodes an object of strings (prompts/get arguments, completion context).
func stringArguments(raw []byte) (map[string]string, *rpcError) {
	args := map[string]string{}
	if raw == nil || jsonKind(raw) == 'n' {
		return args, nil
	}
	members, err := objectMembers(raw)
	if err != nil {
		return nil, invalidParams("invalid params: arguments must be an object")
	}
	for _, m := range members {
		v, ok := jsonString(m.value)
		if !ok {
			return nil, invalidParams("invalid params: argument %q must be a string", m.name)
		}
		args[m.name] = v
	}
	return args, nil
}

// maxCompletions is the most values one completion result may carry.
// [§Completion Results]: https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/completion#completion-results
const maxCompletions = 100

// handleComplete answers completion/complete for a prompt argument (ref/prompt) or a template
// variable (ref/resource). An argument without a completer gets no suggestions; an unknown
// prompt or template is -32602.
func (s *server) handleComplete(ctx context.Context, req *request) (result, error) {
	reg := s.snapshot(req)
	if !reg.hasCompleters() {
		return result{}, newError(codeMethodNotFound, "method not found: completion/complete (no completions offered)")
	}
	ref, rerr := objectParam(req.param("ref"), "ref", "type", "name", "uri")
	if rerr != nil {
		return result{}, rerr
	}
	arg, rerr := objectParam(req.param("argument"), "argument", "name", "value")
	if rerr != nil {
		return result{}, rerr
	}
	argName, argValue := arg["name"], arg["value"]
	if argName == "" {
		return result{}, invalidParams("invalid params: argument.name is required")
	}
	ctxArgs, rerr := completionContext(req.param("context"))
	if rerr != nil {
		return result{}, rerr
	}
	var complete completer
	switch ref["type"] {
	case "ref/prompt":
		p := reg.prompt(ref["name"])
		if p == nil {
			// Not echoed: a refusal costs no more than the request
			// (docs/SECURITY.md; TestAttackSmallAmplifiers).
			return result{}, invalidParams("unknown prompt: ref.name names no prompt")
		}
		for _, a := range p.Arguments {
			if a.Name == argName {
				complete = a.Complete
			}
		}
	case "ref/resource":
		t := reg.template(ref["uri"])
		if t == nil {
			return result{}, invalidParams("unknown resource template: ref.uri names no template")
		}
		complete = t.Complete[argName]
	default:
		return result{}, invalidParams("invalid params: ref.type must be ref/prompt or ref/resource")
	}
	values := []string{}
	if complete != nil {
		got, err := complete(ctx, argValue, ctxArgs)
		if err != nil {
			return result{}, fmt.Errorf("complete %s: %w", argName, err)
		}
		values = append(values, got...)
	}
	c := completion{Values: values, Total: len(values)}
	if len(values) > maxCompletions {
		c.Values, c.HasMore = values[:maxCompletions], true
	}
	return result{body: struct {
		Completion completion `json:"completion"`
	}{c}}, nil // a struct, not a map, as resources/read's body
}

// completionContext decodes the optional context of completion/complete:
// an object whose arguments member maps names to string values.
func completionContext(raw []byte) (map[string]string, *rpcError) {
	if raw == nil || jsonKind(raw) == 'n' {
		return nil, nil
	}
	members, err := objectMembers(raw)
	if err != nil {
		return nil, invalidParams("invalid params: context must be an object")
	}
	for _, m := range members {
		if known := foldedName(m.name, "arguments"); known != "" {
			return nil, newError(codeInvalidRequest, "invalid request: context member %q is not %q", m.name, known)
		}
		if m.name == "arguments" {
			args, rerr := stringArguments(m.value)
			if rerr != nil {
				return nil, invalidParams("invalid params: context.arguments must be an object of strings")
			}
			for _, v := range args {
				if len(v) > maxParamStringBytes {
					return nil, invalidParams("invalid params: context.arguments: a value longer than %d bytes", maxParamStringBytes)
				}
			}
			return args, nil
		}
	}
	return nil, nil
}

// objectParam decodes the named string members (at most maxParamStringBytes each) of an
// object param. Others are ignored; one imitating a named member by case folding is refused.
func objectParam(raw []byte, what string, names ...string) (map[string]string, *rpcError) {
	if raw == nil {
		return nil, invalidParams("invalid params: %s is required", what)
	}
	members, err := objectMembers(raw)
	if err != nil {
		return nil, invalidParams("invalid params: %s must be an object", what)
	}
	out := map[string]string{}
	for _, m := range members {
		if known := foldedName(m.name, names...); known != "" {
			return nil, newError(codeInvalidRequest, "invalid request: %s member %q is not %q", what, m.name, known)
		}
		if !slices.Contains(names, m.name) || jsonKind(m.value) == '{' {
			continue
		}
		v, ok := jsonString(m.value)
		if !ok {
			return nil, invalidParams("invalid params: %s.%s must be a string", what, m.name)
		}
		if len(v) > maxParamStringBytes {
			return nil, invalidParams("invalid params: %s.%s longer than %d bytes", what, m.name, maxParamStringBytes)
		}
		out[m.name] = v
	}
	return out, nil
}

// completion is CompleteResult.completion.
type completion struct {
	Values  []string `json:"values"`
	Total   int      `json:"total"`
	HasMore bool     `json:"hasMore"`
}
