package steptool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/catalogue/steptool"
	"github.com/toolpack-go/toolpack/result"
)

// A failed steps call is logged with its error type, never its text: the
// text may quote a step's failure (here a session token an upstream
// echoed), which the caller reads but the log must not keep.
func TestInvoke_FailureLoggedWithoutItsText(t *testing.T) {
	var logs bytes.Buffer
	reg := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	inv, err := steptool.New(steptool.Options{Tools: reg, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)
	require.NoError(t, reg.Add(&registry.Tool{Name: "auth.whoami", Description: "answers text",
		Handler: func(context.Context, *registry.Call) (result.Result[any], error) {
			return result.Failure[any]("upstream refused session=eyJhbGciOiJIUzI1NiJ9.SECRETPAYLOAD", result.PermissionDenied), nil
		}}))
	require.NoError(t, reg.Add(&registry.Tool{Name: "fmt.show", Description: "shows",
		Handler: func(context.Context, *registry.Call) (result.Result[any], error) { return result.Ok[any]("shown"), nil }}))
	tool := stepsTool(t, "who", `{"type":"object","properties":{}}`, "r = auth.whoami()\nfmt.show(x=r.id)\n")

	res, err := inv.Invoke(context.Background(), tool, json.RawMessage(`{}`))
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Contains(t, logs.String(), "error_type=")
	assert.NotContains(t, logs.String(), "SECRETPAYLOAD")
	assert.Contains(t, res.Error, "SECRETPAYLOAD", "the caller reads the step's failure")
}
