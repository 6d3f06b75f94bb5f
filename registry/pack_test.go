package registry

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/result"
)

type helloArgs struct {
	Name string `json:"name" validate:"required,max=20" description:"Who to greet."`
}

func helloFn(_ context.Context, a helloArgs) (result.Result[string], error) {
	return result.Ok("Hello, " + a.Name + "!"), nil
}

// AddFunc defines and registers a typed tool in one call, on a registry or
// on a pack, and reports Func's errors unchanged.
func TestAddFunc_RegistryAndPack(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, AddFunc(r, "greet", helloFn, ToolOptions{Doc: "Greets."}))
	res, err := r.Invoke(t.Context(), "greet", []byte(`{"name":"Ada"}`))
	require.NoError(t, err)
	assert.Equal(t, "Hello, Ada!", res.Value)

	p := &Pack{Name: "hello", Description: "Greetings."}
	err = errors.Join(
		AddFunc(p, "greet", helloFn, ToolOptions{Doc: "Greets."}),
		AddFunc(p, "greet_again", helloFn, ToolOptions{Doc: "Greets again."}),
	)
	require.NoError(t, err)
	require.Len(t, p.Tools, 2)
	r2 := New(noPrefix())
	require.NoError(t, r2.AddPack(p))
	got, ok := r2.Lookup("greet_again")
	require.True(t, ok)
	assert.Equal(t, "hello", got.Pack)

	err = AddFunc(p, "bad name", helloFn, ToolOptions{})
	require.ErrorIs(t, err, ErrInvalidName)
	err = AddFunc[helloArgs, string](p, "nil_fn", nil, ToolOptions{})
	require.ErrorIs(t, err, ErrInvalidTool)
	err = AddFunc(nil, "x", helloFn, ToolOptions{})
	require.ErrorIs(t, err, ErrInvalidTool)
	assert.Len(t, p.Tools, 2, "failed AddFuncs add nothing")
}

// Pack.Add refuses nil tools, unnamed tools and names already in the pack,
// reporting every problem and appending nothing.
func TestPack_AddRefusesDuplicatesAllOrNothing(t *testing.T) {
	p := &Pack{Name: "p"}
	require.NoError(t, p.Add(rawTool("a", okHandler(1))))
	err := p.Add(rawTool("b", okHandler(1)), nil, rawTool("a", okHandler(1)), &Tool{Handler: okHandler(1)})
	require.ErrorIs(t, err, ErrNameClash)
	require.ErrorIs(t, err, ErrInvalidTool)
	require.ErrorIs(t, err, ErrInvalidName)
	assert.Contains(t, err.Error(), `"a" added twice`)
	assert.Len(t, p.Tools, 1)
}

// Declared error types travel with the tool; a bad declaration is refused
// at registration, naming the field.
func TestAdd_ErrorSpecs(t *testing.T) {
	tool, err := Func("greet", helloFn, ToolOptions{Errors: []ErrorSpec{{Type: "quota_exceeded", Status: 429, Description: "daily quota used"}}})
	require.NoError(t, err)
	r := New(noPrefix())
	require.NoError(t, r.Add(tool))
	got, _ := r.Lookup("greet")
	assert.Equal(t, []ErrorSpec{{Type: "quota_exceeded", Status: 429, Description: "daily quota used"}}, got.Errors)
	tool.Errors[0].Status = 200
	tool.Name = "greet2"
	err = r.Add(tool)
	require.ErrorIs(t, err, ErrInvalidTool)
	assert.Contains(t, err.Error(), "Errors[0]")
	got, _ = r.Lookup("greet")
	assert.Equal(t, 429, got.Errors[0].Status, "the registered copy does not share the caller's slice")
}

// RemovePack touches only the pack's own tools; Packs lists each pack's
// tools from the same index.
func TestRemovePack_LeavesOtherToolsAndPacks(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.AddPack(&Pack{Name: "p", Tools: []*Tool{rawTool("a", okHandler(1)), rawTool("b", okHandler(1))}}))
	require.NoError(t, r.AddPack(&Pack{Name: "q", Tools: []*Tool{rawTool("c", okHandler(1))}}))
	require.NoError(t, r.Add(rawTool("loose", okHandler(1))))
	require.NoError(t, r.Remove("a"))
	ps := r.Packs()
	require.Len(t, ps, 2)
	assert.Len(t, ps[0].Tools, 1)
	require.NoError(t, r.RemovePack("p"))
	var names []string
	for _, tool := range r.List() {
		names = append(names, tool.Name)
	}
	assert.Equal(t, []string{"c", "loose"}, names)
	require.ErrorIs(t, r.RemovePack("p"), ErrUnknownPack)
}

// TraceArgs names arguments of the tool's input schema, each once;
// anything else is refused when the tool is added, and the registered
// copy does not share the caller's slice.
func TestAdd_TraceArgsNameInputProperties(t *testing.T) {
	tool, err := Func("greet", helloFn, ToolOptions{TraceArgs: []string{"name"}})
	require.NoError(t, err)
	r := New(noPrefix())
	require.NoError(t, r.Add(tool))
	got, ok := r.Lookup("greet")
	require.True(t, ok)
	assert.Equal(t, []string{"name"}, got.TraceArgs)
	tool.TraceArgs[0] = "changed"
	got, _ = r.Lookup("greet")
	assert.Equal(t, []string{"name"}, got.TraceArgs)

	for _, bad := range [][]string{{"nope"}, {"name", "name"}, {""}} {
		tool, err := Func("greet2", helloFn, ToolOptions{TraceArgs: bad})
		require.NoError(t, err)
		err = New(noPrefix()).Add(tool)
		require.ErrorIs(t, err, ErrInvalidTool, "%q", bad)
		assert.Contains(t, err.Error(), "TraceArgs", "%q", bad)
	}
}
