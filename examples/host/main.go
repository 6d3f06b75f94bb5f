// Command host is a small host for the example pack: it builds a registry,
// includes the example tools and invokes a few of them, printing one JSON
// line per call to stdout:
//
//	{"tool":"demo_echo","arguments":{…},"result":{…}}
//
// Run it with
//
//	MCP_INCLUDE_EXAMPLE_TOOLS=true go run ./examples/host
//
// Environment (seed 004 "Environment Configuration" and "Conditional example
// tool"):
//
//   - MCP_INCLUDE_EXAMPLE_TOOLS: the example pack is included only when it
//     is exactly "true". Unset or any other value excludes it (it holds a
//     destructive tool); the host then prints nothing to stdout and logs a
//     warning saying how to include the tools.
//   - MCP_TOOL_PREFIX: the tool-name prefix; when unset the host's default
//     "demo" applies (Options.FallbackPrefix), so tools are demo_echo, ….
//
// Logs (log/slog, text) go to stderr; stdout carries only the results.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"

	"github.com/toolpack-go/toolpack/packs/example"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// defaultPrefix is the host's default tool-name prefix.
const defaultPrefix = "demo"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "host:", err)
		os.Exit(1)
	}
}

// call is one demonstrated invocation.
type call struct {
	tool string // undecorated name
	args string // raw JSON arguments
}

// demo is the list of calls: successes, a validation failure listing every
// field, a domain failure, and the consent-guarded create_document.
var demo = []call{
	{"echo", `{"text":"hello, toolpack"}`},
	{"add", `{"a":2,"b":40}`},
	{"add", `{"a":5000000,"b":"forty","c":1}`},
	{"text_stats", `{"text":"one two three\nfour"}`},
	{"get_document", `{"id":"doc-99"}`},
	{"create_document", `{"title":"Notes","body":"First note."}`},
	{"create_document", `{"title":"Notes","body":"First note.","confirm":"CREATE_DOCUMENT"}`},
	{"get_document", `{"id":"doc-1"}`},
}

// line is one line of output.
type line struct {
	Tool      string             `json:"tool"`
	Arguments json.RawMessage    `json:"arguments"`
	Result    result.Result[any] `json:"result"`
}

// run builds the registry, includes the example pack when enabled and prints
// the result of every demo call. A protocol failure stops it with an error.
func run(ctx context.Context, stdout, stderr io.Writer) error {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	reg := registry.New(registry.Options{
		FallbackPrefix: defaultPrefix,
		Logger:         log,
		Instructions:   result.DefaultInstructions(),
	})
	added, err := example.Register(reg)
	if err != nil {
		return err
	}
	if !added {
		log.Warn("example tools excluded; nothing to demonstrate: set "+example.EnvIncludeExampleTools+"=true to include them",
			slog.String(example.EnvIncludeExampleTools, os.Getenv(example.EnvIncludeExampleTools)))
		return nil
	}
	log.Info("example tools included", slog.Int("tools", len(reg.List())), slog.String("prefix", reg.Prefix()))
	// Final (prefixed) names come from the registry, which also honours a
	// tool's own prefix override.
	final := map[string]string{}
	for _, t := range reg.List() {
		final[t.BaseName] = t.Name
	}
	enc := json.NewEncoder(stdout)
	for _, c := range demo {
		name, ok := final[c.tool]
		if !ok {
			return fmt.Errorf("call %s: the example pack has no such tool", c.tool)
		}
		res, err := reg.Invoke(ctx, name, json.RawMessage(c.args))
		if err != nil {
			return fmt.Errorf("call %s: %w", name, err)
		}
		if err := enc.Encode(line{Tool: name, Arguments: json.RawMessage(c.args), Result: res}); err != nil {
			return errors.Join(fmt.Errorf("write result of %s", name), err)
		}
	}
	return nil
}
