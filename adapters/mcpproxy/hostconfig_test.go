package mcpproxy_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

// TestValidate_AgreesWithHostconfig: registry/hostconfig checks servers:
// entries with mcpproxy's rules itself (it sits below the adapters and
// cannot import them), so that its errors can name file and line. For
// any server entry, the configuration loads exactly when Validate accepts
// the same server.
func TestValidate_AgreesWithHostconfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.SampledFrom([]string{"ok", "a.b-c_1", "bad name", "x/y", ""}).Draw(t, "name")
		entry := map[string]any{}
		cfg := mcpproxy.Config{Name: name}
		if rapid.Bool().Draw(t, "hasCommand") {
			cmd := rapid.SampledFrom([][]string{{"srv"}, {"srv", "-v"}, {""}, {" "}}).Draw(t, "command")
			entry["command"], cfg.Command = cmd, cmd
		}
		if rapid.Bool().Draw(t, "hasURL") {
			u := rapid.SampledFrom([]string{"https://x.test/mcp", "http://127.0.0.1:1/", "ftp://x/", "https:///p", "::bad", "x"}).Draw(t, "url")
			entry["url"], cfg.URL = u, u
		}
		if rapid.Bool().Draw(t, "hasEnv") {
			env := rapid.MapOfN(rapid.SampledFrom([]string{"TOKEN", "_A1", "1X", "A-B"}), rapid.SampledFrom([]string{"v", ""}), 1, 2).Draw(t, "env")
			entry["env"], cfg.Env = env, env
		}
		if rapid.Bool().Draw(t, "hasInheritEnv") {
			ie := rapid.SliceOfN(rapid.SampledFrom([]string{"LANG", "TOKEN", "_A1", "1X", "A-B"}), 1, 3).Draw(t, "inherit_env")
			entry["inherit_env"], cfg.InheritEnv = ie, ie
		}
		if rapid.Bool().Draw(t, "hasHeaders") {
			h := rapid.MapOfN(rapid.SampledFrom([]string{"Authorization", "X-Key", "bad header", "a:b"}),
				rapid.SampledFrom([]string{"Bearer t", "x\r\ny", "v\x00"}), 1, 2).Draw(t, "headers")
			entry["headers"], cfg.Headers = h, h
		}
		b, err := yaml.Marshal(map[string]any{"servers": map[string]any{name: entry}})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, b, 0o600))
		_, loadErr := hostconfig.Load(path, hostconfig.LoadOptions{})
		valErr := mcpproxy.Validate([]mcpproxy.Config{cfg})
		require.Equal(t, valErr == nil, loadErr == nil, "Validate: %v\nLoad: %v\nfile:\n%s", valErr, loadErr, b)
	})
}
