//go:build !stdio

// The transcripts' HTTP client: a transcript with "transport: http" (or
// "transport: stdio http") is played over Streamable HTTP (transcript_test.go holds the format and
// the runner; the stdio build skips these, transcript_stdio_test.go).

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// hasHTTPWing says whether this build has the HTTP wing: it plays
// transcripts over HTTP, and knows the HTTP flags.
const hasHTTPWing = true

// newTestTranscriptHTTPClient connects a transcript to s over HTTP with
// the HTTP settings the flags give, and says how many classic sessions
// the transport holds.
func newTestTranscriptHTTPClient(t *testing.T, s *server, flags []string) (transcriptClient, func() int) {
	hc := newTestTranscriptHTTP(t, s, flags)
	return hc, func() int { return liveSessions(hc.ts.tr.sessions) }
}

// transcriptHTTP plays a transcript over Streamable HTTP.
type transcriptHTTP struct {
	tb      testing.TB
	ts      *testHTTP
	c       *classicHTTPClient
	events  chan streamEvent            // what every open stream carries
	streams map[string]*sseClientStream // open streams by name
	classic map[string]bool             // the era of each stream, by name
}

// streamEvent is one message on a stream, or its end (line "").
type streamEvent struct {
	stream, line string
}

// sseClientStream is a stream the client reads.
type sseClientStream struct {
	cancel context.CancelFunc // disconnects
	done   chan struct{}      // closed when its reader returned
}

// newTestTranscriptHTTP connects a transcript to s over HTTP, with the
// HTTP settings the flags give.
func newTestTranscriptHTTP(tb testing.TB, s *server, flags []string) *transcriptHTTP {
	tb.Helper()
	pcfg, err := parseFlags(flags, io.Discard, func(string) string { return "" })
	hcfg := pcfg.http
	if err != nil {
		tb.Fatalf("parseFlags(%q) = %v", flags, err)
	}
	ts := newTestHTTP(tb, s, hcfg)
	return &transcriptHTTP{tb: tb, ts: ts, c: newTestClassicClient(tb, ts), events: make(chan streamEvent, 1024),
		streams: map[string]*sseClientStream{}, classic: map[string]bool{}}
}

// play sends line as a POST (or does its action), then collects the
// answer: the status line and body, and the events of every open stream.
func (p *transcriptHTTP) play(line string) ([]string, []bool) {
	p.tb.Helper()
	var head []string
	var own string // the stream this line opened, if any
	d, wait := parseWait(p.tb, line)
	switch {
	case wait:
	case line == "EOF" || line == "SHUTDOWN":
		p.tb.Fatalf("transcript: %s is a stdio action (in a transcript played on both transports, write stdio: %s)", line, line)
	case strings.HasPrefix(line, "CLOSE "):
		name := strings.TrimPrefix(line, "CLOSE ")
		st, ok := p.streams[name]
		if !ok {
			p.tb.Fatalf("transcript: %s: no such open stream", line)
		}
		st.cancel()
		<-st.done
		delete(p.streams, name)
	default:
		ctx, cancel := context.WithCancel(context.Background())
		resp, err := p.ts.Client().Do(p.c.request(ctx, line))
		if err != nil {
			cancel()
			p.tb.Fatalf("%s: %v", line, err)
		}
		status := fmt.Sprintf("HTTP %d", resp.StatusCode)
		if sid := resp.Header.Get(headerSessionID); sid != "" {
			status += " +session"
			p.c.sid = sid
		}
		head = append(head, status)
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			own = "GET"
			switch {
			case strings.HasPrefix(line, "["):
				own = "batch"
			case line != http.MethodGet:
				msg, _ := parseMessage([]byte(line))
				own = string(msg.id)
			}
			p.classic[own] = line == http.MethodGet || isClassicLine(line)
			p.streams[own] = p.read(own, resp, cancel)
		} else {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			cancel()
			if body := strings.TrimSpace(string(b)); body != "" {
				head = append(head, body)
			}
		}
		if v := classicVersionOf(head); v != "" {
			p.c.version = v
		}
	}
	events, _ := collectLines(p.events, d)
	out, classic := head, make([]bool, len(head))
	for i := range classic {
		classic[i] = isClassicLine(line)
	}
	ownEnded := false
	for _, ev := range events {
		switch {
		case ev.stream == own && ev.line == "":
			ownEnded = true
			continue
		case ev.stream == own:
			out = append(out, ev.line)
		case ev.line == "":
			out = append(out, "@"+ev.stream+" end")
		default:
			out = append(out, "@"+ev.stream+" "+ev.line)
		}
		classic = append(classic, p.classic[ev.stream])
		if ev.line == "" {
			delete(p.streams, ev.stream)
		}
	}
	if ownEnded {
		delete(p.streams, own)
	}
	if v := classicVersionOf(out); v != "" {
		p.c.version = v
	}
	return out, classic
}

// read reads the events of resp on a goroutine, sending them to p.events
// as stream name, then its end.
func (p *transcriptHTTP) read(name string, resp *http.Response, cancel context.CancelFunc) *sseClientStream {
	st := &sseClientStream{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(st.done)
		defer resp.Body.Close()
		r := bufio.NewReader(resp.Body)
		for {
			ev, ok := nextSSE(r)
			if !ok {
				p.events <- streamEvent{stream: name}
				return
			}
			p.events <- streamEvent{stream: name, line: ev}
		}
	}()
	return st
}

// leave disconnects every stream still open, waits for the server to
// notice, and returns any message that still arrived.
func (p *transcriptHTTP) leave() []string {
	p.tb.Helper()
	for _, st := range p.streams {
		st.cancel()
		<-st.done
	}
	// The wait lets the server notice the disconnections.
	events, _ := collectLines(p.events, 0)
	var rest []string
	for _, ev := range events {
		if ev.line != "" {
			rest = append(rest, "@"+ev.stream+" "+ev.line)
		}
	}
	return rest
}
