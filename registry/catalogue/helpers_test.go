package catalogue

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// fakeClock is an injectable clock for reaper and timestamp tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newID(t testing.TB) uuid.UUID {
	id, err := NewID()
	require.NoError(t, err)
	return id
}

func bundleSpec(slug string) BundleSpec {
	return BundleSpec{Slug: slug, DisplayName: "Bundle " + slug, Description: "a test bundle", IsEnabled: true}
}

// httpSpec is the tool of the example (without goImpl).
func httpSpec(display string, tags ...string) ToolSpec {
	return ToolSpec{
		DisplayName: display, Description: "echoes q", Tags: tags, IsEnabled: true, Type: TypeHTTP,
		ArgSchema:    json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`),
		OutputSchema: json.RawMessage(`{"type":"object"}`),
		HTTPImpl: &HTTPImpl{
			Request: HTTPRequest{Method: "GET", URLTemplate: "https://api.example.test/echo",
				Query: map[string]string{"q": "${q}"}, Headers: map[string]string{"X-Key": "${API_KEY}"},
				Auth: &HTTPAuth{Type: AuthBearer, Token: "${TOKEN}"}},
			Response: HTTPResponse{Encoding: "json"},
			Limits: HTTPLimits{Timeout: "10s", MaxRequestBytes: 65536, MaxResponseBytes: 1048576,
				MaxRetries: 2, MaxCallsPerMinute: 60},
		},
	}
}

// mustBundle creates an enabled bundle.
func mustBundle(t testing.TB, s Store, slug string) uuid.UUID {
	t.Helper()
	id := newID(t)
	_, _, err := s.PutBundle(context.Background(), id, bundleSpec(slug))
	require.NoError(t, err)
	return id
}

func openFile(t testing.TB, dir string, now func() time.Time) *FileStore {
	t.Helper()
	s, err := OpenFileStore(context.Background(), dir, FileOptions{Now: now, Logger: discard, FlushInterval: -1, ReapInterval: -1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}
