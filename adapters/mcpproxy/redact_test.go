package mcpproxy

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/result"
)

// Secrets are found in the forms a remote or a transport error gives them:
// split across lines or by JSON escapes, JSON- and URL-escaped, after an
// authentication scheme, Basic-decoded, and as URL user information.
func TestRedactorFindsSplitAndEscapedSecrets(t *testing.T) {
	const (
		tok  = "PROXY-SECRET-123"
		odd  = `q"u\o<te>&-9912`
		user = "tok-as-user-4411"
		pass = "pass-word-8822"
	)
	basic := base64.StdEncoding.EncodeToString([]byte("alice:basic-pass-7733"))
	r := newRedactor(Config{
		URL:     "https://" + user + ":" + pass + "@example.invalid/mcp?k=query-val-5544",
		Headers: map[string]string{"Authorization": "Bearer " + tok, "X-Odd": odd, "X-Basic": "Basic " + basic},
		Env:     map[string]string{"PEM": "-----BEGIN KEY-----\nMIIBOgIBAAJBAK\n-----END KEY-----"},
	})
	oddJSON, _ := json.Marshal(odd)
	cases := map[string]string{
		"as is":               "you sent Bearer " + tok,
		"scheme dropped":      "token " + tok + " refused",
		"split by a newline":  "token PROXY-SEC\nRET-123 refused",
		"split by CRLF+space": "token PROXY-\r\n  SECRET-123 refused",
		"split by JSON \\n":   `{"msg":"token PROXY-SECRET\n-123"}`,
		"JSON-escaped":        `{"header":` + string(oddJSON) + `}`,
		"query-escaped":       "sent x-odd=q%22u%5Co%3Cte%3E%26-9912",
		"basic decoded":       "user alice:basic-pass-7733 denied",
		"basic password":      "password basic-pass-7733 denied",
		"url user":            "Post http://" + user + ":***@example.invalid/: refused",
		"url basic":           "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass)),
		"url query":           "GET /mcp?k=query-val-5544",
		"multi-line env":      "key: -----BEGIN KEY-----\\nMIIBOgIBAAJBAK\\n-----END KEY-----",
	}
	leaks := []string{tok, odd, string(oddJSON[1 : len(oddJSON)-1]), "q%22u%5Co%3Cte%3E%26-9912", "basic-pass-7733", user, pass, "query-val-5544", "MIIBOgIBAAJBAK"}
	for name, in := range cases {
		out := r.text(in)
		assert.Contains(t, out, redacted, name)
		for _, l := range leaks {
			assert.NotContains(t, out, l, name)
			if len(l) >= minSplitLen {
				assert.NotContains(t, stripSeparators(out), stripSeparators(l), name)
			}
		}
	}
	assert.Equal(t, "token [REDACTED] refused", r.text("token PROXY-SEC\nRET-123 refused"),
		"the separators inside a secret go with it; the text around stays")
}

// Short values are matched exactly only, and text without a secret is left
// as it is.
func TestRedactorLeavesOrdinaryTextAlone(t *testing.T) {
	r := newRedactor(Config{Env: map[string]string{"REGION": "eu-1", "SHORT": "abc", "LONG": "long-secret-value"}})
	assert.Equal(t, "regions eu -1 and e u-1 stay; abc stays", r.text("regions eu -1 and e u-1 stay; abc stays"))
	assert.Equal(t, "region [REDACTED]", r.text("region eu-1"))
	assert.Equal(t, "a long secret value is not the long-secret value", r.text("a long secret value is not the long-secret value"))
	empty := newRedactor(Config{})
	assert.Equal(t, "any text", empty.text("any text"))
}

