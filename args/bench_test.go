package args

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/go-playground/validator/v10"

	"github.com/toolpack-go/toolpack/internal/benchtool"
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

// BenchmarkDecodeRatio runs Decode and the baseline (json.Unmarshal +
// validator.Struct) alternately in one loop and reports ratio = median
// Decode time ÷ median baseline time, robust against load on a shared
// machine.
func BenchmarkDecodeRatio(b *testing.B) {
	v := validator.New()
	b.ReportAllocs()
	benchtool.Interleave(b, func() {
		a, err := Decode[benchArgs](benchBody, DecodeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		benchSink = a
	}, func() {
		var a benchArgs
		if err := json.Unmarshal(benchBody, &a); err != nil {
			b.Fatal(err)
		}
		if err := v.Struct(&a); err != nil {
			b.Fatal(err)
		}
		benchSink = a
	})
}

// richArgs uses the types this package added: time, duration, a nested
// struct value, a map of structs, any.
type richArgs struct {
	benchEmbedded
	At     time.Time                `json:"at"`
	Every  *time.Duration           `json:"every" validate:"required"`
	Filter struct{ Min int }        `json:"filter"`
	ByName map[string]richItem      `json:"by_name" validate:"max=10"`
	Meta   any                      `json:"meta"`
	Raw    json.RawMessage          `json:"raw"`
	Limit  int                      `json:"limit" validate:"omitempty,min=1,max=50"`
	Stamps map[string]time.Duration `json:"stamps"`
}

type benchEmbedded struct {
	ID string `json:"id" validate:"required,max=20"`
}

type richItem struct {
	N    int      `json:"n" validate:"gte=0"`
	Tags []string `json:"tags" validate:"max=3"`
}

var richBody = []byte(`{"id":"job-7","at":"2024-02-29T12:30:00Z","every":"1m30s","filter":{"Min":2},` +
	`"by_name":{"a":{"n":1,"tags":["x"]},"b":{"n":2,"tags":[]},"c":{"n":3,"tags":["y","z"]}},` +
	`"meta":{"k":[1,2.5,"s",null,true]},"raw":{"x":[1,2,3]},"limit":10,"stamps":{"p":"2s","q":"250ms"}}`)

// richPlain is richArgs as encoding/json alone decodes it (a duration as
// a string field): the floor for BenchmarkDecodeRichRatio.
type richPlain struct {
	ID     string              `json:"id"`
	At     time.Time           `json:"at"`
	Every  *string             `json:"every"`
	Filter struct{ Min int }   `json:"filter"`
	ByName map[string]richItem `json:"by_name"`
	Meta   any                 `json:"meta"`
	Raw    json.RawMessage     `json:"raw"`
	Limit  int                 `json:"limit"`
	Stamps map[string]string   `json:"stamps"`
}

// BenchmarkDecodeRichRatio: Decode of richArgs (duplicate-key checks in
// maps and any values, time and duration parsing, validation) against
// json.Unmarshal of the same body into richPlain with no validation.
func BenchmarkDecodeRichRatio(b *testing.B) {
	if _, err := Decode[richArgs](richBody, DecodeOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	benchtool.Interleave(b, func() {
		a, err := Decode[richArgs](richBody, DecodeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		benchSink = a
	}, func() {
		var a richPlain
		if err := json.Unmarshal(richBody, &a); err != nil {
			b.Fatal(err)
		}
		benchSink = a
	})
}

// BenchmarkValidateOutput checks a result value against its tags.
func BenchmarkValidateOutput(b *testing.B) {
	v := benchArgs{Query: "golang", Limit: 10, Engine: "brave", Tags: []string{"go"}}
	b.ReportAllocs()
	for b.Loop() {
		if err := ValidateOutput(v); err != nil {
			b.Fatal(err)
		}
	}
}
