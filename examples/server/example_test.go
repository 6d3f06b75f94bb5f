package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/toolpack-go/toolpack/packs/oj/mockbackend"
)

// Run the server in stdio mode and speak raw MCP to it: initialize, then
// call a tool. Stdout carries JSON-RPC messages only.
func Example_stdio() {
	backend := httptest.NewServer(mockbackend.New(mockbackend.Options{}))
	defer backend.Close()
	os.Setenv("OJ_BASE_URL", backend.URL)
	defer os.Unsetenv("OJ_BASE_URL")

	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), []string{"-stdio", "-packs", "oj", "-log-level", "error"}, stdinR, stdoutW, io.Discard)
		stdoutW.Close()
	}()

	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"example","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_problem","arguments":{"source":"leetcode","id":"1"}}}`,
	} {
		fmt.Fprintln(stdinW, msg)
	}
	sc := bufio.NewScanner(stdoutR)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var resp struct {
			ID     int `json:"id"`
			Result struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &resp); err != nil {
			fmt.Println("not JSON:", sc.Text())
			break
		}
		if resp.ID == 2 {
			first, _, _ := strings.Cut(resp.Result.Content[0].Text, "\n")
			fmt.Println("isError:", resp.Result.IsError)
			fmt.Println(first)
			break
		}
	}
	stdinW.Close() // the client hangs up; run returns
	fmt.Println("run:", <-done)
	// Output:
	// isError: false
	// # Two Sum
	// run: <nil>
}
