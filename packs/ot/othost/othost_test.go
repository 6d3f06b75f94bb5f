package othost_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/toolpack-go/toolpack/internal/toolmsg"
	"github.com/toolpack-go/toolpack/packs/example"
	"github.com/toolpack-go/toolpack/packs/ot"
	"github.com/toolpack-go/toolpack/packs/ot/othost"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
	"github.com/toolpack-go/toolpack/registry/results"
	"github.com/toolpack-go/toolpack/registry/stats"
	"github.com/toolpack-go/toolpack/result"
)

// fixture is a registry with the example pack, a host reading
// dir/config.yaml and the ot wiring, first configuration applied.
type fixture struct {
	reg  *registry.Registry
	host *hostconfig.Host
	w    *othost.Wiring
	dir  string
}

func newFixture(t *testing.T, config string) *fixture {
	t.Helper()
	dir := t.TempDir()
	writeConfig(t, dir, config)
	reg := registry.New(registry.Options{})
	p, err := example.New()
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))
	host, err := hostconfig.NewHost(hostconfig.Options{Path: filepath.Join(dir, "config.yaml"), Registry: reg})
	require.NoError(t, err)
	w, err := othost.Setup(t.Context(), othost.Options{Registry: reg, Host: host, Version: "1.2.3"})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, w.Close(context.Background())) })
	require.NoError(t, host.Reload(t.Context()))
	return &fixture{reg: reg, host: host, w: w, dir: dir}
}

func writeConfig(t *testing.T, dir, config string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(config), 0o600))
}

// call invokes a tool and requires a protocol success.
func (f *fixture) call(t *testing.T, name, args string) (any, bool, string) {
	t.Helper()
	res, err := f.reg.Invoke(t.Context(), name, json.RawMessage(args))
	require.NoError(t, err, name)
	return res.Value, res.Success, res.Error
}

// yamlOf parses an ot tool's YAML text.
func yamlOf(t *testing.T, v any) map[string]any {
	t.Helper()
	s, ok := v.(string)
	require.True(t, ok, "ot tools answer text, got %T", v)
	var m map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(s), &m), s)
	return m
}

func TestSetup_LargeOutputStoredAndPaged(t *testing.T) {
	f := newFixture(t, "output: {max_inline_bytes: 1000, dir: out, ttl: 1h}\n")
	v, ok, _ := f.call(t, "lines", `{"count":5000}`)
	require.True(t, ok)
	st, isStored := v.(results.Stored)
	require.True(t, isStored, "a text over max_inline_bytes becomes a handle object, got %T", v)
	assert.Equal(t, 5000, st.TotalLines)
	assert.Equal(t, `ot.result(handle="`+st.Handle+`", offset=11, limit=100)`, st.Query)
	entries, err := os.ReadDir(filepath.Join(f.dir, "out"))
	require.NoError(t, err)
	assert.NotEmpty(t, entries, "stored under output.dir, relative to the configuration file")

	v, ok, msg := f.call(t, "ot.result", `{"handle":"`+st.Handle+`","offset":4999,"limit":5}`)
	require.True(t, ok, msg)
	page := yamlOf(t, v)
	assert.Equal(t, []any{"line 4999", "line 5000"}, page["lines"])
	assert.Equal(t, 5000, page["total_lines"])
	assert.Equal(t, false, page["has_more"])

	v, ok, _ = f.call(t, "lines", `{"count":3}`)
	require.True(t, ok)
	assert.Equal(t, "line 1\nline 2\nline 3", v, "a small text stays inline")
}

// A stored output damaged on disk (cut by hand) is a failure written for
// the model, naming the handle, not an internal error.
func TestSetup_DamagedOutputSaidToTheModel(t *testing.T) {
	f := newFixture(t, "output: {max_inline_bytes: 100, dir: out}\n")
	v, ok, _ := f.call(t, "lines", `{"count":100}`)
	require.True(t, ok)
	st := v.(results.Stored)
	require.NoError(t, os.Truncate(filepath.Join(f.dir, "out", st.Handle+".out"), 10))
	_, ok, msg := f.call(t, "ot.result", `{"handle":"`+st.Handle+`"}`)
	assert.False(t, ok)
	assert.Equal(t, "Error: Result '"+st.Handle+"' is damaged and cannot be read. Run the tool that produced it again.", msg)
}

// The server's log says what is damaged in a stored output (the cause),
// where the model is told only that it is.
func TestSetup_DamagedOutputLoggedWithItsCause(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, "output: {max_inline_bytes: 100, dir: out}\n")
	var logs bytes.Buffer
	reg, host := newBareWith(t, dir, registry.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	setUpQuiet(t, reg, host)
	res, err := reg.Invoke(t.Context(), "lines", json.RawMessage(`{"count":100}`))
	require.NoError(t, err)
	st := res.Value.(results.Stored)
	require.NoError(t, os.Truncate(filepath.Join(dir, "out", st.Handle+".out"), 10))
	res, err = reg.Invoke(t.Context(), "ot.result", json.RawMessage(`{"handle":"`+st.Handle+`"}`))
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Contains(t, logs.String(), "ot.result: a stored output is damaged")
	assert.Contains(t, logs.String(), "text of 10 bytes, the index says", "the cause is logged")
	assert.NotContains(t, res.Error, "the index says", "the model is not told the details")
}

func TestSetup_StructuredOutputsNeverStored(t *testing.T) {
	f := newFixture(t, "output: {max_inline_bytes: 10}\n")
	v, ok, _ := f.call(t, "text_stats", `{"text":"a long enough text to pass ten bytes of JSON"}`)
	require.True(t, ok)
	_, isStored := v.(results.Stored)
	assert.False(t, isStored, "an object tool's clients check its output schema: its value is returned whole")
}

func TestSetup_ResultErrorsUseTheSeedTexts(t *testing.T) {
	f := newFixture(t, "")
	_, ok, msg := f.call(t, "ot.result", `{"handle":"nonexistent"}`)
	assert.False(t, ok)
	assert.Equal(t, "Error: Handle 'nonexistent' not found. Use the handle exactly as the tool that stored the output returned it.", msg)

	f2 := newFixture(t, "output: {max_inline_bytes: 100}\n")
	v, _, _ := f2.call(t, "lines", `{"count":100}`)
	st := v.(results.Stored)
	_, ok, msg = f2.call(t, "ot.result", `{"handle":"`+st.Handle+`","search":"("}`)
	assert.False(t, ok)
	assert.Equal(t, "Error: search is not a valid regular expression: error parsing regexp: missing closing ): `(`", msg, "said once")

	// The store's other refusals are stated as they are, not as a bad
	// regular expression.
	_, ok, msg = f2.call(t, "ot.result", `{"handle":"`+st.Handle+`","search":"*"}`)
	assert.False(t, ok)
	assert.Equal(t, "Error: search is not a valid regular expression: error parsing regexp: missing argument to repetition operator: `*`", msg)
	_, ok, msg = f2.call(t, "ot.result", `{"handle":"`+st.Handle+`","search":"`+strings.Repeat("a", 70)+`","fuzzy":true}`)
	assert.False(t, ok)
	assert.Equal(t, "Error: a fuzzy search must be at most 64 characters, got 70", msg)
	_, ok, msg = f2.call(t, "ot.result", `{"handle":"`+st.Handle+`","search":"line","fuzzy":true,"offset":20000}`)
	assert.False(t, ok)
	assert.Equal(t, "Error: offset must be <= 10000 with fuzzy=true (a fuzzy search keeps the 10000 best matches), got 20000", msg)
}

