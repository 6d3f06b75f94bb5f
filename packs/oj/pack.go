package oj

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// PackName is the name of the pack New returns.
const PackName = "oj"

// Tool names.
const (
	ToolDailyChallenge = "get_daily_challenge"
	ToolProblem        = "get_problem"
	ToolSimilar        = "find_similar_problems"
	ToolResolve        = "resolve_problem"
	ToolStatus         = "get_platform_status"
)

// Tool descriptions, as the reference server words them (the daily one
// states the UTC default the tool actually uses).
const (
	docDaily   = "Get the LeetCode daily challenge problem. Returns the full problem including title, difficulty, tags, and description. Defaults to today's date in UTC. Daily challenge switches at 00:00 in the domain's timezone (UTC+0 for 'com', UTC+8 for 'cn')."
	docProblem = "Get a specific problem by source and ID. Returns the full problem including title, difficulty, tags, and description. Supports LeetCode, Codeforces, AtCoder, and Luogu. Use resolve_problem instead when the input is a URL or the ID format is uncertain."
	docSimilar = "Find similar problems by problem ID or free-text query across LeetCode, Codeforces, AtCoder, and Luogu. Returns a ranked list with similarity scores. Provide either a text query, or a source + ID pair."
	docResolve = "Preferred way to look up a problem. Accepts a URL, problem slug, or prefixed ID and returns the full problem (title, difficulty, tags, and description). Supports LeetCode, Codeforces, AtCoder, and Luogu. Use this when the input format is uncertain; use get_problem when source and ID are already known."
	docStatus  = "Get problem counts and indexing coverage for each platform (LeetCode, Codeforces, AtCoder, Luogu). Returns total problems, missing content count, and un-embedded count per platform."
)

// New builds the OJ pack: the five tools get_daily_challenge, get_problem,
// find_similar_problems, resolve_problem and get_platform_status, each
// returning Markdown as a result.Result[string]. Argument rules and HTTP
// error statuses become failed results; network failures and malformed
// backend data are returned as errors (protocol failures). Configuration
// errors wrap ErrConfig.
//
// Tool descriptions are the tools' own text (as the reference server's);
// argument documentation lives in the input schemas. The tools carry no
// prefix of their own: register them with a Registry whose prefix is "" to
// keep the reference names.
func New(cfg Config) (*registry.Pack, error) {
	c, err := NewClient(cfg)
	if err != nil {
		return nil, err
	}
	return c.Pack()
}

// Pack builds the OJ pack on an existing Client (see New).
func (c *Client) Pack() (*registry.Pack, error) {
	ro := registry.Annotations{
		ReadOnly: new(true), Destructive: new(false),
		Idempotent: new(true), OpenWorld: new(true),
	}
	status := func(ctx context.Context, _ StatusArgs) (string, error) { return c.PlatformStatus(ctx) }
	p := &registry.Pack{Name: PackName, Description: "Online-judge problems (LeetCode, Codeforces, AtCoder, Luogu): daily challenge, lookup, resolve, similarity search and platform status, as Markdown."}
	err := errors.Join(
		registry.AddFunc(p, ToolDailyChallenge, tool(c.DailyChallenge), registry.ToolOptions{Title: "Daily challenge", Description: docDaily, Annotations: ro}),
		registry.AddFunc(p, ToolProblem, tool(c.Problem), registry.ToolOptions{Title: "Get problem", Description: docProblem, Annotations: ro}),
		registry.AddFunc(p, ToolSimilar, tool(c.SimilarProblems), registry.ToolOptions{Title: "Find similar problems", Description: docSimilar, Annotations: ro}),
		registry.AddFunc(p, ToolResolve, tool(c.ResolveProblem), registry.ToolOptions{Title: "Resolve problem", Description: docResolve, Annotations: ro}),
		registry.AddFunc(p, ToolStatus, tool(status), registry.ToolOptions{Title: "Platform status", Description: docStatus, Annotations: ro}),
	)
	if err != nil {
		return nil, fmt.Errorf("oj: build tools: %w", err)
	}
	return p, nil
}

// tool adapts a Client method to a registry handler: a *DomainError becomes
// a failed Result (with its Instruction), any other error stays a protocol
// failure.
func tool[A any](m func(context.Context, A) (string, error)) func(context.Context, A) (result.Result[string], error) {
	return func(ctx context.Context, a A) (result.Result[string], error) {
		md, err := m(ctx, a)
		if err == nil {
			return result.Ok(md), nil
		}
		var de *DomainError
		if errors.As(err, &de) {
			res := result.Failure[string](de.Message, de.Type)
			if de.Instruction != "" {
				res = res.WithInstruction(de.Instruction)
			}
			return res, nil
		}
		return result.Result[string]{}, err
	}
}
