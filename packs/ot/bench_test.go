package ot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/toolpack-go/toolpack/packs/ot"
	"github.com/toolpack-go/toolpack/registry"
)

// benchRegistry has n tools in n/10 packs, with descriptions, and the ot pack.
func benchRegistry(b *testing.B, n int) (*registry.Registry, []*registry.Tool) {
	reg := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	for p := range n / 10 {
		pk := &registry.Pack{Name: fmt.Sprintf("pack%d", p), Description: "A pack of tools."}
		for i := range 10 {
			pk.Tools = append(pk.Tools, &registry.Tool{
				Name:        fmt.Sprintf("pack%d.tool_%d", p, i),
				Description: fmt.Sprintf("Does thing %d of pack %d: fetches, searches and summarises documents, one per call.", i, p),
				Handler:     rawHandler,
			})
		}
		if err := reg.AddPack(pk); err != nil {
			b.Fatal(err)
		}
	}
	pk, err := ot.New(ot.Config{Registry: reg})
	if err != nil {
		b.Fatal(err)
	}
	if err := reg.AddPack(pk); err != nil {
		b.Fatal(err)
	}
	return reg, reg.List()
}

// baselineTools is the floor of ot.tools at info min: the same entries as
// plain maps, marshalled by the YAML library with its default styles.
func baselineTools(tools []*registry.Tool) error {
	entries := make([]map[string]string, len(tools))
	for i, t := range tools {
		entries[i] = map[string]string{"name": t.Name, "description": t.Description}
	}
	_, err := yaml.Marshal(entries)
	return err
}

// BenchmarkToolsVsMarshal: ot.tools (1,000 tools, info min) through
// Registry.Invoke against yaml.Marshal of the same entries, interleaved;
// x-baseline-time is the ratio of their times.
func BenchmarkToolsVsMarshal(b *testing.B) {
	reg, tools := benchRegistry(b, 1000)
	ctx := context.Background()
	raw := json.RawMessage(`{}`)
	var tOT, tBase time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		res, err := reg.Invoke(ctx, "ot.tools", raw)
		if err != nil || !res.Success {
			b.Fatal(err, res.Error)
		}
		t1 := time.Now()
		if err := baselineTools(tools); err != nil {
			b.Fatal(err)
		}
		tBase += time.Since(t1)
		tOT += t1.Sub(t0)
	}
	b.ReportMetric(float64(tOT)/float64(tBase), "x-baseline-time")
}

// BenchmarkHelpSearchVsSubstring: ot.help's ranked, typo-tolerant search
// (DefaultRank over 1,000 tools, 100 packs and the YAML answer) against a
// case-insensitive substring scan of the same names and descriptions,
// interleaved.
func BenchmarkHelpSearchVsSubstring(b *testing.B) {
	reg, tools := benchRegistry(b, 1000)
	ctx := context.Background()
	raw := json.RawMessage(`{"query":"sumarises","info":"list"}`)
	var tOT, tBase time.Duration
	n := 0
	for b.Loop() {
		t0 := time.Now()
		res, err := reg.Invoke(ctx, "ot.help", raw)
		if err != nil || !res.Success {
			b.Fatal(err, res.Error)
		}
		t1 := time.Now()
		for _, t := range tools {
			if strings.Contains(strings.ToLower(t.Name), "summarises") || strings.Contains(strings.ToLower(t.Description), "summarises") {
				n++
			}
		}
		tBase += time.Since(t1)
		tOT += t1.Sub(t0)
	}
	if n == 0 {
		b.Fatal("baseline found nothing")
	}
	b.ReportMetric(float64(tOT)/float64(tBase), "x-baseline-time")
}
