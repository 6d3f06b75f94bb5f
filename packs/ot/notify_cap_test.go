package ot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/packs/ot"
	"github.com/toolpack-go/toolpack/registry"
)

// notifyDocBytes is the size of one notification document of the
// fixture's clock, topic "notes" and message m.
func notifyDocBytes(m string) int64 {
	return int64(len("---\ntimestamp: \"2026-03-04T05:06:07.00000089Z\"\ntopic: notes\nmessage: " + m + "\n"))
}

// A notification that would take its file past the topic's cap
// (Topic.MaxFileBytes) is refused with write_error naming the topic, the
// file (its name, not the host's directories) and the cap, and nothing of
// it is written; the documents before it are intact and a message that
// still fits is taken.
func TestNotify_FileCapRefusesAMessagePastIt(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.yaml")
	one := notifyDocBytes("abcdefghij")
	limit := 4*one - 1 // one byte short of four documents
	f := newFixture(t, func(f *fixture, _ *ot.Config) {
		f.topics = []ot.Topic{{Pattern: "notes", File: notes, MaxFileBytes: limit}}
	})
	for range 3 {
		f.ok(t, "ot.notify", `{"topic":"notes","message":"abcdefghij"}`)
	}
	before, err := os.ReadFile(notes)
	require.NoError(t, err)
	require.Len(t, before, int(3*one))

	res := f.call(t, "ot.notify", `{"topic":"notes","message":"abcdefghij"}`)
	require.False(t, res.Success)
	assert.Equal(t, ot.ErrTypeWrite, res.ErrorType)
	for _, want := range []string{"topic notes", "notes.yaml has no room for this message", strconv.FormatInt(limit, 10) + " bytes", "max_file_bytes", "nothing was written"} {
		assert.Contains(t, res.Error, want)
	}
	assert.NotContains(t, res.Error, dir, "the host's directories are not shown")
	after, err := os.ReadFile(notes)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "nothing of the refused message is written")

	f.ok(t, "ot.notify", `{"topic":"notes","message":"abcdefghi"}`) // one byte shorter: fills the file to its cap
	st, err := os.Stat(notes)
	require.NoError(t, err)
	assert.Equal(t, limit, st.Size())
}

// fileOfSize makes name a file of size bytes ending with a newline.
func fileOfSize(t *testing.T, name string, size int64) {
	t.Helper()
	require.NoError(t, os.WriteFile(name, nil, 0o644))
	require.NoError(t, os.Truncate(name, size-1))
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.Write([]byte("\n"))
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// The default cap is DefaultNotifyMaxFileBytes: a file already at it
// takes no more.
func TestNotify_FileCapDefaultsTo64MiB(t *testing.T) {
	notes := filepath.Join(t.TempDir(), "notes.yaml")
	fileOfSize(t, notes, ot.DefaultNotifyMaxFileBytes-notifyDocBytes("m")+1)
	f := newFixture(t, func(f *fixture, _ *ot.Config) { f.topics = []ot.Topic{{Pattern: "*", File: notes}} })
	res := f.call(t, "ot.notify", `{"topic":"notes","message":"m"}`)
	require.False(t, res.Success)
	assert.Contains(t, res.Error, fmt.Sprintf("cap of %d bytes", ot.DefaultNotifyMaxFileBytes))
	fileOfSize(t, notes, ot.DefaultNotifyMaxFileBytes-notifyDocBytes("m"))
	f.ok(t, "ot.notify", `{"topic":"notes","message":"m"}`)
	st, err := os.Stat(notes)
	require.NoError(t, err)
	assert.Equal(t, ot.DefaultNotifyMaxFileBytes, st.Size(), "exactly at the cap is within it")
}

// A negative cap is a configuration error naming the setting, not a
// silent default; nothing is written.
func TestNotify_NegativeFileCapIsAConfigError(t *testing.T) {
	notes := filepath.Join(t.TempDir(), "notes.yaml")
	f := newFixture(t, func(f *fixture, _ *ot.Config) {
		f.topics = []ot.Topic{{Pattern: "notes*", File: notes, MaxFileBytes: -1}}
	})
	res := f.call(t, "ot.notify", `{"topic":"notes","message":"m"}`)
	require.False(t, res.Success)
	assert.Equal(t, ot.ErrTypeConfig, res.ErrorType)
	assert.Contains(t, res.Error, "max_file_bytes")
	assert.Contains(t, res.Error, `"notes*"`)
	_, err := os.Stat(notes)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// Writers in many goroutines never take a file past its cap: the size is
// checked under the same lock as the append, so exactly the documents
// that fit are written, each whole, and every other call is refused.
func TestNotify_FileCapHeldUnderConcurrentWriters(t *testing.T) {
	file := filepath.Join(t.TempDir(), "load.yaml")
	now := time.Date(2026, 3, 4, 5, 6, 7, 890, time.UTC)
	msg := func(g, i int) string { return fmt.Sprintf("g%02d/%03d %s", g, i, strings.Repeat("x", 200)) }
	one := int64(len("---\ntimestamp: \"2026-03-04T05:06:07.00000089Z\"\ntopic: load\nmessage: " + msg(0, 0) + "\n"))
	const fit = 37
	limit := fit*one + one - 1 // one byte short of fit+1 documents
	reg := registry.New(registry.Options{Prefix: new("")})
	p, err := ot.New(ot.Config{Registry: reg, Now: func() time.Time { return now },
		Topics: func() []ot.Topic { return []ot.Topic{{Pattern: "load", File: file, MaxFileBytes: limit}} }})
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))

	var ok, full atomic.Int64
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 10 {
				raw, _ := json.Marshal(map[string]string{"topic": "load", "message": msg(g, i)})
				res, err := reg.Invoke(context.Background(), "ot.notify", raw)
				if !assert.NoError(t, err) {
					return
				}
				if res.Success {
					ok.Add(1)
				} else if assert.Contains(t, res.Error, "has no room") {
					full.Add(1)
				}
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int64(fit), ok.Load(), "exactly the documents that fit")
	assert.Equal(t, int64(160-fit), full.Load())
	st, err := os.Stat(file)
	require.NoError(t, err)
	assert.Equal(t, fit*one, st.Size())
	docs := readDocuments(t, file)
	require.Len(t, docs, fit)
	for _, d := range docs {
		m, _ := d["message"].(string)
		assert.Len(t, m, len(msg(0, 0)), "document intact")
	}
}
