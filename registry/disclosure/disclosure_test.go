package disclosure_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/llm"
	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/disclosure"
	"github.com/toolpack-go/toolpack/result"
)

var quiet = slog.New(slog.DiscardHandler)

type cityArgs struct {
	City string `json:"city" validate:"required,max=100" description:"City name."`
	Days int    `json:"days,omitempty" validate:"omitempty,gte=1,lte=7" description:"Days ahead."`
}

type pathArgs struct {
	Path string `json:"path" validate:"required,max=200" description:"File path."`
}

func tool[A any](t testing.TB, name, doc string, ann registry.Annotations, fn func(A) string) *registry.Tool {
	t.Helper()
	tl, err := registry.Func(name, func(_ context.Context, a A) (result.Result[string], error) { return result.Ok(fn(a)), nil },
		registry.ToolOptions{Doc: doc, Annotations: ann})
	require.NoError(t, err)
	return tl
}

// fullRegistry holds a few tools; calls counts the calls its middleware
// saw.
func fullRegistry(t testing.TB, calls *atomic.Int32) *registry.Registry {
	t.Helper()
	reg := registry.New(registry.Options{Logger: quiet})
	reg.Use(func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
			calls.Add(1)
			return next(ctx, c)
		}
	})
	ro := registry.Annotations{ReadOnly: new(true), Idempotent: new(true), OpenWorld: new(false)}
	require.NoError(t, reg.Add(
		tool(t, "weather.forecast", "Forecasts the weather for a city.", ro, func(a cityArgs) string { return "sunny in " + a.City }),
		tool(t, "weather.alerts", "Lists weather alerts for a city.", ro, func(a cityArgs) string { return "no alerts in " + a.City }),
		tool(t, "file.read", "Reads a file.", ro, func(a pathArgs) string { return "contents of " + a.Path }),
		tool(t, "calendar.list_events", "Lists the events of a calendar day.", ro, func(struct{}) string { return "[]" }),
	))
	return reg
}

