package snippet_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/snippet"
	"github.com/toolpack-go/toolpack/result"
)

type searchHit struct {
	URL   string `json:"url"`
	Title string `json:"title"`
}

type searchOut struct {
	Items []searchHit `json:"items"`
	Total int         `json:"total"`
}

// Seed 001's brv_research runs as two calls through Registry.Invoke: the
// placeholders take the values and defaults, the reference takes the first
// call's value, and the snippet's Result is the last call's.
func TestRun_CallsInOrderThroughInvoke(t *testing.T) {
	rec := newRecorder(t, func(i int, tool string, raw json.RawMessage) (result.Result[any], error) {
		if tool == "brave.search" {
			// A typed value: references read it as JSON data.
			return result.Ok[any](searchOut{Items: []searchHit{{URL: "https://a.test", Title: "A"}}, Total: 1}), nil
		}
		return result.Ok[any]("findings").WithMessage("done"), nil
	}, "brave.search", "llm.transform")
	s, err := snippet.Parse("brv_research", brvResearch())
	require.NoError(t, err)

	res, err := s.Run(context.Background(), rec.reg, map[string]any{"topic": "Python"})
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "findings", res.Value)
	assert.Equal(t, "done", res.Message, "the last call's Result as it is")

	calls := rec.recorded()
	require.Len(t, calls, 2)
	assert.Equal(t, "brave.search", calls[0].Tool)
	assert.JSONEq(t, `{"query":"Python","count":5}`, calls[0].Args)
	assert.Equal(t, "llm.transform", calls[1].Tool)
	assert.JSONEq(t, `{"input":{"items":[{"url":"https://a.test","title":"A"}],"total":1},"prompt":"Extract key findings"}`, calls[1].Args)
}

