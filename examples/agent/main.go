// Command agent is a small agent loop: it gives a model on an
// OpenAI-compatible chat endpoint the tools of toolpack's packs (in this
// process, no MCP server), runs the tool calls the model makes through the
// registry, sends the results back, and stops when the model answers in
// words or after -max-steps turns. It prints every tool call and result.
//
//	OPENAI_API_KEY=… go run ./examples/agent "Is 2+3 a prime number?"
//	go run ./examples/agent -base-url http://127.0.0.1:8080/v1 -model llama3 "…"
//
// The endpoint, key and model come from -base-url, -api-key and -model, or
// else from OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL. The tools are
// the example pack's and the ot pack's, plus the OJ pack's when
// OJ_BASE_URL is set. Tools are sent in OpenAI's strict mode unless
// -strict=false; -lenient accepts sloppy arguments ("5" for 5) and tells
// the model. Destructive tools (delete_document, create_document) are
// refused with a reason the model reads, unless -allow-destructive.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/toolpack-go/toolpack/adapters/llm"
	"github.com/toolpack-go/toolpack/packs/example"
	"github.com/toolpack-go/toolpack/packs/oj"
	"github.com/toolpack-go/toolpack/packs/ot"
	"github.com/toolpack-go/toolpack/registry"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

// config is what the flags and the environment set.
type config struct {
	baseURL, apiKey, model string
	maxSteps               int
	strict, lenient        bool
	allowDestructive       bool
	prompt                 string
}

func parse(args []string, stderr io.Writer) (config, error) {
	c := config{}
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.baseURL, "base-url", os.Getenv("OPENAI_BASE_URL"), "OpenAI-compatible API base URL (default $OPENAI_BASE_URL, else OpenAI's)")
	fs.StringVar(&c.apiKey, "api-key", "", "API key (default $OPENAI_API_KEY)")
	fs.StringVar(&c.model, "model", envOr("OPENAI_MODEL", "gpt-4.1-mini"), "model name (default $OPENAI_MODEL, else gpt-4.1-mini)")
	fs.IntVar(&c.maxSteps, "max-steps", 8, "most model turns before giving up (1 to 100)")
	fs.BoolVar(&c.strict, "strict", true, "send the tools in OpenAI's strict mode")
	fs.BoolVar(&c.lenient, "lenient", false, `accept sloppy tool arguments ("5" for 5) and tell the model`)
	fs.BoolVar(&c.allowDestructive, "allow-destructive", false, "let the model run destructive tools")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.apiKey == "" {
		c.apiKey = os.Getenv("OPENAI_API_KEY")
	}
	c.prompt = strings.TrimSpace(strings.Join(fs.Args(), " "))
	switch {
	case c.prompt == "":
		return c, errors.New("expected a prompt after the flags, got none")
	case c.maxSteps < 1 || c.maxSteps > 100:
		return c, fmt.Errorf("-max-steps: expected 1 to 100, got %d", c.maxSteps)
	case c.apiKey == "":
		return c, errors.New("no API key: set -api-key or OPENAI_API_KEY")
	}
	return c, nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// tools builds the registry the agent uses: the packs of examples/server,
// in process.
func tools(log *slog.Logger) (*registry.Registry, error) {
	reg := registry.New(registry.Options{Logger: log})
	ex, err := example.New()
	if err != nil {
		return nil, err
	}
	if err := reg.AddPack(ex); err != nil {
		return nil, err
	}
	if base := os.Getenv("OJ_BASE_URL"); base != "" {
		p, err := oj.New(oj.Config{BaseURL: base, Token: os.Getenv("OJ_TOKEN"), Logger: log})
		if err != nil {
			return nil, fmt.Errorf("OJ_BASE_URL: %w", err)
		}
		if err := reg.AddPack(p); err != nil {
			return nil, err
		}
	}
	otp, err := ot.New(ot.Config{Registry: reg})
	if err != nil {
		return nil, err
	}
	return reg, reg.AddPack(otp)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parse(args, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	reg, err := tools(log)
	if err != nil {
		return err
	}
	defs, err := llm.Export(reg, llm.OpenAIChat, llm.Options{Strict: c.strict})
	if err != nil {
		return err
	}
	for _, is := range defs.Issues {
		if is.Action == llm.Excluded {
			log.Warn("tool left out", "issue", is.String())
		}
	}
	var toolParams []openai.ChatCompletionToolUnionParam
	if err := json.Unmarshal(defs.JSON(), &toolParams); err != nil {
		return fmt.Errorf("tool definitions: %w", err)
	}
	d := llm.NewDispatcher(reg, defs, llm.DispatchOptions{
		Lenient: c.lenient,
		Approve: func(_ context.Context, req llm.ApprovalRequest) (llm.Decision, error) {
			if c.allowDestructive {
				return llm.Decision{Verdict: llm.Approve}, nil
			}
			return llm.Decision{Verdict: llm.Deny, Reason: "the operator has not allowed destructive tools in this session"}, nil
		},
	})
	opts := []option.RequestOption{option.WithAPIKey(c.apiKey), option.WithMaxRetries(2)}
	if c.baseURL != "" {
		opts = append(opts, option.WithBaseURL(c.baseURL))
	}
	client := openai.NewClient(opts...)
	msgs := []openai.ChatCompletionMessageParamUnion{
		openai.SystemMessage("You are a helpful assistant. Use the tools when they help; answer in words when done."),
		openai.UserMessage(c.prompt),
	}
	for step := 1; step <= c.maxSteps; step++ {
		resp, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model: c.model, Messages: msgs, Tools: toolParams,
		})
		if err != nil {
			return fmt.Errorf("step %d: chat completion: %w", step, err)
		}
		if len(resp.Choices) == 0 {
			return fmt.Errorf("step %d: the endpoint answered with no choices", step)
		}
		m := resp.Choices[0].Message
		msgs = append(msgs, m.ToParam())
		if len(m.ToolCalls) == 0 {
			fmt.Fprintln(stdout, "answer:", m.Content)
			return nil
		}
		calls := make([]llm.ToolCall, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			calls[i] = llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
			fmt.Fprintf(stdout, "step %d: call %s %s\n", step, tc.Function.Name, tc.Function.Arguments)
		}
		outs, err := d.Dispatch(ctx, calls)
		if err != nil {
			return fmt.Errorf("step %d: %w", step, err)
		}
		for _, o := range outs {
			status := "ok"
			if o.IsError() {
				status = "error"
			}
			fmt.Fprintf(stdout, "step %d: result %s (%s): %s\n", step, o.Call.Name, status, strings.ReplaceAll(o.Text(), "\n", " | "))
		}
		results, err := d.Messages(outs)
		if err != nil {
			return err
		}
		for _, r := range results {
			var p openai.ChatCompletionMessageParamUnion
			if err := json.Unmarshal(r, &p); err != nil {
				return fmt.Errorf("tool result message: %w", err)
			}
			msgs = append(msgs, p)
		}
	}
	return fmt.Errorf("stopped after -max-steps=%d turns without a final answer", c.maxSteps)
}
