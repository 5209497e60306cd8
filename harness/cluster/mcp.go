// A small MCP client over Streamable HTTP, enough to drive both eras
// through the balancer and to see which replica answered (HAProxy's
// X-Served-By header).

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

const (
	modernVersion  = "2026-07-28"
	classicVersion = "2025-11-25"
	// servedBy is the response header HAProxy sets to the server (the
	// replica) that answered.
	servedBy = "X-Served-By"
	// requestTimeout bounds one request of the checks.
	requestTimeout = 10 * time.Second
	// placementAttempts bounds the requests a check sends to land one on
	// a given replica: round robin places them, interleaved with other
	// traffic, so each lands there with probability about 1/3, and 40
	// tries all miss with probability (2/3)^40, under 1e-7.
	placementAttempts = 40
	// listenReleasePause is how long placement waits after closing a
	// listen that landed on another replica, for that replica to release
	// it: at most 40 of them, 2 s.
	listenReleasePause = 50 * time.Millisecond
)

// caps are client capabilities for _meta or initialize.
const (
	capsNone  = `{}`
	capsInput = `{"elicitation":{"form":{}},"sampling":{},"roots":{}}`
	capsTasks = `{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}`
)

// newClient returns an HTTP client whose connections leave from the
// loopback address src ("" for the system's choice), so that HAProxy's
// X-Forwarded-For names src: a way to be several clients on one machine.
func newClient(src string) *http.Client {
	d := &net.Dialer{Timeout: 2 * time.Second}
	if src != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(src)}
	}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 64, IdleConnTimeout: 20 * time.Second}}
}

