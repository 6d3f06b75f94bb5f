package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/result"
)

// maxErrorDataBytes caps the error_data this package re-reads to list
// field errors; larger data is shown only through the envelope.
const maxErrorDataBytes = 1 << 20

// toCallToolResult maps a Result from the pipeline to an MCP tool result,
// as described in the package documentation. An error means the Result
// cannot be represented (a value or error_data that does not marshal) and
// is a protocol failure.
func toCallToolResult(r result.Result[any], d Display) (*sdk.CallToolResult, error) {
	if !r.Success {
		text, err := failureText(r, d)
		if err != nil {
			return nil, err
		}
		return textResult(text, true), nil
	}
	s, isString, raw, err := classify(r.Value)
	if err != nil {
		return nil, err
	}
	if isString {
		if d == DisplayValue {
			return textResult(s, false), nil
		}
		r.Value = s
		env, err := r.JSON()
		if err != nil {
			return nil, fmt.Errorf("mcpserver: envelope: %w", err)
		}
		return textResult(env, false), nil
	}
	text := string(raw)
	if d == DisplayEnvelope {
		r.Value = raw
		if text, err = r.JSON(); err != nil {
			return nil, fmt.Errorf("mcpserver: envelope: %w", err)
		}
	}
	out := textResult(text, false)
	if !bytes.Equal(raw, []byte("null")) {
		out.StructuredContent = raw
	}
	return out, nil
}

func textResult(text string, isError bool) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: isError}
}

// classify splits a success value into a string (shown as it is) or the
// JSON of a structured value. A json.RawMessage holding a JSON string (as a
// proxied tool may return) counts as a string.
func classify(v any) (s string, isString bool, raw json.RawMessage, err error) {
	switch v := v.(type) {
	case nil:
		return "", false, json.RawMessage("null"), nil
	case string:
		return v, true, nil, nil
	case json.RawMessage:
		t := bytes.TrimSpace(v)
		if !json.Valid(t) {
			return "", false, nil, fmt.Errorf("mcpserver: value: expected valid JSON in json.RawMessage, got %d invalid bytes", len(v))
		}
		if len(t) > 0 && t[0] == '"' {
			if err := json.Unmarshal(t, &s); err != nil {
				return "", false, nil, fmt.Errorf("mcpserver: value: %w", err)
			}
			return s, true, nil, nil
		}
		return "", false, t, nil
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return "", false, nil, fmt.Errorf("mcpserver: value of type %T: %w", v, err)
		}
		return "", false, bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
	}
}

// failureText is the text content of a domain failure.
func failureText(r result.Result[any], d Display) (string, error) {
	if d == DisplayEnvelope {
		env, err := r.JSON()
		if err != nil {
			return "", fmt.Errorf("mcpserver: envelope: %w", err)
		}
		return env, nil
	}
	var sb strings.Builder
	fes := fieldErrors(r.ErrorData)
	switch {
	case r.ErrorType == result.ValidationError && len(fes) > 0:
		fmt.Fprintf(&sb, "invalid arguments (%d %s); correct every one and call again:", len(fes), plural(len(fes), "problem", "problems"))
	case r.Error != "":
		sb.WriteString(r.Error)
	case r.ErrorType != "":
		fmt.Fprintf(&sb, "the tool call failed (%s)", r.ErrorType)
	default:
		sb.WriteString("the tool call failed")
	}
	for _, fe := range fes {
		sb.WriteString("\n- ")
		if fe.Field != "" {
			sb.WriteString(fe.Field)
		} else {
			sb.WriteString("(arguments)")
		}
		sb.WriteString(": ")
		sb.WriteString(fe.Message)
		if fe.Rule != "" {
			sb.WriteString(" [")
			sb.WriteString(fe.Rule)
			sb.WriteString("]")
		}
	}
	if r.Instruction != "" {
		sb.WriteString("\n\n")
		sb.WriteString(r.Instruction)
	}
	return sb.String(), nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// fieldErrors reads a validation failure's error_data as field errors: a
// []args.FieldError as the registry produces it, or any JSON form of one
// (a json.RawMessage after a round trip, a proxied tool's data). Data of
// another shape, or over maxErrorDataBytes, gives nil.
func fieldErrors(data any) []args.FieldError {
	switch v := data.(type) {
	case nil:
		return nil
	case []args.FieldError:
		return v
	case *args.ValidationError:
		if v == nil {
			return nil
		}
		return v.Errors
	case json.RawMessage:
		return parseFieldErrors(v)
	case []byte:
		return parseFieldErrors(v)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		return parseFieldErrors(b)
	}
}

func parseFieldErrors(b []byte) []args.FieldError {
	if len(b) == 0 || len(b) > maxErrorDataBytes {
		return nil
	}
	var fes []args.FieldError
	if err := json.Unmarshal(b, &fes); err != nil {
		return nil
	}
	for _, fe := range fes {
		if fe.Message == "" {
			return nil // not field errors, just something array-shaped
		}
	}
	return fes
}
