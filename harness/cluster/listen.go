// subscriptions/listen through the balancer: the acknowledgement comes
// first, within 2 seconds, keep-alive comments hold an idle stream open past
// the proxy's idle timeout for streams, and a notification arrives as
// soon as it is sent (nothing buffers it).

package main

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// listenBody is a subscriptions/listen asking for tool list changes.
var listenBody = modern(1, "subscriptions/listen", `"notifications":{"toolsListChanged":true}`, capsNone)

// listener is an open subscriptions/listen stream.
type listener struct {
	st    *stream
	acked time.Time // when the acknowledgement arrived
}

// openListen opens a listen through the balancer and waits for its
// acknowledgement, which must be the first event and come within 2 seconds (a proxy that buffers holds it back).
func openListen(c *cluster, hc *http.Client) (*listener, error) {
	st, err := openStream(hc, http.MethodPost, c.url, listenBody, headersFor(listenBody))
	if err != nil {
		return nil, fmt.Errorf("subscriptions/listen: %v", err)
	}
	ev, err := st.next(2 * time.Second)
	if err != nil || !strings.Contains(ev, `"notifications/subscriptions/acknowledged"`) {
		st.close()
		return nil, fmt.Errorf("subscriptions/listen on %s: want the acknowledgement first, within 2s: got %q (%v)", st.servedBy, ev, err)
	}
	return &listener{st: st, acked: time.Now()}, nil
}

// haproxyDuration reads a HAProxy time: a number of milliseconds, or a
// number with a unit.
func haproxyDuration(v string) (time.Duration, error) {
	if ms, err := strconv.Atoi(v); err == nil {
		return time.Duration(ms) * time.Millisecond, nil
	}
	return time.ParseDuration(v)
}

// checkIdleListen waits until l has been idle (keep-alive comments only)
// longer than the proxy's idle timeout for streams, then changes the tool
// list on l's replica and wants the notification within 2 seconds.
func checkIdleListen(c *cluster, l *listener) error {
	defer l.st.close()
	idle, err := haproxyDuration(c.d.streamIdle)
	if err != nil {
		return fmt.Errorf("the stream timeout %q: %v", c.d.streamIdle, err)
	}
	if wait := time.Until(l.acked.Add(idle + 5*time.Second)); wait > 0 {
		time.Sleep(wait)
	}
	select {
	case ev, ok := <-l.st.events:
		if !ok {
			return fmt.Errorf("the stream on %s ended after %v idle (HAProxy's stream timeout is %v): %v", l.st.servedBy, time.Since(l.acked).Round(time.Second), idle, l.st.err)
		}
		return fmt.Errorf("the stream was not idle: %s", ev)
	default:
	}
	comments := l.st.reader.comments.Load()
	if comments < 2 {
		return fmt.Errorf("%d keep-alive comments in %v of silence", comments, time.Since(l.acked).Round(time.Second))
	}
	hc := newClient("")
	defer hc.CloseIdleConnections()
	toggle := modern(2, "tools/call", `"name":"toggle_extra_tool","arguments":{}`, capsNone)
	for attempt := 0; attempt < placementAttempts; attempt++ {
		rep, err := postModern(hc, c.url, toggle)
		if err != nil {
			return err
		}
		if !rep.ok() {
			return fmt.Errorf("toggle_extra_tool: %v", rep)
		}
		if rep.servedBy != l.st.servedBy {
			continue
		}
		sent := time.Now()
		ev, err := l.st.next(2 * time.Second)
		if err != nil || !strings.Contains(ev, `"notifications/tools/list_changed"`) {
			return fmt.Errorf("after %v idle, a list change on %s: want notifications/tools/list_changed within 2s, got %q (%v)", sent.Sub(l.acked).Round(time.Second), l.st.servedBy, ev, err)
		}
		fmt.Printf("     listen on %s: %v idle with %d keep-alive comments (stream timeout %v), then the notification %v after the change\n",
			l.st.servedBy, sent.Sub(l.acked).Round(time.Second), comments, idle, time.Since(sent).Round(time.Millisecond))
		return nil
	}
	return fmt.Errorf("%d calls of toggle_extra_tool never reached %s", placementAttempts, l.st.servedBy)
}
