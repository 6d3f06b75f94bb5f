package jsonnum_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/jsonnum"
)

// Numbers past the bounds are found wherever they are, named by the least
// JSON Pointer; every other number passes, every float64 among them.
func TestUnreadable_FindsTheNumbersTheValidatorCannotRead(t *testing.T) {
	for in, want := range map[string]string{
		`1e1000001`:              "",
		`-1e1000001`:             "",
		`1E-1000001`:             "",
		`1e401`:                  "",
		`1e-401`:                 "",
		`1e99999999999999999999`: "",
		`{"b":{"c/d":[0, 2e1000001]},"a~":[1e9999999],"z":1e1000001}`: "/a~0/0",
		`[1, {"x": 1.5e400, "y": 3e-1000002}]`:                        "/1/y",
		`[` + strings.Repeat("7", 401) + `]`:                          "/0",
		`{"x":0.` + strings.Repeat("1", 400) + `}`:                    "/x",
	} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(in))
		require.NoError(t, err)
		ptr, found := jsonnum.Unreadable(v)
		assert.True(t, found, in)
		assert.Equal(t, want, ptr, in)
	}
	for _, in := range []string{`1e400`, `1.5E+400`, `-1e-400`, `1.7976931348623157e308`, `4.9e-324`, `0.000001`,
		strings.Repeat("7", 400), `-0.` + strings.Repeat("1", 399), `{"a":[0.1, -3, 7e300]}`, `"1e1000001"`, `null`} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(in))
		require.NoError(t, err)
		_, found := jsonnum.Unreadable(v)
		assert.False(t, found, in)
	}
}

// FuzzReadable: Readable never panics, and every JSON number it passes is
// one math/big (the validator's reader) reads.
func FuzzReadable(f *testing.F) {
	for _, s := range []string{"0", "-1.5e+400", "1e401", "1E-400", "4.9e-324", "1e99999999999999999999", "12.", "--1", strings.Repeat("9", 401)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = jsonnum.Readable(s) // any text: no panic
		var n json.Number
		if json.Unmarshal([]byte(s), &n) != nil || !jsonnum.Readable(string(n)) {
			return
		}
		if _, read := new(big.Rat).SetString(string(n)); !read {
			t.Fatalf("Readable(%q) but math/big cannot read it", n)
		}
	})
}

// BenchmarkUnreadable: the check of a value every catalogue call's
// arguments and outputs pay (an object of 200 records, 6 fields each, all
// numbers readable), against decoding the same value (x-decode-time), in
// the same loop.
func BenchmarkUnreadable(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"items":[`)
	for i := range 200 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"id":%d,"name":"item %d","price":%d.5,"tags":["a","b"],"size/cm":1e3,"ok":true}`, i, i, i)
	}
	sb.WriteString(`]}`)
	text := sb.String()
	var check, decode time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, bad := jsonnum.Unreadable(v); bad {
			b.Fatal("a readable value refused")
		}
		t2 := time.Now()
		decode, check = decode+t1.Sub(t0), check+t2.Sub(t1)
	}
	b.ReportMetric(float64(check)/float64(decode), "x-decode-time")
}
