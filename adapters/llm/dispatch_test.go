package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/adapters/llm"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

type addArgs struct {
	A int `json:"a" validate:"gte=-1000,lte=1000" description:"First addend."`
	B int `json:"b" validate:"gte=-1000,lte=1000" description:"Second addend."`
}

type filter struct {
	Lang string `json:"lang,omitempty" validate:"omitempty,max=10" description:"Language."`
}

type searchArgs struct {
	Query  string  `json:"query" validate:"required,max=100" description:"What to look for."`
	Limit  int     `json:"limit,omitempty" validate:"omitempty,gte=1,lte=50" description:"Most results."`
	Filter *filter `json:"filter,omitempty" description:"Narrows the results."`
}

type dropArgs struct {
	Path string `json:"path" validate:"required,max=100" description:"The file."`
}

// fixture is a registry of small tools and what their handlers saw.
type fixture struct {
	reg     *registry.Registry
	mu      sync.Mutex
	seen    []searchArgs
	dropped []string
	// slow blocks until release is closed, counting how many run at once.
	release       chan struct{}
	running, peak atomic.Int32
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{reg: registry.New(registry.Options{Logger: quiet}), release: make(chan struct{})}
	add, err := registry.Func("calc.add", func(_ context.Context, a addArgs) (result.Result[int], error) {
		return result.Ok(a.A + a.B), nil
	}, registry.ToolOptions{Doc: "Adds two integers."})
	require.NoError(t, err)
	search, err := registry.Func("search", func(_ context.Context, a searchArgs) (result.Result[string], error) {
		f.mu.Lock()
		f.seen = append(f.seen, a)
		f.mu.Unlock()
		return result.Ok(fmt.Sprintf("%d results for %s", max(a.Limit, 10), a.Query)), nil
	}, registry.ToolOptions{Doc: "Searches."})
	require.NoError(t, err)
	slow, err := registry.Func("slow", func(ctx context.Context, _ struct{}) (result.Result[string], error) {
		n := f.running.Add(1)
		defer f.running.Add(-1)
		for {
			p := f.peak.Load()
			if n <= p || f.peak.CompareAndSwap(p, n) {
				break
			}
		}
		select {
		case <-f.release:
			return result.Ok("done"), nil
		case <-ctx.Done():
			return result.Result[string]{}, ctx.Err()
		}
	}, registry.ToolOptions{Doc: "Waits."})
	require.NoError(t, err)
	drop, err := registry.Func("drop_file", func(_ context.Context, a dropArgs) (result.Result[string], error) {
		f.mu.Lock()
		f.dropped = append(f.dropped, a.Path)
		f.mu.Unlock()
		return result.Ok("dropped " + a.Path), nil
	}, registry.ToolOptions{Doc: "Deletes a file.", Annotations: registry.Annotations{Destructive: new(true)}})
	require.NoError(t, err)
	picture, err := registry.Func("picture", func(_ context.Context, _ struct{}) (result.Result[result.Contents], error) {
		return result.Rich(result.Text("a red dot"), result.Image([]byte("\x89PNG\r\n\x1a\n"), "image/png")), nil
	}, registry.ToolOptions{Doc: "Draws."})
	require.NoError(t, err)
	require.NoError(t, f.reg.Add(add, search, slow, drop, picture))
	return f
}

func (f *fixture) dispatcher(t testing.TB, format llm.Format, strict bool, opts llm.DispatchOptions) *llm.Dispatcher {
	t.Helper()
	defs, err := llm.Export(f.reg, format, llm.Options{Strict: strict})
	require.NoError(t, err)
	return llm.NewDispatcher(f.reg, defs, opts)
}

// Parallel calls come back in call order, each with its own result.
func TestDispatch_ParallelCallsInCallOrder(t *testing.T) {
	f := newFixture(t)
	d := f.dispatcher(t, llm.OpenAIChat, false, llm.DispatchOptions{MaxConcurrent: 3})
	var calls []llm.ToolCall
	for i := range 12 {
		calls = append(calls, llm.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "calc_add", Arguments: fmt.Sprintf(`{"a":%d,"b":1}`, i)})
	}
	outs, err := d.Dispatch(context.Background(), calls)
	require.NoError(t, err)
	require.Len(t, outs, 12)
	for i, o := range outs {
		assert.Equal(t, calls[i].ID, o.Call.ID)
		assert.Equal(t, "calc.add", o.Tool)
		assert.False(t, o.IsError())
		assert.Equal(t, fmt.Sprint(i+1), o.Text())
	}
}