// References follow fields, indexes and quoted keys of earlier results.
func TestRun_ReferencePaths(t *testing.T) {
	rec := newRecorder(t, func(i int, tool string, raw json.RawMessage) (result.Result[any], error) {
		if tool == "src" {
			return result.Ok[any](json.RawMessage(`{"items":[{"url":"u0"},{"url":"u1","n":1.50}],"odd-key":[true]}`)), nil
		}
		return result.Ok[any](nil), nil
	}, "src", "dst")
	s, err := snippet.Parse("paths", snippet.Definition{Body: `r = src()
dst(a=r.items[1].url, b=r["odd-key"][0], c=r.items[1].n, d=[r.items[0], {"k": r.items[1].url}])`})
	require.NoError(t, err)
	res, err := s.Run(context.Background(), rec.reg, nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	calls := rec.recorded()
	require.Len(t, calls, 2)
	assert.Equal(t, `{"a":"u1","b":true,"c":1.50,"d":[{"url":"u0"},{"k":"u1"}]}`, calls[1].Args, "numbers are passed as written")
}

// A reference the earlier result cannot satisfy fails the snippet with
// ErrorType, naming the line, the tool and the reference.
func TestRun_ReferenceFailure(t *testing.T) {
	rec := newRecorder(t, func(i int, tool string, raw json.RawMessage) (result.Result[any], error) {
		return result.Ok[any](map[string]any{"items": []any{1, 2}}), nil
	}, "src", "dst")
	cases := map[string]string{
		"r.items[5]": `snippet "refs": line 2: dst: r.items[5]: index 5 is out of range (r.items has 2 elements)`,
		"r.nope":     `snippet "refs": line 2: dst: r.nope: r has no field "nope"`,
		"r.items.x":  `snippet "refs": line 2: dst: r.items.x: r.items is an array, not an object`,
		"r[0]":       `snippet "refs": line 2: dst: r[0]: r is an object, not an array`,
	}
	for expr, want := range cases {
		rec.reset()
		s, err := snippet.Parse("refs", snippet.Definition{Body: "r = src()\ndst(x=" + expr + ")"})
		require.NoError(t, err)
		res, err := s.Run(context.Background(), rec.reg, nil)
		require.NoError(t, err)
		assert.False(t, res.Success)
		assert.Equal(t, snippet.ErrorType, res.ErrorType)
		assert.Equal(t, want, res.Error)
		assert.Len(t, rec.recorded(), 1, "dst is not called")
	}
}

// A step's domain failure fails the snippet with the step's error type,
// data and instruction; the text names the line and the tool; later steps
// do not run.
func TestRun_StepDomainFailure(t *testing.T) {
	rec := newRecorder(t, func(i int, tool string, raw json.RawMessage) (result.Result[any], error) {
		if tool == "bad" {
			return result.Failure[any]("no such page", result.NotFound).WithInstruction("try another").WithErrorData(map[string]any{"page": 3}), nil
		}
		return result.Ok[any](1), nil
	}, "ok", "bad", "never")
	s, err := snippet.Parse("fails", snippet.Definition{Body: "ok()\n\n# then\nbad()\nnever()"})
	require.NoError(t, err)
	res, err := s.Run(context.Background(), rec.reg, nil)
	require.NoError(t, err)
	assert.False(t, res.Success)
	assert.Equal(t, result.NotFound, res.ErrorType)
	assert.Equal(t, `snippet "fails": line 4: bad failed: no such page`, res.Error)
	assert.Equal(t, "try another", res.Instruction)
	assert.Equal(t, map[string]any{"page": 3}, res.ErrorData)
	assert.Equal(t, []call{{"ok", "{}"}, {"bad", "{}"}}, rec.recorded())
}

// A step's invalid arguments are the registry's validation_error, passed
// on with the line.
func TestRun_StepValidationFailure(t *testing.T) {
	reg := withAdd(t, newRegistry())
	s, err := snippet.Parse("bad_args", snippet.Definition{Body: `add(a="x", b=1)`})
	require.NoError(t, err)
	res, err := s.Run(context.Background(), reg, nil)
	require.NoError(t, err)
	assert.Equal(t, result.ValidationError, res.ErrorType)
	assert.Contains(t, res.Error, `snippet "bad_args": line 1: add failed: invalid arguments: a:`)
}

// A step calling a tool that is not there is the snippet's failure (type
// unavailable, naming the line and the tool), not a protocol
// ErrUnknownTool: that would tell the caller the snippet itself does not
// exist (an adapter answers "no tool named snippet.x"). The later steps do
// not run.
func TestRun_StepCallingAMissingTool(t *testing.T) {
	rec := newRecorder(t, nil, "ok")
	s, err := snippet.Parse("proto", snippet.Definition{Body: "ok()\nmissing.tool(x=1)\nok()"})
	require.NoError(t, err)
	res, err := s.Run(context.Background(), rec.reg, nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Contains(t, res.Error, `snippet "proto": line 2: missing.tool: no such tool is served now`)
	assert.Len(t, rec.recorded(), 1)
}

// A step naming another snippet without its tool prefix (twice(…) for
// snippet.twice) is told the name to call, under a registry prefix too.
func TestRun_StepNamingASnippetWithoutItsPrefix(t *testing.T) {
	for _, prefix := range []string{"", "x_"} {
		reg := registry.New(registry.Options{Prefix: new(prefix), Logger: slog.New(slog.DiscardHandler)})
		addTool(t, reg)
		p, err := snippet.Pack(map[string]snippet.Definition{
			"twice": twice,
			"quad":  {Body: "r = twice(n=1)\nsnippet.twice(n=r)"},
		}, reg)
		require.NoError(t, err)
		require.NoError(t, reg.AddPack(p))
		res, err := reg.Invoke(context.Background(), prefix+"snippet.quad", nil)
		require.NoError(t, err)
		require.False(t, res.Success)
		assert.Equal(t, result.Unavailable, res.ErrorType)
		assert.Contains(t, res.Error, `snippet "quad": line 1: twice: no such tool is served now`, prefix)
		assert.True(t, strings.HasSuffix(res.Error, "; a snippet is called by its tool name: snippet.twice(…)"), res.Error)
	}
}

// A step whose tool exists but itself runs into an unknown tool keeps that
// as a protocol error: the missing tool is not the step's.
func TestRun_UnknownToolFurtherDownStaysAnError(t *testing.T) {
	rec := newRecorder(t, func(int, string, json.RawMessage) (result.Result[any], error) {
		return result.Result[any]{}, fmt.Errorf("calling on: %w: %q", registry.ErrUnknownTool, "deeper")
	}, "outer")
	s, err := snippet.Parse("p", snippet.Definition{Body: "outer()"})
	require.NoError(t, err)
	_, err = s.Run(context.Background(), rec.reg, nil)
	require.ErrorIs(t, err, registry.ErrUnknownTool)
	assert.Contains(t, err.Error(), `snippet "p": line 1: outer: `)
}

// Another protocol error of a step (here an output breaking its schema)
// is returned as an error naming the line and the tool; errors.Is sees the
// cause.
func TestRun_StepProtocolError(t *testing.T) {
	rec := newRecorder(t, func(int, string, json.RawMessage) (result.Result[any], error) {
		return result.Result[any]{}, registry.ErrInvalidOutput
	}, "bad")
	s, err := snippet.Parse("proto", snippet.Definition{Body: "bad()"})
	require.NoError(t, err)
	_, err = s.Run(context.Background(), rec.reg, nil)
	require.Error(t, err)
	assert.ErrorIs(t, err, registry.ErrInvalidOutput)
	assert.Contains(t, err.Error(), `snippet "proto": line 1: bad: `)
}

// Under a registry prefix a body still names tools undecorated, as
// configuration and documentation do: each step's name is resolved the way
// an alias's target is (registry.Registry.TargetName). A final name and an
// alias work as written.
func TestRun_StepNamesResolvedUnderPrefix(t *testing.T) {
	reg := registry.New(registry.Options{Prefix: new("x"), Logger: slog.New(slog.DiscardHandler)})
	var calls []string
	for _, name := range []string{"add", "echo"} {
		require.NoError(t, reg.Add(&registry.Tool{Name: name, Description: "d",
			Handler: func(_ context.Context, c *registry.Call) (result.Result[any], error) {
				calls = append(calls, c.Tool.Name)
				return result.Ok[any](name), nil
			}}))
	}
	require.NoError(t, reg.SetAliases(map[string]string{"plus": "add"}))
	s, err := snippet.Parse("p", snippet.Definition{Body: "add()\nx_add()\nplus()\necho()"})
	require.NoError(t, err)
	res, err := s.Run(context.Background(), reg, nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "echo", res.Value)
	assert.Equal(t, []string{"x_add", "x_add", "x_add", "x_echo"}, calls)
}

// Cancellation between steps stops the snippet before the next call;
// cancellation during a step ends it (Invoke honours the context).
func TestRun_ContextCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	rec := newRecorder(t, func(i int, tool string, raw json.RawMessage) (result.Result[any], error) {
		return result.Ok[any](1), nil
	}, "first", "second")
	// Cancelled once the first call has returned (from the handler itself,
	// the registry may see the cancellation before the call's answer and
	// report the first call cancelled instead).
	rec.reg.UseOuter(func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
			res, err := next(ctx, c)
			if c.Tool.Name == "first" {
				cancel()
			}
			return res, err
		}
	})
	s, err := snippet.Parse("cancel", snippet.Definition{Body: "first()\nsecond()"})
	require.NoError(t, err)
	_, err = s.Run(ctx, rec.reg, nil)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), `snippet "cancel": line 2: second not called`)
	assert.Len(t, rec.recorded(), 1)

	ctx2, cancel2 := context.WithCancel(context.Background())
	started := make(chan struct{})
	reg := newRegistry()
	require.NoError(t, reg.Add(&registry.Tool{Name: "block", Handler: func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
		close(started)
		<-ctx.Done()
		return result.Result[any]{}, ctx.Err()
	}}))
	s2, err := snippet.Parse("during", snippet.Definition{Body: "block()"})
	require.NoError(t, err)
	go func() { <-started; cancel2() }()
	_, err = s2.Run(ctx2, reg, nil)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), `snippet "during": line 1: block: `)
}