// modern returns a modern JSON-RPC request: params (a JSON object's
// members, "" for none) and _meta with the protocol version and caps.
func modern(id int, method, params, caps string) string {
	if params != "" {
		params += ","
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s"_meta":{"io.modelcontextprotocol/protocolVersion":%q,"io.modelcontextprotocol/clientCapabilities":%s}}}`,
		id, method, params, modernVersion, caps)
}

// message is a JSON-RPC message as the checks read it.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// reply is one HTTP answer: its status, the replica that served it, and
// the JSON-RPC messages it carried (one JSON body, or every SSE event).
type reply struct {
	status   int
	servedBy string
	session  string // Mcp-Session-Id
	body     []byte
	messages []message
}

// final is the last message of the reply (the response), or a zero
// message.
func (r reply) final() message {
	if len(r.messages) == 0 {
		return message{}
	}
	return r.messages[len(r.messages)-1]
}

// text is the text of the first content block of the final result.
func (r reply) text() string {
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(r.final().Result, &res) != nil || len(res.Content) == 0 {
		return ""
	}
	return res.Content[0].Text
}

// field reads a string member of the final result.
func (r reply) field(name string) string {
	var m map[string]any
	_ = json.Unmarshal(r.final().Result, &m)
	s, _ := m[name].(string)
	return s
}

// ok reports whether the reply is a 200 whose final message is a result.
func (r reply) ok() bool {
	return r.status == http.StatusOK && r.final().Result != nil && r.final().Error == nil
}

func (r reply) String() string {
	b := r.body
	if len(b) > 300 {
		b = append(b[:300:300], "..."...)
	}
	return fmt.Sprintf("HTTP %d from %q: %s", r.status, r.servedBy, b)
}

// headersFor returns the mirrored headers a modern client sends for body.
func headersFor(body string) map[string]string {
	var env struct {
		Method string `json:"method"`
		Params struct {
			Name, URI, TaskID string
		} `json:"params"`
	}
	_ = json.Unmarshal([]byte(body), &env)
	h := map[string]string{"MCP-Protocol-Version": modernVersion, "Mcp-Method": env.Method}
	switch env.Method {
	case "tools/call", "prompts/get":
		h["Mcp-Name"] = env.Params.Name
	case "resources/read":
		h["Mcp-Name"] = env.Params.URI
	case "tasks/get", "tasks/update", "tasks/cancel":
		h["Mcp-Name"] = env.Params.TaskID
	}
	return h
}

// newRequest builds a request to url with the headers every MCP POST
// carries and extra.
func newRequest(ctx context.Context, method, url, body string, extra map[string]string) (*http.Request, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	return req, nil
}

// do sends one request and reads the whole answer.
func do(hc *http.Client, method, url, body string, extra map[string]string) (reply, error) {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	req, err := newRequest(ctx, method, url, body, extra)
	if err != nil {
		return reply{}, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	r := reply{status: resp.StatusCode, servedBy: resp.Header.Get(servedBy), session: resp.Header.Get("Mcp-Session-Id")}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		s := newEventReader(resp.Body)
		for {
			ev, err := s.next()
			if err != nil {
				break
			}
			r.body = append(append(r.body, ev...), '\n')
			var m message
			if json.Unmarshal([]byte(ev), &m) == nil {
				r.messages = append(r.messages, m)
			}
		}
		return r, nil
	}
	if r.body, err = io.ReadAll(resp.Body); err != nil {
		return r, err
	}
	var m message
	if json.Unmarshal(r.body, &m) == nil {
		r.messages = []message{m}
	}
	return r, nil
}

// postModern sends a modern request with its mirrored headers.
func postModern(hc *http.Client, url, body string) (reply, error) {
	return do(hc, http.MethodPost, url, body, headersFor(body))
}

// eventReader reads an SSE stream: data of each event, comments counted.
type eventReader struct {
	sc       *bufio.Scanner
	comments atomic.Int64 // keep-alive comments seen; read while next runs
}

func newEventReader(r io.Reader) *eventReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	return &eventReader{sc: sc}
}

// next returns the data of the next event; io.EOF when the stream ends.
func (e *eventReader) next() (string, error) {
	var data []string
	for e.sc.Scan() {
		line := e.sc.Text()
		switch {
		case line == "":
			if data != nil {
				return strings.Join(data, "\n"), nil
			}
		case strings.HasPrefix(line, ":"):
			e.comments.Add(1)
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if err := e.sc.Err(); err != nil {
		return "", err
	}
	return "", io.EOF
}

// stream is an open SSE response read event by event on its own
// goroutine, so a check can wait for an event with a deadline.
type stream struct {
	servedBy string
	status   int
	cancel   context.CancelFunc
	events   chan string  // closed when the stream ends
	reader   *eventReader // its comments count the keep-alives so far
	done     chan struct{}
	err      error // why it ended, valid once done is closed
}

// openStream sends a request whose answer is a long-lived event stream.
func openStream(hc *http.Client, method, url, body string, extra map[string]string) (*stream, error) {
	ctx, cancel := context.WithCancel(context.Background())
	req, err := newRequest(ctx, method, url, body, extra)
	if err != nil {
		cancel()
		return nil, err
	}
	if body == "" {
		req.Header.Set("Accept", "text/event-stream")
	}
	resp, err := hc.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	s := &stream{servedBy: resp.Header.Get(servedBy), status: resp.StatusCode, cancel: cancel, events: make(chan string, 256), done: make(chan struct{})}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		cancel()
		return s, fmt.Errorf("HTTP %d %s from %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), s.servedBy, b)
	}
	er := newEventReader(resp.Body)
	s.reader = er
	go func() {
		defer close(s.done)
		defer close(s.events)
		defer resp.Body.Close()
		for {
			ev, err := er.next()
			if err != nil {
				s.err = err
				return
			}
			s.events <- ev
		}
	}()
	return s, nil
}

// errStreamEnded says a stream ended before the event a check waited for.
var errStreamEnded = errors.New("the stream ended")

// next waits up to d for the next event.
func (s *stream) next(d time.Duration) (string, error) {
	select {
	case ev, ok := <-s.events:
		if !ok {
			return "", fmt.Errorf("%w (%v)", errStreamEnded, s.err)
		}
		return ev, nil
	case <-time.After(d):
		return "", fmt.Errorf("no event within %v", d)
	}
}

// close ends the stream from the client's side and waits for its reader.
func (s *stream) close() {
	s.cancel()
	<-s.done
}
