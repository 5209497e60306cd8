// Strict JSON decoding of peer messages: RFC 8259 syntax, JSON-RPC 2.0 member names byte for byte.
//
// encoding/json matches keys case-insensitively (with Unicode folding: "ſ" matches "s") and lets
// the last duplicate win: a peer could choose which of {"method":"tools/list","METHOD":"tools/call"}
// runs. checkJSON first checks every peer message (syntax, depth, duplicate and NUL keys); protocol
// objects are walked with exact names, free-form values decoded only into maps.
// TestSmuggledKeysNeverRunAMethod.

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxJSONDepth bounds peer message nesting: room for real tool arguments, a small checker stack.
const maxJSONDepth = 64

// errJSONSyntax is the cause of every syntax failure; callers map it to -32700.
var errJSONSyntax = errors.New("invalid JSON")

// jsonShapeError reports JSON that parses but cannot be honoured (a duplicate key, a key with
// NUL, nesting beyond maxJSONDepth); it maps to -32600.
type jsonShapeError struct{ msg string }

// Error returns the message, fit for the peer.
func (e *jsonShapeError) Error() string { return e.msg }

// checkJSON reports whether data is exactly one JSON value (surrounding white space allowed)
// that is valid UTF-8, nested at most maxJSONDepth deep, and whose objects have no duplicate
// keys and no key containing NUL. It allocates only for keys that need unescaping.
func checkJSON(data []byte) error {
	if !utf8.Valid(data) {
		return errJSONSyntax
	}
	c := jsonChecker{data: data}
	if err := c.value(0); err != nil {
		return err
	}
	c.skipSpace()
	if c.pos != len(data) {
		return errJSONSyntax
	}
	return nil
}

// jsonChecker is the cursor of one checkJSON call.
type jsonChecker struct {
	data []byte
	pos  int
}

