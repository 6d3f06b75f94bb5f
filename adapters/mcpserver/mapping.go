package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/internal/toolmsg"
	"github.com/toolpack-go/toolpack/result"
)

// toCallToolResult maps a Result from the pipeline to an MCP tool result,
// as described in the package documentation: the text content follows the
// Display, the structured content follows the tool's output shape (see
// outputShape), so that it always matches what tools/list advertised. An
// error means the Result cannot be represented (a value or error_data that
// does not marshal, a value that contradicts the tool's output schema) and
// is a protocol failure.
func toCallToolResult(r result.Result[any], d Display, shape outputShape) (*sdk.CallToolResult, error) {
	if !r.Success {
		text, err := failureText(r, d)
		if err != nil {
			return nil, err
		}
		return textResult(text, true), nil
	}
	if cs, ok := toolmsg.RichContents(r.Value); ok {
		return richResult(cs)
	}
	v, err := classify(r.Value)
	if err != nil {
		return nil, err
	}
	structured, err := v.structured(shape)
	if err != nil {
		return nil, err
	}
	var text string
	switch {
	case d == DisplayEnvelope:
		if v.IsString {
			r.Value = v.Str
		} else {
			r.Value = v.Raw
		}
		if text, err = r.JSON(); err != nil {
			return nil, fmt.Errorf("mcpserver: envelope: %w", err)
		}
	case v.IsString:
		text = v.Str
	case v.IsNull() && r.Message != "":
		text = r.Message
	default:
		text = string(v.Raw)
	}
	out := textResult(text, false)
	if structured != nil {
		out.StructuredContent = structured
	}
	return out, nil
}

func textResult(text string, isError bool) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: isError}
}

// value is a success value as the mapping sees it (see toolmsg.Value).
type value struct{ toolmsg.Value }

// classify splits a success value into a string or the JSON of anything
// else (toolmsg.Classify), its errors naming this package.
func classify(v any) (value, error) {
	tv, err := toolmsg.Classify(v)
	if err != nil {
		return value{}, fmt.Errorf("mcpserver: %w", err)
	}
	return value{tv}, nil
}

// structured is the value's structuredContent for a tool of the given
// shape; nil means none.
func (v value) structured(shape outputShape) (json.RawMessage, error) {
	switch shape {
	case shapeObject:
		if !v.IsObject() {
			return nil, fmt.Errorf("mcpserver: value: the tool's output schema requires a JSON object, got %s", v.Kind())
		}
		return v.Raw, nil
	case shapeWrapped:
		raw, err := v.JSON()
		if err != nil {
			return nil, err
		}
		return wrapValue(raw), nil
	default: // shapeFree: no schema advertised
		switch {
		case v.IsObject():
			return v.Raw, nil
		case v.IsString, v.IsNull():
			return nil, nil
		default:
			return wrapValue(v.Raw), nil
		}
	}
}

// wrapValue is the object form of a value that is not an object:
// {"value": raw}.
func wrapValue(raw json.RawMessage) json.RawMessage {
	out := make(json.RawMessage, 0, len(raw)+10)
	out = append(out, `{"value":`...)
	out = append(out, raw...)
	return append(out, '}')
}

// failureText is the text content of a domain failure: the envelope for
// DisplayEnvelope, the phrasing every adapter shares otherwise.
func failureText(r result.Result[any], d Display) (string, error) {
	if d == DisplayEnvelope {
		env, err := r.JSON()
		if err != nil {
			return "", fmt.Errorf("mcpserver: envelope: %w", err)
		}
		return env, nil
	}
	return toolmsg.FailureText(r), nil
}

// maxOutputSchemaBytes caps the output schema this package reads to decide
// a tool's output shape; a tool with a larger one is not served.
const maxOutputSchemaBytes = 4 << 20

// outputShape is how a tool's successful values become structuredContent.
// It follows from the tool's output schema alone (shapeOf), so that what
// tools/list advertises (sdkTool) and what tools/call sends (handler)
// agree: MCP requires structuredContent to be a JSON object, and a client
// that knows a tool's output schema requires structuredContent on every
// success and validates it against the schema.
type outputShape uint8

const (
	// shapeFree: no output schema is advertised — the tool declares none,
	// or declares a string schema (a text tool, whose answer is its text).
	// A JSON object is sent as it is; a number, boolean or array as
	// {"value": v}; a string or nil has no structuredContent.
	shapeFree outputShape = iota
	// shapeObject: the schema's root "type" is "object"; it is advertised
	// as it is and the value, an object, is sent as it is.
	shapeObject
	// shapeWrapped: any other schema (a number, boolean, array or union
	// type, a boolean schema, no "type" at all); it is advertised wrapped
	// (wrapOutputSchema) and every value is sent as {"value": v}.
	shapeWrapped
)

// shapeOf returns the output shape of a tool with output schema s (empty:
// none). An error names the field and what was expected. It costs about
// two json.Valid scans of s: it runs for every tool served, and twice
// (sdkTool, handler).
func shapeOf(s json.RawMessage) (outputShape, error) {
	t := bytes.TrimSpace(s)
	if len(t) == 0 {
		return shapeFree, nil
	}
	if len(t) > maxOutputSchemaBytes {
		return 0, fmt.Errorf("field OutputSchema: expected at most %d bytes, got %d", maxOutputSchemaBytes, len(t))
	}
	if !json.Valid(t) {
		return 0, errors.New("field OutputSchema: expected a JSON Schema, got invalid JSON")
	}
	switch t[0] {
	case '{':
		switch typ, _ := rootType(t); typ {
		case "object":
			return shapeObject, nil
		case "string":
			return shapeFree, nil
		default:
			return shapeWrapped, nil
		}
	case 't', 'f':
		return shapeWrapped, nil
	default:
		return 0, fmt.Errorf("field OutputSchema: expected a JSON Schema (an object or a boolean), got %s", orNone(t))
	}
}

