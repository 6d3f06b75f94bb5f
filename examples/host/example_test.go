package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolpack-go/toolpack/packs/example"
	"github.com/toolpack-go/toolpack/registry"
)

// run prints one JSON line per call; here the first two, with the prefix
// disabled through MCP_TOOL_PREFIX="".
func Example_run() {
	restore := setenv(map[string]string{example.EnvIncludeExampleTools: "true", registry.EnvToolPrefix: ""})
	defer restore()
	var out strings.Builder
	if err := run(context.Background(), &out, io.Discard); err != nil {
		fmt.Println(err)
		return
	}
	lines := strings.Split(out.String(), "\n")
	fmt.Println(lines[0])
	fmt.Println(lines[1])
	// Output:
	// {"tool":"echo","arguments":{"text":"hello, toolpack"},"result":{"success":true,"value":"hello, toolpack","instruction":"Use the value as returned; do not invent fields it does not contain."}}
	// {"tool":"add","arguments":{"a":2,"b":40},"result":{"success":true,"value":42,"instruction":"Use the value as returned; do not invent fields it does not contain."}}
}

// setenv sets vars and returns a function restoring the previous state.
func setenv(vars map[string]string) (restore func()) {
	type prev struct {
		v  string
		ok bool
	}
	old := map[string]prev{}
	for k, v := range vars {
		o, ok := os.LookupEnv(k)
		old[k] = prev{o, ok}
		_ = os.Setenv(k, v)
	}
	return func() {
		for k, p := range old {
			if p.ok {
				_ = os.Setenv(k, p.v)
			} else {
				_ = os.Unsetenv(k)
			}
		}
	}
}
