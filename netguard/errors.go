package netguard

import (
	"errors"
	"net/netip"
	"net/url"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentinel errors. Every error the package returns for a refused or
// failed request wraps one of them; check with errors.Is.
var (
	// ErrBlocked is wrapped by every *BlockedError: the request was refused
	// by policy before anything was sent to the refused destination.
	ErrBlocked = errors.New("netguard: request blocked")
	// ErrBadURL: the URL or its host is malformed (an IPv6 zone, an empty
	// label, a host that ends in a number but is not an IPv4 address, …).
	ErrBadURL = errors.New("malformed URL")
	// ErrScheme: the URL's scheme is not http or https.
	ErrScheme = errors.New("scheme not allowed (http or https only)")
	// ErrUserinfo: the URL carries user information (user:password@).
	ErrUserinfo = errors.New("user information in URL not allowed")
	// ErrHostNotAllowed: the host is not among Options.AllowedHosts.
	ErrHostNotAllowed = errors.New("host not allowed")
	// ErrPrivateAddress: the host is, or resolves to, a loopback, private,
	// link-local, shared, unspecified, multicast, broadcast or otherwise
	// non-public address (and Options.AllowPrivate is false).
	ErrPrivateAddress = errors.New("non-public address")
	// ErrTooManyRedirects: more than Options.MaxRedirects redirects.
	ErrTooManyRedirects = errors.New("too many redirects")
	// ErrTooLarge: a request or response body exceeds its cap.
	ErrTooLarge = errors.New("body too large")
	// ErrRateLimited: Options.MaxCallsPerMinute would be exceeded before
	// the call's deadline.
	ErrRateLimited = errors.New("rate limit exceeded")
	// ErrInvalidOptions is wrapped by every error New returns.
	ErrInvalidOptions = errors.New("netguard: invalid options")
)

// Stages at which a request can be refused (BlockedError.Stage).
const (
	StageRequest  = "request"  // the URL the caller asked for
	StageRedirect = "redirect" // a redirect target
	StageDial     = "dial"     // the address about to be dialled, after DNS resolution
)

// BlockedError reports a request refused by policy. It matches ErrBlocked
// and its Reason with errors.Is. Its text never carries the URL's query,
// fragment or user information, nor any of Options.Secrets.
type BlockedError struct {
	Reason error      // ErrScheme, ErrUserinfo, ErrBadURL, ErrHostNotAllowed, ErrPrivateAddress or ErrTooManyRedirects
	Stage  string     // StageRequest, StageRedirect or StageDial
	URL    string     // the refused URL, redacted; empty at StageDial and for a Location that does not parse
	Host   string     // the host (canonical form when it could be parsed), redacted
	Addr   netip.Addr // the refused address, when an address was refused
	Detail string     // what exactly was wrong, e.g. "link-local (cloud metadata) address"
}

// Error describes the refusal.
func (e *BlockedError) Error() string {
	var b strings.Builder
	b.WriteString("netguard: ")
	b.WriteString(e.Stage)
	b.WriteString(" blocked: ")
	b.WriteString(e.Reason.Error())
	if e.Host != "" {
		b.WriteString(": host ")
		b.WriteString(e.Host)
	}
	if e.Addr.IsValid() && e.Addr.String() != e.Host {
		b.WriteString(" (")
		b.WriteString(e.Addr.String())
		b.WriteString(")")
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	if e.URL != "" {
		b.WriteString(" [")
		b.WriteString(e.URL)
		b.WriteString("]")
	}
	return b.String()
}

// Unwrap returns ErrBlocked and the reason, for errors.Is.
func (e *BlockedError) Unwrap() []error { return []error{ErrBlocked, e.Reason} }

// safeError carries a message already redacted and the error it came from,
// so that errors.Is/As still reach context.DeadlineExceeded, ErrTooLarge,
// *net.OpError and the like while Error() never shows a secret.
type safeError struct {
	msg string
	err error
}

func (e *safeError) Error() string { return e.msg }
func (e *safeError) Unwrap() error { return e.err }

// redactor removes secrets from text.
type redactor struct {
	r     *strings.Replacer // nil when there are no secrets of MinSecretLen or more
	short []string          // shorter secrets (and their escaped forms), redacted as whole words
}

const redactedMark = "[REDACTED]"

// MinSecretLen is the length, in bytes, from which a secret of
// Options.Secrets is redacted wherever it appears. A shorter one (a PIN,
// a one-letter key) is redacted only where it stands as a whole word —
// not inside "blocked" — so that it neither garbles every message
// ("request bloc[REDACTED]ed") nor leaks where it is used (a path segment
// /acct/Z9q/balance, a query value). adapters/mcpproxy uses the same
// bound.
const MinSecretLen = 4

func newRedactor(secrets []string) redactor {
	var long, short []string
	for _, v := range secrets {
		if v == "" {
			continue
		}
		// The secret as given, and as it appears once escaped in a URL
		// shown in an error (a token in the path or the query).
		for _, f := range []string{v, (&url.URL{Path: v}).EscapedPath(), url.PathEscape(v), url.QueryEscape(v)} {
			dst := &long
			if len(f) < MinSecretLen {
				dst = &short
			}
			if !slices.Contains(*dst, f) {
				*dst = append(*dst, f)
			}
		}
	}
	// Longest first, so a short secret containing another is removed whole.
	sort.Slice(short, func(i, j int) bool { return len(short[i]) > len(short[j]) })
	out := redactor{short: short}
	if len(long) == 0 {
		return out
	}
	// Longest first, so a secret containing another is removed whole.
	sort.Slice(long, func(i, j int) bool { return len(long[i]) > len(long[j]) })
	pairs := make([]string, 0, 2*len(long))
	for _, v := range long {
		pairs = append(pairs, v, redactedMark)
	}
	out.r = strings.NewReplacer(pairs...)
	return out
}

func (r redactor) text(s string) string {
	if r.r != nil {
		s = r.r.Replace(s)
	}
	for _, v := range r.short {
		s = replaceWord(s, v)
	}
	return s
}

// replaceWord replaces each occurrence of w in s that stands as a whole
// word: neither it nor the text around it continue a word of letters or
// digits (any script) or '_' — the end of an escape (%2F, \n, \u003c)
// counts as a boundary. Occurrences may overlap: one that does not stand
// alone does not hide the next.
func replaceWord(s, w string) string {
	var b strings.Builder
	done := 0 // s[:done] is written
	for from := 0; from <= len(s)-len(w); {
		i := strings.Index(s[from:], w)
		if i < 0 {
			break
		}
		i += from
		end := i + len(w)
		if boundaryBefore(s, i) && boundaryAfter(s, end) {
			b.WriteString(s[done:i])
			b.WriteString(redactedMark)
			done, from = end, end
			continue
		}
		from = i + 1
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// boundaryBefore reports whether a word may start at s[i]: at the start,
// after a character that is not a word's, or right after an escape (%XX,
// \uXXXX, or a backslash and a letter that is not itself escaped).
func boundaryBefore(s string, i int) bool {
	if i == 0 {
		return true
	}
	if r, _ := utf8.DecodeLastRuneInString(s[:i]); !wordRune(r) {
		return true
	}
	switch {
	case i >= 3 && s[i-3] == '%' && isHex(s[i-2]) && isHex(s[i-1]):
		return true
	case i >= 6 && s[i-5] == 'u' && isHex(s[i-4]) && isHex(s[i-3]) && isHex(s[i-2]) && isHex(s[i-1]) && escaped(s, i-5):
		return true
	case i >= 2 && escaped(s, i-1):
		return true
	}
	return false
}

// escaped reports whether s[j] follows an odd run of backslashes.
func escaped(s string, j int) bool {
	n := 0
	for k := j - 1; k >= 0 && s[k] == '\\'; k-- {
		n++
	}
	return n%2 == 1
}

// boundaryAfter reports whether a word may end before s[end].
func boundaryAfter(s string, end int) bool {
	if end == len(s) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[end:])
	return !wordRune(r)
}

// wordRune reports whether r continues a word: a letter or digit of any
// script, or '_'.
func wordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// url renders a URL for errors and logs: scheme, host and path only; a
// query or fragment is replaced by a mark, user information dropped.
func (r redactor) url(u *url.URL) string {
	if u == nil {
		return ""
	}
	v := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	s := v.String()
	if u.RawQuery != "" || u.ForceQuery {
		s += "?" + redactedMark
	}
	if u.Fragment != "" {
		s += "#" + redactedMark
	}
	return r.text(s)
}

// wrap returns err with a redacted message prefixed by prefix.
func (r redactor) wrap(prefix string, err error) error {
	return &safeError{msg: r.text(prefix + err.Error()), err: err}
}
