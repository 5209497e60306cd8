// Command mcpgo-v0.34.0 runs the interop scenarios through the client of
// github.com/mark3labs/mcp-go v0.34.0, the last 0.3x release whose newest
// protocol version is 2025-03-26 (v0.35.0 moved to 2025-06-18). Its
// client sends the version it is given (mcp.LATEST_PROTOCOL_VERSION) and
// does not check the one the server answers with.
//
// What the client can do decides what runs: sampling only over stdio (its
// Streamable HTTP transport mistakes a server request on the response
// stream for the response), no roots and no elicitation handlers. Its
// result structs drop fields later revisions added (structuredContent,
// capabilities.completions), so the scenarios judge the raw wire results
// the transport tap saw, after the SDK has parsed them.
//
// usage: go run . -server PATH [-transport stdio|http|all] [-only RE]
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"baremcp-interop/scenario"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

func main() {
	configs := []scenario.Config{{
		ID: "default", Offer: mcp.LATEST_PROTOCOL_VERSION, Expect: mcp.LATEST_PROTOCOL_VERSION, // 2025-03-26
		Features: scenario.Features{Sampling: true, Logging: true, Completion: true, CompletionsCapability: true},
	}}
	os.Exit(scenario.Main(scenario.Client{Name: "mcpgo-v0.34.0", Configs: configs, Connect: connect}, os.Args[1:], os.Stdout, os.Stderr))
}

// tap wraps a transport and keeps the raw result of the last response to
// each method, so scenarios can read what was on the wire.
type tap struct {
	transport.Interface
	mu   sync.Mutex // guards last
	last map[string]json.RawMessage
}

func (t *tap) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	res, err := t.Interface.SendRequest(ctx, req)
	if err == nil && res != nil && res.Error == nil {
		t.mu.Lock()
		t.last[req.Method] = res.Result
		t.mu.Unlock()
	}
	return res, err
}

// SetRequestHandler forwards to a transport that takes server requests
// (stdio); on others it does nothing, as the client itself would.
func (t *tap) SetRequestHandler(h transport.RequestHandler) {
	if b, ok := t.Interface.(transport.BidirectionalInterface); ok {
		b.SetRequestHandler(h)
	}
}

// result returns the raw result of the last method response.
func (t *tap) result(method string) json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last[method]
}

// sampler answers sampling/createMessage.
type sampler struct{ ev *scenario.Events }

func (s sampler) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	s.ev.Sample(req.CreateMessageParams)
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent(scenario.SamplingAnswer)},
		Model:           "interop-test-model", StopReason: "endTurn",
	}, nil
}

func connect(ctx context.Context, cfg scenario.Config, t scenario.Target, ev *scenario.Events) (scenario.Session, error) {
	var inner transport.Interface
	switch t.Transport {
	case "stdio":
		inner = transport.NewStdio(t.Command, nil, t.Args...)
	case "http":
		h, err := transport.NewStreamableHTTP(t.URL)
		if err != nil {
			return nil, err
		}
		inner = h
	default:
		return nil, fmt.Errorf("unknown transport %q", t.Transport)
	}
	tp := &tap{Interface: inner, last: map[string]json.RawMessage{}}
	c := client.NewClient(tp, client.WithSamplingHandler(sampler{ev}))
	// Start's context bounds the child process's life (exec.CommandContext),
	// not just the start: the connection outlives ctx.
	if err := c.Start(context.Background()); err != nil {
		return nil, err
	}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		switch n.Method {
		case "notifications/progress":
			if p, ok := n.Params.AdditionalFields["progress"].(float64); ok {
				ev.Progress(p)
			}
		case "notifications/message":
			if l, ok := n.Params.AdditionalFields["level"].(string); ok {
				ev.Log(l)
			}
		}
	})
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "baremcp-interop-mcpgo", Version: "0.0.0"}
	init, err := c.Initialize(ctx, req)
	if err != nil {
		c.Close()
		return nil, err
	}
	return &session{c: c, tap: tp, init: init}, nil
}

// session adapts an mcp-go v0.34 client to scenario.Session.
type session struct {
	c    *client.Client
	tap  *tap
	init *mcp.InitializeResult
}

// wire returns the raw result of method once the SDK call succeeded.
func (s *session) wire(method string, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return s.tap.result(method), nil
}

func (s *session) Negotiated() string { return s.init.ProtocolVersion }
func (s *session) ServerInfo() any    { return s.init.ServerInfo }

func (s *session) ServerCapabilities() any {
	var r struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	_ = json.Unmarshal(s.tap.result("initialize"), &r)
	return r.Capabilities
}

func (s *session) SetLogLevel(ctx context.Context, level string) error {
	req := mcp.SetLevelRequest{}
	req.Params.Level = mcp.LoggingLevel(level)
	return s.c.SetLevel(ctx, req)
}

func (s *session) ListTools(ctx context.Context) (any, error) {
	_, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	return s.wire("tools/list", err)
}

func (s *session) CallTool(ctx context.Context, name string, args map[string]any, meta map[string]any) (any, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	if meta != nil {
		m := &mcp.Meta{AdditionalFields: map[string]any{}}
		for k, v := range meta {
			if k == "progressToken" {
				m.ProgressToken = v
			} else {
				m.AdditionalFields[k] = v
			}
		}
		req.Params.Meta = m
	}
	_, err := s.c.CallTool(ctx, req)
	return s.wire("tools/call", err)
}

func (s *session) ListResources(ctx context.Context) (any, error) {
	_, err := s.c.ListResources(ctx, mcp.ListResourcesRequest{})
	return s.wire("resources/list", err)
}

func (s *session) ListResourceTemplates(ctx context.Context) (any, error) {
	_, err := s.c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	return s.wire("resources/templates/list", err)
}

func (s *session) ReadResource(ctx context.Context, uri string) (any, error) {
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	_, err := s.c.ReadResource(ctx, req)
	return s.wire("resources/read", err)
}

func (s *session) ListPrompts(ctx context.Context) (any, error) {
	_, err := s.c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	return s.wire("prompts/list", err)
}

func (s *session) GetPrompt(ctx context.Context, name string, args map[string]string) (any, error) {
	req := mcp.GetPromptRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	_, err := s.c.GetPrompt(ctx, req)
	return s.wire("prompts/get", err)
}

func (s *session) CompletePrompt(ctx context.Context, prompt, argument, value string) (any, error) {
	req := mcp.CompleteRequest{}
	req.Params.Ref = mcp.PromptReference{Type: "ref/prompt", Name: prompt}
	req.Params.Argument.Name = argument
	req.Params.Argument.Value = value
	_, err := s.c.Complete(ctx, req)
	return s.wire("completion/complete", err)
}

func (s *session) Close() error { return s.c.Close() }
