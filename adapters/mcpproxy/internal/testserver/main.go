// Command testserver serves the testmcp tools over stdio. The mcpproxy tests
// build it into a temporary directory and run it as a child process.
//
// When the environment variable TESTSERVER_FAILFILE names a file that exists,
// the server exits with status 3 at start, so that tests can make restarts
// fail on purpose. When TESTSERVER_STDERR_LEAK is set, the server first
// writes the values of the TESTMCP_SECRET* variables to its standard error
// (as is and split across two lines), as a careless server might. When
// TESTSERVER_ENV_DUMP is set, it writes its whole environment to its
// standard error, a line "testserver env: NAME=value" for each variable,
// then "testserver env: end", so that tests see what a child inherits.
// Its command-line arguments, joined by spaces, are among what the leak
// tools echo (as TESTMCP_SECRET_ARGV), as a server that repeats its
// command line in an error might.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy/internal/testmcp"
)

func main() {
	if len(os.Args) > 1 {
		_ = os.Setenv("TESTMCP_SECRET_ARGV", strings.Join(os.Args[1:], " "))
	}
	if os.Getenv("TESTSERVER_STDERR_LEAK") != "" {
		for _, v := range testmcp.Leaked(nil) {
			fmt.Fprintf(os.Stderr, "testserver: using %s (split: %s)\n", v, testmcp.Split(v))
		}
	}
	if os.Getenv("TESTSERVER_ENV_DUMP") != "" {
		for _, kv := range os.Environ() {
			fmt.Fprintf(os.Stderr, "testserver env: %s\n", kv)
		}
		fmt.Fprintln(os.Stderr, "testserver env: end")
	}
	if err := refuseIfFailFile(os.Getenv("TESTSERVER_FAILFILE")); err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(3)
	}
	if err := run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
}

// refuseIfFailFile returns an error when path is set and the file exists.
func refuseIfFailFile(path string) error {
	if path == "" {
		return nil
	}
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("refusing to start: %s exists", path)
	}
	return nil
}

// run serves the test tools on t until the client disconnects.
func run(ctx context.Context, t mcp.Transport) error {
	return testmcp.New(testmcp.Options{Name: "testserver"}).Run(ctx, t)
}
