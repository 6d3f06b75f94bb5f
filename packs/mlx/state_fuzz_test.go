//go:build linux

package mlx

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
)

// FuzzParseState: whatever the state file holds, parseState never panics;
// what it accepts names real ports and positive pids, and writes back to
// the same state.
func FuzzParseState(f *testing.F) {
	for _, s := range []string{
		``, `{}`, "  \n",
		`{"8100":{"pid":4242,"model":"tiny","cmdline":["mlx_lm.server","--model","tiny","--port","8100"],"started":"2026-11-24T06:00:00Z"}}`,
		`{"8100":{"pid":0}}`, `{"x":{"pid":1}}`, `{"99999":{"pid":1}}`, `[]`, `{"8100":null}`, `{"8100":{"pid":"1"}}`,
		`{"8100":{"pid":1,"started":"yesterday"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := parseState(b)
		if err != nil {
			return
		}
		for k, r := range s {
			if n, err := strconv.Atoi(k); err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != k || r.PID <= 0 {
				t.Fatalf("accepted entry %q %+v", k, r)
			}
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("accepted state does not marshal: %v", err)
		}
		again, err := parseState(out)
		if err != nil {
			t.Fatalf("written state not read back: %v", err)
		}
		if !reflect.DeepEqual(normal(s), normal(again)) {
			t.Fatalf("state changed on a round trip: %+v → %+v", s, again)
		}
	})
}

// normal makes times comparable (monotonic and location aside).
func normal(s state) state {
	out := state{}
	for k, r := range s {
		r.Started = r.Started.UTC().Round(0)
		out[k] = r
	}
	return out
}
