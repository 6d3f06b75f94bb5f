package topicglob_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/internal/topicglob"
)

// Python's fnmatch.fnmatchcase, case by case (the answers are Python
// 3's): * and ? cross '/', [!set] negates, '^' and '\' are ordinary, an
// unclosed '[' is literal, a reversed range is dropped.
func TestMatch_AsPythonFnmatch(t *testing.T) {
	cases := []struct {
		pattern, topic string
		want           bool
	}{
		{"notes*", "notes", true},
		{"notes*", "notes:work", true},
		{"notes*", "notes/2026/11", true},
		{"notes*", "notes/a\x00", true},
		{"*", "a/b/c", true},
		{"a?b", "a/b", true},
		{"status:*", "doc:api", false},
		{"notes", "notes/x", false},
		{"neg[!a]", "negb", true},
		{"neg[!a]", "nega", false},
		{"car[^a]", "carb", false},
		{"car[^a]", "car^", true},
		{`lit\[x]`, "lit[x]", false},
		{`lit\[x]`, `lit\x`, true},
		{"unclosed[ab", "unclosed[ab", true},
		{"[]", "[]", true},
		{"[!]", "x", false},
		{"[!]", "[!]", true},
		{"[z-a]", "b", false},
		{"[a-c]", "b", true},
		{"[]a]", "]", true},
		{"x:[/]", "x:/", true},
		{`a\*`, "a*", false},
		{`a\*`, `a\b`, true},
		{"é*", "ecole", false},
		{"é*", "élan", true},
	}
	for _, c := range cases {
		got, err := topicglob.Match(c.pattern, c.topic)
		require.NoError(t, err, c.pattern)
		assert.Equal(t, c.want, got, "%q ~ %q", c.pattern, c.topic)
		assert.True(t, topicglob.Valid(c.pattern))
	}
}

// Against Python itself, when python3 is installed (skipped otherwise):
// random patterns and topics over the characters that mean something to
// fnmatch match alike.
func TestMatch_AgreesWithPythonItself(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: TestMatch_AsPythonFnmatch holds Python's answers")
	}
	type pair struct{ P, T string }
	var pairs []pair
	rapid.Check(t, func(t *rapid.T) {
		alphabet := rapid.SampledFrom([]rune(`ab/*?[]!^\-`))
		pairs = append(pairs, pair{
			rapid.StringOfN(alphabet, 0, 8, -1).Draw(t, "pattern"),
			rapid.StringOfN(rapid.SampledFrom([]rune(`ab/[]!^\-`)), 0, 6, -1).Draw(t, "topic"),
		})
	})
	in, err := json.Marshal(pairs)
	require.NoError(t, err)
	cmd := exec.Command(py, "-c", `import sys, json, fnmatch
print(json.dumps([fnmatch.fnmatchcase(p["T"], p["P"]) for p in json.load(sys.stdin)]))`)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	require.NoError(t, err)
	var want []bool
	require.NoError(t, json.Unmarshal(out, &want))
	for i, p := range pairs {
		got, err := topicglob.Match(p.P, p.T)
		require.NoError(t, err)
		assert.Equal(t, want[i], got, "%q ~ %q", p.P, p.T)
	}
}
