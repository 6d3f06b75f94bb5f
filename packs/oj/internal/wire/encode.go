package wire

import "strings"

// EncodeComponent percent-encodes s the way Rust's urlencoding::encode does,
// which is what the reference server uses for path segments and query
// values: every byte of the UTF-8 encoding is written as %XX (upper-case hex)
// except the unreserved characters A-Z a-z 0-9 - . _ ~, which stay as they
// are. It differs from url.PathEscape and url.QueryEscape, which leave more
// characters alone or turn spaces into '+'.
func EncodeComponent(s string) string {
	const hex = "0123456789ABCDEF"
	n := 0
	for i := 0; i < len(s); i++ {
		if !unreserved(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if unreserved(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0x0f])
	}
	return b.String()
}

func unreserved(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// IsDotSegment reports whether s is "." or "..": EncodeComponent leaves
// dots alone, and such a segment would be resolved by the server (or a
// proxy) as "this" or "parent" path segment instead of being a value.
// Callers refuse these values.
func IsDotSegment(s string) bool { return s == "." || s == ".." }
