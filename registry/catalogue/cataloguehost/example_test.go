package cataloguehost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

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

// Two hosts on one catalogue directory: what one writes, the other's
// registry serves as soon as Follow has re-read the change.
func ExampleFollow() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "catalogue")
	defer os.RemoveAll(dir)
	funcs := cataloguehost.NewFuncs()
	_ = registry.AddFunc(funcs, "add", add, registry.ToolOptions{Description: "Adds a and b"})

	host := func() (*catalogue.FileStore, *registry.Registry, *cataloguehost.Catalogue) {
		store, _ := catalogue.OpenFileStore(ctx, dir, catalogue.FileOptions{})
		reg := registry.New(registry.Options{})
		cat, _ := cataloguehost.New(ctx, cataloguehost.Options{Store: store, Registry: reg,
			Invoker: &cataloguehost.Dispatcher{Funcs: funcs}})
		return store, reg, cat
	}
	storeA, _, catA := host()
	defer storeA.Close()
	defer catA.Close()
	storeB, regB, catB := host()
	defer storeB.Close()
	defer catB.Close()

	stop, err := cataloguehost.Follow(ctx, storeB, cataloguehost.FollowOptions{}, catB.Reader())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	bundle, _ := catalogue.NewID()
	_, _, _ = catA.Store().PutBundle(ctx, bundle, catalogue.BundleSpec{Slug: "math", DisplayName: "Math", IsEnabled: true})
	spec, _ := funcs.Spec("add", "Add", "Adds two numbers")
	_, _ = catA.Store().PutTool(ctx, catalogue.ToolKey{BundleID: bundle, Slug: "add", Version: "1.0"}, spec)

	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if res, err := regB.Invoke(ctx, "math.add.1.0", json.RawMessage(`{"a":2,"b":40}`)); err == nil {
			fmt.Println("host B:", res.Value)
			break
		}
	}
	// Output:
	// host B: 42
}