// Values are checked before any call: unknown, missing and mistyped ones
// are all listed in one validation_error failure.
func TestRun_InvalidValues(t *testing.T) {
	rec := newRecorder(t, nil, "brave.search", "llm.transform")
	s, err := snippet.Parse("brv_research", brvResearch())
	require.NoError(t, err)
	res, err := s.Run(context.Background(), rec.reg, map[string]any{"count": "five", "extra": 1})
	require.NoError(t, err)
	assert.Equal(t, result.ValidationError, res.ErrorType)
	fes, ok := res.ErrorData.([]args.FieldError)
	require.True(t, ok)
	assert.Equal(t, []args.FieldError{
		{Field: "count", Rule: "type", Message: "expected an integer, got a string"},
		{Field: "extra", Rule: "unknown_field", Message: "unknown parameter; parameters: count, topic"},
		{Field: "topic", Rule: "required", Message: "is required"},
	}, fes)
	assert.Empty(t, rec.recorded())
}

// A snippet that runs itself stops after MaxNesting levels with ErrorType
// instead of recursing forever, and the failure says so once, naming the
// line that calls it again (not once per level).
func TestRun_NestingBounded(t *testing.T) {
	reg := newRegistry()
	p, err := snippet.Pack(map[string]snippet.Definition{"loop": {Body: "snippet.loop()"}}, reg)
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))
	res, err := reg.Invoke(context.Background(), "snippet.loop", nil)
	require.NoError(t, err)
	assert.False(t, res.Success)
	assert.Equal(t, snippet.ErrorType, res.ErrorType)
	assert.Equal(t, `snippet "loop": line 1: snippet.loop failed: snippets run each other more than 8 deep `+
		`(snippet "loop" line 1 → snippet "loop" again); does a snippet call itself?`, res.Error)
}

