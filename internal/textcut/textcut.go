// Package textcut shortens text for display without splitting a
// character: what an error message, a summary or a page shows of a value
// that may be long.
package textcut

import "unicode/utf8"

// Runes returns s cut to at most n runes, ending with "…" when it was cut
// (the mark counts as one of the n). n < 1 gives "".
func Runes(s string, n int) string {
	if n < 1 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n-1 {
			return s[:i] + "…"
		}
		count++
	}
	return s
}
