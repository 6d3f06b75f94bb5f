package jsonnum_test

import (
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolpack-go/toolpack/internal/jsonnum"
)

// A value is checked before it reaches the schema validator: the number
// with an exponent past ±400 is named by its JSON Pointer.
func ExampleUnreadable() {
	v, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"sizes":[1.5, 1e300, 1e1000001]}`))
	ptr, found := jsonnum.Unreadable(v)
	fmt.Println(ptr, found)
	fmt.Println(jsonnum.Readable("1.7976931348623157e308"), jsonnum.Readable("1e401"))
	// Output:
	// /sizes/2 true
	// true false
}
