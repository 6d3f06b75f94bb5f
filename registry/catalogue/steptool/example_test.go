package steptool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/steptool"
	"github.com/toolpack-go/toolpack/result"
)

type cityArgs struct {
	City string `json:"city" validate:"required"`
}

type coords struct {
	Lat float64 `json:"lat"`
	Lon float64 `json:"lon"`
}

type weatherArgs struct {
	Lat  float64 `json:"lat"`
	Lon  float64 `json:"lon"`
	Unit string  `json:"unit" validate:"required,oneof=C F"`
}

// A steps tool decoded from its PUT body chains two registry tools: the
// first step's coordinates feed the second, the left-out unit takes its
// default, and the tool answers the last step's value.
func Example() {
	reg := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	geo, _ := registry.Func("geo.lookup", func(ctx context.Context, a cityArgs) (result.Result[coords], error) {
		return result.Ok(coords{Lat: 48.85, Lon: 2.35}), nil
	}, registry.ToolOptions{Doc: "Coordinates of a city."})
	weather, _ := registry.Func("weather.now", func(ctx context.Context, a weatherArgs) (result.Result[string], error) {
		return result.Ok(fmt.Sprintf("21 °%s at %.2f,%.2f", a.Unit, a.Lat, a.Lon)), nil
	}, registry.ToolOptions{Doc: "Current temperature."})
	if err := reg.Add(geo, weather); err != nil {
		fmt.Println(err)
		return
	}

	spec, err := catalogue.DecodeToolSpec(strings.NewReader(`{
	  "displayName": "Weather in a city", "isEnabled": true, "type": "steps",
	  "argSchema": {"type": "object",
	                "properties": {"city": {"type": "string"}, "unit": {"type": "string", "default": "C"}},
	                "required": ["city"]},
	  "outputSchema": {"type": "string"},
	  "stepsImpl": {"body": "r = geo.lookup(city={{ city }})\nweather.now(lat=r.lat, lon=r.lon, unit=\"{{ unit }}\")"}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	tool := catalogue.Tool{Slug: "weather", Version: "1", ToolSpec: spec}

	inv, err := steptool.New(steptool.Options{Tools: reg})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := inv.Invoke(context.Background(), tool, json.RawMessage(`{"city":"Paris"}`))
	fmt.Println(res.Value, err)
	// Output: 21 °C at 48.85,2.35 <nil>
}

// A body naming an argument the schema does not declare is refused at PUT,
// with the line and column.
func Example_invalidBody() {
	_, err := catalogue.DecodeToolSpec(strings.NewReader(`{
	  "displayName": "Broken", "isEnabled": true, "type": "steps",
	  "argSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
	  "stepsImpl": {"body": "r = geo.lookup(city={{ town }})"}}`))
	fmt.Println(err)
	// Output: catalogue: invalid input: stepsImpl.body: line 1, column 24: unknown parameter "town" in {{ town }}; parameters: city
}
