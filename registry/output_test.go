package registry

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/args"
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
	assert.Contains(t, err.Error(), `"ch": (value): json`)
	var oe *OutputError
	require.ErrorAs(t, err, &oe)
	assert.Contains(t, oe.Err.Error(), "marshal", "the cause stays available to programs")
}

// The schema is compiled once: a Func-built tool's generated schema is never
// compiled (CheckOutput checks its values on the Go side); a hand-written
// one is compiled exactly once and reused when the same tool is added
// again; a tool whose CheckOutput is cleared has its OutputSchema compiled
// and enforced.
func TestOutput_SchemaCompiledOnce(t *testing.T) {
	type out struct {
		N int `json:"n"`
	}
	tool, err := Func("f", func(ctx context.Context, a struct{}) (result.Result[out], error) {
		return result.Ok(out{N: 1}), nil
	}, ToolOptions{})
	require.NoError(t, err)
	require.NotNil(t, tool.CheckOutput, "Func checks outputs on the Go value")
	r := New(noPrefix())
	require.NoError(t, r.Add(tool))
	assert.Nil(t, r.tools["f"].out, "registration does not compile a generated schema")

	raw := rawTool("stats", okHandler(map[string]any{"words": 1, "lang": "en"}))
	raw.OutputSchema = json.RawMessage(statsSchema)
	require.NoError(t, r.Add(raw))
	first := r.tools["stats"].out
	require.NotNil(t, first, "a hand-written schema is compiled at registration")
	require.NoError(t, r.Remove("stats"))
	require.NoError(t, r.Add(raw))
	// A different tool of the same name and schema text: compiled again
	// only when the text differs.
	assert.NotNil(t, r.tools["stats"].out)

	changed := *tool
	changed.Name = "g"
	changed.OutputSchema = json.RawMessage(`{"type":"object","required":["m"]}`)
	changed.CheckOutput = nil
	require.NoError(t, r.Add(&changed))
	assert.NotNil(t, r.tools["g"].out, "without CheckOutput the schema is compiled")
	_, err = r.Invoke(t.Context(), "g", nil)
	require.ErrorIs(t, err, ErrInvalidOutput)
}

// typedOut is a result type with the collections Go writes as null when nil.
type typedOut struct {
	Items  []string          `json:"items"`
	Counts map[string]int    `json:"counts"`
	Scores []int             `json:"scores" validate:"max=3,dive,gte=0,lte=100"`
	N      int               `json:"n" validate:"gte=0,lte=10"`
	Must   []string          `json:"must" validate:"required"`
	Nested struct{ X []int } `json:"nested"`
}

// A typed result with nil slices and maps (what Go code returns all the
// time) passes output validation, and its generated schema accepts the JSON
// encoding/json writes for it.
func TestOutput_TypedNilCollectionsAreValid(t *testing.T) {
	tool, err := Func("t", func(ctx context.Context, a struct{}) (result.Result[typedOut], error) {
		return result.Ok(typedOut{Must: []string{"x"}}), nil
	}, ToolOptions{})
	require.NoError(t, err)
	r := New(noPrefix())
	require.NoError(t, r.Add(tool))
	res, err := r.Invoke(t.Context(), "t", nil)
	require.NoError(t, err)
	assert.True(t, res.Success)

	s, err := compileOutputSchema("t", tool.OutputSchema)
	require.NoError(t, err)
	require.NoError(t, validateOutput(s, res.Value), "schema %s", tool.OutputSchema)
}

// A typed result that breaks its own validate tags is a protocol error
// wrapping ErrInvalidOutput, naming the tool and the field.
func TestOutput_TypedViolationIsProtocolError(t *testing.T) {
	tool, err := Func("t", func(ctx context.Context, a struct{}) (result.Result[typedOut], error) {
		return result.Ok(typedOut{N: 11, Must: []string{"x"}}), nil
	}, ToolOptions{})
	require.NoError(t, err)
	r := New(noPrefix())
	require.NoError(t, r.Add(tool))
	_, err = r.Invoke(t.Context(), "t", nil)
	require.ErrorIs(t, err, ErrInvalidOutput)
	assert.Contains(t, err.Error(), `"t"`)
	assert.Contains(t, err.Error(), "n:")
}

// For typed results, the check the pipeline runs (args.Validate) accepts
// exactly the values whose JSON the generated output schema accepts.
func TestOutput_TypedCheckAgreesWithSchema(t *testing.T) {
	tool, err := Func("t", func(ctx context.Context, a struct{}) (result.Result[typedOut], error) {
		return result.Ok(typedOut{}), nil
	}, ToolOptions{})
	require.NoError(t, err)
	s, err := compileOutputSchema("t", tool.OutputSchema)
	require.NoError(t, err)
	maybe := func(t *rapid.T, label string, g *rapid.Generator[[]int]) []int {
		if rapid.Bool().Draw(t, label+"Nil") {
			return nil
		}
		return g.Draw(t, label)
	}
	rapid.Check(t, func(rt *rapid.T) {
		v := typedOut{
			N:      rapid.IntRange(-3, 13).Draw(rt, "n"),
			Scores: maybe(rt, "scores", rapid.SliceOfN(rapid.IntRange(-5, 105), 0, 5)),
		}
		if rapid.Bool().Draw(rt, "items") {
			v.Items = rapid.SliceOfN(rapid.StringN(0, 3, -1), 0, 3).Draw(rt, "itemsV")
		}
		if rapid.Bool().Draw(rt, "counts") {
			v.Counts = map[string]int{"a": rapid.Int().Draw(rt, "c")}
		}
		if rapid.Bool().Draw(rt, "must") {
			v.Must = rapid.SliceOfN(rapid.StringN(0, 3, -1), 0, 2).Draw(rt, "mustV")
		}
		v.Nested.X = maybe(rt, "x", rapid.SliceOfN(rapid.Int(), 0, 2))
		byValidator := args.Validate(v) == nil
		bySchema := validateOutput(s, v) == nil
		if byValidator != bySchema {
			rt.Fatalf("validator=%v schema=%v for %+v (schema %s)", byValidator, bySchema, v, tool.OutputSchema)
		}
	})
}

// A value holding a number past the validator's bounds (an exponent
// beyond ±400, or more than 400 digits) is an invalid output naming where,
// never a panic and never seconds spent comparing it; a schema with such a
// bound is refused when the tool is added.
func TestOutput_NumbersPastTheBoundsRefused(t *testing.T) {
	r := New(noPrefix())
	huge := rawTool("huge", okHandler(json.RawMessage(`{"n":[1, 1e1000001]}`)))
	huge.OutputSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"array","items":{"exclusiveMinimum":0}}}}`)
	slow := rawTool("slow", okHandler(json.RawMessage(`{"n":[`+strings.Repeat(`1e999999,`, 99)+`1]}`)))
	slow.OutputSchema = huge.OutputSchema
	require.NoError(t, r.Add(huge, slow))
	for name, at := range map[string]string{"huge": "/n/1", "slow": "/n/0"} {
		_, err := r.Invoke(t.Context(), name, nil)
		require.ErrorIs(t, err, ErrInvalidOutput, name)
		var oe *OutputError
		require.ErrorAs(t, err, &oe)
		assert.Equal(t, []Violation{{Location: at, Rule: "number"}}, oe.Violations, name)
		assert.Contains(t, oe.Err.Error(), "at most 400 digits and an exponent between -400 and 400", name)
	}
	bound := rawTool("bound", okHandler(1))
	bound.OutputSchema = json.RawMessage(`{"minimum":1e1000001}`)
	err := r.Add(bound)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `at "/minimum": expected a number written with at most 400 digits`)
}
