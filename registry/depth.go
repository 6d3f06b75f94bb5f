package registry

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
)

// MetaCallDepth is the key of an MCP request's _meta under which a host
// forwarding a call to another server (adapters/mcpproxy) says how deep
// in calls made by tools the forwarded call already is, and under which
// the receiving host's MCP adapter reads it back (CallDepth). Hosts that
// proxy each other — a snippet on one calling a snippet on the other,
// which calls back — thus stop at a bound instead of recursing until
// file descriptors run out.
const MetaCallDepth = "toolpack/call_depth"

// MaxCallDepth bounds CallDepth where calls leave the process: a host
// forwarding a call to another server refuses to when the call is already
// this deep. Snippets have their own, lower, bound (snippet.MaxNesting).
const MaxCallDepth = 16

type callDepthKey struct{}

// CallDepth is how deep the call running with ctx is in calls made by
// tools: 0 for a call a client made, 1 for a step of a snippet that client
// called, and so on, counted across servers (MetaCallDepth).
func CallDepth(ctx context.Context) int {
	d, _ := ctx.Value(callDepthKey{}).(int)
	return d
}

// WithCallDepth returns ctx for calls made n deep (see CallDepth). Tools
// that call other tools (snippets) and adapters that receive a forwarded
// call's depth set it.
func WithCallDepth(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, callDepthKey{}, max(n, 0))
}

// CallDepthFromMeta reads MetaCallDepth from an MCP request's _meta: a
// whole number from 0 to MaxCallDepth (larger is taken as MaxCallDepth;
// anything else as 0).
func CallDepthFromMeta(meta map[string]any) int {
	n, _ := CountFromMeta(meta, MetaCallDepth, MaxCallDepth)
	return int(n)
}

// MetaCallBudget is the key of a forwarded call's _meta (adapters/mcpproxy)
// under which the forwarding host says how many more tool calls the run
// the call belongs to may start (a run of snippets: snippet.MaxRunCalls);
// the receiving host's MCP adapter gives the call a Budget of that many,
// and says in the result's _meta, under MetaCallsUsed, how many it
// started, which the forwarding run then counts as its own. A run of
// snippets spread over hosts proxying each other is held to one budget,
// as it is on one host.
const MetaCallBudget = "toolpack/call_budget"

// MaxRunCalls bounds the tool calls one run of tools that call tools (a
// snippet and the snippets it runs) starts, on this host and the hosts it
// forwards calls to (snippet.MaxRunCalls is this); a forwarded budget is
// never taken as more.
const MaxRunCalls = 1000

// MetaCallsUsed is the key of a result's _meta under which a host says
// how many tool calls a forwarded call with a budget (MetaCallBudget)
// started.
const MetaCallsUsed = "toolpack/calls_used"

// Budget counts the tool calls a run may still start. Its methods are
// safe for concurrent use.
type Budget struct {
	size int64
	left atomic.Int64
}

// NewBudget returns a budget of n calls; zero gives none. It panics when
// n is negative, as New does on options that break Options.Validate: a
// negative count is a programmer's error, and taking it as zero would
// refuse every call without saying why. A count that comes from outside
// (a forwarded call's _meta) is read with CountFromMeta, which never
// gives a negative one.
func NewBudget(n int64) *Budget {
	if n < 0 {
		panic(fmt.Sprintf("registry: NewBudget: n is %d; expected zero (no calls) or a positive number of calls", n))
	}
	b := &Budget{size: n}
	b.left.Store(b.size)
	return b
}

// Take takes one call from the budget; false when none was left.
func (b *Budget) Take() bool {
	if b.left.Add(-1) >= 0 {
		return true
	}
	b.left.Add(1)
	return false
}

// Left is how many calls are left.
func (b *Budget) Left() int64 { return max(b.left.Load(), 0) }

// Used is how many calls were taken, or spent.
func (b *Budget) Used() int64 { return b.size - b.Left() }

// Size is the number of calls the budget started with.
func (b *Budget) Size() int64 { return b.size }

// Spend counts n calls made elsewhere (on another host) against the
// budget.
func (b *Budget) Spend(n int64) {
	if n > 0 {
		b.left.Add(-min(n, b.Left()))
	}
}

type budgetKey struct{}

// WithBudget returns ctx carrying b for the calls made with it.
func WithBudget(ctx context.Context, b *Budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// BudgetOf returns the budget ctx carries, or nil.
func BudgetOf(ctx context.Context) *Budget {
	b, _ := ctx.Value(budgetKey{}).(*Budget)
	return b
}

// WithForwardedBounds returns ctx with the bounds a call forwarded by
// another host (adapters/mcpproxy) carries in its MCP _meta, so that they
// count toward this host's: how deep it is in calls made by tools
// (MetaCallDepth, WithCallDepth) and how many calls its run may still
// start (MetaCallBudget, WithBudget). A _meta with neither leaves ctx as
// it is. The MCP adapters call it with each request's _meta.
func WithForwardedBounds(ctx context.Context, meta map[string]any) context.Context {
	if d := CallDepthFromMeta(meta); d > 0 {
		ctx = WithCallDepth(ctx, d)
	}
	if n, ok := CountFromMeta(meta, MetaCallBudget, MaxRunCalls); ok {
		ctx = WithBudget(ctx, NewBudget(n))
	}
	return ctx
}

// CountFromMeta reads a whole number from 0 to limit under key of an MCP
// _meta (MetaCallBudget, MetaCallsUsed); ok is false when it is absent or
// not such a number (larger is taken as limit).
func CountFromMeta(meta map[string]any, key string, limit int64) (n int64, ok bool) {
	var f float64
	switch v := meta[key].(type) {
	case float64:
		f = v
	case int:
		f = float64(v)
	case int64:
		f = float64(v)
	default:
		return 0, false
	}
	if f < 0 || f != math.Trunc(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return int64(min(f, float64(limit))), true
}
