package ot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/internal/textcut"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// Stats periods and their lengths.
var periods = map[string]time.Duration{
	"day":   24 * time.Hour,
	"week":  7 * 24 * time.Hour,
	"month": 30 * 24 * time.Hour,
	"all":   0,
}

// Texts of ot.stats.
const (
	statsDisabled    = "Error: Statistics collection is disabled. Enable it with stats: {enabled: true} in the configuration."
	statsUnavailable = "Error: the statistics store did not answer (it is away or busy, or the summary ran past its statement timeout); try again in a moment, or ask for a shorter period."
	statsUnreadable  = "Error: the statistics could not be read; the cause is in the server log."
)

// invalidPeriod is the seed's answer to an unknown period, its example
// naming ot.stats as it is called (calls): word for word without a
// registry prefix, guide_ot.stats(period='day') under prefix guide, as
// every other message of the pack names the ot tools. The caller's period
// is echoed as given.
func (p *pack) invalidPeriod(period string) string {
	return fmt.Sprintf(p.calls("Error: Invalid period '%s'. Valid: day, week, month, all. Example: ot.stats(period='day')"), echo(period))
}

func (p *pack) stats(ctx context.Context, a StatsArgs) (result.Result[string], error) {
	period := a.Period
	if period == "" {
		period = "all"
	}
	attrs := []slog.Attr{slog.String("period", period)}
	if a.Tool != "" {
		attrs = append(attrs, slog.String("tool", a.Tool))
	}
	if a.Output != "" {
		attrs = append(attrs, slog.String("output", a.Output))
	}
	sp := startSpan(ctx, ToolStats, attrs...)
	d, ok := periods[period]
	if !ok {
		return sp.end(invalidArg("period", "oneof", p.invalidPeriod(a.Period)), nil)
	}
	if p.cfg.Stats == nil {
		return sp.end(result.Failure[string](statsDisabled, result.Unavailable), nil)
	}
	// Records carry the final name of the tool that ran: an alias is its
	// tool's statistics, and so is the undecorated name under a prefix.
	tool := a.Tool
	if tool != "" {
		if t, _, ok := p.cfg.Registry.Resolve(p.cfg.Registry.TargetName(tool)); ok {
			tool = t.Name
		}
	}
	q := StatsQuery{Period: period, Now: p.now(), Tool: tool, Output: a.Output}
	if d > 0 {
		q.Since = q.Now.Add(-d)
	}
	rep, err := p.cfg.Stats.Stats(ctx, q)
	var re *ReportError
	switch {
	case errors.Is(err, ErrDisabled):
		return sp.end(result.Failure[string](statsDisabled, result.Unavailable), nil)
	case errors.Is(err, ErrUnavailable):
		registry.Logger(ctx).LogAttrs(ctx, slog.LevelWarn, "ot.stats: the statistics store did not answer", slog.String("error", err.Error()))
		return sp.end(result.Failure[string](statsUnavailable, result.Unavailable), nil)
	case errors.As(err, &re):
		path := re.Path
		if path == "" {
			path = a.Output
		}
		msg := (&ReportError{Path: echoN(path, maxPathEcho), Err: re.Err}).Error()
		if re.Refused {
			return sp.end(invalidArg("output", "path", msg), nil)
		}
		return sp.end(result.Failure[string](msg, ErrTypeWrite), nil)
	case err != nil && ctx.Err() == nil:
		// The store failed otherwise (its directory replaced by a file,
		// unreadable): the model is told in words, the operator in the log.
		registry.Logger(ctx).LogAttrs(ctx, slog.LevelWarn, "ot.stats: the statistics could not be read", slog.String("error", err.Error()))
		return sp.end(result.Failure[string](statsUnreadable, result.Unavailable), nil)
	case err != nil:
		return sp.end(result.Result[string]{}, fmt.Errorf("ot: stats: %w", err))
	}
	tools := make([]any, len(rep.Tools))
	for i, t := range rep.Tools {
		tools[i] = object{
			{"tool", t.Tool},
			{"calls", t.Calls},
			{"success_rate", decimal{t.SuccessRate, 1}},
			{"avg_ms", decimal{t.AvgMS, 1}},
			{"p95_ms", decimal{t.P95MS, 1}},
		}
	}
	out := object{{"period", period}}
	if tool != "" {
		out = append(out, field{"tool", tool})
	}
	out = append(out,
		field{"total_calls", rep.TotalCalls},
		field{"success_rate", decimal{rep.SuccessRate, 1}},
		field{"context_saved", rep.ContextSaved},
		field{"time_saved_ms", rep.TimeSavedMS},
	)
	if rep.Skipped > 0 {
		out = append(out, field{"skipped_records", rep.Skipped})
	}
	if rep.Truncated {
		out = append(out, field{"truncated", true})
	}
	if a.Output != "" {
		out = append(out, field{"html_report", rep.HTMLReport})
	}
	// The per-tool list last: with many tools the answer is a stored
	// output, whose preview shows the fields above it.
	out = append(out, field{"tools", tools})
	res, err := okYAML(out)
	return sp.end(res, err, slog.Int64("total_calls", rep.TotalCalls))
}

// Texts of ot.result.
func offsetInvalid(n int) string { return fmt.Sprintf("offset must be >= 1 (1-indexed), got %d", n) }
func limitInvalid(n int) string  { return fmt.Sprintf("limit must be >= 1, got %d", n) }

const resultsDisabled = "Error: no output is stored on this server (large-output storage is not configured), so there is no handle to read."

