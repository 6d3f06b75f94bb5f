package llm_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/toolpack-go/toolpack/adapters/llm"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// mixedCalls are a success, a validation failure and a rich result with an
// image.
var mixedCalls = []llm.ToolCall{
	{ID: "c1", Name: "calc_add", Arguments: `{"a":1,"b":2}`},
	{ID: "c2", Name: "calc_add", Arguments: `{"a":"x"}`},
	{ID: "c3", Name: "picture", Arguments: `{}`},
}

func dispatchMixed(t *testing.T, f llm.Format) []json.RawMessage {
	t.Helper()
	fx := newFixture(t)
	calls := mixedCalls
	if f == llm.Gemini {
		calls = []llm.ToolCall{{ID: "c1", Name: "calc.add", Arguments: mixedCalls[0].Arguments}, {ID: "c2", Name: "calc.add", Arguments: mixedCalls[1].Arguments}, mixedCalls[2]}
	}
	d := fx.dispatcher(t, f, false, llm.DispatchOptions{})
	outs, err := d.Dispatch(context.Background(), calls)
	require.NoError(t, err)
	msgs, err := d.Messages(outs)
	require.NoError(t, err)
	return msgs
}

// OpenAI Chat: one tool message per call, text only, the image described.
func TestMessages_OpenAIChatToolMessages(t *testing.T) {
	msgs := dispatchMixed(t, llm.OpenAIChat)
	require.Len(t, msgs, 3)
	var texts []string
	for i, m := range msgs {
		var u openai.ChatCompletionMessageParamUnion
		require.NoError(t, json.Unmarshal(m, &u))
		require.NotNil(t, u.OfTool, "%s", m)
		assert.Equal(t, mixedCalls[i].ID, u.OfTool.ToolCallID)
		texts = append(texts, u.OfTool.Content.OfString.Value)
	}
	assert.Equal(t, "3", texts[0])
	assert.Contains(t, texts[1], "- a:")
	assert.Contains(t, texts[2], "a red dot")
	assert.Contains(t, texts[2], "[image: image/png, 8 bytes, not shown]")
}

// OpenAI Responses: function_call_output items; the image as input_image.
func TestMessages_OpenAIResponsesOutputs(t *testing.T) {
	msgs := dispatchMixed(t, llm.OpenAIResponses)
	require.Len(t, msgs, 3)
	for i, m := range msgs {
		var u responses.ResponseInputItemUnionParam
		require.NoError(t, json.Unmarshal(m, &u))
		require.NotNil(t, u.OfFunctionCallOutput, "%s", m)
		assert.Equal(t, mixedCalls[i].ID, u.OfFunctionCallOutput.CallID.Value)
	}
	var u responses.ResponseInputItemUnionParam
	require.NoError(t, json.Unmarshal(msgs[2], &u))
	items := u.OfFunctionCallOutput.Output.OfResponseFunctionCallOutputItemArray
	require.Len(t, items, 2)
	require.NotNil(t, items[1].OfInputImage)
	assert.Equal(t, "data:image/png;base64,iVBORw0KGgo=", items[1].OfInputImage.ImageURL.Value)
}

// Anthropic: one user message with a tool_result per call, is_error on the
// failure, the image as an image block.
func TestMessages_AnthropicToolResults(t *testing.T) {
	msgs := dispatchMixed(t, llm.Anthropic)
	require.Len(t, msgs, 1)
	var m anthropic.MessageParam
	require.NoError(t, json.Unmarshal(msgs[0], &m))
	assert.Equal(t, anthropic.MessageParamRoleUser, m.Role)
	require.Len(t, m.Content, 3)
	for i, b := range m.Content {
		require.NotNil(t, b.OfToolResult)
		assert.Equal(t, mixedCalls[i].ID, b.OfToolResult.ToolUseID)
	}
	assert.False(t, m.Content[0].OfToolResult.IsError.Value)
	assert.True(t, m.Content[1].OfToolResult.IsError.Value)
	rich := m.Content[2].OfToolResult.Content
	require.Len(t, rich, 2)
	require.NotNil(t, rich[1].OfImage)
	assert.Equal(t, "iVBORw0KGgo=", rich[1].OfImage.Source.OfBase64.Data)
}

