package mcpproxy

import (
	"context"
	"log/slog"
	"net/url"
	"sort"
	"strings"
)

// redacted replaces a secret in text.
const redacted = "[REDACTED]"

// minSecretLen is the shortest value treated as a secret; shorter values
// would garble every message and protect nothing.
const minSecretLen = 4

// redactor removes a server's secrets (header values, environment values,
// URL password and query values) from text.
type redactor struct {
	secrets []string // longest first
}

func newRedactor(c Config) *redactor {
	var s []string
	add := func(v string) {
		if len(v) >= minSecretLen {
			s = append(s, v)
		}
	}
	for _, v := range c.Headers {
		add(v)
		// "Bearer abc…" may be echoed without its scheme.
		if _, tok, ok := strings.Cut(v, " "); ok {
			add(tok)
		}
	}
	for _, v := range c.Env {
		add(v)
	}
	if u, err := url.Parse(c.URL); err == nil && c.URL != "" {
		if p, ok := u.User.Password(); ok {
			add(p)
			add(url.QueryEscape(p))
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
				add(url.QueryEscape(v))
			}
		}
	}
	sort.Slice(s, func(i, j int) bool { return len(s[i]) > len(s[j]) })
	return &redactor{secrets: s}
}

// text returns t with every secret replaced. A replacement can form a
// secret again next to the marker, so replacing repeats; if a secret is
// still present after a few rounds, the whole text is withheld.
func (r *redactor) text(t string) string {
	for range 4 {
		changed := false
		for _, s := range r.secrets {
			if strings.Contains(t, s) {
				t = strings.ReplaceAll(t, s, redacted)
				changed = true
			}
		}
		if !changed {
			return t
		}
	}
	for _, s := range r.secrets {
		if strings.Contains(t, s) {
			return redacted
		}
	}
	return t
}

// err returns the redacted text of err ("" for nil).
func (r *redactor) err(err error) string {
	if err == nil {
		return ""
	}
	return r.text(err.Error())
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
	return &redactHandler{inner: h.inner.WithGroup(name), r: h.r}
}

// attr redacts one attribute; any value that is not a group is rendered to
// text first, so that errors and Stringers are covered too.
func (h *redactHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindGroup:
		g := v.Group()
		red := make([]any, len(g))
		for i, x := range g {
			red[i] = h.attr(x)
		}
		return slog.Group(a.Key, red...)
	case slog.KindString:
		return slog.String(a.Key, h.r.text(v.String()))
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, h.r.err(err))
		}
		return slog.String(a.Key, h.r.text(v.String()))
	}
	return slog.Attr{Key: a.Key, Value: v}
}
