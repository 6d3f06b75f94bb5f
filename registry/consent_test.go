package registry

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/result"
)

type wipePhrase struct{}

func (wipePhrase) Phrase() string { return "WIPE_ALL" }

type wipeArgs struct {
	Scope   string                   `json:"scope" validate:"required,oneof=cache logs" description:"What to wipe."`
	Confirm args.Consent[wipePhrase] `json:"confirm"`
}

func wipe(ctx context.Context, a wipeArgs) (result.Result[string], error) {
	return result.Ok("wiped " + a.Scope), nil
}

// Seed 004 "Tool description warning": a tool whose arguments require a
// consent phrase carries "REQUIRES EXPLICIT USER INSTRUCTION" in its
// description, explains the phrase and warns against frivolous use; it is
// marked destructive unless the options say otherwise.
func TestExplicitUse_DescriptionWarning(t *testing.T) {
	tool, err := Func("wipe", wipe, ToolOptions{Doc: "Wipes a scope."})
	require.NoError(t, err)
	assert.Contains(t, tool.Description, "Wipes a scope.")
	assert.Contains(t, tool.Description, "REQUIRES EXPLICIT USER INSTRUCTION")
	assert.Contains(t, tool.Description, "WIPE_ALL")
	require.NotNil(t, tool.Annotations.Destructive)
	assert.True(t, *tool.Annotations.Destructive)

	stated, err := Func("wipe", wipe, ToolOptions{Annotations: Annotations{Destructive: new(false)}})
	require.NoError(t, err)
	assert.False(t, *stated.Annotations.Destructive, "an explicit annotation wins")

	plain, err := Func("echo", func(ctx context.Context, a statsArgs) (result.Result[string], error) {
		return result.Ok(a.Text), nil
	}, ToolOptions{Doc: "Echoes."})
	require.NoError(t, err)
	assert.NotContains(t, plain.Description, "REQUIRES EXPLICIT USER INSTRUCTION")
	assert.Nil(t, plain.Annotations.Destructive)
}

// Seed 004 "Literal type enforcement": through the pipeline, only the exact
// phrase is accepted; anything else is a validation failure naming the field.
func TestExplicitUse_ExactPhraseEnforced(t *testing.T) {
	tool, err := Func("wipe", wipe, ToolOptions{})
	require.NoError(t, err)
	var schema map[string]any
	require.NoError(t, json.Unmarshal(tool.InputSchema, &schema))
	confirm := schema["properties"].(map[string]any)["confirm"].(map[string]any)
	assert.Equal(t, "WIPE_ALL", confirm["const"])

	r := New(noPrefix())
	require.NoError(t, r.Add(tool))
	for _, bad := range []string{`"wipe_all"`, `"WIPE_ALL "`, `"yes"`, `""`} {
		res, err := r.Invoke(t.Context(), "wipe", json.RawMessage(`{"scope":"cache","confirm":`+bad+`}`))
		require.NoError(t, err)
		assert.Equal(t, result.ValidationError, res.ErrorType, bad)
		assert.Contains(t, res.Error, "confirm", bad)
	}
	res, err := r.Invoke(t.Context(), "wipe", json.RawMessage(`{"scope":"cache"}`))
	require.NoError(t, err)
	assert.Equal(t, result.ValidationError, res.ErrorType, "a missing phrase is refused")

	res, err = r.Invoke(t.Context(), "wipe", json.RawMessage(`{"scope":"cache","confirm":"WIPE_ALL"}`))
	require.NoError(t, err)
	assert.True(t, res.Success, res.Error)
	assert.Equal(t, "wiped cache", res.Value)
}