// Gemini: one user content with a functionResponse per call: output or
// error, the image as inline data.
func TestMessages_GeminiFunctionResponses(t *testing.T) {
	msgs := dispatchMixed(t, llm.Gemini)
	require.Len(t, msgs, 1)
	var c genai.Content
	require.NoError(t, json.Unmarshal(msgs[0], &c))
	assert.Equal(t, "user", c.Role)
	require.Len(t, c.Parts, 3)
	r0 := c.Parts[0].FunctionResponse
	assert.Equal(t, "calc.add", r0.Name)
	assert.Equal(t, "c1", r0.ID)
	assert.Equal(t, 3.0, r0.Response["output"])
	assert.Contains(t, c.Parts[1].FunctionResponse.Response["error"], "- a:")
	r2 := c.Parts[2].FunctionResponse
	assert.Equal(t, "a red dot", r2.Response["output"])
	require.Len(t, r2.Parts, 1)
	assert.Equal(t, "image/png", r2.Parts[0].InlineData.MIMEType)
	assert.Equal(t, []byte("\x89PNG\r\n\x1a\n"), r2.Parts[0].InlineData.Data)
}

// Every kind of rich content reaches each provider: as the provider's own
// block where it has one (images; audio for Gemini), as a line of text
// otherwise — nothing is dropped.
func TestMessages_EveryContentKind(t *testing.T) {
	reg := newFixture(t).reg
	all, err := registry.Func("all_kinds", func(_ context.Context, _ struct{}) (result.Result[result.Contents], error) {
		return result.Rich(
			result.Text("hello"),
			result.Image([]byte{1, 2, 3}, "image/png"),
			result.Audio([]byte{4, 5}, "audio/wav"),
			result.TextResource("file:///notes.txt", "text/plain", "the notes"),
			result.BlobResource("file:///a.bin", "application/octet-stream", []byte{9}),
			result.ResourceLink("file:///big.csv", "big.csv", "text/csv", "A large table"),
		), nil
	}, registry.ToolOptions{Doc: "Returns every kind of content."})
	require.NoError(t, err)
	require.NoError(t, reg.Add(all))
	wantLines := []string{"hello", "[audio: audio/wav, 2 bytes, not shown]", "[resource file:///notes.txt (text/plain)]\nthe notes",
		"[resource file:///a.bin (application/octet-stream), 1 bytes, not shown]", `[resource link "big.csv": file:///big.csv (text/csv)] A large table`}
	for _, f := range llm.Formats() {
		defs, err := llm.Export(reg, f, llm.Options{})
		require.NoError(t, err)
		d := llm.NewDispatcher(reg, defs, llm.DispatchOptions{})
		outs, err := d.Dispatch(context.Background(), []llm.ToolCall{{ID: "k", Name: "all_kinds", Arguments: `{}`}})
		require.NoError(t, err)
		msgs, err := d.Messages(outs)
		require.NoError(t, err)
		require.Len(t, msgs, 1)
		var text string
		switch f {
		case llm.OpenAIChat:
			var u openai.ChatCompletionMessageParamUnion
			require.NoError(t, json.Unmarshal(msgs[0], &u))
			text = u.OfTool.Content.OfString.Value
			assert.Contains(t, text, "[image: image/png, 3 bytes, not shown]")
		case llm.OpenAIResponses:
			var u responses.ResponseInputItemUnionParam
			require.NoError(t, json.Unmarshal(msgs[0], &u))
			var imgs int
			for _, it := range u.OfFunctionCallOutput.Output.OfResponseFunctionCallOutputItemArray {
				if it.OfInputText != nil {
					text += it.OfInputText.Text + "\n"
				}
				if it.OfInputImage != nil {
					imgs++
				}
			}
			assert.Equal(t, 1, imgs)
		case llm.Anthropic:
			var m anthropic.MessageParam
			require.NoError(t, json.Unmarshal(msgs[0], &m))
			var imgs int
			for _, b := range m.Content[0].OfToolResult.Content {
				if b.OfText != nil {
					text += b.OfText.Text + "\n"
				}
				if b.OfImage != nil {
					imgs++
				}
			}
			assert.Equal(t, 1, imgs)
		case llm.Gemini:
			var c genai.Content
			require.NoError(t, json.Unmarshal(msgs[0], &c))
			fr := c.Parts[0].FunctionResponse
			text = fr.Response["output"].(string)
			require.Len(t, fr.Parts, 2, "image and audio as inline data")
			assert.Equal(t, "audio/wav", fr.Parts[1].InlineData.MIMEType)
			wantLines[1] = "" // audio travels as data, not as a line
		}
		for _, l := range wantLines {
			assert.Contains(t, text, l, f)
		}
	}
}