// Structured values are redacted in strings, keys and numbers that spell a
// secret; untouched parts are shared.
func TestRedactValueCoversKeysNumbersAndNesting(t *testing.T) {
	r := newRedactor(Config{Env: map[string]string{"TOKEN": "tok-secret-1", "PIN": "12345678"}})
	in := map[string]any{
		"plain":        "ok",
		"tok-secret-1": "key",
		"list":         []any{"x tok-secret-1 y", json.Number("12345678"), 12345678.0, true, nil},
		"nested":       map[string]any{"deep": []any{map[string]any{"v": "tok-secret-1"}}},
	}
	out, changed := r.value(in)
	require.True(t, changed)
	js, err := json.Marshal(out)
	require.NoError(t, err)
	assert.JSONEq(t, `{"plain":"ok","[REDACTED]":"key",
		"list":["x [REDACTED] y","[REDACTED]","[REDACTED]",true,null],
		"nested":{"deep":[{"v":"[REDACTED]"}]}}`, string(js))
	orig, _ := json.Marshal(in)
	assert.Contains(t, string(orig), "tok-secret-1", "the input is not modified")

	same := map[string]any{"a": []any{"b", json.Number("1")}}
	v, changed := r.value(same)
	assert.False(t, changed)
	assert.Equal(t, same, v)
	assert.Nil(t, r.rawJSON(json.RawMessage(`{"a":`)), "data that is not JSON is dropped")
	assert.JSONEq(t, `{"m":"[REDACTED]","n":9007199254740993}`,
		string(r.rawJSON(json.RawMessage(`{"m":"tok-secret-1","n":9007199254740993}`))))
}

// A remote error text is redacted before it is cut, so that a secret
// across the cut cannot leave a piece behind.
func TestMapResultRedactsBeforeCutting(t *testing.T) {
	const secret = "PROXY-SECRET-123"
	r := newRedactor(Config{Headers: map[string]string{"Authorization": "Bearer " + secret}})
	text := strings.Repeat("x", 20) + secret + strings.Repeat("y", 20)
	res := mapResult(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, 25, r, r)
	assert.Equal(t, result.UpstreamFailure, res.ErrorType)
	assert.Equal(t, strings.Repeat("x", 20)+"[REDA …(truncated)", res.Error)
	for i := minSecretLen; i <= len(secret); i++ {
		assert.NotContains(t, res.Error, secret[:i])
	}
}

// A child's standard error is passed on line by line with secrets
// redacted, also when a secret arrives in pieces or a line is longer than
// the buffer; Flush writes the last partial line.
func TestRedactWriterRedactsChildStderr(t *testing.T) {
	const secret = "env-secret-value-42"
	var out bytes.Buffer
	w := &redactWriter{w: &out, r: newRedactor(Config{Env: map[string]string{"K": secret}})}
	for _, piece := range []string{"starting with env-sec", "ret-val", "ue-42 now\nsecond line ", "env-secret-value-42"} {
		n, err := w.Write([]byte(piece))
		require.NoError(t, err)
		assert.Equal(t, len(piece), n)
	}
	assert.Equal(t, "starting with [REDACTED] now\n", out.String(), "only complete lines are written")
	w.Flush()
	assert.Equal(t, "starting with [REDACTED] now\nsecond line [REDACTED]", out.String())
	_, err := w.Write([]byte("late\n"))
	require.NoError(t, err)
	assert.NotContains(t, out.String(), "late", "a flushed writer drops later output")

	out.Reset()
	w = &redactWriter{w: &out, r: w.r}
	long := strings.Repeat("z", maxStderrLine-5) + secret + strings.Repeat("z", 100)
	_, err = w.Write([]byte(long))
	require.NoError(t, err)
	_, err = w.Write([]byte(" " + secret + "\n"))
	require.NoError(t, err)
	w.Flush()
	assert.NotContains(t, out.String(), secret)
	assert.Equal(t, strings.Count(out.String(), redacted), 2)
	assert.Equal(t, len(long)-len(secret)+len(redacted)+len(redacted)+2, out.Len())
}

// A secret that is part of the marker itself is replaced by another marker
// that does not hold it, so that redaction never puts a secret back.
func TestRedactorSecretInsideMarker(t *testing.T) {
	r := newRedactor(Config{Env: map[string]string{"A": "REDACTED", "B": "HIDDEN"}})
	assert.Equal(t, "[X]", r.marker)
	assert.Equal(t, "token [X] and [X]", r.text("token REDACTED and HIDDEN"))
	r = newRedactor(Config{Env: map[string]string{"A": "EDACTED]"}})
	assert.Equal(t, "token [HIDDEN]", r.text("token EDACTED]"))
	r = newRedactor(Config{Env: map[string]string{"A": "EDAC"}})
	assert.Equal(t, "token [REDACTED]", r.text("token EDAC"), "a short secret inside a word of the marker is no secret there")
	v, changed := r.value(json.Number("1"))
	assert.False(t, changed)
	assert.Equal(t, json.Number("1"), v)
}

