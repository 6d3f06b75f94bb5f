package pgpool

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// answerMargin is how long past its statement timeout a statement's answer
// is waited for before the database is taken for stalled: the server ends
// a statement at its timeout and says so, which takes a round trip.
const answerMargin = 5 * time.Second

// bound gives every statement, batch, copy and prepare of a pool's
// connections, and every wait for one of its connections, a deadline on
// the client: the statement timeout plus answerMargin (or twice the
// statement timeout, when that is shorter). The server's
// statement_timeout ends a statement the server runs; a database that
// keeps its connections open but stops answering (a frozen server, a
// proxy whose far side hangs, a failover behind a load balancer) answers
// nothing at all, and without a deadline of its own the caller — a tool
// call, an HTTP request without a timeout, a background flush — would
// wait for it for ever. A caller's own earlier deadline stays in force.
//
// It is a pgx tracer because that is the one hook pgx gives to replace a
// statement's context; it records nothing.
type bound struct{ d time.Duration }

// boundKey holds the cancel function of the deadline bound.start made.
type boundKey struct{}

// start returns ctx with the bound's deadline, unless ctx ends sooner.
// Either way the returned context holds its own entry under boundKey (nil
// when no deadline was made), so that end never cancels an enclosing
// operation's deadline: pgx traces a batch's or a copy's prepares inside
// the batch or copy, with the context their start returned.
func (b bound) start(ctx context.Context) context.Context {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= b.d {
		return context.WithValue(ctx, boundKey{}, context.CancelFunc(nil))
	}
	ctx, cancel := context.WithTimeout(ctx, b.d)
	return context.WithValue(ctx, boundKey{}, cancel)
}

func (bound) end(ctx context.Context) {
	if cancel, _ := ctx.Value(boundKey{}).(context.CancelFunc); cancel != nil {
		cancel()
	}
}

func (b bound) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return b.start(ctx)
}

func (b bound) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) { b.end(ctx) }

func (b bound) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return b.start(ctx)
}

func (bound) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (b bound) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchEndData) { b.end(ctx) }

func (b bound) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	return b.start(ctx)
}

func (b bound) TraceCopyFromEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromEndData) {
	b.end(ctx)
}

func (b bound) TracePrepareStart(ctx context.Context, _ *pgx.Conn, _ pgx.TracePrepareStartData) context.Context {
	return b.start(ctx)
}

func (b bound) TracePrepareEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TracePrepareEndData) {
	b.end(ctx)
}

// TraceAcquireStart bounds the wait for a connection of the pool: a free
// one (all of them may be held by statements the stalled database never
// answers) and the check pgxpool makes of one idle for a while.
func (b bound) TraceAcquireStart(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireStartData) context.Context {
	return b.start(ctx)
}

func (b bound) TraceAcquireEnd(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireEndData) {
	b.end(ctx)
}
