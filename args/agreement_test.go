package args

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sj "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// Shapes for the agreement property; together they use every supported
// validate tag, pointer and collection form.

type agreeInner struct {
	Lo   int      `json:"lo" validate:"gte=-5,lte=5"`
	Tag  *string  `json:"tag" validate:"omitempty,oneof=x y"`
	Nums []uint16 `json:"nums" validate:"max=2"`
}

type agreeStrings struct {
	Name    string               `json:"name" validate:"required,min=2,max=5"`
	Code    *string              `json:"code" validate:"omitempty,len=3"`
	Gt      *string              `json:"gt" validate:"omitempty,gt=1,lt=4"`
	Fixed   string               `json:"fixed" validate:"required,eq=abc"`
	Domain  string               `json:"domain" validate:"required,oneof=com cn 'a b'"`
	Email   *string              `json:"email" validate:"omitempty,email"`
	ID      *string              `json:"id" validate:"omitempty,uuid"`
	Link    *string              `json:"link" validate:"omitempty,url"`
	URI     *string              `json:"uri" validate:"omitempty,uri"`
	When    *string              `json:"when" validate:"omitempty,datetime=2006-01-02T15:04:05Z07:00"`
	Day     *string              `json:"day" validate:"omitempty,datetime=2006-01-02"`
	Plain   string               `json:"plain"`
	Confirm Consent[agreePhrase] `json:"confirm"`
	Opt     *string              `json:"opt" validate:"required"`
}

type agreePhrase struct{}

func (agreePhrase) Phrase() string { return "DO_IT" }

type agreeNumbers struct {
	Small  int8     `json:"small"`
	U16    uint16   `json:"u16" validate:"lte=1000"`
	Count  int      `json:"count" validate:"required,gt=-3,lt=7"`
	Ratio  float64  `json:"ratio" validate:"gte=-1.5,lte=2.5"`
	F32    float32  `json:"f32"`
	Pick   int      `json:"pick" validate:"oneof=0 2 4"`
	Exact  int64    `json:"exact" validate:"eq=0"`
	Big    int64    `json:"big"`
	PMin   *int     `json:"pmin" validate:"omitempty,min=10"`
	PReq   *float64 `json:"preq" validate:"required,gt=0"`
	NonZ   uint     `json:"nonz" validate:"required"`
	Flag   bool     `json:"flag"`
	PFlag  *bool    `json:"pflag" validate:"required"`
	Thresh *float32 `json:"thresh" validate:"omitempty,lt=1"`
}

type agreeCollections struct {
	Tags   []string            `json:"tags" validate:"max=3,dive,min=1,max=4"`
	Need   []int               `json:"need" validate:"required,min=1"`
	Pair   *[]int              `json:"pair" validate:"omitempty,len=2"`
	Eq     []bool              `json:"eq" validate:"eq=0"`
	Grid   [][]int             `json:"grid" validate:"max=2,dive,max=2,dive,gte=0,lte=9"`
	Labels map[string]string   `json:"labels" validate:"max=2,dive,oneof=a b"`
	Counts map[string]int      `json:"counts" validate:"dive,gt=0"`
	Inner  agreeInner          `json:"inner"`
	PInner *agreeInner         `json:"pinner" validate:"required"`
	List   []agreeInner        `json:"list" validate:"max=2"`
	Ptrs   []*int              `json:"ptrs" validate:"dive,omitempty,gte=1"`
	ReqEl  []string            `json:"reqel" validate:"dive,required"`
	Opt    *agreeInner         `json:"opt"`
	Deep   map[string][]string `json:"deep" validate:"dive,max=1"`
}

type agreeEmpty struct{}

// agreeTimes: time.Time and time.Duration, by value, pointer, in
// collections.
type agreeTimes struct {
	At       time.Time                `json:"at"`
	Due      *time.Time               `json:"due" validate:"required"`
	Maybe    *time.Time               `json:"maybe"`
	Every    time.Duration            `json:"every"`
	Wait     *time.Duration           `json:"wait" validate:"required"`
	Spans    []time.Duration          `json:"spans" validate:"max=3"`
	Stamps   map[string]time.Time     `json:"stamps"`
	MaybeDur *time.Duration           `json:"maybe_dur" validate:"omitempty"`
	Sched    map[string]time.Duration `json:"sched" validate:"max=2"`
}

