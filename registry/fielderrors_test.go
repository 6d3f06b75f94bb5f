package registry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

type loadArgs struct {
	Model string `json:"model" validate:"required"`
	Port  int    `json:"port" validate:"required,gte=8100,lte=8139"`
}

func loadTool(t *testing.T, o registry.ToolOptions) (*registry.Tool, error) {
	t.Helper()
	return registry.Func("load", func(context.Context, loadArgs) (result.Result[string], error) { return result.Ok("ok"), nil }, o)
}

// A contract's own error type for a failed argument (invalid_port) takes
// the place of validation_error, every problem still listed; failures of
// other arguments stay validation_error.
func TestFieldErrorTypes_ContractTypeForAnArgument(t *testing.T) {
	tool, err := loadTool(t, registry.ToolOptions{Doc: "Loads.",
		Errors:          []registry.ErrorSpec{{Type: "invalid_port", Status: 400, Description: "port outside 8100–8139"}},
		FieldErrorTypes: map[string]result.ErrorType{"port": "invalid_port"}})
	require.NoError(t, err)
	reg := registry.New(registry.Options{Logger: quiet})
	require.NoError(t, reg.Add(tool))

	r, err := reg.Invoke(context.Background(), "load", json.RawMessage(`{"model":"","port":9000}`))
	require.NoError(t, err)
	assert.Equal(t, result.ErrorType("invalid_port"), r.ErrorType)
	fes, ok := r.ErrorData.([]args.FieldError)
	require.True(t, ok)
	var fields []string
	for _, fe := range fes {
		fields = append(fields, fe.Field)
	}
	assert.ElementsMatch(t, []string{"model", "port"}, fields, "every problem still listed")

	r, err = reg.Invoke(context.Background(), "load", json.RawMessage(`{"model":"","port":8100}`))
	require.NoError(t, err)
	assert.Equal(t, result.ValidationError, r.ErrorType)
}

// The mapping names real arguments and declared error types.
func TestFieldErrorTypes_Checked(t *testing.T) {
	reg := registry.New(registry.Options{Logger: quiet})
	tool, err := loadTool(t, registry.ToolOptions{FieldErrorTypes: map[string]result.ErrorType{"port": "invalid_port"}})
	require.NoError(t, err)
	require.ErrorContains(t, reg.Add(tool), `error type "invalid_port" is not declared in Errors`)
	tool, err = loadTool(t, registry.ToolOptions{Errors: []registry.ErrorSpec{{Type: "invalid_port", Status: 400}},
		FieldErrorTypes: map[string]result.ErrorType{"prot": "invalid_port"}})
	require.NoError(t, err)
	require.ErrorContains(t, reg.Add(tool), `expected a property of the input schema, got "prot"`)
}

// Past args.MaxFieldErrors problems (a body full of unknown keys), the
// problem of an argument with an error type of its own is still listed,
// and still decides the failure's type.
func TestFieldErrorTypes_DecideTheTypePastTheErrorCap(t *testing.T) {
	tool, err := loadTool(t, registry.ToolOptions{Doc: "Loads.",
		Errors:          []registry.ErrorSpec{{Type: "invalid_port", Status: 400, Description: "port outside 8100–8139"}},
		FieldErrorTypes: map[string]result.ErrorType{"port": "invalid_port"}})
	require.NoError(t, err)
	reg := registry.New(registry.Options{Logger: quiet})
	require.NoError(t, reg.Add(tool))
	for _, unknown := range []int{1, 99, 100, 150, 5000} {
		body := []byte(`{"model":"m","port":9000`)
		for i := range unknown {
			body = fmt.Appendf(body, `,"k%d":1`, i)
		}
		body = append(body, '}')
		r, err := reg.Invoke(context.Background(), "load", body)
		require.NoError(t, err)
		assert.Equal(t, result.ErrorType("invalid_port"), r.ErrorType, "%d unknown keys", unknown)
		fes, ok := r.ErrorData.([]args.FieldError)
		require.True(t, ok)
		assert.LessOrEqual(t, len(fes), args.MaxFieldErrors+2, "%d unknown keys", unknown)
	}
}
