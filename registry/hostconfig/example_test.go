package hostconfig_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
	"github.com/toolpack-go/toolpack/result"
)

// Load a file that includes another; the including file's own keys win.
func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "hostconfig-example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(`include: [more.yaml]
aliases: {plus: add}
stats: {enabled: true, flush_interval: "${FLUSH:-2s}"}
`), 0o600)
	_ = os.WriteFile(filepath.Join(dir, "more.yaml"), []byte(`aliases: {plus: sum, ws: brave.web_search}
stats: {dir: stats}
`), 0o600)

	cfg, err := hostconfig.Load(filepath.Join(dir, "config.yaml"), hostconfig.LoadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.Aliases["plus"], cfg.Aliases["ws"])
	fmt.Println(cfg.Stats.Enabled, cfg.Stats.FlushInterval, filepath.Base(cfg.Stats.Dir))
	fmt.Println(cfg.Output.MaxInlineBytes, cfg.Output.TTL)
	// Output:
	// add brave.web_search
	// true 2s stats
	// 50000 1h0m0s
}

// Every problem is reported at once, each with file, line and key.
func ExampleLoad_errors() {
	dir, _ := os.MkdirTemp("", "hostconfig-example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(`stats:
  flush_interval: soon
  flush: 3
`), 0o600)
	_, err := hostconfig.Load(filepath.Join(dir, "config.yaml"), hostconfig.LoadOptions{})
	for _, p := range hostconfig.Problems(err) {
		fmt.Printf("%s:%d: %s: %s\n", filepath.Base(p.File), p.Line, p.Key, p.Message)
	}
	// Output:
	// config.yaml:2: stats.flush_interval: expected a duration such as 1s, got "soon"
	// config.yaml:3: stats.flush: unknown key "flush"; expected one of enabled, dir, flush_interval, context_per_call, time_per_call_ms, keep_days, dsn, schema, max_conns, statement_timeout
}

// A Host applies the configuration to a registry and re-applies it on
// Reload; a hook plugs in what the host builds from it.
func ExampleHost_Reload() {
	dir, _ := os.MkdirTemp("", "hostconfig-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "config.yaml")
	_ = os.WriteFile(path, []byte("aliases: {plus: add}\n"), 0o600)

	reg := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	type pair struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	_ = registry.AddFunc(reg, "add", func(_ context.Context, p pair) (result.Result[int], error) {
		return result.Ok(p.A + p.B), nil
	}, registry.ToolOptions{Doc: "Adds."})

	host, _ := hostconfig.NewHost(hostconfig.Options{Path: path, Registry: reg})
	host.OnApply("settings", func(_ context.Context, old, cfg *hostconfig.Config) (hostconfig.Step, error) {
		return hostconfig.Step{Apply: func(context.Context) error {
			fmt.Println("stats enabled:", cfg.Stats.Enabled)
			return nil
		}}, nil
	})
	if err := host.Reload(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	res, _ := reg.Invoke(context.Background(), "plus", []byte(`{"a":2,"b":3}`))
	fmt.Println(res.Value)

	// A broken edit is refused; the configuration in force stays.
	_ = os.WriteFile(path, []byte("aliases: {plus: nothing}\n"), 0o600)
	err := host.Reload(context.Background())
	fmt.Println(err != nil, reg.Aliases()["plus"])
	// Output:
	// stats enabled: false
	// 5
	// true add
}

// Expand a value as a configuration file's values are expanded.
func ExampleExpand() {
	lookup := func(name string) (string, bool) {
		if name == "KEY" {
			return "k-123", true
		}
		return "", false
	}
	v, _ := hostconfig.Expand("Bearer ${KEY} (costs $5, $$ is $, $$HOME, ${MODE:-fast})", lookup)
	fmt.Println(v)
	_, err := hostconfig.Expand("Bearer ${TOKEN}", lookup)
	fmt.Println(err)
	_, err = hostconfig.Expand("Bearer $KEY", lookup)
	fmt.Println(err)
	// Output:
	// Bearer k-123 (costs $5, $ is $, $HOME, fast)
	// environment variable TOKEN is not set (write ${TOKEN:-default} to give a default)
	// a bare $ before a name is not expanded: write ${NAME} to expand, or $$ for a literal $ (value not shown)
}