// agreeCustom: types that decode themselves, with and without their own
// schema; the schemas use constructs tags cannot express.
type agreeCustom struct {
	Level   level            `json:"level" description:"How loud"`
	PLevel  *level           `json:"plevel"`
	Color   hexColor         `json:"color"`
	RColor  *hexColor        `json:"rcolor" validate:"required"`
	Shout   upper            `json:"shout"`
	Span    span             `json:"span"`
	Spans   []span           `json:"spans" validate:"max=2"`
	ByName  map[string]level `json:"by_name"`
	PShout  *upper           `json:"pshout" validate:"omitempty"`
	Default hexColor         `json:"default" default:"#00ff00"`
}

// agreeEmbedBase and friends are embedded as encoding/json flattens them.
type agreeEmbedBase struct {
	ID   string `json:"id" validate:"required,max=4"`
	Note string `json:"note"` // shadowed by agreeEmbedded.Note
}

// AgreeEmbedPtr is embedded through a pointer (exported, so a decoder
// can allocate it).
type AgreeEmbedPtr struct {
	Rank int    `json:"rank" validate:"gte=0,lte=3"`
	Tag  string `json:"tag"`
}

type agreeEmbedA struct {
	Same string // untagged in both: the two cancel out
	Deep int    `json:"deep" validate:"lte=5"`
}

type agreeEmbedB struct {
	Same string // untagged in both: the two cancel out
}

type agreeEmbedTagged struct {
	X int `json:"x" validate:"required,gte=1"` // makes "named" required by itself
}

type agreeEmbedded struct {
	agreeEmbedBase
	*AgreeEmbedPtr
	agreeEmbedA
	agreeEmbedB
	Named agreeEmbedTagged `json:"named"`
	Note  string           `json:"note" validate:"max=5"` // shadows agreeEmbedBase.Note
}

// agreeNested: struct values with their own rules, maps and slices of
// structs.
type agreeNestedReq struct {
	Q    string `json:"q" validate:"required,min=2"`
	Page *int   `json:"page" validate:"omitempty,gte=1"`
}

type agreeNestedOpt struct {
	Lo int `json:"lo" validate:"gte=-2,lte=2"`
}

type agreeNested struct {
	Must  agreeNestedReq             `json:"must"`
	Opt   agreeNestedOpt             `json:"opt"`
	ByKey map[string]agreeNestedReq  `json:"by_key" validate:"max=2"`
	List  []agreeNestedOpt           `json:"list"`
	Grid  map[string][]int           `json:"grid" validate:"dive,max=2,dive,gte=0"`
	Ptrs  map[string]*agreeNestedOpt `json:"ptrs"`
}

// agreeAnyRaw: any JSON value, kept as decoded or verbatim.
type agreeAnyRaw struct {
	Any    any                        `json:"any"`
	Need   any                        `json:"need" validate:"required"`
	Raw    json.RawMessage            `json:"raw"`
	RawReq json.RawMessage            `json:"raw_req" validate:"required"`
	Meta   map[string]any             `json:"meta" validate:"max=3"`
	Items  []any                      `json:"items"`
	Raws   map[string]json.RawMessage `json:"raws"`
	PRaw   *json.RawMessage           `json:"praw"`
}

// agreeOmit: omitempty with bounds on values — the zero value, or what the
// rules accept.
type agreeOmit struct {
	Limit int      `json:"limit" validate:"omitempty,min=1,max=25"`
	Page  int      `json:"page" validate:"omitempty,min=1"`
	Neg   int      `json:"neg" validate:"omitempty,lt=-2"`
	Small uint8    `json:"small" validate:"omitempty,gte=10"`
	Ratio float64  `json:"ratio" validate:"omitempty,gt=0.5"`
	Name  string   `json:"name" validate:"omitempty,min=3,max=5"`
	Mail  string   `json:"mail" validate:"omitempty,email"`
	Kind  string   `json:"kind" validate:"omitempty,oneof=a b"`
	Fix   int      `json:"fix" validate:"omitempty,eq=3"`
	Tags  []string `json:"tags" validate:"omitempty,min=1,dive,omitempty,min=2"`
	Opt   []int    `json:"opt" validate:"omitempty,min=2"`
	Nums  []int    `json:"nums" validate:"dive,omitempty,gte=5"`
}

