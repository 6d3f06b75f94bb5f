// Package benchtool holds the 5-field search tool that the adapter tests and
// benchmarks (adapters/mcp, adapters/httpapi) measure, so that their figures
// compare the same work: a string with length bounds, an int with a range,
// an enum, an optional float and a slice. It also holds the small statistics
// the interleaved ratio benchmarks report.
package benchtool

import (
	"slices"
	"strings"
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
