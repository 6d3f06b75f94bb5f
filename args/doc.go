// Package args turns Go types into strict decoders, validators, JSON
// Schemas and schema Markdown for tools, all driven by one set of struct
// tags: a tool's arguments (SchemaFor, Decode, Markdown, Describe) and its
// result (OutputSchemaFor, ValidateOutput).
//
//	type SearchArgs struct {
//		Query string         `json:"query" validate:"required,min=3,max=50" description:"Search terms"`
//		Limit int            `json:"limit" validate:"omitempty,min=1,max=25"`
//		Since *time.Time     `json:"since"`
//		Every time.Duration  `json:"every"`
//		Tags  []string       `json:"tags" validate:"max=3,dive,min=1"`
//	}
//
//	schema, err := args.SchemaFor[SearchArgs]()          // for tools/list
//	a, err := args.Decode[SearchArgs](body, args.DecodeOptions{}) // for tools/call
//
// # One tag, two outputs
//
// A field's constraints are declared once, in a go-playground/validator
// style `validate:"…"` tag. Decode enforces them; SchemaFor states them as
// JSON Schema (draft 2020-12). For every input, Decode accepts exactly what
// the schema accepts — a rapid property test checks it over every supported
// type, with santhosh-tekuri/jsonschema (format assertions on) as the
// judge. A tag without a faithful mapping is an error at schema time
// (ErrUnsupportedTag naming struct, field and tag), never a silent gap.
// The same holds for results: ValidateOutput accepts a value exactly when
// the JSON encoding/json writes for it is valid against OutputSchemaOf.
//
// # Types
//
// Arguments are a struct; results may be any type below. Schemas by type
// (results differ only where noted):
//
//	Go type                 schema                                        notes
//	string                  {"type":"string"}                             lengths count code points
//	bool                    {"type":"boolean"}
//	int…int64, uint…uint64  {"type":"integer"} + the type's range         results: no range
//	float32, float64        {"type":"number"}                             float32: ±(2^128−2^103) exclusive
//	time.Time               {"type":"string","format":"date-time","pattern":…}  RFC 3339, see Formats
//	time.Duration           {"type":"string","pattern":…}                 "1m30s"; results: {"type":"integer"} (nanoseconds)
//	any (interface{})       {}                                            decoded as encoding/json does, numbers as json.Number
//	json.RawMessage         {}                                            kept verbatim
//	[]T                     {"type":"array","items":T}
//	map[string]T            {"type":"object","additionalProperties":T}
//	struct                  {"type":"object","properties":…,"required":…,"additionalProperties":false}
//	*T                      T, with "null" added unless required
//	a SchemaProvider        the type's own schema                         see below
//	a TextUnmarshaler       {"type":"string"} (or its own schema)
//
// Why a duration is a string in arguments: a model writes and reads
// "90s" or "1h30m" reliably, while a count of nanoseconds invites
// off-by-10^9 mistakes. The form is Go's (time.ParseDuration) narrowed to
// one pattern: up to six components, each a decimal number with a unit h,
// m, s, ms, us (µs) or ns, or "0"; digit counts are capped (hours 5,
// minutes 7, others 9 before the point, 9 after) so no accepted string
// overflows. Results carry what encoding/json writes for a Duration: an
// integer of nanoseconds.
//
// Structs: fields follow encoding/json exactly — json names, json:"-",
// unexported fields skipped; embedded structs flattened as encoding/json
// does (promoted fields; among equal JSON names the shallowest wins, a
// tagged one beating untagged ones at its depth, a tie dropping all;
// embedded pointers allocated when one of their fields arrives; an
// embedded struct with a json name is a nested object). A field that the
// embedding rules hide but that carries a validate tag is refused
// (ErrEmbedded), as is, in arguments, a promoted field behind an embedded
// pointer to an unexported struct type (no decoder can allocate it). Map
// keys are strings. Refused with a message saying what to use instead:
// []byte, channels, functions, complex numbers, interfaces with methods,
// map keys that are not strings, the json ",string" option, recursive
// types (schemas are inlined), pointers to pointers.
//
// Types that decode themselves: a type with UnmarshalJSON (arguments) or
// MarshalJSON (results) states its schema with a JSONSchema() json.RawMessage
// method (SchemaProvider) or is refused with an error asking for it; a type
// with only UnmarshalText/MarshalText is {"type":"string"} unless it has
// the method. The type's own decoding is authoritative: Decode hands it the
// field's JSON and reports its error (or panic) as a FieldError on that
// field; it does not check the value against the type's schema, so the
// agreement guarantee covers such a field only as far as the schema
// states what the type accepts. The schema may use any keyword tags cannot
// express ("type":["string","null"], anyOf, allOf/if/then); the field's
// description, default and example tags are merged into it. The only
// rules such a field takes are omitempty and, on a pointer, required.
//
// # Tags
//
//	validate tag        strings                  numbers (results: durations too)  slices / maps
//	required            required, minLength 1    required, not {const 0}           required
//	min=n / gte=n       minLength n              minimum n                         minItems / minProperties n
//	max=n / lte=n       maxLength n              maximum n                         maxItems / maxProperties n
//	gt=n / lt=n         minLength n+1 / maxLength n−1  exclusiveMinimum / exclusiveMaximum  minItems n+1 / maxItems n−1
//	len=n               minLength = maxLength = n     —                            minItems = maxItems = n
//	eq=v                const "v"                const v                           minItems = maxItems = v
//	oneof=a b 'c d'     enum (strings)           enum (numbers)                    —
//	email               format email + pattern (see Formats)
//	uuid                format uuid + pattern
//	url, uri            format uri + pattern
//	datetime=2006-01-02T15:04:05Z07:00   format date-time + pattern
//	datetime=2006-01-02                  format date
//	dive                the rules after it apply to items (slices) or additionalProperties (maps)
//	omitempty           must come first; see the rules below
//
// Other tags: `description:"…"` → description; `default:"…"` → default and
// `example:"…"` → examples, both read as the field's JSON value (a string
// field's text as is, a duration as "1m30s") and checked against the
// field's own rules (ErrBadTagValue otherwise). Two tags say what the Go
// type cannot: `nullable:"false"` on an optional argument pointer lets
// the field be absent but refuses null (the schema's type has no "null"
// — {"type":"integer","minimum":1} rather than ["integer","null"]), and
// `optional:"true"` on a result field leaves it out of "required" although
// it is always written (a *string written as null when unknown, stated as
// {"type":["string","null"]} without promising the key). Each is refused
// on the other side and where it means nothing. A result struct whose rule
// spans fields (allOf with if/then, dependentRequired) states it with a
// JSONSchemaKeywords method (SchemaKeywords): the keywords join its
// generated schema and ValidateOutput enforces them. Schema tags of other
// generators (minimum, pattern, enum, …) are refused: constraints come
// from the validate tag only. A duration parameter in a result's rule is a
// duration ("1s") or nanoseconds.
//
// Schema shape: the root is {"type":"object"} with "properties" always
// present and "additionalProperties":false on every object built from a
// struct; properties in field order; no $ref (everything inlined).
// Schemas, Markdown and the decode plan are built once per type and
// cached; a cached SchemaFor costs no allocation.
//
// # Rules that keep the two sides in agreement (arguments)
//
//   - Zero-value rule: an omitted field decodes to its zero value, which the
//     schema accepts, so an optional field's rules must accept that value.
//     `validate:"min=3"` on an optional string is refused; add required,
//     start the rules with omitempty, or use a pointer (*string,
//     "omitempty,min=3").
//   - omitempty on a string or number means "the zero value, or what the
//     rules accept": `omitempty,min=1` on an int is
//     {"anyOf":[{"const":0},{"minimum":1}]} (for an enum the zero value
//     joins it). On a slice or map it means an absent one skips the rules;
//     a sent one (even []) meets them. On a pointer it lets null through.
//   - A nullable pointer's rules must accept nil: start them with omitempty
//     (or add required).
//   - required means what the validator means: a non-empty string, a
//     non-zero number, a non-nil pointer, slice or map, a non-null any or
//     json.RawMessage. Where decoding cannot tell absent from zero it is
//     refused with the fix: on a bool (use *bool), a time.Time (*time.Time),
//     a time.Duration (*time.Duration), a type that decodes itself (*T),
//     and a struct value (use *T). A struct value is instead required by
//     itself exactly when its zero value breaks its fields' rules (an
//     absent object would decode to that zero value); omitempty cannot
//     make such a struct optional — use *T.
//   - Formats: validator/v10 and JSON Schema disagree on edge cases (email
//     "a@localhost", uri "//host", date-time "…t…z", leap seconds, "+24:00").
//     Both sides are narrowed to a documented pattern under which they
//     agree: email = ASCII local part of at most 64 characters @ dotted
//     domain with a 2–63 letter TLD, total ≤254; url/uri =
//     scheme://authority…; uuid = 8-4-4-4-12 hex; date-time (the datetime
//     rule and time.Time) = YYYY-MM-DDThh:mm:ss[.f](Z|±hh:mm), seconds
//     00–59, offset hours 00–23. Decode applies the validator's own rule
//     (time.Parse for date-times) AND the pattern.
//   - Duplicate keys: JSON Schema sees only the last of them; Decode
//     refuses an object with a key twice, at any level (rule
//     duplicate_key), so checker and consumer can never read different
//     values.
//   - Known gaps (documented, not generated by the tests): a float64 field
//     without both bounds does not state float64's range (numbers ≥ 2^1024
//     are rejected by Decode only); numbers with more significant digits
//     than a float holds may round across a decimal bound.
//
// # Results
//
// OutputSchemaOf describes what encoding/json writes for a value of the
// type; ValidateOutput checks a value against it. The rules above that
// exist because an omitted argument decodes to zero do not apply: a
// result field with `min=1` is simply a constraint, required is allowed
// on any type (on a bool it means true; on a struct value, time.Time or a
// type that encodes itself, present). A field with json omitempty or
// omitzero, or promoted through an embedded pointer, may be absent and is
// not listed as required unless its validate tag says required. A nil
// slice, map or pointer is written as null, so such a property also
// accepts null unless required; rules on it apply to non-null values. A
// result of type *T has the schema of T: a nil *T is null, accepted only
// when T's schema admits null (a slice, map, any, json.RawMessage), so
// return a failure instead of a nil struct pointer. Values encoding/json
// cannot write (NaN, ±Inf, a time outside years 0–9999 or with an offset
// of 24 hours or more, invalid json.RawMessage, a failing MarshalJSON) are
// violations. Strings are judged as written: each byte of invalid UTF-8
// counts as U+FFFD.
//
// # Strict decoding
//
// Decode reads the body once, straight into the Go value: first the size
// cap (DecodeOptions.MaxBytes, default 1 MiB); then, as it reads, the
// syntax (a body that is not valid JSON is reported as such, with the byte
// offset — "arguments are not valid JSON at byte 3: unexpected end of
// input" — and nothing else), the nesting depth (MaxDepth, default 64),
// the encoding (JSON text must be UTF-8, RFC 8259: a string or key holding
// bytes that are not is refused with rule invalid_utf8 — unless the syntax
// or the depth is broken too, which is reported instead —, naming the field
// and the byte offset but never quoting the bytes — encoding/json would
// silently turn them into U+FFFD; CheckUTF8 does the same check for
// arguments no Decode reads) and the root (an empty body, null, an array
// or a scalar is named as such).
// Unknown fields are rejected at every level, keys must match JSON names
// exactly (encoding/json alone would match case-insensitively), duplicate
// keys are rejected, null is accepted only for pointers, any,
// json.RawMessage and types whose UnmarshalJSON takes it, integer fields
// accept any integral JSON number (1.0, 1e2) as JSON Schema's "integer"
// does, and a type mismatch names the field path ("filter.tags[2]"), the
// expected and the actual type. Then the validate rules and consent
// phrases are checked. Every violation is reported at once in a
// *ValidationError (Field = JSON path, Rule, Message) — the first
// MaxFieldErrors of them, then one entry with the rule too_many_errors
// when there were more, so that a body of a megabyte of unknown keys is
// answered in a few kilobytes; Failure turns it
// into a Result with error_type validation_error and the list in
// error_data.
//
// # Consent
//
// Consent[P] is a field that must carry P's phrase exactly (seed 004's
// Explicit Use Pattern): schema const, always required, Decode rejects any
// other value naming the phrase, and Describe adds a "REQUIRES EXPLICIT
// USER INSTRUCTION" section. ConsentPhrase lets a registry mark such tools
// destructive.
//
// # Descriptions
//
// Go has no runtime docstrings, so Describe takes the doc text as an
// argument (seed 004's build_tool_description): doc, blank line, the
// consent section if any, then Markdown's "## Arguments" list.
package args
