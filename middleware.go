// Middleware: the one hook an operator adds in code to wrap every tool,
// prompt and resource call (auditing, policy, quotas, their own spans)
// without editing the engine. A middleware sees the call (what kind, what
// name), its request (the principal, the trace context, the allowed HTTP
// headers, the arguments) and the context the handler will get; it may
// refuse the call, change the context, or run it and look at its error.
//
// Spec: none in MCP; the hook runs where the spec's handlers run, and
// its errors take the handler's path to the client
// (https://modelcontextprotocol.io/specification/2026-07-28/server/tools#error-handling).

package main

import "context"

// middleware wraps one call of a tool, prompt or resource. It calls next
// to run the call (with ctx, or a context derived from it) and returns
// what next returns, or returns an error without calling next to refuse
// the call. Its error is the call's error, treated like the handler's
// own: an *rpcError is a protocol error with that code; the answer a
// handler gives with req.NeedInput is passed on; any other error is a
// tool result with isError: true for a tool, and -32603 "internal error"
// (logged under a reference) for a prompt or a resource. A middleware
// that neither calls next nor returns an error leaves the call without a
// result, which is answered -32603.
//
// It runs on the goroutine that runs the handler, once per run: the
// request's, after the arguments were validated, and again on each round
// of a multi round-trip request (each retry of a modern client, each
// answer of a classic one); for a tool call that became a task, the
// task's (tasks.go), where the request has no HTTP headers and no params
// beyond the tool's arguments. It must be safe for concurrent use: calls
// run at once.
type middleware func(ctx context.Context, call callInfo, next func(ctx context.Context) error) error

// callInfo is what a middleware knows of the call it wraps.
type callInfo struct {
	// Kind is callKindTool, callKindPrompt or callKindResource.
	Kind string
	// Name is the tool's or the prompt's name, or the resource's URI
	// (the URI read, not its template).
	Name string
	// Request is the request being served: Principal() says who, Trace()
	// the trace context, Header(name) the allowed HTTP headers, Arg and
	// friends a tool's arguments, Logger() a logger tied to the request.
	Request *request
}

// The kinds of call a middleware wraps.
const (
	callKindTool     = "tool"
	callKindPrompt   = "prompt"
	callKindResource = "resource"
)

// addMiddleware adds mw around every tool, prompt and resource call,
// inside those added before it: the first added runs first and sees the
// outcome last. It is registration like addTool (call it from
// buildRegistry), and like it safe while serving: a call in flight keeps
// the middleware it started with. A nil mw is a programming error.
func (s *server) addMiddleware(mw middleware) {
	if mw == nil {
		panic("addMiddleware: nil middleware")
	}
	s.update(func(r *registry) { r.middleware = append(r.middleware, mw) })
}

// aroundTool, aroundPrompt and aroundResource return the call of a tool,
// a prompt or a resource read through the snapshot's middleware. The
// handlers use them only when there is middleware: without any they call
// the function directly, and a server without middleware pays nothing
// (not even an allocation) for the hook.
func (r *registry) aroundTool(t *tool) func(ctx context.Context, req *request) (*toolResult, error) {
	return func(ctx context.Context, req *request) (res *toolResult, err error) {
		err = aroundFrom(r.middleware, ctx, callInfo{Kind: callKindTool, Name: t.Name, Request: req}, func(ctx context.Context) error {
			res, err = t.Call(ctx, req)
			return err
		})
		return res, err
	}
}

// aroundPrompt is aroundTool for a prompt's Get.
func (r *registry) aroundPrompt(p *prompt) func(ctx context.Context, req *request, args map[string]string) (*promptResult, error) {
	return func(ctx context.Context, req *request, args map[string]string) (res *promptResult, err error) {
		err = aroundFrom(r.middleware, ctx, callInfo{Kind: callKindPrompt, Name: p.Name, Request: req}, func(ctx context.Context) error {
			res, err = p.Get(ctx, req, args)
			return err
		})
		return res, err
	}
}

// aroundResource is readResource through the snapshot's middleware.
func (r *registry) aroundResource(ctx context.Context, req *request, uri string, res *resource, tmpl *resourceTemplate, vars map[string]string) (contents []resourceContents, err error) {
	err = aroundFrom(r.middleware, ctx, callInfo{Kind: callKindResource, Name: uri, Request: req}, func(ctx context.Context) error {
		contents, err = readResource(ctx, req, uri, res, tmpl, vars)
		return err
	})
	return contents, err
}

// aroundFrom runs call inside mws[0], which runs the rest inside it.
func aroundFrom(mws []middleware, ctx context.Context, info callInfo, call func(ctx context.Context) error) error {
	if len(mws) == 0 {
		return call(ctx)
	}
	return mws[0](ctx, info, func(ctx context.Context) error {
		return aroundFrom(mws[1:], ctx, info, call)
	})
}
