package example

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// EnvIncludeExampleTools is the environment variable that switches the
// example pack on: a host includes the pack only when it is exactly "true".
const EnvIncludeExampleTools = "MCP_INCLUDE_EXAMPLE_TOOLS"

// PackName is the name of the example pack.
const PackName = "example"

// MaxDocuments caps the documents one pack keeps in memory.
const MaxDocuments = 100

// Enabled reports whether MCP_INCLUDE_EXAMPLE_TOOLS is exactly "true" (case
// sensitive, as in seed 004). Any other value, or none, means the example
// tools are excluded.
func Enabled() bool { return os.Getenv(EnvIncludeExampleTools) == "true" }

// Register adds the example pack to r when Enabled reports true, and reports
// whether it did. It is the conditional inclusion a host performs.
func Register(r *registry.Registry) (bool, error) {
	if !Enabled() {
		return false, nil
	}
	p, err := New()
	if err != nil {
		return false, err
	}
	if err := r.AddPack(p); err != nil {
		return false, fmt.Errorf("example: %w", err)
	}
	return true, nil
}

// New returns a fresh example pack. Each pack has its own in-memory document
// store, shared by its create_document and get_document tools.
func New() (*registry.Pack, error) {
	s := &store{docs: map[string]Document{}, titles: map[string]string{}}
	readOnly := registry.Annotations{ReadOnly: new(true), Idempotent: new(true), OpenWorld: new(false)}
	p := &registry.Pack{Name: PackName, Description: "Example tools showing the conventions: plain, bounded, structured and consent-guarded tools."}
	err := errors.Join(
		registry.AddFunc(p, "echo", Echo, registry.ToolOptions{
			Title:       "Echo",
			Doc:         "Returns the text it is given, optionally in upper case. Use echo to check that tool calls work.",
			Annotations: readOnly,
			Example:     `echo(text="hello", uppercase=true)`,
		}),
		registry.AddFunc(p, "add", Add, registry.ToolOptions{
			Title:       "Add two integers",
			Doc:         "Adds two integers between -1000000 and 1000000 and returns the sum.",
			Annotations: readOnly,
			Example:     `add(a=2, b=3)`,
		}),
		registry.AddFunc(p, "text_stats", TextStatistics, registry.ToolOptions{
			Title:       "Text statistics",
			Doc:         "Counts the characters, words and lines of a text. The result is structured and follows the tool's output schema.",
			Annotations: readOnly,
			Example:     `text_stats(text="one two\nthree")`,
		}),
		registry.AddFunc(p, "create_document", s.CreateDocument, registry.ToolOptions{
			Title: "Create a document",
			Doc: "Creates a document in this server's in-memory store and returns it with its id. " +
				"Titles are unique; use get_document to read a document back.",
			Annotations: registry.Annotations{
				ReadOnly: new(false), Destructive: new(true), Idempotent: new(false), OpenWorld: new(false),
			},
			Example: `create_document(title="Notes", body="…", confirm="CREATE_DOCUMENT")`,
		}),
		registry.AddFunc(p, "get_document", s.GetDocument, registry.ToolOptions{
			Title:       "Get a document",
			Doc:         "Returns the document with the given id, as created by create_document.",
			Annotations: readOnly,
			Example:     `get_document(id="doc-1")`,
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("example: %w", err)
	}
	return p, nil
}

// EchoArgs are the arguments of echo.
type EchoArgs struct {
	// Text is returned as given (or upper-cased).
	Text string `json:"text" validate:"required,max=1000" description:"Text to return (1 to 1000 characters)."`
	// Uppercase asks for the text in upper case.
	Uppercase bool `json:"uppercase" description:"Return the text in upper case."`
}

// Echo returns a.Text, upper-cased when asked.
func Echo(ctx context.Context, a EchoArgs) (result.Result[string], error) {
	if a.Uppercase {
		return result.Ok(strings.ToUpper(a.Text)), nil
	}
	return result.Ok(a.Text), nil
}

// AddArgs are the arguments of add.
type AddArgs struct {
	// A is the first addend; a pointer so that 0 is a valid, required value.
	A *int `json:"a" validate:"required,gte=-1000000,lte=1000000" description:"First addend."`
	// B is the second addend.
	B *int `json:"b" validate:"required,gte=-1000000,lte=1000000" description:"Second addend."`
}

// Add returns the sum of a.A and a.B.
func Add(ctx context.Context, a AddArgs) (result.Result[int], error) {
	return result.Ok(*a.A + *a.B), nil
}

// TextStatsArgs are the arguments of text_stats.
type TextStatsArgs struct {
	// Text is the text to measure.
	Text string `json:"text" validate:"required,max=10000" description:"Text to measure (1 to 10000 characters)."`
}

// TextStats is the structured result of text_stats.
type TextStats struct {
	// Characters counts Unicode code points.
	Characters int `json:"characters" validate:"gte=0" description:"Number of characters (code points)."`
	// Words counts runs of non-space characters.
	Words int `json:"words" validate:"gte=0" description:"Number of words."`
	// Lines counts lines; a text without a newline has one.
	Lines int `json:"lines" validate:"gte=0" description:"Number of lines."`
}

// TextStatistics counts the characters, words and lines of a.Text.
func TextStatistics(ctx context.Context, a TextStatsArgs) (result.Result[TextStats], error) {
	return result.Ok(TextStats{
		Characters: utf8.RuneCountInString(a.Text),
		Words:      len(strings.Fields(a.Text)),
		Lines:      strings.Count(strings.TrimSuffix(a.Text, "\n"), "\n") + 1,
	}), nil
}

// CreateDocumentPhrase is the consent phrase of create_document.
type CreateDocumentPhrase struct{}

// Phrase returns "CREATE_DOCUMENT".
func (CreateDocumentPhrase) Phrase() string { return "CREATE_DOCUMENT" }

// CreateDocumentArgs are the arguments of create_document. Confirm must be
// exactly CREATE_DOCUMENT (seed 004 "Explicit Use Pattern").
type CreateDocumentArgs struct {
	// Title is the document's unique title.
	Title string `json:"title" validate:"required,max=100" description:"Unique title (1 to 100 characters)."`
	// Body is the document text.
	Body string `json:"body" validate:"max=10000" description:"Document text (up to 10000 characters)."`
	// Confirm is the consent phrase; it must be exactly CREATE_DOCUMENT.
	Confirm args.Consent[CreateDocumentPhrase] `json:"confirm"`
}

// GetDocumentArgs are the arguments of get_document.
type GetDocumentArgs struct {
	// ID is the id create_document returned.
	ID string `json:"id" validate:"required,max=32" description:"Document id, as returned by create_document."`
}

// Document is a stored document.
type Document struct {
	// ID is the id assigned by create_document ("doc-1", …).
	ID string `json:"id" validate:"required" description:"Document id."`
	// Title is the unique title.
	Title string `json:"title" validate:"required" description:"Title."`
	// Body is the document text.
	Body string `json:"body" description:"Text."`
}

// store is one pack's in-memory documents.
type store struct {
	mu     sync.Mutex
	next   int
	docs   map[string]Document
	titles map[string]string // title → id
}

// CreateDocument stores a new document. A taken title is a conflict failure;
// a full store (MaxDocuments) is a conflict failure too.
func (s *store) CreateDocument(ctx context.Context, a CreateDocumentArgs) (result.Result[Document], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.titles[a.Title]; ok {
		return result.Failuref[Document](result.Conflict, "a document titled %q already exists (id %s)", a.Title, id).
			WithInstruction("Use get_document with that id, or choose another title if the user asked for a new document."), nil
	}
	if len(s.docs) >= MaxDocuments {
		return result.Failuref[Document](result.Conflict, "the store is full (%d documents)", MaxDocuments), nil
	}
	s.next++
	d := Document{ID: fmt.Sprintf("doc-%d", s.next), Title: a.Title, Body: a.Body}
	s.docs[d.ID] = d
	s.titles[d.Title] = d.ID
	return result.Ok(d).WithMessage("Created " + d.ID + "."), nil
}

// GetDocument returns a stored document or a not_found failure.
func (s *store) GetDocument(ctx context.Context, a GetDocumentArgs) (result.Result[Document], error) {
	s.mu.Lock()
	d, ok := s.docs[a.ID]
	s.mu.Unlock()
	if !ok {
		return result.Failuref[Document](result.NotFound, "no document with id %q", a.ID), nil
	}
	return result.Ok(d), nil
}