// A value shorter than minSplitLen is redacted only where it stands as a
// whole word: an env value such as "exit" leaves the server's own name,
// tool names and words that merely contain it alone, while a short secret
// standing alone (between punctuation, quotes, spaces, at either end) is
// still redacted, and a longer one inside a word too.
func TestShortSecretsRedactedAsWholeWordsOnly(t *testing.T) {
	r := newRedactor(Config{Env: map[string]string{"ECHO_MODE": "exit", "PW": "hunt3r", "KEY": "long-secret-value"}})
	assert.Equal(t, "mcp_server=secexit tool=secexit.exit_code exits exité [REDACTED]",
		r.text("mcp_server=secexit tool=secexit.exit_code exits exité exit"))
	for _, in := range []string{"hunt3r", "key=hunt3r;", `{"pw":"hunt3r"}`, "Bearer hunt3r", "(hunt3r)", "hunt3r\n", "--pw=hunt3r"} {
		assert.Equal(t, strings.Replace(in, "hunt3r", "[REDACTED]", 1), r.text(in), in)
	}
	assert.Equal(t, "xx[REDACTED]xx", r.text("xxlong-secret-valuexx"), "a secret of minSplitLen bytes or more is found inside words")
}

// The end of an escape sequence is a word boundary: a short secret right
// after a JSON escape (\n, \t, \uXXXX, …) or a URL percent escape (%20,
// %2F) stands as a word and is redacted — the escape's last character is
// no letter of the text —, while an escaped backslash followed by a
// letter ("\\nexit") still continues a word.
func TestShortSecretsAfterEscapesAreRedacted(t *testing.T) {
	r := newRedactor(Config{Env: map[string]string{"PW": "hunt3r", "MODE": "exit"}})
	for _, in := range []string{
		`{"msg":"first line\nhunt3r"}`, `{"msg":"tab\thunt3r"}`, `{"msg":"cr\rhunt3r\b"}`,
		`{"msg":"\bhunt3r\fhunt3r"}`, `{"msg":"\"hunt3r\""}`, `{"msg":"\\hunt3r"}`, `{"msg":"a\/hunt3r"}`,
		`{"msg":"caf\u00e9hunt3r"}`, `{"msg":"\u00E9hunt3r"}`, "p=a%20hunt3r", "/x/%2Fhunt3r", "q=%3dhunt3r%26",
	} {
		out := r.text(in)
		assert.NotContains(t, out, "hunt3r", in)
		assert.Contains(t, out, "[REDACTED]", in)
	}
	assert.Equal(t, `mcp_server=secexit tool=secexit.exit_code \\nexit %zzexit \uzzzzexit \n[REDACTED]`,
		r.text(`mcp_server=secexit tool=secexit.exit_code \\nexit %zzexit \uzzzzexit \nexit`),
		"an escaped backslash, and a % or \\u without hex digits, end no escape: a word after them is still one word")
}

// Whatever escape or punctuation comes before or after a short secret
// (four to seven bytes), the secret is redacted: none of them continues a
// word.
func TestShortSecretNextToEscapeProperty(t *testing.T) {
	around := []string{`\n`, `\t`, `\r`, `\b`, `\f`, `\"`, `\\`, `\/`, `\u00e9`, `\u00C9`, `\u0041`,
		"%20", "%2F", "%2f", "%3D", "%0A", " ", "\n", "\t", "=", ":", "/", "(", ")", `"`, "'", ",", ".", "-", ";", "&", "?", "#", "[", "]"}
	rapid.Check(t, func(t *rapid.T) {
		secret := rapid.StringOfN(rapid.SampledFrom([]rune("abcfnrtuABCDEFRX0123456789_")), minSecretLen, minSplitLen-1, -1).
			Filter(func(s string) bool { return !plainSetting(s) }).Draw(t, "secret")
		lead := rapid.SampledFrom([]string{"", "ab", "x y", "line"}).Draw(t, "lead")
		prefix := rapid.SampledFrom(around).Draw(t, "prefix")
		suffix := rapid.SampledFrom(append([]string{""}, around...)).Draw(t, "suffix")
		trail := ""
		if suffix != "" {
			trail = rapid.SampledFrom([]string{"", "ab", "end"}).Draw(t, "trail")
		}
		if lead == "line" && secret == "line" {
			lead = "ab"
		}
		r := newRedactor(Config{Env: map[string]string{"K": secret}})
		text := lead + prefix + secret + suffix + trail
		require.Equal(t, lead+prefix+r.marker+suffix+trail, r.text(text), "%q in %q", secret, text)
	})
}