// The nesting failure shows the chain from the outermost snippet up to the
// first one met again, so a cycle through several snippets is found from
// the message; a chain deeper than the bound without a cycle is listed
// whole.
func TestRun_NestingFailureNamesTheChain(t *testing.T) {
	reg := withAdd(t, newRegistry())
	defs := map[string]snippet.Definition{
		"top": {Body: "add(a=1, b=2)\nsnippet.a()"},
		"a":   {Body: "snippet.b()"},
		"b":   {Body: "add(a=1, b=2)\nadd(a=1, b=2)\nsnippet.a()"},
	}
	for i := 1; i <= 9; i++ {
		body := fmt.Sprintf("snippet.d%d()", i+1)
		if i == 9 {
			body = "add(a=1, b=2)"
		}
		defs[fmt.Sprintf("d%d", i)] = snippet.Definition{Body: body}
	}
	p, err := snippet.Pack(defs, reg)
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))

	res, err := reg.Invoke(context.Background(), "snippet.top", nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, snippet.ErrorType, res.ErrorType)
	assert.Equal(t, `snippet "top": line 2: snippet.a failed: snippets run each other more than 8 deep `+
		`(snippet "top" line 2 → snippet "a" line 1 → snippet "b" line 3 → snippet "a" again); does a snippet call itself?`, res.Error)

	res, err = reg.Invoke(context.Background(), "snippet.d1", nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	var chain []string
	for i := 1; i <= 8; i++ {
		chain = append(chain, fmt.Sprintf(`snippet "d%d" line 1`, i))
	}
	assert.Equal(t, `snippet "d1": line 1: snippet.d2 failed: snippets run each other more than 8 deep (`+
		strings.Join(chain, " → ")+` → snippet "d9"); does a snippet call itself?`, res.Error)

	// Eight deep is allowed: d2 … d9 run.
	res, err = reg.Invoke(context.Background(), "snippet.d2", nil)
	require.NoError(t, err)
	assert.True(t, res.Success, res.Error)
}