// The store's refusals name the argument at fault in the error data (a
// REST client's details[].field): offset, search; an MCP client reads
// the seed's text alone, word for word.
func TestSetup_ResultRefusalsNameTheArgument(t *testing.T) {
	f := newFixture(t, "output: {max_inline_bytes: 100}\n")
	v, _, _ := f.call(t, "lines", `{"count":100}`)
	h := v.(results.Stored).Handle
	for _, tc := range []struct{ args, field, msg string }{
		{`{"handle":"` + h + `","search":"config","fuzzy":true,"offset":2000000000}`, "offset",
			"Error: offset must be <= 10000 with fuzzy=true (a fuzzy search keeps the 10000 best matches), got 2000000000"},
		{`{"handle":"` + h + `","search":"` + strings.Repeat("a", 65) + `","fuzzy":true}`, "search",
			"Error: a fuzzy search must be at most 64 characters, got 65"},
		{`{"handle":"` + h + `","search":"("}`, "search",
			"Error: search is not a valid regular expression: error parsing regexp: missing closing ): `(`"},
	} {
		res, err := f.reg.Invoke(t.Context(), "ot.result", json.RawMessage(tc.args))
		require.NoError(t, err)
		require.False(t, res.Success)
		assert.Equal(t, result.ValidationError, res.ErrorType)
		assert.Equal(t, tc.msg, res.Error)
		fes := toolmsg.FieldErrors(res.ErrorData)
		require.Len(t, fes, 1, tc.args)
		assert.Equal(t, tc.field, fes[0].Field, tc.args)
		assert.Equal(t, tc.msg, fes[0].Message)
		assert.Equal(t, tc.msg, toolmsg.FailureText(res), "MCP clients read the seed's text word for word")
	}
}

func TestSetup_OutputDirMovedOldHandlesStillServed(t *testing.T) {
	f := newFixture(t, "output: {max_inline_bytes: 100, dir: a}\n")
	v, _, _ := f.call(t, "lines", `{"count":50}`)
	old := v.(results.Stored)

	writeConfig(t, f.dir, "output: {max_inline_bytes: 100, dir: b}\n")
	require.NoError(t, f.host.Reload(t.Context()))
	v, _, _ = f.call(t, "lines", `{"count":60}`)
	fresh := v.(results.Stored)
	_, err := os.Stat(filepath.Join(f.dir, "b"))
	require.NoError(t, err, "new outputs go to the new directory")

	for _, h := range []results.Stored{old, fresh} {
		v, ok, msg := f.call(t, "ot.result", `{"handle":"`+h.Handle+`","offset":1,"limit":1}`)
		require.True(t, ok, msg)
		assert.Equal(t, []any{"line 1"}, yamlOf(t, v)["lines"])
	}
}

func TestSetup_SnippetsServedReloadedAndRemoved(t *testing.T) {
	f := newFixture(t, `aliases: {plus: add}
snippets:
  twice:
    description: Add a number to itself
    params: {n: {description: The number, default: 21}}
    body: |
      r = plus(a={{ n }}, b={{ n }})
`)
	v, ok, msg := f.call(t, "snippet.twice", `{}`)
	require.True(t, ok, msg)
	assert.EqualValues(t, 42, v)
	v, ok, msg = f.call(t, "snippet.twice", `{"n":5}`)
	require.True(t, ok, msg)
	assert.EqualValues(t, 10, v)

	v, ok, _ = f.call(t, "ot.snippets", `{"pattern":"twice","info":"full"}`)
	require.True(t, ok)
	assert.Contains(t, v, "r = plus(a=21, b=21)", "the full layout shows the body expanded with the defaults")
	assert.Contains(t, v, `n: {default: 21, description: "The number"}`, "a number default is shown as a number, as the seed's layout shows")

	// A body that does not parse: the reload is refused, naming the file
	// line, and the snippet in force keeps working.
	writeConfig(t, f.dir, `snippets:
  twice:
    body: |
      r = add(a=1, b=2)
      r = add(a=(, b=2)
`)
	err := f.host.Reload(t.Context())
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(f.dir, "config.yaml")+":5: snippets.twice.body: body line 2")
	v, ok, _ = f.call(t, "snippet.twice", `{}`)
	require.True(t, ok)
	assert.EqualValues(t, 42, v)

	writeConfig(t, f.dir, "{}\n") // an empty file is refused once a configuration is in force
	require.NoError(t, f.host.Reload(t.Context()))
	_, found := f.reg.Lookup("snippet.twice")
	assert.False(t, found, "a configuration without snippets removes the pack")
	for _, p := range f.reg.Packs() {
		assert.NotEqual(t, "snippet", p.Name)
	}
}

