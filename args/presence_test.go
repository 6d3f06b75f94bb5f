package args

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type maxArgs struct {
	Query      string `json:"query" validate:"required"`
	MaxResults *int   `json:"max_results" validate:"omitempty,gte=1,lte=25" nullable:"false"`
}

// nullable:"false" on an optional argument pointer: absent is allowed,
// null is refused naming the field, and the schema states exactly that
// (the type without "null", the property not required).
func TestNullableFalse_OptionalArgumentRefusesNull(t *testing.T) {
	raw, err := SchemaFor[maxArgs]()
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{"query":{"type":"string","minLength":1},"max_results":{"type":"integer","minimum":1,"maximum":25}},"required":["query"],"additionalProperties":false}`, string(raw))

	a, err := Decode[maxArgs]([]byte(`{"query":"go"}`), DecodeOptions{})
	require.NoError(t, err)
	assert.Nil(t, a.MaxResults, "absent stays nil")
	a, err = Decode[maxArgs]([]byte(`{"query":"go","max_results":5}`), DecodeOptions{})
	require.NoError(t, err)
	assert.Equal(t, 5, *a.MaxResults)

	_, err = Decode[maxArgs]([]byte(`{"query":"go","max_results":null}`), DecodeOptions{})
	var ve *ValidationError
	require.True(t, errors.As(err, &ve), "%v", err)
	f := fieldsOf(ve)["max_results"]
	assert.Equal(t, "type", f.Rule)
	assert.Equal(t, "expected integer, got null", f.Message)
	_, err = Decode[maxArgs]([]byte(`{"query":"go","max_results":"x"}`), DecodeOptions{})
	require.True(t, errors.As(err, &ve))
	assert.Equal(t, `expected integer, got string "x"`, fieldsOf(ve)["max_results"].Message, "no \"or null\" offered")

	md, err := Markdown[maxArgs]()
	require.NoError(t, err)
	assert.NotContains(t, md, "or null")
}

type searchHit struct {
	Title string  `json:"title"`
	Date  *string `json:"date" optional:"true"`
	Note  string  `json:"note,omitempty"`
}

// optional:"true" on a result field: it is always written (null when
// nil) but not listed as required; null stays allowed.
func TestOptionalTrue_ResultFieldNotRequired(t *testing.T) {
	raw, err := OutputSchemaFor[searchHit]()
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{"title":{"type":"string"},"date":{"type":["string","null"]},"note":{"type":"string"}},"required":["title"],"additionalProperties":false}`, string(raw))
	b, err := json.Marshal(searchHit{Title: "t"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"title":"t","date":null}`, string(b), "written as null")
	require.NoError(t, ValidateOutput(searchHit{Title: "t"}))
}

// The presence tags are refused where they mean nothing, with the fix.
func TestPresenceTags_Misuse(t *testing.T) {
	type notPtr struct {
		N int `json:"n" nullable:"false"`
	}
	type badValue struct {
		N *int `json:"n" nullable:"true"`
	}
	type optionalArg struct {
		N *int `json:"n" optional:"true"`
	}
	_, err := SchemaFor[notPtr]()
	assert.ErrorIs(t, err, ErrUnsupportedTag)
	assert.ErrorContains(t, err, "pointer fields")
	_, err = SchemaFor[badValue]()
	assert.ErrorIs(t, err, ErrUnsupportedTag)
	assert.ErrorContains(t, err, `the only value is "false"`)
	_, err = SchemaFor[optionalArg]()
	assert.ErrorIs(t, err, ErrUnsupportedTag)
	assert.ErrorContains(t, err, "applies to results")

	type nullableResult struct {
		N *int `json:"n" nullable:"false"`
	}
	type optionalRequired struct {
		N *int `json:"n" validate:"required" optional:"true"`
	}
	_, err = OutputSchemaFor[nullableResult]()
	assert.ErrorIs(t, err, ErrUnsupportedTag)
	_, err = OutputSchemaFor[optionalRequired]()
	assert.ErrorIs(t, err, ErrUnsupportedTag)
	assert.ErrorContains(t, err, "contradicts")
}
