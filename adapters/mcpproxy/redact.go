package mcpproxy

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// redacted replaces a secret in text. When a secret is part of the marker
// itself (a value such as "REDACTED" or "ACTE"), the next of markers that
// holds no secret is used instead; the last is shorter than any secret.
const redacted = "[REDACTED]"

var markers = []string{redacted, "[HIDDEN]", "[X]"}

// minSecretLen is the shortest value treated as a secret; shorter values
// would garble every message and protect nothing.
const minSecretLen = 4

// minSplitLen is the shortest secret (without its white space) that is also
// found when line breaks, spaces or JSON escapes (\n, \r, \t) are inserted
// between its characters. Shorter secrets are matched exactly only: split
// matching of a short value would redact ordinary text. It is also the
// shortest secret found inside a word: a shorter one is redacted only
// where it stands as a whole word (see standsAlone), so that an
// environment value such as "exit" does not garble "secexit" or
// "exit_code" — a server's own name, a tool name, ordinary text.
const minSplitLen = 8

// maxErrorText caps an error text that came from outside (a remote message,
// a transport error) once redacted, in Status.LastError and in errors and
// results of the proxy.
const maxErrorText = 2000

// redactor removes a server's secrets from text and values. The secrets are
// every value the Config carries that may be a credential, in the forms in
// which a remote server or a transport error may echo them back (see
// secretForms).
type redactor struct {
	exact   []string          // matched as they are; longest first
	words   []string          // shorter than minSplitLen: matched as whole words only; longest first
	split   []string          // separators removed; matched across separators; longest first
	byFirst map[byte][]string // split by first byte, longest first
	firsts  []byte            // the keys of byFirst, sorted
	maxLen  int               // longest form, in bytes
	marker  string            // what replaces a secret
}

func newRedactor(c Config) *redactor {
	r := &redactor{marker: redacted}
	var forms []string
	for k, v := range c.Headers {
		if !publicHeader(k) && !plainSetting(v) {
			forms = append(forms, headerForms(v)...)
		}
	}
	for _, v := range c.Env {
		if !plainSetting(v) {
			forms = append(forms, secretForms(v)...)
		}
	}
	for _, v := range c.Secrets {
		if len(v) >= minSecretLen && !plainSetting(v) {
			forms = append(forms, secretForms(v)...)
		}
	}
	if c.URL != "" {
		forms = append(forms, urlForms(c.URL)...)
	}
	seen := map[string]bool{}
	for _, f := range forms {
		if seen[f] {
			continue
		}
		seen[f] = true
		r.maxLen = max(r.maxLen, len(f))
		if n := stripSeparators(f); len(n) >= minSplitLen {
			if !seen["\x00"+n] {
				seen["\x00"+n] = true
				r.split = append(r.split, n)
			}
			continue
		}
		if len(f) < minSplitLen {
			r.words = append(r.words, f)
			continue
		}
		r.exact = append(r.exact, f)
	}
	byLen := func(s []string) {
		sort.Slice(s, func(i, j int) bool {
			if len(s[i]) != len(s[j]) {
				return len(s[i]) > len(s[j])
			}
			return s[i] < s[j]
		})
	}
	byLen(r.exact)
	byLen(r.words)
	byLen(r.split)
	r.byFirst = map[byte][]string{}
	for _, s := range r.split {
		if _, ok := r.byFirst[s[0]]; !ok {
			r.firsts = append(r.firsts, s[0])
		}
		r.byFirst[s[0]] = append(r.byFirst[s[0]], s)
	}
	sort.Slice(r.firsts, func(i, j int) bool { return r.firsts[i] < r.firsts[j] })
	for _, m := range markers {
		r.marker = m
		if !r.contains(m) {
			break
		}
	}
	return r
}