func TestSetup_StatsFollowTheConfiguration(t *testing.T) {
	f := newFixture(t, "")
	_, ok, msg := f.call(t, "ot.stats", `{}`)
	assert.False(t, ok)
	assert.Equal(t, "Error: Statistics collection is disabled. Enable it with stats: {enabled: true} in the configuration.", msg)

	writeConfig(t, f.dir, "stats: {enabled: true, dir: st, context_per_call: 10}\noutput: {reports_dir: rep}\n")
	require.NoError(t, f.host.Reload(t.Context()))
	for range 3 {
		_, ok, _ := f.call(t, "add", `{"a":1,"b":2}`)
		require.True(t, ok)
	}
	_, ok, _ = f.call(t, "add", `{"a":1}`)
	require.False(t, ok, "refused for its arguments")
	v, ok, msg := f.call(t, "ot.stats", `{"tool":"add","output":"r.html"}`)
	require.True(t, ok, msg)
	m := yamlOf(t, v)
	assert.Equal(t, 4, m["total_calls"], "a call refused for its arguments is counted")
	assert.Equal(t, 75.0, m["success_rate"])
	assert.Equal(t, 40, m["context_saved"])
	assert.Equal(t, filepath.Join(f.dir, "rep", "r.html"), m["html_report"])
	b, err := os.ReadFile(filepath.Join(f.dir, "rep", "r.html"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "<svg")

	res, err := f.reg.Invoke(t.Context(), "ot.stats", json.RawMessage(`{"output":"../escape.html"}`))
	require.NoError(t, err)
	assert.False(t, res.Success)
	assert.True(t, strings.HasPrefix(res.Error, "Error: Cannot write to '"), res.Error)
	assert.Equal(t, result.ValidationError, res.ErrorType, "a path outside the reports directory is the caller's mistake, not a write failure")
	// A name no report has (the call records beside the reports) is
	// refused likewise, and the file is left alone.
	res, err = f.reg.Invoke(t.Context(), "ot.stats", json.RawMessage(`{"output":"../config.yaml"}`))
	require.NoError(t, err)
	assert.Equal(t, result.ValidationError, res.ErrorType, res.Error)
	res, err = f.reg.Invoke(t.Context(), "ot.stats", json.RawMessage(`{"output":"notes.txt"}`))
	require.NoError(t, err)
	assert.Equal(t, result.ValidationError, res.ErrorType, res.Error)
	assert.Contains(t, res.Error, "ends in .html or .htm")

	// An explicit 0 estimates nothing saved; a key left out is the default.
	writeConfig(t, f.dir, "stats: {enabled: true, dir: st, context_per_call: 0}\n")
	require.NoError(t, f.host.Reload(t.Context()))
	v, ok, msg = f.call(t, "ot.stats", `{"tool":"add"}`)
	require.True(t, ok, msg)
	m = yamlOf(t, v)
	assert.Equal(t, 0, m["context_saved"], "context_per_call: 0 is none, not the default")
	assert.Equal(t, 4*hostconfig.DefaultTimePerCallMS, m["time_saved_ms"])
}

// stats.keep_days reaches the Recorder: a reload that sets it makes ot.stats
// leave out, and the flusher remove, the records older than that many days.
func TestSetup_StatsKeepDays(t *testing.T) {
	f := newFixture(t, "stats: {enabled: true, dir: st}\n")
	dir := filepath.Join(f.dir, "st")
	old := time.Now().UTC().Add(-10 * 24 * time.Hour)
	line := `{"time":"` + old.Format(time.RFC3339Nano) + `","tool":"add","duration_ns":5,"success":true,"bytes_in":1,"bytes_out":1}` + "\n"
	oldFile := filepath.Join(dir, "stats-"+old.Format("2006-01-02")+".jsonl")
	require.NoError(t, os.WriteFile(oldFile, []byte(line), 0o644))
	_, ok, _ := f.call(t, "add", `{"a":1,"b":2}`)
	require.True(t, ok)
	v, ok, msg := f.call(t, "ot.stats", `{}`)
	require.True(t, ok, msg)
	assert.Equal(t, 2, yamlOf(t, v)["total_calls"], "without keep_days every record counts")

	writeConfig(t, f.dir, "stats: {enabled: true, dir: st, keep_days: 7, flush_interval: 10ms}\n")
	require.NoError(t, f.host.Reload(t.Context()))
	v, ok, msg = f.call(t, "ot.stats", `{}`)
	require.True(t, ok, msg)
	assert.Equal(t, 2, yamlOf(t, v)["total_calls"], "the 10-day-old record is left out: add and the first ot.stats count")
	require.Eventually(t, func() bool {
		_, err := os.Stat(oldFile)
		return errors.Is(err, fs.ErrNotExist)
	}, 5*time.Second, 10*time.Millisecond, "the flusher removes its day file")
}

func TestSetup_ReloadToolAndHelp(t *testing.T) {
	f := newFixture(t, "aliases: {plus: add}\n")
	writeConfig(t, f.dir, "aliases: {plus: add, twice_plus: plus}\n")
	v, ok, msg := f.call(t, "ot.reload", `{}`)
	require.True(t, ok, msg)
	assert.NotEmpty(t, v)
	v, ok, _ = f.call(t, "twice_plus", `{"a":2,"b":3}`)
	require.True(t, ok)
	assert.EqualValues(t, 5, v)

	writeConfig(t, f.dir, "stats: {flush_interval: soon}\n")
	_, ok, msg = f.call(t, "ot.reload", `{}`)
	assert.False(t, ok)
	assert.Contains(t, msg, "config.yaml:1: stats.flush_interval")

	v, ok, _ = f.call(t, "ot.help", `{"query":"lnes"}`)
	require.True(t, ok)
	assert.Contains(t, v, "lines", "ot.help tolerates a typo")
}

func TestSetup_NotifyTopicsFromTheConfiguration(t *testing.T) {
	f := newFixture(t, "notify: {topics: [{pattern: \"notes*\", file: notes.yaml}]}\n")
	_, ok, msg := f.call(t, "ot.notify", `{"topic":"notes:work","message":"hello"}`)
	require.True(t, ok, msg)
	b, err := os.ReadFile(filepath.Join(f.dir, "notes.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "hello")
	v, ok, _ := f.call(t, "ot.notify", `{"topic":"other","message":"x"}`)
	require.True(t, ok)
	assert.Equal(t, "SKIP: no matching topic", v)
}

// notify.max_file_bytes reaches ot.notify: a message that would take the
// topic's file past it is refused and nothing is written.
func TestSetup_NotifyMaxFileBytesFromTheConfiguration(t *testing.T) {
	f := newFixture(t, "notify: {topics: [{pattern: \"notes*\", file: notes.yaml}], max_file_bytes: 200}\n")
	_, ok, msg := f.call(t, "ot.notify", `{"topic":"notes","message":"first"}`)
	require.True(t, ok, msg)
	before, err := os.ReadFile(filepath.Join(f.dir, "notes.yaml"))
	require.NoError(t, err)
	_, ok, msg = f.call(t, "ot.notify", `{"topic":"notes","message":"`+strings.Repeat("x", 300)+`"}`)
	require.False(t, ok)
	assert.Contains(t, msg, "200")
	after, err := os.ReadFile(filepath.Join(f.dir, "notes.yaml"))
	require.NoError(t, err)
	assert.Equal(t, before, after, "nothing written")
}

func TestSetup_CloseFlushesStats(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, "stats: {enabled: true, dir: st, flush_interval: 1h}\n")
	reg := registry.New(registry.Options{})
	p, err := example.New()
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))
	host, err := hostconfig.NewHost(hostconfig.Options{Path: filepath.Join(dir, "config.yaml"), Registry: reg})
	require.NoError(t, err)
	w, err := othost.Setup(t.Context(), othost.Options{Registry: reg, Host: host, Now: func() time.Time { return time.Now() }})
	require.NoError(t, err)
	require.NoError(t, host.Reload(t.Context()))
	_, err = reg.Invoke(t.Context(), "add", json.RawMessage(`{"a":1,"b":1}`))
	require.NoError(t, err)
	require.NoError(t, w.Close(t.Context()))
	require.NoError(t, w.Close(t.Context()), "Close is idempotent")
	files, err := filepath.Glob(filepath.Join(dir, "st", "*"))
	require.NoError(t, err)
	var all strings.Builder
	for _, name := range files {
		b, _ := os.ReadFile(name)
		all.Write(b)
	}
	assert.Contains(t, all.String(), `"add"`, "a buffered record is written at Close")
}

func TestSetup_RequiresRegistryAndHost(t *testing.T) {
	_, err := othost.Setup(t.Context(), othost.Options{})
	assert.ErrorContains(t, err, "Options.Registry and Options.Host are required")
}

// TestSetup_ReloadsUnderLoadFailNoCall alternates two configurations (the
// output directory, the snippet's default and the statistics switch
// change) while goroutines call a snippet, store large outputs and page
// them: no call fails because of a reload.
func TestSetup_ReloadsUnderLoadFailNoCall(t *testing.T) {
	conf := func(out string, n int, stats bool) string {
		return fmt.Sprintf(`snippets:
  twice:
    params: {n: {default: %d}}
    body: |
      r = add(a={{ n }}, b={{ n }})
stats: {enabled: %t, dir: st}
output: {max_inline_bytes: 200, dir: %s}
`, n, stats, out)
	}
	f := newFixture(t, conf("a", 1, true))
	ctx := t.Context()
	var stop atomic.Bool // not a cancelled context: calls in flight at the end must succeed too
	var wg sync.WaitGroup
	var calls, failures atomic.Int64
	var firstFailure atomic.Value
	fail := func(format string, a ...any) {
		failures.Add(1)
		firstFailure.CompareAndSwap(nil, fmt.Sprintf(format, a...))
	}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				res, err := f.reg.Invoke(ctx, "snippet.twice", json.RawMessage(`{}`))
				calls.Add(1)
				if err != nil || !res.Success || (fmt.Sprint(res.Value) != "2" && fmt.Sprint(res.Value) != "4") {
					fail("snippet.twice: %v %+v", err, res)
					continue
				}
				res, err = f.reg.Invoke(ctx, "lines", json.RawMessage(`{"count":100}`))
				st, ok := res.Value.(results.Stored)
				if err != nil || !ok {
					fail("lines: %v %+v", err, res)
					continue
				}
				res, err = f.reg.Invoke(ctx, "ot.result", json.RawMessage(`{"handle":"`+st.Handle+`","offset":100,"limit":1}`))
				calls.Add(2)
				if err != nil || !res.Success || !strings.Contains(fmt.Sprint(res.Value), "line 100") {
					fail("ot.result: %v %+v", err, res)
				}
			}
		}()
	}
	for i := range 20 {
		if i%2 == 0 {
			writeConfig(t, f.dir, conf("b", 2, false))
		} else {
			writeConfig(t, f.dir, conf("a", 1, true))
		}
		require.NoError(t, f.host.Reload(t.Context()))
	}
	stop.Store(true)
	wg.Wait()
	require.Zero(t, failures.Load(), "first failure: %v", firstFailure.Load())
	assert.Positive(t, calls.Load())
}

