package results

import (
	"errors"
	"fmt"
)

// Kinds of failure of a Store; check with errors.Is. Every failure a model
// can act on is an *Error whose text is the message to show it.
var (
	// ErrNotFound: no stored output has that handle (a handle that is not
	// 32 hexadecimal characters never has one).
	ErrNotFound = errors.New("results: no such stored output")
	// ErrExpired: the output was stored but is gone: its TTL passed, or it
	// was removed to keep the store within MaxDirBytes. A handle is
	// reported expired, rather than not found, for one TTL after removal.
	ErrExpired = errors.New("results: stored output expired")
	// ErrInvalidQuery: an argument of Query is out of range (offset,
	// limit) or the search does not compile.
	ErrInvalidQuery = errors.New("results: invalid query")
	// ErrSearchLimit: a search ran for Options.SearchTimeout without
	// finishing.
	ErrSearchLimit = errors.New("results: search time limit reached")
	// ErrCorrupt: a stored output or its index is damaged; it is not
	// served.
	ErrCorrupt = errors.New("results: stored output is corrupt")
	// ErrClosed: the Store was closed.
	ErrClosed = errors.New("results: store is closed")
	// ErrUnavailable: the Backend cannot be reached now (a database that
	// is down or dropped the connection; the file store's directory
	// replaced by a file or made unreadable — its message then names base
	// names only); the output may be readable again later. A Backend
	// wraps it.
	ErrUnavailable = errors.New("results: the store cannot be reached")
)

// Error is a failure of a Store that a model can act on. Its text is
// written for the model and is exactly what to show it: for an offset or
// limit below 1 it is the seed's message ("offset must be >= 1
// (1-indexed), got 0", "limit must be >= 1, got 0"). errors.Is(err, Kind)
// holds, so a caller maps it to a failed Result:
//
//	ErrInvalidQuery → validation_error
//	ErrNotFound, ErrExpired → not_found (the texts differ)
//	ErrSearchLimit → timeout
//	ErrCorrupt → internal_error
type Error struct {
	// Kind is the sentinel the failure matches (ErrNotFound, …).
	Kind error
	// Field is the argument at fault ("handle", "offset", "limit",
	// "search"); empty when none is.
	Field string
	// Msg is the text for the model.
	Msg string
	// Cause is the underlying error, if any (a regexp syntax error, an I/O
	// error reading a damaged file).
	Cause error
}

// Error returns Msg.
func (e *Error) Error() string { return e.Msg }

// Is reports whether target is e.Kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Unwrap returns Cause.
func (e *Error) Unwrap() error { return e.Cause }

func invalid(field, format string, a ...any) *Error {
	return &Error{Kind: ErrInvalidQuery, Field: field, Msg: fmt.Sprintf(format, a...)}
}

// maxEcho caps how much of a handle a message quotes: a handle comes from
// the model and may be anything.
const maxEcho = 64

func notFound(handle string) *Error {
	shown := handle
	if len(shown) > maxEcho {
		shown = cutUTF8(shown, maxEcho) + "…"
	}
	msg := fmt.Sprintf("no stored result with handle %q", shown)
	if !validHandle(handle) {
		msg += "; a handle is the 32 hexadecimal characters of the handle field of a stored result"
	}
	return &Error{Kind: ErrNotFound, Field: "handle", Msg: msg + "; call the tool again to get a new one"}
}

func corrupt(handle string, cause error) *Error {
	return &Error{Kind: ErrCorrupt, Field: "handle", Cause: cause,
		Msg: fmt.Sprintf("stored result %q is damaged and cannot be read; call the tool again", handle)}
}
