// Package schematype answers, without allocating, the one question every
// layer asks of a tool's input schema before serving it: is it a JSON
// object whose "type" is "object", as MCP requires? The registry asks it
// when a tool is added and the MCP adapter again before handing the tool
// to the SDK; decoding the whole schema into a map each time cost more
// than everything else a registration does.
package schematype

import "encoding/json"

// IsObject reports whether schema is valid JSON holding an object whose
// "type" member is the string "object". It agrees exactly with decoding
// schema into a map[string]json.RawMessage with encoding/json and then
// decoding the "type" member into a string: a key or value written with
// escapes counts by what it decodes to, and of duplicate "type" members
// the last one counts.
func IsObject(schema []byte) bool {
	if !json.Valid(schema) {
		return false
	}
	b := schema
	i := skipSpace(b, 0)
	if b[i] != '{' {
		return false
	}
	i++
	ok := false
	for {
		i = skipSpace(b, i)
		if b[i] == '}' {
			return ok
		}
		end := stringEnd(b, i)
		key := b[i:end]
		i = skipSpace(b, end) + 1 // past ':'
		i = skipSpace(b, i)
		vend := valueEnd(b, i)
		if stringIs(key, "type") {
			ok = stringIs(b[i:vend], "object")
		}
		i = skipSpace(b, vend)
		if b[i] == ',' {
			i++
		}
	}
}

// stringIs reports whether the JSON value v is a string that decodes to want.
func stringIs(v []byte, want string) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	body := v[1 : len(v)-1]
	for _, c := range body {
		if c == '\\' {
			var s string
			return json.Unmarshal(v, &s) == nil && s == want
		}
	}
	return string(body) == want
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the index just past the string starting at b[i] == '"';
// b is valid JSON.
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// valueEnd returns the index just past the value starting at b[i]; b is
// valid JSON.
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = stringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
}
