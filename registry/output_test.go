package registry

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/result"
)

const statsSchema = `{"type":"object","properties":{"words":{"type":"integer","minimum":0},"lang":{"type":"string","enum":["en","de"]}},"required":["words","lang"],"additionalProperties":false}`

// A value that violates the output schema is a protocol error wrapping
// ErrInvalidOutput, naming the tool and reporting every violation.
func TestOutput_ViolationIsProtocolErrorNamingTool(t *testing.T) {
	r := New(noPrefix())
	tool := rawTool("stats", okHandler(map[string]any{"words": -1, "lang": "fr"}))
	tool.OutputSchema = json.RawMessage(statsSchema)
	require.NoError(t, r.Add(tool))
	res, err := r.Invoke(t.Context(), "stats", nil)
	require.ErrorIs(t, err, ErrInvalidOutput)
	assert.Equal(t, result.Result[any]{}, res)
	msg := err.Error()
	assert.Contains(t, msg, `"stats"`)
	assert.Contains(t, msg, "/words", "first violation")
	assert.Contains(t, msg, "/lang", "second violation")
}

// Valid values pass; failures are not validated (they carry no value).
func TestOutput_ValidValueAndFailuresPass(t *testing.T) {
	r := New(noPrefix())
	good := rawTool("good", okHandler(struct {
		Words int    `json:"words"`
		Lang  string `json:"lang"`
	}{3, "en"}))
	good.OutputSchema = json.RawMessage(statsSchema)
	fail := rawTool("fail", func(ctx context.Context, c *Call) (result.Result[any], error) {
		return result.Failure[any]("nope", result.NotFound), nil
	})
	fail.OutputSchema = json.RawMessage(statsSchema)
	require.NoError(t, r.Add(good, fail))
	res, err := r.Invoke(t.Context(), "good", nil)
	require.NoError(t, err)
	assert.True(t, res.Success)
	res, err = r.Invoke(t.Context(), "fail", nil)
	require.NoError(t, err)
	assert.Equal(t, result.NotFound, res.ErrorType)
}

// A value that cannot be marshalled is reported, not panicked on.
func TestOutput_UnmarshalableValue(t *testing.T) {
	r := New(noPrefix())
	tool := rawTool("ch", okHandler(make(chan int)))
	tool.OutputSchema = json.RawMessage(`{}`)
	require.NoError(t, r.Add(tool))
	_, err := r.Invoke(t.Context(), "ch", nil)
	require.ErrorIs(t, err, ErrInvalidOutput)
	assert.Contains(t, err.Error(), "marshal")
}

// The schema is compiled once: registration reuses the compiled schema a
// Func-built tool carries, and compiles a hand-written one exactly once.
func TestOutput_SchemaCompiledOnce(t *testing.T) {
	type out struct {
		N int `json:"n"`
	}
	tool, err := Func("f", func(ctx context.Context, a struct{}) (result.Result[out], error) {
		return result.Ok(out{N: 1}), nil
	}, ToolOptions{})
	require.NoError(t, err)
	require.NotNil(t, tool.out, "Func compiles at construction")
	r := New(noPrefix())
	require.NoError(t, r.Add(tool))
	got, _ := r.Lookup("f")
	assert.Same(t, tool.out, got.out, "registration reuses the compiled schema")

	// A changed OutputSchema on a copy is compiled again, not trusted.
	changed := *tool
	changed.Name = "g"
	changed.OutputSchema = json.RawMessage(`{"type":"object","required":["m"]}`)
	require.NoError(t, r.Add(&changed))
	got, _ = r.Lookup("g")
	assert.NotSame(t, tool.out, got.out)
	_, err = r.Invoke(t.Context(), "g", nil)
	require.ErrorIs(t, err, ErrInvalidOutput)
}
