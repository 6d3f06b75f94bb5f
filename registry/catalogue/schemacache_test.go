package catalogue

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A SchemaCache compiles each schema text once, keys by the text (two
// tools with one schema share it, one id with another schema does not),
// refuses what does not compile without keeping it, and stays bounded.
func TestSchemaCache_ByTextBoundedErrorsNotKept(t *testing.T) {
	var c SchemaCache
	a := json.RawMessage(`{"type":"object"}`)
	s1, err := c.Compile(a)
	require.NoError(t, err)
	s2, err := c.Compile(json.RawMessage(`{"type":"object"}`))
	require.NoError(t, err)
	assert.Same(t, s1, s2, "the same text, compiled once")
	s3, err := c.Compile(json.RawMessage(`{"type":"string"}`))
	require.NoError(t, err)
	assert.NotSame(t, s1, s3)

	_, err = c.Compile(json.RawMessage(`{"type":"nope"}`))
	require.Error(t, err)
	assert.Len(t, c.m, 2, "a schema that does not compile is not kept")

	for i := range maxCachedSchemas + 10 {
		_, err := c.Compile(json.RawMessage(fmt.Sprintf(`{"type":"integer","$comment":"%d"}`, i)))
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, len(c.m), maxCachedSchemas)
}
