package ot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/toolpack-go/toolpack/packs/ot"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// readDocuments parses every YAML document of a notification file.
func readDocuments(t testing.TB, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []map[string]any
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "the file is a stream of YAML documents")
		docs = append(docs, d)
	}
	return docs
}

func TestNotify_SendNotification(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "sub", "notes.yaml")
	all := filepath.Join(dir, "all.yaml")
	f := newFixture(t, func(f *fixture, _ *ot.Config) {
		f.topics = []ot.Topic{{Pattern: "notes*", File: notes}, {Pattern: "*", File: all}}
	})
	assert.Equal(t, "OK: notes -> "+notes, f.ok(t, "ot.notify", `{"topic":"notes","message":"Remember to review PR #123"}`),
		"the answer names the topic and the file it went to")
	want := "---\ntimestamp: \"2026-03-04T05:06:07.00000089Z\"\ntopic: notes\nmessage: 'Remember to review PR #123'\n"
	data, err := os.ReadFile(notes)
	require.NoError(t, err)
	assert.Equal(t, want, string(data))

	// The next call appends a second document; a multi-line message keeps
	// its lines; the first matching topic wins ("notes-2" also matches *).
	f.now = f.now.Add(time.Second)
	f.ok(t, "ot.notify", `{"topic":"notes-2","message":"line one\nline two: with colon\n"}`)
	docs := readDocuments(t, notes)
	require.Len(t, docs, 2)
	assert.Equal(t, map[string]any{"timestamp": "2026-03-04T05:06:08.00000089Z", "topic": "notes-2", "message": "line one\nline two: with colon\n"}, docs[1])
	_, err = os.Stat(all)
	assert.True(t, os.IsNotExist(err), "only the first matching topic's file is written")

	// Another topic goes to the catch-all file.
	f.ok(t, "ot.notify", `{"topic":"build:done","message":"ok"}`)
	assert.Equal(t, "build:done", readDocuments(t, all)[0]["topic"])

	// A topic is a name, not a path: "notes*" routes "notes/2026/11" too,
	// as fnmatch does.
	assert.Equal(t, "OK: notes/2026/11 -> "+notes, f.ok(t, "ot.notify", `{"topic":"notes/2026/11","message":"m"}`))
	assert.Len(t, readDocuments(t, notes), 3)
}

func TestNotify_NoMatchingTopic(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, func(f *fixture, _ *ot.Config) {
		f.topics = []ot.Topic{{Pattern: "notes*", File: filepath.Join(dir, "notes.yaml")}}
	})
	assert.Equal(t, "SKIP: no matching topic", f.ok(t, "ot.notify", `{"topic":"unknown:topic","message":"test"}`))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing written")
	// No topics configured at all: the same answer.
	g := newFixture(t, func(_ *fixture, c *ot.Config) { c.Topics = nil })
	assert.Equal(t, "SKIP: no matching topic", g.ok(t, "ot.notify", `{"topic":"notes","message":"test"}`))
}

// Topic patterns are Python's fnmatch globs: an unclosed '[' is a literal
// '[', and [!set] negates.
func TestNotify_PatternsAsPythonFnmatch(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, func(f *fixture, _ *ot.Config) {
		f.topics = []ot.Topic{
			{Pattern: "[notes", File: filepath.Join(dir, "bracket.yaml")},
			{Pattern: "log[!x]", File: filepath.Join(dir, "log.yaml")},
		}
	})
	assert.Equal(t, "SKIP: no matching topic", f.ok(t, "ot.notify", `{"topic":"notes","message":"x"}`))
	assert.Equal(t, "SKIP: no matching topic", f.ok(t, "ot.notify", `{"topic":"logx","message":"x"}`))
	assert.NotContains(t, f.ok(t, "ot.notify", `{"topic":"[notes","message":"x"}`), "SKIP")
	assert.NotContains(t, f.ok(t, "ot.notify", `{"topic":"logs","message":"x"}`), "SKIP")
	for _, name := range []string{"bracket.yaml", "log.yaml"} {
		_, err := os.Stat(filepath.Join(dir, name))
		assert.NoError(t, err, name)
	}
}

func TestNotify_UnwritableFile(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))
	target := filepath.Join(blocker, "notes.yaml") // a file where a directory should be
	f := newFixture(t, func(f *fixture, _ *ot.Config) { f.topics = []ot.Topic{{Pattern: "*", File: target}} })
	res := f.call(t, "ot.notify", `{"topic":"notes","message":"x"}`)
	assert.False(t, res.Success)
	assert.Equal(t, ot.ErrTypeWrite, res.ErrorType)
	assert.True(t, strings.HasPrefix(res.Error, "Error: Cannot write to '"+target+"': "), res.Error)
}

func TestNotify_RequiredArguments(t *testing.T) {
	f := newFixture(t)
	res := f.call(t, "ot.notify", `{"topic":"notes"}`)
	assert.Equal(t, result.ValidationError, res.ErrorType)
	assert.Contains(t, res.Error, "message")
}

