package httptool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/httptool"
	"github.com/toolpack-go/toolpack/result"
)

func sseTool(t *testing.T, url string, resp catalogue.HTTPResponse, limits catalogue.HTTPLimits, out string) catalogue.Tool {
	tool := httpTool(t, catalogue.HTTPRequest{Method: "POST", URLTemplate: url, Body: `{"prompt":"hi"}`})
	resp.Encoding = "sse"
	tool.HTTPImpl.Response = resp
	tool.HTTPImpl.Limits = limits
	if out != "" {
		tool.OutputSchema = json.RawMessage(out)
	}
	return tool
}

// streamer answers an event stream, flushing each chunk, waiting for
// the test to let the next one go when step is set.
func streamer(chunks []string, step chan struct{}) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for _, c := range chunks {
			if step != nil {
				select {
				case <-step:
				case <-r.Context().Done():
					return
				}
			}
			_, _ = fmt.Fprint(w, c)
			fl.Flush()
		}
	}
}

// A text/event-stream answer: every event reported as progress while it
// streams, the value holding the events and their text.
func TestSSEEventsStreamAsProgressAndValueHoldsThem(t *testing.T) {
	step := make(chan struct{})
	rec := newRecorder(t, streamer([]string{
		"event: token\ndata: Hel\n\n",
		": a comment\r\ndata: lo\r\n\r\n",
		"id: 7\ndata: {\"done\":true,\"n\":3}\n\n",
	}, step))
	inv := newInvoker(t, httptool.Options{})
	var mu sync.Mutex
	var got []registry.Progress
	progressed := make(chan struct{}, 8)
	ctx := registry.WithProgress(context.Background(), func(_ context.Context, p registry.Progress) error {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
		progressed <- struct{}{}
		return nil
	})
	done := make(chan struct{})
	var res result.Result[any]
	var err error
	go func() {
		defer close(done)
		res, err = inv.Invoke(ctx, sseTool(t, rec.URL+"/chat", catalogue.HTTPResponse{}, catalogue.HTTPLimits{}, ""), nil)
	}()
	for i := 0; i < 3; i++ {
		step <- struct{}{}
		select {
		case <-progressed: // each event arrives before the next is sent
		case <-time.After(5 * time.Second):
			t.Fatalf("event %d was not reported while streaming", i+1)
		}
	}
	<-done
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "text/event-stream", rec.last(t).Header.Get("Accept"))
	v := res.Value.(map[string]any)
	assert.Equal(t, "Hello{\"done\":true,\"n\":3}", v["text"])
	events := v["events"].([]any)
	require.Len(t, events, 3)
	assert.Equal(t, map[string]any{"event": "token", "data": "Hel"}, events[0])
	assert.Equal(t, map[string]any{"data": "lo"}, events[1])
	assert.Equal(t, map[string]any{"id": "7", "data": map[string]any{"done": true, "n": json.Number("3")}}, events[2])
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 3)
	assert.Equal(t, registry.Progress{Progress: 1, Message: "Hel"}, got[0])
	assert.Equal(t, float64(3), got[2].Progress)
}

// extract and the output schema apply to the stream's value.
func TestSSEExtractAndOutputSchema(t *testing.T) {
	rec := newRecorder(t, streamer([]string{"data: a\n\n", "data: b\n\n"}, nil))
	inv := newInvoker(t, httptool.Options{})
	res, err := inv.Invoke(context.Background(), sseTool(t, rec.URL+"/", catalogue.HTTPResponse{Extract: "text"}, catalogue.HTTPLimits{}, `{"type":"string"}`), nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "ab", res.Value)
	res, err = inv.Invoke(context.Background(), sseTool(t, rec.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{}, `{"type":"string"}`), nil)
	require.NoError(t, err)
	assert.Equal(t, catalogue.ErrTypeOutputMismatch, res.ErrorType)
}

// A stream over maxResponseBytes, or one event over MaxEventBytes, ends
// the call with a clear failure; an event stream that never ends is cut
// by the tool's timeout.
func TestSSECappedAndTimedOut(t *testing.T) {
	big := strings.Repeat("x", 4096)
	rec := newRecorder(t, streamer([]string{"data: " + big + "\n\n", "data: " + big + "\n\n"}, nil))
	inv := newInvoker(t, httptool.Options{})
	res, err := inv.Invoke(context.Background(), sseTool(t, rec.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{MaxResponseBytes: 5000}, ""), nil)
	require.NoError(t, err)
	assert.Equal(t, result.UpstreamFailure, res.ErrorType, res.Error)

	hang := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = fmt.Fprint(w, "data: first\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	start := time.Now()
	res, err = inv.Invoke(context.Background(), sseTool(t, hang.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{Timeout: "300ms"}, ""), nil)
	require.NoError(t, err)
	assert.Equal(t, result.Timeout, res.ErrorType, res.Error)
	assert.Less(t, time.Since(start), 5*time.Second)
}

// Cancelling the caller's context stops reading the stream.
func TestSSECancellation(t *testing.T) {
	hang := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = fmt.Fprint(w, "data: first\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	inv := newInvoker(t, httptool.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan struct{}, 1)
	ctx = registry.WithProgress(ctx, func(context.Context, registry.Progress) error { first <- struct{}{}; return nil })
	go func() { <-first; cancel() }()
	res, err := inv.Invoke(ctx, sseTool(t, hang.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{Timeout: "30s"}, ""), nil)
	require.NoError(t, err)
	assert.Equal(t, result.Cancelled, res.ErrorType, res.Error)
}

// Secrets echoed in events are redacted, in the value and in progress.
func TestSSESecretsRedacted(t *testing.T) {
	rec := newRecorder(t, streamer([]string{"data: key=s3cr3t-token-value\n\n"}, nil))
	inv := newInvoker(t, httptool.Options{Secrets: map[string]string{"TOKEN": "s3cr3t-token-value"}})
	var msgs []string
	ctx := registry.WithProgress(context.Background(), func(_ context.Context, p registry.Progress) error { msgs = append(msgs, p.Message); return nil })
	tool := sseTool(t, rec.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{}, "")
	tool.HTTPImpl.Request.Auth = &catalogue.HTTPAuth{Type: catalogue.AuthBearer, Token: "${TOKEN}"}
	res, err := inv.Invoke(ctx, tool, nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	b, _ := json.Marshal(res.Value)
	assert.NotContains(t, string(b), "s3cr3t-token-value")
	require.Len(t, msgs, 1)
	assert.NotContains(t, msgs[0], "s3cr3t-token-value")
}
