package testlog_test

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolpack-go/toolpack/internal/testlog"
)

func TestBuffer_ConcurrentWritesAllKept(t *testing.T) {
	var b testlog.Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				_, _ = b.Write([]byte("x\n"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 800, strings.Count(b.String(), "x\n"))
}

// Capture a logger's output in a test.
func ExampleBuffer() {
	var b testlog.Buffer
	log := slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	log.Info("hello", "tool", "add")
	fmt.Print(b.String())
	// Output: level=INFO msg=hello tool=add
}