// skipSpace moves c past JSON white space.
func (c *jsonChecker) skipSpace() {
	for c.pos < len(c.data) {
		switch c.data[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

// trimLeftSpace returns raw past its leading JSON white space. bytes.TrimLeft with this cutset
// builds its set on every call: 1.6 % of HTTP c=8's server CPU in a perf profile, most of it
// jsonKind and objectMembers on a warm tools/call; this loop is skipSpace's.
func trimLeftSpace(raw []byte) []byte {
	c := jsonChecker{data: raw}
	c.skipSpace()
	return raw[c.pos:]
}

// value checks the value at c.pos, found depth levels deep.
func (c *jsonChecker) value(depth int) error {
	c.skipSpace()
	if c.pos >= len(c.data) {
		return errJSONSyntax
	}
	switch b := c.data[c.pos]; {
	case b == '{' || b == '[':
		if depth >= maxJSONDepth {
			return &jsonShapeError{fmt.Sprintf("message nested deeper than %d levels", maxJSONDepth)}
		}
		if b == '[' {
			return c.array(depth + 1)
		}
		return c.object(depth + 1)
	case b == '"':
		_, _, err := c.str()
		return err
	case b == 't':
		return c.literal("true")
	case b == 'f':
		return c.literal("false")
	case b == 'n':
		return c.literal("null")
	case b == '-' || (b >= '0' && b <= '9'):
		return c.number()
	}
	return errJSONSyntax
}

// literal moves c past lit, which must stand at c.pos.
func (c *jsonChecker) literal(lit string) error {
	if !bytes.HasPrefix(c.data[c.pos:], []byte(lit)) {
		return errJSONSyntax
	}
	c.pos += len(lit)
	return nil
}

// number moves c past the number at c.pos.
func (c *jsonChecker) number() error {
	d, i := c.data, c.pos
	digits := func() int { // moves i past a run of digits, returning its length
		start := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	if i < len(d) && d[i] == '0' {
		i++
	} else if digits() == 0 {
		return errJSONSyntax
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return errJSONSyntax
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return errJSONSyntax
		}
	}
	c.pos = i
	return nil
}

// plainStringByte marks the bytes a JSON string holds as they are: all but the quote, the
// backslash and control characters (checkJSON checks UTF-8).
var plainStringByte = func() (t [256]bool) {
	for b := range t {
		t[b] = b >= 0x20 && b != '"' && b != '\\'
	}
	return t
}()

// str scans the string at its opening quote, returning its raw bytes and whether it has escapes.
// Plain runs (a large argument) are crossed eight bytes at a time (plainStringWords), then by table.
func (c *jsonChecker) str() (raw []byte, escaped bool, err error) {
	start := c.pos + 1
	i := start
	for i < len(c.data) {
		i = plainStringWords(c.data, i)
		for i < len(c.data) && plainStringByte[c.data[i]] {
			i++
		}
		if i == len(c.data) {
			break
		}
		switch b := c.data[i]; {
		case b == '"':
			c.pos = i + 1
			return c.data[start:i], escaped, nil
		case b == '\\':
			escaped = true
			if i+1 >= len(c.data) {
				return nil, false, errJSONSyntax
			}
			switch c.data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(c.data) || !isHex4(c.data[i+2:i+6]) {
					return nil, false, errJSONSyntax
				}
				i += 6
			default:
				return nil, false, errJSONSyntax
			}
		case b < 0x20:
			return nil, false, errJSONSyntax
		default:
			i++
		}
	}
	return nil, false, errJSONSyntax
}

// isHex4 reports whether b is all hex digits.
func isHex4(b []byte) bool {
	for _, x := range b {
		if !(x >= '0' && x <= '9' || x >= 'a' && x <= 'f' || x >= 'A' && x <= 'F') {
			return false
		}
	}
	return true
}

// array checks the array at c.pos, whose elements are depth levels deep.
func (c *jsonChecker) array(depth int) error {
	c.pos++ // [
	if c.take(']') {
		return nil
	}
	for {
		if err := c.value(depth); err != nil {
			return err
		}
		if done, err := c.next(']'); done || err != nil {
			return err
		}
	}
}

// take moves c past white space, then past b if b is next; it reports whether b was.
func (c *jsonChecker) take(b byte) bool {
	c.skipSpace()
	if c.pos < len(c.data) && c.data[c.pos] == b {
		c.pos++
		return true
	}
	return false
}

// next moves c past the ',' or closing byte after an element or member; done reports the closing.
func (c *jsonChecker) next(closing byte) (done bool, err error) {
	if c.take(',') {
		return false, nil
	}
	if c.take(closing) {
		return true, nil
	}
	return false, errJSONSyntax
}

// maxObjectKeys bounds the members of one object in a peer message, and so the duplicate-key
// set checkJSON builds: far beyond any MCP object or realistic argument map.
const maxObjectKeys = 10000

// smallObjectKeys is how many keys duplicate detection scans linearly before using a map.
const smallObjectKeys = 16

// object checks the object at c.pos, whose members are depth levels deep.
func (c *jsonChecker) object(depth int) error {
	c.pos++ // {
	if c.take('}') {
		return nil
	}
	// Keys compare as bytes: raw when unescaped (the common case, no allocation), else decoded.
	var small [smallObjectKeys][]byte
	keys := small[:0]
	var many map[string]struct{}
	nkeys := 0
	for {
		if nkeys++; nkeys > maxObjectKeys {
			return &jsonShapeError{fmt.Sprintf("object with more than %d members", maxObjectKeys)}
		}
		c.skipSpace()
		if c.pos >= len(c.data) || c.data[c.pos] != '"' {
			return errJSONSyntax
		}
		key, escaped, err := c.str()
		if err != nil {
			return err
		}
		if escaped {
			s, err := unquoteJSON(key)
			if err != nil {
				return err
			}
			key = []byte(s)
		}
		if bytes.IndexByte(key, 0) >= 0 {
			return &jsonShapeError{"object key contains NUL"}
		}
		if many != nil {
			if _, dup := many[string(key)]; dup {
				return &jsonShapeError{fmt.Sprintf("duplicate key %q", key)}
			}
			many[string(key)] = struct{}{}
		} else {
			for _, k := range keys {
				if bytes.Equal(k, key) {
					return &jsonShapeError{fmt.Sprintf("duplicate key %q", key)}
				}
			}
			keys = append(keys, key)
			if len(keys) == smallObjectKeys {
				many = make(map[string]struct{}, 2*smallObjectKeys)
				for _, k := range keys {
					many[string(k)] = struct{}{}
				}
			}
		}
		if !c.take(':') {
			return errJSONSyntax
		}
		if err := c.value(depth); err != nil {
			return err
		}
		if done, err := c.next('}'); done || err != nil {
			return err
		}
	}
}

// unquoteJSON decodes the body of a JSON string (without its quotes).
func unquoteJSON(raw []byte) (string, error) {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw), nil
	}
	var s string
	if err := json.Unmarshal(slices.Concat([]byte{'"'}, raw, []byte{'"'}), &s); err != nil {
		return "", errJSONSyntax
	}
	return s, nil
}