// open serves full with progressive disclosure until the test ends.
func open(t testing.TB, full *registry.Registry) *disclosure.Disclosure {
	t.Helper()
	d, err := disclosure.New(full, disclosure.Options{Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	return d
}

func invoke[T any](t *testing.T, reg *registry.Registry, name string, args any) result.Result[T] {
	t.Helper()
	raw, err := json.Marshal(args)
	require.NoError(t, err)
	r, err := reg.Invoke(context.Background(), name, raw)
	require.NoError(t, err)
	if !r.Success {
		return result.Result[T]{Success: false, Error: r.Error, ErrorType: r.ErrorType, Instruction: r.Instruction, ErrorData: r.ErrorData}
	}
	b, err := json.Marshal(r.Value)
	require.NoError(t, err)
	var v T
	require.NoError(t, json.Unmarshal(b, &v))
	return result.Ok(v).WithInstruction(r.Instruction)
}

func names(fs []disclosure.Found) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

// Only the meta-tools are listed; search_tools ranks by name, description
// and argument names, forgives typos, and honours the limit.
func TestSearchTools_RankedOverNamesDescriptionsAndArguments(t *testing.T) {
	var calls atomic.Int32
	d, err := disclosure.New(fullRegistry(t, &calls), disclosure.Options{Logger: quiet})
	require.NoError(t, err)
	defer d.Close()
	front := d.Registry()
	var listed []string
	for _, tl := range front.List() {
		listed = append(listed, tl.Name)
	}
	assert.ElementsMatch(t, []string{"search_tools", "describe_tool", "call_tool"}, listed)

	r := invoke[disclosure.SearchResult](t, front, "search_tools", map[string]any{"query": "weather"})
	require.True(t, r.Success)
	assert.Equal(t, 2, r.Value.Total)
	assert.ElementsMatch(t, []string{"weather.forecast", "weather.alerts"}, names(r.Value.Tools))

	r = invoke[disclosure.SearchResult](t, front, "search_tools", map[string]any{"query": "forcast"})
	require.NotEmpty(t, r.Value.Tools)
	assert.Equal(t, "weather.forecast", r.Value.Tools[0].Name, "a typo still finds it")
	assert.Equal(t, "Forecasts the weather for a city.", r.Value.Tools[0].Description)

	r = invoke[disclosure.SearchResult](t, front, "search_tools", map[string]any{"query": "path"})
	assert.Equal(t, []string{"file.read"}, names(r.Value.Tools), "argument names are searched")

	r = invoke[disclosure.SearchResult](t, front, "search_tools", map[string]any{"query": "city", "limit": 1})
	assert.Len(t, r.Value.Tools, 1)
	assert.Equal(t, 2, r.Value.Total)

	r = invoke[disclosure.SearchResult](t, front, "search_tools", map[string]any{"query": "zzzz"})
	assert.Empty(t, r.Value.Tools)
	assert.NotEmpty(t, r.Instruction)

	bad := invoke[disclosure.SearchResult](t, front, "search_tools", map[string]any{"query": "", "limit": 99})
	assert.False(t, bad.Success)
	assert.Equal(t, result.ValidationError, bad.ErrorType)
	assert.Zero(t, calls.Load(), "searching runs no tool")
}

// An alias (registry.SetAliases, the host configuration's aliases:) finds
// the tool it calls, through a chain too, and the search follows the
// aliases as they change, though no tool changed; the one-line description
// stays the tool's own.
func TestSearchTools_FindsToolsByTheirAliases(t *testing.T) {
	var calls atomic.Int32
	full := fullRegistry(t, &calls)
	front := open(t, full).Registry()
	search := func(q string) disclosure.SearchResult {
		t.Helper()
		r := invoke[disclosure.SearchResult](t, front, "search_tools", map[string]any{"query": q})
		require.True(t, r.Success, r.Error)
		return r.Value
	}
	assert.Zero(t, search("outlook").Total, "no tool is called outlook yet")

	require.NoError(t, full.SetAliases(map[string]string{"outlook": "weather.forecast", "rain": "outlook"}))
	r := search("outlook")
	require.Equal(t, 1, r.Total)
	assert.Equal(t, "weather.forecast", r.Tools[0].Name)
	assert.Equal(t, "Forecasts the weather for a city.", r.Tools[0].Description)
	r = search("rain")
	assert.Equal(t, []string{"weather.forecast"}, names(r.Tools), "an alias of an alias finds the tool at the end")
	r = search("outlok")
	assert.Equal(t, []string{"weather.forecast"}, names(r.Tools), "a typo in an alias is forgiven as in a name")

	require.NoError(t, full.SetAliases(map[string]string{"cat": "file.read"}))
	assert.Zero(t, search("outlook").Total, "a removed alias finds nothing")
	assert.Equal(t, []string{"file.read"}, names(search("cat").Tools))
	c := invoke[string](t, front, "call_tool", map[string]any{"name": "cat", "arguments": map[string]any{"path": "/x"}})
	require.True(t, c.Success, c.Error)
	assert.Equal(t, "contents of /x", c.Value, "and call_tool runs it by its alias")
}

// describe_tool gives the tool's own schemas; an unknown name fails with
// suggestions.
func TestDescribeTool_FullSchemaOnDemand(t *testing.T) {
	var calls atomic.Int32
	full := fullRegistry(t, &calls)
	d := open(t, full)
	r := invoke[map[string]any](t, d.Registry(), "describe_tool", map[string]any{"name": "weather.forecast"})
	require.True(t, r.Success)
	own, _ := full.Lookup("weather.forecast")
	got, err := json.Marshal(r.Value["inputSchema"])
	require.NoError(t, err)
	assert.JSONEq(t, string(own.InputSchema), string(got))
	assert.Equal(t, own.Description, r.Value["description"])
	assert.Equal(t, true, r.Value["annotations"].(map[string]any)["readOnlyHint"])

	miss := invoke[map[string]any](t, d.Registry(), "describe_tool", map[string]any{"name": "weather.forcast"})
	assert.False(t, miss.Success)
	assert.Equal(t, result.NotFound, miss.ErrorType)
	assert.Contains(t, miss.Error, "did you mean weather.forecast")
}

// call_tool runs the tool through the full registry's pipeline: its
// middleware sees the call and its validation answers bad arguments.
func TestCallTool_SamePipeline(t *testing.T) {
	var calls atomic.Int32
	full := fullRegistry(t, &calls)
	d := open(t, full)
	r := invoke[string](t, d.Registry(), "call_tool", map[string]any{"name": "weather.forecast", "arguments": map[string]any{"city": "Oslo"}})
	require.True(t, r.Success, r.Error)
	assert.Equal(t, "sunny in Oslo", r.Value)
	assert.Equal(t, int32(1), calls.Load())

	direct, err := full.Invoke(context.Background(), "weather.forecast", json.RawMessage(`{"city":"","days":9}`))
	require.NoError(t, err)
	via := invoke[string](t, d.Registry(), "call_tool", map[string]any{"name": "weather.forecast", "arguments": map[string]any{"city": "", "days": 9}})
	assert.False(t, via.Success)
	assert.Equal(t, direct.ErrorType, via.ErrorType)
	assert.Equal(t, direct.ErrorData, via.ErrorData, "the same field problems")

	noArgs := invoke[string](t, d.Registry(), "call_tool", map[string]any{"name": "calendar.list_events"})
	assert.True(t, noArgs.Success)

	notObj := invoke[string](t, d.Registry(), "call_tool", map[string]any{"name": "file.read", "arguments": "path=/etc"})
	assert.False(t, notObj.Success)
	assert.Equal(t, result.ValidationError, notObj.ErrorType)

	unknown := invoke[string](t, d.Registry(), "call_tool", map[string]any{"name": "file.write"})
	assert.Equal(t, result.NotFound, unknown.ErrorType)

	require.NoError(t, full.SetEnabled("file.read", false))
	before := calls.Load()
	off := invoke[string](t, d.Registry(), "call_tool", map[string]any{"name": "file.read", "arguments": map[string]any{"path": "a"}})
	assert.Equal(t, result.Unavailable, off.ErrorType, "a disabled tool is refused as disabled, as the registry refuses it")
	assert.Contains(t, off.Error, `tool "file.read" is disabled`)
	assert.Equal(t, before, calls.Load(), "a disabled tool cannot be reached")
}

// call_tool and describe_tool refuse a name as the full registry refuses a
// call of it: a disabled tool (or an alias of one) as disabled, an alias
// whose target is not served as such, both of type unavailable with the
// registry's own text and instruction; only a name that is neither a tool
// nor an alias is not_found, with suggestions. A disabled tool stays out
// of search_tools, and an enabled one is reached by its alias.
func TestMetaTools_RefuseANameAsTheRegistryDoes(t *testing.T) {
	var calls atomic.Int32
	full := fullRegistry(t, &calls)
	require.NoError(t, full.SetAliases(map[string]string{"cat": "file.read", "ghost": "gone.tool"}))
	require.NoError(t, full.SetEnabled("file.read", false))
	front := open(t, full).Registry()

	for _, name := range []string{"file.read", "cat", "ghost"} {
		direct, err := full.Invoke(context.Background(), name, json.RawMessage(`{"path":"a"}`))
		require.NoError(t, err, name)
		require.Equal(t, result.Unavailable, direct.ErrorType, name)
		for _, meta := range []string{"call_tool", "describe_tool"} {
			args := map[string]any{"name": name}
			if meta == "call_tool" {
				args["arguments"] = map[string]any{"path": "a"}
			}
			got := invoke[any](t, front, meta, args)
			assert.False(t, got.Success, "%s %s", meta, name)
			assert.Equal(t, direct.ErrorType, got.ErrorType, "%s %s", meta, name)
			assert.Equal(t, direct.Error, got.Error, "%s %s", meta, name)
			assert.Equal(t, direct.Instruction, got.Instruction, "%s %s", meta, name)
		}
	}
	assert.Zero(t, calls.Load(), "nothing ran")
	off := invoke[any](t, front, "describe_tool", map[string]any{"name": "cat"})
	assert.Equal(t, `tool "file.read" is disabled`, off.Error, "an alias resolves as the registry resolves it")
	ghost := invoke[any](t, front, "call_tool", map[string]any{"name": "ghost"})
	assert.Contains(t, ghost.Error, `"ghost" is an alias of "gone.tool", which is not served now`)

	for _, meta := range []string{"call_tool", "describe_tool"} {
		unknown := invoke[any](t, front, meta, map[string]any{"name": "file.write"})
		assert.Equal(t, result.NotFound, unknown.ErrorType, meta)
		assert.Contains(t, unknown.Error, `there is no tool named "file.write"`, meta)
		assert.Equal(t, "Use search_tools to find a tool's exact name.", unknown.Instruction, meta)
	}

	found := invoke[disclosure.SearchResult](t, front, "search_tools", map[string]any{"query": "file"})
	assert.NotContains(t, names(found.Value.Tools), "file.read", "a disabled tool is not found")

	require.NoError(t, full.SetEnabled("file.read", true))
	desc := invoke[map[string]any](t, front, "describe_tool", map[string]any{"name": "cat"})
	require.True(t, desc.Success, desc.Error)
	assert.Equal(t, "file.read", desc.Value["name"], "an alias describes the tool it runs")
	c := invoke[string](t, front, "call_tool", map[string]any{"name": "cat", "arguments": map[string]any{"path": "/x"}})
	require.True(t, c.Success, c.Error)
	assert.Equal(t, "contents of /x", c.Value)
}

// The call call_tool passes on is the agent's own, not one nested in
// call_tool's: the full registry's middleware sees no parent (so a
// large-output store treats it as a direct call), while what the caller's
// context carries — here progress reporting — still reaches the tool.
func TestCallTool_ForwardedCallIsTheCallersOwn(t *testing.T) {
	full := registry.New(registry.Options{Logger: quiet})
	var nested atomic.Int32
	full.Use(func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
			if _, ok := c.Parent(); ok {
				nested.Add(1)
			}
			return next(ctx, c)
		}
	})
	tl, err := registry.Func("slow.count", func(ctx context.Context, a cityArgs) (result.Result[string], error) {
		_ = registry.ReportProgress(ctx, registry.Progress{Progress: 1, Total: 2})
		return result.Ok("counted " + a.City), nil
	}, registry.ToolOptions{Doc: "Counts slowly."})
	require.NoError(t, err)
	require.NoError(t, full.Add(tl))
	d := open(t, full)

	var progress atomic.Int32
	ctx := registry.WithProgress(context.Background(), func(context.Context, registry.Progress) error {
		progress.Add(1)
		return nil
	})
	r, err := d.Registry().Invoke(ctx, "call_tool", json.RawMessage(`{"name":"slow.count","arguments":{"city":"Oslo"}}`))
	require.NoError(t, err)
	require.True(t, r.Success, r.Error)
	assert.Equal(t, "counted Oslo", r.Value)
	assert.Zero(t, nested.Load(), "the forwarded call has no parent")
	assert.Equal(t, int32(1), progress.Load(), "the caller's progress reporting reaches the tool")
}

