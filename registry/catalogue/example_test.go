package catalogue_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// Decoding a client's tool body: every problem comes back at once, each
// naming its JSON path and what was expected.
func ExampleDecodeToolSpec() {
	body := `{"displayName": "Echo", "isEnabled": true, "type": "http", "color": "red",
	  "argSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
	  "httpImpl": {"request": {"method": "FETCH", "urlTemplate": "ftp://api.example.test/echo"}}}`
	_, err := catalogue.DecodeToolSpec(strings.NewReader(body))
	var ve *catalogue.ValidationError
	if errors.As(err, &ve) {
		for _, f := range ve.Fields {
			fmt.Println(f.Field)
		}
	}
	fmt.Println(errors.Is(err, catalogue.ErrInvalid))
	// Output:
	// color
	// httpImpl.request.method
	// httpImpl.request.urlTemplate
	// true
}

// Slugs are Unicode letters, digits and dashes; versions may hold dots.
func ExampleValidateSlug() {
	for _, s := range []string{"read-file", "résumé", "read_file", "+readfile"} {
		fmt.Println(s, catalogue.ValidateSlug(s) == nil)
	}
	fmt.Println(catalogue.ValidateVersion("1.0.0-beta") == nil)
	// Output:
	// read-file true
	// résumé true
	// read_file false
	// +readfile false
	// true
}

// A file store: create a bundle, publish a tool version, and see that the
// same <slug, version> cannot be published twice.
func ExampleOpenFileStore() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "catalogue")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := catalogue.OpenFileStore(ctx, dir, catalogue.FileOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	bundleID, _ := catalogue.NewID()
	if _, _, err := store.PutBundle(ctx, bundleID, catalogue.BundleSpec{Slug: "math", DisplayName: "Math", IsEnabled: true}); err != nil {
		log.Fatal(err)
	}
	spec, err := catalogue.DecodeToolSpec(strings.NewReader(`{"displayName": "Add", "isEnabled": true, "type": "go",
	  "argSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
	  "goImpl": {"func": "add"}}`))
	if err != nil {
		log.Fatal(err)
	}
	key := catalogue.ToolKey{BundleID: bundleID, Slug: "add", Version: "1.0"}
	if _, err := store.PutTool(ctx, key, spec); err != nil {
		log.Fatal(err)
	}
	_, err = store.PutTool(ctx, key, spec)
	fmt.Println(errors.Is(err, catalogue.ErrConflict))

	tools, err := store.ListTools(ctx, catalogue.ToolQuery{BundleIDs: []uuid.UUID{bundleID}})
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools {
		fmt.Println(t.Slug, t.Version, t.Type, t.GoImpl.Func)
	}
	// Output:
	// true
	// add 1.0 go add
}

// Counting calls never waits for the disk; reads see the counts at once,
// and Close writes them.
func ExampleFileStore_RecordUsage() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "catalogue")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := catalogue.OpenFileStore(ctx, dir, catalogue.FileOptions{})
	if err != nil {
		log.Fatal(err)
	}
	bundleID, _ := catalogue.NewID()
	_, _, _ = store.PutBundle(ctx, bundleID, catalogue.BundleSpec{Slug: "math", DisplayName: "Math", IsEnabled: true})
	key := catalogue.ToolKey{BundleID: bundleID, Slug: "add", Version: "1"}
	_, err = store.PutTool(ctx, key, catalogue.ToolSpec{DisplayName: "Add", IsEnabled: true, Type: catalogue.TypeGo,
		ArgSchema: []byte(`{"type":"object"}`), GoImpl: &catalogue.GoImpl{Func: "add"}})
	if err != nil {
		log.Fatal(err)
	}
	for range 3 {
		_ = store.RecordUsage(ctx, key, time.Now())
	}
	t, _ := store.GetTool(ctx, key)
	fmt.Println(t.CallCount)
	if err := store.Close(); err != nil {
		log.Fatal(err)
	}
	reopened, _ := catalogue.OpenFileStore(ctx, dir, catalogue.FileOptions{})
	defer reopened.Close()
	t, _ = reopened.GetTool(ctx, key)
	fmt.Println(t.CallCount)
	// Output:
	// 3
	// 3
}

// Arguments are checked against a tool's argSchema with ValidateValue;
// Violations says, field by field, what was expected.
func ExampleValidateValue() {
	schema, err := catalogue.CompileSchema([]byte(`{"type":"object",
		"properties":{"n":{"type":"integer","maximum":10},"tags":{"type":"array","maxItems":2}},
		"required":["n","q"],"additionalProperties":false}`))
	if err != nil {
		log.Fatal(err)
	}
	for _, args := range []string{`{"n":11,"tags":[1,2,3],"x":true}`, `{"n":1e1000001,"q":1}`} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
		if err != nil {
			log.Fatal(err)
		}
		for _, vi := range catalogue.Violations(catalogue.ValidateValue(schema, v)) {
			fmt.Printf("%s: %s\n", catalogue.FieldPath(vi.Pointer), vi.Message)
		}
	}
	// Unordered output:
	// q: is required
	// x: unknown field; expected one of: n, tags
	// n: must be at most 10, got 11
	// tags: must have at most 2 items, got 3
	// n: expected a number written with at most 400 digits and an exponent between -400 and 400
}

// Two hosts sharing one catalogue directory: each watches the store, and
// reads the catalogue again when the other changes it. (Here both stores
// are in one process; across processes it is the same.)
func ExampleFileStore_Watch() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "catalogue")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	open := func() *catalogue.FileStore {
		s, err := catalogue.OpenFileStore(ctx, dir, catalogue.FileOptions{WatchInterval: 10 * time.Millisecond})
		if err != nil {
			log.Fatal(err)
		}
		return s
	}
	hostA, hostB := open(), open()
	defer hostA.Close()
	defer hostB.Close()

	changed := make(chan struct{}, 1)
	watchCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		_ = hostB.Watch(watchCtx, func() { // a host would call cataloguehost's Sync here
			select {
			case changed <- struct{}{}:
			default:
			}
		})
	}()

	id, _ := catalogue.NewID()
	if _, _, err := hostA.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "math", DisplayName: "Math", IsEnabled: true}); err != nil {
		log.Fatal(err)
	}
	<-changed
	b, err := hostB.GetBundle(ctx, id)
	fmt.Println(b.Slug, err)
	// Output: math <nil>
}

// A runner names the tool in its failures as the caller called it: the
// host gives each call the tool's registry name; without it, the tool is
// slug@version.
func ExampleCalledAs() {
	key := catalogue.ToolKey{BundleID: uuid.MustParse("01a20a2e-ca02-72e4-83b7-3ccb89a10ff3"), Slug: "sum", Version: "1"}
	ctx := catalogue.WithCalledAs(context.Background(), key, "math.sum.1")
	fmt.Println(catalogue.CalledAs(ctx, key))
	other := catalogue.ToolKey{BundleID: key.BundleID, Slug: "add", Version: "2"}
	fmt.Println(catalogue.CalledAs(ctx, other))
	// Output:
	// math.sum.1
	// add@2
}
