//go:build linux

package mlx_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolpack-go/toolpack/packs/mlx"
	"github.com/toolpack-go/toolpack/registry"
)

// A host serves the pack with the models it may start; a port outside
// 8100–8139 is refused as invalid_port before anything runs.
func ExampleNew() {
	dir, _ := os.MkdirTemp("", "mlx-example")
	defer os.RemoveAll(dir)
	p, err := mlx.New(mlx.Config{
		Models:    []string{"mlx-community/Qwen3-4B-4bit"},
		StateFile: filepath.Join(dir, "mlx-servers.json"),
	})
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
	r, _ := reg.Invoke(context.Background(), "mlx.load", json.RawMessage(`{"model":"mlx-community/Qwen3-4B-4bit","port":9000}`))
	fmt.Println(r.ErrorType)
	// Output:
	// mlx.load
	// mlx.unload
	// invalid_port
}