// tester is what both *testing.T and *rapid.T provide.
type tester interface {
	Helper()
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
	FailNow()
}

// jsonSchemaValidator compiles a generated schema with
// santhosh-tekuri/jsonschema (draft 2020-12, format assertions on).
func jsonSchemaValidator(t tester, schema []byte) *sj.Schema {
	t.Helper()
	doc, err := sj.UnmarshalJSON(bytes.NewReader(schema))
	require.NoError(t, err)
	c := sj.NewCompiler()
	c.DefaultDraft(sj.Draft2020)
	c.AssertFormat()
	require.NoError(t, c.AddResource("mem://args.json", doc))
	s, err := c.Compile("mem://args.json")
	require.NoError(t, err, "schema: %s", schema)
	return s
}

// schemaAccepts reports whether the JSON Schema accepts raw; ok is false
// when raw is not a single JSON value, or has an object with a duplicate
// key (JSON Schema sees only the last value; strict decoding refuses
// such input), so only Decode has an opinion.
func schemaAccepts(s *sj.Schema, raw []byte) (accepts, ok bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return false, false
	}
	if _, err := d.Token(); err == nil {
		return false, false
	}
	if hasDuplicateKey(raw) {
		return false, false
	}
	inst, err := sj.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return false, false
	}
	return s.Validate(inst) == nil, true
}

// hasDuplicateKey reports whether any object in raw (valid JSON) has a key
// twice, comparing keys as decoded strings.
func hasDuplicateKey(raw []byte) bool {
	d := json.NewDecoder(bytes.NewReader(raw))
	var walk func() bool
	walk = func() bool {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for d.More() {
				kt, _ := d.Token()
				k := kt.(string)
				if seen[k] {
					return true
				}
				seen[k] = true
				if walk() {
					return true
				}
			}
			_, _ = d.Token()
		case json.Delim('['):
			for d.More() {
				if walk() {
					return true
				}
			}
			_, _ = d.Token()
		}
		return false
	}
	return walk()
}

type agreeCase struct {
	name   string
	decode func([]byte) error
	typ    reflect.Type
}

func agreeCases() []agreeCase {
	return []agreeCase{
		caseOf[agreeStrings]("strings"),
		caseOf[agreeNumbers]("numbers"),
		caseOf[agreeCollections]("collections"),
		caseOf[agreeEmpty]("empty"),
		caseOf[searchArgs]("search"),
		caseOf[agreeTimes]("times"),
		caseOf[agreeCustom]("custom"),
		caseOf[agreeEmbedded]("embedded"),
		caseOf[agreeNested]("nested"),
		caseOf[agreeAnyRaw]("anyraw"),
		caseOf[agreeOmit]("omit"),
		caseOf[agreeNotNull]("notnull"),
	}
}

// agreeNotNull has optional pointers that refuse null (nullable:"false").
type agreeNotNull struct {
	Max  *int     `json:"max" validate:"omitempty,gte=1,lte=25" nullable:"false"`
	Name *string  `json:"name" validate:"omitempty,min=2" nullable:"false"`
	Keep *float64 `json:"keep"`
}

func caseOf[A any](name string) agreeCase {
	return agreeCase{name: name, typ: reflect.TypeFor[A](), decode: func(raw []byte) error {
		_, err := Decode[A](raw, DecodeOptions{})
		return err
	}}
}

var compiled sync.Map // reflect.Type → *sj.Schema

func compiledFor(t tester, typ reflect.Type) *sj.Schema {
	if s, ok := compiled.Load(typ); ok {
		return s.(*sj.Schema)
	}
	raw, err := SchemaOf(typ)
	require.NoError(t, err)
	s := jsonSchemaValidator(t, raw)
	compiled.Store(typ, s)
	return s
}

