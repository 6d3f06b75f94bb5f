package catalogue_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
)

func TestViolations_EveryLeafWithPointerAndKeyword(t *testing.T) {
	s, err := catalogue.CompileSchema(json.RawMessage(`{"type":"object","properties":{
		"q":{"type":"string","minLength":2},
		"items":{"type":"array","items":{"type":"object","properties":{"a/b":{"type":"integer"}}}}},
		"required":["q","n"]}`))
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"q":"x","items":[{"a/b":1},{"a/b":"no"}]}`))
	require.NoError(t, err)
	vs := catalogue.Violations(s.Validate(inst))
	got := map[string]string{}
	for _, v := range vs {
		got[v.Pointer] = v.Keyword
		assert.NotEmpty(t, v.Message)
	}
	assert.Equal(t, map[string]string{"": "required", "/q": "minLength", "/items/1/a~1b": "type"}, got)
	assert.Equal(t, "items[1].a/b", catalogue.FieldPath("/items/1/a~1b"))
	assert.Equal(t, "", catalogue.FieldPath(""))
	assert.Equal(t, "[0]", catalogue.FieldPath("/0"))

	other := catalogue.Violations(errors.New("boom"))
	assert.Equal(t, []catalogue.Violation{{Keyword: "schema", Message: "boom"}}, other)
	assert.Nil(t, catalogue.Violations(nil))
}