// Reloads that retarget an alias a snippet calls, and rename the
// parameters of a snippet another calls, fail no call: a snippet runs
// from first step to last on the configuration it was looked up in (its
// steps' tools and aliases, and theirs, held from that instant), and a
// snippet looked up while a reload is applied waits for the whole of it
// (never the new body with the old aliases).
func TestSetup_ReloadsRetargetingWhatSnippetsCallFailNoCall(t *testing.T) {
	x := `aliases: {al: echo}
snippets:
  s: {body: 'al(text="x")'}
  a: {params: {x: {}}, body: 'echo(text="{{ x }}")'}
  o: {body: 'snippet.a(x="1")'}
`
	y := `aliases: {al: add}
snippets:
  s: {body: 'al(a=1, b=1)'}
  a: {params: {y: {}}, body: 'echo(text="{{ y }}")'}
  o: {body: 'snippet.a(y="1")'}
`
	f := newFixture(t, x)
	ctx := t.Context()
	var stop atomic.Bool
	var wg sync.WaitGroup
	var calls, failures atomic.Int64
	var firstFailure atomic.Value
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := []string{"snippet.s", "snippet.o"}[i%2]
			for !stop.Load() {
				res, err := f.reg.Invoke(ctx, name, json.RawMessage(`{}`))
				calls.Add(1)
				if err != nil || !res.Success {
					failures.Add(1)
					firstFailure.CompareAndSwap(nil, fmt.Sprintf("%s: %v %s", name, err, res.Error))
				}
			}
		}()
	}
	for i := range 60 {
		writeConfig(t, f.dir, []string{y, x}[i%2])
		require.NoError(t, f.host.Reload(t.Context()))
	}
	stop.Store(true)
	wg.Wait()
	require.Zero(t, failures.Load(), "first failure: %v", firstFailure.Load())
	assert.Positive(t, calls.Load())
}

// newBare is a registry with the example pack and a host on dir's
// config.yaml, without Setup.
func newBare(t *testing.T, dir string) (*registry.Registry, *hostconfig.Host) {
	t.Helper()
	return newBareWith(t, dir, registry.Options{})
}

// newBareWith is newBare with a registry made with opts.
func newBareWith(t *testing.T, dir string, opts registry.Options) (*registry.Registry, *hostconfig.Host) {
	t.Helper()
	reg := registry.New(opts)
	p, err := example.New()
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))
	host, err := hostconfig.NewHost(hostconfig.Options{Path: filepath.Join(dir, "config.yaml"), Registry: reg})
	require.NoError(t, err)
	return reg, host
}

// A snippet's steps read each other's whole values: only what reaches the
// outermost caller is stored, however large a step's result.
func TestSetup_SnippetStepsSeeWholeValues(t *testing.T) {
	f := newFixture(t, `output: {max_inline_bytes: 1000, dir: out}
snippets:
  count:
    body: |
      r = lines(count=500)
      text_stats(text=r)
  many:
    body: |
      lines(count=500)
`)
	v, ok, msg := f.call(t, "snippet.count", `{}`)
	require.True(t, ok, msg)
	assert.Equal(t, example.TextStats{Characters: 4391, Words: 1000, Lines: 500}, v, "the step got the 500 lines, not a handle object")
	v, ok, msg = f.call(t, "snippet.many", `{}`)
	require.True(t, ok, msg)
	_, stored := v.(results.Stored)
	assert.True(t, stored, "the snippet's own large value is stored for its caller")
}

// A parameter written `default: null` has a default, as the configuration
// says (and ot.snippets shows): it may be left out, and its placeholder
// then expands to null.
func TestSetup_SnippetNullDefaultIsOptional(t *testing.T) {
	f := newFixture(t, `snippets:
  say:
    params:
      text: {description: what to say}
      suffix: {default: null, description: optional}
    body: |
      echo(text="{{ text }} {{ suffix }}")
`)
	v, ok, msg := f.call(t, "snippet.say", `{"text":"hi"}`)
	require.True(t, ok, msg)
	assert.Equal(t, "hi null", v)
	v, ok, msg = f.call(t, "snippet.say", `{"text":"hi","suffix":"there"}`)
	require.True(t, ok, msg)
	assert.Equal(t, "hi there", v)
	tl, found := f.reg.Lookup("snippet.say")
	require.True(t, found)
	assert.JSONEq(t, `{"type":"object","properties":{"text":{"description":"what to say"},"suffix":{"description":"optional","default":null}},"required":["text"],"additionalProperties":false}`,
		string(tl.InputSchema))
}

// A reload that changes the output settings while a call runs: the call's
// large output is stored (by the store in force when it returns), never
// returned inline because the store it started with was replaced.
func TestSetup_ReloadDuringACallStoresItsOutput(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, "output: {max_inline_bytes: 1000, dir: out, ttl: 1s}\n")
	reg, host := newBare(t, dir)
	started, release := make(chan struct{}), make(chan struct{})
	type none struct{}
	slow, err := registry.Func("slow", func(ctx context.Context, _ none) (result.Result[string], error) {
		close(started)
		<-release
		return result.Ok(strings.Repeat("x\n", 10_000)), nil
	}, registry.ToolOptions{Description: "A slow tool with a large output."})
	require.NoError(t, err)
	require.NoError(t, reg.Add(slow))
	w, err := othost.Setup(t.Context(), othost.Options{Registry: reg, Host: host})
	require.NoError(t, err)
	defer w.Close(context.Background())
	require.NoError(t, host.Reload(t.Context()))

	done := make(chan result.Result[any], 1)
	go func() {
		r, _ := reg.Invoke(context.Background(), "slow", nil)
		done <- r
	}()
	<-started
	writeConfig(t, dir, "output: {max_inline_bytes: 2000, dir: out2, ttl: 1s}\n")
	require.NoError(t, host.Reload(t.Context()))
	close(release)
	r := <-done
	st, stored := r.Value.(results.Stored)
	require.True(t, stored, "got %T inline", r.Value)
	_, err = os.Stat(filepath.Join(dir, "out2"))
	require.NoError(t, err, "stored with the settings in force when the call returned")
	res, err := reg.Invoke(t.Context(), "ot.result", json.RawMessage(`{"handle":"`+st.Handle+`","limit":1}`))
	require.NoError(t, err)
	assert.True(t, res.Success, res.Error)
}

// A first configuration refused by a later step leaves nothing of it in
// force: statistics stay off.
func TestSetup_RefusedFirstConfigurationLeavesStatsOff(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, "stats: {enabled: true, dir: stats}\n")
	reg, host := newBare(t, dir)
	w, err := othost.Setup(t.Context(), othost.Options{Registry: reg, Host: host})
	require.NoError(t, err)
	defer w.Close(context.Background())
	host.OnApply("later", func(context.Context, *hostconfig.Config, *hostconfig.Config) (hostconfig.Step, error) {
		return hostconfig.Step{Apply: func(context.Context) error { return errors.New("refused by a later step") }}, nil
	})
	require.Error(t, host.Reload(t.Context()))
	require.Nil(t, host.Config())
	_, err = reg.Invoke(t.Context(), "add", json.RawMessage(`{"a":1,"b":2}`))
	require.NoError(t, err)
	_, err = w.Recorder().Summary(t.Context(), stats.Query{})
	assert.ErrorIs(t, err, stats.ErrDisabled)
}