func (p *pack) result(ctx context.Context, a ResultArgs) (result.Result[string], error) {
	q := ResultQuery{Handle: a.Handle, Offset: 1, Limit: 100, Search: a.Search, Fuzzy: a.Fuzzy}
	if a.Offset != nil {
		q.Offset = int(*a.Offset)
	}
	if a.Limit != nil {
		q.Limit = int(*a.Limit)
	}
	attrs := []slog.Attr{slog.String("handle", q.Handle), slog.Int("offset", q.Offset), slog.Int("limit", q.Limit)}
	if q.Search != "" {
		attrs = append(attrs, slog.String("search", q.Search), slog.Bool("fuzzy", q.Fuzzy))
	}
	sp := startSpan(ctx, ToolResult, attrs...)
	switch {
	case q.Offset < 1:
		return sp.end(invalidArg("offset", "min", offsetInvalid(q.Offset)), nil)
	case q.Limit < 1:
		return sp.end(invalidArg("limit", "min", limitInvalid(q.Limit)), nil)
	}
	if p.cfg.Results == nil {
		return sp.end(result.Failure[string](resultsDisabled, result.Unavailable), nil)
	}
	page, err := p.cfg.Results.Query(ctx, q)
	switch {
	case errors.Is(err, ErrHandleNotFound):
		return sp.end(result.Failuref[string](result.NotFound, "Error: Handle '%s' not found. Use the handle exactly as the tool that stored the output returned it.", echo(q.Handle)), nil)
	case errors.Is(err, ErrHandleExpired):
		return sp.end(result.Failuref[string](result.NotFound, "Error: Result '%s' has expired and was deleted. Run the tool that produced it again.", echo(q.Handle)), nil)
	case errors.Is(err, ErrHandleDamaged):
		registry.Logger(ctx).LogAttrs(ctx, slog.LevelError, "ot.result: a stored output is damaged", slog.String("handle", q.Handle), slog.String("error", err.Error()))
		return sp.end(result.Failuref[string](result.NotFound, "Error: Result '%s' is damaged and cannot be read. Run the tool that produced it again.", echo(q.Handle)), nil)
	case errors.Is(err, ErrSearchTimeout):
		return sp.end(result.Failuref[string](result.Timeout, "Error: the search of '%s' ran out of time. Use a more specific search, or page without one.", echo(q.Handle)), nil)
	case errors.Is(err, ErrInvalidSearch):
		return sp.end(invalidArg("search", "regexp", "Error: search is not a valid regular expression: "+strings.TrimPrefix(err.Error(), ErrInvalidSearch.Error()+": ")), nil)
	case errors.Is(err, ErrInvalidQuery):
		// The argument at fault when the store names it (a *QueryError):
		// offset, search, ….
		field, msg := "", strings.TrimPrefix(err.Error(), ErrInvalidQuery.Error()+": ")
		if qe := (*QueryError)(nil); errors.As(err, &qe) {
			field, msg = qe.Field, qe.Msg
		}
		return sp.end(invalidArg(field, "query", "Error: "+msg), nil)
	case errors.Is(err, ErrUnavailable):
		registry.Logger(ctx).LogAttrs(ctx, slog.LevelWarn, "ot.result: the output store cannot be reached", slog.String("error", err.Error()))
		return sp.end(result.Failuref[string](result.Unavailable, "Error: the output store cannot be reached right now, so '%s' cannot be read; try again in a moment.", echo(q.Handle)), nil)
	case err != nil:
		return sp.end(result.Result[string]{}, fmt.Errorf("ot: result %q: %w", q.Handle, err))
	}
	lines := page.Lines
	if lines == nil {
		lines = []string{}
	}
	out := object{
		{"lines", lines},
		{"total_lines", page.TotalLines},
		{"returned", len(page.Lines)},
		{"offset", page.Offset},
		{"has_more", page.HasMore},
	}
	if len(page.LineNumbers) > 0 {
		nums := make([]any, len(page.LineNumbers))
		for i, n := range page.LineNumbers {
			nums[i] = n
		}
		out = append(out, field{"line_numbers", nums})
	}
	res, err := okYAML(out)
	return sp.end(res, err, slog.Int("returned", len(page.Lines)))
}

// maxEcho caps how much of a caller's value a message repeats.
const maxEcho = 64

// echo is a caller's value (a handle, a period) as a message repeats it:
// as given when it is short, printable text; otherwise cut to maxEcho
// characters with control and format characters (a line break, a
// right-to-left override) escaped, so that a message shown to a model or
// a person says no more than the tool means.
func echo(s string) string { return echoN(s, maxEcho) }

// invalidArg is a validation failure whose text is msg (the seed's words)
// and whose error data lists the argument, as the registry's own
// validation failures do (args.Failure): REST sends it as details, which
// the OpenAPI document promises for every validation_error. field is ""
// for a problem of the arguments together.
func invalidArg(field, rule, msg string) result.Result[string] {
	return result.Failure[string](msg, result.ValidationError).
		WithErrorData([]args.FieldError{{Field: field, Rule: rule, Message: msg}})
}

// maxPathEcho caps a path repeated in a message: longer than a handle,
// as a report's path is the reports directory's joined with the name.
const maxPathEcho = 300

// echoN is echo cutting at n characters.
func echoN(s string, n int) string {
	cut := textcut.Runes(s, n+1) // n characters and the mark
	for _, r := range cut {
		if !unicode.IsGraphic(r) || r == utf8.RuneError {
			q := strconv.QuoteToGraphic(cut)
			return q[1 : len(q)-1]
		}
	}
	return cut
}
