package web_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolpack-go/toolpack/packs/web"
	"github.com/toolpack-go/toolpack/registry"
)

// A host serves web.fetch with its defaults (public addresses only) and
// search.web through its gateway. A URL that is not http or https is
// refused before anything is fetched.
func ExampleNew() {
	p, err := web.New(web.Config{Search: web.SearchConfig{
		BaseURL:    "https://litellm.internal.example",
		APIKey:     "sk-…", // from the environment in a real host
		SearchTool: "tavily-search",
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	reg := registry.New(registry.Options{Logger: quiet})
	if err := reg.AddPack(p); err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range reg.List() {
		fmt.Println(t.Name)
	}
	r, _ := reg.Invoke(context.Background(), "web.fetch", json.RawMessage(`{"url":"file:///etc/passwd"}`))
	fmt.Println(r.ErrorType)
	// Output:
	// search.web
	// web.fetch
	// validation_error
}
