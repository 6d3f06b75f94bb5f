package pgpool_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/pgpool"
	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
)

// A DSN that does not parse is refused without being quoted (it may hold
// a password), and a schema that would need quoting is refused by name.
func ExampleOpen() {
	_, err := pgpool.Open(context.Background(), "mystore", pgpool.Config{DSN: "postgres://u:s3cret@[db"})
	fmt.Println(err)
	_, err = pgpool.Open(context.Background(), "mystore", pgpool.Config{DSN: "postgres://db/x", Schema: "Robert'); DROP"})
	fmt.Println(err)
	// Output:
	// mystore: the DSN does not parse (expected postgres://user:password@host:port/db or key=value pairs)
	// mystore: Options.Schema: expected a lower-case identifier of at most 63 characters, got "Robert'); DROP"
}

// A pool's connections use the schema as their search_path, UTC and the
// statement timeout, and name themselves "what:schema".
func TestOpen_SessionSettings(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	pool, err := pgpool.Open(context.Background(), "probe", pgpool.Config{DSN: dsn, Schema: schema, StatementTimeout: 1500 * time.Millisecond, MaxConns: 2})
	require.NoError(t, err)
	defer pool.Close()
	var path, tz, timeout, app string
	require.NoError(t, pool.QueryRow(context.Background(),
		`SELECT current_setting('search_path'), current_setting('TimeZone'), current_setting('statement_timeout'), current_setting('application_name')`).
		Scan(&path, &tz, &timeout, &app))
	assert.Equal(t, schema, path)
	assert.Equal(t, "UTC", tz)
	assert.Equal(t, "1500ms", timeout)
	assert.Equal(t, "probe:"+schema, app)
	assert.Equal(t, int32(2), pool.Config().MaxConns)
}

// A lost connection is told from a failed statement: only the first is
// worth a new connection and a second try.
func TestConnectionLost(t *testing.T) {
	ctx := context.Background()
	done, cancel := context.WithCancel(ctx)
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"terminated by an operator", ctx, &pgconn.PgError{Code: "57P01"}, true},
		{"server shutting down", ctx, fmt.Errorf("wrapped: %w", &pgconn.PgError{Code: "57P02"}), true},
		{"connection exception", ctx, &pgconn.PgError{Code: "08006"}, true},
		{"network", ctx, &net.OpError{Op: "read", Err: errors.New("connection reset by peer")}, true},
		{"stream cut", ctx, io.ErrUnexpectedEOF, true},
		{"unique violation", ctx, &pgconn.PgError{Code: "23505"}, false},
		{"statement timeout", ctx, &pgconn.PgError{Code: "57014"}, false},
		{"no rows", ctx, pgx.ErrNoRows, false},
		{"a plain error", ctx, errors.New("chunks longer than the output"), false},
		{"caller cancelled", ctx, context.Canceled, false},
		{"network error after the caller gave up", done, io.ErrUnexpectedEOF, false},
		{"none", ctx, nil, false},
	} {
		assert.Equal(t, c.want, pgpool.ConnectionLost(c.ctx, c.err), c.name)
	}
}
