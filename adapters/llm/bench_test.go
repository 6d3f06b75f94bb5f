package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/toolpack-go/toolpack/adapters/llm"
	"github.com/toolpack-go/toolpack/internal/benchtool"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

const benchArgs = `{"query":"golang","limit":10,"mode":"fast","threshold":null,"tags":["a","b"]}`

func benchRegistry(b *testing.B) *registry.Registry {
	b.Helper()
	reg := registry.New(registry.Options{Logger: quiet})
	tool, err := registry.Func("search", func(_ context.Context, a benchtool.SearchArgs) (result.Result[benchtool.SearchOut], error) {
		return result.Ok(benchtool.Search(a)), nil
	}, registry.ToolOptions{Doc: "Searches."})
	if err != nil {
		b.Fatal(err)
	}
	if err := reg.Add(tool); err != nil {
		b.Fatal(err)
	}
	return reg
}

// BenchmarkDispatch: one model tool call through a Dispatcher (strict-mode
// reading, the result's text and the provider message) against the same
// call through Registry.Invoke alone, interleaved; "ratio" is the median
// ratio of their times.
func BenchmarkDispatch(b *testing.B) {
	reg := benchRegistry(b)
	for _, tc := range []struct {
		name    string
		strict  bool
		lenient bool
	}{{"plain", false, false}, {"strict", true, false}, {"strict+lenient", true, true}} {
		b.Run(tc.name, func(b *testing.B) {
			defs, err := llm.Export(reg, llm.OpenAIChat, llm.Options{Strict: tc.strict})
			if err != nil {
				b.Fatal(err)
			}
			d := llm.NewDispatcher(reg, defs, llm.DispatchOptions{Lenient: tc.lenient})
			ctx := context.Background()
			calls := []llm.ToolCall{{ID: "call_1", Name: "search", Arguments: benchArgs}}
			raw := json.RawMessage(`{"query":"golang","limit":10,"mode":"fast","tags":["a","b"]}`)
			b.ReportAllocs()
			benchtool.Interleave(b, func() {
				outs, err := d.Dispatch(ctx, calls)
				if err != nil || outs[0].IsError() {
					b.Fatal(err, outs[0].Text())
				}
				if _, err := d.Messages(outs); err != nil {
					b.Fatal(err)
				}
			}, func() {
				r, err := reg.Invoke(ctx, "search", raw)
				if err != nil || !r.Success {
					b.Fatal(err, r)
				}
			})
		})
	}
}

// BenchmarkExport: exporting a registry of n tools in each format.
func BenchmarkExport(b *testing.B) {
	for _, n := range []int{100, 1000} {
		reg := registry.New(registry.Options{Logger: quiet})
		for i := range n {
			tool, err := registry.Func(fmt.Sprintf("pack.search_%d", i), func(_ context.Context, a benchtool.SearchArgs) (result.Result[benchtool.SearchOut], error) {
				return result.Ok(benchtool.Search(a)), nil
			}, registry.ToolOptions{Doc: "Searches."})
			if err != nil {
				b.Fatal(err)
			}
			if err := reg.Add(tool); err != nil {
				b.Fatal(err)
			}
		}
		for _, tc := range []struct {
			f      llm.Format
			strict bool
		}{{llm.OpenAIChat, false}, {llm.OpenAIChat, true}, {llm.Anthropic, false}, {llm.Gemini, false}} {
			b.Run(fmt.Sprintf("%d/%s/strict=%v", n, tc.f, tc.strict), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := llm.Export(reg, tc.f, llm.Options{Strict: tc.strict}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