// Setup after the first Reload would miss the configuration in force: it
// is refused, saying so.
func TestSetup_AfterTheFirstReloadRefused(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, "")
	reg, host := newBare(t, dir)
	require.NoError(t, host.Reload(t.Context()))
	_, err := othost.Setup(t.Context(), othost.Options{Registry: reg, Host: host})
	assert.ErrorContains(t, err, "Setup must run before the first Host.Reload")
}

// A snippet body that does not parse is located inside the file: at the
// body's line for a block scalar, at the key for a quoted body.
func TestSetup_SnippetErrorsLocatedInTheFile(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"    body: |\n      r = add(a=1, b=2)\n      add(a=r, b=\n", "config.yaml:5: snippets.bad.body: body line "},
		{"    body: |\n      r = add(a=(, b=2)\n", "config.yaml:4: snippets.bad.body: body line 1"},
		{"    body: \"r = add(a=1, b=2)\\nadd(a=r, b=\"\n", "config.yaml:3: snippets.bad.body: body line "},
		// A folded body's lines are not the file's (blank lines fold): at the key.
		{"    body: >\n      r = add(a=1, b=2)\n\n      s = add(a=r, b=3)\n\n      t = add(a=s, b=)\n", "config.yaml:3: snippets.bad.body: body line 3"},
	} {
		dir := t.TempDir()
		config := "snippets:\n  bad:\n" + tc.body
		writeConfig(t, dir, config)
		reg, host := newBare(t, dir)
		w, err := othost.Setup(t.Context(), othost.Options{Registry: reg, Host: host})
		require.NoError(t, err)
		err = host.Reload(t.Context())
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want, "%q", tc.body)
		require.NoError(t, w.Close(context.Background()))
	}
}

// A snippet whose body comes from an included file, while a later file
// overrides its description, has a body error located in the file the
// body is in.
func TestSetup_SnippetErrorInAnIncludedBodyNamesItsFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "more.yaml"), []byte(`# one
# two
# three
# four
snippets:
  x:
    description: base
    body: |
      a = add(a=1, b=2)
      b = add(a=a, b=)
`), 0o600))
	host := setUpWith(t, dir, "include: [more.yaml]\nsnippets:\n  x:\n    description: override\n")
	err := host.Reload(t.Context())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "more.yaml:10: snippets.x.body: body line 2")
	assert.NotContains(t, err.Error(), "config.yaml")
}

// setUpWith writes config in dir and wires the ot pack to a bare host of
// it (closed when the test ends); the configuration is not loaded yet.
// setUpQuiet wires the ot pack to reg and host, logging nothing, and
// applies the first configuration.
func setUpQuiet(t *testing.T, reg *registry.Registry, host *hostconfig.Host) {
	t.Helper()
	w, err := othost.Setup(t.Context(), othost.Options{Registry: reg, Host: host, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close(context.Background()) })
	require.NoError(t, host.Reload(t.Context()))
}

func setUpWith(t *testing.T, dir, config string) *hostconfig.Host {
	t.Helper()
	writeConfig(t, dir, config)
	reg, host := newBare(t, dir)
	w, err := othost.Setup(t.Context(), othost.Options{Registry: reg, Host: host})
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close(context.Background()) })
	return host
}

// One snippet that does not parse is the only problem reported: aliases
// to the other snippets' tools are not reported as well.
func TestSetup_BrokenSnippetAloneReported(t *testing.T) {
	dir := t.TempDir()
	host := setUpWith(t, dir, "aliases: {rec: snippet.good}\nsnippets:\n  good: {body: 'add(a=1, b=1)'}\n  bad: {body: 'add(a=(, b=2)'}\n")
	err := host.Reload(t.Context())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "snippets.bad.body")
	assert.NotContains(t, err.Error(), "aliases.rec", "the alias's target is a snippet the file declares")
	assert.NotContains(t, err.Error(), "snippets.good")
}

// Every problem of a snippet's body is reported at once, each at its own
// file line, as Load reports every problem of the files.
func TestSetup_EveryProblemOfASnippetBodyReported(t *testing.T) {
	dir := t.TempDir()
	host := setUpWith(t, dir, "snippets:\n  s:\n    body: |\n      add(a={{ m }}, b=1)\n      add(a=1 b=2)\n")
	err := host.Reload(t.Context())
	require.Error(t, err)
	probs := hostconfig.Problems(err)
	require.Len(t, probs, 2, "%v", err)
	assert.Equal(t, 4, probs[0].Line)
	assert.Contains(t, probs[0].Message, "body line 1, column 10: unknown parameter \"m\"")
	assert.Equal(t, 5, probs[1].Line)
	assert.Contains(t, probs[1].Message, "body line 2, column")
	for _, p := range probs {
		assert.Equal(t, "snippets.s.body", p.Key)
		assert.ErrorIs(t, p, hostconfig.ErrInvalid)
	}
}

// setUpWarned wires the ot pack to a bare host of the configuration in
// dir, with a server "far" of the host's own beside the file's, its
// warnings logged to the returned buffer (closed when the test ends); the
// configuration is not loaded yet.
func setUpWarned(t *testing.T, dir string) (*registry.Registry, *hostconfig.Host, *othost.Wiring, *bytes.Buffer) {
	t.Helper()
	reg, host := newBare(t, dir)
	logs := &bytes.Buffer{}
	w, err := othost.Setup(t.Context(), othost.Options{Registry: reg, Host: host,
		Servers: func() []ot.ServerStatus { return []ot.ServerStatus{{Name: "far"}} },
		Logger:  slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, w.Close(context.Background())) })
	return reg, host, w, logs
}

// Instructions for a pack that is not served are shown nowhere, so a
// misspelt pack name is logged as a warning naming file, line and key
// (when the host says its packs are in, then at every reload); a served
// pack, a configured server and the snippet pack are not.
func TestSetup_InstructionsForAnUnservedPackWarned(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `snippets:
  one: {body: 'add(a=1, b=1)'}
servers:
  kid: {url: "http://127.0.0.1:1/mcp"}
instructions:
  example: "Use add for sums."
  snippet: "Snippets run several tools."
  kid: "The child server."
  far: "A server of the host's own (a -proxy file)."
  exmaple: "A typo."
`)
	_, host, w, logs := setUpWarned(t, dir)
	require.NoError(t, host.Reload(t.Context()))
	assert.Empty(t, logs.String(), "the first configuration waits for WarnUnserved")
	w.WarnUnserved()

	out := logs.String()
	assert.Equal(t, 1, strings.Count(out, "level=WARN"), out)
	assert.Contains(t, out, `config.yaml:10: instructions.exmaple: no pack \"exmaple\" is served`)
	assert.Contains(t, out, "packs: example, far, kid, ot, snippet")
	for _, served := range []string{"instructions.example:", "instructions.snippet", "instructions.kid", "instructions.far"} {
		assert.NotContains(t, out, served)
	}

	// A reload checks by itself.
	logs.Reset()
	require.NoError(t, host.Reload(t.Context()))
	assert.Equal(t, 1, strings.Count(logs.String(), "instructions.exmaple"), logs.String())

	// Fixed: the next reload warns no more.
	logs.Reset()
	writeConfig(t, dir, "instructions: {example: \"Use add for sums.\"}\n")
	require.NoError(t, host.Reload(t.Context()))
	assert.Empty(t, logs.String())
}

