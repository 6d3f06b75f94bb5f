package searchindex_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/google/uuid"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/searchindex"
)

// Wrap a file store, write through the wrapped store, and search: a
// typo still finds the tool, the prefix of a slug ranks first.
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
	st, err := searchindex.Wrap(ctx, fs, searchindex.Options{})
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
	for _, q := range []string{"weather", "wether", "adress"} {
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
	// wether: weather-now forecast
	// adress: geocode
}