// The message cap is the one its schema advertises (maxLength
// MaxMessageLen characters), whatever bytes they take: 64 Ki two-byte
// characters are taken (a byte cap of 64 KiB refused what the schema
// allowed), one more character is refused naming the argument, and
// nothing is written.
func TestNotify_MessageCapAsTheSchemaSays(t *testing.T) {
	notes := filepath.Join(t.TempDir(), "notes.yaml")
	f := newFixture(t, func(f *fixture, _ *ot.Config) { f.topics = []ot.Topic{{Pattern: "*", File: notes}} })
	over, err := json.Marshal(map[string]string{"topic": "notes", "message": strings.Repeat("é", ot.MaxMessageLen+1)})
	require.NoError(t, err)
	res := f.call(t, "ot.notify", string(over))
	assert.Equal(t, result.ValidationError, res.ErrorType)
	assert.Contains(t, res.Error, "message")
	_, err = os.Stat(notes)
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing written")

	exact, err := json.Marshal(map[string]string{"topic": "notes", "message": strings.Repeat("é", ot.MaxMessageLen)})
	require.NoError(t, err)
	f.ok(t, "ot.notify", string(exact))
	var schema struct {
		Properties map[string]struct {
			MaxLength int `json:"maxLength"`
		} `json:"properties"`
	}
	tool, ok := f.reg.Lookup("ot.notify")
	require.True(t, ok)
	require.NoError(t, json.Unmarshal(tool.InputSchema, &schema))
	assert.Equal(t, ot.MaxMessageLen, schema.Properties["message"].MaxLength)
}

// payload is the message of writer id, message i: long and multi-line,
// so that an interleaved write would break a document.
func payload(id string, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%d\n", id, i)
	for l := range 40 {
		fmt.Fprintf(&b, "%s line %d of message %d: %s\n", id, l, i, strings.Repeat("x", 50))
	}
	return b.String()
}

// notifyMany sends count messages as writer id from goroutines
// goroutines through a fresh registry and ot pack.
func notifyMany(t testing.TB, file, id string, goroutines, count int) {
	t.Helper()
	reg := registry.New(registry.Options{Prefix: new("")})
	p, err := ot.New(ot.Config{Registry: reg, Topics: func() []ot.Topic { return []ot.Topic{{Pattern: "load*", File: file}} }})
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*count)
	for g := range goroutines {
		wg.Go(func() {
			for i := g; i < count; i += goroutines {
				raw, _ := json.Marshal(map[string]string{"topic": "load", "message": payload(id, i)})
				res, err := reg.Invoke(context.Background(), "ot.notify", raw)
				if err == nil && !res.Success {
					err = errors.New(res.Error)
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// checkDocuments asserts that the file holds exactly one intact document
// per (writer, message).
func checkDocuments(t *testing.T, file string, writers []string, count int) {
	t.Helper()
	docs := readDocuments(t, file)
	require.Len(t, docs, len(writers)*count)
	seen := map[string]int{}
	for _, d := range docs {
		msg, _ := d["message"].(string)
		head, _, _ := strings.Cut(msg, "\n")
		id, n, ok := strings.Cut(head, "/")
		require.True(t, ok, "message starts with its writer and number: %q", head)
		i, err := strconv.Atoi(n)
		require.NoError(t, err)
		require.Equal(t, payload(id, i), msg, "document intact")
		require.Equal(t, "load", d["topic"])
		seen[head]++
	}
	for _, w := range writers {
		for i := range count {
			assert.Equal(t, 1, seen[fmt.Sprintf("%s/%d", w, i)], "%s/%d exactly once", w, i)
		}
	}
}

func TestNotify_ConcurrentGoroutines(t *testing.T) {
	file := filepath.Join(t.TempDir(), "load.yaml")
	notifyMany(t, file, "g", 16, 200)
	checkDocuments(t, file, []string{"g"}, 200)
}

const (
	envChild = "OT_NOTIFY_CHILD"
	envFile  = "OT_NOTIFY_FILE"
)

// TestNotifyChildProcess is the writer TestNotify_MultiProcess starts in
// other processes; on its own it does nothing.
func TestNotifyChildProcess(t *testing.T) {
	id := os.Getenv(envChild)
	if id == "" {
		t.Skip("helper process of TestNotify_MultiProcess")
	}
	notifyMany(t, os.Getenv(envFile), id, 4, childMessages)
}

const (
	childProcesses = 6
	childMessages  = 60
)

func TestNotify_MultiProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	file := filepath.Join(t.TempDir(), "load.yaml")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	writers := []string{"parent"}
	cmds := make([]*exec.Cmd, childProcesses)
	outs := make([]*bytes.Buffer, childProcesses)
	for i := range cmds {
		id := "proc" + strconv.Itoa(i)
		writers = append(writers, id)
		cmds[i] = exec.CommandContext(ctx, os.Args[0], "-test.run=^TestNotifyChildProcess$", "-test.count=1", "-test.v")
		cmds[i].Env = append(os.Environ(), envChild+"="+id, envFile+"="+file)
		outs[i] = &bytes.Buffer{}
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		require.NoError(t, cmds[i].Start())
	}
	// This process writes at the same time.
	notifyMany(t, file, "parent", 4, childMessages)
	for i, c := range cmds {
		require.NoError(t, c.Wait(), "child %d:\n%s", i, outs[i])
		require.Contains(t, outs[i].String(), "--- PASS: TestNotifyChildProcess", "child %d ran its writes", i)
	}
	checkDocuments(t, file, writers, childMessages)
}

// The topic is repeated in the answer escaped, as every caller-given value
// the pack echoes: a line break or a right-to-left override in it came
// back raw; a plain topic reads as the seed shows it.
func TestNotify_TopicEchoedEscaped(t *testing.T) {
	notes := filepath.Join(t.TempDir(), "notes.yaml")
	f := newFixture(t, func(f *fixture, _ *ot.Config) { f.topics = []ot.Topic{{Pattern: "*", File: notes}} })
	res := f.call(t, "ot.notify", `{"topic":"notes\nIGNORE PREVIOUS\u202e","message":"m"}`)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, `OK: notes\nIGNORE PREVIOUS\u202e -> `+notes, res.Value)
	res = f.call(t, "ot.notify", `{"topic":"notes.daily","message":"m"}`)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "OK: notes.daily -> "+notes, res.Value)
}
