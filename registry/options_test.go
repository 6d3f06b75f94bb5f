package registry

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/result"
)

// Each negative numeric option is reported by Options.Validate naming its
// field and what was expected, never taken for the default; zero and
// positive values pass.
func TestOptionsValidate_NegativeFieldsNamed(t *testing.T) {
	for name, tc := range map[string]struct {
		opts Options
		want string
	}{
		"Timeout":         {Options{Timeout: -time.Second}, "registry: Options.Timeout is -1s; expected zero (no timeout) or a positive duration"},
		"Decode.MaxBytes": {Options{Decode: args.DecodeOptions{MaxBytes: -1}}, "registry: Options.Decode.MaxBytes is -1; expected zero (args.DefaultMaxBytes) or a positive number of bytes"},
		"Decode.MaxDepth": {Options{Decode: args.DecodeOptions{MaxDepth: -3}}, "registry: Options.Decode.MaxDepth is -3; expected zero (args.DefaultMaxDepth) or a positive number of levels"},
	} {
		t.Run(name, func(t *testing.T) {
			require.EqualError(t, tc.opts.Validate(), tc.want)
		})
	}
	all := Options{Timeout: -1, Decode: args.DecodeOptions{MaxBytes: -1, MaxDepth: -1}}.Validate()
	require.Error(t, all)
	for _, field := range []string{"Options.Timeout", "Options.Decode.MaxBytes", "Options.Decode.MaxDepth"} {
		assert.Contains(t, all.Error(), field, "every problem is reported at once")
	}
	assert.NoError(t, Options{}.Validate())
	assert.NoError(t, Options{Timeout: time.Second, Decode: args.DecodeOptions{MaxBytes: 10, MaxDepth: 2}}.Validate())
}

// New panics on options Validate refuses, with Validate's error naming the
// field, as time.NewTicker panics on a non-positive duration; before, a
// negative limit silently became the default.
func TestNew_PanicsOnNegativeOptionNamingTheField(t *testing.T) {
	assert.PanicsWithError(t, "registry: Options.Timeout is -1ns; expected zero (no timeout) or a positive duration",
		func() { New(Options{Timeout: -1}) })
	assert.PanicsWithError(t, "registry: Options.Decode.MaxBytes is -5; expected zero (args.DefaultMaxBytes) or a positive number of bytes",
		func() { New(Options{Decode: args.DecodeOptions{MaxBytes: -5}}) })
	assert.PanicsWithError(t, "registry: Options.Decode.MaxDepth is -1; expected zero (args.DefaultMaxDepth) or a positive number of levels",
		func() { New(Options{Decode: args.DecodeOptions{MaxDepth: -1}}) })
	r := New(Options{Prefix: new("")})
	assert.Equal(t, args.DefaultMaxBytes, r.MaxArgumentBytes(), "zero is the default")
}

// Func refuses negative ToolOptions.Decode caps naming the tool and the
// field, as it refuses a negative ToolOptions.Timeout.
func TestFunc_NegativeDecodeCapsRefused(t *testing.T) {
	type A struct {
		X int `json:"x"`
	}
	fn := func(context.Context, A) (result.Result[int], error) { return result.Ok(1), nil }
	_, err := Func("t", fn, ToolOptions{Decode: args.DecodeOptions{MaxBytes: -1}})
	require.ErrorIs(t, err, ErrInvalidTool)
	assert.Contains(t, err.Error(), `tool "t": ToolOptions.Decode.MaxBytes is -1; expected zero (args.DefaultMaxBytes) or a positive number of bytes`)
	_, err = Func("t", fn, ToolOptions{Decode: args.DecodeOptions{MaxDepth: -1}})
	require.ErrorIs(t, err, ErrInvalidTool)
	assert.Contains(t, err.Error(), `tool "t": ToolOptions.Decode.MaxDepth is -1; expected zero (args.DefaultMaxDepth) or a positive number of levels`)
}

// The Timeout middleware panics on a negative limit, naming it, rather
// than running without one.
func TestTimeout_NegativeLimitPanics(t *testing.T) {
	assert.PanicsWithValue(t, "registry: Timeout: d is -1s; expected zero (no limit) or a positive duration",
		func() { Timeout(-time.Second) })
	assert.NotPanics(t, func() { Timeout(0) })
}
