// Command listcheck asks an MCP server binary over stdio what it is and
// what tools it has, and compares the answers with what a copy of baremcp
// made its own should say (harness/make-it-yours/check.sh runs it on the
// release binary of such a copy).
//
// Usage:
//
//	go run . -bin PATH -name NAME -tools NAME[,NAME...]
//
// It starts PATH once per request, sends one line and closes stdin (the
// server answers every request it has read, then exits), and checks:
// the modern tools/list (2026-07-28) lists exactly the given tools, in
// that order, on one page, and its result's serverInfo is NAME; the
// classic initialize (2025-11-25) gives serverInfo NAME too. It prints
// what it saw and exits 1 when an answer differs, 2 when it cannot run.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

const (
	modernToolsList = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	classicInit     = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"listcheck","version":"1"}}}`
	// perRequest bounds one server run; the binary answers in milliseconds.
	perRequest = 10 * time.Second
)

func main() {
	bin := flag.String("bin", "", "server binary to ask")
	name := flag.String("name", "", "the serverInfo name it must give")
	tools := flag.String("tools", "", "comma-separated tool names tools/list must give, in order")
	flag.Parse()
	if *bin == "" || *name == "" || *tools == "" {
		fmt.Fprintln(os.Stderr, "usage: listcheck -bin PATH -name NAME -tools NAME[,NAME...]")
		os.Exit(2)
	}
	if err := check(*bin, *name, strings.Split(*tools, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "listcheck:", err)
		var cf checkFailed
		if errors.As(err, &cf) {
			os.Exit(1)
		}
		os.Exit(2)
	}
}

// checkFailed is an answer that differs from the expected one (as opposed
// to a server that could not be run or did not answer JSON).
type checkFailed string

func (c checkFailed) Error() string { return string(c) }

func check(bin, name string, tools []string) error {
	var list struct {
		Tools      []struct{ Name string } `json:"tools"`
		NextCursor *string                 `json:"nextCursor"`
		Meta       map[string]struct {
			Name string `json:"name"`
		} `json:"_meta"`
	}
	if err := ask(bin, modernToolsList, &list); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	var got []string
	for _, t := range list.Tools {
		got = append(got, t.Name)
	}
	fmt.Printf("tools/list (2026-07-28): tools %q, serverInfo %q\n", got, list.Meta["io.modelcontextprotocol/serverInfo"].Name)
	if !slices.Equal(got, tools) || list.NextCursor != nil {
		return checkFailed(fmt.Sprintf("tools/list gave %q (next page: %v), want exactly %q", got, list.NextCursor != nil, tools))
	}
	if n := list.Meta["io.modelcontextprotocol/serverInfo"].Name; n != name {
		return checkFailed(fmt.Sprintf("tools/list serverInfo name %q, want %q", n, name))
	}

	var init struct {
		ServerInfo struct{ Name string } `json:"serverInfo"`
	}
	if err := ask(bin, classicInit, &init); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	fmt.Printf("initialize (2025-11-25): serverInfo %q\n", init.ServerInfo.Name)
	if init.ServerInfo.Name != name {
		return checkFailed(fmt.Sprintf("initialize serverInfo name %q, want %q", init.ServerInfo.Name, name))
	}
	return nil
}

// ask sends line to a fresh bin on stdio and decodes the result of the
// response with id 1 into result. A JSON-RPC error is a failed check.
func ask(bin, line string, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), perRequest)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Stdin = strings.NewReader(line + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", bin, err, stderr.Bytes())
	}
	for l := range bytes.Lines(out) {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(l, &msg); err != nil {
			return fmt.Errorf("not JSON: %q", l)
		}
		if string(msg.ID) != "1" {
			continue
		}
		if msg.Error != nil {
			return checkFailed(fmt.Sprintf("error %s", msg.Error))
		}
		return json.Unmarshal(msg.Result, result)
	}
	return fmt.Errorf("no response to %s in %q", line, out)
}
