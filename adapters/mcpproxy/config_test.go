package mcpproxy_test

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
)

func noTransport(context.Context) (mcp.Transport, error) { return nil, errors.New("unused") }

func TestNewRejectsInvalidConfig(t *testing.T) {
	cases := []struct {
		name   string
		cfgs   []mcpproxy.Config
		server string
		field  string
		want   string
	}{
		{"both command and URL", []mcpproxy.Config{{Name: "s", Command: []string{"x"}, URL: "http://127.0.0.1/"}},
			`"s"`, "Command/URL/Transport", "exactly one of Command, URL and Transport, got 2"},
		{"neither command nor URL", []mcpproxy.Config{{Name: "s"}},
			`"s"`, "Command/URL/Transport", "exactly one of Command, URL and Transport, got 0"},
		{"empty name", []mcpproxy.Config{{URL: "http://127.0.0.1/"}},
			"servers[0]", "Name", "non-empty name"},
		{"bad name", []mcpproxy.Config{{Name: "has space", URL: "http://127.0.0.1/"}},
			"servers[0]", "Name", `got "has space"`},
		{"long name", []mcpproxy.Config{{Name: string(make([]byte, 65)), URL: "http://127.0.0.1/"}},
			"servers[0]", "Name", "[A-Za-z0-9_.-]{1,64}"},
		{"duplicate name", []mcpproxy.Config{{Name: "s", Transport: noTransport}, {Name: "s", Transport: noTransport}},
			`"s"`, "Name", "unique"},
		{"URL scheme", []mcpproxy.Config{{Name: "s", URL: "ftp://127.0.0.1/"}},
			`"s"`, "URL", `got scheme "ftp"`},
		{"URL without host", []mcpproxy.Config{{Name: "s", URL: "http:///path"}},
			`"s"`, "URL", "with a host"},
		{"URL unparsable", []mcpproxy.Config{{Name: "s", URL: "http://[::1"}},
			`"s"`, "URL", "does not parse"},
		{"empty program", []mcpproxy.Config{{Name: "s", Command: []string{" "}}},
			`"s"`, "Command[0]", "program to run"},
		{"env without command", []mcpproxy.Config{{Name: "s", URL: "http://127.0.0.1/", Env: map[string]string{"K": "v"}}},
			`"s"`, "Env", "only applies to a Command server"},
		{"bad env name", []mcpproxy.Config{{Name: "s", Command: []string{"x"}, Env: map[string]string{"A=B": "v"}}},
			`"s"`, "Env", `got "A=B"`},
		{"inherit_env without command", []mcpproxy.Config{{Name: "s", URL: "http://127.0.0.1/", InheritEnv: []string{"LANG"}}},
			`"s"`, "InheritEnv", "only applies to a Command server"},
		{"bad inherit_env name", []mcpproxy.Config{{Name: "s", Command: []string{"x"}, InheritEnv: []string{"LANG", "A=B"}}},
			`"s"`, "InheritEnv", `got "A=B"`},
		{"inherit_env name twice", []mcpproxy.Config{{Name: "s", Command: []string{"x"}, InheritEnv: []string{"LANG", "LANG"}}},
			`"s"`, "InheritEnv", "LANG is named twice"},
		{"inherit_env name in Env too", []mcpproxy.Config{{Name: "s", Command: []string{"x"}, InheritEnv: []string{"HTTP_PROXY"},
			Env: map[string]string{"HTTP_PROXY": "http://proxy.test:3128"}}},
			`"s"`, "InheritEnv", "HTTP_PROXY is set in Env too"},
		{"inherit_env naming a credential", []mcpproxy.Config{{Name: "s", Command: []string{"x"}, InheritEnv: []string{"LANG", "GITHUB_TOKEN"}}},
			`"s"`, "InheritEnv", "GITHUB_TOKEN holds a credential by its name"},
		{"headers without URL", []mcpproxy.Config{{Name: "s", Command: []string{"x"}, Headers: map[string]string{"X-K": "v"}}},
			`"s"`, "Headers", "only applies to a URL server"},
		{"bad header name", []mcpproxy.Config{{Name: "s", URL: "http://127.0.0.1/", Headers: map[string]string{"Bad Name": "v"}}},
			`"s"`, "Headers", `got "Bad Name"`},
		{"header value with newline", []mcpproxy.Config{{Name: "s", URL: "http://127.0.0.1/", Headers: map[string]string{"X-K": "v\r\nInjected: 1"}}},
			`"s"`, "Headers[X-K]", "without CR, LF or NUL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := mcpproxy.New(context.Background(), newRegistry(), c.cfgs, bounded(mcpproxy.Options{}))
			require.Error(t, err)
			assert.Nil(t, p)
			assert.ErrorIs(t, err, mcpproxy.ErrInvalidConfig)
			var ce *mcpproxy.ConfigError
			require.True(t, errors.As(err, &ce), "%v", err)
			assert.Equal(t, c.server, ce.Server)
			assert.Equal(t, c.field, ce.Field)
			assert.Contains(t, err.Error(), c.want)
			assert.Contains(t, err.Error(), "server "+c.server)
			assert.Contains(t, err.Error(), "field "+c.field)
		})
	}
}

