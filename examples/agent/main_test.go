package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeChat is an OpenAI-compatible chat endpoint on 127.0.0.1 that plays a
// script: turn i answers with script[i] and records the request it got.
type fakeChat struct {
	mu       sync.Mutex
	script   []func(req chatRequest) map[string]any
	requests []chatRequest
}

type chatRequest struct {
	Model    string           `json:"model"`
	Messages []map[string]any `json:"messages"`
	Tools    []map[string]any `json:"tools"`
}

// toolResults are the tool messages of the request, by tool_call_id.
func (r chatRequest) toolResults() map[string]string {
	out := map[string]string{}
	for _, m := range r.Messages {
		if m["role"] == "tool" {
			out[m["tool_call_id"].(string)] = fmt.Sprint(m["content"])
		}
	}
	return out
}

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" {
		http.Error(w, "unexpected request", http.StatusNotFound)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 8<<20)).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	i := len(f.requests)
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	step := f.script[min(i, len(f.script)-1)]
	msg := step(req)
	msg["role"] = "assistant"
	if _, ok := msg["content"]; !ok {
		msg["content"] = nil
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", i), "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "message": msg}},
	})
}

func toolCalls(calls ...[3]string) map[string]any {
	var out []any
	for _, c := range calls {
		out = append(out, map[string]any{"id": c[0], "type": "function", "function": map[string]any{"name": c[1], "arguments": c[2]}})
	}
	return map[string]any{"tool_calls": out}
}

func runAgent(t *testing.T, f *fakeChat, extra ...string) (string, error) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	t.Setenv("OJ_BASE_URL", "")
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := append([]string{"-base-url", srv.URL + "/v1", "-api-key", "test-key", "-model", "fake-model"}, extra...)
	args = append(args, "Is 2+3 prime?")
	err := run(ctx, args, &out, &errOut)
	assert.NotContains(t, out.String()+errOut.String(), "test-key", "the key is never printed")
	return out.String(), err
}

// The agent runs parallel calls, reads back a validation failure the model
// then corrects, answers an unknown tool with a failure naming it, refuses
// a destructive tool with a reason, and stops at the model's answer.
func TestAgent_EndToEndAgainstScriptedEndpoint(t *testing.T) {
	f := &fakeChat{}
	f.script = []func(chatRequest) map[string]any{
		func(req chatRequest) map[string]any {
			return toolCalls([3]string{"c1", "add", `{"a":2,"b":3}`}, [3]string{"c2", "is_prime", `{"n":5}`}, [3]string{"c3", "ot_tools", `{"pattern":"prime","info":null}`})
		},
		func(req chatRequest) map[string]any {
			return toolCalls([3]string{"c4", "add", `{"a":"two","b":3}`})
		},
		func(req chatRequest) map[string]any {
			return toolCalls([3]string{"c5", "add", `{"a":2,"b":3}`}, [3]string{"c6", "multiply", `{"a":2}`}, [3]string{"c7", "delete_document", `{"id":"x","confirm":"yes"}`})
		},
		func(req chatRequest) map[string]any {
			return map[string]any{"content": "2+3 is 5, and 5 is prime."}
		},
	}
	out, err := runAgent(t, f)
	require.NoError(t, err, out)
	require.Len(t, f.requests, 4)

	// The tools were sent in strict mode, dotted names made OpenAI-safe.
	var names []string
	for _, tl := range f.requests[0].Tools {
		fn := tl["function"].(map[string]any)
		assert.Equal(t, true, fn["strict"])
		names = append(names, fn["name"].(string))
	}
	assert.Contains(t, names, "add")
	assert.Contains(t, names, "ot_tools")

	r1 := f.requests[1].toolResults()
	assert.Equal(t, "5", r1["c1"])
	assert.Equal(t, "true", r1["c2"])
	assert.Contains(t, r1["c3"], "is_prime")
	r2 := f.requests[2].toolResults()
	assert.Contains(t, r2["c4"], "invalid arguments (1 problem); correct every one and call again:\n- a:")
	r3 := f.requests[3].toolResults()
	assert.Equal(t, "5", r3["c5"])
	assert.Contains(t, r3["c6"], `there is no tool named "multiply"`)
	assert.Contains(t, r3["c7"], "the call was denied: the operator has not allowed destructive tools")

	assert.Contains(t, out, "step 1: call add {\"a\":2,\"b\":3}\n")
	assert.Contains(t, out, "step 1: result add (ok): 5\n")
	assert.Contains(t, out, "step 2: result add (error): invalid arguments")
	assert.Contains(t, out, "step 3: result multiply (error)")
	assert.True(t, strings.HasSuffix(out, "answer: 2+3 is 5, and 5 is prime.\n"), out)
}

// A model that never stops calling tools is cut off after -max-steps.
func TestAgent_StopsAfterMaxSteps(t *testing.T) {
	f := &fakeChat{script: []func(chatRequest) map[string]any{func(chatRequest) map[string]any {
		return toolCalls([3]string{"c", "add", `{"a":1,"b":1}`})
	}}}
	out, err := runAgent(t, f, "-max-steps", "3")
	require.ErrorContains(t, err, "stopped after -max-steps=3")
	assert.Len(t, f.requests, 3)
	assert.Equal(t, 3, strings.Count(out, "result add (ok): 2"))
}

// Lenient mode reads "2" as 2 and says so to the model.
func TestAgent_Lenient(t *testing.T) {
	f := &fakeChat{}
	f.script = []func(chatRequest) map[string]any{
		func(chatRequest) map[string]any { return toolCalls([3]string{"c1", "add", `{"a":"2","b":3}`}) },
		func(chatRequest) map[string]any { return map[string]any{"content": "5"} },
	}
	_, err := runAgent(t, f, "-lenient")
	require.NoError(t, err)
	got := f.requests[1].toolResults()["c1"]
	assert.True(t, strings.HasPrefix(got, "5\n\nNote: your arguments were read leniently — a: the string \"2\" was read as an integer"), got)
}

// Bad flags are errors naming the flag.
func TestAgent_BadFlags(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"-api-key", "k"}, &out, &errOut)
	require.ErrorContains(t, err, "expected a prompt")
	err = run(context.Background(), []string{"-api-key", "k", "-max-steps", "0", "hi"}, &out, &errOut)
	require.ErrorContains(t, err, "-max-steps")
	err = run(context.Background(), []string{"hi"}, &out, &errOut)
	require.ErrorContains(t, err, "OPENAI_API_KEY")
}
