package hostconfig_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

// issueExample is the configuration file of issue 11, verbatim.
const issueExample = `include: [more.yaml]
aliases: {plus: add, ws: brave.web_search}
snippets:
  twice:
    description: Add a number to itself
    params: {n: {description: The number, default: 21}}
    body: |
      r = add(a={{ n }}, b={{ n }})
servers:                      # remote MCP servers as packs (replaces -proxy's JSON file; keep -proxy working)
  pkgver: {command: [uvx, mcp-package-version], env: {TOKEN: "${TOKEN}"}}
  remote: {url: "https://example.test/mcp", headers: {Authorization: "Bearer ${KEY}"}}
instructions: {oj: "Use get_problem before find_similar_problems."}
notify: {topics: [{pattern: "notes*", file: notes.yaml}]}   # file relative to the config file's directory
stats: {enabled: true, dir: stats, flush_interval: 1s, context_per_call: 2000, time_per_call_ms: 3000}
output: {max_inline_bytes: 50000, dir: results, ttl: 1h, reports_dir: reports}
docs: {base_url: "https://onetool.beycom.online/reference/tools/", slugs: {brave: brave-search}}
`

// writeFiles writes name → content under a new temporary directory and
// returns the directory.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	}
	return dir
}

// env is a fixed environment for LoadOptions.LookupEnv.
func env(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

// load loads dir/name with the given environment.
func load(t testing.TB, dir, name string, vars map[string]string) (*hostconfig.Config, error) {
	t.Helper()
	return hostconfig.Load(filepath.Join(dir, name), hostconfig.LoadOptions{LookupEnv: env(vars)})
}

// mustLoad loads and fails the test on error.
func mustLoad(t testing.TB, dir, name string, vars map[string]string) *hostconfig.Config {
	t.Helper()
	cfg, err := load(t, dir, name, vars)
	require.NoError(t, err)
	require.NotNil(t, cfg)
	return cfg
}

// problemTexts returns the problems' texts with dir/ removed from file
// names, so that tests compare them as users see them relative to dir.
func problemTexts(t testing.TB, dir string, err error) []string {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, hostconfig.ErrInvalid)
	var out []string
	for _, p := range hostconfig.Problems(err) {
		q := *p
		if rel, rerr := filepath.Rel(dir, q.File); rerr == nil {
			q.File = rel
		}
		out = append(out, q.Error())
	}
	require.NotEmpty(t, out, "the error holds *Problem values: %v", err)
	return out
}

// assertSecrets checks that got holds exactly the values of want, in any
// order, without ever printing either (testify would print both sides of
// a failed comparison, and they are credentials, fixtures or not): a
// failure says only how many were expected and found.
func assertSecrets(t helperT, want, got []string, msg string) {
	t.Helper()
	w, g := slices.Clone(want), slices.Clone(got)
	slices.Sort(w)
	slices.Sort(g)
	assert.True(t, slices.Equal(w, g), "%s: %d secret values noted, want %d others (values not shown)", msg, len(got), len(want))
}

// assertSecret checks that got is want without printing either.
func assertSecret(t helperT, want, got, msg string) {
	t.Helper()
	assert.True(t, got == want, "%s: not the expected value (%d bytes, want %d; values not shown)", msg, len(got), len(want))
}

// helperT is what the assertions need of a *testing.T or a *rapid.T.
type helperT interface {
	Helper()
	Errorf(format string, args ...any)
}
