package storetest

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// SharedPageTokenKey asks a and b — two stores on one catalogue — for the
// page token key from 16 goroutines at once, and returns the key, failing
// the test unless every answer is the same key of
// catalogue.PageTokenKeyBytes bytes: the key is made once, whoever asks
// first.
func SharedPageTokenKey(t *testing.T, a, b catalogue.PageTokenKeeper) []byte {
	t.Helper()
	keys := make(chan []byte, 16)
	var wg sync.WaitGroup
	for i := range cap(keys) {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			key, err := s.PageTokenKey(context.Background())
			assert.NoError(t, err)
			keys <- key
		})
	}
	wg.Wait()
	close(keys)
	first := <-keys
	require.Len(t, first, catalogue.PageTokenKeyBytes)
	for k := range keys {
		assert.Equal(t, first, k, "every store on the catalogue has the one key")
	}
	return first
}