// checkAgreement decodes raw and validates it against the schema and fails
// the test when exactly one of them accepts.
func checkAgreement(t tester, c agreeCase, raw []byte) {
	t.Helper()
	s := compiledFor(t, c.typ)
	accepts, ok := schemaAccepts(s, raw)
	err := c.decode(raw)
	var ve *ValidationError
	if err != nil && !errors.As(err, &ve) {
		t.Fatalf("%s: Decode returned a non-validation error: %v", c.name, err)
	}
	if !ok {
		if err == nil {
			t.Fatalf("%s: Decode accepted input that is not one JSON value: %q", c.name, raw)
		}
		return
	}
	if accepts != (err == nil) {
		t.Fatalf("%s: disagreement on %s\nschema accepts: %v\nDecode error: %v", c.name, raw, accepts, err)
	}
}

// TestAgreementDecodeVsJSONSchema is the centrepiece: for generated inputs,
// valid and invalid, Decode (strict decode + validator/v10) accepts exactly
// when the generated JSON Schema (santhosh-tekuri/jsonschema, draft
// 2020-12, format assertions on) accepts.
func TestAgreementDecodeVsJSONSchema(t *testing.T) {
	for _, c := range agreeCases() {
		t.Run(c.name, func(t *testing.T) {
			p, err := planFor(c.typ)
			require.NoError(t, err)
			accepted := 0
			rapid.Check(t, func(rt *rapid.T) {
				raw := genInput(rt, p.root)
				checkAgreement(rt, c, raw)
				if c.decode(raw) == nil {
					accepted++
				}
			})
			t.Logf("%s: %d generated inputs accepted by both", c.name, accepted)
		})
	}
}

// TestAgreementGeneratorReachesAcceptance guards the property against a
// generator that only ever produces rejected inputs.
func TestAgreementGeneratorReachesAcceptance(t *testing.T) {
	for _, c := range agreeCases() {
		p, err := planFor(c.typ)
		require.NoError(t, err)
		acc, rej := 0, 0
		rapid.Check(t, func(rt *rapid.T) {
			if c.decode(genInput(rt, p.root)) == nil {
				acc++
			} else {
				rej++
			}
		})
		require.Positive(t, acc, "%s: generator never produced an accepted input", c.name)
		require.Positive(t, rej, "%s: generator never produced a rejected input", c.name)
	}
}

// genInput draws a generation mode, careful (values inside every bound,
// mostly accepted) or wild (anything goes), and generates an object.
func genInput(t *rapid.T, root *node) []byte {
	g := &gen{t: t, careful: rapid.IntRange(0, 1).Draw(t, "mode") == 0}
	return g.object(root, 0)
}

type gen struct {
	t       *rapid.T
	careful bool
}

