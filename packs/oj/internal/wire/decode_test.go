package wire_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/packs/oj/internal/format"
	"github.com/toolpack-go/toolpack/packs/oj/internal/wire"
)

// TestDecode_ProblemRoundTripProperty: a problem sent with any values (and
// optional fields absent or null) decodes to exactly those values.
func TestDecode_ProblemRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		str := rapid.String()
		want := &format.Problem{ID: str.Draw(t, "id"), Source: str.Draw(t, "source"), Title: str.Draw(t, "title"), Content: str.Draw(t, "content")}
		obj := map[string]any{"id": want.ID, "title": want.Title, "source": want.Source, "content": want.Content}
		if rapid.Bool().Draw(t, "difficulty?") {
			d := str.Draw(t, "difficulty")
			want.Difficulty, obj["difficulty"] = &d, d
		} else if rapid.Bool().Draw(t, "null difficulty") {
			obj["difficulty"] = nil
		}
		if rapid.Bool().Draw(t, "ac?") {
			a := rapid.Float64Range(0, 100).Draw(t, "ac")
			want.ACRate, obj["ac_rate"] = &a, a
		}
		if rapid.Bool().Draw(t, "tags?") {
			want.Tags = rapid.SliceOf(str).Draw(t, "tags")
			obj["tags"] = want.Tags
		}
		body, err := json.Marshal(obj)
		require.NoError(t, err)
		got, err := wire.Problem(body)
		require.NoError(t, err)
		if len(want.Tags) == 0 {
			want.Tags, got.Tags = nil, nil
		}
		require.Equal(t, want, got)
	})
}

func TestDecode_MissingOrWrongFieldsNamed(t *testing.T) {
	for body, field := range map[string]string{
		`{"id":"1"}`:              `"title"`,
		`{"title":"t"}`:           `"id"`,
		`{"id":null,"title":"t"}`: `"id"`,
		`{"id":true,"title":"t"}`: `"id"`,
	} {
		_, err := wire.Problem([]byte(body))
		require.Error(t, err, body)
		assert.Contains(t, err.Error(), field, body)
	}
	_, err := wire.Resolve([]byte(`{"source":"x"}`))
	assert.ErrorContains(t, err, `"problem"`)
	_, err = wire.Resolve([]byte(`{"problem":{"id":"1"}}`))
	assert.ErrorContains(t, err, `"problem.title"`)
	_, err = wire.Similar([]byte(`{"rewritten_query":"q","results":[{"source":"a","id":"1","title":"t"}]}`))
	assert.ErrorContains(t, err, `"results[0].similarity"`)
	_, err = wire.Status([]byte(`{"version":"1","platforms":[{"source":"a","total":1,"missing_content":0}]}`))
	assert.ErrorContains(t, err, `"platforms[0].not_embedded"`)
	_, err = wire.Status([]byte(`{"version":"1","platforms":[{"source":"a","total":-1,"missing_content":0,"not_embedded":0}]}`))
	assert.ErrorContains(t, err, "invalid JSON")
}

func TestDecode_IDStringOrNumber(t *testing.T) {
	for body, id := range map[string]string{`{"id":"1A","title":"t"}`: "1A", `{"id":42,"title":"t"}`: "42", `{"id":1e3,"title":"t"}`: "1e3"} {
		p, err := wire.Problem([]byte(body))
		require.NoError(t, err, body)
		assert.Equal(t, id, p.ID, body)
	}
}

func TestDecode_ProblemDetailsAndRetryAfter(t *testing.T) {
	p, ok := wire.ParseProblemDetails([]byte(`{"title":"Not Found","status":404,"detail":"nope"}`))
	require.True(t, ok)
	assert.Equal(t, "Not Found", p.Title)
	assert.Equal(t, uint16(404), *p.Status)
	assert.Equal(t, "nope", p.Detail)
	for _, body := range []string{`{"error":"x"}`, `{"title":1}`, `{"title":"t","status":"404"}`, `[]`, `nope`} {
		_, ok := wire.ParseProblemDetails([]byte(body))
		assert.False(t, ok, body)
	}
	n, ok := wire.RetryAfter([]byte(`{"retry_after":30,"status":"fetching"}`))
	assert.True(t, ok)
	assert.Equal(t, uint64(30), n)
	for _, body := range []string{`{"status":"fetching"}`, `{"retry_after":-1}`, `{"retry_after":"30"}`, `busy`} {
		_, ok := wire.RetryAfter([]byte(body))
		assert.False(t, ok, body)
	}
}
