package catalogue

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

const literalCred = "S3CR3T-literal-HDR"

// withRequest is httpSpec with the given headers, query and URL template
// (empty keeps the spec's).
func withRequest(headers, query map[string]string, urlTemplate string) ToolSpec {
	s := httpSpec("Lit")
	impl := *s.HTTPImpl
	impl.Request.Headers, impl.Request.Query = headers, query
	if urlTemplate != "" {
		impl.Request.URLTemplate = urlTemplate
	}
	s.HTTPImpl = &impl
	return s
}

// A header or query parameter that carries a credential (by its name) must
// hold a "${NAME}" placeholder when the tool is written (PUT, import,
// decode): the problem names the field and never shows the value. Other
// names keep literal values, and ToolSpec.Validate (what reading back
// runs) does not apply the rule.
func TestCheckCredentials_LiteralCredentialRefusedOnWrite(t *testing.T) {
	refused := map[string]string{
		"Authorization": "Bearer " + literalCred, "proxy-authorization": literalCred, "Cookie": "sid=" + literalCred,
		"X-API-Key": literalCred, "X-Auth-Token": literalCred, "X-Client-Secret": literalCred, "X-Password": literalCred,
	}
	accepted := map[string]string{
		"Authorization": "Bearer ${TOKEN}", "X-API-Key": "${API_KEY}", "Cookie": "sid=${SID}", "X-Auth-Token": "",
		"Accept": "application/json", "X-Tenant": "acme",
	}
	for name, v := range refused {
		spec := withRequest(map[string]string{name: v}, nil, "")
		require.NoError(t, spec.Validate(), "a stored tool with %s still reads back", name)
		err := CheckToolPut(ToolKey{BundleID: newID(t), Slug: "lit", Version: "1.1"}, spec)
		require.ErrorIs(t, err, ErrInvalid, name)
		var ve *ValidationError
		require.True(t, errors.As(err, &ve))
		field := `httpImpl.request.headers["` + name + `"]`
		assert.Contains(t, fieldsOf(ve), field, name)
		assert.NotContains(t, err.Error(), literalCred)
		assert.Contains(t, err.Error(), "(value not shown)")
	}
	for name, v := range accepted {
		assert.NoError(t, CheckToolPut(ToolKey{BundleID: newID(t), Slug: "ok", Version: "1"}, withRequest(map[string]string{name: v}, nil, "")), name)
	}

	// Query parameters alike, in the map and in the URL template.
	err := withRequest(nil, map[string]string{"api_key": literalCred, "q": "plain", "access_token": "${TOK}"}, "").CheckCredentials()
	var ve *ValidationError
	require.True(t, errors.As(err, &ve))
	assert.Equal(t, []string{`httpImpl.request.query["api_key"]`}, fieldsOf(ve))
	assert.NotContains(t, err.Error(), literalCred)
	err = withRequest(nil, nil, "https://api.example.test/x?q=1&access_token="+literalCred+"#frag").CheckCredentials()
	require.True(t, errors.As(err, &ve))
	assert.Equal(t, []string{"httpImpl.request.urlTemplate"}, fieldsOf(ve))
	assert.Contains(t, err.Error(), `query parameter "access_token"`)
	assert.NotContains(t, err.Error(), literalCred)
	assert.NoError(t, withRequest(nil, nil, "https://api.example.test/x?q=1&access_token=${TOK}").CheckCredentials())

	// DecodeToolSpec (the REST API's PUT body, a bundle archive's tool)
	// and CheckImport refuse it too.
	body, err := json.Marshal(withRequest(map[string]string{"Authorization": "Bearer " + literalCred}, nil, ""))
	require.NoError(t, err)
	_, err = DecodeToolSpec(strings.NewReader(string(body)))
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), `httpImpl.request.headers["Authorization"]`)
	assert.NotContains(t, err.Error(), literalCred)
	now := time.Now().UTC()
	b := Bundle{ID: newID(t), BundleSpec: bundleSpec("imp"), CreatedAt: now, ModifiedAt: now}
	tl := Tool{ID: newID(t), BundleID: b.ID, Slug: "lit", Version: "1", CreatedAt: now, ModifiedAt: now,
		ToolSpec: withRequest(map[string]string{"X-Api-Key": literalCred}, nil, "")}
	_, _, err = CheckImport(b, []Tool{tl})
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), `tools[0].httpImpl.request.headers["X-Api-Key"]`)
	assert.NotContains(t, err.Error(), literalCred)
}

func fieldsOf(ve *ValidationError) []string {
	var out []string
	for _, f := range ve.Fields {
		out = append(out, f.Field)
	}
	return out
}

