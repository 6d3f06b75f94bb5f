package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// blocker is a tool that runs until its context ends, then reports the
// context's cause and returns its error, as a well-behaved tool does.
// Closing release ends every
// call (the test's cleanup, so that a call nothing stopped cannot hang
// it).
type blocker struct {
	started chan struct{}
	ctxs    chan context.Context // the calls' contexts, as they start (the first 8)
	cause   chan error
	release chan struct{}
}

func newBlocker() *blocker {
	return &blocker{started: make(chan struct{}, 8), ctxs: make(chan context.Context, 8), cause: make(chan error, 8), release: make(chan struct{})}
}

func (b *blocker) tool(name string) *registry.Tool {
	return &registry.Tool{
		Name:        name,
		Description: "Runs until its call is stopped.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Source:      registry.SourceLocal,
		Handler: func(ctx context.Context, _ *registry.Call) (result.Result[any], error) {
			select {
			case b.ctxs <- ctx:
			default:
			}
			b.started <- struct{}{}
			select {
			case <-ctx.Done():
			case <-b.release:
				return result.Result[any]{}, errors.New("released by the test: the call was never stopped")
			}
			b.cause <- context.Cause(ctx)
			return result.Result[any]{}, ctx.Err()
		},
	}
}

// stopServer serves a registry holding b's tool "block" over streamable
// HTTP (httptest, 127.0.0.1) with Options.Stop = stop, and connects a real
// go-sdk client. Registry and adapter log to logs.
func stopServer(t *testing.T, b *blocker, stop context.Context, logs *syncBuffer) *sdk.ClientSession {
	t.Helper()
	reg := registry.New(registry.Options{Prefix: new(""), Logger: slogTo(logs)})
	require.NoError(t, reg.Add(b.tool("block")))
	srv := mcpserver.NewServer(reg, mcpserver.Options{Logger: slogTo(logs), Stop: stop})
	hs := httptest.NewServer(mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{Logger: slogTo(logs)}))
	t.Cleanup(hs.Close)
	t.Cleanup(func() { close(b.release) }) // first: a call never stopped ends
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "stop-client", Version: "v0"}, nil).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// callAsync calls "block" on cs and delivers the outcome on the returned
// channel.
func callAsync(cs *sdk.ClientSession) <-chan callOutcome {
	out := make(chan callOutcome, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "block", Arguments: map[string]any{}})
		out <- callOutcome{res, err}
	}()
	return out
}

type callOutcome struct {
	res *sdk.CallToolResult
	err error
}

func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatalf("%s: nothing within %v", what, testTimeout)
		panic("unreachable")
	}
}

// requireShuttingDown asserts o is the tool error result of a call stopped
// by the host: isError, error type unavailable, REST's 503 words.
func requireShuttingDown(t *testing.T, o callOutcome) {
	t.Helper()
	require.NoError(t, o.err, "a tool result, not a protocol error or a lost connection")
	require.NotNil(t, o.res)
	assert.True(t, o.res.IsError, "a tool error result")
	assert.Equal(t, `the server is shutting down and stopped the call to tool "block" before it finished`, text(t, o.res))
	assert.Equal(t, "unavailable", o.res.Meta[mcpserver.MetaErrorType])
}

// A call under way over streamable HTTP when the host stops the calls
// (Options.Stop cancelled with a cause) is answered a tool error result
// saying the server is shutting down — REST's 503 words — and the tool's
// context carries the host's cause; the registry's log says the host
// stopped it, never that the caller cancelled. Without Options.Stop the
// call ran on its session's context and was never stopped nor answered.
func TestStop_CallUnderWayOverHTTPIsAnsweredThatTheServerIsShuttingDown(t *testing.T) {
	logs := &syncBuffer{}
	b := newBlocker()
	stopCtx, stop := context.WithCancelCause(context.Background())
	defer stop(nil)
	cs := stopServer(t, b, stopCtx, logs)

	out := callAsync(cs)
	wait(t, b.started, "the call started")
	cause := fmt.Errorf("maintenance window: %w", mcpserver.ErrServerStopping)
	stop(cause)

	requireShuttingDown(t, wait(t, out, "the client's answer"))
	assert.Same(t, cause, wait(t, b.cause, "the tool's cause"), "the tool's context.Cause is the host's cause")
	assert.Contains(t, logs.String(), "Tool block stopped: maintenance window: the server is shutting down")
	assert.NotContains(t, logs.String(), "cancelled by the caller")
	assert.NotContains(t, logs.String(), "level=ERROR")

	// The session lives on: calls that arrive after the stop are answered
	// at once, the same way.
	out = callAsync(cs)
	requireShuttingDown(t, wait(t, out, "the answer to a call after the stop"))
}

