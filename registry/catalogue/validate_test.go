package catalogue

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// The issue's tool body, verbatim (it shows both impl kinds).
const issueToolBody = `{"displayName": "Echo", "description": "…", "tags": ["demo"], "isEnabled": true,
 "type": "http",
 "argSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
 "outputSchema": {"type": "object"},
 "httpImpl": {"request": {"method": "GET", "urlTemplate": "https://api.example.test/echo",
                          "query": {"q": "${q}"}, "headers": {"X-Key": "${API_KEY}"},
                          "body": "", "auth": {"type": "bearer", "token": "${TOKEN}"}},
              "response": {"encoding": "json", "extract": ""},
              "limits": {"timeout": "10s", "maxRequestBytes": 65536, "maxResponseBytes": 1048576,
                         "maxRetries": 2, "maxCallsPerMinute": 60}},
 "goImpl": {"func": "add"}}`

func withoutGoImpl(body string) string {
	return strings.Replace(body, `,
 "goImpl": {"func": "add"}}`, "}", 1)
}

func decodeErrFields(t *testing.T, err error) map[string]string {
	t.Helper()
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	require.ErrorIs(t, err, ErrInvalid)
	out := map[string]string{}
	for _, f := range ve.Fields {
		out[f.Field] += f.Problem + "|"
	}
	return out
}

// Slug rule: Unicode letters, digits, ASCII dash; at most 64 runes; no dot.
func TestValidateSlug_Rules(t *testing.T) {
	good := []string{"a", "readfile", "read-file", "Résumé", "工具", "x1", "٣", strings.Repeat("é", 64), "-", "ABC"}
	bad := []string{"", "a_b", "a b", "a/b", "a\\b", "a.b", "a+b", "+readfile", "a\tb", "a\x00", "emoji😀", "a€", strings.Repeat("a", 65), "\xff"}
	for _, s := range good {
		assert.NoError(t, ValidateSlug(s), "%q", s)
	}
	for _, s := range bad {
		assert.Error(t, ValidateSlug(s), "%q", s)
	}
}

// Version rule: as a slug, and a dot is allowed.
func TestValidateVersion_Rules(t *testing.T) {
	for _, s := range []string{"1", "1.0.0", "v2", "1.0.0-β", "..", "2026.01.02", strings.Repeat("1", 64)} {
		assert.NoError(t, ValidateVersion(s), "%q", s)
	}
	for _, s := range []string{"", "1_0", "1 0", "1/0", "1+build", strings.Repeat("1", 65)} {
		assert.Error(t, ValidateVersion(s), "%q", s)
	}
}

// Property: a slug is accepted exactly when every rune is a letter, a digit
// or '-' and it has 1 to 64 runes.
func TestValidateSlug_Property(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringN(0, 70, -1).Draw(t, "s")
		want := s != "" && len([]rune(s)) <= 64
		for _, r := range s {
			if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-') {
				want = false
			}
		}
		if got := ValidateSlug(s) == nil; got != want {
			t.Fatalf("ValidateSlug(%q) accepted=%v, want %v", s, got, want)
		}
		if want && ValidateVersion(s) != nil {
			t.Fatalf("a valid slug %q must be a valid version", s)
		}
	})
}

// Ids are UUIDv7.
func TestParseID_OnlyUUIDv7(t *testing.T) {
	id := newID(t)
	got, err := ParseID(id.String())
	require.NoError(t, err)
	assert.Equal(t, id, got)
	for _, s := range []string{uuid.New().String(), "", "nope", uuid.Nil.String(), "{" + id.String() + "}", strings.ToUpper(id.String()) + "x"} {
		_, err := ParseID(s)
		assert.Error(t, err, "%q", s)
	}
}

// The issue's PUT body shape decodes (with the impl matching its type).
func TestDecodeToolSpec_IssueShape(t *testing.T) {
	spec, err := DecodeToolSpec(strings.NewReader(withoutGoImpl(issueToolBody)))
	require.NoError(t, err)
	assert.Equal(t, TypeHTTP, spec.Type)
	assert.Equal(t, "${API_KEY}", spec.HTTPImpl.Request.Headers["X-Key"])
	assert.Equal(t, HTTPAuth{Type: AuthBearer, Token: "${TOKEN}"}, *spec.HTTPImpl.Request.Auth)
	assert.Equal(t, HTTPLimits{Timeout: "10s", MaxRequestBytes: 65536, MaxResponseBytes: 1048576, MaxRetries: 2, MaxCallsPerMinute: 60}, spec.HTTPImpl.Limits)
	assert.JSONEq(t, `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`, string(spec.ArgSchema))

	goBody := `{"displayName":"Add","isEnabled":true,"type":"go","argSchema":{"type":"object"},"goImpl":{"func":"add"}}`
	g, err := DecodeToolSpec(strings.NewReader(goBody))
	require.NoError(t, err)
	assert.Equal(t, &GoImpl{Func: "add"}, g.GoImpl)
}

