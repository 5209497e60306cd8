// Command mcpgo-v1.2.1 runs the interop scenarios through the client of
// github.com/mark3labs/mcp-go v1.2.1, the newest release: by default it
// probes server/discover and speaks 2026-07-28; WithProtocolVersion pins
// each classic version, which keeps it on initialize.
//
// Its ServerCapabilities struct has no completions field, so the
// capability check leaves that one out (CompletionsCapability false).
//
// usage: go run . -server PATH [-transport stdio|http|all] [-config RE] [-only RE]
package main

import (
	"context"
	"fmt"
	"os"

	"baremcp-interop/scenario"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// features: handlers for elicitation, sampling and roots on stdio and
// Streamable HTTP; log and progress notifications.
var features = scenario.Features{
	Elicitation: true, Sampling: true, Roots: true,
	ServerRequestsOverHTTP: true, Logging: true, Completion: true,
}

func main() {
	configs := []scenario.Config{{ID: "default", Expect: scenario.V20260728, Features: features}}
	for _, v := range []string{scenario.V20251125, scenario.V20250618, scenario.V20250326, scenario.V20241105} {
		configs = append(configs, scenario.Config{ID: v, Offer: v, Expect: v, Features: features})
	}
	os.Exit(scenario.Main(scenario.Client{Name: "mcpgo-v1.2.1", Configs: configs, Connect: connect}, os.Args[1:], os.Stdout, os.Stderr))
}

// handlers answers the server's requests and records them in ev.
type handlers struct{ ev *scenario.Events }

func (h handlers) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	h.ev.Sample(req.CreateMessageParams)
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent(scenario.SamplingAnswer)},
		Model:           "interop-test-model", StopReason: "endTurn",
	}, nil
}

func (h handlers) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: h.ev.Elicit(req.Params),
	}}, nil
}

func (h handlers) ListRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: scenario.RootURI, Name: "a"}}}, nil
}

func connect(ctx context.Context, cfg scenario.Config, t scenario.Target, ev *scenario.Events) (scenario.Session, error) {
	var tr transport.Interface
	switch t.Transport {
	case "stdio":
		tr = transport.NewStdio(t.Command, nil, t.Args...)
	case "http":
		h, err := transport.NewStreamableHTTP(t.URL)
		if err != nil {
			return nil, err
		}
		tr = h
	default:
		return nil, fmt.Errorf("unknown transport %q", t.Transport)
	}
	h := handlers{ev}
	opts := []client.ClientOption{client.WithSamplingHandler(h), client.WithElicitationHandler(h), client.WithRootsHandler(h)}
	if cfg.Offer != "" {
		opts = append(opts, client.WithProtocolVersion(cfg.Offer))
	}
	c := client.NewClient(tr, opts...)
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
	req.Params.ClientInfo = mcp.Implementation{Name: "baremcp-interop-mcpgo", Version: "0.0.0"}
	init, err := c.Initialize(ctx, req)
	if err != nil {
		c.Close()
		return nil, err
	}
	return &session{c: c, init: init}, nil
}

// session adapts an mcp-go v1.2 client to scenario.Session.
type session struct {
	c    *client.Client
	init *mcp.InitializeResult
}

func (s *session) Negotiated() string      { return s.c.ProtocolVersion() }
func (s *session) ServerInfo() any         { return s.init.ServerInfo }
func (s *session) ServerCapabilities() any { return s.init.Capabilities }

func (s *session) SetLogLevel(ctx context.Context, level string) error {
	req := mcp.SetLevelRequest{}
	req.Params.Level = mcp.LoggingLevel(level)
	return s.c.SetLevel(ctx, req)
}

func (s *session) ListTools(ctx context.Context) (any, error) {
	return s.c.ListTools(ctx, mcp.ListToolsRequest{})
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
	return s.c.CallTool(ctx, req)
}

func (s *session) ListResources(ctx context.Context) (any, error) {
	return s.c.ListResources(ctx, mcp.ListResourcesRequest{})
}

func (s *session) ListResourceTemplates(ctx context.Context) (any, error) {
	return s.c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
}

func (s *session) ReadResource(ctx context.Context, uri string) (any, error) {
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	return s.c.ReadResource(ctx, req)
}

func (s *session) ListPrompts(ctx context.Context) (any, error) {
	return s.c.ListPrompts(ctx, mcp.ListPromptsRequest{})
}

func (s *session) GetPrompt(ctx context.Context, name string, args map[string]string) (any, error) {
	req := mcp.GetPromptRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return s.c.GetPrompt(ctx, req)
}

func (s *session) CompletePrompt(ctx context.Context, prompt, argument, value string) (any, error) {
	req := mcp.CompleteRequest{}
	req.Params.Ref = mcp.PromptReference{Type: "ref/prompt", Name: prompt}
	req.Params.Argument = mcp.CompleteArgument{Name: argument, Value: value}
	return s.c.Complete(ctx, req)
}

func (s *session) Close() error { return s.c.Close() }
