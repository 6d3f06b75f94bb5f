package example

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

func newRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	p, err := New()
	require.NoError(t, err)
	r := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, r.AddPack(p))
	return r
}

func invoke(t *testing.T, r *registry.Registry, name, raw string) result.Result[any] {
	t.Helper()
	res, err := r.Invoke(t.Context(), name, json.RawMessage(raw))
	require.NoError(t, err, "no call of the example pack is a protocol failure")
	return res
}

func fields(t *testing.T, res result.Result[any]) []string {
	t.Helper()
	require.Equal(t, result.ValidationError, res.ErrorType, res.Error)
	fes, ok := res.ErrorData.([]args.FieldError)
	require.True(t, ok, "%T", res.ErrorData)
	var out []string
	for _, fe := range fes {
		out = append(out, fe.Field)
	}
	return out
}

// Seed 004 "Conditional example tool": with MCP_INCLUDE_EXAMPLE_TOOLS=true the
// example tools are included in registration.
func TestConditional_IncludedWhenTrue(t *testing.T) {
	t.Setenv(EnvIncludeExampleTools, "true")
	r := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	added, err := Register(r)
	require.NoError(t, err)
	assert.True(t, added)
	assert.Len(t, r.List(), 10)
	require.Len(t, r.Packs(), 1)
	assert.Equal(t, PackName, r.Packs()[0].Name)
}

// Seed 004 "Conditional example tool": with any other value, or none, the
// example tools are excluded.
func TestConditional_ExcludedOtherwise(t *testing.T) {
	for _, v := range []string{"", "false", "TRUE", "True", "1", "yes", " true"} {
		t.Setenv(EnvIncludeExampleTools, v)
		r := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
		added, err := Register(r)
		require.NoError(t, err)
		assert.False(t, added, "value %q", v)
		assert.Empty(t, r.List(), "value %q", v)
	}
	t.Setenv(EnvIncludeExampleTools, "")
	require.NoError(t, os.Unsetenv(EnvIncludeExampleTools))
	r := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	added, err := Register(r)
	require.NoError(t, err)
	assert.False(t, added, "unset")
	assert.Empty(t, r.List())
}

func TestEnabled_OnlyExactTrue(t *testing.T) {
	t.Setenv(EnvIncludeExampleTools, "true")
	assert.True(t, Enabled())
	for _, v := range []string{"", "false", "TRUE", "on", "true\n"} {
		t.Setenv(EnvIncludeExampleTools, v)
		assert.False(t, Enabled(), "%q", v)
	}
}

// Registering the pack twice into one registry is a clash, not a silent
// overwrite.
func TestRegister_Twice(t *testing.T) {
	t.Setenv(EnvIncludeExampleTools, "true")
	r := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	_, err := Register(r)
	require.NoError(t, err)
	_, err = Register(r)
	require.ErrorIs(t, err, registry.ErrNameClash)
}

func TestNew_PackContents(t *testing.T) {
	p, err := New()
	require.NoError(t, err)
	assert.Equal(t, PackName, p.Name)
	assert.NotEmpty(t, p.Description)
	byName := map[string]*registry.Tool{}
	for _, tool := range p.Tools {
		byName[tool.Name] = tool
		assert.NotEmpty(t, tool.Title, tool.Name)
		assert.Contains(t, tool.Description, "## Arguments", tool.Name)
		assert.NotEmpty(t, tool.Usage.Example, tool.Name)
		assert.NotContains(t, tool.Description, "demo_", "docs use undecorated names")
	}
	require.Len(t, byName, 10)
	for _, n := range []string{"echo", "add", "text_stats", "get_document", "list_documents", "is_prime", "lines", "count"} {
		require.NotNil(t, byName[n].Annotations.ReadOnly, n)
		assert.True(t, *byName[n].Annotations.ReadOnly, n)
	}
	for _, n := range []string{"create_document", "delete_document"} {
		assert.True(t, *byName[n].Annotations.Destructive, n)
		assert.False(t, *byName[n].Annotations.ReadOnly, n)
		assert.Contains(t, byName[n].Description, "REQUIRES EXPLICIT USER INSTRUCTION", n)
	}
	assert.NotEmpty(t, byName["text_stats"].OutputSchema)
	assert.NotEmpty(t, byName["get_document"].OutputSchema)
	assert.JSONEq(t, `{"type":"string"}`, string(byName["echo"].OutputSchema))
}

func TestNew_IndependentStores(t *testing.T) {
	a, b := newRegistry(t), newRegistry(t)
	res := invoke(t, a, "create_document", `{"title":"T","confirm":"CREATE_DOCUMENT"}`)
	require.True(t, res.Success, res.Error)
	res = invoke(t, b, "get_document", `{"id":"doc-1"}`)
	assert.Equal(t, result.NotFound, res.ErrorType)
}