// The impl of the tool's type is required; the other may be there too, as
// in the issue's own body (both impls, type http): it is checked and kept.
func TestDecodeToolSpec_ImplOfTheTypeRequired(t *testing.T) {
	spec, err := DecodeToolSpec(strings.NewReader(issueToolBody))
	require.NoError(t, err, "the issue's body, verbatim, is accepted")
	assert.Equal(t, TypeHTTP, spec.Type)
	assert.Equal(t, &GoImpl{Func: "add"}, spec.GoImpl, "the other impl is kept")

	_, err = DecodeToolSpec(strings.NewReader(`{"displayName":"Add","isEnabled":true,"type":"go","argSchema":{"type":"object"}}`))
	assert.Contains(t, decodeErrFields(t, err)["goImpl"], "expected an object")
	_, err = DecodeToolSpec(strings.NewReader(`{"displayName":"Add","isEnabled":true,"type":"http","argSchema":{"type":"object"},"goImpl":{"func":"add"}}`))
	assert.Contains(t, decodeErrFields(t, err)["httpImpl"], "expected an object")
	_, err = DecodeToolSpec(strings.NewReader(`{"displayName":"Add","isEnabled":true,"type":"go","argSchema":{"type":"object"},"goImpl":{"func":"add"},"httpImpl":{}}`))
	assert.NotEmpty(t, decodeErrFields(t, err), "the other impl is checked too")
}

// Extra fields are rejected at every depth, each named by its path.
func TestDecodeToolSpec_UnknownFieldsRejected(t *testing.T) {
	body := strings.Replace(withoutGoImpl(issueToolBody), `"isEnabled": true`, `"isEnabled": true, "owner": "me"`, 1)
	body = strings.Replace(body, `"method": "GET"`, `"method": "GET", "verb": "GET"`, 1)
	body = strings.Replace(body, `"maxRetries": 2`, `"maxRetries": 2, "burst": 3`, 1)
	_, err := DecodeToolSpec(strings.NewReader(body))
	f := decodeErrFields(t, err)
	assert.Contains(t, f["owner"], "unknown field")
	assert.Contains(t, f["httpImpl.request.verb"], "unknown field; expected one of:")
	assert.Contains(t, f["httpImpl.limits.burst"], "unknown field")
	assert.Len(t, f, 3)
}

// Every field error is reported at once, each naming the path and what was
// expected.
func TestDecodeToolSpec_EveryErrorAtOnce(t *testing.T) {
	body := `{"displayName": 5, "tags": ["ok", 3, "ok"], "isEnabled": "yes", "type": "ftp",
	  "argSchema": {"type": "array"}, "outputSchema": {"type": 12},
	  "httpImpl": {"request": {"method": "FETCH", "urlTemplate": "ftp://x", "headers": {"Bad Header": "v", "X": 1},
	               "auth": {"type": "basic", "username": "u", "token": "t"}},
	               "response": {"encoding": "xml"},
	               "limits": {"timeout": "forever", "maxRetries": 99, "maxResponseBytes": -1}}}`
	_, err := DecodeToolSpec(strings.NewReader(body))
	f := decodeErrFields(t, err)
	want := map[string]string{
		"displayName":                            "expected a string, got a number",
		"tags[1]":                                "expected a string, got a number",
		"isEnabled":                              "expected true or false, got a string",
		`httpImpl.request.headers["X"]`:          "expected a string, got a number",
		"type":                                   `expected "go", "http" or "steps", got "ftp"`,
		"outputSchema":                           "expected a valid JSON Schema",
		"httpImpl.request.method":                "expected one of GET, HEAD, POST, PUT, PATCH, DELETE",
		"httpImpl.request.urlTemplate":           "expected a URL starting with http:// or https://",
		"httpImpl.request.auth.password":         `expected a non-empty string for auth type "basic"`,
		"httpImpl.request.auth.token":            `expected no token for auth type "basic"`,
		"httpImpl.response.encoding":             `expected "json", "text" or "sse"`,
		"httpImpl.limits.timeout":                "expected a Go duration",
		"httpImpl.limits.maxRetries":             "expected 0 (the host's default) to 10, got 99",
		"httpImpl.limits.maxResponseBytes":       "expected 0 (the host's default)",
		"argSchema":                              `expected "type": "object" at the root`,
		`httpImpl.request.headers["Bad Header"]`: "expected a header name",
	}
	for field, text := range want {
		assert.Contains(t, f[field], text, "field %s", field)
	}
	assert.NotContains(t, f, "tags[2]")
}

