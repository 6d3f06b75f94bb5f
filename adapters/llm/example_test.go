package llm_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/toolpack-go/toolpack/adapters/llm"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

type weatherArgs struct {
	City string `json:"city" validate:"required,max=100" description:"City name."`
	Days int    `json:"days,omitempty" validate:"omitempty,gte=1,lte=7" default:"1" description:"Days of forecast."`
}

func exampleRegistry() *registry.Registry {
	reg := registry.New(registry.Options{Logger: slog.New(slog.DiscardHandler)})
	tool, err := registry.Func("weather.forecast", func(_ context.Context, a weatherArgs) (result.Result[string], error) {
		return result.Ok(fmt.Sprintf("%s: sunny for %d day(s)", a.City, max(a.Days, 1))), nil
	}, registry.ToolOptions{Doc: "Forecasts the weather."})
	if err != nil {
		panic(err)
	}
	if err := reg.Add(tool); err != nil {
		panic(err)
	}
	return reg
}

// Export writes the tools in a provider's format; the JSON unmarshals into
// the provider SDK's tool type. Issues says what was changed to fit.
func ExampleExport() {
	defs, err := llm.Export(exampleRegistry(), llm.OpenAIChat, llm.Options{Strict: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range defs.Tools {
		fmt.Println(d.Tool, "is sent as", d.Name)
	}
	for _, is := range defs.Issues {
		fmt.Println(is)
	}
	// Output:
	// weather.forecast is sent as weather_forecast
	// weather.forecast: adapted: named "weather_forecast": openai-chat does not take the name as it is
	// weather.forecast /properties/city maxLength: dropped: strict mode does not take maxLength; the registry still checks it
	// weather.forecast /properties/city minLength: dropped: strict mode does not take minLength; the registry still checks it
	// weather.forecast /properties/days default: adapted: strict mode takes no default; it is stated in the description
	// weather.forecast /properties/days required: adapted: optional: sent as required and nullable, and a null is read as absent
}

// A Dispatcher runs the model's tool calls through the registry and answers
// with the provider's tool-result messages. A strict-mode null for an
// optional field is read as absent; a bad call gets every problem listed.
func ExampleDispatcher() {
	reg := exampleRegistry()
	defs, _ := llm.Export(reg, llm.OpenAIChat, llm.Options{Strict: true})
	d := llm.NewDispatcher(reg, defs, llm.DispatchOptions{})
	outs, err := d.Dispatch(context.Background(), []llm.ToolCall{
		{ID: "call_1", Name: "weather_forecast", Arguments: `{"city":"Oslo","days":null}`},
		{ID: "call_2", Name: "weather_forecast", Arguments: `{"city":"","days":9}`},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs, _ := d.Messages(outs)
	for _, m := range msgs {
		fmt.Println(string(m))
	}
	// Output:
	// {"content":"Oslo: sunny for 1 day(s)","role":"tool","tool_call_id":"call_1"}
	// {"content":"invalid arguments (2 problems); correct every one and call again:\n- city: is required and must not be empty [required]\n- days: must be at most 7 [lte]","role":"tool","tool_call_id":"call_2"}
}
