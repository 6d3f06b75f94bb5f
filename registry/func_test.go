package registry

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/result"
)

type wordStats struct {
	Words int    `json:"words"`
	First string `json:"first"`
}

type statsArgs struct {
	Text string `json:"text" validate:"required,max=100" description:"Text to count."`
}

func countWords(ctx context.Context, a statsArgs) (result.Result[wordStats], error) {
	n, first, in := 0, "", false
	start := 0
	for i, r := range a.Text + " " {
		if r == ' ' {
			if in && first == "" {
				first = a.Text[start:i]
			}
			in = false
			continue
		}
		if !in {
			n++
			start = i
		}
		in = true
	}
	return result.Ok(wordStats{Words: n, First: first}), nil
}

// Func derives schemas and description from the types and the doc text.
func TestFunc_BuildsToolFromTypes(t *testing.T) {
	tool, err := Func("count_words", countWords, ToolOptions{
		Title: "Count words", Doc: "Counts the words of a text.", Example: `count_words(text="a b")`,
		Annotations: Annotations{ReadOnly: new(true)}, Timeout: time.Second,
	})
	require.NoError(t, err)
	in, err := args.SchemaFor[statsArgs]()
	require.NoError(t, err)
	assert.JSONEq(t, string(in), string(tool.InputSchema))
	desc, err := args.Describe[statsArgs]("Counts the words of a text.")
	require.NoError(t, err)
	assert.Equal(t, desc, tool.Description)
	out, err := args.OutputSchemaOf(reflect.TypeFor[wordStats]())
	require.NoError(t, err)
	assert.JSONEq(t, string(out), string(tool.OutputSchema))
	assert.Equal(t, "Count words", tool.Title)
	assert.Equal(t, SourceLocal, tool.Source)
	assert.Equal(t, time.Second, tool.Timeout)
	assert.Contains(t, tool.Usage.Signature, "count_words(")
	assert.Contains(t, tool.Usage.Signature, "statsArgs")
	assert.Contains(t, tool.Usage.Returns, "wordStats")
	assert.Contains(t, tool.Usage.Args, "## Arguments")
	assert.Equal(t, `count_words(text="a b")`, tool.Usage.Example)
	require.NotNil(t, tool.Annotations.ReadOnly)

	str, err := Func("echo", func(ctx context.Context, a statsArgs) (result.Result[string], error) {
		return result.Ok(a.Text), nil
	}, ToolOptions{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"string"}`, string(str.OutputSchema), "every result type has its schema")

	list, err := Func("list", func(ctx context.Context, a statsArgs) (result.Result[[]int], error) {
		return result.Ok([]int{1}), nil
	}, ToolOptions{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":["array","null"],"items":{"type":"integer"}}`, string(list.OutputSchema))

	ptr, err := Func("ptr", func(ctx context.Context, a statsArgs) (result.Result[*wordStats], error) {
		return result.Ok(&wordStats{}), nil
	}, ToolOptions{})
	require.NoError(t, err)
	assert.JSONEq(t, string(tool.OutputSchema), string(ptr.OutputSchema), "Result[*T] has the schema of Result[T]")

	for _, tool := range []func() (*Tool, error){
		func() (*Tool, error) {
			return Func("anything", func(context.Context, statsArgs) (result.Result[any], error) { return result.Ok[any](1), nil }, ToolOptions{})
		},
		func() (*Tool, error) {
			return Func("raw", func(context.Context, statsArgs) (result.Result[json.RawMessage], error) {
				return result.Ok(json.RawMessage(`1`)), nil
			}, ToolOptions{})
		},
	} {
		got, err := tool()
		require.NoError(t, err)
		assert.Nil(t, got.OutputSchema, "%s: values of any shape have no schema", got.Name)
		assert.Nil(t, got.CheckOutput)
	}
}

// A Func tool runs through Invoke with its arguments decoded into A.
func TestFunc_InvokeDecodesIntoA(t *testing.T) {
	tool, err := Func("echo", func(ctx context.Context, a statsArgs) (result.Result[string], error) {
		return result.Ok("<" + a.Text + ">").WithMessage("echoed"), nil
	}, ToolOptions{})
	require.NoError(t, err)
	r := New(noPrefix())
	require.NoError(t, r.Add(tool))
	res, err := r.Invoke(t.Context(), "echo", json.RawMessage(`{"text":"hi"}`))
	require.NoError(t, err)
	assert.Equal(t, "<hi>", res.Value)
	assert.Equal(t, "echoed", res.Message)
	typed, err := result.As[string](res)
	require.NoError(t, err)
	assert.Equal(t, "<hi>", typed.Value)
}

// A function's protocol error passes through unchanged.
func TestFunc_ProtocolErrorPassesThrough(t *testing.T) {
	boom := context.DeadlineExceeded
	tool, err := Func("e", func(ctx context.Context, a struct{}) (result.Result[int], error) {
		return result.Ok(1), boom
	}, ToolOptions{})
	require.NoError(t, err)
	res, err := tool.Handler(t.Context(), &Call{Tool: tool, Args: struct{}{}})
	require.ErrorIs(t, err, boom)
	assert.False(t, res.Success)
}

// A middleware that replaces Call.Args with the wrong type gets a clear
// protocol error, not a panic.
func TestFunc_WrongArgsTypeIsError(t *testing.T) {
	tool, err := Func("e", func(ctx context.Context, a statsArgs) (result.Result[int], error) {
		return result.Ok(1), nil
	}, ToolOptions{})
	require.NoError(t, err)
	_, err = tool.Handler(t.Context(), &Call{Tool: tool, Args: 42})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "arguments are int")
}

// Bad constructor input is an error naming the tool.
func TestFunc_BadInputIsError(t *testing.T) {
	_, err := Func("bad name", countWords, ToolOptions{})
	assert.ErrorIs(t, err, ErrInvalidName)
	_, err = Func[statsArgs, wordStats]("nil_fn", nil, ToolOptions{})
	assert.ErrorIs(t, err, ErrInvalidTool)
	assert.Contains(t, err.Error(), `"nil_fn"`)
	_, err = Func("neg", countWords, ToolOptions{Timeout: -time.Second})
	assert.ErrorIs(t, err, ErrInvalidTool)
	assert.Contains(t, err.Error(), "Timeout")
	_, err = Func("not_struct", func(ctx context.Context, a int) (result.Result[int], error) {
		return result.Ok(a), nil
	}, ToolOptions{})
	assert.Error(t, err, "arguments must be a struct")
	assert.Contains(t, err.Error(), `"not_struct"`)
}

// Through Func and args.Decode, every violation of a call is listed at once
// with its JSON field name.
func TestFunc_ValidationListsEveryField(t *testing.T) {
	tool, err := Func("search", benchTool, ToolOptions{})
	require.NoError(t, err)
	r := New(noPrefix())
	require.NoError(t, r.Add(tool))
	res, err := r.Invoke(t.Context(), "search",
		json.RawMessage(`{"query":"","limit":500,"mode":"slow","boost":11,"tags":[""],"extra":true}`))
	require.NoError(t, err)
	require.Equal(t, result.ValidationError, res.ErrorType)
	fes, ok := res.ErrorData.([]args.FieldError)
	require.True(t, ok, "%T", res.ErrorData)
	var fields []string
	for _, fe := range fes {
		fields = append(fields, fe.Field)
	}
	for _, f := range []string{"query", "limit", "mode", "boost", "tags[0]", "extra"} {
		assert.Contains(t, fields, f)
	}
}
