package registry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

type addArgs struct {
	A int `json:"a" validate:"gte=-1000,lte=1000" description:"First addend."`
	B int `json:"b" validate:"gte=-1000,lte=1000" description:"Second addend."`
}

func add(ctx context.Context, a addArgs) (result.Result[int], error) {
	return result.Ok(a.A + a.B), nil
}

// quiet is a logger that drops everything, so that examples print only
// their results.
var quiet = slog.New(slog.DiscardHandler)

func printJSON(res result.Result[any], err error) {
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	b, _ := json.Marshal(res)
	fmt.Println(string(b))
}

// Invoke runs the whole pipeline: a success, a validation failure naming the
// field, and an unknown tool (a protocol error).
func ExampleRegistry_Invoke() {
	tool, err := registry.Func("add", add, registry.ToolOptions{Doc: "Adds two integers."})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := registry.New(registry.Options{Prefix: new("calc"), Logger: quiet})
	if err := r.Add(tool); err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	printJSON(r.Invoke(ctx, "calc_add", json.RawMessage(`{"a":2,"b":3}`)))
	res, err := r.Invoke(ctx, "calc_add", json.RawMessage(`{"a":2,"b":5000}`))
	fmt.Println(err, res.Success, res.ErrorType)
	_, err = r.Invoke(ctx, "add", nil)
	fmt.Println(err)
	// Output:
	// {"success":true,"value":5}
	// <nil> false validation_error
	// registry: unknown tool: "add"
}

// Declare adds a function to the default collection and returns it
// unchanged; Collect hands the tools over once.
func ExampleDeclare() {
	shout := registry.Declare("shout", func(ctx context.Context, a struct {
		Text string `json:"text" validate:"required,max=50" description:"What to shout."`
	}) (result.Result[string], error) {
		return result.Ok(a.Text + "!"), nil
	}, registry.ToolOptions{Doc: "Shouts the text."})

	// The function is still an ordinary function.
	direct, _ := shout(context.Background(), struct {
		Text string `json:"text" validate:"required,max=50" description:"What to shout."`
	}{Text: "hi"})
	fmt.Println(direct.Value)

	tools, err := registry.Collect()
	fmt.Println(len(tools), err)
	again, _ := registry.Collect()
	fmt.Println(len(again))

	r := registry.New(registry.Options{Prefix: new(""), Logger: quiet})
	for _, t := range tools {
		if err := r.Add(t); err != nil {
			fmt.Println(err)
		}
	}
	printJSON(r.Invoke(context.Background(), "shout", json.RawMessage(`{"text":"hello"}`)))
	// Output:
	// hi!
	// 1 <nil>
	// 0
	// {"success":true,"value":"hello!"}
}

type area struct {
	Width  int `json:"width"`
	Height int `json:"height"`
	Area   int `json:"area"`
}

type rectArgs struct {
	Width  int `json:"width" validate:"required,gte=1,lte=100" description:"Width in cells."`
	Height int `json:"height" validate:"required,gte=1,lte=100" description:"Height in cells."`
}

// Func derives the input schema and description from the argument struct and,
// for a struct result, an output schema every value is checked against.
func ExampleFunc() {
	tool, err := registry.Func("rect", func(ctx context.Context, a rectArgs) (result.Result[area], error) {
		return result.Ok(area{a.Width, a.Height, a.Width * a.Height}), nil
	}, registry.ToolOptions{
		Doc:         "Computes the area of a rectangle.",
		Annotations: registry.Annotations{ReadOnly: new(true)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tool.Name, len(tool.InputSchema) > 0, len(tool.OutputSchema) > 0, *tool.Annotations.ReadOnly)
	r := registry.New(registry.Options{Prefix: new(""), Logger: quiet})
	if err := r.Add(tool); err != nil {
		fmt.Println(err)
		return
	}
	printJSON(r.Invoke(context.Background(), "rect", json.RawMessage(`{"width":3,"height":4}`)))
	// Output:
	// rect true true true
	// {"success":true,"value":{"width":3,"height":4,"area":12}}
}

// A Middleware wraps every call; here one that refuses calls to disabled
// tools and one that counts calls.
func ExampleMiddleware() {
	r := registry.New(registry.Options{Prefix: new(""), Logger: quiet})
	tool, _ := registry.Func("add", add, registry.ToolOptions{})
	_ = r.Add(tool)

	disabled := map[string]bool{}
	calls := 0
	r.Use(
		func(next registry.Handler) registry.Handler {
			return func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
				calls++
				return next(ctx, c)
			}
		},
		func(next registry.Handler) registry.Handler {
			return func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
				if disabled[c.Tool.Name] {
					return result.Failuref[any](result.Unavailable, "tool %s is disabled", c.Tool.Name), nil
				}
				return next(ctx, c)
			}
		},
	)
	ctx := context.Background()
	printJSON(r.Invoke(ctx, "add", json.RawMessage(`{"a":1,"b":1}`)))
	disabled["add"] = true
	printJSON(r.Invoke(ctx, "add", json.RawMessage(`{"a":1,"b":1}`)))
	fmt.Println("calls:", calls)
	// Output:
	// {"success":true,"value":2}
	// {"success":false,"error":"tool add is disabled","error_type":"unavailable"}
	// calls: 2
}

