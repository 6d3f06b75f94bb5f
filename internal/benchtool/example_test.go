package benchtool_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/benchtool"
)

func ExampleSearch() {
	fmt.Printf("%+v\n", benchtool.Search(benchtool.SearchArgs{Query: "go", Limit: 3, Mode: "fast", Tags: []string{"a"}}))
	// Output: {Query:GO Hits:3 Tags:1}
}

func ExampleMedian() {
	ds := []time.Duration{5, 1, 9}
	fmt.Println(benchtool.Median(ds), benchtool.Sum(ds))
	// Output: 5ns 15ns
}

// TestInterleave: both metrics are reported, and the medians returned are
// those of the two functions' own calls.
func TestInterleave(t *testing.T) {
	var nOurs, nBase int
	var mOurs, mBase time.Duration
	res := testing.Benchmark(func(b *testing.B) {
		mOurs, mBase = benchtool.Interleave(b, func() { nOurs++ }, func() { nBase++ })
	})
	require.Equal(t, nOurs, nBase, "one call of each per iteration")
	require.Positive(t, nOurs)
	require.Contains(t, res.Extra, "ratio")
	require.Contains(t, res.Extra, "mean-ratio")
	require.GreaterOrEqual(t, mOurs, time.Duration(0))
	require.GreaterOrEqual(t, mBase, time.Duration(0))
}
