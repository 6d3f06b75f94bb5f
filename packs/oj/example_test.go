package oj_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/toolpack-go/toolpack/packs/oj"
	"github.com/toolpack-go/toolpack/packs/oj/mockbackend"
	"github.com/toolpack-go/toolpack/registry"
)

func ExampleClient_Problem() {
	srv := httptest.NewServer(mockbackend.New(mockbackend.Options{}))
	defer srv.Close()
	c, err := oj.NewClient(oj.Config{BaseURL: srv.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	md, err := c.Problem(context.Background(), oj.ProblemArgs{Source: "leetcode", ID: "1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Join(strings.Split(md, "\n")[:6], "\n"))
	// A domain failure is a *DomainError.
	_, err = c.Problem(context.Background(), oj.ProblemArgs{Source: "leetcode", ID: "missing"})
	fmt.Println(err)
	// Output:
	// # Two Sum
	//
	// - Source: leetcode | ID: 1 | Difficulty: Easy
	// - Tags: Array, Hash Table
	// - Link: https://leetcode.com/problems/two-sum/
	// - AC Rate: 57.0%
	// [404] Not Found: problem leetcode/missing not found
}

func ExampleNew() {
	srv := httptest.NewServer(mockbackend.New(mockbackend.Options{Token: "secret"}))
	defer srv.Close()
	pack, err := oj.New(oj.Config{BaseURL: srv.URL, Token: "secret"})
	if err != nil {
		fmt.Println(err)
		return
	}
	reg := registry.New(registry.Options{Prefix: new("")})
	if err := reg.AddPack(pack); err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range reg.List() {
		fmt.Println(t.Name)
	}
	res, err := reg.Invoke(context.Background(), "get_platform_status", []byte(`{}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(res.Value)
	res, _ = reg.Invoke(context.Background(), "find_similar_problems", []byte(`{"query":"ab"}`))
	fmt.Println(res.Success, res.ErrorType, res.Error)
	// Output:
	// find_similar_problems
	// get_daily_challenge
	// get_platform_status
	// get_problem
	// resolve_problem
	// # OJ Platform Status (v1.2.3)
	//
	// | Platform | Problems | Missing Content | Not Embedded |
	// |----------|----------|-----------------|--------------|
	// | atcoder | 8,356 | 320 | 339 |
	// | codeforces | 12,984 | 0 | 1,000 |
	// | luogu | 100 | 999 | 1,234,567 |
	// false validation_error query must be between 3 and 2000 characters
}
