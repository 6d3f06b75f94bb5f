package cataloguehost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/cataloguehost"
)

// A go tool put into the catalogue becomes a registry tool named
// {bundle}.{tool}.{version}, callable like any other.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "catalogue")
	defer os.RemoveAll(dir)

	funcs := cataloguehost.NewFuncs()
	_ = registry.AddFunc(funcs, "add", add, registry.ToolOptions{Description: "Adds a and b"})
	file, _ := catalogue.OpenFileStore(ctx, dir, catalogue.FileOptions{})
	store, _ := catalogue.WithBuiltIns(ctx, file, catalogue.BuiltInOptions{Dir: dir, HasFunc: funcs.Has})
	defer store.Close()

	reg := registry.New(registry.Options{})
	cat, err := cataloguehost.New(ctx, cataloguehost.Options{Store: store, Registry: reg,
		Invoker: &cataloguehost.Dispatcher{Funcs: funcs}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cat.Close()

	w := cat.Store() // writes through it reach the registry at once
	bundle, _ := catalogue.NewID()
	_, _, _ = w.PutBundle(ctx, bundle, catalogue.BundleSpec{Slug: "math", DisplayName: "Math", IsEnabled: true})
	spec, _ := funcs.Spec("add", "Add", "Adds two numbers")
	_, _ = w.PutTool(ctx, catalogue.ToolKey{BundleID: bundle, Slug: "add", Version: "1.0"}, spec)

	res, _ := reg.Invoke(ctx, "math.add.1.0", json.RawMessage(`{"a":2,"b":40}`))
	fmt.Println(res.Value)
	fmt.Println(cataloguehost.ToolName("météo", "prévision", "2"))
	// Output:
	// 42
	// m_e9_t_e9_o.pr_e9_vision.2
}
