// Tests of conn.go that need no transport.

package main

import "testing"

// TestIDKey: two ids are the same request id exactly when idKey says so
// (duplicates in flight, notifications/cancelled, answers to the server's
// requests all match by it).
func TestIDKey(t *testing.T) {
	for _, tt := range []struct {
		name string
		a, b string
		same bool
	}{
		{"a number and the string of its digits differ", `7`, `"7"`, false},
		{"an escape matches its plain spelling", `"a"`, `"\u0061"`, true},
		{"a number matches itself", `42`, `42`, true},
		{"two lone surrogates differ", `"\ud800"`, `"\udc00"`, false},
		{"a lone surrogate differs from U+FFFD", `"\ud800"`, `"\ufffd"`, false},
		{"a lone surrogate matches itself", `"x\udfff"`, `"x\udfff"`, true},
		{"a string that holds a surrogate pair matches its plain spelling", `"\ud83d\ude00"`, `"😀"`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if same := idKey([]byte(tt.a)) == idKey([]byte(tt.b)); same != tt.same {
				t.Errorf("idKey(%s) == idKey(%s) is %v, want %v", tt.a, tt.b, same, tt.same)
			}
		})
	}
}
