package stats

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testclock"
	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// newClock is an injectable clock for Options.Now reading t.
func newClock(t time.Time) *testclock.Clock { return testclock.New(t) }

// t0 is the reference "now" of the tests: mid-afternoon, so that the last
// 24 hours span two day files.
var t0 = time.Date(2026, 11, 23, 15, 30, 0, 0, time.UTC)

var discard = slog.New(slog.DiscardHandler)

// newRecorder returns an enabled Recorder on a fresh directory, closed at
// the end of the test. The flush interval is an hour: tests flush
// explicitly unless they test the interval.
func newRecorder(t *testing.T, mod func(*Options)) (*Recorder, Options) {
	t.Helper()
	o := Options{Enabled: true, Dir: filepath.Join(t.TempDir(), "stats"), FlushInterval: time.Hour, Logger: discard}
	if mod != nil {
		mod(&o)
	}
	rec, err := New(o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rec.Close(context.Background()) })
	return rec, o
}

type lookupArgs struct {
	Query string `json:"query" validate:"required" description:"What to look up."`
}

type lookupOut struct {
	Hits  int    `json:"hits"`
	Query string `json:"query"`
}

// newRegistry returns a registry (prefix "demo") with the recorder's
// middleware and four tools:
//
//	demo_search (pack web)  string value "found: {query}"
//	demo_lookup (pack web)  struct value {hits, query}
//	demo_missing (pack db)  failure not_found "no such row"
//	demo_broken             protocol error
func newRegistry(t testing.TB, rec *Recorder) *registry.Registry {
	t.Helper()
	reg := registry.New(registry.Options{Prefix: new("demo"), Logger: discard})
	web := &registry.Pack{Name: "web", Description: "Web tools."}
	require.NoError(t, registry.AddFunc(web, "search", func(ctx context.Context, a lookupArgs) (result.Result[string], error) {
		return result.Ok("found: " + a.Query), nil
	}, registry.ToolOptions{Doc: "Searches."}))
	require.NoError(t, registry.AddFunc(web, "lookup", func(ctx context.Context, a lookupArgs) (result.Result[lookupOut], error) {
		return result.Ok(lookupOut{Hits: 3, Query: a.Query}), nil
	}, registry.ToolOptions{Doc: "Looks up."}))
	require.NoError(t, reg.AddPack(web))
	db := &registry.Pack{Name: "db", Description: "Database tools."}
	require.NoError(t, registry.AddFunc(db, "missing", func(ctx context.Context, a lookupArgs) (result.Result[string], error) {
		return result.Failure[string]("no such row", result.NotFound), nil
	}, registry.ToolOptions{Doc: "Finds nothing."}))
	require.NoError(t, reg.AddPack(db))
	require.NoError(t, registry.AddFunc(reg, "broken", func(ctx context.Context, a lookupArgs) (result.Result[string], error) {
		return result.Result[string]{}, errors.New("backend down")
	}, registry.ToolOptions{Doc: "Fails."}))
	reg.UseOuter(rec.Middleware())
	return reg
}

// call invokes name with {"query": q}.
func call(t testing.TB, reg *registry.Registry, name, q string) {
	t.Helper()
	raw, err := json.Marshal(map[string]string{"query": q})
	require.NoError(t, err)
	_, _ = reg.Invoke(context.Background(), name, raw)
}

// readAll returns every record stored under dir, oldest file first, and
// the corrupt line count.
func readAll(t *testing.T, dir string) ([]record, int64) {
	t.Helper()
	var out []record
	st, err := readRecords(context.Background(), dir, time.Time{}, 1<<40, func(r *record) { out = append(out, *r) })
	require.NoError(t, err)
	sort.SliceStable(out, func(i, j int) bool { return out[i].time.Before(out[j].time) })
	return out, st.corrupt
}

// dayFiles lists the record files under dir.
func dayFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), fileSuffix) {
			names = append(names, e.Name())
		}
	}
	return names
}

// seed stores records directly (as another process would have) through the
// writer the Recorder uses.
func seed(t *testing.T, dir string, recs ...record) {
	t.Helper()
	_, err := writeBatch(context.Background(), dir, recs, nil, &timeCache{})
	require.NoError(t, err)
}

func findTool(t *testing.T, s Summary, name string) ToolSummary {
	t.Helper()
	for _, ts := range s.Tools {
		if ts.Tool == name {
			return ts
		}
	}
	t.Fatalf("tool %q not in summary %+v", name, s.Tools)
	return ToolSummary{}
}

// logBuffer is a goroutine-safe buffer for a slog JSON handler.
type logBuffer struct{ testlog.Buffer }

func newLogBuffer() (*slog.Logger, *logBuffer) {
	b := &logBuffer{}
	return slog.New(slog.NewJSONHandler(b, nil)), b
}