// A snippet calling a tool nobody serves (a misspelt name) is logged as a
// warning naming file, line and key and the tools, once the host's packs
// are in and at every reload; tools, aliases (the registry's and the
// file's), the file's snippets and the tools of configured servers (which
// may still be connecting) are not.
func TestSetup_SnippetCallingAnUnservedToolWarned(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `aliases: {plus: add}
snippets:
  fine:
    body: |
      a = add(a=1, b=2)
      plus(a=1, b=1)
      snippet.other()
      kid.whatever(x=1)
      far.tool()
      ot.version()
  other: {body: 'add(a=1, b=1)'}
  typo:
    description: Misspelt
    body: |
      ad(a=1, b=2)
      nosuch.tool()
      ad(a=2, b=2)
servers:
  kid: {url: "http://127.0.0.1:1/mcp"}
`)
	reg, host, w, logs := setUpWarned(t, dir)
	require.NoError(t, host.Reload(t.Context()), "a warning, not a refusal: the tool may come later")
	assert.Empty(t, logs.String(), "the first configuration waits for WarnUnserved")
	w.WarnUnserved()

	// Each at the file line of the step calling it (its first call).
	out := logs.String()
	assert.Equal(t, 2, strings.Count(out, "level=WARN"), out)
	assert.Contains(t, out, `config.yaml:15: snippets.typo.body: body line 1: calls a tool that is not served: \"ad\"; its calls fail`)
	assert.Contains(t, out, `config.yaml:16: snippets.typo.body: body line 2: calls a tool that is not served: \"nosuch.tool\"`)
	assert.NotContains(t, out, "snippets.fine")
	assert.NotContains(t, out, "snippets.other")

	// A reload checks by itself; a disabled tool is still served.
	logs.Reset()
	require.NoError(t, reg.SetEnabled("add", false))
	require.NoError(t, host.Reload(t.Context()))
	assert.Equal(t, 2, strings.Count(logs.String(), "level=WARN"), logs.String())
	assert.Contains(t, logs.String(), "snippets.typo.body")

	// Fixed: the next reload warns no more.
	logs.Reset()
	writeConfig(t, dir, "snippets: {typo: {body: 'add(a=1, b=2)'}}\n")
	require.NoError(t, host.Reload(t.Context()))
	assert.Empty(t, logs.String())

	// An alias the reload removes no longer counts (the registry still has
	// it while the warning is made); a server named with a dot is matched
	// whole; a connected server (its pack registered) must have the tool.
	up := &registry.Pack{Name: "my.up", Description: "A connected server."}
	require.NoError(t, registry.AddFunc(up, "my.up.echo", func(context.Context, struct{}) (result.Result[string], error) { return result.Ok("x"), nil }, registry.ToolOptions{Doc: "Echoes."}))
	require.NoError(t, reg.AddPack(up))
	writeConfig(t, dir, "aliases: {plus: add}\nsnippets: {s: {body: 'plus(a=1, b=2)'}}\n")
	require.NoError(t, host.Reload(t.Context()))
	logs.Reset()
	writeConfig(t, dir, `snippets:
  s: {body: 'plus(a=1, b=2)'}
  d: {body: 'my.srv.add(a=1)'}
  u: {body: 'my.up.nosuch()'}
  e: {body: 'my.up.echo()'}
servers:
  my.srv: {url: "http://127.0.0.1:1/mcp"}
  my.up: {url: "http://127.0.0.1:1/mcp"}
`)
	require.NoError(t, host.Reload(t.Context()))
	out = logs.String()
	assert.Contains(t, out, `config.yaml:2: snippets.s.body: body line 1: calls a tool that is not served: \"plus\"`, "a quoted body: at its key")
	assert.Contains(t, out, `config.yaml:4: snippets.u.body: body line 1: calls a tool that is not served: \"my.up.nosuch\"`)
	assert.NotContains(t, out, "snippets.d.body", "a server with a dot in its name, still connecting")
	assert.NotContains(t, out, "snippets.e.body")
}

// The warning for a tool that is not served names the line of the step
// calling it — past a call whose arguments span lines, strings holding
// calls and parentheses, and comments —, not the line of the body's key.
func TestSetup_UnservedToolWarnedAtItsStepsLine(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `snippets:
  s:
    body: |
      # nosuch() in a comment
      r = add(
        a=1,
        b=2)
      echo(text="missing( here ) \" x = missing(")
      t = missing(x={"k": [1, 2]})
      missing(y=1)
      other.gone()
`)
	_, host, w, logs := setUpWarned(t, dir)
	require.NoError(t, host.Reload(t.Context()))
	w.WarnUnserved()
	out := logs.String()
	assert.Equal(t, 2, strings.Count(out, "level=WARN"), out)
	assert.Contains(t, out, `config.yaml:9: snippets.s.body: body line 6: calls a tool that is not served: \"missing\"`)
	assert.Contains(t, out, `config.yaml:11: snippets.s.body: body line 8: calls a tool that is not served: \"other.gone\"`)
}

// An output directory that cannot be made is named by its key, output.dir,
// at the file's line.
func TestSetup_OutputDirThatCannotBeMade(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(blocker, []byte("x"), 0o600))
	host := setUpWith(t, dir, "output:\n  dir: "+filepath.Join(blocker, "results")+"\n")
	err := host.Reload(t.Context())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "config.yaml:2: output.dir: cannot open the output store: ")
	assert.NotContains(t, err.Error(), "results: results")
	assert.ErrorIs(t, err, syscall.ENOTDIR, "the cause stays reachable")
	var pe *fs.PathError
	assert.ErrorAs(t, err, &pe)

	// The same for the statistics directory.
	host = setUpWith(t, dir, "stats:\n  enabled: true\n  dir: "+filepath.Join(blocker, "stats")+"\n")
	err = host.Reload(t.Context())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "config.yaml:3: stats.dir: ")
	assert.ErrorIs(t, err, syscall.ENOTDIR)
}

// Setup refuses a Host built on another registry (its configurations
// would go where the ot pack is not), and Close on the nil Wiring of a
// failed Setup does nothing.
func TestSetup_HostOfAnotherRegistryRefused(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, "aliases: {plus: add}\n")
	reg, _ := newBare(t, dir)
	_, other := newBare(t, dir)
	w, err := othost.Setup(t.Context(), othost.Options{Registry: reg, Host: other})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "another registry")
	assert.NoError(t, w.Close(context.Background()))
}

// ot.config, ot.aliases and ot.snippets list aliases and snippets in the
// order the configuration writes them, as the seed's examples show
// (ws before alias_f, foon before barn), not sorted by name.
func TestSetup_ListingsKeepTheConfigurationsOrder(t *testing.T) {
	f := newFixture(t, `aliases: {ws: echo, alias_f: add}
snippets:
  foon: {description: Get foo() for n items, body: "add(a=1, b=2)"}
  barn: {description: Get bar() for n items, body: "add(a=1, b=2)"}
`)
	v, ok, msg := f.call(t, "ot.config", `{}`)
	require.True(t, ok, msg)
	assert.Equal(t, "aliases: {ws: echo, alias_f: add}\nsnippets: {foon: {description: \"Get foo() for n items\"}, barn: {description: \"Get bar() for n items\"}}\nservers: []\n", v)
	v, ok, msg = f.call(t, "ot.aliases", `{}`)
	require.True(t, ok, msg)
	assert.Equal(t, "[ws -> echo, alias_f -> add]\n", v)
	v, ok, msg = f.call(t, "ot.snippets", `{"info":"list"}`)
	require.True(t, ok, msg)
	assert.Equal(t, "[foon, barn]\n", v)

	// A reload shows the new file's order.
	writeConfig(t, f.dir, "aliases: {zz: add, ws: echo, aa: add}\n")
	_, ok, msg = f.call(t, "ot.reload", `{}`)
	require.True(t, ok, msg)
	v, _, _ = f.call(t, "ot.aliases", `{"info":"list"}`)
	assert.Equal(t, "[zz, ws, aa]\n", v)
}

