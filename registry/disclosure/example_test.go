package disclosure_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/disclosure"
	"github.com/toolpack-go/toolpack/result"
)

// An agent sees three meta-tools instead of the whole registry: it
// searches, reads one tool's schema, and calls it through call_tool — the
// full registry's own pipeline, so bad arguments get the same answer they
// would get if the tool were listed.
func ExampleNew() {
	type cityArgs struct {
		City string `json:"city" validate:"required,max=100" description:"City name."`
	}
	full := registry.New(registry.Options{Logger: quiet})
	for _, name := range []string{"forecast", "alerts"} {
		tool, err := registry.Func("weather."+name, func(_ context.Context, a cityArgs) (result.Result[string], error) {
			return result.Ok(name + " for " + a.City), nil
		}, registry.ToolOptions{Doc: "Weather " + name + " for a city."})
		if err != nil {
			fmt.Println(err)
			return
		}
		if err := full.Add(tool); err != nil {
			fmt.Println(err)
			return
		}
	}

	d, err := disclosure.New(full, disclosure.Options{Logger: quiet})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	front := d.Registry() // serve this one over MCP, REST or to a model
	for _, t := range front.List() {
		fmt.Println("listed:", t.Name)
	}

	ctx := context.Background()
	found, _ := front.Invoke(ctx, disclosure.SearchTools, json.RawMessage(`{"query":"forcast"}`))
	fmt.Println("found:", found.Value.(disclosure.SearchResult).Tools[0].Name)

	call := func(args string) {
		res, err := front.Invoke(ctx, disclosure.CallTool, json.RawMessage(args))
		if err != nil {
			fmt.Println(err)
			return
		}
		if res.Success {
			fmt.Println("value:", res.Value)
			return
		}
		fmt.Println("failed:", res.ErrorType)
	}
	call(`{"name":"weather.forecast","arguments":{"city":"Oslo"}}`)
	call(`{"name":"weather.forecast","arguments":{}}`)
	// Output:
	// listed: call_tool
	// listed: describe_tool
	// listed: search_tools
	// found: weather.forecast
	// value: forecast for Oslo
	// failed: validation_error
}
