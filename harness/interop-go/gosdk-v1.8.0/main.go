// Command gosdk-v1.8.0 runs the interop scenarios through the official Go
// SDK's client (github.com/modelcontextprotocol/go-sdk, pinned in go.mod),
// pinned to each protocol version it offers: 2026-07-28 (server/discover,
// its default) and the four classic versions (initialize).
//
// usage: go run . -server PATH [-transport stdio|http|all] [-config RE] [-only RE]
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"

	"baremcp-interop/scenario"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// features: this client answers elicitation, sampling and roots on every
// transport and reports log and progress notifications.
var features = scenario.Features{
	Elicitation: true, Sampling: true, Roots: true,
	ServerRequestsOverHTTP: true, Logging: true, Completion: true, CompletionsCapability: true,
}

func main() {
	configs := []scenario.Config{{ID: "default", Expect: scenario.V20260728, Features: features}}
	for _, v := range []string{scenario.V20251125, scenario.V20250618, scenario.V20250326, scenario.V20241105} {
		configs = append(configs, scenario.Config{ID: v, Offer: v, Expect: v, Features: features})
	}
	os.Exit(scenario.Main(scenario.Client{Name: "gosdk-v1.8.0", Configs: configs, Connect: connect}, os.Args[1:], os.Stdout, os.Stderr))
}

// connect builds a client whose handlers report to ev and connects it.
func connect(ctx context.Context, cfg scenario.Config, t scenario.Target, ev *scenario.Events) (scenario.Session, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "baremcp-interop-gosdk", Version: "0.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: ev.Elicit(req.Params)}, nil
		},
		CreateMessageHandler: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			ev.Sample(req.Params)
			return &mcp.CreateMessageResult{
				Role: "assistant", Model: "interop-test-model", StopReason: "endTurn",
				Content: &mcp.TextContent{Text: scenario.SamplingAnswer},
			}, nil
		},
		LoggingMessageHandler: func(ctx context.Context, req *mcp.LoggingMessageRequest) {
			ev.Log(string(req.Params.Level))
		},
		ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
			ev.Progress(req.Params.Progress)
		},
	})
	client.AddRoots(&mcp.Root{URI: scenario.RootURI, Name: "a"})
	var transport mcp.Transport
	switch t.Transport {
	case "stdio":
		cmd := exec.Command(t.Command, t.Args...)
		cmd.Stderr = os.Stderr
		transport = &mcp.CommandTransport{Command: cmd}
	case "http":
		transport = &mcp.StreamableClientTransport{Endpoint: t.URL}
	default:
		return nil, fmt.Errorf("unknown transport %q", t.Transport)
	}
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: cfg.Offer})
	if err != nil {
		return nil, err
	}
	return &session{cs: cs}, nil
}

// session adapts a go-sdk ClientSession to scenario.Session.
type session struct{ cs *mcp.ClientSession }

func (s *session) Negotiated() string {
	if r := s.cs.InitializeResult(); r != nil {
		return r.ProtocolVersion
	}
	return ""
}

func (s *session) ServerInfo() any {
	if r := s.cs.InitializeResult(); r != nil {
		return r.ServerInfo
	}
	return nil
}

func (s *session) ServerCapabilities() any {
	if r := s.cs.InitializeResult(); r != nil {
		return r.Capabilities
	}
	return nil
}

func (s *session) SetLogLevel(ctx context.Context, level string) error {
	return s.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)})
}

func (s *session) ListTools(ctx context.Context) (any, error) { return s.cs.ListTools(ctx, nil) }

func (s *session) CallTool(ctx context.Context, name string, args map[string]any, meta map[string]any) (any, error) {
	p := &mcp.CallToolParams{Name: name, Arguments: args}
	if meta != nil {
		p.Meta = mcp.Meta(meta)
	}
	return s.cs.CallTool(ctx, p)
}

func (s *session) ListResources(ctx context.Context) (any, error) {
	return s.cs.ListResources(ctx, nil)
}

func (s *session) ListResourceTemplates(ctx context.Context) (any, error) {
	return s.cs.ListResourceTemplates(ctx, nil)
}

func (s *session) ReadResource(ctx context.Context, uri string) (any, error) {
	return s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
}

func (s *session) ListPrompts(ctx context.Context) (any, error) { return s.cs.ListPrompts(ctx, nil) }

func (s *session) GetPrompt(ctx context.Context, name string, args map[string]string) (any, error) {
	return s.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
}

func (s *session) CompletePrompt(ctx context.Context, prompt, argument, value string) (any, error) {
	return s.cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: prompt},
		Argument: mcp.CompleteParamsArgument{Name: argument, Value: value},
	})
}

func (s *session) Close() error {
	err := s.cs.Close()
	if errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}
