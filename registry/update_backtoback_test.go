package registry

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Updates that follow each other with no pause — each leaving an alias
// dangling between its steps — never fail a call of the alias: a caller
// woken at the end of one update that finds the next one under way waits
// for that one too.
func TestUpdate_BackToBackUpdatesFailNoCall(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.AddPack(&Pack{Name: "snippet", Tools: []*Tool{rawTool("snippet.v0", okHandler("ok"))}}))
	require.NoError(t, r.SetAliases(map[string]string{"x": "snippet.v0"}))
	stop := make(chan struct{})
	var calls, failed atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := r.Invoke(context.Background(), "x", nil)
				calls.Add(1)
				if err != nil || !res.Success {
					failed.Add(1)
				}
			}
		}()
	}
	for i := 1; i <= 2000; i++ {
		name := fmt.Sprintf("snippet.v%d", i)
		require.NoError(t, r.Update(func() error {
			if err := r.ReplacePack(&Pack{Name: "snippet", Tools: []*Tool{rawTool(name, okHandler("ok"))}}); err != nil {
				return err
			}
			runtime.Gosched()
			return r.SetAliases(map[string]string{"x": name})
		}))
	}
	close(stop)
	wg.Wait()
	t.Logf("%d calls", calls.Load())
	assert.Zero(t, failed.Load())
}