// A Stop cancelled without a cause gives the calls ErrServerStopping (the
// same error as httpapi.ErrServerStopping), so that the log does not blame
// the caller.
func TestStop_WithoutACauseTheCauseIsErrServerStopping(t *testing.T) {
	require.Same(t, httpapi.ErrServerStopping, mcpserver.ErrServerStopping, "one error stops REST and MCP calls")
	logs := &syncBuffer{}
	b := newBlocker()
	stopCtx, stop := context.WithCancel(context.Background())
	defer stop()
	cs := stopServer(t, b, stopCtx, logs)

	out := callAsync(cs)
	wait(t, b.started, "the call started")
	stop()

	requireShuttingDown(t, wait(t, out, "the client's answer"))
	assert.Same(t, mcpserver.ErrServerStopping, wait(t, b.cause, "the tool's cause"))
	assert.Contains(t, logs.String(), "Tool block stopped: the server is shutting down")
	assert.NotContains(t, logs.String(), "cancelled by the caller")
}

// A call that arrives after the host's stop is answered that the server is
// shutting down without running its tool, however fast the tool (the
// stop reaching it on another goroutine let a fast tool run first).
func TestStop_CallArrivingAfterTheStopNeverRunsItsTool(t *testing.T) {
	logs := &syncBuffer{}
	reg := registry.New(registry.Options{Prefix: new(""), Logger: slogTo(logs)})
	var ran atomic.Int64
	for _, inline := range []bool{false, true} {
		name := "fast"
		if inline {
			name = "fastinline"
		}
		require.NoError(t, reg.Add(&registry.Tool{Name: name, Description: "d", Inline: inline, InputSchema: json.RawMessage(`{"type":"object"}`),
			Handler: func(context.Context, *registry.Call) (result.Result[any], error) {
				ran.Add(1)
				return result.Ok[any]("done"), nil
			}}))
	}
	stopCtx, stop := context.WithCancelCause(context.Background())
	stop(mcpserver.ErrServerStopping)
	srv := mcpserver.NewServer(reg, mcpserver.Options{Logger: slogTo(logs), Stop: stopCtx})
	hs := httptest.NewServer(mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{Logger: slogTo(logs)}))
	defer hs.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "v0"}, nil).
		Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil)
	require.NoError(t, err)
	defer cs.Close()
	for _, name := range []string{"fast", "fastinline"} {
		for range 50 {
			res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: map[string]any{}})
			require.NoError(t, err)
			require.True(t, res.IsError, name)
			assert.Contains(t, text(t, res), "the server is shutting down")
		}
	}
	assert.Zero(t, ran.Load(), "no tool ran after the stop")
}

// notComparable is a cause of a type == cannot compare.
type notComparable struct{ parts []string }

func (e notComparable) Error() string { return "stopping: " + e.parts[0] }

// A host's stop cause of a type that is not comparable still answers the
// call that the server is shutting down (the stop is told by a mark, not
// by comparing causes), and the tool sees that cause.
func TestStop_CauseOfATypeNotComparableStillAnswersShuttingDown(t *testing.T) {
	logs := &syncBuffer{}
	b := newBlocker()
	stopCtx, stop := context.WithCancelCause(context.Background())
	defer stop(nil)
	cs := stopServer(t, b, stopCtx, logs)
	out := callAsync(cs)
	wait(t, b.started, "the call started")
	stop(notComparable{parts: []string{"maintenance"}})
	requireShuttingDown(t, wait(t, out, "the client's answer"))
}
