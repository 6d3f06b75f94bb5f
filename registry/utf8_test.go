package registry

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/result"
)

type echoUTF8Args struct {
	Text string `json:"text"`
}

// Arguments that are not UTF-8 (JSON text must be, RFC 8259) are refused
// before any decoder, for every tool — a typed one (Func) and one reading
// Call.Raw — as a validation_error naming the field (rule invalid_utf8),
// like malformed JSON; the handler never sees the bytes, nor a U+FFFD
// made of them, and the failure never quotes them.
func TestInvoke_InvalidUTF8Refused(t *testing.T) {
	r := New(noPrefix())
	var called atomic.Int32
	echo, err := Func("echo", func(ctx context.Context, a echoUTF8Args) (result.Result[string], error) {
		called.Add(1)
		return result.Ok(a.Text), nil
	}, ToolOptions{})
	require.NoError(t, err)
	raw := rawTool("raw", func(ctx context.Context, c *Call) (result.Result[any], error) {
		called.Add(1)
		return result.Ok[any](string(c.Raw)), nil
	})
	require.NoError(t, r.Add(echo, raw))

	for _, tc := range []struct {
		tool, raw, field string
	}{
		{"echo", "{\"text\":\"a\xffb\"}", "text"},
		{"raw", "{\"text\":\"a\xffb\"}", "text"},
		{"raw", "{\"q\":{\"items\":[\"ok\",\"\xe2\x82\"]}}", "q.items[1]"},
	} {
		res, err := r.Invoke(t.Context(), tc.tool, json.RawMessage(tc.raw))
		require.NoError(t, err, "%q", tc.raw)
		assert.False(t, res.Success, "%q", tc.raw)
		assert.Equal(t, result.ValidationError, res.ErrorType, "%q", tc.raw)
		require.IsType(t, []args.FieldError{}, res.ErrorData, "%q", tc.raw)
		fe := res.ErrorData.([]args.FieldError)
		require.Len(t, fe, 1, "%q", tc.raw)
		assert.Equal(t, args.RuleInvalidUTF8, fe[0].Rule, "%q", tc.raw)
		assert.Equal(t, tc.field, fe[0].Field, "%q", tc.raw)
		assert.Contains(t, fe[0].Message, "at byte", "%q", tc.raw)
		assert.True(t, utf8.ValidString(res.Error), "the bytes are echoed: %q", res.Error)
	}
	assert.Zero(t, called.Load(), "no handler may run on invalid UTF-8")

	// Valid UTF-8 still passes, untouched.
	res, err := r.Invoke(t.Context(), "echo", json.RawMessage("{\"text\":\"d\u00e9j\u00e0 \U0001F600\"}"))
	require.NoError(t, err)
	assert.Equal(t, "d\u00e9j\u00e0 \U0001F600", res.Value)
	res, err = r.Invoke(t.Context(), "raw", json.RawMessage("{\"text\":\"\u00e9\"}"))
	require.NoError(t, err)
	assert.Equal(t, "{\"text\":\"\u00e9\"}", res.Value)
}

// Arguments that are not JSON either get the syntax error first, as the
// typed decoder gives it (args.Decode), whichever stage refuses them.
func TestInvoke_InvalidUTF8InBrokenJSONIsASyntaxError(t *testing.T) {
	r := New(noPrefix())
	echo, err := Func("echo", func(ctx context.Context, a echoUTF8Args) (result.Result[string], error) {
		return result.Ok(a.Text), nil
	}, ToolOptions{})
	require.NoError(t, err)
	require.NoError(t, r.Add(echo, rawTool("raw", okHandler(1))))
	for _, tool := range []string{"echo", "raw"} {
		for raw, msg := range map[string]string{
			"{\"text\":\"a\xffb\"": "unexpected end of input",
			"{\"text\":\"a\"}\xff": "at byte 12: unexpected data after the top-level value", // outside any string
		} {
			res, err := r.Invoke(t.Context(), tool, json.RawMessage(raw))
			require.NoError(t, err)
			require.IsType(t, []args.FieldError{}, res.ErrorData, tool)
			fe := res.ErrorData.([]args.FieldError)
			require.Len(t, fe, 1, tool)
			assert.Equal(t, "syntax", fe[0].Rule, "%s %q", tool, raw)
			assert.Contains(t, fe[0].Message, msg, "%s %q", tool, raw)
			assert.True(t, utf8.ValidString(res.Error))
		}
	}
}