// member is one name/value pair of a JSON object checkJSON accepted; value is raw JSON.
type member struct {
	name  string
	value []byte
}

// objectMembers returns the members of raw, a JSON object checkJSON accepted, or errNotObject.
// Values are crossed with skipChecked, not checked again; known names are shared (memberNames).
// It is small enough to be inlined, so a caller that keeps no member holds them on its stack: on
// a warm HTTP tools/call, parseMessage's and requestMeta.parse's 640 bytes (the garbage collector
// is a tenth of HTTP c=8's server CPU).
func objectMembers(raw []byte) ([]member, error) {
	return appendMembers(make([]member, 0, 8), raw) // 8: enough for any MCP object
}

// appendMembers is objectMembers, appending to out.
func appendMembers(out []member, raw []byte) ([]member, error) {
	raw = trimLeftSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, errNotObject
	}
	c := jsonChecker{data: raw, pos: 1}
	if c.take('}') {
		return out, nil
	}
	for {
		c.skipSpace()
		keyRaw, _, err := c.str()
		if err != nil {
			return nil, err
		}
		name, known := memberNames[string(keyRaw)] // no known name has an escape
		if !known {
			if name, err = unquoteJSON(keyRaw); err != nil {
				return nil, err
			}
		}
		c.take(':')
		c.skipSpace()
		start := c.pos
		if err := c.skipChecked(); err != nil {
			return nil, err
		}
		out = append(out, member{name: name, value: raw[start:c.pos]})
		if done, err := c.next('}'); err != nil {
			return nil, err
		} else if done {
			return out, nil
		}
	}
}

// memberNames maps the member names MCP messages use to a shared copy, so objectMembers does
// not allocate them per message; a name missing here is only allocated, never misread.
var memberNames = func() map[string]string {
	m := map[string]string{}
	for _, n := range []string{"jsonrpc", "id", "method", "params", "result", "error",
		"_meta", "progressToken", metaProtocolVersion, metaClientInfo, metaClientCapabilities, metaLogLevel,
		"name", "arguments", "cursor", "uri", "ref", "argument", "context", "value",
		"requestId", "reason", "inputResponses", "requestState"} {
		m[n] = n
	}
	return m
}()

// skipChecked moves c past one value of JSON checkJSON accepted, not validating again: it tracks
// nesting and crosses strings with skipString (a memchr, not a byte loop).
func (c *jsonChecker) skipChecked() error {
	c.skipSpace()
	if c.pos >= len(c.data) {
		return errJSONSyntax
	}
	switch c.data[c.pos] {
	case '"':
		return c.skipString()
	case '{', '[':
	default:
		return c.value(0) // a number or a literal: short
	}
	depth := 0
	for c.pos < len(c.data) {
		switch c.data[c.pos] {
		case '"':
			if err := c.skipString(); err != nil {
				return err
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				c.pos++
				return nil
			}
		}
		c.pos++
	}
	return errJSONSyntax
}

