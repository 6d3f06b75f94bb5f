package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/internal/benchtool"
	"github.com/toolpack-go/toolpack/result"
)

// scaleArgs is the one 4-field argument type of the scale catalogue.
type scaleArgs struct {
	Query string   `json:"query" validate:"required,min=1,max=200" description:"What to search for."`
	Limit int      `json:"limit" validate:"required,min=1,max=50" description:"Maximum number of hits."`
	Mode  string   `json:"mode" validate:"required,oneof=fast exact" description:"Search mode."`
	Tags  []string `json:"tags" validate:"max=10,dive,min=1,max=20" description:"Tags to filter by."`
}

type scaleOut struct {
	Tool string   `json:"tool"`
	Hits int      `json:"hits"`
	Tags []string `json:"tags,omitempty"`
}

func scaleTool(tb testing.TB, name string) *Tool {
	t, err := Func(name, func(_ context.Context, a scaleArgs) (result.Result[scaleOut], error) {
		return result.Ok(scaleOut{Tool: name, Hits: a.Limit}), nil
	}, ToolOptions{Title: "Tool " + name, Doc: "Searches catalogue " + name + "."})
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// buildAndAdd builds n Func tools named prefix_00000… and adds them to a
// new registry in one call.
func buildAndAdd(tb testing.TB, prefix string, n int) *Registry {
	r := New(Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	tools := make([]*Tool, n)
	for i := range tools {
		tools[i] = scaleTool(tb, fmt.Sprintf("%s_%05d", prefix, i))
	}
	if err := r.Add(tools...); err != nil {
		tb.Fatal(err)
	}
	return r
}

// BenchmarkAdd10k builds 10,000 Func tools and adds them to one registry,
// against the same 10,000 tools built and added as 1,000 registries of
// 10, one of each per iteration in the same loop. "ratio" (medians) ≈ 1
// means a tool costs the same whatever the registry's size;
// "ns/tool" and "B/tool" are the 10,000-tool build's.
func BenchmarkAdd10k(b *testing.B) {
	var m0, m1 runtime.MemStats
	var alloc uint64
	var total time.Duration
	n := 0
	mLarge, _ := benchtool.Interleave(b, func() {
		runtime.ReadMemStats(&m0)
		t0 := time.Now()
		buildAndAdd(b, "tool", 10_000)
		total += time.Since(t0)
		runtime.ReadMemStats(&m1)
		alloc += m1.TotalAlloc - m0.TotalAlloc
		n++
	}, func() {
		for range 1000 {
			buildAndAdd(b, "tool", 10)
		}
	})
	b.ReportMetric(float64(mLarge.Nanoseconds())/10_000, "ns/tool")
	b.ReportMetric(float64(alloc)/float64(n)/10_000, "B/tool")
}

// BenchmarkAddRemoveOne adds and removes one tool at run time, with a
// subscriber, on registries of 10 and of 10,000 tools, one of each per
// iteration in the same loop. "ratio" (medians, 10,000 over 10) ≈ 1
// means the cost does not grow with the number registered.
func BenchmarkAddRemoveOne(b *testing.B) {
	stack := func(n int) func() {
		r := buildAndAdd(b, "tool", n)
		changes := 0
		r.Subscribe(func(Change) { changes++ })
		extra := scaleTool(b, "extra_tool")
		return func() {
			if err := r.Add(extra); err != nil {
				b.Fatal(err)
			}
			if err := r.Remove("extra_tool"); err != nil {
				b.Fatal(err)
			}
		}
	}
	small, large := stack(10), stack(10_000)
	b.ReportAllocs()
	mLarge, mSmall := benchtool.Interleave(b, large, small)
	b.ReportMetric(float64(mLarge.Nanoseconds()), "10k-ns")
	b.ReportMetric(float64(mSmall.Nanoseconds()), "10-ns")
}

// TestSchemaSet_RemembersOnlyValidContents: within one Add call a schema
// already found valid is not checked again, by content (a different slice
// with the same bytes counts; the same slice with new bytes does not),
// and an invalid schema is never remembered.
func TestSchemaSet_RemembersOnlyValidContents(t *testing.T) {
	var c schemaSet
	a := json.RawMessage(`{"type":"object","properties":{}}`)
	b := json.RawMessage(`{"type":"object"}`)
	require.NoError(t, c.check(a))
	require.NoError(t, c.check(b))
	require.NoError(t, c.check(append(json.RawMessage(nil), a...)), "same content, other slice")
	require.NoError(t, c.check(a), "an earlier schema, not the last")

	bad := json.RawMessage(`{"type":"array"}`)
	require.Error(t, c.check(bad))
	require.Error(t, c.check(bad), "an invalid schema is not remembered")

	buf := []byte(`{"type":"object"}`)
	require.NoError(t, c.check(buf))
	copy(buf, `{"type":"objekt"}`)
	require.Error(t, c.check(buf), "a reused buffer with new bytes is checked again")
}

// TestAdd_EveryToolOfOneCallIsChecked: remembering checked schemas never
// lets a bad schema through, wherever it sits in the call.
func TestAdd_EveryToolOfOneCallIsChecked(t *testing.T) {
	r := New(Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	good := scaleTool(t, "good")
	bad := *scaleTool(t, "bad")
	bad.InputSchema = json.RawMessage(`{"type":"string"}`)
	err := r.Add(good, scaleTool(t, "good2"), &bad, scaleTool(t, "good3"))
	require.ErrorIs(t, err, ErrInvalidTool)
	assert.Contains(t, err.Error(), `tool "bad"`)
	assert.Empty(t, r.List(), "all or nothing")
}

// TestFunc_OutputSchemaSharedPerType: the output schema Func declares for
// a result type is computed once and is the same for every tool of that
// type as computing it afresh.
func TestFunc_OutputSchemaSharedPerType(t *testing.T) {
	t1, t2 := scaleTool(t, "one"), scaleTool(t, "two")
	want, err := args.OutputSchemaOf(reflect.TypeFor[scaleOut]())
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(t1.OutputSchema))
	assert.Equal(t, t1.OutputSchema, t2.OutputSchema)
	assert.Contains(t, string(t1.OutputSchema), `"required":["tool","hits"]`, "an omitempty slice may be absent")
}
