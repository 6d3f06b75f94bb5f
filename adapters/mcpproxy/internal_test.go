package mcpproxy

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/internal/mcpmap"
	"github.com/toolpack-go/toolpack/result"
)

// Whatever the text around it, a secret never survives redaction, not
// even split by separators — one shorter than minSplitLen never as a
// whole word; text that does not hold a secret (separators aside) is
// unchanged.
func TestRedactorProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alphabet := rapid.SampledFrom([]rune("abD[]REDACT x=:/\n\\"))
		secret := rapid.StringOfN(alphabet, minSecretLen, 12, -1).Draw(t, "secret")
		pieces := rapid.SliceOfN(rapid.StringOfN(alphabet, 0, 10, -1), 1, 5).Draw(t, "pieces")
		text := strings.Join(pieces, secret)
		r := newRedactor(Config{Env: map[string]string{"K": secret}})
		out := r.text(text)
		if len(secret) < minSplitLen {
			_, found := replaceWord(out, secret, "")
			require.False(t, found, "%q holds %q as a whole word", out, secret)
		} else {
			require.NotContains(t, out, secret)
		}
		flatSecret := stripSeparators(secret)
		if len(flatSecret) >= minSplitLen {
			require.NotContains(t, stripSeparators(out), flatSecret)
		}
		if !r.contains(text) {
			require.Equal(t, text, out, "text without secrets is unchanged")
		}
	})
}

func TestRedactorCoversAllSecretKinds(t *testing.T) {
	r := newRedactor(Config{
		URL:     "https://user:pa55-word@example.invalid/mcp?api_key=k3y-value&x=1",
		Headers: map[string]string{"Authorization": "Bearer tok-en-123", "X-Short": "abc"},
		Env:     map[string]string{"API_KEY": "env-secret-9"},
	})
	in := "pa55-word k3y-value Bearer tok-en-123 tok-en-123 env-secret-9 abc"
	out := r.text(in)
	for _, s := range []string{"pa55-word", "k3y-value", "tok-en-123", "env-secret-9"} {
		assert.NotContains(t, out, s)
	}
	assert.Contains(t, out, "abc", "values shorter than minSecretLen are left alone")
	assert.Equal(t, "", r.err(nil))
	assert.Equal(t, redacted, r.err(errors.New("env-secret-9")))
}

func TestRedactingLogHandler(t *testing.T) {
	var buf bytes.Buffer
	r := newRedactor(Config{Headers: map[string]string{"Authorization": "Bearer s3cr3t-value"}})
	log := slog.New(&redactHandler{inner: slog.NewJSONHandler(&buf, nil), r: r}).
		With("ctx", "pre s3cr3t-value")
	log.WithGroup("g").Info("message s3cr3t-value",
		"err", errors.New("failed with Bearer s3cr3t-value"),
		"str", "s3cr3t-value",
		"num", 42,
		slog.Group("grp", "inner", "x s3cr3t-value"),
		"any", struct{ V string }{"s3cr3t-value"})
	out := buf.String()
	assert.NotContains(t, out, "s3cr3t-value")
	assert.Contains(t, out, `"num":42`)
	assert.Contains(t, out, redacted)
	assert.True(t, log.Enabled(t.Context(), slog.LevelInfo))
}

func TestDisplayURLHidesCredentials(t *testing.T) {
	got := displayURL("https://user:pw-secret@example.invalid/mcp?token=abcd#frag")
	assert.Equal(t, "https://REDACTED@example.invalid/mcp?token=REDACTED", got, "a token is often given as the user name")
	assert.Equal(t, "(unparsable URL)", displayURL("http://[::1"))
}

func TestMapResultContentKinds(t *testing.T) {
	res := mapResult(&mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "text"},
		&mcp.ImageContent{MIMEType: "image/png", Data: []byte{1, 2, 3}},
		&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte{1}},
		&mcp.ResourceLink{URI: "file:///a"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///b", Text: "embedded"}},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///c", MIMEType: "application/pdf", Blob: []byte{1, 2}}},
	}}, nil, 1<<20, newRedactor(Config{}), newRedactor(Config{}))
	require.True(t, res.Success)
	assert.Equal(t, "text\n[image: image/png, 3 bytes]\n[audio: audio/wav, 1 bytes]\n[resource: file:///a]\nembedded\n[resource: file:///c, application/pdf, 2 bytes]", res.Value)
}

