//go:build unix

package hostconfig_test

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testwait"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

// A main file or an include that is a FIFO is refused at once as a
// problem naming it, never waited on for a writer.
func TestLoad_FIFOFilesRefusedWithoutBlocking(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.yaml": "include: [pipe.yaml]\n"})
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o600))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "c.yaml"), 0o600))
	var err error
	testwait.Returns(t, "Load of a FIFO include", func() { _, err = hostconfig.Load(filepath.Join(dir, "main.yaml"), hostconfig.LoadOptions{}) })
	texts := problemTexts(t, dir, err)
	require.Len(t, texts, 1)
	assert.Regexp(t, `^main\.yaml:1: include\[0\]: cannot read .*pipe\.yaml: is not a regular file$`, texts[0])
	testwait.Returns(t, "Load of a FIFO main file", func() { _, err = hostconfig.Load(filepath.Join(dir, "c.yaml"), hostconfig.LoadOptions{}) })
	texts = problemTexts(t, dir, err)
	require.Len(t, texts, 1)
	assert.Regexp(t, `^c\.yaml: cannot read .*c\.yaml: is not a regular file$`, texts[0])
}
