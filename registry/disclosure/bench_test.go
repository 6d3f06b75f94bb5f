package disclosure_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/disclosure"
	"github.com/toolpack-go/toolpack/result"
)

var (
	benchVerbs  = strings.Fields("get list create update delete search find fetch send sync check run start stop")
	benchDomain = strings.Fields(`weather forecast radar map route geocode web page crawl file folder user account login token
		invoice payment refund order customer ticket issue comment email inbox calendar event meeting translate summary
		image video audio transcript database table schema backup metric alert deploy build release branch commit`)
)

type benchArgs struct {
	Query string `json:"query" validate:"required,max=200" description:"What to look for."`
	Limit int    `json:"limit,omitempty" validate:"omitempty,gte=1,lte=50" description:"Most results."`
	Since string `json:"since,omitempty" validate:"omitempty,max=40" description:"Only items after this date."`
}

// bigRegistry registers n tools named pack.verb_noun_noun with generated
// one-paragraph descriptions, in 100 packs.
func bigRegistry(b testing.TB, n int) *registry.Registry {
	b.Helper()
	rng := rand.New(rand.NewPCG(7, 9))
	reg := registry.New(registry.Options{Logger: quiet})
	packs := map[string]*registry.Pack{}
	for i := range n {
		v, a, c := benchVerbs[rng.IntN(len(benchVerbs))], benchDomain[rng.IntN(len(benchDomain))], benchDomain[rng.IntN(len(benchDomain))]
		pn := fmt.Sprintf("p%02d", i%100)
		p := packs[pn]
		if p == nil {
			p = &registry.Pack{Name: pn, Description: "Pack " + pn}
			packs[pn] = p
		}
		words := make([]string, 10+rng.IntN(10))
		for j := range words {
			words[j] = benchDomain[rng.IntN(len(benchDomain))]
		}
		doc := fmt.Sprintf("%s the %s of a %s. Works with %s.", strings.ToUpper(v[:1])+v[1:], a, c, strings.Join(words, ", "))
		if err := registry.AddFunc(p, fmt.Sprintf("%s_%s_%s_%d", v, a, c, i), func(_ context.Context, x benchArgs) (result.Result[string], error) {
			return result.Ok(x.Query), nil
		}, registry.ToolOptions{Doc: doc}); err != nil {
			b.Fatal(err)
		}
	}
	for _, p := range packs {
		if err := reg.AddPack(p); err != nil {
			b.Fatal(err)
		}
	}
	return reg
}

// listBytes is the size of what tools/list carries for reg's tools: name,
// title, description, schemas and annotations of each, as JSON.
func listBytes(b testing.TB, reg *registry.Registry) int {
	b.Helper()
	type entry struct {
		Name         string               `json:"name"`
		Title        string               `json:"title,omitempty"`
		Description  string               `json:"description"`
		InputSchema  json.RawMessage      `json:"inputSchema"`
		OutputSchema json.RawMessage      `json:"outputSchema,omitempty"`
		Annotations  registry.Annotations `json:"annotations"`
	}
	var list []entry
	for _, t := range reg.List() {
		list = append(list, entry{t.Name, t.Title, t.Description, t.InputSchema, t.OutputSchema, t.Annotations})
	}
	out, err := json.Marshal(map[string]any{"tools": list})
	if err != nil {
		b.Fatal(err)
	}
	return len(out)
}

// BenchmarkSearchTools10k: search_tools through the Disclosure registry's
// pipeline over 10,000 tools, with queries of whole words, prefixes,
// typos, two words and terms of one and two letters; reports p50 and p99
// per call. It also reports what an agent receives before its first real
// call — the meta-tools' listing, one search and one description — as a
// share of the full listing ("first-call-%").
func BenchmarkSearchTools10k(b *testing.B) {
	full := bigRegistry(b, 10_000)
	front := open(b, full).Registry()
	ctx := context.Background()
	queries := []string{"weather", "forecast radar", "invoic", "refnud", "send email", "calendar", "get_weather", "transcript summary", "backup database", "deploy", "to", "x"}
	raws := make([]json.RawMessage, len(queries))
	for i, q := range queries {
		raws[i], _ = json.Marshal(map[string]any{"query": q})
	}
	// Warm the index once (it is built on first use after a change).
	if _, err := front.Invoke(ctx, "search_tools", raws[0]); err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	i := 0
	for b.Loop() {
		t0 := time.Now()
		r, err := front.Invoke(ctx, "search_tools", raws[i%len(raws)])
		lat = append(lat, time.Since(t0))
		if err != nil || !r.Success {
			b.Fatal(err, r)
		}
		i++
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")

	fullBytes := listBytes(b, full)
	search, err := front.Invoke(ctx, "search_tools", raws[0])
	if err != nil {
		b.Fatal(err)
	}
	sb, _ := json.Marshal(search)
	first := search.Value.(disclosure.SearchResult).Tools[0].Name
	desc, err := front.Invoke(ctx, "describe_tool", json.RawMessage(fmt.Sprintf(`{"name":%q}`, first)))
	if err != nil {
		b.Fatal(err)
	}
	db, _ := json.Marshal(desc)
	agent := listBytes(b, front) + len(sb) + len(db)
	b.ReportMetric(100*float64(agent)/float64(fullBytes), "first-call-%")
	b.ReportMetric(float64(fullBytes), "full-list-bytes")
}

// BenchmarkSearchAfterChange10k: a search made some time after a change of
// a 10,000-tool registry (a tool switched off or on), and one made at once.
// The index is rebuilt in the background once changes settle (20 ms), so
// a search that comes after the rebuild (~0.1 s here) finds it ready; one
// that comes sooner builds it, or waits for the rest of the build under
// way. Reports the p50 and the worst search time of each ("later"
// searches 250 ms after the change).
func BenchmarkSearchAfterChange10k(b *testing.B) {
	full := bigRegistry(b, 10_000)
	front := open(b, full).Registry()
	ctx := context.Background()
	raw, _ := json.Marshal(map[string]any{"query": "weather forecast"})
	search := func() time.Duration {
		t0 := time.Now()
		if _, err := front.Invoke(ctx, "search_tools", raw); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	search()
	name := full.List()[7].Name
	var atOnce, later []time.Duration
	on := false
	for b.Loop() {
		for _, wait := range []time.Duration{0, 250 * time.Millisecond} {
			if err := full.SetEnabled(name, on); err != nil {
				b.Fatal(err)
			}
			on = !on
			time.Sleep(wait)
			if wait == 0 {
				atOnce = append(atOnce, search())
			} else {
				later = append(later, search())
			}
			time.Sleep(250 * time.Millisecond) // let the rebuild finish before the next change
		}
	}
	for _, s := range []struct {
		name string
		d    []time.Duration
	}{{"at-once", atOnce}, {"later", later}} {
		slices.Sort(s.d)
		b.ReportMetric(float64(s.d[len(s.d)/2].Microseconds()), s.name+"-p50-µs")
		b.ReportMetric(float64(s.d[len(s.d)-1].Microseconds()), s.name+"-max-µs")
	}
}
