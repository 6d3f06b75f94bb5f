package othost_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolpack-go/toolpack/packs/example"
	"github.com/toolpack-go/toolpack/packs/ot/othost"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

// A host with its own tools, a configuration file and the ot pack: the
// snippet of the file becomes a tool, and ot.aliases shows the aliases.
func ExampleSetup() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "othost")
	defer os.RemoveAll(dir)
	config := filepath.Join(dir, "config.yaml")
	_ = os.WriteFile(config, []byte(`
aliases: {plus: add}
snippets:
  twice:
    description: Add a number to itself
    params: {n: {description: The number, default: 21}}
    body: |
      r = plus(a={{ n }}, b={{ n }})
`), 0o600)

	reg := registry.New(registry.Options{})
	tools, _ := example.New()
	_ = reg.AddPack(tools)
	host, _ := hostconfig.NewHost(hostconfig.Options{Path: config, Registry: reg})
	w, err := othost.Setup(ctx, othost.Options{Registry: reg, Host: host})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close(ctx)
	if err := host.Reload(ctx); err != nil { // the first configuration
		fmt.Println(err)
		return
	}

	res, _ := reg.Invoke(ctx, "snippet.twice", []byte(`{}`))
	fmt.Println(res.Value)
	res, _ = reg.Invoke(ctx, "ot.aliases", []byte(`{}`))
	fmt.Println(res.Value)
	// Output:
	// 42
	// [plus -> add]
}