// A search made after a change of the full registry finds what it changed,
// however the index's background rebuilds interleave with the changes and
// with other searches: an added tool is found, a disabled one is not.
func TestSearchTools_SeesEveryChangeAtOnce(t *testing.T) {
	var calls atomic.Int32
	full := fullRegistry(t, &calls)
	d := open(t, full)
	front := d.Registry()
	search := func(q string) disclosure.SearchResult {
		raw, _ := json.Marshal(map[string]any{"query": q, "limit": 50})
		r, err := front.Invoke(context.Background(), "search_tools", raw)
		require.NoError(t, err)
		require.True(t, r.Success, r.Error)
		return r.Value.(disclosure.SearchResult)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 { // other agents searching meanwhile
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					search("weather")
				}
			}
		})
	}
	ro := registry.Annotations{ReadOnly: new(true)}
	for i := range 30 {
		name := fmt.Sprintf("gauge.reading_%d", i)
		require.NoError(t, full.Add(tool(t, name, "Reads gauge number "+strconv.Itoa(i)+".", ro, func(a cityArgs) string { return a.City })))
		found := search(name)
		require.NotEmpty(t, found.Tools, "added %s", name)
		require.Equal(t, name, found.Tools[0].Name)
		if i%3 == 0 {
			require.NoError(t, full.SetEnabled(name, false))
			for _, f := range search(name).Tools {
				require.NotEqual(t, name, f.Name, "disabled %s", name)
			}
		}
	}
	close(stop)
	wg.Wait()
}

