package duckdb

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// decodeTree decodes a canonical form as Outline reads it: objects as
// map[string]any, arrays as []any (empty, not nil), numbers as
// json.Number, exactly as encoding/json's Decoder with UseNumber decodes
// its first value. The serializer's output is plain JSON; a hand-written
// reader of it costs a fraction of the reflective one, and an editor
// outlines every model it opens. Anything it does not read on its own
// (an escaped or non-ASCII string, a malformed document) goes to
// encoding/json, so the two never disagree.
func decodeTree(canonical []byte) (map[string]any, error) {
	r := treeReader{b: canonical}
	r.space()
	if r.i < len(r.b) && r.b[r.i] == '{' {
		if v, ok := r.value(); ok {
			return v.(map[string]any), nil
		}
	}
	dec := json.NewDecoder(bytes.NewReader(canonical))
	dec.UseNumber()
	var stmt map[string]any
	if err := dec.Decode(&stmt); err != nil {
		return nil, fmt.Errorf("duckdb: outline: %w", err)
	}
	return stmt, nil
}

// treeReader reads one JSON value from b at i; ok is false for anything
// it leaves to encoding/json.
type treeReader struct {
	b []byte
	i int
}

func (r *treeReader) space() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

func (r *treeReader) value() (any, bool) {
	r.space()
	if r.i >= len(r.b) {
		return nil, false
	}
	switch c := r.b[r.i]; {
	case c == '{':
		r.i++
		m := map[string]any{}
		r.space()
		if r.i < len(r.b) && r.b[r.i] == '}' {
			r.i++
			return m, true
		}
		for {
			r.space()
			k, ok := r.str()
			if !ok {
				return nil, false
			}
			r.space()
			if r.i >= len(r.b) || r.b[r.i] != ':' {
				return nil, false
			}
			r.i++
			v, ok := r.value()
			if !ok {
				return nil, false
			}
			m[k] = v
			r.space()
			if r.i >= len(r.b) {
				return nil, false
			}
			r.i++
			switch r.b[r.i-1] {
			case ',':
			case '}':
				return m, true
			default:
				return nil, false
			}
		}
	case c == '[':
		r.i++
		a := make([]any, 0)
		r.space()
		if r.i < len(r.b) && r.b[r.i] == ']' {
			r.i++
			return a, true
		}
		for {
			v, ok := r.value()
			if !ok {
				return nil, false
			}
			a = append(a, v)
			r.space()
			if r.i >= len(r.b) {
				return nil, false
			}
			r.i++
			switch r.b[r.i-1] {
			case ',':
			case ']':
				return a, true
			default:
				return nil, false
			}
		}
	case c == '"':
		return r.str()
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	}
	for _, lit := range []struct {
		text string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if bytes.HasPrefix(r.b[r.i:], []byte(lit.text)) {
			r.i += len(lit.text)
			return lit.v, true
		}
	}
	return nil, false
}

// str reads a string: printable ASCII without escapes on its own, any
// other through encoding/json (escapes, invalid UTF-8 made U+FFFD).
func (r *treeReader) str() (string, bool) {
	if r.i >= len(r.b) || r.b[r.i] != '"' {
		return "", false
	}
	plain := true
	for j := r.i + 1; j < len(r.b); j++ {
		switch c := r.b[j]; {
		case c == '"':
			raw := r.b[r.i : j+1]
			r.i = j + 1
			if plain {
				return string(raw[1 : len(raw)-1]), true
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", false
			}
			return s, true
		case c == '\\':
			plain = false
			j++
		case c < 0x20:
			return "", false
		case c >= 0x80:
			plain = false
		}
	}
	return "", false
}

// number reads a number of JSON's grammar:
// -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
func (r *treeReader) number() (json.Number, bool) {
	b, i := r.b, r.i
	digits := func() bool {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		digits()
	default:
		return "", false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return "", false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return "", false
		}
	}
	n := json.Number(b[r.i:i])
	r.i = i
	return n, true
}