// A tool a file store holds from before the rule, with a literal
// credential in a header, still loads, is listed and read back whole; a
// PUT of it is refused.
func TestFileStore_StoredLiteralCredentialStillLoads(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openFile(t, dir, nil)
	bid := mustBundle(t, s, "old")
	key := ToolKey{BundleID: bid, Slug: "lit", Version: "1.1"}
	_, err := s.PutTool(ctx, key, withRequest(map[string]string{"Authorization": "Bearer ${TOKEN}"}, nil, ""))
	require.NoError(t, err)
	require.NoError(t, s.Close())

	// What an older version wrote: the literal in the tool's file.
	file := s.toolFile(key)
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Contains(t, string(raw), "Bearer ${TOKEN}")
	require.NoError(t, os.WriteFile(file, []byte(strings.Replace(string(raw), "Bearer ${TOKEN}", "Bearer "+literalCred, 1)), 0o600))

	s = openFile(t, dir, nil)
	got, err := s.GetTool(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, "Bearer "+literalCred, got.HTTPImpl.Request.Headers["Authorization"])
	list, err := s.ListTools(ctx, ToolQuery{BundleIDs: []uuid.UUID{bid}})
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, got, list[0])

	_, err = s.PutTool(ctx, ToolKey{BundleID: bid, Slug: "lit", Version: "1.2"}, got.ToolSpec)
	require.ErrorIs(t, err, ErrInvalid, "writing it again is refused")
	assert.NotContains(t, err.Error(), literalCred)
}

// Which names carry a credential is read from their words, so that
// ordinary parameters holding such letters keep literal values.
func TestCredentialName_ReadFromTheNamesWords(t *testing.T) {
	for _, n := range []string{"Authorization", "proxy-authorization", "Cookie", "X-API-Key", "x-api-key", "XApiKey", "APIKey", "api_key",
		"apikey", "key", "X-Auth-Token", "oauth_token", "access_token", "accessToken", "pageToken", "client_secret", "X-Client-Secret",
		"password", "X-Password", "passwd", "Ocp-Apim-Subscription-Key", "x-goog-api-key", "AWSAccessKey", "secretKey", "X-Amz-Signature", "credentials",
		"x-functions-key", "oauth_signature", "X-Auth",
		"api_key_2", "X-API-Key-V2", "access_token_v2", "X-Auth-Token-1", "token_value", "X-Secret-Value", "password_hash",
		"Authorization-Bearer", "client_secret_b64", "private_key_pem"} {
		assert.True(t, CredentialName(n), n)
	}
	for _, n := range []string{"keyword", "keywords", "author", "authority_id", "monkey", "sort_key", "sortKey", "Idempotency-Key", "partition_key",
		"X-Tenant", "Accept", "q", "limit", "hotkey", "tokenizer", "passage", "cookbook",
		"oauth_version", "oauth_signature_method", "oauth_nonce", "token_type", "X-Token-Type", "auth_type", "X-Auth-Mode", "X-Auth-Email",
		"X-Goog-AuthUser", "X-Signature-Version", "SignatureVersion", "authorization_endpoint", "X-Password-Policy", "key_id", "X-API-Key-ID", ""} {
		assert.False(t, CredentialName(n), n)
	}
}

