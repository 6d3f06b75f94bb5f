package wire_test

import (
	"fmt"

	"github.com/toolpack-go/toolpack/packs/oj/internal/wire"
)

func ExampleEncodeComponent() {
	fmt.Println(wire.EncodeComponent("codeforces/1920 A"))
	fmt.Println(wire.EncodeComponent("https://leetcode.com/problems/two-sum/"))
	// Output:
	// codeforces%2F1920%20A
	// https%3A%2F%2Fleetcode.com%2Fproblems%2Ftwo-sum%2F
}

func ExampleParseProblemDetails() {
	p, ok := wire.ParseProblemDetails([]byte(`{"type":"about:blank","title":"Not Found","status":404,"detail":"no such problem"}`))
	fmt.Println(ok, *p.Status, p.Title+":", p.Detail)
	// Output: true 404 Not Found: no such problem
}
