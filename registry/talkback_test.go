package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// fakePeer records what reaches it and answers fixed values.
type fakePeer struct {
	logs    []string
	samples []registry.SampleRequest
	elicits []registry.ElicitRequest
}

func (p *fakePeer) Log(_ context.Context, l registry.LogLevel, logger string, data any) error {
	p.logs = append(p.logs, string(l)+"|"+logger+"|"+data.(string))
	return nil
}

func (p *fakePeer) Sample(_ context.Context, r registry.SampleRequest) (registry.SampleResult, error) {
	p.samples = append(p.samples, r)
	return registry.SampleResult{Role: "assistant", Content: result.Text("4"), Model: "m"}, nil
}

func (p *fakePeer) Elicit(_ context.Context, r registry.ElicitRequest) (registry.ElicitResult, error) {
	p.elicits = append(p.elicits, r)
	return registry.ElicitResult{Action: "accept", Content: map[string]any{"a": "b"}}, nil
}

var form = json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)

// TestTalkBackInProcessIsUnsupported: without an adapter's Peer (an
// in-process call) every talk-back call returns ErrUnsupported at once,
// naming the transport.
func TestTalkBackInProcessIsUnsupported(t *testing.T) {
	ctx := context.Background()
	err := registry.ClientLog(ctx, registry.LogInfo, "x")
	require.ErrorIs(t, err, registry.ErrUnsupported)
	assert.Contains(t, err.Error(), "in-process")
	_, err = registry.Sample(ctx, registry.SampleRequest{Messages: []registry.SampleMessage{{Role: "user", Content: result.Text("q")}}, MaxTokens: 1})
	require.ErrorIs(t, err, registry.ErrUnsupported)
	_, err = registry.Elicit(ctx, registry.ElicitRequest{Message: "m", Schema: form})
	require.ErrorIs(t, err, registry.ErrUnsupported)
	err = registry.ClientLog(registry.WithRequest(ctx, &registry.RequestInfo{Transport: "http"}), registry.LogInfo, "x")
	assert.Contains(t, err.Error(), "transport http")
}

// TestTalkBackReachesPeerWithToolName: through a registry call, ClientLog
// reaches the adapter's Peer under the tool's name, and Sample and Elicit
// pass the request through and return the answer.
func TestTalkBackReachesPeerWithToolName(t *testing.T) {
	r := registry.New(registry.Options{Prefix: new("")})
	require.NoError(t, registry.AddFunc(r, "talker", func(ctx context.Context, _ struct{}) (result.Result[string], error) {
		if err := registry.ClientLog(ctx, registry.LogWarning, "careful"); err != nil {
			return result.Result[string]{}, err
		}
		s, err := registry.Sample(ctx, registry.SampleRequest{Messages: []registry.SampleMessage{{Role: "user", Content: result.Text("2+2")}}, MaxTokens: 3})
		if err != nil {
			return result.Result[string]{}, err
		}
		e, err := registry.Elicit(ctx, registry.ElicitRequest{Message: "a?", Schema: form})
		if err != nil {
			return result.Result[string]{}, err
		}
		return result.Ok(s.Content.Text + " " + e.Action), nil
	}, registry.ToolOptions{Doc: "talks"}))
	p := &fakePeer{}
	res, err := r.Invoke(registry.WithPeer(context.Background(), p), "talker", json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.Equal(t, "4 accept", res.Value)
	assert.Equal(t, []string{"warning|talker|careful"}, p.logs)
	require.Len(t, p.samples, 1)
	assert.Equal(t, int64(3), p.samples[0].MaxTokens)
	require.Len(t, p.elicits, 1)
	assert.JSONEq(t, string(form), string(p.elicits[0].Schema))
}

// TestTalkBackRejectsBadRequests: bad requests are refused before any
// peer is asked, with an error naming the field.
func TestTalkBackRejectsBadRequests(t *testing.T) {
	p := &fakePeer{}
	ctx := registry.WithPeer(context.Background(), p)
	err := registry.ClientLog(ctx, "loud", "x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "level")
	for _, c := range []struct {
		req   registry.SampleRequest
		field string
	}{
		{registry.SampleRequest{MaxTokens: 1}, "Messages"},
		{registry.SampleRequest{Messages: []registry.SampleMessage{{Role: "user", Content: result.Text("q")}}}, "MaxTokens"},
		{registry.SampleRequest{Messages: []registry.SampleMessage{{Role: "system", Content: result.Text("q")}}, MaxTokens: 1}, "Role"},
		{registry.SampleRequest{Messages: []registry.SampleMessage{{Role: "user", Content: result.Image(nil, "")}}, MaxTokens: 1}, "Content"},
	} {
		_, err := registry.Sample(ctx, c.req)
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.field)
		assert.False(t, errors.Is(err, registry.ErrUnsupported))
	}
	_, err = registry.Elicit(ctx, registry.ElicitRequest{Schema: form})
	assert.ErrorContains(t, err, "Message")
	_, err = registry.Elicit(ctx, registry.ElicitRequest{Message: "m", Schema: json.RawMessage(`{"type":"string"}`)})
	assert.ErrorContains(t, err, "Schema")
	assert.Empty(t, p.logs)
	assert.Empty(t, p.samples)
	assert.Empty(t, p.elicits)
}
