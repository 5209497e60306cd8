// Exact decimals for JSON Schema's numeric keywords and integer headers: never a rounded float64.
//
// Spec: https://json-schema.org/draft/2020-12/json-schema-validation#name-validation-keywords-for-num,
// RFC 8259 §6 (numbers).

package main

import (
	"cmp"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// schemaDecimal is an exact decimal number: the integer digits × 10^exp. digits has no leading
// or trailing zeros, and is "" for zero, which is never neg.
type schemaDecimal struct {
	neg    bool
	digits string
	exp    int64
}

// parseSchemaDecimal parses a JSON number (RFC 8259 §6) exactly; its error suits a message.
func parseSchemaDecimal(s string) (schemaDecimal, error) {
	bad := func() error { return fmt.Errorf("invalid number %s", schemaTruncate(s)) }
	i := 0
	digitsFrom := func() string {
		from := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return s[from:i]
	}
	var d schemaDecimal
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	whole := digitsFrom()
	if whole == "" || len(whole) > 1 && whole[0] == '0' {
		return schemaDecimal{}, bad()
	}
	var frac string
	if i < len(s) && s[i] == '.' {
		i++
		if frac = digitsFrom(); frac == "" {
			return schemaDecimal{}, bad()
		}
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		e := digitsFrom()
		if e == "" {
			return schemaDecimal{}, bad()
		}
		e = strings.TrimLeft(e, "0")
		exp, _ = strconv.ParseInt(e, 10, 64) // "" (a zero exponent) is 0
		if len(e) > 16 || exp > schemaMaxExponent {
			return schemaDecimal{}, fmt.Errorf("number %s out of range", schemaTruncate(s))
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) {
		return schemaDecimal{}, bad()
	}
	all := strings.TrimLeft(whole+frac, "0")
	if all == "" {
		return schemaDecimal{}, nil
	}
	d.digits = strings.TrimRight(all, "0")
	d.exp = exp - int64(len(frac)) + int64(len(all)-len(d.digits))
	return d, nil
}

// isInteger reports whether d has no fractional part.
func (d schemaDecimal) isInteger() bool { return d.digits == "" || d.exp >= 0 }

// sign returns -1, 0 or 1.
func (d schemaDecimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// cmp compares d and e exactly, returning -1, 0 or 1.
func (d schemaDecimal) cmp(e schemaDecimal) int {
	ds, es := d.sign(), e.sign()
	if ds != es || ds == 0 {
		return cmp.Compare(ds, es)
	}
	// Both non-zero, same sign: compare magnitudes by leading digit position, then digit by digit.
	mag := cmp.Compare(int64(len(d.digits))+d.exp, int64(len(e.digits))+e.exp)
	if mag == 0 {
		mag = strings.Compare(d.digits, e.digits)
	}
	return mag * ds
}

// multipleOf reports whether d is an integer multiple of m, positive with digits mInt. With
// d = V×10^a, m = M×10^b, neither V nor M ending in 0: if a < b the quotient needs 10 | V, which
// fails; else M must divide V×10^(a-b), tested as M/g | 10^(a-b) with g = gcd(M, V mod M).
// The work is linear in the digits of d, whatever its exponent.
func (d schemaDecimal) multipleOf(m schemaDecimal, mInt *big.Int) bool {
	if d.digits == "" {
		return true
	}
	if d.exp < m.exp {
		return false
	}
	// V mod M, 18 digits at a time; the first chunk takes the remainder, so the rest are 18 long.
	r, chunk, step := new(big.Int), new(big.Int), big.NewInt(1e18)
	for s, k := d.digits, len(d.digits)%18; s != ""; k = 18 {
		if k == 0 {
			k = 18
		}
		chunk.SetString(s[:k], 10)
		r.Mul(r, step)
		r.Add(r, chunk)
		r.Mod(r, mInt)
		s = s[k:]
	}
	if r.Sign() == 0 {
		return true
	}
	rest := new(big.Int).Div(mInt, new(big.Int).GCD(nil, nil, r, mInt))
	k, q, rem := d.exp-m.exp, new(big.Int), new(big.Int)
	for _, p := range []*big.Int{big.NewInt(2), big.NewInt(5)} {
		n := int64(0) // the power of p in rest, which 10^k must hold
		for q.QuoRem(rest, p, rem); rem.Sign() == 0; q.QuoRem(rest, p, rem) {
			rest.Set(q)
			n++
		}
		if n > k {
			return false
		}
	}
	return rest.Cmp(big.NewInt(1)) == 0
}