// No more than MaxConcurrent calls run at once.
func TestDispatch_BoundedConcurrency(t *testing.T) {
	f := newFixture(t)
	d := f.dispatcher(t, llm.OpenAIChat, false, llm.DispatchOptions{MaxConcurrent: 2})
	calls := make([]llm.ToolCall, 6)
	for i := range calls {
		calls[i] = llm.ToolCall{ID: fmt.Sprint(i), Name: "slow", Arguments: `{}`}
	}
	done := make(chan []llm.Outcome)
	go func() {
		outs, _ := d.Dispatch(context.Background(), calls)
		done <- outs
	}()
	require.Eventually(t, func() bool { return f.running.Load() == 2 }, 5*time.Second, time.Millisecond)
	close(f.release)
	outs := <-done
	for _, o := range outs {
		assert.Equal(t, "done", o.Text())
	}
	assert.Equal(t, int32(2), f.peak.Load())
}

// Cancelling the context ends running calls and fails the ones not
// started; Dispatch returns the context's error.
func TestDispatch_ContextCancelled(t *testing.T) {
	f := newFixture(t)
	d := f.dispatcher(t, llm.Anthropic, false, llm.DispatchOptions{MaxConcurrent: 1})
	ctx, cancel := context.WithCancel(context.Background())
	calls := []llm.ToolCall{{ID: "1", Name: "slow", Arguments: `{}`}, {ID: "2", Name: "slow", Arguments: `{}`}, {ID: "3", Name: "calc_add", Arguments: `{"a":1,"b":2}`}}
	done := make(chan struct{})
	var outs []llm.Outcome
	var err error
	go func() {
		outs, err = d.Dispatch(ctx, calls)
		close(done)
	}()
	require.Eventually(t, func() bool { return f.running.Load() == 1 }, 5*time.Second, time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Dispatch did not return after cancel")
	}
	require.ErrorIs(t, err, context.Canceled)
	require.Len(t, outs, 3)
	for _, o := range outs {
		assert.True(t, o.IsError(), o.Call.ID)
		assert.Contains(t, o.Text(), "cancel")
	}
}

// An unknown tool is answered with a failure naming it; nothing runs.
func TestDispatch_UnknownTool(t *testing.T) {
	f := newFixture(t)
	d := f.dispatcher(t, llm.OpenAIChat, false, llm.DispatchOptions{})
	outs, err := d.Dispatch(context.Background(), []llm.ToolCall{{ID: "x", Name: "rm_rf", Arguments: `{}`}})
	require.NoError(t, err)
	assert.True(t, outs[0].IsError())
	assert.Equal(t, result.NotFound, outs[0].Result.ErrorType)
	assert.Contains(t, outs[0].Text(), `"rm_rf"`)
}

// A validation failure lists every field problem, phrased for the model to
// correct its call.
func TestDispatch_ValidationFailureListsEveryProblem(t *testing.T) {
	f := newFixture(t)
	d := f.dispatcher(t, llm.OpenAIChat, false, llm.DispatchOptions{})
	outs, err := d.Dispatch(context.Background(), []llm.ToolCall{{ID: "x", Name: "calc_add", Arguments: `{"a":"5","b":5000,"c":1}`}})
	require.NoError(t, err)
	text := outs[0].Text()
	assert.True(t, outs[0].IsError())
	assert.Contains(t, text, "correct every one and call again")
	for _, field := range []string{"- a:", "- b:", "- c:"} {
		assert.Contains(t, text, field)
	}
}

