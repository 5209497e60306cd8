// Test helpers shared by every test file: request lines, a live stdio
// connection, and semantic JSON comparison.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// metaJSON is the _meta every well-formed modern request in the tests carries.
const metaJSON = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// metaMember is metaJSON as the _meta member of params.
const metaMember = `"_meta":` + metaJSON

// testWait bounds every wait for the server in tests: long enough for a
// loaded CI machine under -race, short enough to fail a hung test quickly.
const testWait = 10 * time.Second

// req builds a modern request line: id is raw JSON, params are the
// method's own members as a JSON object body without braces ("" for none).
func req(id, method, params string) string {
	if params != "" {
		params += ","
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":{%s"_meta":%s}}`, id, method, params, metaJSON)
}

// reqMeta builds a request line with the given _meta members (a JSON object
// body without braces) added to the required ones.
func reqMeta(id, method, params, meta string) string {
	if params != "" {
		params += ","
	}
	m := metaJSON[:len(metaJSON)-1] + "," + meta + "}"
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":{%s"_meta":%s}}`, id, method, params, m)
}

// decodeJSON decodes a JSON value keeping numbers exact.
func decodeJSON(data string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the value")
	}
	return v, nil
}

// sameJSON reports whether a and b are the same JSON value: member order
// and white space do not matter; numbers are compared as written.
func sameJSON(tb testing.TB, a, b string) bool {
	tb.Helper()
	va, err := decodeJSON(a)
	if err != nil {
		tb.Errorf("sameJSON: %v in %s", err, a)
		return false
	}
	vb, err := decodeJSON(b)
	if err != nil {
		tb.Errorf("sameJSON: %v in %s", err, b)
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// mustJSON encodes v for comparisons and messages.
func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// mustDecode decodes line as a JSON object.
func mustDecode(tb testing.TB, line string) map[string]any {
	tb.Helper()
	v, err := decodeJSON(line)
	if err != nil {
		tb.Fatalf("decode %s: %v", line, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		tb.Fatalf("decode %s: not an object", line)
	}
	return m
}

// jsonPath walks dotted object members (and decimal array indexes) of v.
func jsonPath(v any, path string) any {
	if path == "" {
		return v
	}
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			var i int
			if _, err := fmt.Sscan(p, &i); err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// errorCode returns the error.code of a response line, or 0.
func errorCode(tb testing.TB, line string) int {
	tb.Helper()
	n, _ := jsonPath(mustDecode(tb, line), "error.code").(json.Number)
	c, _ := n.Int64()
	return int(c)
}

// fuzzInputBudget bounds the time one fuzz input may take end to end. It
// is generous (the race detector and a loaded machine slow things down);
// a blow-up shows as orders of magnitude, not a few milliseconds.
const fuzzInputBudget = 2 * time.Second

// withFuzzLimits is the setup of the fuzz targets that serve whole
// requests: a short request timeout, so that a fuzzed call to a slow or
// waiting tool ends quickly.
func withFuzzLimits() testOption { return withFlags("-request-timeout", "50ms") }

// mustReceive waits for a value on ch, failing after a generous deadline.
func mustReceive[T any](tb testing.TB, ch <-chan T) T {
	tb.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		tb.Fatal("timed out waiting")
		panic("unreachable")
	}
}

// skipFlagsOfTheHTTPWing skips tb in the stdio build when args name a
// flag of the HTTP wing, which that build does not know
// (TestStdioBuildKnowsNoHTTPFlag); in the full build it does nothing.
func skipFlagsOfTheHTTPWing(tb testing.TB, args []string) {
	tb.Helper()
	if hasHTTPWing {
		return
	}
	if _, err := parseFlags(args, io.Discard, func(string) string { return "" }); err != nil && strings.Contains(err.Error(), "flag provided but not defined") {
		tb.Skipf("%v: the stdio build has no HTTP wing", err)
	}
}

// mustScaleLinearly fails tb when work at size base*factor takes more than
// 10*factor times as long as at size base: linear work passes however
// loaded the machine is (both sizes run under the same load), work that
// grows with the square of its input does not. Each size is timed at the
// best of a few runs.
func mustScaleLinearly(tb testing.TB, what string, base, factor int, work func(n int)) {
	tb.Helper()
	best := func(n, runs int) time.Duration {
		d := time.Duration(math.MaxInt64)
		for range runs {
			start := time.Now()
			work(n)
			d = min(d, time.Since(start))
		}
		return max(d, time.Microsecond)
	}
	small, large := best(base, 3), best(base*factor, 2)
	if large > time.Duration(10*factor)*small {
		tb.Errorf("%s: %v at size %d, %v at %d times that: more than linear", what, small, base, large, factor)
	}
	tb.Logf("%s: %v at size %d, %v at %d times that", what, small.Round(time.Microsecond), base, large.Round(time.Microsecond), factor)
}

// dispatch serves one message read on a transport that carries nothing
// beside its messages (stdio's framing) and returns the response line,
// nil for a notification: newRequest, then serve.
func (s *server) dispatch(ctx context.Context, msg *message, ex exchange) []byte {
	reply, _ := s.serve(ctx, s.newRequest(msg, ex.session, framing{}), ex)
	return reply
}
