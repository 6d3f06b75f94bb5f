package result_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/result"
)

func TestOkCreatesSuccess(t *testing.T) {
	r := result.Ok(42).WithMessage("found it").WithInstruction("use it")
	assert.True(t, r.Success)
	assert.Equal(t, 42, r.Value)
	assert.Empty(t, r.Error)
	assert.Empty(t, r.ErrorType)
	assert.Equal(t, "found it", r.Message)
	assert.Equal(t, "use it", r.Instruction)
	assert.NoError(t, r.Err())
}

func TestFailureCreatesFailure(t *testing.T) {
	cause := &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrNotExist}
	r := result.Failure[int]("no such document", result.NotFound).
		WithException(cause).WithMessage("The document is gone.").WithInstruction("Do not retry.")
	assert.False(t, r.Success)
	assert.Zero(t, r.Value)
	assert.Equal(t, "no such document", r.Error)
	assert.Equal(t, result.NotFound, r.ErrorType)
	assert.Same(t, cause, r.Exception)
	assert.Equal(t, "The document is gone.", r.Message)
	assert.Equal(t, "Do not retry.", r.Instruction)

	err := r.Err()
	var fe *result.FailureError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, result.NotFound, fe.Type)
	assert.ErrorIs(t, err, fs.ErrNotExist, "the exception stays reachable through errors.Is")
	assert.Equal(t, "not_found: no such document", err.Error())

	f := result.Failuref[string](result.ValidationError, "field %q: %d errors", "q", 2)
	assert.Equal(t, `field "q": 2 errors`, f.Error)
}

func TestJSONFormFlattensException(t *testing.T) {
	cause := &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrNotExist}
	r := result.Failure[string]("cannot open", result.NotFound).WithException(cause)
	s, err := r.JSON()
	require.NoError(t, err)
	assert.JSONEq(t, `{"success":false,"error":"cannot open","error_type":"not_found",
		"exception_type":"*fs.PathError","exception_message":"open /x: file does not exist"}`, s)

	var back result.Result[string]
	require.NoError(t, json.Unmarshal([]byte(s), &back))
	var ex *result.Exception
	require.ErrorAs(t, back.Exception, &ex)
	assert.Equal(t, "*fs.PathError", ex.Type)
	assert.Equal(t, "open /x: file does not exist", ex.Message)

	// An *Exception keeps its own type name on the way out.
	again, err := back.JSON()
	require.NoError(t, err)
	assert.JSONEq(t, s, again)
}

func TestJSONOmitsEmptyOptionalFields(t *testing.T) {
	s, err := result.Ok("").JSON()
	require.NoError(t, err)
	assert.JSONEq(t, `{"success":true,"value":""}`, s, "value is present on success even when empty")

	s, err = result.Ok[any](nil).JSON()
	require.NoError(t, err)
	assert.JSONEq(t, `{"success":true,"value":null}`, s)

	s, err = result.Failure[int]("bad", result.ValidationError).JSON()
	require.NoError(t, err)
	assert.JSONEq(t, `{"success":false,"error":"bad","error_type":"validation_error"}`, s,
		"value and every empty optional field are omitted on failure")

	s, err = result.Failure[int]("bad", result.ValidationError).
		WithErrorData([]map[string]string{{"field": "q", "message": "is required"}}).JSON()
	require.NoError(t, err)
	assert.JSONEq(t, `{"success":false,"error":"bad","error_type":"validation_error",
		"error_data":[{"field":"q","message":"is required"}]}`, s)
}

func TestJSONReportsUnmarshalableValue(t *testing.T) {
	_, err := result.Ok(make(chan int)).JSON()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "marshal value")

	var r result.Result[int]
	err = json.Unmarshal([]byte(`{"success":true,"value":"x"}`), &r)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "field value")
}

func TestInstructionSeparateFromMessage(t *testing.T) {
	r := result.Ok("done").WithMessage("Saved.").WithInstruction("Do not save again.")
	s, err := r.JSON()
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &m))
	assert.Equal(t, "Saved.", m["message"])
	assert.Equal(t, "Do not save again.", m["instruction"])
}

func TestInstructionsApply(t *testing.T) {
	ins := result.Instructions{Success: "S", Failure: "F"}
	assert.Equal(t, "S", result.Apply(ins, result.Ok(1)).Instruction)
	assert.Equal(t, "F", result.Apply(ins, result.Failure[int]("x", result.NotFound)).Instruction)
	assert.Equal(t, "own", result.Apply(ins, result.Ok(1).WithInstruction("own")).Instruction,
		"a result's own instruction wins")
	assert.Empty(t, result.Apply(result.Instructions{}, result.Ok(1)).Instruction, "zero Instructions apply nothing")
	d := result.DefaultInstructions()
	assert.NotEmpty(t, d.Success)
	assert.NotEmpty(t, d.Failure)
}

type doc struct {
	ID    int      `json:"id"`
	Title string   `json:"title"`
	Tags  []string `json:"tags,omitempty"`
}