// A remote toolpack server states its failure's error type in _meta: a
// proxied tool fails with it (not_found, validation_error), as the tool
// itself does; none, or something that is not an error type, is
// upstream_failure.
func TestMapResultErrorKeepsTheRemoteErrorType(t *testing.T) {
	fail := func(meta mcp.Meta) result.ErrorType {
		return mapResult(&mcp.CallToolResult{IsError: true, Meta: meta, Content: []mcp.Content{&mcp.TextContent{Text: "no such id"}}}, nil, 1<<20, newRedactor(Config{}), newRedactor(Config{})).ErrorType
	}
	assert.Equal(t, result.NotFound, fail(mcp.Meta{mcpmap.MetaErrorType: "not_found"}))
	assert.Equal(t, result.ValidationError, fail(mcp.Meta{mcpmap.MetaErrorType: "validation_error"}))
	assert.Equal(t, result.UpstreamFailure, fail(nil))
	assert.Equal(t, result.UpstreamFailure, fail(mcp.Meta{mcpmap.MetaErrorType: "Not Found!"}))
	assert.Equal(t, result.UpstreamFailure, fail(mcp.Meta{mcpmap.MetaErrorType: 7}))
	for _, own := range []string{"cancelled", "timeout", "unavailable", "internal_error", "security_error", "made_up"} {
		assert.Equal(t, result.UpstreamFailure, fail(mcp.Meta{mcpmap.MetaErrorType: own}), "%s speaks for this host: not taken from a remote", own)
	}
}

func TestMapResultErrorKeepsStructuredDetails(t *testing.T) {
	res := mapResult(&mcp.CallToolResult{IsError: true, StructuredContent: map[string]any{"code": 7.0}}, nil, 1<<20, newRedactor(Config{}), newRedactor(Config{}))
	assert.False(t, res.Success)
	assert.Equal(t, result.UpstreamFailure, res.ErrorType)
	assert.Equal(t, "the remote tool reported an error without text", res.Error)
	assert.Equal(t, map[string]any{"code": 7.0}, res.ErrorData)

	long := mapResult(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("e", 50)}}}, nil, 10, newRedactor(Config{}), newRedactor(Config{}))
	assert.Equal(t, strings.Repeat("e", 10)+" …(truncated)", long.Error)
}

func TestConvertToolSkipsBadSchemas(t *testing.T) {
	_, why := convertTool("s", &mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "string"}}, 1<<20, newRedactor(Config{}), rawTool{}, false)
	assert.Contains(t, why, `"type": "object"`)
	_, why = convertTool("s", &mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object", "description": strings.Repeat("x", 100)}}, 50, newRedactor(Config{}), rawTool{}, false)
	assert.Contains(t, why, "exceeds Options.MaxSchemaBytes (50)")
	_, why = convertTool("s", &mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}, OutputSchema: map[string]any{"description": strings.Repeat("x", 100)}}, 50, newRedactor(Config{}), rawTool{}, false)
	assert.Contains(t, why, "output schema")
	_, why = convertTool("s", &mcp.Tool{Name: "bad name"}, 1<<20, newRedactor(Config{}), rawTool{}, false)
	assert.Contains(t, why, "does not match")
	rt, why := convertTool("s", &mcp.Tool{Name: "t", Annotations: &mcp.ToolAnnotations{Title: "From annotations"}}, 1<<20, newRedactor(Config{}), rawTool{}, false)
	assert.Empty(t, why)
	assert.Equal(t, "From annotations", rt.title)
	assert.JSONEq(t, `{"type":"object","properties":{}}`, string(rt.inputSchema), "a missing input schema becomes the empty object schema")
}

// For any configuration, validation either accepts it or returns
// *ConfigErrors wrapping ErrInvalidConfig; it never panics and never quotes
// a header or environment value.
func TestConfigValidationProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		str := rapid.StringOfN(rapid.SampledFrom([]rune("aZ09_.- :/[]@?=\r\n\x00")), 0, 12, -1)
		secret := "SECRET-" + rapid.StringMatching(`[a-z]{4,8}`).Draw(t, "secret")
		c := Config{Name: str.Draw(t, "name")}
		switch rapid.IntRange(0, 3).Draw(t, "kind") {
		case 1:
			c.Command = rapid.SliceOfN(str, 0, 3).Draw(t, "command")
			c.Env = map[string]string{str.Draw(t, "envKey"): secret}
		case 2:
			c.URL = rapid.SampledFrom([]string{"http://127.0.0.1/", "https://h/p", "ftp://h", "http://[::1", "", "//h"}).Draw(t, "url") + str.Draw(t, "tail")
			c.Headers = map[string]string{str.Draw(t, "headerKey"): secret + str.Draw(t, "headerTail")}
		case 3:
			c.Transport = func(context.Context) (mcp.Transport, error) { return nil, errors.New("x") }
		}
		err := validate([]Config{c})
		if err == nil {
			require.True(t, serverNameRE.MatchString(c.Name))
			return
		}
		require.ErrorIs(t, err, ErrInvalidConfig)
		var ce *ConfigError
		require.ErrorAs(t, err, &ce)
		require.NotEmpty(t, ce.Field)
		require.NotContains(t, err.Error(), secret)
	})
}