// In a header or query parameter that carries a credential, the text
// outside the placeholders may only be scheme words and separators (in a
// Cookie also cookie names before '='): a literal credential written
// beside a placeholder is refused on write, naming the field and never
// showing the value, while the usual forms still pass.
func TestCheckCredentials_LiteralBesidePlaceholderRefused(t *testing.T) {
	refused := []struct{ name, value string }{
		{"Authorization", "Bearer sk-live-abc ${x}"},
		{"Authorization", "Bearer ${TOKEN} sk-live-abc"},
		{"Authorization", "Basic dXNlcjpwYXNz${X}"},
		{"Authorization", "sk-live-abc${X}"},
		{"X-API-Key", "${KEY}:a1b2c3d4e5"},
		{"X-Auth-Token", "token=${T},deadbeef00"},
		{"Cookie", "sid=${SID}; other=abc123"},
		{"Cookie", "s3ss10n=${SID}"},
		{"Authorization", "Bearer ${unclosed"},
		// Letters alone, or base64 padded with '=', beside a placeholder.
		{"Authorization", "sk-live-abcdef ${X}"},
		{"Authorization", "sk_live_abcdefghijklmnopqrstuvwx ${X}"},
		{"Authorization", "dXNlcjpwYXNz ${X}"},
		{"Authorization", "Basic dXNlcjpwYXM= ${X}"},
		{"Authorization", "${X}, dXNlcjpwYXM="},
		{"Authorization", "Bearer ${X}, password=hunter"},
		{"X-API-Key", "${K}&api_key=abcdefghijklmnop"},
	}
	for _, c := range refused {
		err := withRequest(map[string]string{c.name: c.value}, nil, "").CheckCredentials()
		require.Error(t, err, "%s: %s", c.name, c.value)
		var ve *ValidationError
		require.True(t, errors.As(err, &ve))
		assert.Equal(t, []string{`httpImpl.request.headers["` + c.name + `"]`}, fieldsOf(ve), c.value)
		assert.Contains(t, err.Error(), "(value not shown)")
		for _, part := range []string{"sk-live-abc", "dXNlcjpwYXNz", "a1b2c3d4e5", "deadbeef00", "abc123", "s3ss10n", "dXNlcjpwYXM", "hunter", "abcdefghijklmnop", "abcdefghijklmnopqrstuvwx"} {
			assert.NotContains(t, err.Error(), part)
		}
	}
	accepted := []struct{ name, value string }{
		{"Authorization", "Bearer ${TOKEN}"},
		{"Authorization", "bearer ${TOKEN}"},
		{"Authorization", "Basic ${B64}"},
		{"Authorization", "token ${T}"},
		{"Authorization", "Digest ${D}"},
		{"Authorization", "${USER}:${PASS}"},
		{"X-API-Key", "${API_KEY}"},
		{"Cookie", "sid=${SID}; theme=${THEME}"},
		{"Cookie", "JSESSIONID=${SESSION}"},
	}
	for _, c := range accepted {
		assert.NoError(t, withRequest(map[string]string{c.name: c.value}, nil, "").CheckCredentials(), "%s: %s", c.name, c.value)
	}

	err := withRequest(nil, map[string]string{"api_key": "abc123def456${K}"}, "").CheckCredentials()
	var ve *ValidationError
	require.True(t, errors.As(err, &ve))
	assert.Equal(t, []string{`httpImpl.request.query["api_key"]`}, fieldsOf(ve))
	err = withRequest(nil, nil, "https://api.example.test/x?access_token=abc123def456${K}").CheckCredentials()
	require.True(t, errors.As(err, &ve))
	assert.Equal(t, []string{"httpImpl.request.urlTemplate"}, fieldsOf(ve))
	assert.NotContains(t, err.Error(), "abc123def456")
	assert.NoError(t, withRequest(nil, nil, "https://api.example.test/x?access_token=Bearer%20${K}").CheckCredentials())
}

// Property: a random literal token (8 to 40 characters of the base64 or
// hex alphabet) written anywhere around a placeholder — before, after,
// with or without a separator, after a scheme word — in a header or query
// parameter that carries a credential is refused on write, and the
// problem never shows it. (In a Cookie a run of letters directly before
// '=' reads as the cookie's name; the property puts tokens there only
// when they hold a character a cookie name cannot.)
func TestCheckCredentials_RandomLiteralTokenBesidePlaceholderRefused(t *testing.T) {
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	const hex = "0123456789abcdef"
	rapid.Check(t, func(rt *rapid.T) {
		alphabet := rapid.SampledFrom([]string{b64, hex}).Draw(rt, "alphabet")
		n := rapid.IntRange(8, 40).Draw(rt, "len")
		var sb strings.Builder
		for range n {
			sb.WriteByte(alphabet[rapid.IntRange(0, len(alphabet)-1).Draw(rt, "c")])
		}
		tok := sb.String()
		if credentialSchemes[strings.ToLower(tok)] {
			rt.Skip("the token is a scheme word")
		}
		if strings.IndexFunc(tok, func(r rune) bool { return r < 'A' || r > 'Z' && r < 'a' || r > 'z' }) < 0 {
			// Letters alone may be a scheme of its own, a parameter's name
			// or a plain value ("Bot ${T}", "realm=api"); a credential has
			// digits or symbols among its letters (at 20 random base64
			// characters, all but 1.6 % of them).
			rt.Skip("the token is letters alone")
		}
		ph := "${" + rapid.SampledFrom([]string{"TOKEN", "K", "API_KEY", "a1"}).Draw(rt, "name") + "}"
		sep := rapid.SampledFrom([]string{"", " ", ":", "=", ",", ";", "\t"}).Draw(rt, "sep")
		scheme := rapid.SampledFrom([]string{"", "Bearer ", "Basic ", "token "}).Draw(rt, "scheme")
		var v string
		switch rapid.IntRange(0, 3).Draw(rt, "where") {
		case 0:
			v = scheme + tok + sep + ph
		case 1:
			v = scheme + ph + sep + tok
		case 2:
			v = scheme + ph + sep + tok + sep + ph
		default:
			v = tok + sep + scheme + ph
		}
		where := rapid.SampledFrom([]string{"Authorization", "X-API-Key", "Cookie", "X-Auth-Token", "query", "urlTemplate"}).Draw(rt, "in")
		if where == "Cookie" && paramName(tok) && strings.Contains(v, tok+"=") {
			rt.Skip("a cookie's name")
		}
		var spec ToolSpec
		switch where {
		case "query":
			spec = withRequest(nil, map[string]string{"api_key": v}, "")
		case "urlTemplate":
			spec = withRequest(nil, nil, "https://api.example.test/x?access_token="+url.QueryEscape(v))
		default:
			spec = withRequest(map[string]string{where: v}, nil, "")
		}
		err := spec.CheckCredentials()
		if err == nil {
			rt.Fatalf("%s %q: accepted", where, v)
		}
		if strings.Contains(err.Error(), tok) {
			rt.Fatalf("%s: the problem shows the token: %v", where, err)
		}
	})
}

