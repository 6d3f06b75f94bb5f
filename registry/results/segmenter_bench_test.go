package results

import (
	"bufio"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/toolpack-go/toolpack/internal/cputime"
)

// BenchmarkSegmenter measures the line index alone (no disk): 1 MiB of
// log-like lines (80 to 110 bytes) and 1 MiB of short lines (8 bytes),
// written in the chunks Put reads, into io.Discard. cpu-ns/op is the
// thread's CPU time, steadier than ns/op on a loaded machine.
func BenchmarkSegmenter(b *testing.B) {
	var logText, shortText strings.Builder
	for i := 0; logText.Len() < 1<<20; i++ {
		logText.WriteString("2026-11-23T10:00:00.000Z INFO request " + strconv.Itoa(i) + " GET /api/v1/items/" +
			strconv.Itoa(i*7919%1000003) + " served in " + strconv.Itoa(i%997) + " ms" + strings.Repeat(" ", i%20) + "\n")
	}
	for shortText.Len() < 1<<20 {
		shortText.WriteString("line 42\n")
	}
	for _, c := range []struct{ name, text string }{{"log", logText.String()}, {"short", shortText.String()}} {
		b.Run(c.name, func(b *testing.B) {
			text := []byte(c.text)
			w := bufio.NewWriterSize(io.Discard, 64<<10)
			b.SetBytes(int64(len(text)))
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			c0, _ := cputime.Thread()
			for b.Loop() {
				s := &segmenter{w: w, max: DefaultMaxLineBytes, budget: DefaultMaxOutputBytes - headerSize - entrySize}
				for p := text; len(p) > 0; {
					n := min(len(p), copyBuffer)
					if k, err := s.write(p[:n]); err != nil || k != n {
						b.Fatal(k, err)
					}
					p = p[n:]
				}
				_ = w.Flush()
			}
			if c1, ok := cputime.Thread(); ok {
				b.ReportMetric(float64(c1-c0)/float64(b.N), "cpu-ns/op")
			}
		})
	}
}