// call_tool's annotations are the least permissive of the reachable
// tools, and follow changes of the full registry.
func TestCallTool_AnnotationsLeastPermissive(t *testing.T) {
	var calls atomic.Int32
	full := fullRegistry(t, &calls)
	d := open(t, full)
	ct, ok := d.Registry().Lookup("call_tool")
	require.True(t, ok)
	assert.True(t, *ct.Annotations.ReadOnly)
	assert.False(t, *ct.Annotations.Destructive)
	assert.False(t, *ct.Annotations.OpenWorld)

	require.NoError(t, full.Add(tool(t, "file.delete", "Deletes a file.", registry.Annotations{Destructive: new(true)}, func(a pathArgs) string { return "deleted" })))
	ct, _ = d.Registry().Lookup("call_tool")
	assert.False(t, *ct.Annotations.ReadOnly)
	assert.True(t, *ct.Annotations.Destructive)
	assert.True(t, *ct.Annotations.OpenWorld, "a tool without the hint may reach the open world")
	assert.False(t, *ct.Annotations.Idempotent)

	r := invoke[disclosure.SearchResult](t, d.Registry(), "search_tools", map[string]any{"query": "delete"})
	assert.Equal(t, []string{"file.delete"}, names(r.Value.Tools), "a new tool is found at once")

	require.NoError(t, full.Remove("file.delete"))
	ct, _ = d.Registry().Lookup("call_tool")
	assert.True(t, *ct.Annotations.ReadOnly)
}

