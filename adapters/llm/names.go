package llm

import (
	"crypto/sha256"
	"encoding/hex"
)

// nameRule is what one provider accepts as a function name.
type nameRule struct {
	max int
	// ok reports whether byte c may appear at position i.
	ok func(i int, c byte) bool
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

var (
	// OpenAI and Anthropic: ^[a-zA-Z0-9_-]{1,64}$.
	dashRule = nameRule{max: 64, ok: func(_ int, c byte) bool { return alnum(c) || c == '_' || c == '-' }}
	// Gemini: a letter or underscore first, then letters, digits, '_', '.',
	// ':' and '-'; at most 128.
	geminiRule = nameRule{max: 128, ok: func(i int, c byte) bool {
		if i == 0 {
			return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		}
		return alnum(c) || c == '_' || c == '.' || c == ':' || c == '-'
	}}
)

func (r nameRule) valid(name string) bool {
	if name == "" || len(name) > r.max {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !r.ok(i, name[i]) {
			return false
		}
	}
	return true
}

// sanitize replaces every byte the rule refuses with '_' and fits the
// result in the rule's length, ending long names with a hash of the
// original so that two long names sharing a prefix stay apart.
func (r nameRule) sanitize(name string) string {
	b := []byte(name)
	for i := range b {
		if !r.ok(i, b[i]) {
			b[i] = '_'
		}
	}
	if len(b) > r.max {
		return string(b[:r.max-7]) + "_" + shortHash(name)
	}
	return string(b)
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:3])
}

// assignNames gives every registry name (sorted) a provider name: the
// name itself when the provider accepts it, otherwise its sanitized form;
// a sanitized form already taken gets the original's hash appended.
// Names the provider accepts as they are are kept first, so a renamed tool
// never takes a valid tool's name.
// A name that still collides (a 24-bit hash clash) is left out of the map.
func assignNames(names []string, r nameRule) (provider map[string]string) {
	provider = make(map[string]string, len(names))
	taken := make(map[string]bool, len(names))
	for _, n := range names {
		if r.valid(n) {
			provider[n] = n
			taken[n] = true
		}
	}
	for _, n := range names {
		if _, ok := provider[n]; ok {
			continue
		}
		p := r.sanitize(n)
		if taken[p] {
			suffix := "_" + shortHash(n)
			p = p[:min(len(p), r.max-len(suffix))] + suffix
			if taken[p] {
				continue
			}
		}
		provider[n] = p
		taken[p] = true
	}
	return provider
}
