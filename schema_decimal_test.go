// Tests of the exact decimals of numeric keywords (schema_decimal.go).

package main

import (
	"fmt"
	"math/big"
	"testing"
)

// TestSchemaDecimal checks the exact decimal arithmetic behind minimum,
// maximum and multipleOf against math/big.
func TestSchemaDecimal(t *testing.T) {
	for _, tt := range []struct {
		name, a, b string
		cmp        int
		multiple   bool // a is a multiple of b (b > 0 rows only)
	}{
		{"equal forms", "1.0", "1e0", 0, true},
		{"zero forms", "-0.0e5", "0", 0, false},
		{"big integers", "9007199254740993", "9007199254740992", 1, false},
		{"negative order", "-2", "-10", 1, false},
		{"sign order", "-1", "1e-300", -1, true},
		{"leading digit position", "0.099", "0.1", -1, false},
		{"prefix digits", "0.12", "0.123", -1, false},
		{"decimal multiple", "0.3", "0.1", 1, true},
		{"decimal not multiple", "0.35", "0.1", 1, false},
		{"finer than divisor", "1.25", "0.5", 1, false},
		{"huge exponent multiple of 8", "1e400", "8", 1, true},
		{"huge exponent not multiple of 7", "1e400", "7", 1, false},
		{"long digits", "123456789012345678901234567890123456789", "3", 1, true},
		{"long digits not", "123456789012345678901234567890123456788", "3", 1, false},
		{"multiple of 2.5", "7.5", "2.5", 1, true},
		{"multiple of 0.02", "1.1", "0.02", 1, true},
		{"not multiple of 0.04", "1.1", "0.04", 1, false},
		{"multiple of 0.04", "1.2", "0.04", 1, true},
		{"zero is a multiple", "0", "0.7", -1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, err := parseSchemaDecimal(tt.a)
			if err != nil {
				t.Fatal(err)
			}
			b, err := parseSchemaDecimal(tt.b)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.cmp(b); got != tt.cmp {
				t.Errorf("cmp(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.cmp)
			}
			if got := b.cmp(a); got != -tt.cmp {
				t.Errorf("cmp(%s, %s) = %d, want %d", tt.b, tt.a, got, -tt.cmp)
			}
			if b.sign() > 0 {
				bi, ok := new(big.Int).SetString(b.digits, 10)
				if !ok {
					t.Fatalf("digits %q", b.digits)
				}
				if got := a.multipleOf(b, bi); got != tt.multiple {
					t.Errorf("multipleOf(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.multiple)
				}
			}
		})
	}
}

// TestParseSchemaDecimal checks which JSON numbers the decimals accept.
func TestParseSchemaDecimal(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     string // digits "e" exp, or the error
	}{
		{"integer", "120", "12e1"},
		{"fraction", "-0.0250", "-25e-3"},
		{"exponent", "1.5E+3", "15e2"},
		{"zero", "-0.000e-7", "e0"},
		{"exponent leading zeros", "1e0000000000000000000000000000000001", "1e1"},
		{"exponent at limit", "1e1000000000000000", "1e1000000000000000"},
		{"exponent beyond limit", "1e1000000000000001", "number 1e1000000000000001 out of range"},
		{"empty", "", "invalid number "},
		{"leading zero", "01", "invalid number 01"},
		{"plus sign", "+1", "invalid number +1"},
		{"bare dot", "1.", "invalid number 1."},
		{"leading dot", ".5", "invalid number .5"},
		{"bare exponent", "1e", "invalid number 1e"},
		{"signed bare exponent", "1e+", "invalid number 1e+"},
		{"trailing text", "1x", "invalid number 1x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := parseSchemaDecimal(tt.in)
			got := errText(err)
			if err == nil {
				got = fmt.Sprintf("%se%d", d.digits, d.exp)
				if d.neg {
					got = "-" + got
				}
			}
			if got != tt.want {
				t.Errorf("parseSchemaDecimal(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}
