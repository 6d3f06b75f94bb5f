package args_test

import (
	"errors"
	"fmt"
	"strings"

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