// rootType returns the value of the root member "type" of s, a valid JSON
// object, when it is a string; ok is false when there is no such member or
// its value is not a string. Keys match exactly, as JSON Schema keywords
// do (after unescaping, so "typ\u0065" is "type"); of duplicate keys the
// last wins, as in the parsers clients use. It is one scan over s, without
// decoding the rest.
func rootType(s []byte) (typ string, ok bool) {
	depth, expectKey := 0, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
			expectKey = depth == 1
		case '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			expectKey = depth == 1
		case '"':
			end := stringEnd(s, i)
			if depth != 1 || !expectKey {
				i = end
				continue
			}
			expectKey = false
			j := end + 1
			for s[j] != ':' {
				j++
			}
			j++
			for isJSONSpace(s[j]) {
				j++
			}
			if unquote(s[i:end+1]) == "type" {
				typ, ok = "", false
				if s[j] == '"' {
					typ, ok = unquote(s[j:stringEnd(s, j)+1]), true
				}
			}
			i = j - 1 // the value is scanned as any other
		}
	}
	return typ, ok
}

// stringEnd returns the index of the quote closing the JSON string that
// starts at s[i] (s is valid JSON).
func stringEnd(s []byte, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(s) - 1
}

// unquote returns the string a valid JSON string literal denotes.
func unquote(lit []byte) string {
	if bytes.IndexByte(lit, '\\') < 0 {
		return string(lit[1 : len(lit)-1])
	}
	var str string
	_ = json.Unmarshal(lit, &str) // valid by construction
	return str
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// wrapOutputSchema returns the schema of {"value": v} for every v that s
// accepts:
//
//	{"type":"object","properties":{"value":s},"required":["value"],"additionalProperties":false}
//
// A boolean schema becomes its object form (true → {}, false →
// {"not":{}}), because clients require every property schema to be an
// object. The root's "$schema" and "$id" move to the wrapper, so the
// dialect and the base URI stay those of the document, and every local
// JSON-pointer reference ("$ref": "#…", or "" for the document itself) outside a nested resource (a
// subschema with its own "$id") is moved under /properties/value so that
// it still points where it did. Numbers are kept exact.
func wrapOutputSchema(s json.RawMessage) (json.RawMessage, error) {
	if len(s) > maxOutputSchemaBytes {
		return nil, fmt.Errorf("field OutputSchema: expected at most %d bytes, got %d", maxOutputSchemaBytes, len(s))
	}
	dec := json.NewDecoder(bytes.NewReader(s))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("field OutputSchema: expected a JSON Schema, got invalid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("field OutputSchema: expected one JSON Schema, got data after it")
	}
	wrapper := map[string]any{
		"type":                 "object",
		"required":             []string{"value"},
		"additionalProperties": false,
	}
	var inner map[string]any
	switch v := doc.(type) {
	case bool:
		inner = map[string]any{}
		if !v {
			inner["not"] = map[string]any{}
		}
	case map[string]any:
		inner = v
		for _, k := range []string{"$schema", "$id"} {
			if x, ok := inner[k]; ok {
				wrapper[k] = x
				delete(inner, k)
			}
		}
		rewriteLocalRefs(inner)
	default:
		return nil, fmt.Errorf("field OutputSchema: expected a JSON Schema (an object or a boolean), got %s", orNone(s))
	}
	wrapper["properties"] = map[string]any{"value": inner}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(wrapper); err != nil {
		return nil, fmt.Errorf("field OutputSchema: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// wrappedPointer is where a wrapped schema sits in its wrapper.
const wrappedPointer = "#/properties/value"

// rewriteLocalRefs moves the local JSON-pointer references of schema m
// (and of its subschemas) under wrappedPointer. Only the values of
// keywords that hold subschemas (JSON Schema drafts 4 to 2020-12) are
// visited; values of other keywords (enum, const, default, examples, …)
// are data and are never rewritten. A subschema with its own "$id" (other
// than a plain-name fragment) starts a resource of its own, whose
// references are relative to it: it is left alone.
func rewriteLocalRefs(m map[string]any) {
	if ref, ok := m["$ref"].(string); ok {
		switch {
		case ref == "" || ref == "#": // the document itself
			m["$ref"] = wrappedPointer
		case strings.HasPrefix(ref, "#/"):
			m["$ref"] = wrappedPointer + ref[1:]
		}
	}
	visit := func(v any) {
		sub, ok := v.(map[string]any)
		if !ok {
			return
		}
		if id, ok := sub["$id"].(string); ok && !strings.HasPrefix(id, "#") {
			return
		}
		rewriteLocalRefs(sub)
	}
	for k, v := range m {
		switch k {
		case "additionalItems", "additionalProperties", "contains", "contentSchema", "else", "if", "not",
			"propertyNames", "then", "unevaluatedItems", "unevaluatedProperties":
			visit(v)
		case "allOf", "anyOf", "oneOf", "prefixItems", "items": // items: a schema or (drafts 4–2019) an array of them
			if a, ok := v.([]any); ok {
				for _, e := range a {
					visit(e)
				}
			} else {
				visit(v)
			}
		case "$defs", "definitions", "dependencies", "dependentSchemas", "patternProperties", "properties":
			if mm, ok := v.(map[string]any); ok {
				for _, e := range mm {
					visit(e)
				}
			}
		}
	}
}
