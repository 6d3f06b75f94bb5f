// Package benchtool holds the 5-field search tool that the adapter tests and
// benchmarks (adapters/mcpserver, adapters/httpapi) measure, so that their figures
// compare the same work: a string with length bounds, an int with a range,
// an enum, an optional float and a slice. It also holds the small statistics
// the interleaved ratio benchmarks report.
package benchtool

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// SearchArgs are the search tool's arguments.
type SearchArgs struct {
	Query     string   `json:"query" validate:"required,min=1,max=200" description:"What to search for."`
	Limit     int      `json:"limit" validate:"required,min=1,max=50" description:"Maximum number of hits."`
	Mode      string   `json:"mode" validate:"required,oneof=fast exact" description:"Search mode."`
	Threshold *float64 `json:"threshold,omitempty" validate:"omitempty,min=0,max=1" description:"Minimum score."`
	Tags      []string `json:"tags" validate:"required,max=10,dive,min=1,max=20" description:"Tags to filter by."`
}

// SearchOut is the search tool's structured value.
type SearchOut struct {
	// Query is the query in upper case.
	Query string `json:"query"`
	// Hits is the limit asked for.
	Hits int `json:"hits"`
	// Tags is the number of tags given.
	Tags int `json:"tags"`
}

// Search is the one function every registration of the tool calls.
func Search(a SearchArgs) SearchOut {
	return SearchOut{Query: strings.ToUpper(a.Query), Hits: a.Limit, Tags: len(a.Tags)}
}

// Median returns the median of ds, sorting ds in place; medians keep a ratio
// robust against scheduling spikes on a shared machine. It is 0 for no
// durations.
func Median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// Sum returns the total of ds.
func Sum(ds []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range ds {
		t += d
	}
	return t
}

// Interleave runs one call of ours and one of base per benchmark iteration,
// in the same loop so that load from other processes hits both alike,
// reports the ratio of their median call times as "ratio" and of their
// total times as "mean-ratio", and returns the two medians.
func Interleave(b *testing.B, ours, base func()) (mOurs, mBase time.Duration) {
	var dOurs, dBase []time.Duration
	for b.Loop() {
		t0 := time.Now()
		ours()
		t1 := time.Now()
		base()
		t2 := time.Now()
		dOurs = append(dOurs, t1.Sub(t0))
		dBase = append(dBase, t2.Sub(t1))
	}
	mOurs, mBase = Median(dOurs), Median(dBase)
	if mBase > 0 {
		b.ReportMetric(float64(mOurs)/float64(mBase), "ratio")
	}
	if sum := Sum(dBase); sum > 0 {
		b.ReportMetric(float64(Sum(dOurs))/float64(sum), "mean-ratio")
	}
	return mOurs, mBase
}