// object generates a JSON object for a struct node: mostly well-typed
// values around every bound, sometimes missing, null, mistyped, extra or
// duplicated.
func (g *gen) object(n *node, depth int) []byte {
	t := g.t
	var b bytes.Buffer
	b.WriteByte('{')
	var put [][2][]byte
	add := func(k string, v []byte) {
		if len(put) > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(v)
		put = append(put, [2][]byte{kb, v})
	}
	for _, f := range n.fields {
		if (g.careful && f.required) || rapid.IntRange(0, 9).Draw(t, "present:"+f.name) != 0 {
			if f.consent != "" {
				if g.careful {
					add(f.name, jsonString(f.consent))
					continue
				}
				add(f.name, jsonString(rapid.SampledFrom([]string{f.consent, f.consent, f.consent, strings.ToLower(f.consent), ""}).Draw(t, "consent")))
				continue
			}
			add(f.name, g.value(f.node, f.required, depth+1))
		}
	}
	extra := -1
	if !g.careful {
		extra = rapid.IntRange(0, 19).Draw(t, "extra")
	}
	switch extra {
	case 0:
		add("unknown_extra", []byte("1"))
	case 1:
		if len(n.fields) > 0 {
			add(strings.ToUpper(n.fields[0].name), []byte(`"x"`))
		}
	case 2, 3:
		if len(put) > 0 {
			// A duplicate key, with the same or another value.
			p := rapid.SampledFrom(put).Draw(t, "dup")
			v := p[1]
			if extra == 3 {
				v = genWrong(t, depth)
			}
			b.WriteByte(',')
			b.Write(p[0])
			b.WriteByte(':')
			b.Write(v)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

func jsonString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

func (g *gen) value(n *node, required bool, depth int) []byte {
	t := g.t
	shape := rapid.IntRange(0, 19).Draw(t, "shape")
	if g.careful && (shape == 1 || !n.ptr || required) {
		shape = 2
	}
	switch shape {
	case 0:
		return []byte("null")
	case 1:
		return genWrong(t, depth)
	}
	switch n.kind {
	case kString:
		return jsonString(g.str(n, required))
	case kBool:
		return []byte(strconv.FormatBool(rapid.Bool().Draw(t, "bool")))
	case kInt, kUint, kFloat:
		return []byte(g.number(n, required))
	case kTime:
		if g.careful {
			return jsonString(rapid.SampledFrom(formatGood["date-time"]).Draw(t, "time"))
		}
		return jsonString(rapid.SampledFrom(append(formatPool["date-time"], "now", "", "2006-01-02")).Draw(t, "time"))
	case kDuration:
		if g.careful {
			return jsonString(rapid.SampledFrom(durationGood).Draw(t, "dur"))
		}
		return jsonString(rapid.SampledFrom(append(durationBad, durationGood...)).Draw(t, "dur"))
	case kAny, kRaw:
		if g.careful && required {
			return g.anyJSON(depth, false)
		}
		return g.anyJSON(depth, true)
	case kCustom:
		s := reflect.Zero(n.t).Interface().(sampler)
		if g.careful {
			return []byte(rapid.SampledFrom(s.goodSamples()).Draw(t, "custom"))
		}
		return []byte(rapid.SampledFrom(append(s.badSamples(), s.goodSamples()...)).Draw(t, "custom"))
	case kSlice:
		count := g.count(n.rules)
		var b bytes.Buffer
		b.WriteByte('[')
		for i := 0; i < count; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(g.value(n.elem, n.elem.rules.required, depth+1))
		}
		b.WriteByte(']')
		return b.Bytes()
	case kMap:
		count := g.count(n.rules)
		var b bytes.Buffer
		b.WriteByte('{')
		for i := 0; i < count; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			k := fmt.Sprintf("k%d", i)
			if !g.careful && i > 0 && rapid.IntRange(0, 9).Draw(t, "mapdup") == 0 {
				k = "k0"
			}
			b.Write(jsonString(k))
			b.WriteByte(':')
			b.Write(g.value(n.elem, n.elem.rules.required, depth+1))
		}
		b.WriteByte('}')
		return b.Bytes()
	case kStruct:
		if depth > 4 {
			return []byte("{}")
		}
		return g.object(n, depth)
	}
	return []byte("null")
}

// anyJSON generates an arbitrary JSON value (any, json.RawMessage).
func (g *gen) anyJSON(depth int, nullOK bool) []byte {
	t := g.t
	leaves := []string{`true`, `false`, `0`, `-1.5e3`, `123456789012345678901234567890`, `"s"`, `""`, `"\u00e9"`, `{}`, `[]`}
	if nullOK {
		leaves = append(leaves, `null`)
	}
	if depth > 3 {
		return []byte(rapid.SampledFrom(leaves).Draw(t, "leaf"))
	}
	switch rapid.IntRange(0, 3).Draw(t, "anyshape") {
	case 0:
		n := rapid.IntRange(0, 3).Draw(t, "anylen")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = string(g.anyJSON(depth+1, true))
		}
		return []byte("[" + strings.Join(parts, ",") + "]")
	case 1:
		n := rapid.IntRange(0, 3).Draw(t, "anylen")
		parts := make([]string, n)
		for i := range parts {
			k := fmt.Sprintf("k%d", i)
			if !g.careful && i > 0 && rapid.IntRange(0, 5).Draw(t, "anydup") == 0 {
				k = "k0"
			}
			parts[i] = fmt.Sprintf("%q:%s", k, g.anyJSON(depth+1, true))
		}
		return []byte("{" + strings.Join(parts, ",") + "}")
	}
	return []byte(rapid.SampledFrom(leaves).Draw(t, "leaf"))
}

