package llm

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolpack-go/toolpack/internal/toolmsg"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// IsError reports whether the model is told the call failed.
func (o Outcome) IsError() bool { return o.Pending == nil && (o.Err != nil || !o.Result.Success) }

// Text is what the model reads of the outcome when only text can be sent:
// the value's text or JSON; a failure's message with its field problems
// listed; for rich content, its text items and a line per other item; then
// what lenient reading changed. A paused call has no text.
func (o Outcome) Text() string {
	if o.Pending != nil {
		return ""
	}
	var sb strings.Builder
	switch {
	case o.Err != nil:
		fmt.Fprintf(&sb, "the tool call could not be completed (%s); try again later or do without it", registry.ProtocolErrorType(o.Err))
	case !o.Result.Success:
		sb.WriteString(toolmsg.FailureText(o.Result))
	default:
		if cs, ok := toolmsg.RichContents(o.Result.Value); ok {
			for i, c := range cs {
				if i > 0 {
					sb.WriteString("\n")
				}
				sb.WriteString(itemText(c))
			}
			break
		}
		v, err := toolmsg.Classify(o.Result.Value)
		switch {
		case err != nil:
			sb.WriteString("the tool's result could not be read")
		case v.IsNull() && o.Result.Message != "":
			sb.WriteString(o.Result.Message)
		default:
			sb.WriteString(v.Text())
		}
	}
	if len(o.Coerced) > 0 {
		sb.WriteString("\n\nNote: your arguments were read leniently — ")
		sb.WriteString(strings.Join(o.Coerced, "; "))
		sb.WriteString(". Send them in the declared types next time.")
	}
	return sb.String()
}

// itemText is one rich item as text, for providers whose tool results
// carry text only.
func itemText(c result.Content) string {
	switch c.Type {
	case result.TextContent:
		return c.Text
	case result.ImageContent, result.AudioContent:
		return fmt.Sprintf("[%s: %s, %d bytes, not shown]", c.Type, c.MIMEType, len(c.Data))
	case result.ResourceContent:
		if c.Data == nil {
			return fmt.Sprintf("[resource %s%s]\n%s", c.URI, mimeSuffix(c.MIMEType), c.Text)
		}
		return fmt.Sprintf("[resource %s%s, %d bytes, not shown]", c.URI, mimeSuffix(c.MIMEType), len(c.Data))
	case result.ResourceLinkContent:
		s := fmt.Sprintf("[resource link %q: %s%s]", c.Name, c.URI, mimeSuffix(c.MIMEType))
		if c.Description != "" {
			s += " " + c.Description
		}
		return s
	}
	return fmt.Sprintf("[%s item]", c.Type)
}

func mimeSuffix(m string) string {
	if m == "" {
		return ""
	}
	return " (" + m + ")"
}

// anthropicImages are the image types Anthropic's image blocks take.
var anthropicImages = []string{"image/jpeg", "image/png", "image/gif", "image/webp"}

// Messages returns the outcomes as the provider's tool-result messages,
// in call order, ready to append to the conversation:
//   - OpenAIChat: one {"role":"tool"} message per call (text only; rich
//     items other than text are described in words);
//   - OpenAIResponses: one function_call_output item per call, images as
//     input_image items;
//   - Anthropic: one user message holding a tool_result block per call
//     (as Anthropic requires of parallel calls), images as image blocks;
//   - Gemini: one user content holding a functionResponse part per call,
//     images and audio as inline data.
//
// Paused calls are left out: resume them first, as every provider wants a
// result for every call before the next turn.
func (d *Dispatcher) Messages(outs []Outcome) ([]json.RawMessage, error) {
	var msgs []any
	var blocks, parts []any
	for _, o := range outs {
		if o.Pending != nil {
			continue
		}
		cs, rich := toolmsg.RichContents(o.Result.Value)
		rich = rich && o.Err == nil && o.Result.Success
		switch d.defs.Format {
		case OpenAIChat:
			msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": o.Call.ID, "content": o.Text()})
		case OpenAIResponses:
			var output any = o.Text()
			if rich && hasMedia(cs, "image/") {
				output = responsesItems(cs, o.Coerced)
			}
			msgs = append(msgs, map[string]any{"type": "function_call_output", "call_id": o.Call.ID, "output": output})
		case Anthropic:
			block := map[string]any{"type": "tool_result", "tool_use_id": o.Call.ID, "content": []any{map[string]any{"type": "text", "text": o.Text()}}}
			if rich && hasMedia(cs, "image/") {
				block["content"] = anthropicBlocks(cs, o.Coerced)
			}
			if o.IsError() {
				block["is_error"] = true
			}
			blocks = append(blocks, block)
		case Gemini:
			parts = append(parts, map[string]any{"functionResponse": geminiResponse(o, cs, rich)})
		}
	}
	if len(blocks) > 0 {
		msgs = append(msgs, map[string]any{"role": "user", "content": blocks})
	}
	if len(parts) > 0 {
		msgs = append(msgs, map[string]any{"role": "user", "parts": parts})
	}
	out := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		b, err := json.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("llm: result message %d: %w", i, err)
		}
		out[i] = b
	}
	return out, nil
}

