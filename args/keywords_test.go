package args

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exclusive may carry a or b, never both: a rule tags cannot say.
type exclusive struct {
	ID int    `json:"id"`
	A  string `json:"a,omitempty"`
	B  string `json:"b,omitempty"`
}

func (exclusive) JSONSchemaKeywords() json.RawMessage {
	return json.RawMessage(`{"not":{"required":["a","b"]}}`)
}

type holder struct {
	Items []exclusive `json:"items" validate:"required"`
}

// A result struct's own keywords are merged into its generated schema and
// enforced by ValidateOutput, at the root and nested, with the JSON path.
func TestSchemaKeywords_StatedAndEnforced(t *testing.T) {
	raw, err := OutputSchemaFor[exclusive]()
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{"id":{"type":"integer"},"a":{"type":"string"},"b":{"type":"string"}},"required":["id"],"additionalProperties":false,"not":{"required":["a","b"]}}`, string(raw))

	require.NoError(t, ValidateOutput(exclusive{ID: 1, A: "x"}))
	err = ValidateOutput(exclusive{ID: 1, A: "x", B: "y"})
	var ve *ValidationError
	require.True(t, errors.As(err, &ve), "%v", err)
	assert.Equal(t, "schema", ve.Errors[0].Rule)

	err = ValidateOutput(holder{Items: []exclusive{{ID: 1}, {ID: 2, A: "x", B: "y"}}})
	require.True(t, errors.As(err, &ve), "%v", err)
	assert.Equal(t, "items[1]", ve.Errors[0].Field)

	// The agreement holds: the schema library judges the written JSON the
	// same way.
	s := jsonSchemaValidator(t, raw)
	for _, v := range []exclusive{{ID: 1}, {ID: 1, A: "x"}, {ID: 1, A: "x", B: "y"}} {
		b, _ := json.Marshal(v)
		accepts, ok := schemaAccepts(s, b)
		require.True(t, ok)
		assert.Equal(t, accepts, ValidateOutput(v) == nil, "%s", b)
	}
}

type restates struct {
	A string `json:"a"`
}

func (restates) JSONSchemaKeywords() json.RawMessage { return json.RawMessage(`{"required":["a"]}`) }

type refers struct {
	A string `json:"a"`
}

func (refers) JSONSchemaKeywords() json.RawMessage {
	return json.RawMessage(`{"allOf":[{"$ref":"#/$defs/x"}]}`)
}

type ptrKeywords struct {
	A string `json:"a"`
}

func (*ptrKeywords) JSONSchemaKeywords() json.RawMessage { return json.RawMessage(`{}`) }

type argKeywords struct {
	A string `json:"a"`
}

func (argKeywords) JSONSchemaKeywords() json.RawMessage { return json.RawMessage(`{}`) }

// Keywords that would contradict the generated schema, reach outside it,
// sit on a pointer receiver or on an argument type are refused, named.
func TestSchemaKeywords_Misuse(t *testing.T) {
	_, err := OutputSchemaFor[restates]()
	assert.ErrorIs(t, err, ErrUnsupportedType)
	assert.ErrorContains(t, err, `"required" may not be given`)
	_, err = OutputSchemaFor[refers]()
	assert.ErrorIs(t, err, ErrUnsupportedType)
	assert.ErrorContains(t, err, "$ref")
	_, err = OutputSchemaFor[ptrKeywords]()
	assert.ErrorContains(t, err, "value receiver")
	_, err = SchemaFor[argKeywords]()
	assert.ErrorIs(t, err, ErrUnsupportedType)
	assert.ErrorContains(t, err, "result types only")
}

// hugeBound states a bound past what the schema validator reads.
type hugeBound struct {
	N json.Number `json:"n"`
}

func (hugeBound) JSONSchemaKeywords() json.RawMessage {
	return json.RawMessage(`{"allOf":[{"properties":{"n":{"minimum":1e1000001}}}]}`)
}

// rawNumber carries a number as written (json.Number), checked by its
// type's keywords.
type rawNumber struct {
	N json.Number `json:"n"`
}

func (rawNumber) JSONSchemaKeywords() json.RawMessage {
	return json.RawMessage(`{"allOf":[{"properties":{"n":{"minimum":0}}}]}`)
}

// A number past the schema validator's bounds (more than 400 digits or an
// exponent beyond ±400) is refused, named: in keywords when the type is
// described, in a value when it is checked — never a panic (the validator
// panicked comparing 1e1000001 with a bound).
func TestSchemaKeywords_NumbersPastTheBoundsRefused(t *testing.T) {
	_, err := OutputSchemaFor[hugeBound]()
	assert.ErrorIs(t, err, ErrUnsupportedType)
	assert.ErrorContains(t, err, `at "/allOf/0/properties/n/minimum": expected a number written with at most 400 digits`)

	require.NoError(t, ValidateOutput(rawNumber{N: "1e300"}))
	err = ValidateOutput(rawNumber{N: "1e1000001"})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "type", ve.Errors[0].Rule)
	assert.Contains(t, ve.Errors[0].Message, `at "/n": expected a number written with at most 400 digits`)
}