// sampler is implemented by the custom test types: JSON texts their
// decoding accepts, and texts it refuses.
type sampler interface {
	goodSamples() []string
	badSamples() []string
}

var (
	durationGood = []string{"1m30s", "90s", "1.5h", "250ms", "0", "-2h45m", "1h2m3s4ms5us6ns", "0s", "+3µs", "7μs", "99999h", "01s", "1.000000001s", "-0"}
	durationBad  = []string{"1d", "5 minutes", "1m30", "", "+", "s", "1.s", ".5s", "100000h", "2562048h", "1h1h1h1h1h1h1h", "1e3s",
		"1.0000000001s", "1H", " 1s", "1s ", "9999999999s", "1m1m1m1m1m1m", "1_000s", "0x10s"}
)

func genWrong(t *rapid.T, depth int) []byte {
	return []byte(rapid.SampledFrom([]string{`"s"`, `""`, `0`, `1.5`, `true`, `false`, `[]`, `{}`, `[1]`, `{"a":1}`, `-1`}).Draw(t, "wrong"))
}

func (g *gen) count(r rules) int {
	t := g.t
	if g.careful {
		lo, hi := 0, 3
		if r.min != nil {
			lo = r.min.length
			if r.min.exclusive {
				lo++
			}
		}
		if r.max != nil {
			hi = r.max.length
			if r.max.exclusive {
				hi--
			}
		}
		if r.eq != nil {
			lo = r.eq.length
			hi = lo
		}
		if hi > lo+3 {
			hi = lo + 3
		}
		return rapid.IntRange(lo, hi).Draw(t, "count")
	}
	cands := []int{0, 1, 2, 3}
	for _, b := range []*rule{r.min, r.max} {
		if b != nil {
			cands = append(cands, b.length-1, b.length, b.length+1)
		}
	}
	c := rapid.SampledFrom(cands).Draw(t, "count")
	if c < 0 {
		c = 0
	}
	if c > 5 {
		c = 5
	}
	return c
}

var (
	runePool = []rune{'a', 'b', 'Z', '0', ' ', 'é', '日', '😀', '-', '.', '@', '\'', '"', '\\', '\n', 0xfffd}

	formatGood = map[string][]string{
		"email":     {"a@b.co", "a.b@c.de", "x+y@ex-ample.com", "A@B.CO"},
		"uuid":      {"a0000000-0000-0000-0000-000000000000", "A0B1C2D3-E4F5-0000-0000-000000000000"},
		"url":       {"http://a.com", "https://a.com/x?y#z", "HTTP://A.COM", "http://a.com#frag"},
		"date-time": {"2006-01-02T15:04:05Z", "2006-01-02T15:04:05.123+07:00", "2006-01-02T15:04:05-00:00", "2024-02-29T12:00:00.5-03:30"},
		"date":      {"2006-01-02", "2024-02-29", "2006-12-31"},
	}

	formatPool = map[string][]string{
		"email": {"a@b.co", "a.b@c.de", "x+y@ex-ample.com", "a@b", "a@localhost", "a@1.2.3.4", "a..b@c.de", ".a@b.co", "a.@b.co", "é@b.co", "a@é.co",
			"a@b.c", "a@[127.0.0.1]", `"a b"@c.de`, "a@-b.co", "a@b-.co", "a@b_c.co", "A@B.CO", "a@b.co.", "a@b..co", strings.Repeat("a", 64) + "@b.co", strings.Repeat("a", 65) + "@b.co",
			"a@" + strings.Repeat("b", 63) + ".co", "a@" + strings.Repeat("b", 64) + ".co", "a@" + strings.Repeat("bbbbbbbbb.", 25) + "co", "a b@c.de", "a@b.co "},
		"uuid": {"a0000000-0000-0000-0000-000000000000", "A0B1C2D3-E4F5-0000-0000-000000000000", "a0000000000000000000000000000000", "{a0000000-0000-0000-0000-000000000000}",
			"g0000000-0000-0000-0000-000000000000", "a0000000-0000-0000-0000-00000000000", "urn:uuid:a0000000-0000-0000-0000-000000000000", "a0000000-0000-0000-0000-0000000000000"},
		"url": {"http://a.com", "https://a.com/x?y#z", "a.com", "mailto:a@b.c", "file:///x", "http://", "http://a b.com", "x:y", "http://[::1]/", "http://a.com/%zz", "urn:isbn:123",
			"HTTP://A.COM", "http://a.com:99999", "//a.com", "http:a", "ftp://a/b c", "http://a.com/é", "http://é.com", "http://a.com/ x", "h://a", "1http://a.com", "http://a.com#frag", "http://user@a.com", "http://a:b@c.com:80/p?q", "http://a.com/%41"},
		"date-time": {"2006-01-02T15:04:05Z", "2006-01-02t15:04:05z", "2006-01-02T15:04:05.123+07:00", "2006-01-02T15:04:60Z", "2006-02-30T15:04:05Z", "2006-01-02T15:04:05+24:00",
			"2006-01-02T15:04:05+23:59", "2006-01-02 15:04:05Z", "2006-01-02T15:04:05", "2016-12-31T23:59:60Z", "2006-01-02T15:04:05.Z", "2006-01-02T15:04:05,5Z", "0000-01-01T00:00:00Z",
			"2006-01-02T24:00:00Z", "2006-01-02T15:04:05-00:00", "2006-13-02T15:04:05Z", "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2006-01-02T15:04:05+07:60", "2006-01-02T15:04:05.000000000001Z",
			"2006-01-02T1:04:05Z", "9999-12-31T23:59:59.999999999Z", "2006-01-02T15:04:05+0700"},
		"date": {"2006-01-02", "2006-02-30", "2006-1-2", "2024-02-29", "2023-02-29", "0000-01-01", "2006-01-02T00:00:00Z", "20060102", "2006-13-01", "2006-12-31", "2006-00-10"},
	}
)

