// Package mcpmap is the one mapping of a tool's Result to an MCP tool
// result, shared by the adapters of both Go MCP SDKs: the content items
// (the value's text, the failure's text, or rich items), the structured
// content that matches what the tool advertised, and isError. It also
// decides what a tool advertises as its output schema (its Shape), so
// that what tools/list promises and what tools/call sends always agree.
package mcpmap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/internal/jsonptr"
	"github.com/toolpack-go/toolpack/internal/toolmsg"
	"github.com/toolpack-go/toolpack/result"
)

// Reply is an MCP tool result, independent of the SDK that sends it.
type Reply struct {
	// Content are the content items, in order: one text item for a plain
	// value or a failure, the items of a rich value.
	Content result.Contents
	// Structured is the structuredContent (a JSON object); nil for none.
	Structured json.RawMessage
	// Wrapped reports that Structured is {"value": v} around the tool's
	// value v (any value of a ShapeWrapped tool; a value that is not an
	// object under ShapeFree), sent in the result's _meta under
	// MetaWrapped so that a client (a proxy) can take v back out.
	Wrapped bool
	// IsError marks a domain failure.
	IsError bool
	// ErrorType is a failure's error type, sent in the result's _meta
	// under MetaErrorType so that a client tells contract codes
	// (port_busy, invalid_query, …) apart without parsing the text; ""
	// for a success.
	ErrorType result.ErrorType
}

// MetaErrorType is the _meta key of a failed tool result that holds its
// error type.
const MetaErrorType = "toolpack/error_type"

// MetaWrapped is the _meta key, set to true, that marks a value wrapped as
// {"value": v} for structuredContent (which must be an object): on a
// result whose structuredContent is such a wrapper, and on a tool (in
// tools/list) whose output schema is WrapOutputSchema of the tool's own.
// A client unwraps v; adapters/mcpproxy does.
const MetaWrapped = "toolpack/wrapped"

// MetaHosts is the _meta key of a tool (in tools/list) that lists the
// IDs of the toolpack registries serving it, the one it comes from first
// and the listing server's own last (registry.Tool.Via, Registry.ID):
// adapters/mcpproxy does not serve a remote tool whose list holds its own
// registry's ID, so hosts proxying each other (or a host proxying itself)
// do not mirror each other's tools without end.
const MetaHosts = "toolpack/hosts"