// A nested step's ordinary failure is still named by every level: only
// the bound's failure passes up unchanged.
func TestRun_NestedOrdinaryFailureNamedAtEveryLevel(t *testing.T) {
	reg := withAdd(t, newRegistry())
	p, err := snippet.Pack(map[string]snippet.Definition{
		"outer": {Body: "snippet.inner()"},
		"inner": {Body: "add(a=\"x\", b=1)"},
	}, reg)
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))
	res, err := reg.Invoke(context.Background(), "snippet.outer", nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.True(t, strings.HasPrefix(res.Error, `snippet "outer": line 1: snippet.inner failed: snippet "inner": line 1: add failed: `), res.Error)
}

// Run works with any Invoker, not only a registry.
func TestRun_AnyInvoker(t *testing.T) {
	var got []string
	inv := invokerFunc(func(ctx context.Context, name string, raw json.RawMessage) (result.Result[any], error) {
		got = append(got, name+string(raw))
		if name == "boom" {
			return result.Result[any]{}, errors.New("boom")
		}
		return result.Ok[any](len(got)), nil
	})
	s, err := snippet.Parse("inv", snippet.Definition{Body: "n = a()\nb(x=n)\nboom()"})
	require.NoError(t, err)
	_, err = s.Run(context.Background(), inv, nil)
	require.EqualError(t, err, `snippet "inv": line 3: boom: boom`)
	assert.Equal(t, []string{"a{}", `b{"x":1}`, "boom{}"}, got)
}

type invokerFunc func(ctx context.Context, name string, raw json.RawMessage) (result.Result[any], error)

func (f invokerFunc) Invoke(ctx context.Context, name string, raw json.RawMessage) (result.Result[any], error) {
	return f(ctx, name, raw)
}

// A snippet running when a reload removes the tool (or the alias) of a
// later step finishes on the tool it started with: the reload does not
// fail it half-way (issue 11: calls in flight finish). A step whose tool
// was already gone when the snippet started is unavailable, as before.
func TestRun_ReloadMidwayDoesNotFailTheSnippet(t *testing.T) {
	reg := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	started, release := make(chan struct{}), make(chan struct{})
	require.NoError(t, reg.AddPack(&registry.Pack{Name: "p", Tools: []*registry.Tool{
		{Name: "slow", Description: "d", Handler: func(context.Context, *registry.Call) (result.Result[any], error) {
			close(started)
			<-release
			return result.Ok[any](1), nil
		}},
		{Name: "count", Description: "d", Handler: func(context.Context, *registry.Call) (result.Result[any], error) {
			return result.Ok[any]("counted"), nil
		}},
	}}))
	require.NoError(t, reg.SetAliases(map[string]string{"cnt": "count"}))
	s, err := snippet.Parse("two", snippet.Definition{Body: "slow()\ncnt()\ncount()"})
	require.NoError(t, err)

	done := make(chan result.Result[any], 1)
	go func() {
		res, err := s.Run(context.Background(), reg, nil)
		assert.NoError(t, err)
		done <- res
	}()
	<-started
	// The reload: the pack loses count, the alias goes.
	require.NoError(t, reg.ReplacePack(&registry.Pack{Name: "p", Tools: []*registry.Tool{{Name: "slow", Description: "d",
		Handler: func(context.Context, *registry.Call) (result.Result[any], error) { return result.Ok[any](2), nil }}}}))
	require.NoError(t, reg.SetAliases(nil))
	close(release)
	res := <-done
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "counted", res.Value)

	// Started after the reload: the step's tool is gone.
	res, err = s.Run(context.Background(), reg, nil)
	require.NoError(t, err)
	assert.False(t, res.Success)
	assert.Contains(t, res.Error, `snippet "two": line 2: cnt: no such tool is served now`)
}

