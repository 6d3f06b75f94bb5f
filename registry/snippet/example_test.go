package snippet_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/snippet"
	"github.com/toolpack-go/toolpack/result"
)

type pair struct {
	A int `json:"a" validate:"required"`
	B int `json:"b" validate:"required"`
}

// Pack serves snippets as tools of a registry; each step is a call of
// Registry.Invoke.
func ExamplePack() {
	reg := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	_ = registry.AddFunc(reg, "add", func(ctx context.Context, p pair) (result.Result[int], error) {
		return result.Ok(p.A + p.B), nil
	}, registry.ToolOptions{Doc: "Adds two numbers."})

	p, err := snippet.Pack(map[string]snippet.Definition{
		"quadruple": {
			Description: "Adds a number to itself, twice",
			Params:      map[string]snippet.Param{"n": {Description: "The number", Default: 21}},
			Body: `r = add(a={{ n }}, b={{ n }})
add(a=r, b=r)   # the result of the line above`,
		},
	}, reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := reg.ReplacePack(p); err != nil { // on every configuration reload
		fmt.Println(err)
		return
	}
	res, _ := reg.Invoke(context.Background(), "snippet.quadruple", json.RawMessage(`{"n": 5}`))
	fmt.Println(res.Value)
	res, _ = reg.Invoke(context.Background(), "snippet.quadruple", nil)
	fmt.Println(res.Value)
	// Output:
	// 20
	// 84
}

// Parse errors name the snippet, the line and the column.
func ExampleParse() {
	_, err := snippet.Parse("research", snippet.Definition{
		Params: map[string]snippet.Param{"topic": {}},
		Body:   "r = search(q=\"{{ topik }}\")\nsummarize(text=results)",
	})
	fmt.Println(err)
	// Output:
	// snippet "research": line 1, column 18: unknown parameter "topik" in {{ topik }}; parameters: topic
	// snippet "research": line 2, column 16: "results" is not assigned before this line; names assigned so far: r
}

// Expand shows what a call runs, with the values as text.
func ExampleSnippet_Expand() {
	s, _ := snippet.Parse("news", snippet.Definition{
		Params: map[string]snippet.Param{"topic": {}, "count": {Default: 5}},
		Body:   `brave.search(query="{{ topic }} news", count={{ count }})`,
	})
	out, _ := s.Expand(map[string]any{"topic": "Go"})
	fmt.Println(out)
	// Output:
	// brave.search(query="Go news", count=5)
}