// A snippet whose tool name is too long once the registry's prefix is
// added is refused when the configuration is checked, at the snippet's
// file and line, and the configuration in force stays: it was refused
// only when the pack was registered, without a location.
func TestSetup_SnippetNameTooLongUnderThePrefixRefusedAtItsLine(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, "snippets:\n  ok: {body: \"add(a=1, b=2)\"}\n")
	reg, host := newBareWith(t, dir, registry.Options{Prefix: new(strings.Repeat("p", 60)), Logger: slog.New(slog.DiscardHandler)})
	setUpQuiet(t, reg, host)

	long := strings.Repeat("s", 64)
	writeConfig(t, dir, "snippets:\n  ok: {body: \"add(a=1, b=2)\"}\n  "+long+": {body: \"add(a=1, b=2)\"}\n")
	err := host.Reload(t.Context())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "config.yaml:3: snippets."+long+": its tool snippet."+long+" cannot be served")
	assert.Contains(t, err.Error(), "bytes long; expected at most 128")
	_, _, ok := reg.Resolve(strings.Repeat("p", 60) + "_snippet.ok")
	assert.True(t, ok, "the configuration in force stays")
}

// Every search ot.result's schema accepts (1,000 characters) is one the
// store takes: 600 two-byte characters are 1,200 bytes, refused by a
// 1,024-byte cap while the schema said yes.
func TestSetup_ResultSearchAsLongAsTheSchemaAllows(t *testing.T) {
	f := newFixture(t, "output: {max_inline_bytes: 100, dir: out}\n")
	v, ok, _ := f.call(t, "lines", `{"count":100}`)
	require.True(t, ok)
	st := v.(results.Stored)
	_, ok, msg := f.call(t, "ot.result", `{"handle":"`+st.Handle+`","search":"`+strings.Repeat("é", 1000)+`"}`)
	assert.True(t, ok, msg)
	_, ok, msg = f.call(t, "ot.result", `{"handle":"`+st.Handle+`","search":"`+strings.Repeat("é", 1001)+`"}`)
	assert.False(t, ok)
	assert.Contains(t, msg, "search")
}

// A reload that leaves the snippets as they were leaves their pack in
// force: clients are not told the tool list changed (the pack was built
// again and replaced on every reload); one that changes a snippet does.
func TestSetup_UnchangedSnippetsNotReplacedByAReload(t *testing.T) {
	f := newFixture(t, "aliases: {plus: add}\nsnippets:\n  twice: {body: \"add(a=1, b=1)\"}\n")
	var changes atomic.Int32
	cancel := f.reg.Subscribe(func(c registry.Change) {
		for _, tl := range append(c.Added, c.Removed...) {
			if strings.HasPrefix(tl.Name, "snippet.") {
				changes.Add(1)
				return
			}
		}
	})
	defer cancel()
	writeConfig(t, f.dir, "aliases: {plus: add, sum: add}\nsnippets:\n  twice: {body: \"add(a=1, b=1)\"}\n")
	require.NoError(t, f.host.Reload(t.Context()))
	assert.Zero(t, changes.Load(), "snippets unchanged: their pack stays")
	v, ok, msg := f.call(t, "snippet.twice", `{}`)
	require.True(t, ok, msg)
	assert.EqualValues(t, 2, v)

	writeConfig(t, f.dir, "aliases: {plus: add, sum: add}\nsnippets:\n  twice: {body: \"add(a=2, b=2)\"}\n")
	require.NoError(t, f.host.Reload(t.Context()))
	assert.NotZero(t, changes.Load(), "a changed snippet is served anew")
	v, _, _ = f.call(t, "snippet.twice", `{}`)
	assert.EqualValues(t, 4, v)
}