// plainSetting reports whether an environment or header value is a
// setting that no credential is: a boolean word (true, off, …), a log
// level (debug, error, …), or a whole number of fewer than minSplitLen
// digits (a port, a count). A server is often started with such values
// (DEBUG=true, LOG_LEVEL=error, PORT=8080), and redacting them would
// garble every result and message that merely holds the word: "the result
// is [REDACTED] or false".
func plainSetting(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "enabled", "disabled", "none", "null",
		"trace", "debug", "info", "notice", "warn", "warning", "error", "critical", "fatal":
		return true
	}
	_, err := strconv.ParseInt(v, 10, 64)
	return err == nil && len(strings.TrimLeft(v, "+-")) < minSplitLen
}

// publicHeader reports whether a header is one of the standard ones that
// describe the request, never a credential (Accept, Content-Type,
// User-Agent, …): a server configured with Accept: application/json must
// not have that text redacted from everything it returns.
func publicHeader(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Accept", "Accept-Charset", "Accept-Encoding", "Accept-Language", "Cache-Control",
		"Content-Language", "Content-Type", "Mcp-Protocol-Version", "Origin", "Pragma", "Referer", "User-Agent":
		return true
	}
	return false
}

// secretForms returns v and the forms it takes once encoded: JSON string
// content (with and without HTML escaping), URL query and path escaping.
// Values shorter than minSecretLen give nothing.
func secretForms(v string) []string {
	if len(v) < minSecretLen {
		return nil
	}
	return []string{v, url.QueryEscape(v), url.PathEscape(v), jsonContent(v, false), jsonContent(v, true)}
}

// jsonContent is v as it appears between the quotes of a JSON string.
func jsonContent(v string, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	_ = enc.Encode(v) // a string always encodes
	s := strings.TrimSuffix(b.String(), "\n")
	return s[1 : len(s)-1]
}

// headerForms are the forms of a header value: the value, the credential
// after an authentication scheme ("Bearer abc…" may be echoed as "abc…"),
// and for Basic the decoded "user:password" and password.
func headerForms(v string) []string {
	out := secretForms(v)
	scheme, cred, ok := strings.Cut(v, " ")
	if !ok {
		return out
	}
	cred = strings.TrimSpace(cred)
	out = append(out, secretForms(cred)...)
	if strings.EqualFold(scheme, "Basic") {
		if dec, err := base64.StdEncoding.DecodeString(cred); err == nil && utf8.Valid(dec) {
			out = append(out, secretForms(string(dec))...)
			if _, pw, ok := strings.Cut(string(dec), ":"); ok {
				out = append(out, secretForms(pw)...)
			}
		}
	}
	return out
}

// urlForms are the secrets of a URL: the user name and password (Go's HTTP
// client sends them as Basic authentication, so that form too), and every
// query value, decoded and as written.
func urlForms(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out []string
	if u.User != nil {
		name := u.User.Username()
		pw, hasPW := u.User.Password()
		out = append(out, secretForms(name)...)
		out = append(out, secretForms(pw)...)
		if s := u.User.String(); len(s) >= minSecretLen {
			out = append(out, s)
			if en, ep, ok := strings.Cut(s, ":"); ok {
				out = append(out, secretForms(en)...)
				out = append(out, secretForms(ep)...)
			}
		}
		if hasPW || name != "" {
			basic := name + ":" + pw
			if len(name) >= minSecretLen || len(pw) >= minSecretLen {
				out = append(out, secretForms(basic)...)
				out = append(out, base64.StdEncoding.EncodeToString([]byte(basic)))
			}
		}
	}
	for _, vs := range u.Query() {
		for _, v := range vs {
			out = append(out, secretForms(v)...)
		}
	}
	for _, kv := range strings.Split(u.RawQuery, "&") {
		if _, v, ok := strings.Cut(kv, "="); ok && len(v) >= minSecretLen {
			out = append(out, v)
		}
	}
	return out
}

