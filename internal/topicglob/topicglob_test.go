package topicglob_test

import (
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/internal/topicglob"
)

// A topic is a name, not a path: * and ? match '/' too, as Python's
// fnmatch does; the other glob rules are path.Match's.
func TestMatch_StarAndQuestionMarkCrossSlashes(t *testing.T) {
	cases := []struct {
		pattern, topic string
		want           bool
	}{
		{"notes*", "notes", true},
		{"notes*", "notes:work", true},
		{"notes*", "notes/2026/11", true},
		{"*", "a/b/c", true},
		{"a?b", "a/b", true},
		{"a/*", "a/b/c", true},
		{"status:*", "status:scan", true},
		{"status:*", "doc:api", false},
		{"notes", "notes/x", false},
		{"x:[ab]", "x:a", true},
		{"x:[^ab]", "x:a", false},
		{"x:[/]", "x:/", true},
		{`a\*`, "a*", true},
		{`a\*`, "ab", false},
		{"NOTES*", "notes", false},
	}
	for _, c := range cases {
		got, err := topicglob.Match(c.pattern, c.topic)
		require.NoError(t, err, c.pattern)
		assert.Equal(t, c.want, got, "%q ~ %q", c.pattern, c.topic)
	}
	for _, bad := range []string{"notes[", `a\`, "[]"} {
		_, err := topicglob.Match(bad, "x")
		assert.ErrorIs(t, err, path.ErrBadPattern, bad)
		assert.False(t, topicglob.Valid(bad), bad)
	}
	assert.True(t, topicglob.Valid("notes*"))
}

// On text without '/', Match is path.Match; with '/', a pattern of '*'
// and literal characters matches exactly when it does after the slashes
// are taken out of topic and pattern alike.
func TestMatch_AgreesWithPathMatchAwayFromSlashes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alphabet := rapid.SampledFrom([]rune("ab:/*?"))
		pattern := rapid.StringOfN(alphabet, 0, 8, -1).Draw(t, "pattern")
		topic := rapid.StringOfN(rapid.SampledFrom([]rune("ab:/")), 0, 8, -1).Draw(t, "topic")
		got, err := topicglob.Match(pattern, topic)
		require.NoError(t, err)
		if !strings.Contains(pattern+topic, "/") {
			want, _ := path.Match(pattern, topic)
			require.Equal(t, want, got)
		}
		flat := func(s string) string { return strings.ReplaceAll(s, "/", "=") }
		want, _ := path.Match(flat(pattern), flat(topic))
		require.Equal(t, want, got, fmt.Sprintf("%q ~ %q", pattern, topic))
	})
}
