package search_test

import (
	"fmt"

	"github.com/toolpack-go/toolpack/internal/search"
)

// Rank finds what a model meant despite a typo, best match first.
func ExampleRank() {
	items := []search.Item{
		{Name: "code.scaffold", Description: "Create a project from a template.", Kind: "tool"},
		{Name: "firecrawl", Description: "Crawl and scrape sites.", Kind: "pack"},
		{Name: "web.fetch", Description: "Fetch a page as Markdown.", Kind: "tool"},
		{Name: "web", Description: "Fetch and read web pages.", Kind: "pack"},
	}
	for _, q := range []string{"scaffoldl", "frirecrawl", "web fetch"} {
		for _, m := range search.Rank(q, items) {
			fmt.Printf("%s: %s %s (%s, %d)\n", q, m.Item.Kind, m.Item.Name, m.Rule, m.Score)
		}
	}
	// Output:
	// scaffoldl: tool code.scaffold (fuzzy, 40)
	// frirecrawl: pack firecrawl (fuzzy, 40)
	// web fetch: tool web.fetch (name_word, 170)
	// web fetch: pack web (description_word, 160)
}

// Lines searches lines of text, as ot.result's fuzzy search does.
func ExampleLines() {
	lines := []string{"starting", "loaded configuration", "config ok", "bad confgiuration"}
	for _, m := range search.Lines("config", lines) {
		fmt.Println(m.Line, m.Text, m.Score)
	}
	// Output:
	// 3 config ok 70
	// 2 loaded configuration 60
	// 4 bad confgiuration 25
}
