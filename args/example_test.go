package args_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolpack-go/toolpack/args"
)

type SearchArgs struct {
	Query  string   `json:"query" validate:"required,min=3,max=50" description:"Search terms"`
	Limit  *int     `json:"limit" validate:"omitempty,gte=1,lte=20" default:"5"`
	Domain string   `json:"domain" validate:"omitempty,oneof=com cn"`
	Tags   []string `json:"tags" validate:"max=3,dive,min=1"`
}

func ExampleDecode() {
	a, err := args.Decode[SearchArgs]([]byte(`{"query":"golang","limit":3}`), args.DecodeOptions{})
	fmt.Println(a.Query, *a.Limit, err)

	_, err = args.Decode[SearchArgs]([]byte(`{"query":"go","domain":"org","colour":"red","limit":"3"}`), args.DecodeOptions{})
	var ve *args.ValidationError
	if errors.As(err, &ve) {
		for _, fe := range ve.Errors {
			fmt.Printf("%s (%s): %s\n", fe.Field, fe.Rule, fe.Message)
		}
	}
	// Output:
	// golang 3 <nil>
	// colour (unknown_field): unknown field; expected one of: query, limit, domain, tags
	// limit (type): expected integer or null, got string "3"
	// query (min): must have at least 3 characters
	// domain (oneof): must be one of: com, cn
}

func ExampleSchemaFor() {
	type PingArgs struct {
		Host  string `json:"host" validate:"required,max=253"`
		Count *int   `json:"count" validate:"omitempty,gte=1,lte=10"`
	}
	s, err := args.SchemaFor[PingArgs]()
	fmt.Println(string(s), err)
	// Output:
	// {"type":"object","properties":{"host":{"type":"string","minLength":1,"maxLength":253},"count":{"type":["integer","null"],"minimum":1,"maximum":10}},"required":["host"],"additionalProperties":false} <nil>
}

func ExampleMarkdown() {
	md, err := args.Markdown[SearchArgs]()
	fmt.Print(md, err)
	// Output:
	// ## Arguments
	//
	// - `query` (string, required): Search terms. At least 3 characters, at most 50 characters.
	// - `limit` (integer or null, optional): At least 1, at most 20. Default: `5`.
	// - `domain` ("com" | "cn", optional)
	// - `tags` (array of string, optional): At most 3 items. Each item: at least 1 character.
	// <nil>
}

func ExampleDescribe() {
	d, err := args.Describe[SearchArgs]("Search the web and return the top results.")
	fmt.Print(d, err)
	// Output:
	// Search the web and return the top results.
	//
	// ## Arguments
	//
	// - `query` (string, required): Search terms. At least 3 characters, at most 50 characters.
	// - `limit` (integer or null, optional): At least 1, at most 20. Default: `5`.
	// - `domain` ("com" | "cn", optional)
	// - `tags` (array of string, optional): At most 3 items. Each item: at least 1 character.
	// <nil>
}

// DeleteDocument is the consent phrase of a destructive tool.
type DeleteDocument struct{}

// Phrase returns the exact text the model must pass.
func (DeleteDocument) Phrase() string { return "DELETE_DOCUMENT" }

type DeleteArgs struct {
	ID      string                       `json:"id" validate:"required"`
	Confirm args.Consent[DeleteDocument] `json:"confirm"`
}

func ExampleConsent() {
	_, err := args.Decode[DeleteArgs]([]byte(`{"id":"doc-1","confirm":"yes"}`), args.DecodeOptions{})
	fmt.Println(err)
	_, err = args.Decode[DeleteArgs]([]byte(`{"id":"doc-1","confirm":"DELETE_DOCUMENT"}`), args.DecodeOptions{})
	fmt.Println(err)
	d, _ := args.Describe[DeleteArgs]("Delete a document.")
	fmt.Println(strings.Join(strings.SplitN(d, "\n", 4)[:3], "\n"))
	// Output:
	// invalid arguments: confirm: does not match: must be exactly "DELETE_DOCUMENT"; send it only when the user explicitly asked for this action
	// <nil>
	// Delete a document.
	//
	// ## REQUIRES EXPLICIT USER INSTRUCTION
}

func ExampleConsentPhrase() {
	phrase, ok := args.ConsentPhrase(reflectType[DeleteArgs]())
	fmt.Println(phrase, ok)
	// Output: DELETE_DOCUMENT true
}