func hasMedia(cs result.Contents, prefix string) bool {
	return slices.ContainsFunc(cs, func(c result.Content) bool {
		return (c.Type == result.ImageContent || c.Type == result.AudioContent) && strings.HasPrefix(c.MIMEType, prefix)
	})
}

func coercedNote(coerced []string) string {
	return Outcome{Coerced: coerced, Result: result.Ok[any]("")}.Text()
}

func responsesItems(cs result.Contents, coerced []string) []any {
	var items []any
	for _, c := range cs {
		if c.Type == result.ImageContent {
			items = append(items, map[string]any{"type": "input_image", "image_url": dataURL(c)})
			continue
		}
		items = append(items, map[string]any{"type": "input_text", "text": itemText(c)})
	}
	if len(coerced) > 0 {
		items = append(items, map[string]any{"type": "input_text", "text": strings.TrimSpace(coercedNote(coerced))})
	}
	return items
}

func anthropicBlocks(cs result.Contents, coerced []string) []any {
	var blocks []any
	for _, c := range cs {
		if c.Type == result.ImageContent && slices.Contains(anthropicImages, c.MIMEType) {
			blocks = append(blocks, map[string]any{"type": "image", "source": map[string]any{
				"type": "base64", "media_type": c.MIMEType, "data": base64.StdEncoding.EncodeToString(c.Data)}})
			continue
		}
		blocks = append(blocks, map[string]any{"type": "text", "text": itemText(c)})
	}
	if len(coerced) > 0 {
		blocks = append(blocks, map[string]any{"type": "text", "text": strings.TrimSpace(coercedNote(coerced))})
	}
	return blocks
}

func dataURL(c result.Content) string {
	return "data:" + c.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(c.Data)
}

// geminiResponse is a functionResponse: {"output": value} on success (the
// structured value itself when it is JSON), {"error": text} on failure;
// images and audio go as inline-data parts beside it.
func geminiResponse(o Outcome, cs result.Contents, rich bool) map[string]any {
	fr := map[string]any{"name": o.Call.Name}
	if o.Call.ID != "" {
		fr["id"] = o.Call.ID
	}
	switch {
	case o.IsError():
		fr["response"] = map[string]any{"error": o.Text()}
	case rich:
		var texts []string
		var media []any
		for _, c := range cs {
			if c.Type == result.ImageContent || c.Type == result.AudioContent {
				media = append(media, map[string]any{"inlineData": map[string]any{"mimeType": c.MIMEType, "data": base64.StdEncoding.EncodeToString(c.Data)}})
				continue
			}
			texts = append(texts, itemText(c))
		}
		if len(o.Coerced) > 0 {
			texts = append(texts, strings.TrimSpace(coercedNote(o.Coerced)))
		}
		fr["response"] = map[string]any{"output": strings.Join(texts, "\n")}
		if len(media) > 0 {
			fr["parts"] = media
		}
	default:
		var output any = o.Text()
		if v, err := toolmsg.Classify(o.Result.Value); err == nil && !v.IsString && !v.IsNull() && len(o.Coerced) == 0 {
			output = v.Raw
		}
		fr["response"] = map[string]any{"output": output}
	}
	return fr
}
