package args

import (
	"encoding/json"
	"testing"

	"github.com/go-playground/validator/v10"
)

// benchArgs is the 5-field struct of the performance goal: string with
// length bounds, int with range, enum, optional float, slice.
type benchArgs struct {
	Query  string   `json:"query" validate:"required,min=3,max=100"`
	Limit  int      `json:"limit" validate:"gte=0,lte=50"`
	Engine string   `json:"engine" validate:"omitempty,oneof=google bing brave"`
	Score  *float64 `json:"score" validate:"omitempty,gte=0,lte=1"`
	Tags   []string `json:"tags" validate:"max=5,dive,min=1,max=20"`
}

var benchBody = []byte(`{"query":"golang generics tutorial","limit":10,"engine":"brave","score":0.75,"tags":["go","generics"]}`)

var (
	benchSink  any
	schemaSink []byte
)

// BenchmarkDecodeBaseline is the floor: json.Unmarshal + validator.Struct
// with a validator created once, no strictness, no error collection.
func BenchmarkDecodeBaseline(b *testing.B) {
	v := validator.New()
	b.ReportAllocs()
	for b.Loop() {
		var a benchArgs
		if err := json.Unmarshal(benchBody, &a); err != nil {
			b.Fatal(err)
		}
		if err := v.Struct(&a); err != nil {
			b.Fatal(err)
		}
		benchSink = a
	}
}

// BenchmarkDecode is Decode on the same input; compare with the baseline
// (ratio = Decode ns/op ÷ Baseline ns/op).
func BenchmarkDecode(b *testing.B) {
	if _, err := Decode[benchArgs](benchBody, DecodeOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		a, err := Decode[benchArgs](benchBody, DecodeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		benchSink = a
	}
}

// BenchmarkDecodeInvalid is the slow path: a body with several problems.
func BenchmarkDecodeInvalid(b *testing.B) {
	body := []byte(`{"query":"go","limit":"x","engine":"yahoo","extra":1,"tags":[""]}`)
	b.ReportAllocs()
	for b.Loop() {
		_, err := Decode[benchArgs](body, DecodeOptions{})
		if err == nil {
			b.Fatal("want error")
		}
	}
}

// BenchmarkSchemaFor is a cached schema lookup: no reflection, no allocation.
func BenchmarkSchemaFor(b *testing.B) {
	if _, err := SchemaFor[benchArgs](); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s, err := SchemaFor[benchArgs]()
		if err != nil {
			b.Fatal(err)
		}
		schemaSink = s
	}
}