func ExampleFailure() {
	_, err := args.Decode[SearchArgs]([]byte(`{}`), args.DecodeOptions{})
	var ve *args.ValidationError
	errors.As(err, &ve)
	out, _ := args.Failure[string](ve).JSON()
	fmt.Println(out)
	// Output:
	// {"success":false,"error":"invalid arguments: query: is required and must not be empty","error_type":"validation_error","error_data":[{"field":"query","rule":"required","message":"is required and must not be empty"}]}
}

// Times are RFC 3339 strings and durations Go duration strings ("1m30s");
// a bad value is a field error that says which form is expected.
func ExampleDecode_timeAndDuration() {
	type ScheduleArgs struct {
		At    time.Time     `json:"at"`
		Every time.Duration `json:"every"`
	}
	a, err := args.Decode[ScheduleArgs]([]byte(`{"at":"2024-02-29T12:00:00Z","every":"1m30s"}`), args.DecodeOptions{})
	fmt.Println(a.At.Format(time.DateOnly), a.Every, err)
	_, err = args.Decode[ScheduleArgs]([]byte(`{"at":"tomorrow","every":"90 seconds","every":"90s"}`), args.DecodeOptions{})
	var ve *args.ValidationError
	if errors.As(err, &ve) {
		for _, fe := range ve.Errors {
			fmt.Printf("%s (%s): %s\n", fe.Field, fe.Rule, fe.Message)
		}
	}
	// Output:
	// 2024-02-29 1m30s <nil>
	// at (type): expected an RFC 3339 date-time string such as "2006-01-02T15:04:05Z" (or with an offset like +07:00), got string "tomorrow"
	// every (type): expected a duration string such as "1m30s" (numbers with units h, m, s, ms, us, ns), got string "90 seconds"
	// every (duplicate_key): appears more than once in this object; send each key once
}

// Priority decodes itself; its JSONSchema method states what it accepts,
// including null, which tags cannot express for a value field.
type Priority struct{ Level string }

// UnmarshalJSON accepts "low", "high" or null.
func (p *Priority) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"low"`, `"high"`:
		p.Level = strings.Trim(string(b), `"`)
	case `null`:
		p.Level = ""
	default:
		return fmt.Errorf("want \"low\", \"high\" or null")
	}
	return nil
}

// JSONSchema returns the schema of Priority's JSON form.
func (Priority) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"type":["string","null"],"enum":["low","high",null]}`)
}

func ExampleSchemaProvider() {
	type TicketArgs struct {
		Priority Priority `json:"priority" description:"How urgent"`
	}
	s, _ := args.SchemaFor[TicketArgs]()
	fmt.Println(string(s))
	_, err := args.Decode[TicketArgs]([]byte(`{"priority":"urgent"}`), args.DecodeOptions{})
	fmt.Println(err)
	// Output:
	// {"type":"object","properties":{"priority":{"type":["string","null"],"enum":["low","high",null],"description":"How urgent"}},"additionalProperties":false}
	// invalid arguments: priority: invalid value: want "low", "high" or null
}

func ExampleOutputSchemaFor() {
	type Hit struct {
		URL   string   `json:"url" validate:"required,url"`
		Score float64  `json:"score" validate:"gte=0,lte=1"`
		Tags  []string `json:"tags,omitempty"`
	}
	s, _ := args.OutputSchemaFor[[]Hit]()
	fmt.Println(string(s))
	// Output:
	// {"type":["array","null"],"items":{"type":"object","properties":{"url":{"type":"string","format":"uri","pattern":"^[A-Za-z][A-Za-z0-9+.-]*://[^/?#\\s]+([/?#]\\S*)?$"},"score":{"type":"number","minimum":0,"maximum":1},"tags":{"type":"array","items":{"type":"string"}}},"required":["url","score"],"additionalProperties":false}}
}

func ExampleValidateOutput() {
	type Stats struct {
		Words int           `json:"words" validate:"min=1"`
		Took  time.Duration `json:"took_ns"`
	}
	fmt.Println(args.ValidateOutput(Stats{Words: 3, Took: time.Millisecond}))
	fmt.Println(args.ValidateOutput(Stats{}))
	fmt.Println(args.ValidateOutput((*Stats)(nil)))
	// Output:
	// <nil>
	// invalid result: words: must be at least 1
	// invalid result: the result is a nil *args_test.Stats, written as null; a successful result must hold a value (return a failure instead)
}