// A run holds no more than it may: a step's arguments are built no
// further than the largest the registry accepts, and the values kept for
// later lines are capped (MaxKeptBytes); each is a failure naming the
// line, not gigabytes of memory.
func TestRun_MemoryBounded(t *testing.T) {
	reg := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	big := strings.Repeat("x", 400<<10)
	huge := strings.Repeat("y", 20<<20)
	for name, v := range map[string]string{"big": big, "huge": huge} {
		require.NoError(t, reg.Add(&registry.Tool{Name: name, Description: "d",
			Handler: func(context.Context, *registry.Call) (result.Result[any], error) { return result.Ok[any](v), nil }}))
	}
	var echoed int
	require.NoError(t, reg.Add(&registry.Tool{Name: "echo", Description: "d",
		Handler: func(_ context.Context, c *registry.Call) (result.Result[any], error) {
			echoed++
			return result.Ok[any](len(c.Raw)), nil
		}}))

	s, err := snippet.Parse("args", snippet.Definition{Body: "r = big()\necho(text=[r, r, r, r, r, r])"})
	require.NoError(t, err)
	res, err := s.Run(context.Background(), reg, nil)
	require.NoError(t, err)
	assert.False(t, res.Success)
	assert.Contains(t, res.Error, fmt.Sprintf(`snippet "args": line 2: echo: the arguments are more than %d bytes`, reg.MaxArgumentBytes()))
	assert.Zero(t, echoed, "not called")

	s, err = snippet.Parse("kept", snippet.Definition{Body: "a = huge()\nb = huge()\nc = huge()\nd = huge()\necho(text=[a, b, c, d])"})
	require.NoError(t, err)
	res, err = s.Run(context.Background(), reg, nil)
	require.NoError(t, err)
	assert.False(t, res.Success)
	assert.Contains(t, res.Error, fmt.Sprintf(`snippet "kept": line 4: huge: the values kept for later lines are more than %d bytes`, snippet.MaxKeptBytes))
}

// A reload landing after a snippet tool was looked up and before its
// handler starts (while a middleware runs) does not fail it: the steps'
// tools are held from the lookup (registry.Tool.Calls), so the snippet
// found runs on the tools and aliases it was written against.
func TestTool_ReloadBetweenLookupAndHandlerDoesNotFailTheSnippet(t *testing.T) {
	reg := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	entered, release := make(chan struct{}), make(chan struct{})
	reg.Use(func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
			if c.Tool.Name == "snippet.fast" {
				select {
				case <-entered:
				default:
					close(entered)
					<-release
				}
			}
			return next(ctx, c)
		}
	})
	add := &registry.Tool{Name: "add", Description: "d", Handler: func(context.Context, *registry.Call) (result.Result[any], error) {
		return result.Ok[any]("added"), nil
	}}
	require.NoError(t, reg.AddPack(&registry.Pack{Name: "p", Tools: []*registry.Tool{add}}))
	require.NoError(t, reg.SetAliases(map[string]string{"plus": "add"}))
	pack := func(body string) *registry.Pack {
		p, err := snippet.Pack(map[string]snippet.Definition{"fast": {Body: body}}, reg)
		require.NoError(t, err)
		return p
	}
	require.NoError(t, reg.AddPack(pack("plus()")))

	done := make(chan result.Result[any], 1)
	go func() {
		res, err := reg.Invoke(context.Background(), "snippet.fast", nil)
		assert.NoError(t, err)
		done <- res
	}()
	<-entered
	// The reload: the snippet no longer uses the alias, which goes; the
	// pack loses add too.
	require.NoError(t, reg.Update(func() error {
		if err := reg.ReplacePack(pack("echo()")); err != nil {
			return err
		}
		if err := reg.RemovePack("p"); err != nil {
			return err
		}
		return reg.SetAliases(nil)
	}))
	close(release)
	res := <-done
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "added", res.Value)
}

