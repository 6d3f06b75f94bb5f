// Package sparselog logs work that is retried on a schedule and may keep
// failing for a while (a database away, a disk full) without writing a
// line on every try: the 1st, 2nd, 4th, 8th … failure in a row is logged,
// with the count, and so is the first success after failures.
package sparselog

import (
	"context"
	"log/slog"
)

// Failures counts one piece of work's failures in a row. The zero value
// is ready; it is not safe for use by several goroutines at once (each
// retry loop owns one).
type Failures struct {
	n int
}

// Record logs the outcome of one try to log: when err is nil, an Info
// record back (with "failed_tries") if the tries before it failed;
// otherwise a Warn record failed (with err and "failed_tries") at the
// 1st, 2nd, 4th, 8th … failure in a row. attrs are added to the Warn
// record. It returns the failures in a row after this try.
func (f *Failures) Record(ctx context.Context, log *slog.Logger, err error, failed, back string, attrs ...slog.Attr) int {
	if err == nil {
		if f.n > 0 {
			log.LogAttrs(ctx, slog.LevelInfo, back, slog.Int("failed_tries", f.n))
		}
		f.n = 0
		return 0
	}
	f.n++
	if f.n&(f.n-1) == 0 {
		log.LogAttrs(ctx, slog.LevelWarn, failed, append([]slog.Attr{slog.Any("err", err), slog.Int("failed_tries", f.n)}, attrs...)...)
	}
	return f.n
}