// formatKey is the pool key of a format rule.
func formatKey(ru *rule) string {
	switch ru.name {
	case "uri":
		return "url"
	case "datetime":
		if ru.param == time3339 {
			return "date-time"
		}
		return "date"
	}
	return ru.name
}

func (g *gen) str(n *node, required bool) string {
	t, r := g.t, n.rules
	if g.careful {
		if r.zeroOK && rapid.IntRange(0, 3).Draw(t, "zero") == 0 {
			return ""
		}
		switch {
		case r.oneof != nil:
			return rapid.SampledFrom(r.oneof.strs).Draw(t, "member")
		case r.eq != nil:
			return r.eq.param
		case r.format != nil:
			return rapid.SampledFrom(formatGood[formatKey(r.format)]).Draw(t, "good")
		}
		lo, hi := 0, 4
		if required && !n.ptr {
			lo = 1
		}
		if r.min != nil {
			lo = r.min.length
			if r.min.exclusive {
				lo++
			}
		}
		if r.max != nil {
			hi = r.max.length
			if r.max.exclusive {
				hi--
			}
		}
		if hi > lo+3 {
			hi = lo + 3
		}
		l := rapid.IntRange(lo, hi).Draw(t, "len")
		rs := make([]rune, l)
		for i := range rs {
			rs[i] = rapid.SampledFrom(runePool).Draw(t, "rune")
		}
		return string(rs)
	}
	var cands []func() string
	if r.format != nil {
		pool := formatPool[formatKey(r.format)]
		cands = append(cands, func() string { return rapid.SampledFrom(pool).Draw(t, "format") })
		cands = append(cands, func() string { return rapid.SampledFrom(pool).Draw(t, "format") })
	}
	if r.oneof != nil {
		for _, v := range r.oneof.strs {
			cands = append(cands, func() string { return v })
		}
		cands = append(cands, func() string { return strings.ToUpper(r.oneof.strs[0]) })
	}
	if r.eq != nil {
		cands = append(cands, func() string { return r.eq.param }, func() string { return r.eq.param + "x" })
	}
	lengths := []int{0, 1, 3}
	for _, b := range []*rule{r.min, r.max} {
		if b != nil {
			lengths = append(lengths, b.length-1, b.length, b.length+1)
		}
	}
	cands = append(cands, func() string {
		l := rapid.SampledFrom(lengths).Draw(t, "len")
		if l < 0 {
			l = 0
		}
		rs := make([]rune, l)
		for i := range rs {
			rs[i] = rapid.SampledFrom(runePool).Draw(t, "rune")
		}
		return string(rs)
	})
	return rapid.SampledFrom(cands).Draw(t, "strategy")()
}

