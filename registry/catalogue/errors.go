package catalogue

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Every error a [Store] returns for one of these reasons
// wraps the sentinel, so callers test with errors.Is.
var (
	// ErrInvalid: the input breaks a rule; the error is also a
	// [*ValidationError] listing every field at fault.
	ErrInvalid = errors.New("catalogue: invalid input")
	// ErrNotFound: no such bundle or tool.
	ErrNotFound = errors.New("catalogue: not found")
	// ErrConflict: a tool with the same <slug, version> already exists in the
	// bundle; the stored tool is left untouched. An import of a bundle id
	// that is taken gives [ErrBundleExists], which wraps it.
	ErrConflict = errors.New("catalogue: conflict")
	// ErrBundleExists: an import ([Store.ImportBundle]) of a bundle id the
	// store already holds, in any state, or a built-in bundle has. It
	// wraps ErrConflict; nothing was stored.
	ErrBundleExists = fmt.Errorf("%w: a bundle with this id already exists", ErrConflict)
	// ErrBundleDisabled: a put or patch inside a disabled bundle.
	ErrBundleDisabled = errors.New("catalogue: bundle is disabled")
	// ErrBundleDeleted: a put or patch of or inside a soft-deleted bundle.
	ErrBundleDeleted = errors.New("catalogue: bundle is soft-deleted")
	// ErrBuiltIn: a change to a built-in bundle or tool other than its
	// enabled flag.
	ErrBuiltIn = errors.New("catalogue: built-in is read-only")
	// ErrCorrupt: a stored file could not be read as a whole record.
	ErrCorrupt = errors.New("catalogue: corrupt record")
	// ErrLimit: a configured cap (such as the number of tools in a
	// bundle) would be exceeded.
	ErrLimit = errors.New("catalogue: limit reached")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("catalogue: store closed")
	// ErrUnavailable: the store's database cannot be reached now (it is
	// down or dropped the connection); the request may succeed later.
	ErrUnavailable = errors.New("catalogue: the store cannot be reached")
	// ErrTimeout: the store's database is there but did not answer in
	// time (a statement or lock timeout: busy, or a lock held elsewhere;
	// or no answer past the store's own deadline). An error wrapping it
	// also wraps ErrUnavailable: the request may succeed later.
	ErrTimeout = errors.New("catalogue: the store did not answer in time")
)

// FieldError is one rule broken by one field.
type FieldError struct {
	// Field is the JSON path of the field ("httpImpl.request.method",
	// "tags[2]", `httpImpl.request.headers["X-Key"]`); empty for the body
	// as a whole.
	Field string
	// Problem says what was expected.
	Problem string
}

// Error renders "field: problem".
func (e FieldError) Error() string {
	if e.Field == "" {
		return e.Problem
	}
	return e.Field + ": " + e.Problem
}

// ValidationError lists every field error of one input. It matches
// [ErrInvalid] with errors.Is; use errors.As to read the fields.
type ValidationError struct {
	// Fields lists every field error, in the order the fields were read.
	Fields []FieldError
}

// Error renders every field error, separated by "; ".
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.Error()
	}
	return "catalogue: invalid input: " + strings.Join(parts, "; ")
}

// Is reports whether target is [ErrInvalid].
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

// problems collects field errors.
type problems struct{ list []FieldError }

func (p *problems) add(field, format string, args ...any) {
	p.list = append(p.list, FieldError{Field: field, Problem: fmt.Sprintf(format, args...)})
}

// err returns nil or a *ValidationError.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	return &ValidationError{Fields: p.list}
}

// join appends the fields of a *ValidationError (or the error's text).
func (p *problems) merge(err error) {
	if err == nil {
		return
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		p.list = append(p.list, ve.Fields...)
		return
	}
	p.add("", "%v", err)
}

// mergeNew appends the field errors of err whose field (or a parent of it)
// has no error yet, so a field reported as malformed is not reported again
// by the rules that read it.
func (p *problems) mergeNew(err error) {
	var ve *ValidationError
	if !errors.As(err, &ve) {
		p.merge(err)
		return
	}
	have := p.list
	for _, f := range ve.Fields {
		dup := false
		for _, h := range have {
			if h.Field == f.Field || strings.HasPrefix(f.Field, h.Field+".") || strings.HasPrefix(f.Field, h.Field+"[") || h.Field == "" {
				dup = true
				break
			}
		}
		if !dup {
			p.list = append(p.list, f)
		}
	}
}

func child(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
