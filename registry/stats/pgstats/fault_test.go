package pgstats_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
	"github.com/toolpack-go/toolpack/registry/stats"
	"github.com/toolpack-go/toolpack/registry/stats/pgstats"
)

// killBatch is the size of each batch the killed writer appends.
const killBatch = 5000

// A writer killed (SIGKILL) while it appends batches of records leaves
// each batch wholly stored or not at all: never part of one. Every batch
// holds killBatch records of one tool, so a partial batch shows as a
// tool with another count.
func TestFault_KilledWriterLeavesNoPartialBatch(t *testing.T) {
	dsn := pgtest.DSN(t)
	if os.Getenv("PGSTATS_TEST_WRITER") != "" {
		return // the child: see TestStatsWriterChild
	}
	schema := pgtest.FreshSchema(t, dsn)
	_ = open(t, dsn, schema) // migrate before the child starts
	conn, err := pgx.Connect(context.Background(), dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	// Kills at several moments of the first batch, and one in the second
	// (just after the first was stored, however slow the machine is), so
	// that at least one whole batch is there to check.
	for round, k := range []struct {
		wait  time.Duration
		ready string
	}{{0, "appending now"}, {20 * time.Millisecond, "appending now"}, {70 * time.Millisecond, "appending now"}, {0, "stored a batch"}} {
		cmd := pgtest.StartWriter(t, "TestStatsWriterChild", "PGSTATS_TEST_WRITER="+schema+":"+strconv.Itoa(round), k.ready)
		time.Sleep(k.wait)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	rows, err := conn.Query(context.Background(), `SELECT tool, count(*) FROM `+schema+`.stats_calls GROUP BY tool`)
	require.NoError(t, err)
	counts := map[string]int64{}
	for rows.Next() {
		var tool string
		var n int64
		require.NoError(t, rows.Scan(&tool, &n))
		counts[tool] = n
	}
	require.NoError(t, rows.Err())
	for tool, n := range counts {
		require.Equal(t, int64(killBatch), n, "batch %s was stored in part", tool)
	}
	require.NotEmpty(t, counts, "no batch was stored before the kills: the test proved nothing")
	t.Logf("%d whole batches stored, none in part", len(counts))
}

// TestStatsWriterChild is the writer of
// TestFault_KilledWriterLeavesNoPartialBatch: it appends batches until
// killed; it does nothing unless PGSTATS_TEST_WRITER is set.
func TestStatsWriterChild(t *testing.T) {
	env := os.Getenv("PGSTATS_TEST_WRITER")
	if env == "" {
		t.Skip("run by TestFault_KilledWriterLeavesNoPartialBatch")
	}
	i := strings.LastIndexByte(env, ':')
	schema, round := env[:i], env[i+1:]
	dsn := pgtest.DSN(t)
	s, err := pgstats.Open(context.Background(), dsn, pgstats.Options{Schema: schema})
	require.NoError(t, err)
	now := time.Now().UTC()
	batch := make([]stats.Record, killBatch)
	fmt.Println("appending now")
	for k := 0; ; k++ {
		tool := fmt.Sprintf("r%s-b%d", round, k)
		for i := range batch {
			batch[i] = stats.Record{Time: now, Tool: tool, Success: true, BytesIn: int64(i), Duration: time.Millisecond}
		}
		require.NoError(t, s.Append(context.Background(), batch))
		fmt.Println("stored a batch")
	}
}