// Required fields missing are each named.
func TestDecodeToolSpec_RequiredFields(t *testing.T) {
	_, err := DecodeToolSpec(strings.NewReader(`{}`))
	f := decodeErrFields(t, err)
	for _, name := range []string{"displayName", "isEnabled", "type", "argSchema"} {
		assert.Contains(t, f[name], "required", name)
	}
	_, err = DecodeToolSpec(strings.NewReader(`{"displayName":"x","isEnabled":true,"type":"http","argSchema":{"type":"object"},"httpImpl":{}}`))
	f = decodeErrFields(t, err)
	assert.Contains(t, f["httpImpl.request"], "expected an object")
}

// Repeated fields, trailing data, non-objects and malformed JSON are refused.
func TestDecodeToolSpec_MalformedBodies(t *testing.T) {
	cases := map[string]string{
		`{"displayName":"a","displayName":"b"}`: "displayName",
		`[]`:                                    "",
		`"x"`:                                   "",
		`{"displayName":`:                       "",
		`{} {}`:                                 "",
		``:                                      "",
		`null`:                                  "",
	}
	for body, field := range cases {
		_, err := DecodeToolSpec(strings.NewReader(body))
		f := decodeErrFields(t, err)
		assert.Contains(t, f, field, "body %q: %v", body, err)
	}
}

// Schemas must compile, and may not reach outside the document.
func TestDecodeToolSpec_SchemasCompiledWithoutExternalRefs(t *testing.T) {
	base := `{"displayName":"x","isEnabled":true,"type":"go","goImpl":{"func":"f"},"argSchema":%s}`
	for _, schema := range []string{
		`{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"http://127.0.0.1:1/s.json"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`,
		`{"type":"object","properties":{"a":{"pattern":"("}}}`,
		`{"type":"object","minProperties":-1}`,
	} {
		_, err := DecodeToolSpec(strings.NewReader(fmt.Sprintf(base, schema)))
		f := decodeErrFields(t, err)
		assert.Contains(t, f["argSchema"], "expected a valid JSON Schema", schema)
	}
	ok := `{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"number"}}}`
	spec, err := DecodeToolSpec(strings.NewReader(fmt.Sprintf(base, ok)))
	require.NoError(t, err)
	sch, err := CompileSchema(spec.ArgSchema)
	require.NoError(t, err)
	assert.Error(t, sch.Validate(map[string]any{"a": "not a number"}))
	assert.NoError(t, sch.Validate(map[string]any{"a": json.Number("1")}))
}

