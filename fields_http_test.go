//go:build !stdio

// The TypeScript SDK 1.32.2 against the fields part of the test registry
// (fields_test.go), over Streamable HTTP.

package main

import (
	"context"
	"flag"
	"net"
	"net/http"
	"os/exec"
	"testing"
	"time"
)

// tsFields is the -ts-fields flag: the path of
// harness/interop-clients/ts/fields.mjs, whose TypeScript SDK 1.32.2
// client TestFieldsTypeScriptClient runs against the fields registry
// (harness/interop-clients/check.sh sets it once npm ci has run).
var tsFields = flag.String("ts-fields", "", "run harness/interop-clients/ts/fields.mjs (the TypeScript SDK 1.32.2) against the fields registry")

// TestFieldsTypeScriptClient serves the fields registry over Streamable
// HTTP on a loopback port and runs the TypeScript SDK 1.32.2 client of
// fields.mjs against it: a 2025-11-25 session that lists and calls every
// tool. Skipped without -ts-fields.
func TestFieldsTypeScriptClient(t *testing.T) {
	if *tsFields == "" {
		t.Skip("-ts-fields is not set (harness/interop-clients/check.sh sets it)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t, withRegistry("fields"))
	tr := newHTTPTransport(s, &httpConfig{maxBody: defaultMaxBodyBytes}, ln.Addr())
	mux := http.NewServeMux()
	tr.routes(mux)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: httpReadHeaderTimeout}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		tr.sessions.closeAll()
		_ = srv.Close()
		<-served
		tr.auth.close()
	})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "node", *tsFields, "http://"+ln.Addr().String()).CombinedOutput()
	t.Logf("fields.mjs:\n%s", out)
	if err != nil {
		t.Errorf("fields.mjs: %v", err)
	}
}
