package hostconfig_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

const emptyFileProblem = "c.yaml: the file is empty (no configuration keys, only whitespace or comments): taken for a file still being written, so not applied; write {} in it to reload with every default"

// Once a configuration is in force, Reload refuses a main file that holds
// none (truncated by an editor, not yet written by `cat >`) with a
// problem naming it, keeping the configuration in force; {} reloads every
// default. The first Reload still takes an empty file for every default.
func TestHost_ReloadRefusesAnEmptyMainFileKeepingTheConfigInForce(t *testing.T) {
	ctx := context.Background()
	dir := writeFiles(t, map[string]string{"c.yaml": ""})
	path := filepath.Join(dir, "c.yaml")
	host, err := hostconfig.NewHost(hostconfig.Options{Path: path, Registry: newTestRegistry(t, "")})
	require.NoError(t, err)
	require.NoError(t, host.Reload(ctx), "at start an empty file means every default")
	assert.Empty(t, host.Config().Notify.Topics)

	conf := "stats: {enabled: true}\nnotify: {topics: [{pattern: \"notes*\", file: notes.yaml}]}\n"
	require.NoError(t, os.WriteFile(path, []byte(conf), 0o600))
	require.NoError(t, host.Reload(ctx))
	inForce := host.Config()
	require.True(t, inForce.Stats.Enabled)

	for _, content := range []string{"", "\n  \n", "# being edited\n", "---\n", "null\n"} {
		require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
		err := host.Reload(ctx)
		assert.Equal(t, []string{emptyFileProblem}, problemTexts(t, dir, err), "%q", content)
		assert.Same(t, inForce, host.Config(), "the configuration in force stays (%q)", content)
	}

	require.NoError(t, os.WriteFile(path, []byte("{}\n"), 0o600))
	require.NoError(t, host.Reload(ctx), "{} reloads every default")
	assert.False(t, host.Config().Stats.Enabled)
	assert.Empty(t, host.Config().Notify.Topics)
}

// LoadOptions.RefuseEmpty refuses an empty main file only: an included
// file may be empty, and without the option an empty main file is every
// default.
func TestLoad_RefuseEmptyRefusesOnlyTheMainFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": "# nothing yet\n", "main.yaml": "include: [empty.yaml]\nstats: {enabled: true}\n", "empty.yaml": ""})
	_, err := hostconfig.Load(filepath.Join(dir, "c.yaml"), hostconfig.LoadOptions{RefuseEmpty: true})
	assert.Equal(t, []string{emptyFileProblem}, problemTexts(t, dir, err))

	cfg, err := hostconfig.Load(filepath.Join(dir, "main.yaml"), hostconfig.LoadOptions{RefuseEmpty: true})
	require.NoError(t, err, "an empty include is fine")
	assert.True(t, cfg.Stats.Enabled)

	_, err = hostconfig.Load(filepath.Join(dir, "c.yaml"), hostconfig.LoadOptions{})
	require.NoError(t, err)
}

// A server started on an empty file reloads it unchanged without a
// problem: the empty file gives what is in force, so refusing it would
// only fail every SIGHUP and ot.reload of a file nobody touched.
func TestHost_ReloadOfAnUnchangedEmptyFileIsApplied(t *testing.T) {
	ctx := context.Background()
	dir := writeFiles(t, map[string]string{"c.yaml": ""})
	path := filepath.Join(dir, "c.yaml")
	host, err := hostconfig.NewHost(hostconfig.Options{Path: path, Registry: newTestRegistry(t, "")})
	require.NoError(t, err)
	require.NoError(t, host.Reload(ctx))
	for _, content := range []string{"", "# still nothing\n"} {
		require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
		require.NoError(t, host.Reload(ctx), "%q", content)
	}
	assert.False(t, host.Config().Stats.Enabled)
}
