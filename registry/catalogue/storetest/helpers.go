// Package storetest holds the conformance suite every [catalogue.Store]
// implementation passes, so that a new back-end (PostgreSQL beside the
// file store) is held to exactly the behaviour callers rely on:
//
//	func TestMyStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T, now func() time.Time) catalogue.Store {
//			return openMyStore(t, now)
//		})
//	}
package storetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testclock"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// newFakeClock is the clock handed to stores under test.
func newFakeClock() *testclock.Clock {
	return testclock.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
}

func newID(t testing.TB) uuid.UUID {
	id, err := catalogue.NewID()
	require.NoError(t, err)
	return id
}

func bundleSpec(slug string) catalogue.BundleSpec {
	return catalogue.BundleSpec{Slug: slug, DisplayName: "Bundle " + slug, Description: "a test bundle", IsEnabled: true}
}

// httpSpec is the tool of issue 12's example body.
func httpSpec(display string, tags ...string) catalogue.ToolSpec {
	return catalogue.ToolSpec{
		DisplayName: display, Description: "echoes q", Tags: tags, IsEnabled: true, Type: catalogue.TypeHTTP,
		ArgSchema:    json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`),
		OutputSchema: json.RawMessage(`{"type":"object"}`),
		HTTPImpl: &catalogue.HTTPImpl{
			Request: catalogue.HTTPRequest{Method: "GET", URLTemplate: "https://api.example.test/echo",
				Query: map[string]string{"q": "${q}"}, Headers: map[string]string{"X-Key": "${API_KEY}"},
				Auth: &catalogue.HTTPAuth{Type: catalogue.AuthBearer, Token: "${TOKEN}"}},
			Response: catalogue.HTTPResponse{Encoding: "json"},
			Limits: catalogue.HTTPLimits{Timeout: "10s", MaxRequestBytes: 65536, MaxResponseBytes: 1048576,
				MaxRetries: 2, MaxCallsPerMinute: 60},
		},
	}
}

func goSpec(display string) catalogue.ToolSpec {
	return catalogue.ToolSpec{
		DisplayName: display, IsEnabled: true, Type: catalogue.TypeGo,
		ArgSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}`),
		GoImpl:    &catalogue.GoImpl{Func: "add"},
	}
}

func mustBundle(t testing.TB, s catalogue.Store, slug string) uuid.UUID {
	t.Helper()
	id := newID(t)
	_, _, err := s.PutBundle(context.Background(), id, bundleSpec(slug))
	require.NoError(t, err)
	return id
}