// Size cap and nesting cap on decoded bodies.
func TestDecode_SizeAndDepthCaps(t *testing.T) {
	big := `{"displayName":"` + strings.Repeat("a", MaxToolBodyBytes) + `"}`
	_, err := DecodeToolSpec(strings.NewReader(big))
	assert.Contains(t, decodeErrFields(t, err)[""], fmt.Sprintf("at most %d bytes", MaxToolBodyBytes))

	deep := `{"displayName":"x","isEnabled":true,"type":"go","goImpl":{"func":"f"},"argSchema":{"type":"object","x":` +
		strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}`
	_, err = DecodeToolSpec(strings.NewReader(deep))
	assert.Contains(t, decodeErrFields(t, err)[""], "nested at most 64 levels")

	_, err = DecodeBundleSpec(strings.NewReader(`{"slug":"` + strings.Repeat("a", MaxBundleBodyBytes) + `"}`))
	assert.Contains(t, decodeErrFields(t, err)[""], "at most")
	_, err = DecodeEnabledPatch(strings.NewReader(`{"isEnabled":true,"pad":"` + strings.Repeat(" ", MaxPatchBodyBytes) + `"}`))
	assert.Contains(t, decodeErrFields(t, err)[""], "at most")
}

// The bundle body is exactly {slug, displayName, isEnabled, description}.
func TestDecodeBundleSpec_Shape(t *testing.T) {
	b, err := DecodeBundleSpec(strings.NewReader(`{"slug":"web-tools","displayName":"Web","isEnabled":true,"description":"d"}`))
	require.NoError(t, err)
	assert.Equal(t, BundleSpec{Slug: "web-tools", DisplayName: "Web", IsEnabled: true, Description: "d"}, b)

	_, err = DecodeBundleSpec(strings.NewReader(`{"slug":"web tools","displayName":"","id":"x"}`))
	f := decodeErrFields(t, err)
	assert.Contains(t, f["slug"], "expected only letters, digits and '-'")
	assert.Contains(t, f["isEnabled"], "required")
	assert.Contains(t, f["id"], "unknown field")
	assert.Contains(t, f["displayName"], "non-empty")
}

// PATCH bodies carry only isEnabled.
func TestDecodeEnabledPatch_OnlyIsEnabled(t *testing.T) {
	on, err := DecodeEnabledPatch(strings.NewReader(`{"isEnabled":false}`))
	require.NoError(t, err)
	assert.False(t, on)
	_, err = DecodeEnabledPatch(strings.NewReader(`{"isEnabled":true,"displayName":"x"}`))
	assert.Contains(t, decodeErrFields(t, err)["displayName"], "unknown field")
	_, err = DecodeEnabledPatch(strings.NewReader(`{}`))
	assert.Contains(t, decodeErrFields(t, err)["isEnabled"], "required")
}

// Templates: placeholders well formed, host literal, single-line headers.
func TestValidate_HTTPTemplates(t *testing.T) {
	spec := httpSpec("x")
	spec.HTTPImpl.Request.URLTemplate = "https://${host}/a"
	spec.HTTPImpl.Request.Query = map[string]string{"q": "${q"}
	spec.HTTPImpl.Request.Headers = map[string]string{"X-A": "a\r\nX-Evil: 1", "X-B": "${1abc}"}
	f := decodeErrFields(t, spec.Validate())
	assert.Contains(t, f["httpImpl.request.urlTemplate"], "expected a literal host")
	assert.Contains(t, f[`httpImpl.request.query["q"]`], `expected "}"`)
	assert.Contains(t, f[`httpImpl.request.headers["X-A"]`], "expected")
	assert.Contains(t, f[`httpImpl.request.headers["X-B"]`], "placeholder name")

	for _, auth := range []HTTPAuth{
		{Type: AuthAPIKey, In: "cookie", Name: "k", Value: "${K}"},
		{Type: AuthHMAC, Secret: "${S}", Name: "X-Sig", Algorithm: "md5"},
		{Type: AuthOAuth2, TokenURL: "ftp://x", ClientID: "a", ClientSecret: "${S}"},
		{Type: "digest"},
	} {
		s := httpSpec("x")
		s.HTTPImpl.Request.Auth = &auth
		assert.Error(t, s.Validate(), "%+v", auth)
	}
	for _, auth := range []HTTPAuth{
		{Type: AuthBasic, Username: "${U}", Password: "${P}"},
		{Type: AuthAPIKey, In: "query", Name: "key", Value: "${K}"},
		{Type: AuthHMAC, Secret: "${S}", Name: "X-Sig", Algorithm: "sha256"},
		{Type: AuthOAuth2, TokenURL: "https://auth.example.test/token", ClientID: "a", ClientSecret: "${S}", Scopes: []string{"read"}},
	} {
		s := httpSpec("x")
		s.HTTPImpl.Request.Auth = &auth
		assert.NoError(t, s.Validate(), "%+v", auth)
	}
}

// Tags: bounded, unique, trimmed.
func TestValidate_Tags(t *testing.T) {
	s := httpSpec("x", "a", "a", " b", "")
	f := decodeErrFields(t, s.Validate())
	assert.Contains(t, f["tags[1]"], "unique")
	assert.Contains(t, f["tags[2]"], "white space")
	assert.Contains(t, f["tags[3]"], "non-empty")
	many := make([]string, MaxTags+1)
	for i := range many {
		many[i] = fmt.Sprint("t", i)
	}
	assert.Contains(t, decodeErrFields(t, httpSpec("x", many...).Validate())["tags"], "at most 32")
}

// A ValidationError matches ErrInvalid and lists fields in its message.
func TestValidationError_IsAndMessage(t *testing.T) {
	err := BundleSpec{Slug: "a b"}.Validate()
	assert.True(t, errors.Is(err, ErrInvalid))
	assert.Contains(t, err.Error(), "slug: expected only letters")
	assert.Contains(t, err.Error(), "displayName: expected a non-empty string")
}

// Credentials in auth must be placeholders: a literal secret is refused,
// and the error does not echo it.
func TestValidate_AuthCredentialsArePlaceholders(t *testing.T) {
	const secret = "sk-live-0123456789abcdef"
	for _, auth := range []HTTPAuth{
		{Type: AuthBearer, Token: secret},
		{Type: AuthBearer, Token: "Bearer ${TOKEN}"},
		{Type: AuthBasic, Username: "me", Password: secret},
		{Type: AuthAPIKey, In: "header", Name: "X-Key", Value: secret},
		{Type: AuthHMAC, Secret: secret, Name: "X-Sig", Algorithm: "sha256"},
		{Type: AuthOAuth2, TokenURL: "https://a.test/t", ClientID: "c", ClientSecret: secret},
	} {
		s := httpSpec("x")
		s.HTTPImpl.Request.Auth = &auth
		err := s.Validate()
		require.Error(t, err, "%+v", auth)
		assert.Contains(t, err.Error(), `expected a single "${NAME}" placeholder`)
		assert.NotContains(t, err.Error(), secret)
	}
	s := httpSpec("x")
	s.HTTPImpl.Request.Auth = &HTTPAuth{Type: AuthBasic, Username: "me", Password: "${PASSWORD}"}
	assert.NoError(t, s.Validate(), "a literal user name is fine")
}

// Template lengths are bounded: 8192 runes for URLs, query and header
// values, 65536 for a body.
func TestValidate_TemplateLengths(t *testing.T) {
	s := httpSpec("x")
	s.HTTPImpl.Request.Method = "POST"
	s.HTTPImpl.Request.Body = strings.Repeat("b", 10000)
	require.NoError(t, s.Validate())
	s.HTTPImpl.Request.Body = strings.Repeat("b", MaxBodyTemplateRunes+1)
	s.HTTPImpl.Request.Query = map[string]string{"q": strings.Repeat("q", MaxTemplateRunes+1)}
	f := decodeErrFields(t, s.Validate())
	assert.Contains(t, f["httpImpl.request.body"], "at most 65536 runes")
	assert.Contains(t, f[`httpImpl.request.query["q"]`], "at most 8192 runes")
}

// A schema whose references come back to themselves through references
// alone is refused where it is stored, naming the chain: the validator
// would accept it and then refuse every value reaching it, blaming the
// value. A recursive schema that goes through a property is accepted.
func TestCompileSchema_ReferenceCycleRefused(t *testing.T) {
	for _, s := range []string{
		`{"type":"object","properties":{"p":{"$ref":"#/$defs/A"}},"$defs":{"A":{"$ref":"#/$defs/A"}}}`,
		`{"type":"object","properties":{"p":{"$ref":"#/$defs/A"}},"$defs":{"A":{"$ref":"#/$defs/B"},"B":{"type":"object","$ref":"#/$defs/A"}}}`,
		`{"$ref":"#"}`,
	} {
		_, err := CompileSchema(json.RawMessage(s))
		require.Error(t, err, s)
		assert.Contains(t, err.Error(), "leads back to itself through references alone", s)
	}
	_, err := CompileSchema(json.RawMessage(`{"type":"object","properties":{"p":{"$ref":"#/$defs/A"}},"$defs":{"A":{"$ref":"#/$defs/A"}}}`))
	assert.ErrorContains(t, err, `(#/$defs/A → #/$defs/A)`)
	for _, s := range []string{
		`{"type":"object","properties":{"root":{"$ref":"#/$defs/Node"}},"$defs":{"Node":{"type":"object","properties":{"next":{"$ref":"#/$defs/Node"}}}}}`,
		`{"type":"object","properties":{"self":{"$ref":"#"}}}`,
		`{"type":"object","default":{"$ref":"#/default"}}`,
	} {
		_, err := CompileSchema(json.RawMessage(s))
		assert.NoError(t, err, s)
	}
	spec := ToolSpec{DisplayName: "L", Description: "d", IsEnabled: true, Type: TypeSteps,
		ArgSchema: json.RawMessage(`{"type":"object","properties":{"p":{"$ref":"#/$defs/A"}},"$defs":{"A":{"$ref":"#/$defs/A"}}}`),
		StepsImpl: &StepsImpl{Body: "add(a=1, b=2)"}}
	err = spec.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "argSchema")
}
