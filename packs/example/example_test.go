package example_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/toolpack-go/toolpack/packs/example"
	"github.com/toolpack-go/toolpack/registry"
)

// A host builds a registry and includes the pack only when
// MCP_INCLUDE_EXAMPLE_TOOLS is "true".
func ExampleRegister() {
	r := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	added, err := example.Register(r)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("included:", added == example.Enabled(), len(r.List()) > 0 == added)
	// Output:
	// included: true true
}

// New builds the pack; a host adds it to its registry and invokes its tools.
func ExampleNew() {
	p, err := example.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	r := registry.New(registry.Options{Prefix: new("demo"), Logger: slog.New(slog.DiscardHandler)})
	if err := r.AddPack(p); err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range r.List() {
		fmt.Println(t.Name)
	}
	res, err := r.Invoke(context.Background(), "demo_text_stats", json.RawMessage(`{"text":"one two\nthree"}`))
	b, _ := json.Marshal(res)
	fmt.Println(string(b), err)
	// Output:
	// demo_add
	// demo_count
	// demo_create_document
	// demo_delete_document
	// demo_echo
	// demo_get_document
	// demo_is_prime
	// demo_lines
	// demo_list_documents
	// demo_text_stats
	// {"success":true,"value":{"characters":13,"words":3,"lines":2}} <nil>
}
