package args

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

type createDocument struct{}

func (createDocument) Phrase() string { return "CREATE_DOCUMENT" }

type createArgs struct {
	Title   string                  `json:"title" validate:"required,max=80" description:"Document title"`
	Format  string                  `json:"format" validate:"omitempty,oneof=md txt" default:"md"`
	Confirm Consent[createDocument] `json:"confirm"`
}

// listItems parses md with goldmark and returns the level-2 headings and
// the text of each top-level list item.
func listItems(t *testing.T, md string) (headings []string, items []string) {
	t.Helper()
	src := []byte(md)
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch v := n.(type) {
		case *ast.Heading:
			if v.Level == 2 {
				headings = append(headings, string(v.Lines().Value(src)))
			}
		case *ast.List:
			for it := v.FirstChild(); it != nil; it = it.NextSibling() {
				tb := it.FirstChild()
				require.NotNil(t, tb)
				items = append(items, string(tb.Lines().Value(src)))
			}
		}
	}
	return headings, items
}

func TestMarkdownStructure(t *testing.T) {
	md, err := Markdown[searchArgs]()
	require.NoError(t, err)
	headings, items := listItems(t, md)
	assert.Equal(t, []string{"Arguments"}, headings)
	require.Len(t, items, 9, "one list item per field")
	assert.Equal(t, "`query` (string, required): Search terms. At least 3 characters, at most 50 characters.", items[0])
	assert.Equal(t, "`limit` (integer, optional): At least 0, at most 100.", items[1])
	assert.Equal(t, "`score` (number or null, optional): More than 0, at most 1.", items[3])
}

func TestMarkdownLiteralTypes(t *testing.T) {
	md, err := Markdown[searchArgs]()
	require.NoError(t, err)
	_, items := listItems(t, md)
	assert.Equal(t, "`domain` (\"com\" | \"cn\", required)", items[2], "an enum renders as the union of its literal values")
	md, err = Markdown[agreeNumbers]()
	require.NoError(t, err)
	assert.Contains(t, md, "- `pick` (0 | 2 | 4, optional)")
}

func TestMarkdownDefaultAndConsent(t *testing.T) {
	md, err := Markdown[createArgs]()
	require.NoError(t, err)
	_, items := listItems(t, md)
	require.Len(t, items, 3)
	assert.Equal(t, "`format` (\"md\" | \"txt\", optional): Default: `\"md\"`.", items[1])
	assert.True(t, strings.HasPrefix(items[2], "`confirm` (\"CREATE_DOCUMENT\", required)"), items[2])
}

func TestMarkdownEmpty(t *testing.T) {
	md, err := Markdown[agreeEmpty]()
	require.NoError(t, err)
	assert.Equal(t, "## Arguments\n\nNone.\n", md)
}

func TestDescribeCombinesDocAndMarkdown(t *testing.T) {
	d, err := Describe[searchArgs]("  Search the web.\n")
	require.NoError(t, err)
	md, _ := Markdown[searchArgs]()
	assert.Equal(t, "Search the web.\n\n"+md, d)
	assert.NotContains(t, d, ConsentHeading)
}

func TestDescribeConsentWarning(t *testing.T) {
	d, err := Describe[createArgs]("Create a document.")
	require.NoError(t, err)
	headings, _ := listItems(t, d)
	assert.Equal(t, []string{ConsentHeading, "Arguments"}, headings)
	assert.Contains(t, d, "explicitly instructed you", "explains the consent requirement")
	assert.Contains(t, d, `"CREATE_DOCUMENT"`, "names the phrase")
	assert.Contains(t, d, "frivolous use", "warns against frivolous use")
}

func TestConsentExactPhraseEnforced(t *testing.T) {
	_, err := Decode[createArgs]([]byte(`{"title":"t","confirm":"CREATE_DOCUMENT"}`), DecodeOptions{})
	require.NoError(t, err)
	for body, want := range map[string]string{
		`{"title":"t","confirm":"create_document"}`: "does not match: must be exactly \"CREATE_DOCUMENT\"",
		`{"title":"t"}`:              "is required: must be exactly \"CREATE_DOCUMENT\"",
		`{"title":"t","confirm":""}`: "is required",
	} {
		_, err := Decode[createArgs]([]byte(body), DecodeOptions{})
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, body)
		require.Len(t, ve.Errors, 1, body)
		assert.Equal(t, "confirm", ve.Errors[0].Field)
		assert.Equal(t, "consent", ve.Errors[0].Rule)
		assert.Contains(t, ve.Errors[0].Message, want, body)
	}
	_, err = Decode[createArgs]([]byte(`{"title":"t","confirm":5}`), DecodeOptions{})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	require.Len(t, ve.Errors, 1, "a mistyped phrase is one type error, not also a consent error")
}

func TestConsentSchemaConstRequired(t *testing.T) {
	m := schemaMap(t, typeOf[createArgs]())
	assert.Contains(t, m["required"], "confirm")
	c := m["properties"].(map[string]any)["confirm"].(map[string]any)
	assert.Equal(t, "CREATE_DOCUMENT", c["const"])
	assert.Equal(t, "string", c["type"])
}

func TestConsentPhraseHelper(t *testing.T) {
	p, ok := ConsentPhrase(typeOf[createArgs]())
	assert.True(t, ok)
	assert.Equal(t, "CREATE_DOCUMENT", p)
	p, ok = ConsentPhrase(typeOf[*createArgs]())
	assert.True(t, ok)
	assert.Equal(t, "CREATE_DOCUMENT", p)
	p, ok = ConsentPhrase(typeOf[Consent[createDocument]]())
	assert.True(t, ok)
	assert.Equal(t, "CREATE_DOCUMENT", p)
	_, ok = ConsentPhrase(typeOf[searchArgs]())
	assert.False(t, ok)
	_, ok = ConsentPhrase(nil)
	assert.False(t, ok)
}

func TestConsentMisuseIsError(t *testing.T) {
	type tagged struct {
		C Consent[createDocument] `json:"c" validate:"required"`
	}
	_, err := SchemaFor[tagged]()
	assert.ErrorIs(t, err, ErrUnsupportedTag)
	type nested struct {
		Inner struct {
			C Consent[createDocument] `json:"c"`
		} `json:"inner"`
	}
	_, err = SchemaFor[nested]()
	assert.ErrorIs(t, err, ErrUnsupportedType)
}

// Markdown names the new types in words a model acts on: date-times,
// durations, any JSON value, a type's own schema type, promoted fields.
func TestMarkdownNewTypes(t *testing.T) {
	type mdArgs struct {
		agreeEmbedBase
		At    time.Time      `json:"at"`
		Every *time.Duration `json:"every"`
		Meta  any            `json:"meta" validate:"required"`
		Lvl   *level         `json:"lvl"`
	}
	md, err := Markdown[mdArgs]()
	require.NoError(t, err)
	assert.Equal(t, "## Arguments\n\n"+
		"- `id` (string, required): At most 4 characters, not empty.\n"+
		"- `note` (string, optional)\n"+
		"- `at` (string (date-time), optional): An RFC 3339 date-time such as 2006-01-02T15:04:05Z.\n"+
		"- `every` (string (duration) or null, optional): A duration such as 1m30s (units h, m, s, ms, us, ns).\n"+
		"- `meta` (any JSON value, required): Not null.\n"+
		"- `lvl` (string or null, optional)\n", md)
}
