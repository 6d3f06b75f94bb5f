// Package topicglob matches notification topics against the glob patterns
// of a host configuration's notify.topics the way Python's fnmatch does
// on a POSIX system (fnmatch.fnmatchcase; and so the way the ot pack's
// reference system routes them):
//
//   - * matches any run of characters and ? any one character, '/'
//     included: a topic is a name, not a path, so "notes*" routes
//     "notes", "notes:work" and "notes/2026/11" alike;
//   - [set] matches one character of the set, [!set] one character not in
//     it; a ']' right after '[' or '[!' is a member, a-z is a range (a
//     range whose ends are in the wrong order is dropped, as fnmatch
//     does), and '^' and '\' are ordinary members;
//   - a '[' with no ']' to close it, a '\' and every other character match
//     themselves.
//
// Every pattern is well formed, as in fnmatch.
package topicglob

import (
	"fmt"
	"regexp"
	"strings"
)

// Match reports whether topic matches pattern. The error is always nil
// (kept so that callers need not change if a pattern may one day be
// refused).
func Match(pattern, topic string) (bool, error) {
	re, err := regexp.Compile(translate(pattern))
	if err != nil {
		return false, fmt.Errorf("topicglob: pattern %q: %w", pattern, err)
	}
	return re.MatchString(topic), nil
}

// Valid reports whether pattern is a well-formed glob: every pattern is.
func Valid(pattern string) bool {
	_, err := regexp.Compile(translate(pattern))
	return err == nil
}

// translate writes pattern as an anchored regular expression, as Python's
// fnmatch.translate does.
func translate(pattern string) string {
	p := []rune(pattern)
	var b strings.Builder
	b.WriteString(`^(?s:`)
	for i := 0; i < len(p); {
		c := p[i]
		i++
		switch c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			j := i
			if j < len(p) && p[j] == '!' {
				j++
			}
			if j < len(p) && p[j] == ']' {
				j++
			}
			for j < len(p) && p[j] != ']' {
				j++
			}
			if j >= len(p) { // no ']' closes it: a literal '['
				b.WriteString(`\[`)
				continue
			}
			b.WriteString(class(p[i:j]))
			i = j + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`)$`)
	return b.String()
}

// class writes the members of a [set] (the runes between '[' and ']') as
// a regular expression matching one character.
func class(set []rune) string {
	negate := len(set) > 0 && set[0] == '!'
	if negate {
		set = set[1:]
	}
	var b strings.Builder
	for k := 0; k < len(set); {
		if k+2 < len(set) && set[k+1] == '-' {
			if lo, hi := set[k], set[k+2]; lo <= hi {
				fmt.Fprintf(&b, `\x{%x}-\x{%x}`, lo, hi)
			}
			k += 3
			continue
		}
		fmt.Fprintf(&b, `\x{%x}`, set[k])
		k++
	}
	switch {
	case b.Len() == 0 && negate:
		return `.` // [!] matches any one character
	case b.Len() == 0:
		return `[^\x{0}-\x{10ffff}]` // an empty set matches nothing
	case negate:
		return `[^` + b.String() + `]`
	}
	return `[` + b.String() + `]`
}