// isSeparator reports the single bytes skipped by split matching.
func isSeparator(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// separatorAt returns the length of the separator starting at t[i]: one
// for white space, two for the JSON escapes \n, \r and \t, zero otherwise.
func separatorAt(t string, i int) int {
	if isSeparator(t[i]) {
		return 1
	}
	if t[i] == '\\' && i+1 < len(t) && (t[i+1] == 'n' || t[i+1] == 'r' || t[i+1] == 't') {
		return 2
	}
	return 0
}

// stripSeparators removes every separator from t.
func stripSeparators(t string) string {
	var b []byte
	for i := 0; i < len(t); {
		if n := separatorAt(t, i); n > 0 {
			if b == nil {
				b = append(make([]byte, 0, len(t)), t[:i]...)
			}
			i += n
			continue
		}
		if b != nil {
			b = append(b, t[i])
		}
		i++
	}
	if b == nil {
		return t
	}
	return string(b)
}

// empty reports whether the redactor knows no secret.
func (r *redactor) empty() bool { return len(r.exact) == 0 && len(r.words) == 0 && len(r.split) == 0 }

// text returns t with every secret replaced by [REDACTED]. A replacement
// can form a secret again next to the marker, so replacing repeats; if a
// secret is still present after a few rounds, the whole text is withheld.
func (r *redactor) text(t string) string {
	if r.empty() || t == "" {
		return t
	}
	for range 4 {
		out, changed := r.once(t)
		if !changed {
			return t
		}
		t = out
	}
	if r.contains(t) {
		return r.marker
	}
	return t
}

// contains reports whether a secret is still in t.
func (r *redactor) contains(t string) bool {
	for _, s := range r.exact {
		if strings.Contains(t, s) {
			return true
		}
	}
	for _, w := range r.words {
		if _, ok := replaceWord(t, w, ""); ok {
			return true
		}
	}
	return len(r.findSplit(t, true)) > 0
}

// once runs one round of replacements.
func (r *redactor) once(t string) (string, bool) {
	changed := false
	for _, s := range r.exact {
		if strings.Contains(t, s) {
			t = strings.ReplaceAll(t, s, r.marker)
			changed = true
		}
	}
	for _, w := range r.words {
		if out, ok := replaceWord(t, w, r.marker); ok {
			t = out
			changed = true
		}
	}
	spans := r.findSplit(t, false)
	if len(spans) == 0 {
		return t, changed
	}
	spans = mergeSpans(spans)
	var b strings.Builder
	b.Grow(len(t))
	prev := 0
	for _, sp := range spans {
		b.WriteString(t[prev:sp[0]])
		b.WriteString(r.marker)
		prev = sp[1]
	}
	b.WriteString(t[prev:])
	return b.String(), true
}

// replaceWord replaces every occurrence of w in t that stands as a whole
// word (standsAlone) by marker, and reports whether there was one.
func replaceWord(t, w, marker string) (string, bool) {
	var b strings.Builder
	prev, from, found := 0, 0, false
	for {
		k := strings.Index(t[from:], w)
		if k < 0 {
			break
		}
		at := from + k
		if !standsAlone(t, at, at+len(w)) {
			from = at + 1
			continue
		}
		b.WriteString(t[prev:at])
		b.WriteString(marker)
		prev, from, found = at+len(w), at+len(w), true
	}
	if !found {
		return t, false
	}
	b.WriteString(t[prev:])
	return b.String(), true
}

// standsAlone reports whether t[i:j] is not part of a longer word: a word
// character (letter, digit or _) at either end of it is not continued by
// another one in t. The start and the end of t are word boundaries, so a
// text cut in the middle of a word (a line of stderr written in pieces)
// is redacted rather than let through, and so is the end of an escape
// sequence (escapeEndsAt): the "n" of a JSON \n or the "0" of a URL's %20
// is no letter of the text, so "line\nhunt3r" and "a%20hunt3r" hold the
// word hunt3r.
func standsAlone(t string, i, j int) bool {
	if i > 0 && !escapeEndsAt(t, i) {
		first, _ := utf8.DecodeRuneInString(t[i:j])
		before, _ := utf8.DecodeLastRuneInString(t[:i])
		if isWordRune(first) && isWordRune(before) {
			return false
		}
	}
	if j < len(t) {
		last, _ := utf8.DecodeLastRuneInString(t[i:j])
		after, _ := utf8.DecodeRuneInString(t[j:])
		if isWordRune(last) && isWordRune(after) {
			return false
		}
	}
	return true
}

// escapeEndsAt reports whether t[:i] ends with an escape sequence: a
// JSON backslash escape (\n, \t, \r, \b, \f, \", \\, \/ or \uXXXX) whose
// backslash is not itself escaped, or a URL percent escape (%XX).
func escapeEndsAt(t string, i int) bool {
	if i >= 3 && t[i-3] == '%' && isHex(t[i-2]) && isHex(t[i-1]) {
		return true
	}
	if i >= 6 && t[i-5] == 'u' && isHex(t[i-4]) && isHex(t[i-3]) && isHex(t[i-2]) && isHex(t[i-1]) && escapingBackslash(t, i-6) {
		return true
	}
	return i >= 2 && strings.IndexByte(`ntrbf"\/`, t[i-1]) >= 0 && escapingBackslash(t, i-2)
}

// escapingBackslash reports whether t[k] is a backslash that starts an
// escape: one preceded by an even number of backslashes (\\n is an
// escaped backslash and a letter n).
func escapingBackslash(t string, k int) bool {
	if k < 0 || t[k] != '\\' {
		return false
	}
	n := 0
	for k-1-n >= 0 && t[k-1-n] == '\\' {
		n++
	}
	return n%2 == 0
}

// isHex reports whether c is a hexadecimal digit.
func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// isWordRune reports whether c is a word character: a letter, a digit or _.
func isWordRune(c rune) bool { return c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c) }

