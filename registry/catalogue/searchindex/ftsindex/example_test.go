package ftsindex_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/google/uuid"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/searchindex"
	"github.com/toolpack-go/toolpack/registry/catalogue/searchindex/ftsindex"
)

// Wrap a file store with the FTS5 index, write through it, and search:
// literal words and prefixes rank as with searchindex; a typo alone
// ("wether") finds nothing, unlike the in-memory index.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "catalogue")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	fs, err := catalogue.OpenFileStore(ctx, dir, catalogue.FileOptions{})
	if err != nil {
		panic(err)
	}
	st, err := ftsindex.Wrap(ctx, fs, ftsindex.Options{})
	if err != nil {
		panic(err)
	}
	defer st.Close()

	bundle := uuid.Must(uuid.NewV7())
	if _, _, err := st.PutBundle(ctx, bundle, catalogue.BundleSpec{Slug: "geo", DisplayName: "Geo", IsEnabled: true}); err != nil {
		panic(err)
	}
	for _, t := range []struct{ slug, name, desc string }{
		{"weather-now", "Weather now", "Current conditions for a city."},
		{"forecast", "Forecast", "The weather of the next days."},
		{"geocode", "Geocode", "Turns an address into coordinates."},
	} {
		spec := catalogue.ToolSpec{DisplayName: t.name, Description: t.desc, IsEnabled: true, Type: catalogue.TypeGo,
			ArgSchema: json.RawMessage(`{"type":"object"}`), GoImpl: &catalogue.GoImpl{Func: "noop"}}
		if _, err := st.PutTool(ctx, catalogue.ToolKey{BundleID: bundle, Slug: t.slug, Version: "1"}, spec); err != nil {
			panic(err)
		}
	}
	for _, q := range []string{"weather", "wea", "wether", "address coord"} {
		page, err := st.Search(ctx, searchindex.Query{Text: q, Limit: 10})
		if err != nil {
			panic(err)
		}
		fmt.Print(q, ":")
		for _, t := range page.Tools {
			fmt.Print(" ", t.Slug)
		}
		fmt.Println()
	}
	// Output:
	// weather: weather-now forecast
	// wea: weather-now forecast
	// wether:
	// address coord: geocode
}
