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

func ExampleEncodeComponent() {
	fmt.Println(oj.EncodeComponent("codeforces/1920 A"))
	fmt.Println(oj.EncodeComponent("https://leetcode.com/problems/two-sum/"))
	// Output:
	// codeforces%2F1920%20A
	// https%3A%2F%2Fleetcode.com%2Fproblems%2Ftwo-sum%2F
}

func ExampleGroupThousands() {
	fmt.Println(oj.GroupThousands(999), oj.GroupThousands(12984), oj.GroupThousands(1234567))
	// Output: 999 12,984 1,234,567
}

func ExampleTruncate() {
	long := strings.Repeat("x", oj.MaxOutputBytes+10)
	out := oj.Truncate(long)
	fmt.Println(len(out) == oj.MaxOutputBytes+len(oj.TruncatedSuffix), strings.HasSuffix(out, "... (truncated)"))
	fmt.Println(oj.Truncate("short"))
	// Output:
	// true true
	// short
}

func ExampleConverter_Convert() {
	c := oj.NewConverter()
	fmt.Println(c.Convert("<p>Return <b>indices</b> of <code>nums</code>.</p>"))
	fmt.Println(c.Convert("already plain: 1 < 2"))
	fmt.Println(c.Convert("  "))
	// Output:
	// Return **indices** of `nums`.
	// already plain: 1 < 2
	// No description available.
}

// A Converter remembers its recent conversions; WithCacheBytes sizes the
// memo (or turns it off with a negative value). Results are the same either
// way.
func ExampleNewConverter() {
	small := oj.NewConverter(oj.WithCacheBytes(64 << 10))
	none := oj.NewConverter(oj.WithCacheBytes(-1))
	html := "<ul><li>one</li><li><em>two</em></li></ul>"
	fmt.Println(small.Convert(html) == none.Convert(html))
	fmt.Println(small.Convert(html)) // served from the memo
	// Output:
	// true
	// - one
	// - *two*
}

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
