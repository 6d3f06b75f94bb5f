package hostconfig_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

// A servers: entry's url and docs.base_url refuse user information
// (user:password@): a server's is a credential outside the redacted
// headers, and the documentation URL is shown to every client. The
// problem names file, line and key, says where credentials go, and never
// quotes the URL, its user or its password, written or from ${VAR}.
func TestLoad_URLUserInfoRefused(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": `servers:
  web: {url: "https://S3CR3T-user:S3CR3T-pw@mcp.example.test/mcp"}
  env: {url: "https://${CRED}@mcp.example.test/mcp"}
  ok: {url: "https://mcp.example.test/a@b"}
docs: {base_url: "https://S3CR3T-user:S3CR3T-pw@docs.example.test/tools/"}
`})
	_, err := load(t, dir, "c.yaml", map[string]string{"CRED": "S3CR3T-u:S3CR3T-p"})
	server := "expected a URL without user information (user:password@); send credentials in headers (Authorization: \"Basic ${VAR}\" or \"Bearer ${VAR}\"), which are redacted (value not shown)"
	assert.Equal(t, []string{
		"c.yaml:2: servers.web.url: " + server,
		"c.yaml:3: servers.env.url: " + server,
		"c.yaml:5: docs.base_url: expected a URL without user information (user:password@): documentation links are shown to every client (ot.help), so the URL may hold no credential (value not shown)",
	}, problemTexts(t, dir, err))
	assert.NotContains(t, err.Error(), "S3CR3T")

	_, err = (&hostconfig.Expander{LookupEnv: env(map[string]string{"CRED": "S3CR3T-u:S3CR3T-p"})}).Server(
		hostconfig.Server{Name: "x", URL: "https://${CRED}@mcp.example.test/mcp"})
	require.Error(t, err)
	assert.ErrorIs(t, err, hostconfig.ErrInvalid)
	assert.Equal(t, "url: "+server, err.Error())
}

// A ${VAR} of a servers: entry's url is a secret (Server.Secrets) unless
// its value lies wholly within the URL's scheme, host and port, as for
// transcript's and search_web's base_url: a token in the path or query is
// redacted, a host or port is not (redacting it would garble every
// message naming the server). A value also used elsewhere in the entry
// stays a secret.
func TestLoad_ServerURLSecretsFollowTheURLRule(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": `servers:
  web: {url: "${SCHEME}://${HOST}:${PORT}/${TOKEN}/mcp?key=${KEY}"}
  kid: {url: "https://${HOST}/mcp", headers: {X-Host: "${HOST}"}}
`})
	vars := map[string]string{"SCHEME": "https", "HOST": "mcp.example.test", "PORT": "8443", "TOKEN": "tok-123456", "KEY": "key-abcdef"}
	cfg := mustLoad(t, dir, "c.yaml", vars)
	assertSecrets(t, []string{"tok-123456", "key-abcdef"}, cfg.Servers["web"].Secrets, "web")
	assertSecrets(t, []string{"mcp.example.test"}, cfg.Servers["kid"].Secrets, "a header's value is a secret wherever else it appears")

	x, err := (&hostconfig.Expander{LookupEnv: env(vars)}).Server(hostconfig.Server{Name: "web", URL: "${SCHEME}://${HOST}:${PORT}/${TOKEN}/mcp?key=${KEY}"})
	require.NoError(t, err)
	assertSecret(t, "https://mcp.example.test:8443/tok-123456/mcp?key=key-abcdef", x.URL, "url expanded")
	assertSecrets(t, []string{"tok-123456", "key-abcdef"}, x.Secrets, "the Expander notes as Load does")
}

// An Expander expands every value of a server entry (description,
// command arguments, dir, url, env and header values) and refuses a bare
// $NAME, naming the field as Load's keys do and quoting no value.
func TestExpander_ExpandsEveryFieldAsLoad(t *testing.T) {
	e := &hostconfig.Expander{LookupEnv: env(map[string]string{"BIN": "/opt/srv", "KEY": "k3y-S3CR3T", "D": "work"})}
	x, err := e.Server(hostconfig.Server{Name: "kid", Description: "runs ${BIN}",
		Command: []string{"${BIN}", "--key=${KEY}", "costs $$5"}, Dir: "/srv/${D}",
		Env: map[string]string{"TOKEN": "${KEY}"}, InheritEnv: []string{"LANG"}})
	require.NoError(t, err)
	assert.Equal(t, "runs /opt/srv", x.Description)
	assert.True(t, slices.Equal([]string{"/opt/srv", "--key=k3y-S3CR3T", "costs $5"}, x.Command), "command expanded (values not shown)")
	assert.Equal(t, "/srv/work", x.Dir)
	assert.Equal(t, []string{"LANG"}, x.InheritEnv)
	assert.True(t, x.Env["TOKEN"] == "k3y-S3CR3T", "env value expanded")
	assertSecrets(t, []string{"/opt/srv", "k3y-S3CR3T", "work"}, x.Secrets, "every value a ${VAR} gave")

	_, err = e.Server(hostconfig.Server{Name: "kid", Command: []string{"srv", "--key=$S3CR3T"}, Dir: "${UNSET_D}",
		Env: map[string]string{"A": "x$S3CR3T"}})
	bare := "a bare $ before a name is not expanded: write ${NAME} to expand, or $$ for a literal $ (value not shown)"
	var texts []string
	for _, p := range hostconfig.Problems(err) {
		texts = append(texts, p.Error())
	}
	assert.Equal(t, []string{"command[1]: " + bare,
		"dir: environment variable UNSET_D is not set (write ${UNSET_D:-default} to give a default)",
		"env.A: " + bare}, texts)
	assert.NotContains(t, err.Error(), "S3CR3T")
}

// Property: for any server entry whose values mix literal text, $$,
// ${VAR}s set or unset, with or without defaults, an Expander gives what
// Load gives for the same entry written in a file — the same values, the
// same Secrets — or both refuse it.
func TestExpander_AgreesWithLoad(t *testing.T) {
	vars := map[string]string{"HOST": "mcp.example.test", "PORT": "8443", "TOK": "tok-9", "E": "", "BIN": "/opt/srv"}
	piece := rapid.SampledFrom([]string{"a", "-", "/", "$$", "$5", "${HOST}", "${PORT}", "${TOK}", "${E:-d}", "${UNSET:-x}", "${BIN}", "$x", "${UNSET}"})
	value := rapid.Custom(func(t *rapid.T) string {
		return strings.Join(rapid.SliceOfN(piece, 0, 4).Draw(t, "pieces"), "")
	})
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	rapid.Check(t, func(t *rapid.T) {
		useURL := rapid.Bool().Draw(t, "url")
		s := hostconfig.Server{Name: "s", Description: value.Draw(t, "description")}
		if useURL {
			s.URL = "https://" + rapid.SampledFrom([]string{"${HOST}", "${HOST}:${PORT}", "h.test"}).Draw(t, "host") + "/" + value.Draw(t, "path")
			s.Headers = map[string]string{"X-A": value.Draw(t, "header")}
		} else {
			s.Command = []string{"run" + value.Draw(t, "arg0"), value.Draw(t, "arg1")}
			s.Dir = "/srv/" + value.Draw(t, "dir")
			s.Env = map[string]string{"A": value.Draw(t, "env")}
		}
		b, err := json.Marshal(map[string]any{"servers": map[string]any{"s": entryMap(s)}})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, b, 0o600)) // JSON is YAML
		cfg, loadErr := hostconfig.Load(path, hostconfig.LoadOptions{LookupEnv: env(vars)})
		x, expErr := (&hostconfig.Expander{LookupEnv: env(vars)}).Server(s)
		require.Equal(t, loadErr == nil, expErr == nil, "load: %v\nexpander: %v", loadErr, expErr)
		if loadErr != nil {
			return
		}
		got := cfg.Servers["s"]
		assert.Equal(t, got.Description, x.Description)
		assert.Equal(t, got.Command, x.Command)
		if !useURL {
			assert.Equal(t, got.Dir, filepath.Clean(x.Dir), "Load cleans the path; both expand alike")
		}
		assert.Equal(t, got.URL, x.URL)
		assert.Equal(t, fmt.Sprint(got.Env), fmt.Sprint(x.Env))
		assert.Equal(t, fmt.Sprint(got.Headers), fmt.Sprint(x.Headers))
		assertSecrets(t, got.Secrets, x.Secrets, "Secrets")
	})
}

// entryMap is s as a servers: entry of a file.
func entryMap(s hostconfig.Server) map[string]any {
	m := map[string]any{}
	if s.Description != "" {
		m["description"] = s.Description
	}
	if s.URL != "" {
		m["url"] = s.URL
		m["headers"] = s.Headers
	} else {
		m["command"] = s.Command
		m["dir"] = s.Dir
		m["env"] = s.Env
	}
	return m
}

// A ${VAR} value in a server URL's path or query is a secret even when it
// happens to spell part of the host or port.
func TestExpander_URLSecretAlsoInTheAuthorityIsStillASecret(t *testing.T) {
	vars := map[string]string{"TOK": "example", "KEY": "8443"}
	x, err := (&hostconfig.Expander{LookupEnv: env(vars)}).Server(hostconfig.Server{Name: "web", URL: "https://mcp.example.test:8443/mcp/${TOK}?pin=${KEY}"})
	require.NoError(t, err)
	assertSecrets(t, []string{"example", "8443"}, x.Secrets, "found past the authority: secrets")
}

// The rest of a server entry's shape is checked too — its name, env
// names, header names and values — naming the field, and a negative
// Expander.MaxExpandedValueBytes is refused rather than read as the
// default.
func TestExpander_NameEnvAndHeadersCheckedAndNegativeCapRefused(t *testing.T) {
	e := &hostconfig.Expander{LookupEnv: env(nil)}
	for s, want := range map[*hostconfig.Server]string{
		{Name: "bad name!", URL: "http://127.0.0.1:1/mcp"}:                                        `name: expected a server name of 1 to 64 characters from [A-Za-z0-9_.-], got "bad name!"`,
		{Name: "x", Command: []string{"a"}, Env: map[string]string{"1X": "v"}}:                    `env: expected variable names matching [A-Za-z_][A-Za-z0-9_]*, got "1X"`,
		{Name: "x", Command: []string{"a"}, Env: map[string]string{"A=B": "v"}}:                   `env: expected variable names matching [A-Za-z_][A-Za-z0-9_]*, got "A=B"`,
		{Name: "x", URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"Bad Header": "v"}}: `headers: expected HTTP header names (RFC 9110 tokens), got "Bad Header"`,
		{Name: "x", URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"X-A": "v\nw"}}:     `headers.X-A: expected a value without CR, LF or NUL (value not shown)`,
	} {
		_, err := e.Server(*s)
		require.Error(t, err, want)
		assert.ErrorIs(t, err, hostconfig.ErrInvalid)
		assert.Contains(t, err.Error(), want)
	}
	_, err := (&hostconfig.Expander{MaxExpandedValueBytes: -5}).Server(hostconfig.Server{Name: "x", URL: "http://127.0.0.1:1/mcp"})
	require.ErrorIs(t, err, hostconfig.ErrInvalid)
	assert.Contains(t, err.Error(), "Expander.MaxExpandedValueBytes is -5")
}

// Header values are checked as expanded (a ${VAR} holding a line break is
// refused, as Load refuses it), and a scheme written in capitals does not
// make the host a secret.
func TestExpander_ExpandedHeaderValueCheckedAndSchemeCase(t *testing.T) {
	e := &hostconfig.Expander{LookupEnv: env(map[string]string{"H": "a\r\nX-Injected: 1", "HOST": "mcp-gateway.internal"})}
	_, err := e.Server(hostconfig.Server{Name: "w", URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"X-A": "${H}"}})
	require.ErrorIs(t, err, hostconfig.ErrInvalid)
	assert.Contains(t, err.Error(), "headers.X-A: expected a value without CR, LF or NUL (value not shown)")
	assert.NotContains(t, err.Error(), "Injected")
	x, err := e.Server(hostconfig.Server{Name: "w", URL: "HTTP://${HOST}:46600/mcp"})
	require.NoError(t, err)
	assert.Empty(t, x.Secrets, "the host, however the scheme is written, is no secret")
	_, err = (&hostconfig.Expander{MaxExpandedValueBytes: -1}).Server(hostconfig.Server{Name: "x", URL: "http://127.0.0.1:1/mcp"})
	assert.Len(t, hostconfig.Problems(err), 1, "a *Problem, as the doc says")
}