// findSplit returns the spans [start, end) of t that hold a split secret:
// its characters in order, with separators between them. Candidates are
// found by the secrets' first bytes (strings.IndexByte), so that text
// without secrets is scanned at memchr speed. With first, it stops at the
// first span.
func (r *redactor) findSplit(t string, first bool) [][2]int {
	var spans [][2]int
	for _, c := range r.firsts {
		group := r.byFirst[c]
		for from := 0; from < len(t); {
			k := strings.IndexByte(t[from:], c)
			if k < 0 {
				break
			}
			at := from + k
			for _, s := range group {
				if end, ok := matchSplit(t, at, s); ok {
					spans = append(spans, [2]int{at, end})
					if first {
						return spans
					}
					break
				}
			}
			from = at + 1
		}
	}
	return spans
}

// matchSplit reports whether t holds s at i, allowing separators between
// its characters, and where the match ends.
func matchSplit(t string, i int, s string) (int, bool) {
	for k := 0; k < len(s); k++ {
		if k > 0 {
			for i < len(t) {
				n := separatorAt(t, i)
				if n == 0 {
					break
				}
				i += n
			}
		}
		if i >= len(t) || t[i] != s[k] {
			return 0, false
		}
		i++
	}
	return i, true
}

// mergeSpans sorts spans and merges those that overlap or touch.
func mergeSpans(spans [][2]int) [][2]int {
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	out := spans[:1]
	for _, s := range spans[1:] {
		last := &out[len(out)-1]
		if s[0] <= last[1] {
			last[1] = max(last[1], s[1])
			continue
		}
		out = append(out, s)
	}
	return out
}

// err returns the redacted text of err ("" for nil).
func (r *redactor) err(err error) string {
	if err == nil {
		return ""
	}
	return r.text(err.Error())
}

// errText returns the redacted text of err cut to maxErrorText bytes.
func (r *redactor) errText(err error) string {
	return cut(r.err(err), maxErrorText)
}