// NoArguments reports whether the raw arguments of a tools/call are
// missing or JSON null: both MCP adapters then call the tool with none
// ({}), as the protocol has it.
func NoArguments(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// WrapKey is the member of a wrapped structuredContent that holds the
// value.
const WrapKey = "value"

// Meta is the result's _meta members: the failure's error type
// (MetaErrorType) or the mark of a wrapped value (MetaWrapped); nil when
// it has neither. Both adapters send it as it is.
func (r Reply) Meta() map[string]any {
	switch {
	case r.ErrorType != "":
		return map[string]any{MetaErrorType: string(r.ErrorType)}
	case r.Wrapped:
		return map[string]any{MetaWrapped: true}
	}
	return nil
}

// Map maps a Result from the pipeline to an MCP tool result: the text
// shows the plain value (or, with envelope, the whole Result as JSON), the
// structured content follows the tool's output shape, and a failure is
// its text (toolmsg.FailureText, or the envelope) with IsError. An error
// means the Result cannot be represented (a value or error_data that does
// not marshal, a value that contradicts the tool's output schema, an
// invalid rich item) and is a protocol failure.
func Map(r result.Result[any], envelope bool, shape Shape) (Reply, error) {
	if !r.Success {
		text := toolmsg.FailureText(r)
		if envelope {
			env, err := r.JSON()
			if err != nil {
				return Reply{}, fmt.Errorf("envelope: %w", err)
			}
			text = env
		}
		return Reply{Content: result.Contents{result.Text(text)}, IsError: true, ErrorType: r.ErrorType}, nil
	}
	if cs, ok := toolmsg.RichContents(r.Value); ok {
		if err := cs.Validate(); err != nil {
			return Reply{}, fmt.Errorf("rich value: %w", err)
		}
		return Reply{Content: cs}, nil
	}
	v, err := toolmsg.Classify(r.Value)
	if err != nil {
		return Reply{}, err
	}
	st, wrapped, err := structured(v, shape)
	if err != nil {
		return Reply{}, err
	}
	var text string
	switch {
	case envelope:
		if v.IsString {
			r.Value = v.Str
		} else {
			r.Value = v.Raw
		}
		if text, err = r.JSON(); err != nil {
			return Reply{}, fmt.Errorf("envelope: %w", err)
		}
	case v.IsNull() && r.Message != "":
		text = r.Message
	default:
		text = v.Text()
	}
	return Reply{Content: result.Contents{result.Text(text)}, Structured: st, Wrapped: wrapped}, nil
}

// richSchemas are the output schemas registry.Func gives tools returning
// result.Contents or result.Content.
var richSchemas = sync.OnceValue(func() [][]byte {
	var out [][]byte
	for _, t := range []reflect.Type{reflect.TypeFor[result.Contents](), reflect.TypeFor[result.Content]()} {
		if s, err := args.OutputSchemaOf(t); err == nil {
			out = append(out, s)
		}
	}
	return out
})

// IsRichSchema reports whether s is the output schema of a rich result
// type: such a tool advertises no output schema (its answer is its
// content items).
func IsRichSchema(s json.RawMessage) bool {
	if len(s) == 0 {
		return false
	}
	for _, r := range richSchemas() {
		if bytes.Equal(bytes.TrimSpace(s), bytes.TrimSpace(r)) {
			return true
		}
	}
	return false
}

// OrNone shows a schema (or part of one) in an error: "(none)" when
// empty, cut at 64 bytes.
func OrNone(b []byte) string {
	if len(b) == 0 {
		return "(none)"
	}
	if len(b) > 64 {
		return string(b[:64]) + "…"
	}
	return string(b)
}

// structured is the value's structuredContent for a tool of the given
// shape; nil means none. wrapped reports that it is {"value": v}.
func structured(v toolmsg.Value, shape Shape) (st json.RawMessage, wrapped bool, err error) {
	switch shape {
	case ShapeObject:
		if !v.IsObject() {
			return nil, false, fmt.Errorf("value: the tool's output schema requires a JSON object, got %s", v.Kind())
		}
		return v.Raw, false, nil
	case ShapeWrapped:
		raw, err := v.JSON()
		if err != nil {
			return nil, false, err
		}
		return wrapValue(raw), true, nil
	default: // ShapeFree: no schema advertised
		switch {
		case v.IsObject():
			return v.Raw, false, nil
		case v.IsString, v.IsNull():
			return nil, false, nil
		default:
			return wrapValue(v.Raw), true, nil
		}
	}
}

// wrapValue is the object form of a value that is not an object:
// {"value": raw} (WrapKey).
func wrapValue(raw json.RawMessage) json.RawMessage {
	out := make(json.RawMessage, 0, len(raw)+10)
	out = append(out, `{"`+WrapKey+`":`...)
	out = append(out, raw...)
	return append(out, '}')
}

// MaxOutputSchemaBytes caps the output schema this package reads to decide
// a tool's output shape; a tool with a larger one is not served.
const MaxOutputSchemaBytes = 4 << 20

// Shape is how a tool's successful values become structuredContent.
// It follows from the tool's output schema alone (ShapeOf), so that what
// tools/list advertises (sdkTool) and what tools/call sends (handler)
// agree: MCP requires structuredContent to be a JSON object, and a client
// that knows a tool's output schema requires structuredContent on every
// success and validates it against the schema.
type Shape uint8

const (
	// ShapeFree: no output schema is advertised — the tool declares none,
	// or declares a string schema (a text tool, whose answer is its text).
	// A JSON object is sent as it is; a number, boolean or array as
	// {"value": v}; a string or nil has no structuredContent.
	ShapeFree Shape = iota
	// ShapeObject: the schema's root "type" is "object"; it is advertised
	// as it is and the value, an object, is sent as it is.
	ShapeObject
	// ShapeWrapped: any other schema (a number, boolean, array or union
	// type, a boolean schema, no "type" at all); it is advertised wrapped
	// (WrapOutputSchema) and every value is sent as {"value": v}.
	ShapeWrapped
)

// shapeOf returns the output shape of a tool with output schema s (empty:
// none). An error names the field and what was expected. It costs about
// two json.Valid scans of s: it runs for every tool served, and twice
// (sdkTool, handler).
func ShapeOf(s json.RawMessage) (Shape, error) {
	t := bytes.TrimSpace(s)
	if len(t) == 0 {
		return ShapeFree, nil
	}
	if len(t) > MaxOutputSchemaBytes {
		return 0, fmt.Errorf("field OutputSchema: expected at most %d bytes, got %d", MaxOutputSchemaBytes, len(t))
	}
	if !json.Valid(t) {
		return 0, errors.New("field OutputSchema: expected a JSON Schema, got invalid JSON")
	}
	switch t[0] {
	case '{':
		switch typ, _ := rootType(t); typ {
		case "object":
			return ShapeObject, nil
		case "string":
			return ShapeFree, nil
		default:
			return ShapeWrapped, nil
		}
	case 't', 'f':
		return ShapeWrapped, nil
	default:
		return 0, fmt.Errorf("field OutputSchema: expected a JSON Schema (an object or a boolean), got %s", OrNone(t))
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
func WrapOutputSchema(s json.RawMessage) (json.RawMessage, error) {
	if len(s) > MaxOutputSchemaBytes {
		return nil, fmt.Errorf("field OutputSchema: expected at most %d bytes, got %d", MaxOutputSchemaBytes, len(s))
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
		jsonptr.RebaseRefs(inner, wrappedPointer)
	default:
		return nil, fmt.Errorf("field OutputSchema: expected a JSON Schema (an object or a boolean), got %s", OrNone(s))
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