func TestEcho(t *testing.T) {
	r := newRegistry(t)
	assert.Equal(t, "Hi there", invoke(t, r, "echo", `{"text":"Hi there"}`).Value)
	assert.Equal(t, "HI THERE", invoke(t, r, "echo", `{"text":"Hi there","uppercase":true}`).Value)
	assert.Equal(t, []string{"text"}, fields(t, invoke(t, r, "echo", `{}`)))
}

func TestAdd_Bounds(t *testing.T) {
	r := newRegistry(t)
	assert.Equal(t, 0, invoke(t, r, "add", `{"a":0,"b":0}`).Value)
	assert.Equal(t, -1, invoke(t, r, "add", `{"a":-1000000,"b":999999}`).Value)
	assert.ElementsMatch(t, []string{"a", "b"}, fields(t, invoke(t, r, "add", `{"a":1000001,"b":-1000001}`)))
	assert.ElementsMatch(t, []string{"a", "b"}, fields(t, invoke(t, r, "add", `{}`)))
	assert.ElementsMatch(t, []string{"a"}, fields(t, invoke(t, r, "add", `{"a":"1","b":1}`)))
}

func TestTextStats_StructuredOutput(t *testing.T) {
	r := newRegistry(t)
	res := invoke(t, r, "text_stats", `{"text":"héllo wörld\nsecond line\n"}`)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, TextStats{Characters: 24, Words: 4, Lines: 2}, res.Value)
	tool, ok := r.Lookup("text_stats")
	require.True(t, ok)
	var schema map[string]any
	require.NoError(t, json.Unmarshal(tool.OutputSchema, &schema))
	assert.Equal(t, "object", schema["type"])
	assert.Contains(t, schema["properties"], "words")
}

// Seed 004 "Literal type enforcement": create_document needs the exact
// phrase CREATE_DOCUMENT; anything else is a validation failure naming the
// confirm field, and nothing is created.
func TestCreateDocument_RequiresExactConsent(t *testing.T) {
	r := newRegistry(t)
	for _, bad := range []string{`{"title":"T"}`, `{"title":"T","confirm":"create_document"}`, `{"title":"T","confirm":"yes"}`} {
		assert.Contains(t, fields(t, invoke(t, r, "create_document", bad)), "confirm", bad)
	}
	assert.Equal(t, result.NotFound, invoke(t, r, "get_document", `{"id":"doc-1"}`).ErrorType, "nothing created")
	res := invoke(t, r, "create_document", `{"title":"Notes","body":"b","confirm":"CREATE_DOCUMENT"}`)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, Document{ID: "doc-1", Title: "Notes", Body: "b"}, res.Value)
	assert.Equal(t, "Created doc-1.", res.Message)
	got := invoke(t, r, "get_document", `{"id":"doc-1"}`)
	assert.Equal(t, res.Value, got.Value)
}

// Seed 004 "Tool description warning".
func TestCreateDocument_DescriptionWarning(t *testing.T) {
	r := newRegistry(t)
	tool, ok := r.Lookup("create_document")
	require.True(t, ok)
	assert.Contains(t, tool.Description, "REQUIRES EXPLICIT USER INSTRUCTION")
	assert.Contains(t, tool.Description, "CREATE_DOCUMENT")
	other, _ := r.Lookup("get_document")
	assert.NotContains(t, other.Description, "REQUIRES EXPLICIT USER INSTRUCTION")
}

func TestGetDocument_NotFound(t *testing.T) {
	r := newRegistry(t)
	res := invoke(t, r, "get_document", `{"id":"doc-42"}`)
	assert.False(t, res.Success)
	assert.Equal(t, result.NotFound, res.ErrorType)
	assert.Contains(t, res.Error, "doc-42")
}

func TestCreateDocument_DuplicateTitleConflict(t *testing.T) {
	r := newRegistry(t)
	require.True(t, invoke(t, r, "create_document", `{"title":"T","confirm":"CREATE_DOCUMENT"}`).Success)
	res := invoke(t, r, "create_document", `{"title":"T","confirm":"CREATE_DOCUMENT"}`)
	assert.Equal(t, result.Conflict, res.ErrorType)
	assert.Contains(t, res.Instruction, "get_document")
}

func TestCreateDocument_Concurrent(t *testing.T) {
	r := newRegistry(t)
	var wg sync.WaitGroup
	for i := 0; i < MaxDocuments+20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := r.Invoke(context.Background(), "create_document",
				json.RawMessage(fmt.Sprintf(`{"title":"t%d","confirm":"CREATE_DOCUMENT"}`, i)))
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	created := 0
	for i := 1; i <= MaxDocuments+20; i++ {
		if invoke(t, r, "get_document", fmt.Sprintf(`{"id":"doc-%d"}`, i)).Success {
			created++
		}
	}
	assert.Equal(t, MaxDocuments, created, "the store is capped")
}
