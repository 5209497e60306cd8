// Tests of the byte-exact JSON decoding (jsondecode.go): its hand-written
// fast paths must agree with encoding/json, which they replace on the hot
// path: same members, same decoded values.
package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// fastPathObjects are checked JSON objects with the shapes the fast paths
// must get right: escapes next to quotes, nested brackets inside strings,
// every scalar kind, escaped keys.
var fastPathObjects = []string{
	`{}`,
	` { } `,
	`{"a":1}`,
	` { "a" : "x\"y\\\\" , "b":[1,{"c":"]}"}], "d":-1.5e3,"e":true,"f":null,"g\u0041":{"h":"\\"}} `,
	`{"s":"\\\\\\\"","t":"\"","u":"\\","v":[[],{},[{}]],"w":""}`,
	`{"uni":"\u00e9\ud83d\ude00 é \u2028","num":[0,-0,1e400,12345678901234567890,0.5E-3]}`,
	`{"message":"hi","nested":{"deep":[{"x":[1,2,{"y":"}"}]}]}}`,
}

func TestObjectMembersMatchesEncodingJSON(t *testing.T) {
	for _, in := range fastPathObjects {
		if err := checkJSON([]byte(in)); err != nil {
			t.Fatalf("checkJSON(%s) = %v", in, err)
		}
		members, err := objectMembers([]byte(in))
		if err != nil {
			t.Fatalf("objectMembers(%s) = %v", in, err)
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		got := map[string]json.RawMessage{}
		for _, m := range members {
			got[m.name] = bytes.TrimSpace(m.value)
		}
		if len(members) != len(want) || !reflect.DeepEqual(got, want) {
			t.Errorf("objectMembers(%s)\n got: %q\nwant: %q", in, got, want)
		}
	}
}

func TestDecodeCheckedMatchesEncodingJSON(t *testing.T) {
	values := append([]string{`[]`, `[1,"a",[null,true,false]]`, `"x\"y"`, `-12.5e-3`, `null`, ` true `},
		fastPathObjects...)
	for _, in := range values {
		if err := checkJSON([]byte(in)); err != nil {
			t.Fatalf("checkJSON(%s) = %v", in, err)
		}
		got, err := decodeChecked([]byte(in))
		if err != nil {
			t.Fatalf("decodeChecked(%s) = %v", in, err)
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(in)))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("decodeChecked(%s)\n got: %#v\nwant: %#v", in, got, want)
		}
	}
}
