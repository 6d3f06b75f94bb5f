package hostconfig

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// ErrInvalid is wrapped by every *Problem; check with errors.Is.
var ErrInvalid = errors.New("hostconfig: invalid configuration")

// Problem is one thing wrong with a configuration, located in its file.
// Its text is "file:line: key: message" (parts that are unknown are left
// out), for example
//
//	more.yaml:3: stats.flush_interval: expected a duration such as 1s, got "soon"
//
// A value shown in Message is quoted as the file writes it, before
// ${VAR} expansion, so that a secret taken from the environment never
// appears; header and env values of servers are never shown at all.
type Problem struct {
	// File is the file at fault, as it was opened.
	File string
	// Line is the 1-based line, 0 when the problem concerns the whole
	// file.
	Line int
	// Key is the key path, such as "stats.flush_interval" or
	// "notify.topics[0].pattern"; empty for the file itself.
	Key string
	// Message says what was expected and what was found.
	Message string
	// Err is the underlying error, if any (an *fs.PathError when a file
	// cannot be read); errors.Is and errors.As reach it.
	Err error
}

// Error implements error.
func (p *Problem) Error() string {
	s := p.File
	if p.Line > 0 {
		s += ":" + strconv.Itoa(p.Line)
	}
	if s != "" {
		s += ": "
	}
	if p.Key != "" {
		s += p.Key + ": "
	}
	return s + p.Message
}

// Unwrap lets errors.Is(err, ErrInvalid) and the underlying error match.
func (p *Problem) Unwrap() []error {
	if p.Err != nil {
		return []error{ErrInvalid, p.Err}
	}
	return []error{ErrInvalid}
}

// Problems returns every *Problem in err (as returned by Load or
// Host.Reload), in order.
func Problems(err error) []*Problem {
	var out []*Problem
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if p, ok := e.(*Problem); ok {
			out = append(out, p)
			return
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		}
	}
	walk(err)
	return out
}

// problems collects the problems of one load.
type problems struct {
	list []*Problem
}

func (ps *problems) add(file string, line int, key, format string, a ...any) {
	ps.list = append(ps.list, &Problem{File: file, Line: line, Key: key, Message: fmt.Sprintf(format, a...)})
}

// dropRepeatedLines drops, among the problems from the n-th on, those at
// a file and line one of the first n already names.
func (ps *problems) dropRepeatedLines(n int) {
	if n == 0 {
		return
	}
	type at struct {
		file string
		line int
	}
	seen := make(map[at]bool, n)
	for _, p := range ps.list[:n] {
		seen[at{p.File, p.Line}] = true
	}
	kept := ps.list[:n]
	for _, p := range ps.list[n:] {
		if !seen[at{p.File, p.Line}] {
			kept = append(kept, p)
		}
	}
	ps.list = kept
}

// err joins the problems sorted by file order of appearance, line and key
// (duplicates dropped), or returns nil.
func (ps *problems) err(fileOrder []string) error {
	if len(ps.list) == 0 {
		return nil
	}
	rank := map[string]int{}
	for i, f := range fileOrder {
		if _, ok := rank[f]; !ok {
			rank[f] = i
		}
	}
	slices.SortStableFunc(ps.list, func(a, b *Problem) int {
		ra, oka := rank[a.File]
		rb, okb := rank[b.File]
		if !oka {
			ra = len(fileOrder)
		}
		if !okb {
			rb = len(fileOrder)
		}
		return cmp.Or(cmp.Compare(ra, rb), cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Key, b.Key))
	})
	errs := make([]error, 0, min(len(ps.list), MaxProblems+1))
	var prev string
	more := 0
	for _, p := range ps.list {
		if s := p.Error(); s != prev {
			prev = s
			if len(errs) == MaxProblems {
				more++
				continue
			}
			errs = append(errs, p)
		}
	}
	if more > 0 {
		errs = append(errs, &Problem{Message: fmt.Sprintf("and %d more problems, not listed: fix the ones above first", more)})
	}
	return errors.Join(errs...)
}

// MaxProblems is the most problems one error lists: a file with
// thousands of bad entries is reported by its first ones and a count of
// the rest, not in megabytes that a log line or a model's context (the
// answer of ot.reload) would have to hold.
const MaxProblems = 50

// quote shows a config text in a message: quoted, cut to 80 bytes.
func quote(s string) string {
	const max = 80
	if len(s) > max {
		cut := max
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		return strconv.Quote(s[:cut]) + "…"
	}
	return strconv.Quote(s)
}
