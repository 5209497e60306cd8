// Middleware: the operator's one hook, added in code, around every tool, prompt and resource
// call (auditing, policy, quotas, spans); its use is in docs/OPERATIONS.md, "Middleware".
//
// Spec: none in MCP; its errors take the handler's path to the client
// (https://modelcontextprotocol.io/specification/2026-07-28/server/tools#error-handling).

package main

import "context"

// middleware wraps one call of a tool, prompt or resource: it runs the call with next (ctx
// or a context derived from it) and returns next's error, or refuses with an error of its
// own, handled as the handler's. One that does neither leaves the call without a result:
// -32603 (TestMiddlewareRefuses). It runs on the handler's goroutine after the arguments
// are validated, on each multi round-trip round, and in a task (whose request has no
// headers and no params beyond the arguments). It must be safe for concurrent use.
type middleware func(ctx context.Context, call callInfo, next func(ctx context.Context) error) error

// callInfo is what a middleware knows of the call it wraps.
type callInfo struct {
	Kind    string   // callKindTool, callKindPrompt or callKindResource
	Name    string   // the tool's or the prompt's name, or the resource's URI read (not its template)
	Request *request // the request being served (Principal, Trace, Header, the arguments, Logger)
}

// The kinds of call a middleware wraps.
const (
	callKindTool     = "tool"
	callKindPrompt   = "prompt"
	callKindResource = "resource"
)

// addMiddleware adds mw around every tool, prompt and resource call, inside those added
// before it (TestMiddlewareOrderAndContext). Like addTool it is safe while serving: a call
// in flight keeps the middleware it started with. A nil mw panics.
func (s *server) addMiddleware(mw middleware) {
	if mw == nil {
		panic("addMiddleware: nil middleware")
	}
	s.update(func(r *registry) { r.middleware = append(r.middleware, mw) })
}

// aroundTool returns t's Call through the snapshot's middleware. Handlers use it,
// aroundPrompt and aroundResource only when there is middleware: a server without any pays
// no allocation for the hook.
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
