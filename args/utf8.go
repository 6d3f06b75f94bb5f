package args

import (
	"fmt"
	"unicode/utf8"
)

// RuleInvalidUTF8 is the Rule of a FieldError for JSON text that is not
// valid UTF-8 (RFC 8259 §8.1 requires it; encoding/json would silently
// replace each bad byte with U+FFFD).
const RuleInvalidUTF8 = "invalid_utf8"

// utf8WalkDepth bounds how deep FindInvalidUTF8 follows the nesting to
// name a field; deeper, it gives the byte offset alone.
const utf8WalkDepth = 1024

// FindInvalidUTF8 locates the first byte of raw, JSON text, that is not
// part of valid UTF-8. ok is false when raw is valid UTF-8; that check is
// one fast pass (utf8.Valid), and only invalid text is walked further.
//
// offset is the position of the bad byte in raw. field is the JSON path
// ("text", "filter.tags[2]") of the value whose string holds it; bad bytes
// in an object's key are reported at that object (key true), so that the
// path never carries them. field is "" for the top-level value, and when
// the path cannot be told: the text is not valid JSON before the bad
// byte, the byte is outside any string, or the nesting is deeper than
// 1024 levels.
func FindInvalidUTF8(raw []byte) (field string, offset int, key, ok bool) {
	if utf8.Valid(raw) {
		return "", 0, false, false
	}
	offset = firstInvalid(raw)
	var buf [8]seg
	d := decoder{raw: raw, maxDepth: utf8WalkDepth, path: buf[:0]}
	d.skip(true)
	if a := d.abort; a != nil && a.Rule == RuleInvalidUTF8 && d.pos == offset {
		return a.Field, offset, d.badKey, true
	}
	return "", offset, false, true
}

// CheckUTF8 returns nil when raw, JSON text, is valid UTF-8, else the
// refusal Decode gives it: a *ValidationError with one FieldError of rule
// invalid_utf8 naming the field (FindInvalidUTF8) and the byte offset —
// or, when raw is not JSON either, its syntax error (rule syntax, with its
// offset), reported first as Decode does. The bad bytes themselves are
// never quoted. Decode performs this check itself; CheckUTF8 is for
// arguments that reach a tool without Decode.
func CheckUTF8(raw []byte) *ValidationError {
	field, offset, key, ok := FindInvalidUTF8(raw)
	if !ok {
		return nil
	}
	s := decoder{raw: raw, maxDepth: utf8WalkDepth, anyBytes: true}
	if !(s.skip(false) && s.end()) && s.abort != nil && s.abort.Rule == "syntax" {
		return &ValidationError{Errors: []FieldError{*s.abort}}
	}
	return &ValidationError{Errors: []FieldError{utf8Error(field, offset, key)}}
}

// utf8Error is the FieldError of invalid UTF-8 at offset, in a string of
// field's value (or in one of its keys).
func utf8Error(field string, offset int, key bool) FieldError {
	msg := fmt.Sprintf("the string holds bytes that are not valid UTF-8 (at byte %d); JSON text must be UTF-8 — send the text as UTF-8 or escape it (\\uXXXX)", offset)
	if key {
		msg = fmt.Sprintf("a key of this object holds bytes that are not valid UTF-8 (at byte %d); JSON text must be UTF-8", offset)
	}
	if field == "" && !key {
		msg = fmt.Sprintf("arguments hold bytes that are not valid UTF-8 (at byte %d); JSON text must be UTF-8", offset)
	}
	return FieldError{Field: field, Rule: RuleInvalidUTF8, Message: msg}
}

// firstInvalid returns the offset of the first byte of b that does not
// start a valid UTF-8 encoding; len(b) if none.
func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(b)
}
