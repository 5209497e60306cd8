// The wire log: with -wire-log FILE, every message a transcript's server
// writes is appended to FILE as one JSON line, with the protocol revision
// it was written in and the method it answers, for the schema gate
// (harness/schema/gate.mjs, run by harness/schema/check.sh), which
// validates each against that revision's schema.json.

package main

import (
	"encoding/json"
	"flag"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// wireLogPath is the -wire-log flag: append what the servers of the
// transcripts write to this file.
var wireLogPath = flag.String("wire-log", "", "append every message the transcripts' servers write to this file, as JSON lines for harness/schema/gate.mjs")

// wireLogMu serializes appends to the wire log: transcripts run in
// parallel.
var wireLogMu sync.Mutex

// wireRequest is what the recorder knows of one client request.
type wireRequest struct {
	method  string
	version string // its _meta protocol version; "" for a classic request
}

// wireRecorder follows one conversation and records what the server
// writes in it. A nil *wireRecorder records nothing.
type wireRecorder struct {
	tb      testing.TB
	src     string
	classic string                 // the version initialize negotiated
	reqs    map[string]wireRequest // by id (idKey)
	last    string                 // the version of the last client line
	out     []byte
}

// newTestWireRecorder returns a recorder for the conversation src, or nil
// without -wire-log.
func newTestWireRecorder(tb testing.TB, src string) *wireRecorder {
	if *wireLogPath == "" {
		return nil
	}
	w := &wireRecorder{tb: tb, src: src, reqs: map[string]wireRequest{}}
	tb.Cleanup(w.flush)
	return w
}

// sent notes a client line (each entry of a batch).
func (w *wireRecorder) sent(line string) {
	if w == nil {
		return
	}
	if entries, rerr := splitBatch([]byte(line)); rerr == nil {
		for _, e := range entries {
			w.sent(string(e))
		}
		return
	}
	msg, rerr := parseMessage([]byte(line))
	if rerr != nil || !msg.hasMethod {
		return
	}
	var r request
	_ = r.parseParams(msg.params, nil)
	v := ""
	if r.meta.hasVersion {
		v = r.meta.version
		if !slices.Contains(wireRevisions, v) {
			v = modernVersions[0] // refused: its error is the newest revision's
		}
	}
	w.last = v
	if msg.id != nil {
		w.reqs[idKey(msg.id)] = wireRequest{method: msg.method, version: v}
	}
}

// wireRevisions are the revisions whose schema.json the gate has.
var wireRevisions = append(slices.Clone(modernVersions), classicVersions...)

// wrote records one line the server wrote (each message of a batch
// answer); classic says it belongs to the classic era.
func (w *wireRecorder) wrote(line string, classic bool) {
	if w == nil {
		return
	}
	prefix, line := splitStreamPrefix(line)
	if strings.HasPrefix(line, "[") {
		var batch []json.RawMessage
		if json.Unmarshal([]byte(line), &batch) == nil {
			for _, m := range batch {
				w.wrote(string(m), classic)
			}
		}
		return
	}
	if !strings.HasPrefix(line, "{") {
		return // "HTTP 200", a stream's end
	}
	msg, rerr := parseMessage([]byte(line))
	if rerr != nil {
		w.tb.Errorf("wire log: the server wrote a line that is not a message: %s", line)
		return
	}
	method, version := "", w.last
	if stream := strings.TrimPrefix(prefix, "@"); stream != "" && stream != "GET" && stream != "batch" {
		if r, ok := w.reqs[idKey([]byte(stream))]; ok {
			version = r.version
		}
	}
	if !msg.hasMethod {
		// A response is in its request's revision: the classic session's
		// for a classic request.
		r, known := w.reqs[idKey(msg.id)]
		method, version = r.method, r.version
		if !known {
			version = w.last
		}
		classic = version == ""
		if method == methodInitialize {
			var res struct {
				Result struct {
					ProtocolVersion string `json:"protocolVersion"`
				} `json:"result"`
			}
			if json.Unmarshal([]byte(line), &res) == nil && res.Result.ProtocolVersion != "" {
				w.classic = res.Result.ProtocolVersion
			}
		}
	}
	if (classic && w.classic != "") || version == "" {
		version = w.classic
	}
	if version == "" {
		version = classicVersions[0] // before initialize: errors, the same in every revision
	}
	rec, err := json.Marshal(struct {
		V   string          `json:"v"`
		M   string          `json:"m"`
		Src string          `json:"src"`
		Msg json.RawMessage `json:"msg"`
	}{version, method, w.src, json.RawMessage(line)})
	if err != nil {
		w.tb.Errorf("wire log: %v", err)
		return
	}
	w.out = append(append(w.out, rec...), '\n')
}

// flush appends what was recorded to the wire log.
func (w *wireRecorder) flush() {
	if len(w.out) == 0 {
		return
	}
	wireLogMu.Lock()
	defer wireLogMu.Unlock()
	f, err := os.OpenFile(*wireLogPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		w.tb.Errorf("wire log: %v", err)
		return
	}
	defer f.Close()
	if _, err := f.Write(w.out); err != nil {
		w.tb.Errorf("wire log: %v", err)
	}
}
