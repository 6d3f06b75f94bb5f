package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// A tool asks the user through its context and falls back when the caller
// cannot ask (REST, in process, or a client without elicitation).
func ExampleElicit() {
	reg := registry.New(registry.Options{Prefix: new("")})
	_ = registry.AddFunc(reg, "confirm", func(ctx context.Context, _ struct{}) (result.Result[string], error) {
		ans, err := registry.Elicit(ctx, registry.ElicitRequest{
			Message: "Delete the file?",
			Schema:  json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean","default":false}}}`),
		})
		if errors.Is(err, registry.ErrUnsupported) {
			return result.Failure[string]("cannot ask the user here; pass confirm=true instead", result.Unavailable), nil
		}
		if err != nil {
			return result.Result[string]{}, err
		}
		return result.Ok(ans.Action), nil
	}, registry.ToolOptions{Doc: "Asks before deleting."})
	res, _ := reg.Invoke(context.Background(), "confirm", nil)
	fmt.Println(res.ErrorType, "-", res.Error)
	// Output: unavailable - cannot ask the user here; pass confirm=true instead
}
