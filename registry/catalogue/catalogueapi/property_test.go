package catalogueapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/google/uuid"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
	"pgregory.net/rapid"
)

func goTool(display string, enabled bool) catalogue.ToolSpec {
	return catalogue.ToolSpec{DisplayName: display, IsEnabled: enabled, Type: catalogue.TypeGo,
		ArgSchema: json.RawMessage(`{"type":"object"}`), GoImpl: &catalogue.GoImpl{Func: "echo"}}
}

// TestPagingPropertyEachItemExactlyOnce: for any data, any page size and
// any listing, following nextPageToken returns every item that exists
// throughout exactly once, while other items are added and removed
// between pages.
func TestPagingPropertyEachItemExactlyOnce(t *testing.T) {
	root := t.TempDir()
	rapid.Check(t, func(rt *rapid.T) {
		ctx := context.Background()
		dir, err := os.MkdirTemp(root, "p")
		if err != nil {
			rt.Fatal(err)
		}
		st, err := catalogue.OpenFileStore(ctx, dir, catalogue.FileOptions{ReapInterval: -1, FlushInterval: -1})
		if err != nil {
			rt.Fatal(err)
		}
		defer st.Close()
		h, err := catalogueapi.New(catalogueapi.Options{Store: st, MaxPageSize: 10})
		if err != nil {
			rt.Fatal(err)
		}
		nb := rapid.IntRange(1, 3).Draw(rt, "bundles")
		var bundles []uuid.UUID
		stable := map[string]bool{}      // items present throughout, keyed like the listing reports them
		var volatile []catalogue.ToolKey // items the test may delete between pages
		for i := range nb {
			id, _ := catalogue.NewID()
			if _, _, err := st.PutBundle(ctx, id, catalogue.BundleSpec{Slug: fmt.Sprintf("b%d", i), DisplayName: "B", IsEnabled: true}); err != nil {
				rt.Fatal(err)
			}
			bundles = append(bundles, id)
			stable[id.String()] = true
			n := rapid.IntRange(0, 12).Draw(rt, "tools")
			for j := range n {
				k := catalogue.ToolKey{BundleID: id, Slug: fmt.Sprintf("tool%d", j), Version: "1"}
				if _, err := st.PutTool(ctx, k, goTool("Tool "+k.Slug, true)); err != nil {
					rt.Fatal(err)
				}
				if rapid.Bool().Draw(rt, "volatile") {
					volatile = append(volatile, k)
				} else {
					stable[id.String()+"/"+k.Slug] = true
				}
			}
		}
		route := rapid.SampledFrom([]string{"/tools?", "/tools/search?q=tool&", "/bundles?"}).Draw(rt, "route")
		sizeParam := "pageSize"
		if route == "/tools?" {
			sizeParam = "recommendedPageSize"
		}
		size := rapid.IntRange(1, 10).Draw(rt, "pageSize")
		seen := map[string]int{}
		tok := ""
		added := 0
		for page := 0; ; page++ {
			if page > 100 {
				rt.Fatal("paging did not end")
			}
			p := fmt.Sprintf("%s%s=%d", route, sizeParam, size)
			if tok != "" {
				p += "&pageToken=" + tok
			}
			rec := serve(h, "GET", p, "")
			if rec.Code != http.StatusOK {
				rt.Fatalf("%s: %d %s", p, rec.Code, rec.Body)
			}
			var body struct {
				Bundles []catalogue.Bundle
				Tools   []catalogue.Tool
				Next    string `json:"nextPageToken"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				rt.Fatal(err)
			}
			if len(body.Bundles)+len(body.Tools) > size {
				rt.Fatalf("page of %d items for pageSize %d", len(body.Bundles)+len(body.Tools), size)
			}
			for _, b := range body.Bundles {
				seen[b.ID.String()]++
			}
			for _, tl := range body.Tools {
				seen[tl.BundleID.String()+"/"+tl.Slug]++
			}
			if body.Next == "" {
				break
			}
			tok = body.Next
			// Change the data between pages: add a tool, delete a volatile one.
			if rapid.Bool().Draw(rt, "add") {
				added++
				b := bundles[rapid.IntRange(0, len(bundles)-1).Draw(rt, "addTo")]
				k := catalogue.ToolKey{BundleID: b, Slug: fmt.Sprintf("added%d", added), Version: "1"}
				if _, err := st.PutTool(ctx, k, goTool("Tool added", true)); err != nil {
					rt.Fatal(err)
				}
			}
			if len(volatile) > 0 && rapid.Bool().Draw(rt, "delete") {
				i := rapid.IntRange(0, len(volatile)-1).Draw(rt, "victim")
				if err := st.DeleteTool(ctx, volatile[i]); err != nil {
					rt.Fatal(err)
				}
				volatile = append(volatile[:i], volatile[i+1:]...)
			}
		}
		for k, n := range seen {
			if n > 1 {
				rt.Fatalf("%s listed %d times", k, n)
			}
		}
		for k := range stable {
			isBundle := len(k) == 36
			if isBundle != (route == "/bundles?") {
				continue
			}
			if seen[k] != 1 {
				rt.Fatalf("%s present throughout but listed %d times", k, seen[k])
			}
		}
	})
}
