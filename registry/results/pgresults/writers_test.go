package pgresults_test

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
	"github.com/toolpack-go/toolpack/registry/results"
	"github.com/toolpack-go/toolpack/registry/results/pgresults"
)

// Outputs being written take at most all but one of the pool's
// connections: with a pool of 2, a second writer waits for the first, and
// meanwhile pages are read and the health check answers at once instead of
// waiting for a connection. Every writer gets its turn.
func TestBackend_WritersLeaveAConnectionForReads(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	ctx := context.Background()
	be, err := pgresults.Open(ctx, dsn, pgresults.Options{Schema: schema, MaxConns: 2})
	require.NoError(t, err)
	st, err := results.Open(ctx, results.Options{Backend: be, Logger: quiet})
	require.NoError(t, err)
	defer st.Close()
	before, err := st.Put(ctx, strings.NewReader("a\nb\n"))
	require.NoError(t, err)

	started, open := make(chan int, 4), make(chan struct{})
	release := sync.OnceFunc(func() { close(open) })
	defer release() // before st.Close: a failed check must not leave writers holding connections
	var wg sync.WaitGroup
	handles := make([]string, 4)
	for i := range handles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := st.Put(ctx, &gated{n: i, started: started, open: open})
			if assert.NoError(t, err, "writer %d", i) {
				handles[i] = s.Handle
			}
		}()
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("no writer started")
	}
	// The other writers have had every chance to take the second
	// connection; they wait for their turn instead.
	time.Sleep(100 * time.Millisecond)
	assert.Zero(t, len(started), "a second output is written at once on a pool of 2")

	waitCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	require.NoError(t, be.Ping(waitCtx), "the health check found no free connection")
	p, err := st.Query(waitCtx, results.Request{Handle: before.Handle, Offset: 1, Limit: 10})
	require.NoError(t, err, "a page found no free connection")
	assert.Equal(t, []string{"a", "b"}, p.Lines)

	release()
	wg.Wait()
	for i, h := range handles {
		p, err := st.Query(ctx, results.Request{Handle: h, Offset: 1, Limit: 10})
		require.NoError(t, err, "writer %d", i)
		assert.Equal(t, []string{"writer", "done"}, p.Lines)
	}
}

// gated is an output that says it started on its first Read, then waits
// for open before giving its text.
type gated struct {
	n       int
	started chan<- int
	open    <-chan struct{}
	r       io.Reader
}

func (g *gated) Read(p []byte) (int, error) {
	if g.r == nil {
		g.started <- g.n
		<-g.open
		g.r = strings.NewReader("writer\ndone\n")
	}
	return g.r.Read(p)
}
