package results_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testclock"
	"github.com/toolpack-go/toolpack/registry/results"
)

// newClock is a settable clock for Options.Now, starting at the real now.
func newClock() *testclock.Clock { return testclock.New(time.Now()) }

var quiet = slog.New(slog.DiscardHandler)

// openStore opens a Store on a fresh directory (unless o.Dir is set) and
// closes it at the end of the test.
func openStore(t testing.TB, o results.Options) *results.Store {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	if o.Logger == nil {
		o.Logger = quiet
	}
	st, err := results.Open(context.Background(), o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// numbered returns "line 1" … "line n".
func numbered(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("line %d", i+1)
	}
	return out
}

func put(t testing.TB, st *results.Store, lines []string) results.Stored {
	t.Helper()
	s, err := st.Put(context.Background(), strings.NewReader(strings.Join(lines, "\n")))
	require.NoError(t, err)
	return s
}

func query(t testing.TB, st *results.Store, q results.Request) results.Page {
	t.Helper()
	p, err := st.Query(context.Background(), q)
	require.NoError(t, err)
	return p
}

// defaults is ot.result(handle=h): offset 1, limit 100.
func defaults(h string) results.Request {
	return results.Request{Handle: h, Offset: results.DefaultOffset, Limit: results.DefaultLimit}
}
