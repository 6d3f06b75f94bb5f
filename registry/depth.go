package registry

import (
	"context"
	"math"
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
	f, ok := meta[MetaCallDepth].(float64)
	if !ok {
		if i, isInt := meta[MetaCallDepth].(int); isInt {
			f, ok = float64(i), true
		}
	}
	if !ok || f < 0 || f != math.Trunc(f) || math.IsInf(f, 0) {
		return 0
	}
	return int(min(f, MaxCallDepth))
}