func TestConfigErrorNeverShowsSecrets(t *testing.T) {
	_, err := mcpproxy.New(context.Background(), newRegistry(), []mcpproxy.Config{{
		Name:    "s",
		URL:     "ftp://user:pa55word-xyz@127.0.0.1/?token=t0ken-abc",
		Headers: map[string]string{"Authorization": "Bearer top-secret-1\n"},
	}}, bounded(mcpproxy.Options{}))
	require.Error(t, err)
	for _, secret := range []string{"pa55word-xyz", "t0ken-abc", "top-secret-1"} {
		assert.NotContains(t, err.Error(), secret)
	}
	assert.Contains(t, err.Error(), "field URL")
	assert.Contains(t, err.Error(), "field Headers[Authorization]")
}

func TestNewRejectsNilRegistry(t *testing.T) {
	_, err := mcpproxy.New(context.Background(), nil, nil, bounded(mcpproxy.Options{}))
	assert.ErrorIs(t, err, mcpproxy.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "registry")
}

// A URL with user information (user:password@, a token as the user name,
// an empty password) is refused by Validate, New and Reconfigure as the
// host configuration's readers refuse it: a *ConfigError on the field
// URL pointing to Headers, quoting neither the user name nor the
// password.
func TestValidate_URLWithUserInformationRefused(t *testing.T) {
	p, err := mcpproxy.New(context.Background(), newRegistry(), nil, bounded(mcpproxy.Options{}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	for i, raw := range []string{
		"https://user-SECRET-1:pa55word-SECRET-2@mcp.example.test/mcp",
		"https://t0ken-SECRET-3@mcp.example.test/mcp",
		"http://user-SECRET-1:@127.0.0.1:46850/mcp",
		"http://:pa55word-SECRET-2@127.0.0.1:46850/mcp",
		"HTTPS://user-SECRET-1:pa55word-SECRET-2@MCP.example.test/mcp",
	} {
		cfgs := []mcpproxy.Config{{Name: "remote", URL: raw}}
		err := mcpproxy.Validate(cfgs)
		require.Error(t, err, "case %d", i)
		require.ErrorIs(t, err, mcpproxy.ErrInvalidConfig)
		var ce *mcpproxy.ConfigError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, "URL", ce.Field)
		assert.Equal(t, `mcpproxy: server "remote": field URL: expected a URL without user information (user:password@); send credentials in Headers (Authorization: "Basic …" or "Bearer …"), which are redacted (value not shown)`, err.Error())
		for _, secret := range []string{"SECRET", "pa55word", "t0ken", "user-"} {
			assert.NotContains(t, err.Error(), secret)
		}

		_, err = mcpproxy.New(context.Background(), newRegistry(), cfgs, bounded(mcpproxy.Options{}))
		require.ErrorIs(t, err, mcpproxy.ErrInvalidConfig)
		assert.NotContains(t, err.Error(), "SECRET")
		err = p.Reconfigure(context.Background(), cfgs)
		require.ErrorIs(t, err, mcpproxy.ErrInvalidConfig)
		assert.NotContains(t, err.Error(), "SECRET")
	}
	assert.NoError(t, mcpproxy.Validate([]mcpproxy.Config{{Name: "remote", URL: "https://mcp.example.test/mcp?key=k", Headers: map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}}}),
		"credentials in Headers (and the query) are accepted")
}