func TestAnyKeepsEverything(t *testing.T) {
	cause := errors.New("boom")
	r := result.Failure[doc]("x", result.UpstreamFailure).WithException(cause).
		WithMessage("m").WithInstruction("i").WithErrorData(map[string]int{"n": 1})
	a := r.Any()
	assert.Equal(t, r.Success, a.Success)
	assert.Nil(t, a.Value, "a failure carries no value")
	assert.Equal(t, r.Error, a.Error)
	assert.Equal(t, r.ErrorType, a.ErrorType)
	assert.Equal(t, r.Message, a.Message)
	assert.Equal(t, r.Instruction, a.Instruction)
	assert.Same(t, cause, a.Exception)
	assert.Equal(t, r.ErrorData, a.ErrorData)

	ok := result.Ok(doc{ID: 1, Title: "t"}).WithMessage("m")
	j1, err := ok.JSON()
	require.NoError(t, err)
	j2, err := ok.Any().JSON()
	require.NoError(t, err)
	assert.Equal(t, j1, j2, "the JSON form is the same before and after Any")
}

func TestAsRecoversType(t *testing.T) {
	a := result.Ok(doc{ID: 7}).Any()
	back, err := result.As[doc](a)
	require.NoError(t, err)
	assert.Equal(t, doc{ID: 7}, back.Value)

	_, err = result.As[string](a)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "result_test.doc")
	assert.Contains(t, err.Error(), "string")

	f, err := result.As[doc](result.Failure[any]("x", result.NotFound))
	require.NoError(t, err)
	assert.False(t, f.Success)
}

// genResult draws a Result with every optional field set or not.
func genResult[T any](value *rapid.Generator[T]) *rapid.Generator[result.Result[T]] {
	return rapid.Custom(func(t *rapid.T) result.Result[T] {
		text := rapid.StringN(0, 20, -1)
		var r result.Result[T]
		if rapid.Bool().Draw(t, "success") {
			r = result.Ok(value.Draw(t, "value"))
		} else {
			r = result.Failure[T](rapid.StringN(1, 20, -1).Draw(t, "error"),
				result.ErrorType(rapid.SampledFrom([]string{"validation_error", "not_found", "timeout", "custom_kind"}).Draw(t, "type")))
			if rapid.Bool().Draw(t, "hasException") {
				r = r.WithException(&result.Exception{Type: rapid.StringN(1, 10, -1).Draw(t, "exType"), Message: text.Draw(t, "exMsg")})
			}
			if rapid.Bool().Draw(t, "hasData") {
				r = r.WithErrorData(json.RawMessage(`{"fields":["a","b"]}`))
			}
		}
		r.Message = text.Draw(t, "message")
		r.Instruction = text.Draw(t, "instruction")
		return r
	})
}

// checkRoundTrip marshals r, unmarshals it, and checks both the struct and
// the JSON come back unchanged.
func checkRoundTrip[T any](t *rapid.T, r result.Result[T]) {
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var back result.Result[T]
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	b2, err := json.Marshal(back)
	if err != nil {
		t.Fatalf("re-marshal: %v", err)
	}
	if string(b) != string(b2) {
		t.Fatalf("JSON changed on round trip:\n%s\n%s", b, b2)
	}
	if back.Success != r.Success || back.Error != r.Error || back.ErrorType != r.ErrorType ||
		back.Message != r.Message || back.Instruction != r.Instruction {
		t.Fatalf("fields changed: %+v vs %+v", r, back)
	}
	if (r.Exception == nil) != (back.Exception == nil) {
		t.Fatalf("exception presence changed")
	}
	if r.Exception != nil && r.Exception.Error() != back.Exception.Error() {
		t.Fatalf("exception message changed")
	}
}

func TestRoundTripProperty_String(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genResult(rapid.String()).Draw(t, "r")
		checkRoundTrip(t, r)
	})
}

func TestRoundTripProperty_Struct(t *testing.T) {
	gen := rapid.Custom(func(t *rapid.T) doc {
		return doc{ID: rapid.Int().Draw(t, "id"), Title: rapid.String().Draw(t, "title"),
			Tags: rapid.SliceOfN(rapid.StringN(1, 5, -1), 0, 3).Draw(t, "tags")}
	})
	rapid.Check(t, func(t *rapid.T) {
		r := genResult(gen).Draw(t, "r")
		checkRoundTrip(t, r)
		if r.Success {
			b, _ := json.Marshal(r)
			var back result.Result[doc]
			_ = json.Unmarshal(b, &back)
			if back.Value.ID != r.Value.ID || back.Value.Title != r.Value.Title || len(back.Value.Tags) != len(r.Value.Tags) {
				t.Fatalf("value changed: %+v vs %+v", r.Value, back.Value)
			}
		}
	})
}

func TestRoundTripProperty_Any(t *testing.T) {
	// Through Any the JSON form must not change.
	rapid.Check(t, func(t *rapid.T) {
		r := genResult(rapid.Int()).Draw(t, "r")
		b1, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b2, err := json.Marshal(r.Any())
		if err != nil {
			t.Fatal(err)
		}
		if string(b1) != string(b2) {
			t.Fatalf("Any changed the JSON form:\n%s\n%s", b1, b2)
		}
		checkRoundTrip(t, r.Any())
	})
}
