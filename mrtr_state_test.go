// Tests of requestState (mrtr_state.go): sealed and opened across
// servers that share a key ("a restart", "a replica") and refused across
// keys, each attack on it refused with -32602 saying why, bound to the
// caller and canonical in the arguments; where the key comes from; and
// its fuzz target.

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMultiRoundStateChanges checks that each round issues a new
// requestState (the conformance multi-round scenario checks this).
func TestMultiRoundStateChanges(t *testing.T) {
	s := newTestServer(t, withMRTR(testStateKey, testEpoch))
	params := `"name":"two_rounds","arguments":{}`
	st1 := mustState(t, mustServeLine(t, s, mrtrLine(1, "tools/call", params, capsAll)))
	st2 := mustState(t, mustServeLine(t, s, mrtrLine(2, "tools/call", retryParams(params, `{"name":{"action":"accept","content":{"name":"A"}}}`, st1), capsAll)))
	if st1 == st2 {
		t.Errorf("round 2 reissued the round 1 requestState")
	}
}

// TestRetryAfterRestart is the acceptance test: the first call and the
// retry are served by different server instances sharing only the key;
// with a random per-process key the retry is refused.
func TestRetryAfterRestart(t *testing.T) {
	params := `"name":"confirm_delete","arguments":{"path":"/srv/a"}`
	answer := `{"confirm":{"action":"accept","content":{"confirm":true}}}`
	for _, tt := range []struct {
		name       string
		key1, key2 []byte
		want       string // final text, or error message
	}{
		{"same key", testStateKey, testStateKey, "deleted /srv/a"},
		{"random keys", nil, nil, "invalid params: requestState does not verify: most likely another or a restarted server process issued it (this one's key is random per process: its operator sets -state-key-file); else it was altered, or was issued for another request, arguments or caller"},
		{"another key", testStateKey, bytes.Repeat([]byte("k"), stateMinKeyBytes), "invalid params: requestState does not verify: it was altered, or was issued for another request, arguments or caller"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			state := mustState(t, mustServeLine(t, newTestServer(t, withMRTR(tt.key1, testEpoch)), mrtrLine(1, "tools/call", params, capsAll)))
			resp := mustServeLine(t, newTestServer(t, withMRTR(tt.key2, testEpoch)), mrtrLine(2, "tools/call", retryParams(params, answer, state), capsAll))
			var got string
			if e, ok := resp["error"].(map[string]any); ok {
				got, _ = e["message"].(string)
			} else {
				got = mustResult(t, resp)["content"].([]any)[0].(map[string]any)["text"].(string)
			}
			if got != tt.want {
				t.Errorf("retry = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRequestStateAttacks presents altered or misplaced state: each is
// -32602 with a message saying why, and never reaches the handler.
// [§Security Considerations]: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#security-considerations
func TestRequestStateAttacks(t *testing.T) {
	const (
		params    = `"name":"same_name","arguments":{"path":"/tmp/x","n":1}`
		answer    = `{"ok":{"action":"accept","content":{"ok":true}}}`
		notVerify = "invalid params: requestState does not verify: it was altered, or was issued for another request, arguments or caller"
		malformed = "invalid params: requestState is malformed"
	)
	issue := func(tb testing.TB, s *server) string {
		return mustState(tb, mustServeLine(tb, s, mrtrLine(1, "tools/call", params, capsAll)))
	}
	flip := func(st string, at int) string {
		raw, _ := base64.RawURLEncoding.DecodeString(st)
		raw[at] ^= 0x01
		return base64.RawURLEncoding.EncodeToString(raw)
	}
	for _, tt := range []struct {
		name   string
		line   func(state string) string
		server *server // serves the retry; nil means a fresh one at testEpoch
		want   string
	}{
		{"bit flip in payload", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, flip(st, 12)), capsAll)
		}, nil, notVerify},
		{"bit flip in expiry", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, flip(st, 8)), capsAll)
		}, nil, notVerify},
		{"bit flip in mac", func(st string) string {
			raw, _ := base64.RawURLEncoding.DecodeString(st)
			return mrtrLine(2, "tools/call", retryParams(params, answer, flip(st, len(raw)-1)), capsAll)
		}, nil, notVerify},
		{"version byte", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, flip(st, 0)), capsAll)
		}, nil, malformed},
		{"truncated", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, st[:len(st)-4]), capsAll)
		}, nil, notVerify},
		{"truncated to nothing useful", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, st[:20]), capsAll)
		}, nil, malformed},
		{"appended suffix", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, st+"-TAMPERED"), capsAll)
		}, nil, malformed},
		{"other tool", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(`"name":"confirm_delete","arguments":{"path":"/tmp/x","n":1}`, `{"confirm":{"action":"accept"}}`, st), capsAll)
		}, nil, notVerify},
		{"other arguments", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(`"name":"same_name","arguments":{"path":"/etc/passwd","n":1}`, answer, st), capsAll)
		}, nil, notVerify},
		{"other method, same name", func(st string) string {
			return mrtrLine(2, "prompts/get", retryParams(`"name":"same_name"`, `{"ok":{"action":"accept"}}`, st), capsAll)
		}, nil, notVerify},
		{"other key", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, st), capsAll)
		}, newTestServer(t, withMRTR([]byte("another secret of thirty-two bytes!"), testEpoch)), notVerify},
		{"expired", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, st), capsAll)
		}, newTestServer(t, withMRTR(testStateKey, testEpoch.Add(defaultStateTTL+time.Second))), "invalid params: requestState expired; start the request again"},
		{"oversized", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, strings.Repeat("A", maxRequestStateBytes+1)), capsAll)
		}, nil, fmt.Sprintf("invalid params: requestState longer than %d bytes", maxRequestStateBytes)},
		{"line break inserted", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, st[:30]+"\r\n"+st[30:]), capsAll)
		}, nil, malformed},
		{"padding added", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, st+"=="), capsAll)
		}, nil, malformed},
		{"not base64url", func(st string) string {
			return mrtrLine(2, "tools/call", retryParams(params, answer, "!!!"+st), capsAll)
		}, nil, malformed},
		{"not a string", func(st string) string {
			return mrtrLine(2, "tools/call", `"name":"same_name","arguments":{"path":"/tmp/x","n":1},"requestState":42`, capsAll)
		}, nil, "invalid params: requestState must be a string"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := issue(t, newTestServer(t, withMRTR(testStateKey, testEpoch)))
			s := tt.server
			if s == nil {
				s = newTestServer(t, withMRTR(testStateKey, testEpoch))
			}
			resp := mustServeLine(t, s, tt.line(st))
			e, _ := resp["error"].(map[string]any)
			if e == nil || e["code"] != float64(codeInvalidParams) || e["message"] != tt.want {
				t.Errorf("retry = %s, want -32602 %q", mustJSON(t, resp), tt.want)
			}
		})
	}
}

