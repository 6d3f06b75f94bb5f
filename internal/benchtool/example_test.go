package benchtool_test

import (
	"fmt"
	"time"

	"github.com/toolpack-go/toolpack/internal/benchtool"
)

func ExampleSearch() {
	fmt.Printf("%+v\n", benchtool.Search(benchtool.SearchArgs{Query: "go", Limit: 3, Mode: "fast", Tags: []string{"a"}}))
	// Output: {Query:GO Hits:3 Tags:1}
}

func ExampleMedian() {
	ds := []time.Duration{5, 1, 9}
	fmt.Println(benchtool.Median(ds), benchtool.Sum(ds))
	// Output: 5ns 15ns
}
