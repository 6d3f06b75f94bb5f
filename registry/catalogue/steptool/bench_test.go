package steptool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolpack-go/toolpack/internal/benchtool"
	"github.com/toolpack-go/toolpack/result"
)

// BenchmarkThreeStepToolVsThreeDirectCalls compares one call of a 3-step
// catalogue steps tool (placeholders, a default, references feeding each
// step, an output schema) with the same three calls made by hand through
// the same registry (arguments built with encoding/json, values read back
// as the steps read them), interleaved; "ratio" is the steps tool over
// the direct calls: the cost of the sequence machinery.
func BenchmarkThreeStepToolVsThreeDirectCalls(b *testing.B) {
	h := newHost(b)
	h.add(b, "geo.lookup", ok(place{Name: "Paris", Lat: 48.85, Lon: 2.35}))
	h.add(b, "weather.now", ok(map[string]any{"temp": 21, "unit": "C"}))
	h.add(b, "fmt.temp", ok("21 °C in Paris"))
	h.calls = nil
	tool := stepsTool(b, "weather", weatherSchema, weatherBody)
	tool.OutputSchema = json.RawMessage(`{"type":"string"}`)
	args := json.RawMessage(`{"city":"Paris"}`)
	ctx := context.Background()

	direct := func() {
		r1, err := h.reg.Invoke(ctx, "geo.lookup", json.RawMessage(`{"city":"Paris"}`))
		must(b, r1, err)
		var p place
		raw, _ := json.Marshal(r1.Value)
		if err := json.Unmarshal(raw, &p); err != nil {
			b.Fatal(err)
		}
		a2, _ := json.Marshal(map[string]any{"lat": p.Lat, "lon": p.Lon, "unit": "C"})
		r2, err := h.reg.Invoke(ctx, "weather.now", a2)
		must(b, r2, err)
		w := r2.Value.(map[string]any)
		a3, _ := json.Marshal(map[string]any{"value": w["temp"], "unit": w["unit"], "place": p.Name})
		r3, err := h.reg.Invoke(ctx, "fmt.temp", a3)
		must(b, r3, err)
	}
	benchtool.Interleave(b,
		func() {
			res, err := h.inv.Invoke(ctx, tool, args)
			must(b, res, err)
			h.calls = h.calls[:0]
		},
		func() {
			direct()
			h.calls = h.calls[:0]
		})
}

func must(b *testing.B, r result.Result[any], err error) {
	if err != nil || !r.Success {
		b.Fatal(err, r.Error)
	}
}