// TestRequestStateArgumentsCanonical checks that the binding does not
// depend on key order or spacing in arguments, only on their content.
func TestRequestStateArgumentsCanonical(t *testing.T) {
	s := newTestServer(t, withMRTR(testStateKey, testEpoch))
	st := mustState(t, mustServeLine(t, s, mrtrLine(1, "tools/call", `"name":"same_name","arguments":{"path":"/x","n":1,"o":{"b":2,"a":[1,"x"]}}`, capsAll)))
	resp := mustServeLine(t, s, mrtrLine(2, "tools/call", retryParams(`"name":"same_name","arguments":{ "o":{"a":[1,"x"],"b":2}, "n" : 1, "path":"/x" }`,
		`{"ok":{"action":"accept"}}`, st), capsAll))
	if got := mustResult(t, resp)["resultType"]; got != "complete" {
		t.Errorf("retry with reordered arguments: %s", mustJSON(t, resp))
	}
}

// TestRequestStatePrincipal binds state to the caller: state issued to
// alice is refused for bob and for an anonymous caller. Principals come
// from the HTTP transport, so this drives dispatch directly.
func TestRequestStatePrincipal(t *testing.T) {
	s := newTestServer(t, withMRTR(testStateKey, testEpoch))
	params := `"name":"confirm_delete","arguments":{"path":"/x"}`
	serve := func(line, principal string) map[string]any {
		msg, rerr := parseMessage([]byte(line))
		if rerr != nil {
			t.Fatalf("parseMessage: %v", rerr)
		}
		var m map[string]any
		if err := json.Unmarshal(s.dispatch(t.Context(), &msg, exchange{caller: caller{principal: principal, share: principal}}), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	st := mustState(t, serve(mrtrLine(1, "tools/call", params, capsAll), "alice"))
	retry := mrtrLine(2, "tools/call", retryParams(params, `{"confirm":{"action":"accept","content":{"confirm":true}}}`, st), capsAll)
	for _, tt := range []struct{ principal, want string }{
		{"alice", ""},
		{"bob", "invalid params: requestState does not verify: it was altered, or was issued for another request, arguments or caller"},
		{"", "invalid params: requestState does not verify: it was altered, or was issued for another request, arguments or caller"},
	} {
		resp := serve(retry, tt.principal)
		e, _ := resp["error"].(map[string]any)
		switch {
		case tt.want == "" && e != nil:
			t.Errorf("principal %q: %s, want success", tt.principal, mustJSON(t, resp))
		case tt.want != "" && (e == nil || e["message"] != tt.want):
			t.Errorf("principal %q: %s, want %q", tt.principal, mustJSON(t, resp), tt.want)
		}
	}
}

// TestRunStateFlags checks the requestState flags: a bad TTL or key fails
// run at start-up; a key in the environment makes state portable across
// processes (two servers configured from the same environment).
func TestRunStateFlags(t *testing.T) {
	noEnv := func(string) string { return "" }
	for _, args := range [][]string{{"-state-ttl", "0"}, {"-state-key-file", filepath.Join(t.TempDir(), "nope")}} {
		if err := run(t.Context(), args, strings.NewReader(""), io.Discard, io.Discard, noEnv); err == nil {
			t.Errorf("run(%q) = nil, want an error", args)
		}
	}
	env := func(name string) string {
		if name == envStateKey {
			return string(testStateKey)
		}
		return ""
	}
	params := `"name":"confirm_delete","arguments":{"path":"/r"}`
	first := mustServeLine(t, newTestServer(t, withEnv(env)), mrtrLine(1, "tools/call", params, capsAll))
	retry := mrtrLine(2, "tools/call", retryParams(params, `{"confirm":{"action":"decline"}}`, mustState(t, first)), capsAll)
	if got := mustJSON(t, mustServeLine(t, newTestServer(t, withEnv(env)), retry)); !strings.Contains(got, `"text":"kept /r"`) {
		t.Errorf("retry on a second server = %s", got)
	}
}

// testBinding is a fixed request binding for the sealer tests.
var testBinding = sha256.Sum256([]byte("tools/call confirm_delete"))

// FuzzRequestState feeds arbitrary tokens to open: it must never panic,
// and whatever seal produces must open to the same payload.
func FuzzRequestState(f *testing.F) {
	st := newStateSealer(testStateKey, 0, func() time.Time { return testEpoch })
	valid, err := st.seal(statePayload{Data: "seed", Asked: map[string]stateAsk{"k": {Method: methodListRoots}}}, testBinding)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{valid, "", "AQ", valid[:len(valid)-2], valid + "A", strings.Repeat("_", 64), "====", "\x00\xff"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, token string) {
		if p, rerr := st.open(token, testBinding); rerr == nil && token != valid {
			// Only a token this sealer signed may open.
			if again, err := st.seal(p, testBinding); err != nil || again != token {
				t.Errorf("open accepted %q, which seal does not produce (%q)", token, again)
			}
		} else if rerr != nil && !errors.Is(rerr, errInvalidParams) {
			t.Errorf("open(%q) = %v, want -32602", token, rerr)
		}
		sealed, err := st.seal(statePayload{Data: token}, testBinding)
		if err != nil {
			return // too large to issue
		}
		p, rerr := st.open(sealed, testBinding)
		var want string // JSON replaces each invalid UTF-8 byte with U+FFFD
		_ = json.Unmarshal(mustMarshal(token), &want)
		if rerr != nil || p.Data != want {
			t.Errorf("round trip of %q: %q, %v", token, p.Data, rerr)
		}
	})
}

// BenchmarkRequestState measures signing and verifying a typical state:
// one accumulated form answer and one pending request.
func BenchmarkRequestState(b *testing.B) {
	st := newStateSealer(testStateKey, 0, func() time.Time { return testEpoch })
	p := statePayload{
		Answers: map[string]stateAnswer{"name": {Method: methodElicit, Value: json.RawMessage(`{"action":"accept","content":{"name":"Alice"}}`)}},
		Asked:   map[string]stateAsk{"color": {Method: methodElicit, Schema: json.RawMessage(nameSchema)}},
	}
	token, err := st.seal(p, testBinding)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("seal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := st.seal(p, testBinding); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("open", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, rerr := st.open(token, testBinding); rerr != nil {
				b.Fatal(rerr)
			}
		}
	})
}
