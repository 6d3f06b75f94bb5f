package catalogueapi_test

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
)

// Bodies that are not UTF-8 are refused with 400 naming the field that
// holds the bytes, never stored or passed on as U+FFFD (encoding/json's
// silent repair) and never quoted back: a tool PUT, a bundle PUT and the
// arguments of a call.
func TestInvalidUTF8Refused(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	e.tool(id, "echo", "1", toolBody("Echo", "echo", true))

	tool := strings.Replace(toolBody("T", "echo", true), `"displayName":"T"`, "\"displayName\":\"T\xff\xfe\"", 1)
	require.Contains(t, tool, "\xff")
	r := e.do("PUT", toolPath(id, "t5", "1"), tool)
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.raw)
	assert.Equal(t, []string{"displayName"}, r.fields())
	assert.Contains(t, string(r.raw), "expected text of valid UTF-8")
	assert.Equal(t, http.StatusNotFound, e.do("GET", toolPath(id, "t5", "1"), "").status, "nothing stored")

	r = e.do("PUT", "/bundles/"+newID(t).String(), "{\"slug\":\"c\",\"displayName\":\"B\xc3\",\"isEnabled\":true}")
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.raw)
	assert.Equal(t, []string{"displayName"}, r.fields())

	r = e.do("PATCH", toolPath(id, "echo", "1"), "{\"isEnabled\":false,\"\xff\":1}")
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.raw)
	assert.Contains(t, string(r.raw), "expected keys of valid UTF-8")

	r = e.do("POST", toolPath(id, "echo", "1")+"/invoke", "{\"args\":{\"q\":\"a\xffb\"}}")
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.raw)
	assert.Equal(t, []string{"args.q"}, r.fields())
	assert.Contains(t, string(r.raw), "at byte 15")
	assert.Equal(t, 0, e.inv.count(), "the invoker never sees the bytes")
	assert.True(t, utf8.Valid(r.raw))
	assert.NotContains(t, string(r.raw), "\uFFFD")
}

// The call body is as strict as the others: a repeated args is refused
// (it was: the last one won), and a body with a byte order mark, a syntax
// error or too deep is refused with that reason, not "expected a JSON
// object".
func TestInvokeBodyRefusesRepeatsWithTheRealReason(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	e.tool(id, "echo", "1", toolBody("Echo", "echo", true))
	deep := `{"args":{"q":"x","n":` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `}}`
	for _, tc := range []struct{ body, field, problem string }{
		{`{"args":{"q":"a"},"args":{"q":"b"}}`, "args", "expected each field once, got it repeated"},
		{`{"more":1,"args":{"q":"a"},"more":2}`, "more", "unknown field; expected only args"},
		{"\uFEFF" + `{"args":{"q":"a"}}`, "", "byte order mark"},
		{`{"args":{"q":"a"}`, "", "unexpected end of JSON input"},
		{`{"args":{"q":"a"},}`, "", "at byte 19"},
		{deep, "args", "expected arguments nested at most 64 levels deep, got 65"},
		{`{"args":{"q":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}}`, "args", "nested at most 64 levels deep"},
		{`"args"`, "", "got a string"},
		{`{"args":null}`, "args", "got null"},
	} {
		r := e.do("POST", toolPath(id, "echo", "1")+"/invoke", tc.body)
		require.Equal(t, http.StatusBadRequest, r.status, "%.80s: %s", tc.body, r.raw)
		assert.Contains(t, r.fields(), tc.field, "%.80s: %s", tc.body, r.raw)
		assert.Contains(t, string(r.raw), tc.problem, "%.80s", tc.body)
	}
	assert.Equal(t, 0, e.inv.count())

	// Nested as deep as allowed, and padded with whitespace, a call runs.
	ok := `{"args":{"q":"x","n":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}}`
	r := e.do("POST", toolPath(id, "echo", "1")+"/invoke", " \n"+ok+"\n")
	assert.Equal(t, http.StatusBadRequest, r.status, "n is no integer: the schema judges it, past the body's checks")
	assert.Equal(t, []string{"args.n"}, r.fields(), "%s", r.raw)
}
