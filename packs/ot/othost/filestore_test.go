package othost_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/results"
)

// ot.result of an existing handle once output.dir has been replaced by a
// regular file answers unavailable ("the output store cannot be reached
// right now … try again"), as a database away does — not internal_error —
// and the model is told no path.
func TestSetup_OutputDirReplacedByAFileIsUnavailable(t *testing.T) {
	f := newFixture(t, "output: {max_inline_bytes: 100, dir: out}\n")
	v, ok, _ := f.call(t, "lines", `{"count":100}`)
	require.True(t, ok)
	st := v.(results.Stored)
	out := filepath.Join(f.dir, "out")
	require.NoError(t, os.RemoveAll(out))
	require.NoError(t, os.WriteFile(out, []byte("x"), 0o600))
	res, err := f.reg.Invoke(t.Context(), "ot.result", []byte(`{"handle":"`+st.Handle+`"}`))
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, "unavailable", string(res.ErrorType))
	assert.Equal(t, "Error: the output store cannot be reached right now, so '"+st.Handle+"' cannot be read; try again in a moment.", res.Error)
}

// ot.reload of a main file emptied once a configuration is in force (an
// editor's truncation, a `cat >` not written yet) is refused as
// config_error naming the file; the configuration in force stays.
func TestReload_EmptyMainFileRefusedKeepingTheConfig(t *testing.T) {
	f := newFixture(t, "notify: {topics: [{pattern: \"notes*\", file: notes.yaml}]}\n")
	inForce := f.host.Config()
	require.Len(t, inForce.Notify.Topics, 1)
	writeConfig(t, f.dir, "")
	_, ok, msg := f.call(t, "ot.reload", `{}`)
	assert.False(t, ok)
	assert.Contains(t, msg, "Error: configuration not reloaded (the previous configuration stays): ")
	assert.Contains(t, msg, "config.yaml: the file is empty (no configuration keys, only whitespace or comments)")
	assert.Same(t, inForce, f.host.Config())
	_, ok, msg = f.call(t, "ot.notify", `{"topic":"notes","message":"still routed"}`)
	assert.True(t, ok, msg)

	writeConfig(t, f.dir, "{}\n")
	_, ok, msg = f.call(t, "ot.reload", `{}`)
	require.True(t, ok, msg)
	assert.Empty(t, f.host.Config().Notify.Topics, "{} reloads every default")
}