// StoredSchema says which tools' large outputs come back as a handle
// object — text tools, not ot.result and not tools with another output
// schema (their clients check structured values) — and that object is what
// comes back, under a prefix too.
func TestWiring_StoredSchemaForTheToolsWhoseOutputsAreStored(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, "output: {max_inline_bytes: 100}\n")
	reg, host := newBareWith(t, dir, registry.Options{Prefix: new("tp"), Logger: slog.New(slog.DiscardHandler)})
	w, err := othost.Setup(t.Context(), othost.Options{Registry: reg, Host: host, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close(context.Background()) })
	require.NoError(t, host.Reload(t.Context()))

	tool := func(name string) *registry.Tool {
		tl, ok := reg.Lookup(name)
		require.True(t, ok, name)
		return tl
	}
	assert.Nil(t, w.StoredSchema(tool("tp_ot.result")))
	assert.Nil(t, w.StoredSchema(tool("tp_add")), "a number: its MCP clients check structured values")
	schema := w.StoredSchema(tool("tp_lines"))
	require.NotNil(t, schema)

	res, err := reg.Invoke(t.Context(), "tp_lines", json.RawMessage(`{"count":100}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	got, err := json.Marshal(res.Value)
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	var doc any
	require.NoError(t, json.Unmarshal(schema, &doc))
	require.NoError(t, c.AddResource("stored.json", doc))
	sch, err := c.Compile("stored.json")
	require.NoError(t, err)
	var v any
	require.NoError(t, json.Unmarshal(got, &v))
	assert.NoError(t, sch.Validate(v), "%s", got)
}

// A snippet parameter's example: in the configuration is the value the
// seed's "Example with defaults" shows (ot.snippets(info="full") prints
// the seed's layout word for word) and the snippet tool's example call
// uses, typed as the file writes it: example: 3 is the number 3, "3" the
// string. A required parameter without one is shown as the placeholder
// <name>, unquoted in the tool's example: the snippet takes any JSON
// value there, and "<name>" said a string where add wants an integer. A
// reload changing only an example changes the tool's example.
func TestSetup_SnippetParamExampleShown(t *testing.T) {
	const config = `snippets:
  brv_research:
    description: Search web and extract structured findings
    params:
      topic: {description: "Topic to research", example: Python}
      count: {default: 5, description: "Number of sources"}
    body: |
      results = brave.search(query="{{ topic }}", count={{ count }})
      llm.transform(input=results, prompt="Extract key findings")
  req:
    description: Add two numbers
    params:
      n: {description: The number, example: 3}
      q: {description: A quoted one, example: "3"}
      m: {description: One without an example}
      d: {description: An optional one, default: 2}
    body: |
      r = add(a={{ n }}, b={{ m }})
      echo(text="{{ q }}")
`
	f := newFixture(t, config)
	v, ok, msg := f.call(t, "ot.snippets", `{"pattern":"brv_research","info":"full"}`)
	require.True(t, ok, msg)
	assert.Equal(t, `name: brv_research
description: Search web and extract structured findings
params:
  topic: {description: "Topic to research"}
  count: {default: 5, description: "Number of sources"}
body: |
  results = brave.search(query="{{ topic }}", count={{ count }})
  llm.transform(input=results, prompt="Extract key findings")

# Example with defaults:
# $brv_research topic=Python
# Expands to:
results = brave.search(query="Python", count=5)
llm.transform(input=results, prompt="Extract key findings")
`, v)

	v, ok, msg = f.call(t, "ot.snippets", `{"pattern":"req","info":"full"}`)
	require.True(t, ok, msg)
	assert.Contains(t, v, "\n# Example with defaults:\n# $req n=3 q=\"3\" m=<m>\n# Expands to:\nr = add(a=3, b=\"<m>\")\necho(text=\"3\")\n")

	example := func() string {
		t.Helper()
		v, ok, msg := f.call(t, "ot.tools", `{"pattern":"snippet.req","info":"full"}`)
		require.True(t, ok, msg)
		var entries []map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(v.(string)), &entries), v)
		require.Len(t, entries, 1)
		return entries[0]["example"].(string)
	}
	assert.Equal(t, `snippet.req(m=<m>, n=3, q="3", d=2)`, example(), "in the signature's order: required first")

	// The example runs as shown once the placeholder has a value.
	v, ok, msg = f.call(t, "snippet.req", `{"n":3,"q":"3","m":4}`)
	require.True(t, ok, msg)
	assert.Equal(t, "3", v)

	// Only the examples change: the snippets' definitions are the same.
	writeConfig(t, f.dir, strings.NewReplacer("example: 3}", "example: 40}", "One without an example}", "One without an example, example: 2}").Replace(config))
	require.NoError(t, f.host.Reload(t.Context()))
	assert.Equal(t, `snippet.req(m=2, n=40, q="3", d=2)`, example(), "a reload changing only examples")
}

// A reload refused because its output or statistics directory cannot be
// made changes nothing observable: the steps before the stores' (the
// servers', the snippets') are not applied and undone, so MCP clients
// are not told the tool list changed and no server is reconnected. The
// stores are opened while the configuration is checked, before any step
// takes effect; one opened for a refused configuration is closed.
func TestSetup_ReloadRefusedForItsStoresChangesNothing(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(blocker, []byte("x"), 0o600))
	writeConfig(t, dir, "snippets:\n  aa: {body: \"add(a=1, b=1)\"}\noutput: {max_inline_bytes: 100, dir: out}\n")
	reg, host := newBare(t, dir)
	// A stand-in for the servers' hook, added before Setup's as a host
	// adds it: each application reconnects.
	var serverEvents []string
	host.OnApply("servers", func(_ context.Context, old, cfg *hostconfig.Config) (hostconfig.Step, error) {
		if old != nil && fmt.Sprint(old.Servers) == fmt.Sprint(cfg.Servers) {
			return hostconfig.Step{}, nil
		}
		return hostconfig.Step{
			Apply: func(context.Context) error { serverEvents = append(serverEvents, "connect"); return nil },
			Undo:  func(context.Context) error { serverEvents = append(serverEvents, "reconnect the previous"); return nil },
		}, nil
	})
	setUpQuiet(t, reg, host)
	serverEvents = nil
	var changes atomic.Int32
	cancel := reg.Subscribe(func(registry.Change) { changes.Add(1) })
	defer cancel()

	for _, broken := range []string{
		"output: {dir: " + filepath.Join(blocker, "y") + "}\n",
		"stats: {enabled: true, dir: " + filepath.Join(blocker, "y") + "}\n",
		// The output store of this one is opened, then closed unused.
		"stats: {enabled: true, dir: " + filepath.Join(blocker, "y") + "}\noutput: {max_inline_bytes: 100, dir: other}\n",
	} {
		writeConfig(t, dir, "snippets:\n  bb: {body: \"add(a=2, b=2)\"}\nservers: {remote: {url: \"https://remote.test/mcp\"}}\n"+broken)
		err := host.Reload(t.Context())
		require.Error(t, err, broken)
		assert.ErrorIs(t, err, syscall.ENOTDIR, broken)
		assert.Zero(t, changes.Load(), "%s: clients are not told the tool list changed", broken)
		assert.Empty(t, serverEvents, "%s: no server is connected nor reconnected", broken)
		_, _, ok := reg.Resolve("snippet.aa")
		assert.True(t, ok, "%s: the snippets in force stay", broken)
	}
	res, err := reg.Invoke(t.Context(), "lines", json.RawMessage(`{"count":100}`))
	require.NoError(t, err)
	require.IsType(t, results.Stored{}, res.Value)
	entries, err := os.ReadDir(filepath.Join(dir, "out"))
	require.NoError(t, err)
	assert.NotEmpty(t, entries, "outputs are stored by the store in force")
	entries, _ = os.ReadDir(filepath.Join(dir, "other"))
	assert.Empty(t, entries, "the store opened for a refused configuration is not used")
}

// ot.reload refused because stats.dsn or output.dsn names a database that
// cannot be reached answers unavailable, to be retried once the database
// is back — the file is not at fault —, keeping the text that names file,
// line and key; a problem of the file itself, alone or beside an
// unreachable database, stays config_error.
func TestSetup_ReloadWithADatabaseAwayIsUnavailable(t *testing.T) {
	f := newFixture(t, "aliases: {plus: add}\n")
	t.Setenv("AWAY_DSN", "postgres://u:hunter2-secret@127.0.0.1:1/none?connect_timeout=2")
	for _, key := range []string{"stats", "output"} {
		config := key + ": {enabled: true, dsn: \"${AWAY_DSN}\"}\n"
		if key == "output" {
			config = "output: {dsn: \"${AWAY_DSN}\"}\n"
		}
		writeConfig(t, f.dir, config)
		res, err := f.reg.Invoke(t.Context(), "ot.reload", json.RawMessage(`{}`))
		require.NoError(t, err)
		assert.False(t, res.Success, key)
		assert.Equal(t, result.Unavailable, res.ErrorType, key)
		assert.Contains(t, res.Error, "config.yaml:1: "+key+".dsn: ", key)
		assert.NotContains(t, res.Error, "hunter2-secret", key)
		assert.Contains(t, res.Instruction, "Retry ot.reload", key)
	}

	writeConfig(t, f.dir, "aliases: {plus: nosuch}\nstats: {enabled: true, dsn: \"${AWAY_DSN}\"}\n")
	res, err := f.reg.Invoke(t.Context(), "ot.reload", json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.Equal(t, ot.ErrTypeConfig, res.ErrorType, "the file has an error too")
	assert.Contains(t, res.Error, "aliases.plus")
	assert.Contains(t, res.Instruction, "do not retry until it is fixed")

	writeConfig(t, f.dir, "stats: {enabled: true, flush_interval: soon}\n")
	res, err = f.reg.Invoke(t.Context(), "ot.reload", json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.Equal(t, ot.ErrTypeConfig, res.ErrorType)
}

// A reload cut short by its context (a shutdown arriving during a SIGHUP
// reload) is not a configuration error: it names no key and says what
// stopped it; the configuration in force stays.
func TestSetup_ReloadCutShortNamesNoKey(t *testing.T) {
	f := newFixture(t, "output: {max_inline_bytes: 100, dir: out}\n")
	writeConfig(t, f.dir, "output: {max_inline_bytes: 100, dir: elsewhere}\n")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := f.host.Reload(ctx)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.NotContains(t, err.Error(), "output.dir")
	assert.NotContains(t, err.Error(), "config.yaml:")
	v, ok, _ := f.call(t, "lines", `{"count":50}`)
	require.True(t, ok)
	_, isStored := v.(results.Stored)
	assert.True(t, isStored, "the store in force still stores")
	_, err = os.Stat(filepath.Join(f.dir, "elsewhere"))
	assert.ErrorIs(t, err, os.ErrNotExist, "the new directory was never made")
}
