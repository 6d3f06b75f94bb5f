package pgpool_test

import (
	"context"
	"fmt"
	"testing"
	"time"

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