// Visible tools stay listed as themselves and follow the full registry.
func TestVisibleTools(t *testing.T) {
	var calls atomic.Int32
	full := fullRegistry(t, &calls)
	_, err := disclosure.New(full, disclosure.Options{Visible: []string{"nope"}})
	require.ErrorContains(t, err, `Options.Visible[0]: the registry has no tool "nope"`)

	d, err := disclosure.New(full, disclosure.Options{Visible: []string{"weather.forecast"}, Logger: quiet})
	require.NoError(t, err)
	defer d.Close()
	r := invoke[string](t, d.Registry(), "weather.forecast", map[string]any{"city": "Rome"})
	assert.Equal(t, "sunny in Rome", r.Value)
	assert.Len(t, d.Registry().List(), 4)
	require.NoError(t, full.SetEnabled("weather.forecast", false))
	assert.Len(t, d.Registry().List(), 3)
	require.NoError(t, full.SetEnabled("weather.forecast", true))
	assert.Len(t, d.Registry().List(), 4)
}

// Over MCP a client sees the meta-tools, calls through call_tool, and is
// told when the listed tools change.
func TestOverMCP(t *testing.T) {
	var calls atomic.Int32
	full := fullRegistry(t, &calls)
	d := open(t, full)
	srv := mcpserver.NewServer(d.Registry(), mcpserver.Options{Logger: quiet})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	defer ss.Close()
	changed := make(chan struct{}, 8)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "0"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	}).Connect(ctx, ct, nil)
	require.NoError(t, err)
	defer cs.Close()
	lt, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, lt.Tools, 3)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "call_tool", Arguments: map[string]any{"name": "file.read", "arguments": map[string]any{"path": "/a"}}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	assert.Equal(t, "contents of /a", res.Content[0].(*sdk.TextContent).Text)

	require.NoError(t, full.Add(tool(t, "file.delete", "Deletes a file.", registry.Annotations{Destructive: new(true)}, func(a pathArgs) string { return "deleted" })))
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no list-changed after call_tool's annotations changed")
	}
	lt, err = cs.ListTools(ctx, nil)
	require.NoError(t, err)
	for _, tl := range lt.Tools {
		if tl.Name == "call_tool" {
			assert.True(t, *tl.Annotations.DestructiveHint)
		}
	}
}

// As provider tool definitions: three tools, and call_tool dispatches.
func TestAsProviderTools(t *testing.T) {
	var calls atomic.Int32
	d, err := disclosure.New(fullRegistry(t, &calls), disclosure.Options{Logger: quiet})
	require.NoError(t, err)
	defer d.Close()
	defs, err := llm.Export(d.Registry(), llm.OpenAIChat, llm.Options{Strict: true})
	require.NoError(t, err)
	require.Len(t, defs.Tools, 3)
	for _, is := range defs.Issues {
		assert.NotEqual(t, llm.Excluded, is.Action, is.String())
	}
	disp := llm.NewDispatcher(d.Registry(), defs, llm.DispatchOptions{})
	outs, err := disp.Dispatch(context.Background(), []llm.ToolCall{{ID: "1", Name: "call_tool", Arguments: `{"name":"weather.alerts","arguments":"{\"city\":\"Lima\"}"}`}})
	require.NoError(t, err)
	assert.Equal(t, "no alerts in Lima", outs[0].Text())
}
