// Package jsonptr writes JSON Pointers (RFC 6901), the locations the
// project's errors name ("/items/2/name").
package jsonptr

import "strings"

// escaper writes a reference token: "~" as "~0", then "/" as "~1".
var escaper = strings.NewReplacer("~", "~0", "/", "~1")

// Escape writes one reference token of a pointer: "a/b~c" → "a~1b~0c".
func Escape(token string) string { return escaper.Replace(token) }

// FromTokens joins reference tokens into a pointer: ["a/b", "2"] →
// "/a~1b/2"; none → "" (the whole document).
func FromTokens(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escaper.Replace(t))
	}
	return b.String()
}
