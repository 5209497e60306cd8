// orderedMap: a JSON object whose members are written in the order added,
// for the objects whose keys are data (user_config, mcpServers, env).

package main

import (
	"bytes"
	"encoding/json"
)

// orderedMap is a JSON object of V, its keys in the order add was called.
type orderedMap[V any] struct {
	keys []string
	vals []V
}

// add appends key: v.
func (m *orderedMap[V]) add(key string, v V) {
	m.keys = append(m.keys, key)
	m.vals = append(m.vals, v)
}

// MarshalJSON writes the members in order.
func (m *orderedMap[V]) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range m.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kj, err := compact(k)
		if err != nil {
			return nil, err
		}
		vj, err := compact(m.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(kj)
		b.WriteByte(':')
		b.Write(vj)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// compact is v as one line of JSON without HTML escaping, as marshal
// writes it.
func compact(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
