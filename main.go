// Command baremcp is a Model Context Protocol server in one dependency-free
// binary.
//
// # Synopsis
//
//	baremcp [flags]                 serve MCP on stdin/stdout
//	baremcp -http 127.0.0.1:8080    serve Streamable HTTP at /mcp
//
// # Description
//
// baremcp serves the modern, stateless MCP revision 2026-07-28: every
// request carries its protocol version and client capabilities in
// params._meta, every result carries resultType and the server's identity,
// and nothing is remembered between requests.
//
// On stdio it reads one JSON-RPC message per line from standard input and
// writes one per line to standard output; logs go to standard error. It
// exits 0 when standard input ends, after answering every request it read.
//
// # Flags
//
//	-cache-ttl DURATION   ttlMs on cacheable results (default 1m)
//	-cache-scope SCOPE    cacheScope on cacheable results: public or private (default public)
//	-page-size N          items per page of list results; 0 means one page (default 0)
//
// # State
//
// The registry of tools, prompts and resources lives in memory and is
// built at start-up. No state is written anywhere.
//
// # Example
//
//	→ {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"},
//	     "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
//	← {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}],
//	     "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"baremcp","version":"0.1.0"}}}}
//
// # Security
//
// Every peer message is decoded strictly: duplicate keys, keys that imitate
// a protocol name by case folding, and NUL in keys are refused before any
// method runs. Tool arguments are validated against the tool's schema.
// Internal error details go to standard error, never to the peer.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "baremcp:", err)
		os.Exit(1)
	}
}

// run is the whole program: it parses args, builds the server and serves
// until the transport ends or ctx is cancelled.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("baremcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cacheTTL := fs.Duration("cache-ttl", time.Minute, "`duration` clients may cache list, discover and read results (ttlMs)")
	cacheScope := fs.String("cache-scope", scopePublic, "cacheScope of cacheable results: public or private")
	pageSize := fs.Int("page-size", 0, "items per page of list results; 0 means one page")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *cacheTTL < 0 {
		return errors.New("-cache-ttl must not be negative")
	}
	if *cacheScope != scopePublic && *cacheScope != scopePrivate {
		return fmt.Errorf("-cache-scope must be public or private, not %q", *cacheScope)
	}
	if *pageSize < 0 {
		return errors.New("-page-size must not be negative")
	}
	logger := log.New(stderr, "baremcp: ", log.LstdFlags|log.Lmicroseconds)
	s := newServer(config{cache: cacheHint{TTL: *cacheTTL, Scope: *cacheScope}, pageSize: *pageSize}, logger)
	registerBuiltin(s, getenv)
	return s.serveStdio(ctx, stdin, stdout)
}
