package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Run the server on an in-memory transport and list its tools.
func Example_run() {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			panic(err)
		}
		names = append(names, tool.Name)
	}
	fmt.Println(strings.Join(names, " "))
	_ = cs.Close()
	fmt.Println("server stopped:", <-done == nil)
	// Output:
	// add big broken echo fail huge leak_error leak_ok leak_protocol leak_structured pid raw wait
	// server stopped: true
}

// The fail file makes the server refuse to start.
func Example_refuseIfFailFile() {
	dir, err := os.MkdirTemp("", "testserver")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "fail")
	fmt.Println(refuseIfFailFile(path) == nil)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		panic(err)
	}
	fmt.Println(refuseIfFailFile(path) == nil)
	// Output:
	// true
	// false
}