// With a strict-mode export the model must send every field; a null for
// an optional one is read as absent, at every level. A null for a
// required field is still refused.
func TestDispatch_StrictNullsReadAsAbsent(t *testing.T) {
	f := newFixture(t)
	d := f.dispatcher(t, llm.OpenAIChat, true, llm.DispatchOptions{})
	outs, err := d.Dispatch(context.Background(), []llm.ToolCall{
		{ID: "1", Name: "search", Arguments: `{"query":"go","limit":null,"filter":{"lang":null}}`},
		{ID: "2", Name: "search", Arguments: `{"query":null,"limit":null,"filter":null}`},
	})
	require.NoError(t, err)
	require.False(t, outs[0].IsError(), outs[0].Text())
	assert.Equal(t, []searchArgs{{Query: "go", Filter: &filter{}}}, f.seen)
	assert.True(t, outs[1].IsError())
	assert.Contains(t, outs[1].Text(), "query")

	// Without strict mode a null is passed on as sent.
	plain := f.dispatcher(t, llm.OpenAIChat, false, llm.DispatchOptions{})
	outs, err = plain.Dispatch(context.Background(), []llm.ToolCall{{ID: "3", Name: "search", Arguments: `{"query":"go","limit":null}`}})
	require.NoError(t, err)
	assert.True(t, outs[0].IsError(), "the registry refuses null for an int")
}

// Property: whatever optional fields a call leaves out, the strict-mode
// form of the call (nulls in their place) reaches the tool as the same
// arguments.
func TestDispatch_StrictFormEqualsOriginalProperty(t *testing.T) {
	f := newFixture(t)
	strict := f.dispatcher(t, llm.OpenAIChat, true, llm.DispatchOptions{})
	plain := f.dispatcher(t, llm.OpenAIChat, false, llm.DispatchOptions{})
	rapid.Check(t, func(rt *rapid.T) {
		args := map[string]any{"query": rapid.StringMatching(`[a-z]{1,10}`).Draw(rt, "query")}
		full := map[string]any{"query": args["query"], "limit": nil, "filter": nil}
		if rapid.Bool().Draw(rt, "limit?") {
			n := rapid.IntRange(1, 50).Draw(rt, "limit")
			args["limit"], full["limit"] = n, n
		}
		if rapid.Bool().Draw(rt, "filter?") {
			fl, ffl := map[string]any{}, map[string]any{"lang": nil}
			if rapid.Bool().Draw(rt, "lang?") {
				l := rapid.StringMatching(`[a-z]{1,5}`).Draw(rt, "lang")
				fl["lang"], ffl["lang"] = l, l
			}
			args["filter"], full["filter"] = fl, ffl
		}
		f.seen = nil
		o1, err := plain.Dispatch(context.Background(), []llm.ToolCall{{ID: "a", Name: "search", Arguments: string(mustJSON(rt, args))}})
		require.NoError(rt, err)
		o2, err := strict.Dispatch(context.Background(), []llm.ToolCall{{ID: "b", Name: "search", Arguments: string(mustJSON(rt, full))}})
		require.NoError(rt, err)
		require.False(rt, o1[0].IsError(), o1[0].Text())
		require.False(rt, o2[0].IsError(), o2[0].Text())
		require.Len(rt, f.seen, 2)
		assert.Equal(rt, f.seen[0], f.seen[1])
	})
}

// Lenient mode reads what sloppy models send and says so in the result;
// strict reading (the default) refuses it.
func TestDispatch_LenientCoercesAndSays(t *testing.T) {
	f := newFixture(t)
	lenient := f.dispatcher(t, llm.OpenAIChat, false, llm.DispatchOptions{Lenient: true})
	calls := []llm.ToolCall{
		{ID: "1", Name: "calc_add", Arguments: `{"a":"5","b":" 6 "}`},
		{ID: "2", Name: "calc_add", Arguments: `"{\"a\":1,\"b\":2}"`},
		{ID: "3", Name: "search", Arguments: `{"query":"go","filter":"{\"lang\":\"en\"}","limit":"3.0"}`},
		{ID: "4", Name: "calc_add", Arguments: `{"a":"five","b":1}`},
		{ID: "5", Name: "slow", Arguments: ``},
	}
	close(f.release)
	outs, err := lenient.Dispatch(context.Background(), calls)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(outs[0].Text(), "11\n\nNote:"), outs[0].Text())
	assert.Contains(t, outs[0].Text(), `a: the string "5" was read as an integer`)
	assert.Len(t, outs[0].Coerced, 2)
	assert.True(t, strings.HasPrefix(outs[1].Text(), "3\n"), outs[1].Text())
	assert.Contains(t, outs[1].Coerced[0], "arrived as a JSON string")
	require.False(t, outs[2].IsError(), outs[2].Text())
	assert.Equal(t, searchArgs{Query: "go", Limit: 3, Filter: &filter{Lang: "en"}}, f.seen[0])
	assert.True(t, outs[3].IsError(), "a string that is no number stays an error")
	assert.Contains(t, outs[3].Text(), "- a:")
	assert.False(t, outs[4].IsError(), outs[4].Text())

	strict := f.dispatcher(t, llm.OpenAIChat, false, llm.DispatchOptions{})
	outs, err = strict.Dispatch(context.Background(), calls[:2])
	require.NoError(t, err)
	assert.True(t, outs[0].IsError())
	assert.True(t, outs[1].IsError())
	assert.Empty(t, outs[0].Coerced)
}

