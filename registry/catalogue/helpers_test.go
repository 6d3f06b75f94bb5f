package catalogue

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testclock"
)

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// newFakeClock is the clock handed to stores under test.
func newFakeClock() *testclock.Clock {
	return testclock.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
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
