package ot

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// fullDisk is a file on a disk that fills after room more bytes: a write
// stores what fits, then fails with ENOSPC, as write(2) does.
type fullDisk struct {
	*os.File
	room int
}

func (f *fullDisk) Write(p []byte) (int, error) {
	if len(p) <= f.room {
		f.room -= len(p)
		return f.File.Write(p)
	}
	n, err := f.File.Write(p[:f.room])
	f.room = 0
	return n, errors.Join(err, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC})
}

// A notification whose write fails part way (a full disk) leaves nothing
// of itself in the file: the next one, once there is room again, starts a
// document of its own and every document of the file still parses.
func TestNotify_WriteCutShortLeavesNoHalfDocument(t *testing.T) {
	name := filepath.Join(t.TempDir(), "notes.yaml")
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	write := func(room int, message string) error {
		doc, err := notificationDocument(now, "t", message)
		require.NoError(t, err)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
		require.NoError(t, err)
		defer f.Close()
		return appendWhole(&fullDisk{File: f, room: room}, doc, DefaultNotifyMaxFileBytes)
	}
	require.NoError(t, write(1<<20, "before"))
	before, err := os.ReadFile(name)
	require.NoError(t, err)
	err = write(20, "cut short by a full disk")
	require.ErrorIs(t, err, syscall.ENOSPC)
	after, err := os.ReadFile(name)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the part written is cut back")
	require.NoError(t, write(1<<20, "after"))
	assert.Equal(t, []string{"before", "after"}, messages(t, name))
}

// A file whose last line has no newline (edited by hand) is not continued
// by the next notification: both documents read back.
func TestNotify_AppendsAfterALastLineWithoutNewline(t *testing.T) {
	name := filepath.Join(t.TempDir(), "notes.yaml")
	require.NoError(t, os.WriteFile(name, []byte("---\ntopic: hand\nmessage: written by hand"), 0o644))
	doc, err := notificationDocument(time.Now(), "t", "appended")
	require.NoError(t, err)
	f, err := os.OpenFile(name, os.O_RDWR|os.O_APPEND, 0o644)
	require.NoError(t, err)
	require.NoError(t, appendWhole(f, doc, DefaultNotifyMaxFileBytes))
	require.NoError(t, f.Close())
	assert.Equal(t, []string{"written by hand", "appended"}, messages(t, name))
}

// messages reads the message of every YAML document of the file.
func messages(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(name)
	require.NoError(t, err)
	defer f.Close()
	var out []string
	dec := yaml.NewDecoder(f)
	for {
		var d struct {
			Message string `yaml:"message"`
		}
		if err := dec.Decode(&d); err != nil {
			require.ErrorContains(t, err, "EOF")
			return out
		}
		out = append(out, d.Message)
	}
}
