// Word-at-a-time scans for the two loops a large payload spends its time in: checking a JSON
// string's bytes (jsonChecker.str) and finding what a text must escape (appendText). The first
// byte that is not plain, and a tail shorter than a word, are left to the byte loops, the one
// definition of what is plain (TestWordScansMatchTables). Kept for the stdio 1 MiB row of
// docs/PERFORMANCE.md: its p50 was 22 and 11 % lower than the byte loops alone, in two runs.
//
// Spec: RFC 8259, section 7 (Strings).

package main

import "encoding/binary"

const (
	ones  = 0x0101010101010101 // 0x01 in every byte
	highs = 0x8080808080808080 // 0x80 in every byte
)

// hasByteBelow reports whether a byte of x is below n (n at most 0x80). A byte at 0x80 or above
// never is; the borrow of a byte below n only reaches bytes above it, so the answer is exact.
func hasByteBelow(x uint64, n byte) bool {
	return (x-ones*uint64(n))&^x&highs != 0
}

// hasByte reports whether a byte of x is b.
func hasByte(x uint64, b byte) bool {
	return hasByteBelow(x^(ones*uint64(b)), 1)
}

// plainStringWords returns the first index from i, in steps of eight, whose word of data holds a
// byte a JSON string cannot hold as it is (a quote, a backslash or a control character;
// plainStringByte), or the last index with fewer than eight bytes after it.
func plainStringWords(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		x := binary.LittleEndian.Uint64(data[i:])
		if hasByteBelow(x, 0x20) || hasByte(x, '"') || hasByte(x, '\\') {
			break
		}
	}
	return i
}

// asIsWords is plainStringWords for the bytes encoding/json writes as they are (quotesAsIs):
// ASCII from the space on, but the quote, the backslash, <, > and &. Setting one bit pairs four
// of them: " (0x22) and & (0x26) both read 0x26 with 0x04 set, < (0x3c) and > (0x3e) both read
// 0x3e with 0x02 set, and no other byte does.
func asIsWords(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if x&highs != 0 || hasByteBelow(x, 0x20) || hasByte(x|ones*0x04, 0x26) ||
			hasByte(x|ones*0x02, 0x3e) || hasByte(x, '\\') {
			break
		}
	}
	return i
}