// skipString moves c past the string at c.pos, to the first quote after an even run of backslashes.
func (c *jsonChecker) skipString() error {
	i := c.pos + 1
	for {
		j := bytes.IndexByte(c.data[i:], '"')
		if j < 0 {
			return errJSONSyntax
		}
		i += j
		k := i
		for k > c.pos+1 && c.data[k-1] == '\\' {
			k--
		}
		if (i-k)%2 == 0 {
			c.pos = i + 1
			return nil
		}
		i++
	}
}

// decodeChecked decodes one JSON value checkJSON accepted as encoding/json with UseNumber does,
// in one walk without reflection. TestDecodeCheckedMatchesEncodingJSON.
func decodeChecked(raw []byte) (any, error) {
	c := jsonChecker{data: raw}
	v, err := c.decode()
	if err != nil {
		return nil, err
	}
	c.skipSpace()
	if c.pos != len(raw) {
		return nil, errJSONSyntax
	}
	return v, nil
}

// decode decodes the value at c.pos.
func (c *jsonChecker) decode() (any, error) {
	c.skipSpace()
	if c.pos >= len(c.data) {
		return nil, errJSONSyntax
	}
	switch b := c.data[c.pos]; {
	case b == '{':
		obj := map[string]any{}
		c.pos++
		if c.take('}') {
			return obj, nil
		}
		for {
			c.skipSpace()
			key, err := c.decodeString()
			if err != nil {
				return nil, err
			}
			if !c.take(':') {
				return nil, errJSONSyntax
			}
			if obj[key], err = c.decode(); err != nil {
				return nil, err
			}
			if done, err := c.next('}'); done || err != nil {
				return obj, err
			}
		}
	case b == '[':
		arr := []any{}
		c.pos++
		if c.take(']') {
			return arr, nil
		}
		for {
			v, err := c.decode()
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
			if done, err := c.next(']'); done || err != nil {
				return arr, err
			}
		}
	case b == '"':
		return c.decodeString()
	case b == 't':
		return true, c.literal("true")
	case b == 'f':
		return false, c.literal("false")
	case b == 'n':
		return nil, c.literal("null")
	default:
		start := c.pos
		if err := c.number(); err != nil {
			return nil, err
		}
		return json.Number(c.data[start:c.pos]), nil
	}
}

// decodeString decodes the string at c.pos; an unescaped one is found with memchr, copied once.
func (c *jsonChecker) decodeString() (string, error) {
	if c.pos >= len(c.data) || c.data[c.pos] != '"' {
		return "", errJSONSyntax
	}
	start := c.pos + 1
	if err := c.skipString(); err != nil {
		return "", err
	}
	return unquoteJSON(c.data[start : c.pos-1])
}

// errNotObject reports a value that should have been a JSON object.
var errNotObject = errors.New("not an object")

// foldedName returns the known name key differs from only by case or Unicode folding, else "".
func foldedName(key string, known ...string) string {
	if slices.Contains(known, key) {
		return ""
	}
	for _, k := range known {
		if strings.EqualFold(key, k) {
			return k
		}
	}
	return ""
}

// jsonKind returns the JSON type of a raw value by its first byte.
func jsonKind(raw []byte) byte {
	raw = trimLeftSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	switch b := raw[0]; b {
	case '{', '[', '"', 't', 'f', 'n':
		return b
	default:
		return '0'
	}
}

// jsonString decodes a raw JSON string value; ok is false when raw is not a string.
func jsonString(raw []byte) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	s, err := unquoteJSON(raw[1 : len(raw)-1])
	return s, err == nil
}

// isJSONInteger reports whether raw is a JSON number with no fraction or exponent.
func isJSONInteger(raw []byte) bool {
	raw = bytes.TrimPrefix(bytes.TrimSpace(raw), []byte("-"))
	for _, b := range raw {
		if b < '0' || b > '9' { // a loop: TrimLeft's cutset set is built per call (trimLeftSpace)
			return false
		}
	}
	return len(raw) > 0
}
