package topicglob_test

import (
	"testing"

	"github.com/toolpack-go/toolpack/internal/topicglob"
)

// FuzzMatch: any pattern (ot.notify's configured notify.topics patterns)
// against any topic (ot.notify's argument): Match never fails and never
// panics, every pattern is Valid, and the answer is that of fnmatch, a
// matcher written here directly over the pattern (no regular
// expression), so that a character the translation to a regular
// expression escapes wrongly, or a set it writes wrongly, is found.
func FuzzMatch(f *testing.F) {
	for _, c := range [][2]string{
		{"notes*", "notes/2026/11"}, {"a?b", "a/b"}, {"neg[!a]", "negb"}, {"car[^a]", "car^"},
		{`lit\[x]`, `lit\x`}, {"unclosed[ab", "unclosed[ab"}, {"[]a]", "]"}, {"[!]", "[!]"},
		{"[z-a]", "b"}, {"[!z-a]", "q"}, {"é*[à-ü]", "élan-é"}, {"[\\]-]", "-"}, {"*.*?[", "x.y[z"},
		{"\xff*", "\xff\xfe"}, {"[a-]", "-"}, {"[-a]", "-"}, {"$(?:)^|+{2}", "$(?:)^|+{2}"},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, pattern, topic string) {
		got, err := topicglob.Match(pattern, topic)
		if err != nil {
			t.Fatalf("Match(%q, %q): %v", pattern, topic, err)
		}
		if !topicglob.Valid(pattern) {
			t.Fatalf("Valid(%q) is false", pattern)
		}
		if want := fnmatch([]rune(pattern), []rune(topic)); got != want {
			t.Fatalf("Match(%q, %q) = %v, fnmatch says %v", pattern, topic, got, want)
		}
	})
}

// fnmatch is Python's fnmatch.fnmatchcase over runes, as the package
// documents it: * any run, ? any one rune, [set] and [!set] one rune (a
// ']' first is a member, lo-hi a range, dropped when reversed), a '['
// that nothing closes a literal.
func fnmatch(p, s []rune) bool {
	// done[i][j]: p[i:] against s[j:] already failed.
	done := make(map[[2]int]bool)
	var match func(i, j int) bool
	match = func(i, j int) bool {
		if done[[2]int{i, j}] {
			return false
		}
		for i < len(p) {
			switch p[i] {
			case '*':
				for k := j; k <= len(s); k++ {
					if match(i+1, k) {
						return true
					}
				}
				done[[2]int{i, j}] = true
				return false
			case '?':
				if j == len(s) {
					return false
				}
				i, j = i+1, j+1
				continue
			case '[':
				if end := closing(p, i); end > 0 {
					if j == len(s) || !inSet(p[i+1:end], s[j]) {
						return false
					}
					i, j = end+1, j+1
					continue
				}
			}
			if j == len(s) || s[j] != p[i] {
				return false
			}
			i, j = i+1, j+1
		}
		return j == len(s)
	}
	return match(0, 0)
}

// closing is the index of the ']' closing the '[' at p[i], or 0.
func closing(p []rune, i int) int {
	j := i + 1
	if j < len(p) && p[j] == '!' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for ; j < len(p); j++ {
		if p[j] == ']' {
			return j
		}
	}
	return 0
}

// inSet reports whether r is in the set written between '[' and ']'.
func inSet(set []rune, r rune) bool {
	negate := len(set) > 0 && set[0] == '!'
	if negate {
		set = set[1:]
	}
	in := false
	for k := 0; k < len(set); {
		if k+2 < len(set) && set[k+1] == '-' {
			in = in || set[k] <= r && r <= set[k+2]
			k += 3
			continue
		}
		in = in || set[k] == r
		k++
	}
	return in != negate
}