// Middleware added with UseOuter sees every call of a tool, also one
// refused for its arguments, which the middleware added with Use never
// sees: where call statistics belong.
func ExampleRegistry_UseOuter() {
	r := registry.New(registry.Options{Prefix: new(""), Logger: quiet})
	tool, _ := registry.Func("add", add, registry.ToolOptions{})
	_ = r.Add(tool)

	count := func(calls map[string]int) registry.Middleware {
		return func(next registry.Handler) registry.Handler {
			return func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
				res, err := next(ctx, c)
				outcome := "ok"
				if !res.Success {
					outcome = string(res.ErrorType)
				}
				calls[fmt.Sprintf("%s checked=%v", outcome, c.ArgsChecked())]++
				return res, err
			}
		}
	}
	outer, inner := map[string]int{}, map[string]int{}
	r.UseOuter(count(outer))
	r.Use(count(inner))

	ctx := context.Background()
	_, _ = r.Invoke(ctx, "add", json.RawMessage(`{"a":1,"b":1}`))
	_, _ = r.Invoke(ctx, "add", json.RawMessage(`{"a":"one"}`))
	fmt.Println("UseOuter:", outer)
	fmt.Println("Use:     ", inner)
	// Output:
	// UseOuter: map[ok checked=true:1 validation_error checked=false:1]
	// Use:      map[ok checked=true:1]
}

// Logging writes seed 004's messages; LevelTrace sits below slog.LevelDebug.
func ExampleLogging() {
	h := slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		Level: registry.LevelTrace,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // stable output
			}
			return a
		},
	})
	r := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(h)})
	tool, _ := registry.Func("add", add, registry.ToolOptions{})
	_ = r.Add(tool)
	_, _ = r.Invoke(context.Background(), "add", json.RawMessage(`{"a":1,"b":2}`))
	// Output:
	// level=DEBUG-4 msg="Tool called: add" tool=add
	// level=DEBUG-4 msg="Tool add completed successfully" tool=add
}

// A tool's Timeout bounds each call; a handler still running at the deadline
// yields a timeout failure.
func ExampleTimeout() {
	r := registry.New(registry.Options{Prefix: new(""), Logger: quiet})
	_ = r.Add(&registry.Tool{
		Name:    "sleepy",
		Timeout: 10 * time.Millisecond,
		Handler: func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
			<-ctx.Done()
			return result.Result[any]{}, ctx.Err()
		},
	})
	printJSON(r.Invoke(context.Background(), "sleepy", nil))
	// Output:
	// {"success":false,"error":"tool \"sleepy\" did not finish within 10ms","error_type":"timeout"}
}

type forwardArgs struct {
	Tool string `json:"tool" validate:"required" description:"The tool to run."`
	A    int    `json:"a" description:"First addend."`
	B    int    `json:"b" description:"Second addend."`
}

// A tool that passes its caller's call on to another tool calls it with
// Detach(ctx): middleware sees a call of its own, not one nested in the
// forwarding tool's (a call with ctx itself is nested).
func ExampleDetach() {
	r := registry.New(registry.Options{Prefix: new(""), Logger: quiet})
	r.Use(func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
			parent, nested := c.Parent()
			if nested {
				fmt.Printf("%s, nested in %s\n", c.Tool.Name, parent.Tool.Name)
			} else {
				fmt.Printf("%s, a call of its own\n", c.Tool.Name)
			}
			return next(ctx, c)
		}
	})
	call := func(ctx context.Context, a forwardArgs) (result.Result[any], error) {
		args, _ := json.Marshal(addArgs{A: a.A, B: a.B})
		return r.Invoke(ctx, a.Tool, args)
	}
	forward, _ := registry.Func("forward", func(ctx context.Context, a forwardArgs) (result.Result[any], error) {
		return call(registry.Detach(ctx), a)
	}, registry.ToolOptions{Doc: "Runs a tool for its caller."})
	step, _ := registry.Func("step", call, registry.ToolOptions{Doc: "Runs a tool as a step of its own work."})
	sum, _ := registry.Func("add", add, registry.ToolOptions{Doc: "Adds two integers."})
	if err := r.Add(forward, step, sum); err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	printJSON(r.Invoke(ctx, "forward", json.RawMessage(`{"tool":"add","a":1,"b":2}`)))
	printJSON(r.Invoke(ctx, "step", json.RawMessage(`{"tool":"add","a":1,"b":2}`)))
	// Output:
	// forward, a call of its own
	// add, a call of its own
	// {"success":true,"value":3}
	// step, a call of its own
	// add, nested in step
	// {"success":true,"value":3}
}