// Environment and header values that are plain settings no credential is
// (a boolean word, a log level, a short number), and the values of the
// standard headers describing a request (Accept, User-Agent), are not
// secrets: a server started with DEBUG=true must not have every "true" of
// its results redacted. A value that merely starts like one, a long
// number, and other headers' values still are.
func TestRedactorLeavesPlainSettings(t *testing.T) {
	r := newRedactor(Config{Env: map[string]string{
		"DEBUG": "true", "QUIET": "OFF", "LOG_LEVEL": "error", "PORT": "8080", "RETRIES": "-1000",
		"TOKEN": "true-secret", "PIN": "12345678", "ID": "80x80",
	}})
	out := r.text("it is true, OFF, an error on port 8080 after -1000 tries; true-secret 12345678 80x80")
	assert.Equal(t, "it is true, OFF, an error on port 8080 after -1000 tries; [REDACTED] [REDACTED] [REDACTED]", out)
	r = newRedactor(Config{Headers: map[string]string{
		"accept": "application/json", "User-Agent": "my-agent/1.0", "X-Debug": "true",
		"Authorization": "Bearer tok-en-123", "X-Api-Key": "application/json-key",
	}})
	out = r.text("application/json from my-agent/1.0, debug true; tok-en-123 application/json-key")
	assert.Equal(t, "application/json from my-agent/1.0, debug true; [REDACTED] [REDACTED]", out,
		"the values of standard request headers and plain settings are not secrets; other headers' are")
	for _, v := range []string{"True", "no", "Warning", "0", "+42", "1234567"} {
		assert.True(t, plainSetting(v), v)
	}
	for _, v := range []string{"truer", "12345678", "--12", "+-1", "", "1.5", "0x10", "abcd"} {
		assert.False(t, plainSetting(v), v)
	}
}

// commandEnv gives a Command server the inherited variables the host has
// (not its exported shell functions) and its Env, which wins; a server
// without Env gets a non-nil environment, as a nil exec.Cmd.Env would
// inherit everything.
func TestCommandEnv(t *testing.T) {
	host := map[string]string{"PATH": "/usr/bin", "SHELL": "() { :; }", "API_TOKEN": "host-secret-value", "TERM": "xterm"}
	lookup := func(k string) (string, bool) { v, ok := host[k]; return v, ok }
	got := commandEnv(nil, nil, lookup)
	require.NotNil(t, got)
	if runtime.GOOS == "windows" {
		assert.Equal(t, []string{"PATH=/usr/bin"}, got)
	} else {
		assert.Equal(t, []string{"PATH=/usr/bin", "TERM=xterm"}, got)
	}
	assert.Equal(t, []string{"A=1", "PATH=/opt/bin"}, commandEnv(map[string]string{"PATH": "/opt/bin", "A": "1"}, nil, func(string) (string, bool) { return "", false }))
	got = commandEnv(map[string]string{"PATH": "/opt/bin"}, nil, lookup)
	assert.Contains(t, got, "PATH=/opt/bin")
	assert.NotContains(t, got, "PATH=/usr/bin")
}

// commandEnv passes the variables InheritEnv names as the host has them,
// after InheritedEnv's, each once; one the host has not set, or set to an
// exported shell function, is left out, and Env still wins.
func TestCommandEnvInheritEnv(t *testing.T) {
	host := map[string]string{"PATH": "/usr/bin", "LANG": "C.UTF-8", "TMPDIR": "/tmp/x", "FN": "() { :; }", "API_TOKEN": "host-secret-value"}
	lookup := func(k string) (string, bool) { v, ok := host[k]; return v, ok }
	got := commandEnv(map[string]string{"TMPDIR": "/tmp/configured"}, []string{"LANG", "LANG", "PATH", "UNSET_HERE", "FN", "TMPDIR"}, lookup)
	assert.Equal(t, []string{"PATH=/usr/bin", "LANG=C.UTF-8", "TMPDIR=/tmp/configured"}, got)
}

// A server whose InheritEnv changed is reached anew on Reconfigure: the
// child must be started again to get the other variables.
func TestSameConnectionComparesInheritEnv(t *testing.T) {
	a := Config{Name: "s", Command: []string{"srv"}, InheritEnv: []string{"LANG"}}
	b := a
	assert.True(t, sameConnection(a, b))
	b.InheritEnv = []string{"LANG", "TMPDIR"}
	assert.False(t, sameConnection(a, b))
}
