package results_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/toolpack-go/toolpack/packs/example"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/results"
)

// Put stores a text; Query reads it a page at a time, filters it with a
// regular expression, and refuses an offset below 1 with the seed's
// message.
func ExampleStore_Query() {
	dir, err := os.MkdirTemp("", "results-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	st, err := results.Open(ctx, results.Options{Dir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()

	s, err := st.Put(ctx, strings.NewReader("alpha\nbeta\nerror: disk full\ngamma\nerror: timeout\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Summary)

	p, _ := st.Query(ctx, results.Request{Handle: s.Handle, Offset: 2, Limit: 2})
	fmt.Println(p.Lines, p.HasMore)

	p, _ = st.Query(ctx, results.Request{Handle: s.Handle, Offset: 1, Limit: 10, Search: "^error"})
	fmt.Println(p.Lines, p.LineNumbers)

	_, err = st.Query(ctx, results.Request{Handle: s.Handle, Offset: 0, Limit: 10})
	fmt.Println(err)
	// Output:
	// text: 5 lines, 49 bytes
	// [beta error: disk full] true
	// [error: disk full error: timeout] [3 5]
	// offset must be >= 1 (1-indexed), got 0
}

// Middleware replaces a large result by a handle object; its query field
// is the call that reads on.
func ExampleStore_Middleware() {
	dir, err := os.MkdirTemp("", "results-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	st, err := results.Open(ctx, results.Options{Dir: dir, MaxInlineBytes: 1000})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()

	reg := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	p, err := example.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := reg.AddPack(p); err != nil {
		fmt.Println(err)
		return
	}
	reg.Use(st.Middleware())

	small, _ := reg.Invoke(ctx, "lines", json.RawMessage(`{"count":3}`))
	fmt.Printf("%q\n", small.Value)

	res, err := reg.Invoke(ctx, "lines", json.RawMessage(`{"count":5000}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := res.Value.(results.Stored)
	fmt.Println(s.Summary)
	fmt.Println(s.Preview[:3])
	fmt.Println(strings.Replace(s.Query, s.Handle, "…", 1))

	page, _ := st.Query(ctx, results.Request{Handle: s.Handle, Offset: 4999, Limit: 100})
	fmt.Println(page.Lines, page.HasMore)
	// Output:
	// "line 1\nline 2\nline 3"
	// text: 5,000 lines, 48,892 bytes
	// [line 1 line 2 line 3]
	// ot.result(handle="…", offset=11, limit=100)
	// [line 4999 line 5000] false
}
