package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

func onlyText(t require.TestingT, res *sdk.CallToolResult) string {
	require.Len(t, res.Content, 1)
	tc, ok := res.Content[0].(*sdk.TextContent)
	require.True(t, ok)
	return tc.Text
}

// TestMappingTable checks toCallToolResult case by case, in both displays,
// for tools without an advertised output schema (shapeFree); the other
// shapes are covered by TestMappingShapes.
func TestMappingTable(t *testing.T) {
	type point struct {
		X int `json:"x"`
	}
	cases := []struct {
		name       string
		in         result.Result[any]
		display    Display
		wantText   string
		wantStruct string // JSON; "" means no structured content
		wantError  bool
	}{
		{"string value shown as is", result.Ok[any]("a <b> & c"), DisplayValue, "a <b> & c", "", false},
		{"string in envelope", result.Ok[any]("hi"), DisplayEnvelope, `{"success":true,"value":"hi"}`, "", false},
		{"raw JSON string is a string", result.Ok[any](json.RawMessage(` "md" `)), DisplayValue, "md", "", false},
		{"struct value", result.Ok[any](point{X: 1}), DisplayValue, `{"x":1}`, `{"x":1}`, false},
		{"struct in envelope", result.Ok[any](point{X: 2}), DisplayEnvelope, `{"success":true,"value":{"x":2}}`, `{"x":2}`, false},
		{"raw object", result.Ok[any](json.RawMessage(`{"a": [1, 2]}`)), DisplayValue, `{"a": [1, 2]}`, `{"a":[1,2]}`, false},
		{"array value", result.Ok[any]([]int{1, 2}), DisplayValue, `[1,2]`, `{"value":[1,2]}`, false},
		{"number value", result.Ok[any](json.Number("12345678901234567890")), DisplayValue, `12345678901234567890`, `{"value":12345678901234567890}`, false},
		{"no HTML escaping in value text", result.Ok[any](map[string]string{"h": "<b>"}), DisplayValue, `{"h":"<b>"}`, `{"h":"<b>"}`, false},
		{"nil value", result.Ok[any](nil), DisplayValue, `null`, "", false},
		{"nil value shows its message", result.Ok[any](nil).WithMessage("Deleted doc-1."), DisplayValue, `Deleted doc-1.`, "", false},
		{"nil value in envelope", result.Ok[any](nil), DisplayEnvelope, `{"success":true,"value":null}`, "", false},
		{"failure text", result.Failure[any]("boom", result.UpstreamFailure), DisplayValue, "boom", "", true},
		{"failure without text", result.Failure[any]("", result.Timeout), DisplayValue, "the tool call failed (timeout)", "", true},
		{"failure without anything", result.Result[any]{}, DisplayValue, "the tool call failed", "", true},
		{"failure in envelope", result.Failure[any]("boom", result.UpstreamFailure).WithMessage("sorry"), DisplayEnvelope,
			`{"success":false,"error":"boom","error_type":"upstream_failure","message":"sorry"}`, "", true},
		{"validation after a JSON round trip", result.Failure[any]("invalid arguments: q: required", result.ValidationError).
			WithErrorData(json.RawMessage(`[{"field":"q","rule":"required","message":"is required"},{"field":"","rule":"syntax","message":"bad JSON"}]`)),
			DisplayValue, "invalid arguments (2 problems); correct every one and call again:\n- q: is required [required]\n- (arguments): bad JSON [syntax]", "", true},
		{"error data of another shape is not listed", result.Failure[any]("upstream said 404", result.NotFound).
			WithErrorData(map[string]int{"status": 404}), DisplayValue, "upstream said 404", "", true},
		{"field errors of a non-validation failure are listed after the text", result.Failure[any]("refused", result.SecurityError).
			WithErrorData([]args.FieldError{{Field: "path", Rule: "escape", Message: "leaves the root"}}), DisplayValue,
			"refused\n- path: leaves the root [escape]", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := toCallToolResult(c.in, c.display, shapeFree)
			require.NoError(t, err)
			assert.Equal(t, c.wantError, out.IsError)
			got := onlyText(t, out)
			if c.display == DisplayEnvelope {
				assert.JSONEq(t, c.wantText, got)
			} else {
				assert.Equal(t, c.wantText, got)
			}
			if c.wantStruct == "" {
				assert.Nil(t, out.StructuredContent)
			} else {
				b, err := json.Marshal(out.StructuredContent)
				require.NoError(t, err)
				assert.JSONEq(t, c.wantStruct, string(b))
			}
		})
	}
}

func TestMappingUnrepresentableIsError(t *testing.T) {
	_, err := toCallToolResult(result.Ok[any](math.Inf(1)), DisplayValue, shapeFree)
	assert.ErrorContains(t, err, "value of type float64")
	_, err = toCallToolResult(result.Ok[any](json.RawMessage(`{"a":`)), DisplayValue, shapeFree)
	assert.ErrorContains(t, err, "expected valid JSON")
	_, err = toCallToolResult(result.Failure[any]("x", "t").WithErrorData(func() {}), DisplayEnvelope, shapeFree)
	assert.ErrorContains(t, err, "error_data")
}