// One run starts at most MaxRunCalls tool calls, its snippets' steps
// counted with its own: snippets running snippets multiply their calls
// (three levels of 100 made a million), and the run ends with a failure
// naming the line where the budget ran out. A run within the budget is
// untouched, and each new run has a budget of its own.
func TestRun_CallsOfOneRunBounded(t *testing.T) {
	reg := withAdd(t, newRegistry())
	var adds atomic.Int64
	reg.Use(func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
			if c.Tool.Name == "add" {
				adds.Add(1)
			}
			return next(ctx, c)
		}
	})
	defs := map[string]snippet.Definition{
		"outer": {Body: strings.Repeat("snippet.inner()\n", 20)},
		"inner": {Body: strings.Repeat("add(a=1, b=2)\n", 60)},
		"fits":  {Body: strings.Repeat("snippet.inner()\n", 10)},
	}
	p, err := snippet.Pack(defs, reg)
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))

	res, err := reg.Invoke(t.Context(), "snippet.outer", nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, snippet.ErrorType, res.ErrorType)
	assert.Contains(t, res.Error, fmt.Sprintf("has started %d tool calls, the most one run may", snippet.MaxRunCalls))
	assert.True(t, strings.HasPrefix(res.Error, `snippet "outer": line 17: snippet.inner failed: snippet "inner": line 24: add not called`), res.Error)
	assert.EqualValues(t, snippet.MaxRunCalls-17, adds.Load(), "17 of the calls were the outer snippet's")

	adds.Store(0)
	res, err = reg.Invoke(t.Context(), "snippet.fits", nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.EqualValues(t, 600, adds.Load())
}

// A Snippet not made by Parse (the zero value, or nil) and a nil Invoker
// are errors wrapping ErrInvalid, never a panic or a failure with an
// empty text.
func TestRun_ZeroSnippetOrNilInvokerIsAnError(t *testing.T) {
	var zero snippet.Snippet
	_, err := zero.Run(context.Background(), newRegistry(), nil)
	require.ErrorIs(t, err, snippet.ErrInvalid)
	assert.Contains(t, err.Error(), "not made by Parse")
	var none *snippet.Snippet
	require.NotPanics(t, func() { _, err = none.Run(context.Background(), newRegistry(), nil) })
	require.ErrorIs(t, err, snippet.ErrInvalid)

	s, err := snippet.Parse("twice", snippet.Definition{Description: "d", Body: "echo(text=\"a\")"})
	require.NoError(t, err)
	require.NotPanics(t, func() { _, err = s.Run(context.Background(), nil, nil) })
	require.ErrorIs(t, err, snippet.ErrInvalid)
	assert.Contains(t, err.Error(), `snippet "twice": Run: the Invoker is nil`)
}

// A call with a key per few bytes of a large body gets every problem of
// the parameters and as many unknown names as bring the list to
// args.MaxFieldErrors, then one entry counting the rest: the answer stays
// small (it listed each of 96,000 unknown keys, 92 MB, in 7.5 s), and the
// parameters' problems are never the ones cut, whatever the number of
// unknown names.
func TestRun_UnknownValuesPastTheCapCounted(t *testing.T) {
	rec := newRecorder(t, nil, "brave.search", "llm.transform")
	s, err := snippet.Parse("brv_research", brvResearch())
	require.NoError(t, err)
	for _, n := range []int{98, 99, 100, 101, 5000} {
		in := map[string]any{"count": "five"}
		for i := range n {
			in[fmt.Sprintf("k%04d", i)] = 1
		}
		res, err := s.Run(context.Background(), rec.reg, in)
		require.NoError(t, err)
		assert.Equal(t, result.ValidationError, res.ErrorType)
		fes, ok := res.ErrorData.([]args.FieldError)
		require.True(t, ok)
		assert.Contains(t, fes, args.FieldError{Field: "count", Rule: "type", Message: "expected an integer, got a string"}, "%d unknown", n)
		assert.Contains(t, fes, args.FieldError{Field: "topic", Rule: "required", Message: "is required"}, "%d unknown", n)
		if n <= args.MaxFieldErrors-2 {
			assert.Len(t, fes, n+2, "%d unknown: every one listed", n)
			continue
		}
		require.Len(t, fes, args.MaxFieldErrors+1, "%d unknown: the two problems, 98 names, the count of the rest", n)
		last := fes[len(fes)-1]
		assert.Equal(t, args.RuleTooManyErrors, last.Rule)
		want := fmt.Sprintf("%d more unknown parameters are not listed; parameters: count, topic", n-98)
		if n == 99 {
			want = "1 more unknown parameter is not listed; parameters: count, topic"
		}
		assert.Equal(t, want, last.Message)
		assert.Less(t, len(res.Error), 32<<10)
	}
	assert.Empty(t, rec.recorded())
}
