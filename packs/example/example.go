package example

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
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
// store, shared by its create_document, get_document, list_documents and
// delete_document tools.
func New() (*registry.Pack, error) {
	s := &store{docs: map[string]storedDocument{}, titles: map[string]string{}}
	readOnly := registry.Annotations{ReadOnly: new(true), Idempotent: new(true), OpenWorld: new(false)}
	p := &registry.Pack{Name: PackName, Description: "Example tools showing the conventions: plain, bounded, structured, consent-guarded and long-running tools, returning every kind of result."}
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
		registry.AddFunc(p, "list_documents", s.ListDocuments, registry.ToolOptions{
			Title:       "List documents",
			Doc:         "Lists the id and title of every stored document, oldest first. The result is an array (empty when there are none).",
			Annotations: readOnly,
			Example:     `list_documents()`,
		}),
		registry.AddFunc(p, "delete_document", s.DeleteDocument, registry.ToolOptions{
			Title: "Delete a document",
			Doc: "Deletes the document with the given id from this server's in-memory store. " +
				"It returns no value; the message says what was deleted.",
			Annotations: registry.Annotations{
				ReadOnly: new(false), Destructive: new(true), Idempotent: new(true), OpenWorld: new(false),
			},
			Example: `delete_document(id="doc-1", confirm="DELETE_DOCUMENT")`,
		}),
		registry.AddFunc(p, "is_prime", IsPrime, registry.ToolOptions{
			Title:       "Is it prime?",
			Doc:         "Tells whether an integer between 0 and 1000000000000 is a prime number. The result is true or false.",
			Annotations: readOnly,
			Example:     `is_prime(n=97)`,
		}),
		registry.AddFunc(p, "lines", Lines, registry.ToolOptions{
			Title: "Many lines",
			Doc: "Returns count lines of text, \"line 1\" to \"line {count}\", one per line. " +
				"A large output on demand: a host that stores large outputs (over 50,000 bytes by default: 5,111 lines or more) " +
				"returns a handle to page through instead.",
			Annotations: readOnly,
			Example:     `lines(count=20000)`,
		}),
		registry.AddFunc(p, "count", Count, registry.ToolOptions{
			Title: "Count slowly",
			Doc: "Counts from 1 to n, waiting delay_ms milliseconds before each number, and returns n. " +
				"A long-running tool: it reports progress after every number to clients that ask for progress, " +
				"and stops when the call is cancelled.",
			Annotations: readOnly,
			Example:     `count(n=5, delay_ms=200)`,
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
	docs   map[string]storedDocument // id → document
	titles map[string]string         // title → id
}

// storedDocument is a document and its creation order.
type storedDocument struct {
	Document
	seq int
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
	s.docs[d.ID] = storedDocument{Document: d, seq: s.next}
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
	return result.Ok(d.Document), nil
}

// ListDocumentsArgs are the arguments of list_documents (none).
type ListDocumentsArgs struct{}

// DocumentInfo is one entry of list_documents.
type DocumentInfo struct {
	// ID is the document's id.
	ID string `json:"id" validate:"required" description:"Document id."`
	// Title is the document's title.
	Title string `json:"title" validate:"required" description:"Title."`
}

// ListDocuments returns the id and title of every document, oldest first;
// an empty store gives an empty array, never null.
func (s *store) ListDocuments(ctx context.Context, _ ListDocumentsArgs) (result.Result[[]DocumentInfo], error) {
	s.mu.Lock()
	docs := make([]storedDocument, 0, len(s.docs))
	for _, d := range s.docs {
		docs = append(docs, d)
	}
	s.mu.Unlock()
	slices.SortFunc(docs, func(a, b storedDocument) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]DocumentInfo, len(docs))
	for i, d := range docs {
		out[i] = DocumentInfo{ID: d.ID, Title: d.Title}
	}
	return result.Ok(out), nil
}

// DeleteDocumentPhrase is the consent phrase of delete_document.
type DeleteDocumentPhrase struct{}

// Phrase returns "DELETE_DOCUMENT".
func (DeleteDocumentPhrase) Phrase() string { return "DELETE_DOCUMENT" }

// DeleteDocumentArgs are the arguments of delete_document. Confirm must be
// exactly DELETE_DOCUMENT.
type DeleteDocumentArgs struct {
	// ID is the id of the document to delete.
	ID string `json:"id" validate:"required,max=32" description:"Document id, as returned by create_document."`
	// Confirm is the consent phrase; it must be exactly DELETE_DOCUMENT.
	Confirm args.Consent[DeleteDocumentPhrase] `json:"confirm"`
}

// DeleteDocument removes a document. Success carries no value (nil) and
// the message "Deleted {id}."; an unknown id is a not_found failure. Its
// title becomes free for a new document.
func (s *store) DeleteDocument(ctx context.Context, a DeleteDocumentArgs) (result.Result[any], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[a.ID]
	if !ok {
		return result.Failuref[any](result.NotFound, "no document with id %q", a.ID).
			WithInstruction("Use list_documents to see the ids that exist."), nil
	}
	delete(s.docs, a.ID)
	delete(s.titles, d.Title)
	return result.Ok[any](nil).WithMessage("Deleted " + a.ID + "."), nil
}

// MaxPrimeInput is the largest n is_prime accepts.
const MaxPrimeInput = 1_000_000_000_000

// IsPrimeArgs are the arguments of is_prime.
type IsPrimeArgs struct {
	// N is the number to test; a pointer so that 0 is a valid, required value.
	N *int64 `json:"n" validate:"required,gte=0,lte=1000000000000" description:"The integer to test (0 to 1000000000000)."`
}

// IsPrime reports whether a.N is prime, by trial division (at most a
// million divisions for the largest accepted n).
func IsPrime(ctx context.Context, a IsPrimeArgs) (result.Result[bool], error) {
	n := *a.N
	if n < 2 {
		return result.Ok(false), nil
	}
	if n%2 == 0 {
		return result.Ok(n == 2), nil
	}
	for d := int64(3); d*d <= n; d += 2 {
		if n%d == 0 {
			return result.Ok(false), nil
		}
	}
	return result.Ok(true), nil
}

// MaxLines is the largest count lines accepts: 1,000,000 lines are
// 11,888,895 bytes, within a result store's default per-output cap.
const MaxLines = 1_000_000

// LinesArgs are the arguments of lines.
type LinesArgs struct {
	// Count is the number of lines to return.
	Count int `json:"count" validate:"required,min=1,max=1000000" description:"Number of lines (1 to 1000000)."`
}

// Lines returns a.Count lines "line 1" … "line {Count}" joined by '\n',
// with no '\n' after the last.
func Lines(ctx context.Context, a LinesArgs) (result.Result[string], error) {
	var b strings.Builder
	b.Grow(a.Count * (len("line ") + 8))
	buf := make([]byte, 0, 16)
	for i := 1; i <= a.Count; i++ {
		if i > 1 {
			b.WriteByte('\n')
		}
		b.WriteString("line ")
		b.Write(strconv.AppendInt(buf[:0], int64(i), 10))
	}
	return result.Ok(b.String()), nil
}

// DefaultCountDelay is count's wait before each number when delay_ms is
// not given.
const DefaultCountDelay = 100 * time.Millisecond

// CountArgs are the arguments of count.
type CountArgs struct {
	// N is the number to count to.
	N int `json:"n" validate:"required,min=1,max=100" description:"Count from 1 to n (1 to 100)."`
	// DelayMS is the wait before each number; nil means DefaultCountDelay.
	DelayMS *int `json:"delay_ms" validate:"omitempty,gte=0,lte=1000" default:"100" description:"Milliseconds to wait before each number (0 to 1000; default 100)."`
}

// Count counts from 1 to a.N, waiting before each number and reporting
// progress (registry.ReportProgress: n/N with a message) after each; it
// returns a.N. A cancelled call stops at once with the context's error.
// A progress report that cannot be delivered is logged and counting goes
// on.
func Count(ctx context.Context, a CountArgs) (result.Result[int], error) {
	delay := DefaultCountDelay
	if a.DelayMS != nil {
		delay = time.Duration(*a.DelayMS) * time.Millisecond
	}
	timer := time.NewTimer(delay)
	defer timer.Stop()
	for i := 1; i <= a.N; i++ {
		timer.Reset(delay)
		select {
		case <-ctx.Done():
			return result.Result[int]{}, fmt.Errorf("count: stopped at %d of %d: %w", i-1, a.N, ctx.Err())
		case <-timer.C:
		}
		p := registry.Progress{Progress: float64(i), Total: float64(a.N), Message: fmt.Sprintf("counted to %d", i)}
		if err := registry.ReportProgress(ctx, p); err != nil {
			registry.Logger(ctx).Debug("progress not delivered", "step", i, "error", err)
		}
	}
	return result.Ok(a.N), nil
}
