package snippet_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/registry/snippet"
	"github.com/toolpack-go/toolpack/result"
)

// ParseBody takes the parameter names as a list, skips the name check of
// Parse (any label), and ignores names no placeholder can spell.
func TestParseBody_ParamsFromAList(t *testing.T) {
	s, err := snippet.ParseBody("wéather@1", "r = geo(city={{ city }})\nwx(lat=r.lat, unit=\"{{ unit }}\")\n",
		[]string{"unit", "city", "not-an-ident", "city", "ünï"})
	require.NoError(t, err)
	assert.Equal(t, "wéather@1", s.Name())
	assert.Equal(t, 2, s.Calls())
	var names []string
	for _, p := range s.Params() {
		names = append(names, p.Name)
		assert.True(t, p.Required)
	}
	assert.Equal(t, []string{"city", "unit"}, names)
	assert.Equal(t, []snippet.Placeholder{{Param: "city", Line: 1, Column: 14}, {Param: "unit", Line: 2, Column: 21}}, s.Placeholders())
}

// An unknown placeholder, and every other body problem, is a *ParseError
// with line and column, as Parse reports it.
func TestParseBody_ErrorsNameLineAndColumn(t *testing.T) {
	_, err := snippet.ParseBody("t", "a(x={{ citty }})\nb(y=nope)\n", []string{"city"})
	require.Error(t, err)
	require.ErrorIs(t, err, snippet.ErrInvalid)
	var pes []*snippet.ParseError
	for _, e := range unwrapAll(err) {
		var pe *snippet.ParseError
		require.True(t, errors.As(e, &pe))
		pes = append(pes, pe)
	}
	require.Len(t, pes, 2)
	assert.Equal(t, 1, pes[0].Line)
	assert.Equal(t, 8, pes[0].Column)
	assert.Contains(t, pes[0].Msg, `unknown parameter "citty"`)
	assert.Contains(t, pes[0].Msg, "parameters: city")
	assert.Equal(t, 2, pes[1].Line)
	assert.Contains(t, pes[1].Msg, `"nope" is not assigned`)
	for _, pe := range pes {
		assert.Equal(t, snippet.KindSteps, pe.Kind)
		assert.True(t, strings.HasPrefix(pe.Error(), `steps "t": line `), pe.Error())
	}

	// Problems of the body as a whole name a steps tool too.
	for _, body := range []string{"", strings.Repeat("a()\n", snippet.MaxLines+1), "a(x=\"\xff\")"} {
		_, err = snippet.ParseBody("t", body, nil)
		require.ErrorIs(t, err, snippet.ErrInvalid)
		assert.True(t, strings.HasPrefix(err.Error(), `steps "t": `), err.Error())
	}
}

// RunChecked runs without the parameter check: values of any JSON type,
// extra values ignored; the data flows as in Run.
func TestRunChecked_UsesValuesAsGiven(t *testing.T) {
	rec := newRecorder(t, func(i int, tool string, raw json.RawMessage) (result.Result[any], error) {
		if tool == "a" {
			return result.Ok[any](map[string]any{"id": 7}), nil
		}
		return result.Ok[any]("done"), nil
	}, "a", "b")
	s, err := snippet.ParseBody("t", "r = a(n={{ n }}, s=\"n={{ n }}\")\nb(id=r.id, tags={{ tags }})\n", []string{"n", "tags", "unused"})
	require.NoError(t, err)
	res, err := s.RunChecked(context.Background(), rec.reg, map[string]any{
		"n": json.Number("2.50"), "tags": []any{"x"}, "extra": true,
	})
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "done", res.Value)
	calls := rec.recorded()
	require.Len(t, calls, 2)
	assert.Equal(t, `{"n":2.50,"s":"n=2.50"}`, calls[0].Args)
	assert.Equal(t, `{"id":7,"tags":["x"]}`, calls[1].Args)
}

// A placeholder without a value is a validation_error before any call,
// never a silent null.
func TestRunChecked_MissingValueFailsBeforeAnyCall(t *testing.T) {
	rec := newRecorder(t, nil, "a")
	s, err := snippet.ParseBody("t", "a(x={{ x }}, y={{ y }}, z=\"{{ x }}\")", []string{"x", "y"})
	require.NoError(t, err)
	res, err := s.RunChecked(context.Background(), rec.reg, map[string]any{"y": nil})
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, result.ValidationError, res.ErrorType)
	fes, ok := res.ErrorData.([]args.FieldError)
	require.True(t, ok, "%T", res.ErrorData)
	require.Len(t, fes, 1, "x once, though used twice; y is given (null)")
	assert.Equal(t, "x", fes[0].Field)
	assert.Empty(t, rec.recorded())

	_, err = s.RunChecked(context.Background(), nil, map[string]any{"x": 1, "y": 2})
	require.Error(t, err, "a nil Invoker is an error, not a panic")
}

// ToolLines gives the body line of each tool's first call, whatever spans
// lines before it (comments, blank lines, a call's arguments over several
// lines, strings holding newlines or tool-like words).
func TestToolLines_FirstCallOfEachTool(t *testing.T) {
	s, err := snippet.ParseBody("s", "# a comment\n\nr = add(a=1,\n  b=2)\necho(text=\"x(\\n y = z()\")\nadd(a=r, b=1)\nq = echo(text=\"again\")\n", nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"add": 3, "echo": 5}, s.ToolLines())
}
