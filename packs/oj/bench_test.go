package oj_test

import (
	"testing"

	"github.com/toolpack-go/toolpack/packs/oj"
)

// BenchmarkGetProblemInvoke measures one get_problem call through the
// registry against the mock backend on 127.0.0.1, and, as the baseline in
// the same run, the raw HTTP fetch alone (Client with a problem that has no
// markup); ratio = full / baseline time.
func BenchmarkGetProblemInvoke(b *testing.B) {
	e := newEnv(b, nil, oj.Config{})
	args := []byte(`{"source":"leetcode","id":"1"}`)
	b.Run("registry", func(b *testing.B) {
		for b.Loop() {
			res, err := e.reg.Invoke(b.Context(), oj.ToolProblem, args)
			if err != nil || !res.Success {
				b.Fatal(err, res.Error)
			}
		}
	})
	b.Run("baseline_no_markup", func(b *testing.B) {
		for b.Loop() {
			if _, err := e.client.Problem(b.Context(), oj.ProblemArgs{Source: "leetcode", ID: "nulls"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
