// Package testlog holds the goroutine-safe buffer the module's tests hand
// to slog handlers and child processes' stderr, so that a test reads what
// was logged while servers and callers are still writing.
package testlog

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// Buffer is a bytes.Buffer safe for concurrent Write and String. The zero
// value is ready to use; embed it in a test's own type to add readers.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Records parses every line written so far as one JSON object (what a
// slog.JSONHandler writes), failing t on a line that is not one.
func (b *Buffer) Records(t testing.TB) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(b.String()), "\n") {
		if line == "" {
			continue
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("testlog: a line that is not a JSON object: %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}
