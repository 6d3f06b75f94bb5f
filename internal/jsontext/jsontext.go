// Package jsontext reads JSON text for the messages that refuse it: how
// deep it nests (to refuse a body before decoding it), where and why it
// is not valid JSON, and what kind of value it holds.
package jsontext

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Depth returns the deepest nesting of objects and arrays in data,
// counting brackets outside strings. On text that is not valid JSON it
// still counts the brackets it sees, so a body too deep to decode can be
// refused as such.
func Depth(data []byte) int {
	depth, most := 0, 0
	inStr, esc := false, false
	for _, c := range data {
		switch {
		case inStr:
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
			most = max(most, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return most
}

// SyntaxProblem says where and why data, not valid JSON, is not: the
// decoder's syntax error and its byte offset, its other error, or
// "invalid JSON".
func SyntaxProblem(data []byte) string {
	var v any
	err := json.Unmarshal(data, &v)
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return fmt.Sprintf("%v at byte %d", se, se.Offset)
	}
	if err != nil {
		return err.Error()
	}
	return "invalid JSON"
}

// Kind names the kind of the JSON value raw (valid JSON, spaces around it
// allowed) as a message says it: "an object", "an array", "a string", "a
// boolean", "null" or "a number"; "nothing" when raw holds only spaces.
func Kind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}
