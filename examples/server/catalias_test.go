package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/packs/example"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/result"
)

// An alias to a catalogue tool is accepted at start as on reload: the
// catalogue's tools are registered before the first configuration is
// applied, and its names are judged alike whether the tool is switched on
// or off (hostconfig.Options.Dynamic), so that a configuration in force
// today does not keep the server from starting tomorrow.
func TestRun_AliasToACatalogueToolAtStart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte("aliases: {cat: examples.add.1}\n"), 0o600))
	s := startHTTP(t, ctx, serverEnv(startBackend(t)), "-config", cfgPath)
	waitLog(t, ctx, s, "configuration loaded", 1)

	code, out := restInvoke(t, ctx, s.base, "cat", `{"a":40,"b":2}`)
	require.Equal(t, http.StatusOK, code, "%v", out)
	assert.Equal(t, float64(42), out["value"])
}

// Switching a catalogue tool off (it stays in the registry switched off)
// does not make the next reload of an unchanged file fail because an alias
// names it: the reload succeeds, a call of the alias fails clearly while
// the tool is off — disabled, and how to switch it on —, and runs it again
// once it is switched on, without a restart. The
// server also starts with the tool off (the switch is kept in
// catalogue.dir).
func TestRun_AliasToACatalogueToolSwitchedOffAndOn(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte("aliases: {}\n"), 0o600))
	env := serverEnv(startBackend(t))
	s := startHTTP(t, ctx, env, "-config", cfgPath)
	waitLog(t, ctx, s, "configuration loaded", 1)
	require.NoError(t, os.WriteFile(cfgPath, []byte("aliases: {cat: examples.add.1}\n"), 0o600))
	code, out := restInvoke(t, ctx, s.base, "ot.reload", `{}`)
	require.Equal(t, http.StatusOK, code, "%v", out)
	code, out = restInvoke(t, ctx, s.base, "cat", `{"a":40,"b":2}`)
	require.Equal(t, http.StatusOK, code, "%v", out)
	toolURL := s.base + "/tools/bundles/" + builtInBundleID.String() + "/tools/add/version/1"

	code, out = doJSON(t, ctx, http.MethodPatch, toolURL, `{"isEnabled":false}`)
	require.Equal(t, http.StatusOK, code, "%v", out)
	code, out = restInvoke(t, ctx, s.base, "ot.reload", `{}`)
	require.Equal(t, http.StatusOK, code, "%v", out)
	assert.Contains(t, out["value"], "Configuration reloaded", "the unchanged file reloads with the tool off")
	assert.NotContains(t, s.stderr.String(), "configuration reload failed")

	code, out = restInvoke(t, ctx, s.base, "cat", `{"a":40,"b":2}`)
	assert.NotEqual(t, http.StatusOK, code, "%v", out)
	assert.Equal(t, "unavailable", out["error_type"], "%v", out)
	assert.Contains(t, out["error"], `tool "examples.add.1" is disabled: catalogue tool "add" version "1" of bundle "examples" is switched off in the tools catalogue; switch it on there`)

	code, out = doJSON(t, ctx, http.MethodPatch, toolURL, `{"isEnabled":true}`)
	require.Equal(t, http.StatusOK, code, "%v", out)
	code, out = restInvoke(t, ctx, s.base, "cat", `{"a":40,"b":2}`)
	require.Equal(t, http.StatusOK, code, "switched on again, no restart: %v", out)
	assert.Equal(t, float64(42), out["value"])

	// Off again, and restarted on the same catalogue.dir: it starts.
	code, out = doJSON(t, ctx, http.MethodPatch, toolURL, `{"isEnabled":false}`)
	require.Equal(t, http.StatusOK, code, "%v", out)
	require.NoError(t, s.cmd.Process.Signal(os.Interrupt))
	<-s.done
	s = startHTTP(t, ctx, env, "-config", cfgPath)
	waitLog(t, ctx, s, "configuration loaded", 1)
	code, out = restInvoke(t, ctx, s.base, "cat", `{"a":40,"b":2}`)
	assert.Equal(t, "unavailable", out["error_type"], "%d %v", code, out)
}

// A name in no catalogue bundle's namespace, under no configured server
// and of no tool is still refused at start, as a usage error naming file
// and line; and an alias may not take a catalogue tool's name.
func TestRun_AliasOutsideEveryNamespaceRefusedAtStart(t *testing.T) {
	t.Setenv("OJ_BASE_URL", "")
	t.Setenv(example.EnvIncludeExampleTools, "true")
	dir := t.TempDir()
	for name, c := range map[string]struct{ yaml, want string }{
		"unknown bundle":    {"aliases:\n  cat: exampels.add.1\n", `config.yaml:2: aliases.cat: target "exampels.add.1" is not a tool`},
		"not a tool's name": {"aliases:\n  cat: examples.add\n", `config.yaml:2: aliases.cat: target "examples.add" is not a tool`},
		"a catalogue name": {"aliases:\n  examples.sum.1: add\n",
			`config.yaml:2: aliases.examples.sum.1: "examples.sum.1" is in the names of catalogue bundle "examples"`},
	} {
		t.Run(name, func(t *testing.T) {
			cfgPath := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"), "config.yaml")
			require.NoError(t, os.MkdirAll(filepath.Dir(cfgPath), 0o755))
			require.NoError(t, os.WriteFile(cfgPath, []byte(c.yaml), 0o600))
			var stderr strings.Builder
			err := run(context.Background(), []string{"-stdio", "-packs", "example", "-config", cfgPath}, strings.NewReader(""), &strings.Builder{}, &stderr)
			require.Error(t, err)
			require.ErrorIs(t, err, errUsage, "exit status 2")
			assert.Contains(t, err.Error(), "flag -config: ")
			assert.Contains(t, err.Error(), filepath.Dir(cfgPath)+"/"+c.want)
		})
	}
}

// The catalogue is open before the first configuration gives http tools
// their runner: a call meanwhile answers unavailable, it does not panic.
func TestSwapInvoker_BeforeTheFirstConfigurationAnswersUnavailable(t *testing.T) {
	res, err := (&swapInvoker{}).Invoke(t.Context(), catalogue.Tool{}, json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.False(t, res.Success)
	assert.Equal(t, result.Unavailable, res.ErrorType)
}

// A file with problems of its own is refused as such (exit status 2,
// each problem at its line) even when the catalogue database it names
// cannot be reached: the catalogue is opened before the first apply, but
// only once the file has passed what the hooks check.
func TestRun_BrokenFileRefusedBeforeTheCatalogueDatabaseIsDialled(t *testing.T) {
	t.Setenv("OJ_BASE_URL", "")
	t.Setenv(example.EnvIncludeExampleTools, "true")
	t.Setenv("CAT_DSN", "postgres://u:p@127.0.0.1:1/x?connect_timeout=2")
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte("catalogue: {dsn: \"${CAT_DSN}\"}\nsnippets:\n  bad:\n    description: d\n    body: |\n      this is ((( not a valid step\n"), 0o600))
	err := run(context.Background(), []string{"-stdio", "-packs", "example", "-config", cfgPath}, strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
	require.Error(t, err)
	require.ErrorIs(t, err, errUsage, "exit status 2: %v", err)
	assert.Contains(t, err.Error(), "config.yaml:6: snippets.bad.body: body line 1")
	assert.NotContains(t, err.Error(), "cannot be reached")
}
