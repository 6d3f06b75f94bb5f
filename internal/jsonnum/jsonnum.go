// Package jsonnum finds the JSON numbers that are not given to the JSON
// Schema validator (github.com/santhosh-tekuri/jsonschema). It reads every
// number it compares (minimum, maximum, multipleOf, …) as a math/big.Rat:
// one written with a large exponent or many digits costs it milliseconds
// (1e999999: 35 ms, so a 1 KB array of them held a call for 3.5 s), one
// with an exponent beyond ±1,000,000 it cannot read at all, and comparing
// with that panics (a value) or is skipped without a word (a schema's
// bound). Values and schemas are checked with Unreadable before they reach
// the validator, and such a number is refused with a message instead.
//
// A number passes when it is written with at most MaxDigits digits and an
// exponent (the part after e or E) between -MaxExponent and MaxExponent:
// every float64, in any usual notation, does.
package jsonnum

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/toolpack-go/toolpack/internal/jsonptr"
)

// Bounds of a number given to the validator (see the package doc).
const (
	MaxDigits   = 400
	MaxExponent = 400
)

// Expected says what a readable number is, for messages: "expected …".
const Expected = "a number written with at most 400 digits and an exponent between -400 and 400"

// Unreadable returns the JSON Pointer of a number in v that is not
// Readable, and whether there is one: the least such pointer in byte
// order, so that the answer does not depend on map order. v is a value as
// jsonschema.UnmarshalJSON (or encoding/json with UseNumber) decodes it:
// maps, slices, json.Number and scalars; float64 values always pass.
func Unreadable(v any) (string, bool) {
	var best string
	found := false
	// The path is kept as tokens and written as a pointer only for a
	// number refused: a value that passes builds no pointer.
	var path []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case json.Number:
			if !Readable(string(x)) {
				if ptr := jsonptr.FromTokens(path); !found || ptr < best {
					best, found = ptr, true
				}
			}
		case map[string]any:
			for k, e := range x {
				path = append(path, k)
				walk(e)
				path = path[:len(path)-1]
			}
		case []any:
			for i, e := range x {
				path = append(path, strconv.Itoa(i))
				walk(e)
				path = path[:len(path)-1]
			}
		}
	}
	walk(v)
	return best, found
}

// Readable reports whether the JSON number n is within the bounds (see
// the package doc). It reads the text only: nothing is computed.
func Readable(n string) bool {
	n = strings.TrimPrefix(n, "-")
	mant, exp, hasExp := strings.Cut(n, "e")
	if !hasExp {
		mant, exp, hasExp = strings.Cut(n, "E")
	}
	if len(mant) > MaxDigits+1 || len(strings.Replace(mant, ".", "", 1)) > MaxDigits {
		return false
	}
	if !hasExp {
		return true
	}
	e, err := strconv.Atoi(strings.TrimPrefix(exp, "+"))
	return err == nil && e >= -MaxExponent && e <= MaxExponent
}