func (g *gen) number(n *node, required bool) string {
	t := g.t
	if g.careful {
		return g.carefulNumber(n, required)
	}
	var cands []string
	add := func(r *big.Rat) {
		cands = append(cands, r.RatString())
		if r.IsInt() {
			cands = append(cands, r.RatString()+".0", r.RatString()+"e0")
		}
	}
	edge := func(s string) {
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			return
		}
		for _, d := range []string{"-1", "-1/2", "0", "1/2", "1"} {
			dd, _ := new(big.Rat).SetString(d)
			add(new(big.Rat).Add(r, dd))
		}
	}
	edge("0")
	edge("7")
	for _, b := range []*rule{n.rules.min, n.rules.max, n.rules.eq} {
		if b != nil {
			edge(b.param)
		}
	}
	if n.rules.oneof != nil {
		for _, v := range n.rules.oneof.strs {
			edge(v)
		}
	}
	if n.kind != kFloat {
		lo, hi := intRange(n)
		edge(lo.String())
		edge(hi.String())
	}
	if n.kind != kFloat || n.bits != 64 || (n.rules.min != nil && n.rules.max != nil) {
		// float64's range is not in the schema (documented gap).
		cands = append(cands, "1E400", "-1E400")
	}
	cands = append(cands, "1e2", "-0", "0.1", "3.4028235e38", "3.40282357e38", "-3.4028236e38", "1e39", "123456789012345678901234567890", "0e5000", "1e-5000")
	s := rapid.SampledFrom(cands).Draw(t, "number")
	if strings.Contains(s, "/") {
		// RatString of a non-integer: render as a decimal.
		r, _ := new(big.Rat).SetString(s)
		s = r.FloatString(1)
	}
	return s
}

func (n *node) String() string { return n.t.String() }

// carefulNumber picks a number inside every bound of n.
func (g *gen) carefulNumber(n *node, required bool) string {
	t, r := g.t, n.rules
	if r.zeroOK && rapid.IntRange(0, 3).Draw(t, "zero") == 0 {
		return "0"
	}
	if r.oneof != nil {
		return rapid.SampledFrom(r.oneof.strs).Draw(t, "member")
	}
	if r.eq != nil {
		return r.eq.param
	}
	lo, hi := big.NewRat(-10, 1), big.NewRat(10, 1)
	if n.kind == kUint {
		lo = big.NewRat(0, 1)
	}
	if n.kind == kInt && n.bits == 8 {
		lo, hi = big.NewRat(-100, 1), big.NewRat(100, 1)
	}
	step := big.NewRat(1, 2)
	if n.kind != kFloat {
		step = big.NewRat(1, 1)
	}
	if r.min != nil {
		lo, _ = new(big.Rat).SetString(r.min.param)
		if r.min.exclusive {
			lo.Add(lo, step)
		}
	}
	if r.max != nil {
		hi, _ = new(big.Rat).SetString(r.max.param)
		if r.max.exclusive {
			hi.Sub(hi, step)
		}
	}
	if hl := new(big.Rat).Add(lo, big.NewRat(20, 1)); hi.Cmp(hl) > 0 {
		hi = hl
	}
	var cands []string
	for v := new(big.Rat).Set(lo); v.Cmp(hi) <= 0 && len(cands) < 12; v = new(big.Rat).Add(v, step) {
		if required && !n.ptr && v.Sign() == 0 {
			continue
		}
		if v.IsInt() {
			cands = append(cands, v.RatString())
		} else {
			cands = append(cands, v.FloatString(1))
		}
	}
	if len(cands) == 0 {
		return "1"
	}
	return rapid.SampledFrom(cands).Draw(t, "number")
}
