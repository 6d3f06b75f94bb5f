package hostconfig_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

// Expand expands as a configuration file does: ${NAME}, ${NAME:-default},
// $$ for $, a $ before anything but a letter, _, { or $ kept as written;
// its errors name the variable of a well-formed ${NAME} and quote nothing
// else of the text.
func TestExpand(t *testing.T) {
	lookup := env(map[string]string{"TOKEN": "t0k-value", "EMPTY": ""})
	for in, want := range map[string]string{
		"Bearer ${TOKEN}":       "Bearer t0k-value",
		"Bearer pre$$S3CR3Txyz": "Bearer pre$S3CR3Txyz",
		"a$":                    "a$",
		"5$9 $-x $. $ $/":       "5$9 $-x $. $ $/",
		"${UNSET_D:-a$b}":       "a$b",
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

	_, err := hostconfig.Expand("Bearer pre$$S3CR3Txyz ${UNSET_B}", lookup)
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

// A bare $NAME (a $ before a letter or _) is refused, neither expanded nor
// kept as the text "$NAME": the error says how to write either meaning
// and never quotes the text after the $, which may be part of a literal
// credential. $$ before a name stays a literal $.
func TestExpand_BareDollarBeforeANameRefused(t *testing.T) {
	lookup := env(map[string]string{"S3CR3T": "t0k-value"})
	for _, in := range []string{"Bearer $S3CR3Tabc", "pre$_S3CR3T", "${S3CR3T}$S3CR3Ttail", "$$$S3CR3Tz", "$S3CR3T"} {
		_, err := hostconfig.Expand(in, lookup)
		require.Error(t, err, "a bare $NAME is refused")
		assert.ErrorIs(t, err, hostconfig.ErrInvalid)
		assert.Contains(t, err.Error(), "a bare $ before a name is not expanded: write ${NAME} to expand, or $$ for a literal $")
		assert.NotContains(t, err.Error(), "S3CR3T", "the text after the $ is never quoted")
		assert.NotContains(t, err.Error(), "t0k-value")
	}
	got, err := hostconfig.Expand("$$HOME and $$_x", lookup)
	require.NoError(t, err)
	assert.Equal(t, "$HOME and $_x", got)
}
