package main

import "fmt"

func ExampleParseLevel() {
	for _, v := range []string{"", "debug", "oj=trace,warn", "off"} {
		l, err := ParseLevel(v)
		fmt.Printf("%q → %v %v\n", v, l, err)
	}
	_, err := ParseLevel("loud")
	fmt.Println(err)
	// Output:
	// "" → INFO <nil>
	// "debug" → DEBUG <nil>
	// "oj=trace,warn" → DEBUG <nil>
	// "off" → ERROR+92 <nil>
	// RUST_LOG: unknown level "loud" (expected off, error, warn, info, debug or trace)
}
