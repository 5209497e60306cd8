package main

import (
	"math/rand/v2"
	"testing"
)

// TestWordScansMatchTables: the word-at-a-time scans stop exactly at the
// first word holding a byte their byte table does not mark plain, for
// every byte value at every position of a word, and on random runs.
func TestWordScansMatchTables(t *testing.T) {
	check := func(t *testing.T, data []byte, start int) {
		t.Helper()
		for _, tt := range []struct {
			name  string
			table *[256]bool
			scan  func() int
		}{
			{"plainStringWords", &plainStringByte, func() int { return plainStringWords(data, start) }},
			{"asIsWords", &quotesAsIs, func() int { return asIsWords(string(data), start) }},
		} {
			want := start
			for ; want+8 <= len(data); want += 8 {
				plain := true
				for _, b := range data[want : want+8] {
					plain = plain && tt.table[b]
				}
				if !plain {
					break
				}
			}
			if got := tt.scan(); got != want {
				t.Errorf("%s(%q, %d) = %d, want %d", tt.name, data, start, got, want)
			}
		}
	}
	for b := range 256 {
		for pos := range 8 {
			for _, fill := range []byte{'a', ' ', '~', 0x7f} {
				data := []byte("aaaaaaaa" + "xxxxxxxx" + "aaaaaaaa" + "aaa")
				for i := 8; i < 16; i++ {
					data[i] = fill
				}
				data[8+pos] = byte(b)
				check(t, data, 0)
				check(t, data, 3)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		data := make([]byte, r.IntN(64))
		for i := range data {
			data[i] = byte(0x20 + r.IntN(0x60))
			if r.IntN(40) == 0 {
				data[i] = byte(r.IntN(256))
			}
		}
		check(t, data, r.IntN(len(data)+1))
	}
}
