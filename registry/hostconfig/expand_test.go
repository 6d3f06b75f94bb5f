package hostconfig_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

// Expand expands as a configuration file does: ${NAME}, ${NAME:-default},
// $$ for $, any other $ kept as written; its errors name the variable of a
// well-formed ${NAME} and quote nothing else of the text.
func TestExpand(t *testing.T) {
	lookup := env(map[string]string{"TOKEN": "t0k-value", "EMPTY": ""})
	for in, want := range map[string]string{
		"Bearer ${TOKEN}":       "Bearer t0k-value",
		"Bearer pre$S3CR3Txyz":  "Bearer pre$S3CR3Txyz",
		"a$":                    "a$",
		"$$${TOKEN}":            "$t0k-value",
		"${EMPTY:-fallback}":    "fallback",
		"${UNSET_A:-}x":         "x",
		"no variables":          "no variables",
		"cost: $5 and ${TOKEN}": "cost: $5 and t0k-value",
	} {
		got, err := hostconfig.Expand(in, lookup)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}

	_, err := hostconfig.Expand("Bearer pre$S3CR3Txyz ${UNSET_B}", lookup)
	require.Error(t, err)
	assert.True(t, errors.Is(err, hostconfig.ErrInvalid))
	assert.Contains(t, err.Error(), "environment variable UNSET_B is not set")
	assert.NotContains(t, err.Error(), "S3CR3T")

	for _, in := range []string{"pre${S3CR3T-xyz}", "pre${S3CR3Txyz", "${UNSET_C:-S3CR3T${X}}"} {
		_, err := hostconfig.Expand(in, lookup)
		require.Error(t, err, in)
		assert.NotContains(t, err.Error(), "S3CR3T", in)
	}
}
