package bundlezip_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testclock"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/bundlezip"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// openStore opens an empty file store in a temporary directory.
func openStore(t testing.TB, now func() time.Time) *catalogue.FileStore {
	t.Helper()
	s, err := catalogue.OpenFileStore(context.Background(), t.TempDir(),
		catalogue.FileOptions{Now: now, Logger: quiet, FlushInterval: -1, ReapInterval: -1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func newClock() *testclock.Clock {
	return testclock.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
}

func newID(t testing.TB) uuid.UUID {
	id, err := catalogue.NewID()
	require.NoError(t, err)
	return id
}

func httpSpec(display string) catalogue.ToolSpec {
	return catalogue.ToolSpec{
		DisplayName: display, Description: "echoes q", Tags: []string{"demo"}, IsEnabled: true, Type: catalogue.TypeHTTP,
		ArgSchema:    json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`),
		OutputSchema: json.RawMessage(`{"type":"object"}`),
		HTTPImpl: &catalogue.HTTPImpl{
			Request: catalogue.HTTPRequest{Method: "GET", URLTemplate: "https://api.example.test/echo",
				Query: map[string]string{"q": "${q}"}, Headers: map[string]string{"X-Key": "${API_KEY}"},
				Auth: &catalogue.HTTPAuth{Type: catalogue.AuthBearer, Token: "${TOKEN}"}},
			Response: catalogue.HTTPResponse{Encoding: "json"},
			Limits:   catalogue.HTTPLimits{Timeout: "10s", MaxRetries: 2},
		},
	}
}

func goSpec(display string) catalogue.ToolSpec {
	return catalogue.ToolSpec{DisplayName: display, IsEnabled: true, Type: catalogue.TypeGo,
		ArgSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"}}}`),
		GoImpl:    &catalogue.GoImpl{Func: "add"}}
}

// sampleBundle stores a bundle with an http and a go tool, one of them
// called, and returns its id.
func sampleBundle(t testing.TB, s catalogue.Store, clock *testclock.Clock) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	id := newID(t)
	_, _, err := s.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "web", DisplayName: "Web", Description: "web tools", IsEnabled: true})
	require.NoError(t, err)
	clock.Advance(time.Minute)
	echo := catalogue.ToolKey{BundleID: id, Slug: "echo", Version: "1.0"}
	_, err = s.PutTool(ctx, echo, httpSpec("Echo"))
	require.NoError(t, err)
	_, err = s.PutTool(ctx, catalogue.ToolKey{BundleID: id, Slug: "add", Version: "v1"}, goSpec("Add"))
	require.NoError(t, err)
	require.NoError(t, s.RecordUsage(ctx, echo, clock.Now().Add(time.Second)))
	return id
}

func export(t testing.TB, s catalogue.Store, id uuid.UUID) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, bundlezip.Export(context.Background(), s, id, &buf))
	return buf.Bytes()
}

func importBytes(s catalogue.Store, data []byte, opts bundlezip.Options) (catalogue.Bundle, error) {
	return bundlezip.Import(context.Background(), s, bytes.NewReader(data), int64(len(data)), opts)
}

// entry is one entry of a hand-made archive.
type entry struct {
	name string
	data []byte
	// header, when set, is written as is with CreateRaw: data must then
	// be compressed already (lying headers, odd flags).
	header *zip.FileHeader
}

// makeZip writes entries in order, duplicates and all.
func makeZip(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		if e.header != nil {
			w, err := zw.CreateRaw(e.header)
			require.NoError(t, err)
			_, err = w.Write(e.data)
			require.NoError(t, err)
			continue
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Deflate})
		require.NoError(t, err)
		_, err = w.Write(e.data)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// entriesOf reads every entry of an archive made by Export.
func entriesOf(t testing.TB, data []byte) []entry {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	var out []entry
	for _, f := range zr.File {
		rc, err := f.Open()
		require.NoError(t, err)
		b, err := io.ReadAll(rc)
		require.NoError(t, err)
		require.NoError(t, rc.Close())
		out = append(out, entry{name: f.Name, data: b})
	}
	return out
}

// replaceEntry returns entries with the named one's data replaced.
func replaceEntry(entries []entry, name string, data []byte) []entry {
	out := append([]entry(nil), entries...)
	for i := range out {
		if out[i].name == name {
			out[i].data = data
		}
	}
	return out
}

// deflate compresses data raw, for CreateRaw headers.
func deflate(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "x", Method: zip.Deflate})
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	require.NoError(t, err)
	rc, err := zr.File[0].OpenRaw()
	require.NoError(t, err)
	raw, err := io.ReadAll(rc)
	require.NoError(t, err)
	return raw
}

// fieldsOf returns the problems of a validation error as field → problem.
func fieldsOf(t testing.TB, err error) map[string]string {
	t.Helper()
	var ve *catalogue.ValidationError
	require.ErrorAs(t, err, &ve, "a *catalogue.ValidationError, got %v", err)
	require.ErrorIs(t, err, catalogue.ErrInvalid)
	out := map[string]string{}
	for _, f := range ve.Fields {
		out[f.Field] = f.Problem
	}
	return out
}

// requireEmpty checks that a store holds no bundle at all.
func requireEmpty(t testing.TB, s catalogue.Store) {
	t.Helper()
	list, err := s.ListBundles(context.Background(), catalogue.BundleQuery{IncludeDisabled: true, IncludeDeleted: true})
	require.NoError(t, err)
	require.Empty(t, list, "nothing stored")
}

// manyTools is a bundle of n tool versions as records.
func manyTools(t testing.TB, n int) (catalogue.Bundle, []catalogue.Tool) {
	t.Helper()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b := catalogue.Bundle{ID: newID(t), BundleSpec: catalogue.BundleSpec{Slug: "many", DisplayName: "Many", IsEnabled: true},
		CreatedAt: at, ModifiedAt: at}
	tools := make([]catalogue.Tool, n)
	for i := range tools {
		spec := httpSpec(fmt.Sprintf("Tool %d", i))
		if i%2 == 1 {
			spec = goSpec(fmt.Sprintf("Tool %d", i))
		}
		tools[i] = catalogue.Tool{ID: newID(t), BundleID: b.ID, Slug: "tool", Version: fmt.Sprint(i), ToolSpec: spec,
			CreatedAt: at.Add(time.Duration(i) * time.Second), ModifiedAt: at.Add(time.Duration(i) * time.Second)}
	}
	return b, tools
}