// A URL template's problems say what is wrong without quoting the
// template, which may hold a literal key.
func TestValidate_URLTemplateProblemNeverQuotesTheTemplate(t *testing.T) {
	const key = "sk-live-abc123"
	for tmpl, want := range map[string]string{
		"ftp://api.example.test/x?api_key=" + key: "expected a URL starting with http:// or https:// (template not shown)",
		"https://" + key + "${HOST}/x":            "expected a literal host, got a placeholder in the host (template not shown)",
		"https://" + key + "%zz/x":                "expected a valid host after the scheme (template not shown)",
	} {
		err := withRequest(nil, nil, tmpl).Validate()
		require.Error(t, err, tmpl)
		assert.Contains(t, err.Error(), `httpImpl.request.urlTemplate: `+want, tmpl)
		assert.NotContains(t, err.Error(), key, tmpl)
	}
}

// Real authentication headers whose scheme the list does not name, or
// that carry parameters, are accepted when every secret in them is a
// placeholder: a scheme of its own first, parameter and cookie names,
// short plain values after "=", quotes and "&" as separators.
func TestCheckCredentials_SchemesAndParametersOfRealHeadersAccepted(t *testing.T) {
	for _, c := range []struct{ name, value string }{
		{"Authorization", "Bot ${DISCORD_TOKEN}"},
		{"Authorization", "SSWS ${OKTA_TOKEN}"},
		{"Authorization", "DeepL-Auth-Key ${K}"},
		{"Authorization", "Klaviyo-API-Key ${K}"},
		{"Authorization", "GenieKey ${K}"},
		{"Authorization", "Api-Token ${K}"},
		{"Authorization", "Client-ID ${K}"},
		{"Authorization", "AWS4-HMAC-SHA256 Credential=${AK}, SignedHeaders=host, Signature=${SIG}"},
		{"Authorization", `Digest username="${U}", realm="api", nonce="${N}", algorithm=MD5, response="${R}"`},
		{"Authorization", `OAuth oauth_consumer_key="${K}", oauth_signature_method="HMAC-SHA1", oauth_signature="${S}", oauth_version="1.0"`},
		{"Authorization", "SharedAccessSignature sr=${SR}&sig=${SIG}&se=${SE}"},
		{"Cookie", "lang=en; sid=${SID}"},
		{"Authorization", "Token token=${T}"},
	} {
		assert.NoError(t, withRequest(map[string]string{c.name: c.value}, nil, "").CheckCredentials(), "%s: %s", c.name, c.value)
	}
}

// A literal credential in a URL template's query is refused whether the
// pairs are joined with "&" or ";", and in a fragment of pairs too.
func TestCheckCredentials_URLTemplateSemicolonAndFragment(t *testing.T) {
	for _, u := range []string{
		"https://a.test/x?x=1;api_key=sk-live-123",
		"https://a.test/x?api_key=${K}#api_key=sk-live-123",
		"https://a.test/x#access_token=abc123def456",
	} {
		err := withRequest(nil, nil, u).CheckCredentials()
		require.Error(t, err, u)
		assert.NotContains(t, err.Error(), "sk-live-123")
		assert.NotContains(t, err.Error(), "abc123def456")
	}
	assert.NoError(t, withRequest(nil, nil, "https://a.test/x?x=1;api_key=${K}#top").CheckCredentials())
}
