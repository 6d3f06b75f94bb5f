package conformance_test

import (
	"context"
	"fmt"

	"github.com/toolpack-go/toolpack/packs/conformance"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// A host adds the pack like any other; its rich tools return result.Contents.
func Example() {
	p, err := conformance.New(conformance.Options{})
	if err != nil {
		panic(err)
	}
	reg := registry.New(registry.Options{Prefix: new("")})
	if err := reg.AddPack(p); err != nil {
		panic(err)
	}
	res, _ := reg.Invoke(context.Background(), "test_image_content", nil)
	item := res.Value.(result.Contents)[0]
	fmt.Println(item.Type, item.MIMEType, len(item.Data), "bytes")
	// Output: image image/png 69 bytes
}
