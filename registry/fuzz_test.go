package registry

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/toolpack-go/toolpack/result"
)

// FuzzInvoke sends arbitrary bytes as the arguments of a typed tool. Invoke
// must never panic and never return a protocol error: the outcome is either
// a success (and then the arguments satisfied every rule) or a
// validation_error failure listing at least one field error.
func FuzzInvoke(f *testing.F) {
	for _, s := range []string{
		`{"query":"go","limit":5,"mode":"fast","tags":["a"]}`,
		`{"query":"go","limit":5,"mode":"exact","boost":2.5,"tags":[]}`,
		`{"query":"","limit":0,"mode":"slow","boost":-1,"tags":[""]}`,
		`{"query":"go","limit":5,"mode":"fast","extra":1}`,
		`{"limit":"5"}`,
		`[]`, `null`, `"x"`, `{`, ``, `{}`, `{"tags":[[[[[[[]]]]]]]}`,
	} {
		f.Add([]byte(s))
	}
	r := New(Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	tool, err := Func("search", func(ctx context.Context, a benchArgs) (result.Result[benchOut], error) {
		return result.Ok(benchOut{Hits: a.Limit, Query: a.Query}), nil
	}, ToolOptions{})
	if err != nil {
		f.Fatal(err)
	}
	if err := r.Add(tool); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		res, err := r.Invoke(context.Background(), "search", json.RawMessage(raw))
		if err != nil {
			t.Fatalf("protocol error for %q: %v", raw, err)
		}
		if res.Success {
			out, ok := res.Value.(benchOut)
			if !ok {
				t.Fatalf("value is %T", res.Value)
			}
			if out.Query == "" || out.Hits < 1 || out.Hits > 100 {
				t.Fatalf("success with arguments that break the rules: %q → %+v", raw, out)
			}
			return
		}
		if res.ErrorType != result.ValidationError {
			t.Fatalf("failure of type %q for %q: %s", res.ErrorType, raw, res.Error)
		}
		if res.ErrorData == nil {
			t.Fatalf("validation failure without field list for %q", raw)
		}
	})
}
