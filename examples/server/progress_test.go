package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestE2E_CountReportsProgressOverStdio: the example pack's long-running
// count tool, served by this binary over stdio, sends one
// notifications/progress per number to a go-sdk client that asked for
// progress, in order; a call the client cancels stops the count and the
// session goes on.
func TestE2E_CountReportsProgressOverStdio(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	cmd := exec.Command(binPath, "-stdio", "-packs", "example")
	cmd.Env = serverEnv("")
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	got := make(chan *sdk.ProgressNotificationParams, 200)
	client := sdk.NewClient(&sdk.Implementation{Name: "progress-client"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			got <- req.Params
		},
	})
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	require.NoError(t, err, "stderr:\n%s", stderr)
	defer func() { _ = cs.Close() }()

	params := &sdk.CallToolParams{Name: "count", Arguments: map[string]any{"n": 4, "delay_ms": 10}}
	params.SetProgressToken("count-1")
	res, err := cs.CallTool(ctx, params)
	require.NoError(t, err)
	require.False(t, res.IsError, textOf(t, res))
	assert.Equal(t, "4", textOf(t, res))
	for i := 1; i <= 4; i++ {
		select {
		case p := <-got:
			assert.Equal(t, "count-1", p.ProgressToken)
			assert.Equal(t, float64(i), p.Progress, "in order")
			assert.Equal(t, float64(4), p.Total)
			assert.Equal(t, fmt.Sprintf("counted to %d", i), p.Message)
		case <-ctx.Done():
			t.Fatalf("progress %d of 4 not received", i)
		}
	}

	// Cancel a long count after its first number: the call ends with the
	// client's cancellation, and the server stops counting (it logs the
	// cancelled call) long before the 100 × 300 ms the count would take.
	callCtx, callCancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		params := &sdk.CallToolParams{Name: "count", Arguments: map[string]any{"n": 100, "delay_ms": 300}}
		params.SetProgressToken("count-2")
		_, err := cs.CallTool(callCtx, params)
		done <- err
	}()
	select {
	case p := <-got:
		assert.Equal(t, "count-2", p.ProgressToken)
		assert.Equal(t, float64(1), p.Progress)
	case <-ctx.Done():
		t.Fatal("no progress from the long count")
	}
	callCancel()
	select {
	case err := <-done:
		require.Error(t, err)
	case <-ctx.Done():
		t.Fatal("the cancelled call did not end")
	}
	for !strings.Contains(stderr.String(), "call cancelled") {
		select {
		case <-ctx.Done():
			t.Fatalf("the server did not stop the cancelled count\nstderr:\n%s", stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	// The session is still usable.
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "is_prime", Arguments: map[string]any{"n": 7919}})
	require.NoError(t, err)
	assert.Equal(t, "true", textOf(t, res))
}