// TestPropertyValueDisplayShowsStringAsIs: for any string value, value
// display shows exactly that string and the envelope round-trips to it.
func TestPropertyValueDisplayShowsStringAsIs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "s")
		out, err := toCallToolResult(result.Ok[any](s), DisplayValue, shapeFree)
		require.NoError(t, err)
		require.Equal(t, s, onlyText(t, out))
		require.Nil(t, out.StructuredContent)

		out, err = toCallToolResult(result.Ok[any](s), DisplayEnvelope, shapeFree)
		require.NoError(t, err)
		var env result.Result[string]
		require.NoError(t, json.Unmarshal([]byte(onlyText(t, out)), &env))
		require.True(t, env.Success)
		require.Equal(t, strings.ToValidUTF8(s, "\uFFFD"), env.Value)
	})
}

// TestPropertyValidationListsEveryField: every generated field error shows
// in value display, in order, and in the envelope's error_data.
func TestPropertyValidationListsEveryField(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 20).Draw(t, "n")
		fes := make([]args.FieldError, n)
		for i := range fes {
			fes[i] = args.FieldError{
				Field:   rapid.StringMatching(`[a-z][a-z0-9_]{0,8}(\[[0-9]\])?`).Draw(t, "field"),
				Rule:    rapid.SampledFrom([]string{"required", "min", "max", "oneof", "type", "unknown_field"}).Draw(t, "rule"),
				Message: rapid.StringMatching(`[a-z ]{1,30}`).Draw(t, "message"),
			}
		}
		r := args.Failure[any](&args.ValidationError{Errors: fes})
		out, err := toCallToolResult(r, DisplayValue, shapeFree)
		require.NoError(t, err)
		require.True(t, out.IsError)
		lines := strings.Split(onlyText(t, out), "\n")
		require.Len(t, lines, n+1)
		for i, fe := range fes {
			require.Equal(t, "- "+fe.Field+": "+fe.Message+" ["+fe.Rule+"]", lines[i+1])
		}

		out, err = toCallToolResult(r, DisplayEnvelope, shapeFree)
		require.NoError(t, err)
		var env struct {
			ErrorData []args.FieldError `json:"error_data"`
		}
		require.NoError(t, json.Unmarshal([]byte(onlyText(t, out)), &env))
		require.Equal(t, fes, env.ErrorData)
	})
}

func TestCheckInputSchema(t *testing.T) {
	for _, ok := range []string{`{"type":"object"}`, `{"type":"object","properties":{}}`} {
		assert.NoError(t, checkInputSchema(json.RawMessage(ok)), ok)
	}
	for s, want := range map[string]string{
		``:                    "got none",
		`[]`:                  "expected a JSON object",
		`null`:                "expected a JSON object",
		`{"type":"string"}`:   `got "type":"string"`,
		`{"properties":{}}`:   `got "type":(none)`,
		`{"type":["object"]}`: `got "type":["object"]`,
	} {
		err := checkInputSchema(json.RawMessage(s))
		require.Error(t, err, s)
		assert.Contains(t, err.Error(), "field InputSchema", s)
		assert.Contains(t, err.Error(), want, s)
	}
}

func TestSDKToolRejectsInvalidOutputSchema(t *testing.T) {
	_, err := sdkTool(&registry.Tool{Name: "x", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{`)}, "host")
	assert.ErrorContains(t, err, "field OutputSchema")
}

// TestHandlerUnknownToolIsInvalidParams covers the race where the SDK still
// lists a tool that the registry no longer has.
func TestHandlerUnknownToolIsInvalidParams(t *testing.T) {
	reg := registry.New(registry.Options{Prefix: new("")})
	b := &binding{reg: reg, log: slog.New(slog.DiscardHandler)}
	_, err := b.handler("gone", DisplayValue)(context.Background(), &sdk.CallToolRequest{Params: &sdk.CallToolParamsRaw{Name: "gone"}})
	var werr *jsonrpc.Error
	require.True(t, errors.As(err, &werr))
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), werr.Code)
	assert.Equal(t, `unknown tool "gone"`, werr.Message)
}

func TestProtocolErrorKinds(t *testing.T) {
	var logs bytes.Buffer
	b := &binding{log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	ctx := context.Background()
	assert.Contains(t, b.protocolError(ctx, "t", context.Canceled, true).Message, "cancelled")
	assert.Contains(t, b.protocolError(ctx, "t", context.DeadlineExceeded, true).Message, "timed out")
	e := b.protocolError(ctx, "t", errors.New("token=abc"), true)
	assert.Equal(t, int64(jsonrpc.CodeInternalError), e.Code)
	assert.NotContains(t, e.Message, "abc")
	assert.NotContains(t, logs.String(), "level=ERROR", "the registry logged it already: one ERROR line per failure")
	b.protocolError(ctx, "t", errors.New("value does not marshal"), false)
	assert.Contains(t, logs.String(), "level=ERROR", "the adapter's own failures are logged at ERROR")
}