// value returns v with secrets redacted from every string and object key,
// and a number that spells a secret replaced by the marker (as a string).
// It reports whether anything changed; unchanged parts are shared.
func (r *redactor) value(v any) (any, bool) {
	if r.empty() {
		return v, false
	}
	switch x := v.(type) {
	case string:
		t := r.text(x)
		return t, t != x
	case json.Number:
		if r.text(string(x)) != string(x) {
			return r.marker, true
		}
	case float64:
		s := strconv.FormatFloat(x, 'f', -1, 64)
		if r.text(s) != s {
			return r.marker, true
		}
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			nk := r.text(k)
			ne, ch := r.value(e)
			if !ch && nk == k {
				continue
			}
			if out == nil {
				out = make(map[string]any, len(x))
				for k2, e2 := range x {
					out[k2] = e2
				}
			}
			delete(out, k)
			out[nk] = ne
		}
		if out != nil {
			return out, true
		}
	case []any:
		var out []any
		for i, e := range x {
			ne, ch := r.value(e)
			if !ch {
				continue
			}
			if out == nil {
				out = append([]any(nil), x...)
			}
			out[i] = ne
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

// rawJSON returns raw with secrets redacted from its strings, keys and
// numbers; nil when raw is not JSON.
func (r *redactor) rawJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	v, err := decodeNumbers(raw)
	if err != nil {
		return nil
	}
	nv, changed := r.value(v)
	if !changed {
		return raw
	}
	out, err := json.Marshal(nv)
	if err != nil {
		return nil
	}
	return out
}

// errTrailingData: a JSON text holds more than one value.
var errTrailingData = errors.New("mcpproxy: data after the JSON value")

// decodeNumbers decodes one JSON value keeping numbers as json.Number, so
// that integers beyond 2^53 keep every digit.
func decodeNumbers(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errTrailingData
	}
	return v, nil
}

// cut returns s cut to at most n bytes on a rune boundary, marked when cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + " …(truncated)"
}

// redactHandler is a slog.Handler that redacts a server's secrets from the
// message and every attribute before passing the record on.
type redactHandler struct {
	inner slog.Handler
	r     *redactor
}

func (h *redactHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.text(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = h.attr(a)
	}
	return &redactHandler{inner: h.inner.WithAttrs(red), r: h.r}
}

func (h *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{inner: h.inner.WithGroup(h.r.text(name)), r: h.r}
}

// attr redacts one attribute; any value that is not a group is rendered to
// text first, so that errors and Stringers are covered too.
func (h *redactHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	key := h.r.text(a.Key)
	switch v.Kind() {
	case slog.KindGroup:
		g := v.Group()
		red := make([]any, len(g))
		for i, x := range g {
			red[i] = h.attr(x)
		}
		return slog.Group(key, red...)
	case slog.KindString:
		return slog.String(key, h.r.text(v.String()))
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(key, h.r.err(err))
		}
		return slog.String(key, h.r.text(v.String()))
	}
	return slog.Attr{Key: key, Value: v}
}

// maxStderrLine caps how much of one line of a child's standard error is
// held before it is written out (redacted) anyway.
const maxStderrLine = 64 << 10

// redactWriter passes a child's standard error on line by line with the
// server's secrets redacted. A line longer than maxStderrLine is written in
// pieces; the bytes that could begin a secret are held back, so that a
// secret is never written in two pieces. Flush writes what is held and
// ends the writer: later writes are dropped, as they could complete a
// secret whose beginning was flushed.
type redactWriter struct {
	mu     sync.Mutex
	w      io.Writer
	r      *redactor
	buf    []byte
	closed bool
}

func (w *redactWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	if i := bytes.LastIndexByte(w.buf, '\n'); i >= 0 {
		lines := w.buf[:i+1]
		if _, err := io.WriteString(w.w, w.r.text(string(lines))); err != nil {
			return len(p), err
		}
		w.buf = append(w.buf[:0], w.buf[i+1:]...)
	}
	if len(w.buf) > maxStderrLine {
		out := w.r.text(string(w.buf))
		keep := min(len(out), max(w.r.maxLen-1, 0))
		if _, err := io.WriteString(w.w, out[:len(out)-keep]); err != nil {
			return len(p), err
		}
		w.buf = append(w.buf[:0], out[len(out)-keep:]...)
	}
	return len(p), nil
}

// Flush writes the partial line held, redacted, and ends the writer.
func (w *redactWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.closed = true
	if len(w.buf) > 0 {
		_, _ = io.WriteString(w.w, w.r.text(string(w.buf)))
		w.buf = w.buf[:0]
	}
}