// A destructive tool waits for the host: approve runs it, deny answers
// with the reason, pause gives a Pending call that resumes later (through
// its JSON, as a host would store it). Other tools are never asked about.
func TestDispatch_Approval(t *testing.T) {
	f := newFixture(t)
	var asked []string
	var mu sync.Mutex
	verdict := map[string]llm.Decision{
		"a.txt": {Verdict: llm.Approve},
		"b.txt": {Verdict: llm.Deny, Reason: "b.txt is the user's thesis"},
		"c.txt": {Verdict: llm.Pause},
	}
	d := f.dispatcher(t, llm.Anthropic, false, llm.DispatchOptions{Approve: func(_ context.Context, req llm.ApprovalRequest) (llm.Decision, error) {
		var a dropArgs
		if err := json.Unmarshal(req.Arguments, &a); err != nil {
			return llm.Decision{}, err
		}
		mu.Lock()
		asked = append(asked, req.Tool.Name)
		mu.Unlock()
		return verdict[a.Path], nil
	}})
	outs, err := d.Dispatch(context.Background(), []llm.ToolCall{
		{ID: "1", Name: "drop_file", Arguments: `{"path":"a.txt"}`},
		{ID: "2", Name: "drop_file", Arguments: `{"path":"b.txt"}`},
		{ID: "3", Name: "drop_file", Arguments: `{"path":"c.txt"}`},
		{ID: "4", Name: "calc_add", Arguments: `{"a":1,"b":1}`},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"drop_file", "drop_file", "drop_file"}, asked)
	assert.Equal(t, "dropped a.txt", outs[0].Text())
	assert.True(t, outs[1].IsError())
	assert.Equal(t, result.PermissionDenied, outs[1].Result.ErrorType)
	assert.Contains(t, outs[1].Text(), "b.txt is the user's thesis")
	require.NotNil(t, outs[2].Pending)
	assert.False(t, outs[2].IsError())
	assert.Equal(t, []string{"a.txt"}, f.dropped)

	msgs, err := d.Messages(outs)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	assert.Equal(t, 3, strings.Count(string(msgs[0]), `"tool_result"`), "the paused call has no result yet")

	stored, err := json.Marshal(outs[2].Pending)
	require.NoError(t, err)
	var p llm.Pending
	require.NoError(t, json.Unmarshal(stored, &p))
	o := d.Resume(context.Background(), p, llm.Decision{Verdict: llm.Approve})
	assert.Equal(t, "dropped c.txt", o.Text())
	assert.Equal(t, "3", o.Call.ID)
	assert.Equal(t, []string{"a.txt", "c.txt"}, f.dropped)

	// A stored call pointing at another tool than its name maps to runs
	// nothing.
	tampered := p
	tampered.Tool = "calc.add"
	o = d.Resume(context.Background(), tampered, llm.Decision{Verdict: llm.Approve})
	assert.Equal(t, result.NotFound, o.Result.ErrorType)
	assert.Equal(t, []string{"a.txt", "c.txt"}, f.dropped)

	// An approval callback's error fails the call without running it.
	failing := f.dispatcher(t, llm.Anthropic, false, llm.DispatchOptions{Approve: func(context.Context, llm.ApprovalRequest) (llm.Decision, error) {
		return llm.Decision{}, errors.New("approval service down")
	}})
	outs, err = failing.Dispatch(context.Background(), []llm.ToolCall{{ID: "5", Name: "drop_file", Arguments: `{"path":"d.txt"}`}})
	require.NoError(t, err)
	assert.Error(t, outs[0].Err)
	assert.NotContains(t, outs[0].Text(), "approval service down", "a protocol error's text is not shown to the model")
	assert.Equal(t, []string{"a.txt", "c.txt"}, f.dropped)
}
