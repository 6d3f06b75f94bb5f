package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/bits"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/pgstore"
	"github.com/toolpack-go/toolpack/registry/catalogue/storetest"
)

func open(t *testing.T, dsn, schema string, now func() time.Time) *pgstore.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := pgstore.Open(ctx, dsn, pgstore.Options{Schema: schema, Now: now, Logger: slog.New(slog.DiscardHandler),
		FlushInterval: 20 * time.Millisecond, ReapInterval: -1, MaxConns: 8})
	require.NoError(t, err)
	return s
}

// The PostgreSQL store passes the same conformance suite as the file
// store.
func TestConformance(t *testing.T) {
	dsn := pgtest.DSN(t)
	storetest.Run(t, func(t *testing.T, now func() time.Time) catalogue.Store {
		return open(t, dsn, pgtest.FreshSchema(t, dsn), now)
	})
}

// Two hosts on one database behave as one store: of two racing puts of
// one <slug, version> exactly one wins (the other gets ErrConflict), the
// usage counts of both add up, and reapers running at once remove a due
// bundle once.
func TestTwoHosts(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	clock, now := settableClock(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
	a, b := open(t, dsn, schema, now), open(t, dsn, schema, now)
	defer a.Close()
	defer b.Close()
	ctx := context.Background()
	id, err := catalogue.NewID()
	require.NoError(t, err)
	_, _, err = a.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "web", DisplayName: "Web", IsEnabled: true})
	require.NoError(t, err)
	got, err := b.GetBundle(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "web", got.Slug, "a change through one host is seen by the other")

	spec := catalogue.ToolSpec{DisplayName: "Echo", Description: "Echoes.", IsEnabled: true, Type: catalogue.TypeGo,
		ArgSchema: json.RawMessage(`{"type":"object","properties":{}}`), GoImpl: &catalogue.GoImpl{Func: "echo"}}
	for round := range 20 {
		key := catalogue.ToolKey{BundleID: id, Slug: fmt.Sprintf("t%d", round), Version: "1"}
		errs := make(chan error, 2)
		for _, s := range []*pgstore.Store{a, b} {
			go func() { _, err := s.PutTool(ctx, key, spec); errs <- err }()
		}
		e1, e2 := <-errs, <-errs
		wins := 0
		for _, e := range []error{e1, e2} {
			if e == nil {
				wins++
			} else {
				assert.ErrorIs(t, e, catalogue.ErrConflict)
			}
		}
		assert.Equal(t, 1, wins, "round %d: exactly one put wins", round)
	}

	key := catalogue.ToolKey{BundleID: id, Slug: "t0", Version: "1"}
	for range 30 {
		require.NoError(t, a.RecordUsage(ctx, key, now()))
		require.NoError(t, b.RecordUsage(ctx, key, now()))
	}
	require.NoError(t, a.Flush(ctx))
	require.NoError(t, b.Flush(ctx))
	tool, err := a.GetTool(ctx, key)
	require.NoError(t, err)
	assert.EqualValues(t, 60, tool.CallCount, "both hosts' counts add up")

	empty := dueForReaping(t, a, b, clock)
	reaped := make(chan []uuid.UUID, 2)
	for _, s := range []*pgstore.Store{a, b} {
		go func() { ids, err := s.ReapDeleted(ctx); assert.NoError(t, err); reaped <- ids }()
	}
	all := append(<-reaped, <-reaped...)
	assert.Equal(t, []uuid.UUID{empty}, all, "reaped once, by one host")
}

// settableClock is a clock for the stores (microseconds, as PostgreSQL
// keeps them) that a test moves by adding to it.
func settableClock(start time.Time) (*atomic.Int64, func() time.Time) {
	clock := new(atomic.Int64)
	clock.Store(start.UnixMicro())
	return clock, func() time.Time { return time.UnixMicro(clock.Load()).UTC() }
}

// expectHeard waits until a watcher reports a change on heard, failing t
// after within.
func expectHeard(t *testing.T, heard <-chan struct{}, within time.Duration, what string) {
	t.Helper()
	select {
	case <-heard:
	case <-time.After(within):
		t.Fatalf("no change heard: %s", what)
	}
}

// dueForReaping puts an empty bundle through put, soft-deletes it through
// del and moves clock (microseconds, the stores' clock) past the
// retention, so that the next reap removes it.
func dueForReaping(t *testing.T, put, del *pgstore.Store, clock *atomic.Int64) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	id, err := catalogue.NewID()
	require.NoError(t, err)
	_, _, err = put.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "gone", DisplayName: "Gone", IsEnabled: true})
	require.NoError(t, err)
	_, err = del.SoftDeleteBundle(ctx, id)
	require.NoError(t, err)
	clock.Add((catalogue.SoftDeleteRetention + time.Minute).Microseconds())
	return id
}

// A DSN that does not parse, or a server that refuses the password, is an
// error that never quotes the password.
func TestOpen_ErrorsHideThePassword(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := pgstore.Open(ctx, "postgres://u:s3cret-pw@[bad", pgstore.Options{})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "s3cret-pw")
	_, err = pgstore.Open(ctx, "postgres://nobody:s3cret-pw@127.0.0.1:1/db?connect_timeout=2", pgstore.Options{})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "s3cret-pw")
	_, err = pgstore.Open(ctx, "postgres://x@127.0.0.1/db", pgstore.Options{Schema: "Bad-Schema"})
	assert.ErrorContains(t, err, "Options.Schema")
}

// A host watching the catalogue is asked to resync once it listens, then
// hears of another host's changes within a second, not of its own; after
// its connection is cut it reconnects and asks for a full resync, then
// hears changes again.
func TestWatch_OtherHostsChangesAndResyncAfterLostConnection(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	a, b := open(t, dsn, schema, nil), open(t, dsn, schema, nil)
	defer a.Close()
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	heard := make(chan struct{}, 16)
	done := make(chan error, 1)
	go func() {
		done <- b.Watch(ctx, func() { heard <- struct{}{} })
	}()
	expect := func(what string) { t.Helper(); expectHeard(t, heard, 3*time.Second, what) }
	quiet := func(what string) {
		t.Helper()
		select {
		case <-heard:
			t.Fatalf("a change heard: %s", what)
		case <-time.After(300 * time.Millisecond):
		}
	}
	expect("the resync once it listens")
	waitListening(t, dsn, schema)

	id, err := catalogue.NewID()
	require.NoError(t, err)
	_, _, err = a.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "web", DisplayName: "Web", IsEnabled: true})
	require.NoError(t, err)
	committed := time.Now()
	expect("a bundle put by the other host")
	// Heard within the wait above; the delay (well under a second: the
	// notification is sent at commit) is logged, not asserted, as a loaded
	// machine may stretch any delay.
	t.Logf("heard %s after the commit", time.Since(committed).Round(time.Millisecond))

	_, err = b.SetBundleEnabled(ctx, id, false)
	require.NoError(t, err)
	quiet("the watching host's own change")

	// Cut the watcher's connection: it reconnects and asks for a resync.
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var killed int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %'`, "pgstore:"+schema).Scan(&killed))
	require.Equal(t, 1, killed)
	expect("the resync after reconnecting")
	waitListening(t, dsn, schema)
	_, err = a.SetBundleEnabled(ctx, id, true)
	require.NoError(t, err)
	expect("a change after the reconnection")

	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("Watch did not return after its context ended")
	}
}

// watchBundles starts b watching with WatchBundles and returns the
// channel of its calls, after the first (the resync once it listens, nil)
// and once it listens.
func watchBundles(t *testing.T, ctx context.Context, b *pgstore.Store, dsn, schema string) <-chan []uuid.UUID {
	t.Helper()
	calls := make(chan []uuid.UUID, 64)
	go func() { _ = b.WatchBundles(ctx, func(ids []uuid.UUID) { calls <- ids }) }()
	select {
	case ids := <-calls:
		require.Nil(t, ids, "the resync once it listens re-reads everything")
	case <-time.After(5 * time.Second):
		t.Fatal("WatchBundles never listened")
	}
	waitListening(t, dsn, schema)
	return calls
}

// nextCall waits for the watcher's next call.
func nextCall(t *testing.T, calls <-chan []uuid.UUID, what string) []uuid.UUID {
	t.Helper()
	select {
	case ids := <-calls:
		return ids
	case <-time.After(3 * time.Second):
		t.Fatalf("no change heard: %s", what)
		return nil
	}
}

// WatchBundles names the bundles another host's change touched — a
// bundle put, a tool put, switched or deleted, an import, a reap —
// so that a host re-reads those only; the host's own changes are not
// reported; a notification that names no bundles (an older version's)
// reads as a change to everything.
func TestWatchBundles_NamesTheBundlesTouched(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	clock, now := settableClock(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	a, b := open(t, dsn, schema, now), open(t, dsn, schema, now)
	defer a.Close()
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := watchBundles(t, ctx, b, dsn, schema)
	expect := func(want []uuid.UUID, what string) {
		t.Helper()
		assert.Equal(t, want, nextCall(t, calls, what), what)
	}

	x, y := newID(t), newID(t)
	for _, id := range []uuid.UUID{x, y} {
		_, _, err := a.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "b" + id.String()[30:], DisplayName: "B", IsEnabled: true})
		require.NoError(t, err)
		// One at a time, so that each is its own burst.
		expect([]uuid.UUID{id}, "a bundle put")
	}
	spec := catalogue.ToolSpec{DisplayName: "Echo", Description: "Echoes.", IsEnabled: true, Type: catalogue.TypeGo,
		ArgSchema: json.RawMessage(`{"type":"object","properties":{}}`), GoImpl: &catalogue.GoImpl{Func: "echo"}}
	key := catalogue.ToolKey{BundleID: y, Slug: "echo", Version: "1"}
	_, err := a.PutTool(ctx, key, spec)
	require.NoError(t, err)
	expect([]uuid.UUID{y}, "a tool put")
	_, err = a.SetToolEnabled(ctx, key, false)
	require.NoError(t, err)
	expect([]uuid.UUID{y}, "a tool switched off")
	require.NoError(t, a.DeleteTool(ctx, key))
	expect([]uuid.UUID{y}, "a tool deleted")
	_, err = a.SetBundleEnabled(ctx, x, false)
	require.NoError(t, err)
	expect([]uuid.UUID{x}, "a bundle switched off")
	imported := catalogue.Bundle{ID: newID(t), BundleSpec: catalogue.BundleSpec{Slug: "imported", DisplayName: "I", IsEnabled: true}, CreatedAt: now(), ModifiedAt: now()}
	require.NoError(t, a.ImportBundle(ctx, imported, nil))
	expect([]uuid.UUID{imported.ID}, "an import")

	// Writes in quick succession: heard as one call naming all, or as
	// several naming some each.
	expectAll := func(want []uuid.UUID, what string) {
		t.Helper()
		var union []uuid.UUID
		for len(union) < len(want) {
			for _, id := range nextCall(t, calls, what) {
				require.Contains(t, want, id, what)
				if !slices.Contains(union, id) {
					union = append(union, id)
				}
			}
		}
	}
	_, err = a.PutTool(ctx, catalogue.ToolKey{BundleID: y, Slug: "one", Version: "1"}, spec)
	require.NoError(t, err)
	_, err = a.SetBundleEnabled(ctx, x, true)
	require.NoError(t, err)
	expectAll([]uuid.UUID{x, y}, "two writes")

	_, _, err = b.PutBundle(ctx, newID(t), catalogue.BundleSpec{Slug: "own", DisplayName: "Own", IsEnabled: true})
	require.NoError(t, err)
	select {
	case ids := <-calls:
		t.Fatalf("the watching host's own change heard: %v", ids)
	case <-time.After(300 * time.Millisecond):
	}

	gone := dueForReaping(t, a, a, clock)
	expectAll([]uuid.UUID{gone}, "the put and soft-delete of a bundle to reap")
	select {
	case ids := <-calls:
		require.Equal(t, []uuid.UUID{gone}, ids, "the soft-delete heard apart")
	case <-time.After(300 * time.Millisecond):
	}
	reaped, err := a.ReapDeleted(ctx)
	require.NoError(t, err)
	require.Equal(t, []uuid.UUID{gone}, reaped)
	expect([]uuid.UUID{gone}, "a reap")

	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `SELECT pg_notify($1, $2)`, "toolpack_catalogue_"+schema, "an-older-host")
	require.NoError(t, err)
	expect(nil, "a notification naming no bundles")
}

// A steady stream of other hosts' changes, closer together than the
// 50 ms that ends a burst, is still reported while it lasts (a burst is
// cut at 250 ms), with every bundle it named.
func TestWatchBundles_SteadyStreamStillReported(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	b := open(t, dsn, schema, nil)
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := watchBundles(t, ctx, b, dsn, schema)
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)

	other := uuid.NewString()
	sent := map[uuid.UUID]bool{}
	heard := map[uuid.UUID]bool{}
	heardDuring := 0
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		id := newID(t)
		sent[id] = true
		_, err := conn.Exec(ctx, `SELECT pg_notify($1, $2)`, "toolpack_catalogue_"+schema, other+" "+id.String())
		require.NoError(t, err)
		select {
		case ids := <-calls:
			heardDuring++
			for _, id := range ids {
				heard[id] = true
			}
		case <-time.After(10 * time.Millisecond):
		}
	}
	assert.Positive(t, heardDuring, "changes were reported while the stream lasted")
	for len(heard) < len(sent) {
		for _, id := range nextCall(t, calls, "the rest of the stream") {
			heard[id] = true
		}
	}
	assert.Equal(t, sent, heard, "every bundle named is reported")
}

// A feed connection the network drops without a word (no FIN, no RST: a
// failover moving the address, a NAT forgetting it) is found dead within
// FeedCheck and a moment more: Watch reconnects and resyncs, so a change
// whose notification was lost on the dead connection is read all the same.
// Without the check the host would stay deaf until TCP gave up.
func TestWatch_SilentlyDroppedConnectionFoundDead(t *testing.T) {
	ctx := context.Background()
	r := watchThroughOutage(t, "&connect_timeout=2", pgstore.Options{FeedCheck: 300 * time.Millisecond})
	outage, a, heard, logs := r.outage, r.a, r.heard, r.logs
	select {
	case <-heard:
		t.Fatal("a quiet feed whose checks are answered resynced")
	case <-time.After(1200 * time.Millisecond): // several checks, all answered
	}

	outage.Silence()
	id, err := catalogue.NewID()
	require.NoError(t, err)
	_, _, err = a.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "web", DisplayName: "Web", IsEnabled: true})
	require.NoError(t, err) // its notification goes into the silence
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "did not answer a check") }, 10*time.Second, 20*time.Millisecond,
		"the silent connection was not found dead; the log:\n%s", logs.String())
	outage.Speak()
	expectHeard(t, heard, 20*time.Second, "the resync after the silent loss")
}

// feedRig is a host watching a catalogue through a pgtest.Outage.
type feedRig struct {
	outage    *pgtest.Outage
	a         *pgstore.Store  // a host writing to the same schema directly
	heard     chan struct{}   // the watcher's changed calls
	logs      *testlog.Buffer // the watcher's log
	listening func()          // waits until the watcher listens
}

// watchThroughOutage starts a host watching the catalogue of a fresh
// schema through a pgtest.Outage (its DSN extended by dsnExtra; o with the
// schema, no reaper and a JSON logger), and returns once it listens.
func watchThroughOutage(t *testing.T, dsnExtra string, o pgstore.Options) feedRig {
	t.Helper()
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	outage, via := pgtest.NewOutage(t, dsn)
	logs := new(testlog.Buffer)
	ctx, cancel := context.WithCancel(context.Background())
	o.Schema, o.ReapInterval, o.Logger = schema, -1, slog.New(slog.NewJSONHandler(logs, nil))
	b, err := pgstore.Open(ctx, via+dsnExtra, o)
	require.NoError(t, err)
	a := open(t, dsn, schema, nil)
	heard := make(chan struct{}, 16)
	watching := make(chan struct{})
	go func() { defer close(watching); _ = b.Watch(ctx, func() { heard <- struct{}{} }) }()
	t.Cleanup(func() { cancel(); <-watching; _ = b.Close(); _ = a.Close() })
	expectHeard(t, heard, 10*time.Second, "the resync once it listens")
	r := feedRig{outage: outage, a: a, heard: heard, logs: logs, listening: func() { waitListening(t, dsn, schema) }}
	r.listening()
	return r
}

// The database going away under a watching host: the loss is logged
// once and the failed reconnections only now and then (the 2nd, 4th, 8th
// …); once the database is back the host listens again, asks for a full
// resync, says so once, and hears changes again.
func TestWatch_DatabaseAwayLoggedSparingly(t *testing.T) {
	ctx := context.Background()
	r := watchThroughOutage(t, "", pgstore.Options{})
	outage, a, heard, logs := r.outage, r.a, r.heard, r.logs
	expect := func(what string) { t.Helper(); expectHeard(t, heard, 10*time.Second, what) }

	outage.Down()
	time.Sleep(3500 * time.Millisecond) // reconnections at about 0.1, 0.3, 0.7, 1.5 and 3.1 s fail
	outage.Up()
	expect("the resync after reconnecting")
	r.listening()
	id, err := catalogue.NewID()
	require.NoError(t, err)
	_, _, err = a.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "web", DisplayName: "Web", IsEnabled: true})
	require.NoError(t, err)
	expect("a change after the reconnection")

	var lost, retries, back int
	var tries float64
	for _, m := range logs.Records(t) {
		msg, _ := m["msg"].(string)
		switch {
		case strings.Contains(msg, "connection was lost"):
			lost++
		case strings.Contains(msg, "cannot reconnect yet"):
			retries++
		case strings.Contains(msg, "change feed is back"):
			back++
			tries, _ = m["failed_tries"].(float64)
		}
	}
	assert.Equal(t, 1, lost, "the loss is logged once")
	require.Equal(t, 1, back, "the reconnection is logged once")
	require.GreaterOrEqual(t, tries, 4.0, "it tried several times while the database was away")
	assert.LessOrEqual(t, retries, bits.Len(uint(tries)), "failed reconnections are logged only at the 2nd, 4th, 8th … (%v tries)", tries)
	assert.NotContains(t, logs.String(), "toolpack_ci:toolpack_ci@", "the DSN is never logged")
}

// waitListening waits until a connection listens on schema's channel.
func waitListening(t *testing.T, dsn, schema string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	require.Eventually(t, func() bool {
		var n int
		// PostgreSQL keeps 63 bytes of an application_name. A feed that
		// has listened and stayed quiet for Options.FeedCheck has since
		// answered a ping (pgx's "-- ping"), its last query then: with a
		// short FeedCheck, on a loaded machine, the LISTEN was not seen.
		_ = conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = left($1, 63)
			AND (query LIKE 'LISTEN %' OR query = '-- ping') AND state = 'idle'`, "pgstore:"+schema).Scan(&n)
		return n == 1
	}, 8*time.Second, 20*time.Millisecond)
}

// A schema name of the longest PostgreSQL allows (63 bytes) works: its
// change feed's channel, too long as toolpack_catalogue_{schema}, is
// named from the schema's hash, and a write through one host is heard by
// the other.
func TestWatch_LongestSchemaName(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	schema += "_" + strings.Repeat("x", 63-len(schema)-1)
	require.Len(t, schema, 63)
	t.Cleanup(func() { pgtest.DropSchema(dsn, schema) })
	a, b := open(t, dsn, schema, nil), open(t, dsn, schema, nil)
	defer a.Close()
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	heard := make(chan struct{}, 16)
	go func() { _ = b.Watch(ctx, func() { heard <- struct{}{} }) }()
	<-heard // the resync once it listens
	waitListening(t, dsn, schema)
	id, err := catalogue.NewID()
	require.NoError(t, err)
	_, _, err = a.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "web", DisplayName: "Web", IsEnabled: true})
	require.NoError(t, err, "a write notifies on the hashed channel")
	select {
	case <-heard:
	case <-time.After(3 * time.Second):
		t.Fatal("the other host heard nothing")
	}
}

// The database dropping every connection between calls: neither a write
// nor a read fails (one whose connection was lost before it committed
// resets the pool and runs again — a write's transaction was rolled back
// by the server, so nothing is written twice); nothing is half-written;
// the store recovers by itself without being reopened.
func TestFault_ConnectionsDroppedMidWork(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	var clock atomic.Int64
	clock.Store(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC).UnixMicro())
	s := open(t, dsn, schema, func() time.Time { return time.UnixMicro(clock.Load()).UTC() })
	defer s.Close()
	ctx := context.Background()
	id, err := catalogue.NewID()
	require.NoError(t, err)
	_, _, err = s.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "web", DisplayName: "Web", IsEnabled: true})
	require.NoError(t, err)
	spec := catalogue.ToolSpec{DisplayName: "Echo", Description: "Echoes.", IsEnabled: true, Type: catalogue.TypeGo,
		ArgSchema: json.RawMessage(`{"type":"object","properties":{}}`), GoImpl: &catalogue.GoImpl{Func: "echo"}}

	admin, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer admin.Close(ctx)
	kill := func() {
		// Only this test's pool: other packages' tests share the database.
		_, _ = admin.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND query NOT LIKE 'LISTEN%'`, "pgstore:"+schema)
	}
	stored := map[string]bool{}
	var failures int
	for i := range 60 {
		if i%7 == 3 {
			kill()
		}
		slug := fmt.Sprintf("t%d", i)
		_, err := s.PutTool(ctx, catalogue.ToolKey{BundleID: id, Slug: slug, Version: "1"}, spec)
		if err != nil {
			failures++
			assert.NotErrorIs(t, err, catalogue.ErrConflict, "a failed put stored nothing to conflict with")
		} else {
			stored[slug] = true
		}
		if i%7 == 3 {
			// Reads cost nothing: one whose connection was lost resets the
			// pool and runs again.
			kill()
			_, err := s.GetBundle(ctx, id)
			require.NoError(t, err, "a read after the connections were dropped")
			kill()
			_, err = s.ListTools(ctx, catalogue.ToolQuery{BundleIDs: []uuid.UUID{id}, IncludeDisabled: true})
			require.NoError(t, err, "a list after the connections were dropped")
		}
	}
	// Whatever the store said was stored is there, whole; nothing else is.
	tools, err := s.ListTools(ctx, catalogue.ToolQuery{BundleIDs: []uuid.UUID{id}, IncludeDisabled: true})
	require.NoError(t, err, "the store recovered without being reopened")
	got := map[string]bool{}
	for _, tl := range tools {
		got[tl.Slug] = true
		assert.Equal(t, "Echo", tl.DisplayName)
		assert.JSONEq(t, `{"type":"object","properties":{}}`, string(tl.ArgSchema))
	}
	assert.Equal(t, stored, got)
	assert.Zero(t, failures, "a put right after the connections were dropped runs again on a new one")

	kill()
	key := catalogue.ToolKey{BundleID: id, Slug: "t0", Version: "1"}
	require.NoError(t, s.DeleteTool(ctx, key), "a delete right after the connections were dropped")
	_, err = s.GetTool(ctx, key)
	require.ErrorIs(t, err, catalogue.ErrNotFound)
	require.ErrorIs(t, s.DeleteTool(ctx, key), catalogue.ErrNotFound, "deleted once")

	empty := dueForReaping(t, s, s, &clock)
	kill()
	reaped, err := s.ReapDeleted(ctx)
	require.NoError(t, err, "a reap right after the connections were dropped")
	assert.Equal(t, []uuid.UUID{empty}, reaped)
	_, err = s.GetBundle(ctx, empty)
	require.ErrorIs(t, err, catalogue.ErrNotFound)
}

// A write whose COMMIT reached the database but whose answer was lost is
// reported as what it was: a bundle or tool version stored is a success
// (not a failure whose retry then meets a conflict), and a usage flush is
// not added a second time by the next one.
func TestFault_CommitAnswerLostIsSettled(t *testing.T) {
	dsn := pgtest.DSN(t)
	outage, via := pgtest.NewOutage(t, dsn)
	s := open(t, via, pgtest.FreshSchema(t, dsn), nil)
	defer s.Close()
	ctx := context.Background()
	id, err := catalogue.NewID()
	require.NoError(t, err)

	outage.CutNextCommit()
	_, created, err := s.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "web", DisplayName: "Web", IsEnabled: true})
	require.NoError(t, err)
	assert.True(t, created)
	_, err = s.GetBundle(ctx, id)
	require.NoError(t, err)

	key := catalogue.ToolKey{BundleID: id, Slug: "echo", Version: "1"}
	spec := catalogue.ToolSpec{DisplayName: "Echo", Description: "Echoes.", IsEnabled: true, Type: catalogue.TypeGo,
		ArgSchema: json.RawMessage(`{"type":"object","properties":{}}`), GoImpl: &catalogue.GoImpl{Func: "echo"}}
	outage.CutNextCommit()
	_, err = s.PutTool(ctx, key, spec)
	require.NoError(t, err, "stored, so not a failure")
	_, err = s.PutTool(ctx, key, spec)
	require.ErrorIs(t, err, catalogue.ErrConflict, "and stored once")

	for range 5 {
		require.NoError(t, s.RecordUsage(ctx, key, time.Now()))
	}
	outage.CutNextCommit()
	require.NoError(t, s.Flush(ctx))
	require.NoError(t, s.Flush(ctx))
	tool, err := s.GetTool(ctx, key)
	require.NoError(t, err)
	assert.EqualValues(t, 5, tool.CallCount, "the settled flush's counts are not added again")
}

// The database going away: reads and writes fail with an error that is
// catalogue.ErrUnavailable (the API answers 503 with Retry-After, not
// 500), never not-found or conflict; once it is back the store serves
// again without being reopened.
func TestFault_DatabaseAwayIsUnavailable(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	outage, via := pgtest.NewOutage(t, dsn)
	s := open(t, via, schema, nil)
	defer s.Close()
	ctx := context.Background()
	id, err := catalogue.NewID()
	require.NoError(t, err)
	_, _, err = s.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "web", DisplayName: "Web", IsEnabled: true})
	require.NoError(t, err)

	outage.Down()
	_, err = s.GetBundle(ctx, id)
	require.ErrorIs(t, err, catalogue.ErrUnavailable, "a read")
	assert.NotErrorIs(t, err, catalogue.ErrNotFound)
	_, err = s.ListBundles(ctx, catalogue.BundleQuery{})
	require.ErrorIs(t, err, catalogue.ErrUnavailable, "a listing")
	_, _, err = s.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "web", DisplayName: "Web 2", IsEnabled: true})
	require.ErrorIs(t, err, catalogue.ErrUnavailable, "a write")
	assert.NotErrorIs(t, err, catalogue.ErrConflict)
	_, err = s.ReapDeleted(ctx)
	require.ErrorIs(t, err, catalogue.ErrUnavailable, "a reap")

	outage.Up()
	b, err := s.GetBundle(ctx, id)
	require.NoError(t, err, "the database is back")
	assert.Equal(t, "Web", b.DisplayName, "the write made while it was away did not happen")
}

// A writer killed with SIGKILL in the middle of importing a bundle of
// 2,000 tools leaves the bundle wholly there or not at all.
func TestFault_KilledWriterLeavesNoPartialRecord(t *testing.T) {
	dsn := pgtest.DSN(t)
	if os.Getenv("PGSTORE_TEST_IMPORTER") != "" {
		return // the child: see importChild
	}
	schema := pgtest.FreshSchema(t, dsn)
	s := open(t, dsn, schema, nil) // migrate before the child starts
	defer s.Close()
	// Killed as the import starts, a moment into it, and long after it
	// committed.
	for round, wait := range []time.Duration{0, 40 * time.Millisecond, 10 * time.Second} {
		id, err := catalogue.NewID()
		require.NoError(t, err)
		cmd := pgtest.StartWriter(t, "TestImportChild", "PGSTORE_TEST_IMPORTER="+schema+":"+id.String(), "importing now")
		if wait == 10*time.Second {
			// Until the import is there (or the wait is over).
			require.Eventually(t, func() bool { _, err := s.GetBundle(context.Background(), id); return err == nil }, wait, 20*time.Millisecond)
		} else {
			time.Sleep(wait)
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		ctx := context.Background()
		_, err = s.GetBundle(ctx, id)
		if errors.Is(err, catalogue.ErrNotFound) {
			tools, err := s.ListTools(ctx, catalogue.ToolQuery{BundleIDs: []uuid.UUID{id}, IncludeDisabled: true, IncludeDeleted: true})
			require.NoError(t, err)
			assert.Empty(t, tools, "round %d: no tool of a bundle that is not there", round)
			t.Logf("round %d: killed after %s: nothing stored", round, wait)
			continue
		}
		require.NoError(t, err)
		tools, err := s.ListTools(ctx, catalogue.ToolQuery{BundleIDs: []uuid.UUID{id}, IncludeDisabled: true, IncludeDeleted: true})
		require.NoError(t, err)
		assert.Len(t, tools, 2000, "round %d: the bundle is there whole", round)
		t.Logf("round %d: killed after %s: the import had committed", round, wait)
	}
}

// TestImportChild is the writer of TestFault_KilledWriterLeavesNoPartialRecord;
// it does nothing unless PGSTORE_TEST_IMPORTER is set.
func TestImportChild(t *testing.T) {
	v := os.Getenv("PGSTORE_TEST_IMPORTER")
	if v == "" {
		t.Skip("run by TestFault_KilledWriterLeavesNoPartialRecord")
	}
	schema, idText, _ := strings.Cut(v, ":")
	id := uuid.MustParse(idText)
	s := open(t, pgtest.DSN(t), schema, nil)
	now := time.Now().UTC().Truncate(time.Microsecond)
	b := catalogue.Bundle{ID: id, BundleSpec: catalogue.BundleSpec{Slug: "big", DisplayName: "Big", IsEnabled: true}, CreatedAt: now, ModifiedAt: now}
	var tools []catalogue.Tool
	for i := range 2000 {
		tid, err := catalogue.NewID()
		require.NoError(t, err)
		tools = append(tools, catalogue.Tool{ID: tid, BundleID: id, Slug: fmt.Sprintf("t%d", i), Version: "1", CreatedAt: now, ModifiedAt: now,
			ToolSpec: catalogue.ToolSpec{DisplayName: "T", Description: strings.Repeat("d", 2000), IsEnabled: true, Type: catalogue.TypeGo,
				ArgSchema: json.RawMessage(`{"type":"object","properties":{}}`), GoImpl: &catalogue.GoImpl{Func: "echo"}}})
	}
	fmt.Println("importing now")
	_ = s.ImportBundle(context.Background(), b, tools)
	time.Sleep(time.Hour) // killed before this ends
}

// holdBundleLock holds, until the test ends, the lock a new bundle of
// schema's catalogue takes to count the bundles.
func holdBundleLock(t *testing.T, dsn, schema string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close(context.Background()) }) // ends the lock
	tx, err := conn.Begin(context.Background())
	require.NoError(t, err)
	_, err = tx.Exec(context.Background(), `SELECT pg_advisory_xact_lock(hashtextextended('toolpack.catalogue.bundles:' || $1, 0))`, schema)
	require.NoError(t, err)
}

// A call whose context ends while the server runs its statement fails with
// an error that matches the context's (errors.Is), even when the server
// answers pgx's cancel request with its own "canceling statement" (57014),
// and never with ErrUnavailable: the caller gave up, the database is fine.
func TestCancelledCallMatchesItsContext(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	s := open(t, dsn, schema, nil)
	defer s.Close()
	// Another session holds the lock a new bundle takes to count the
	// bundles, so PutBundle waits in the server until cancelled.
	holdBundleLock(t, dsn, schema)

	for _, end := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"cancelled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(150*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 150*time.Millisecond)
		}, context.DeadlineExceeded},
	} {
		ctx, cancel := end.ctx()
		id, err := catalogue.NewID()
		require.NoError(t, err)
		_, _, err = s.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "s" + id.String()[:8], DisplayName: "S", IsEnabled: true})
		cancel()
		require.Error(t, err, end.name)
		assert.ErrorIs(t, err, end.want, end.name)
		assert.NotErrorIs(t, err, catalogue.ErrUnavailable, end.name)
	}
}

// MaxBundles and MaxToolsPerBundle hold across hosts: two hosts creating
// bundles (or tool versions in one bundle) at once on one schema store
// exactly the cap between them, every other put failing with ErrLimit. The count's lock is the schema's: a catalogue in another
// schema of the database creates bundles while it is held.
func TestLimits_HeldAcrossHosts(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	const most = 5
	hosts := func(o pgstore.Options) []*pgstore.Store {
		out := make([]*pgstore.Store, 2)
		for i := range out {
			o.Schema, o.ReapInterval, o.Logger, o.MaxConns = schema, -1, slog.New(slog.DiscardHandler), 4
			s, err := pgstore.Open(context.Background(), dsn, o)
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Close() })
			out[i] = s
		}
		return out
	}
	// atOnce runs put six times on each host, all at once, and counts the
	// puts stored and those refused with ErrLimit; any other error fails.
	atOnce := func(hs []*pgstore.Store, put func(s *pgstore.Store, name string) error) (stored, refused int32) {
		var ok, limited atomic.Int32
		var wg sync.WaitGroup
		for h, s := range hs {
			for k := range 6 {
				wg.Go(func() {
					switch err := put(s, fmt.Sprintf("h%d-%d", h, k)); {
					case err == nil:
						ok.Add(1)
					case errors.Is(err, catalogue.ErrLimit):
						limited.Add(1)
					default:
						t.Errorf("host %d, put %d: %v", h, k, err)
					}
				})
			}
		}
		wg.Wait()
		return ok.Load(), limited.Load()
	}

	stored, refused := atOnce(hosts(pgstore.Options{MaxBundles: most}), func(s *pgstore.Store, name string) error {
		id, err := catalogue.NewID()
		if err != nil {
			return err
		}
		_, _, err = s.PutBundle(context.Background(), id, catalogue.BundleSpec{Slug: name, DisplayName: "B", IsEnabled: true})
		return err
	})
	assert.Equal(t, int32(most), stored, "bundles stored")
	assert.Equal(t, int32(12-most), refused)
	tight := hosts(pgstore.Options{MaxToolsPerBundle: most})
	all, err := tight[0].ListBundles(context.Background(), catalogue.BundleQuery{IncludeDisabled: true, IncludeDeleted: true})
	require.NoError(t, err)
	assert.Len(t, all, most)

	// MaxToolsPerBundle likewise, for tool versions put into one bundle.
	spec := catalogue.ToolSpec{DisplayName: "Echo", Description: "Echoes.", IsEnabled: true, Type: catalogue.TypeGo,
		ArgSchema: json.RawMessage(`{"type":"object","properties":{}}`), GoImpl: &catalogue.GoImpl{Func: "echo"}}
	stored, refused = atOnce(tight, func(s *pgstore.Store, name string) error {
		_, err := s.PutTool(context.Background(), catalogue.ToolKey{BundleID: all[0].ID, Slug: name, Version: "1"}, spec)
		return err
	})
	assert.Equal(t, int32(most), stored, "tool versions stored in one bundle")
	assert.Equal(t, int32(12-most), refused)

	// Another schema's catalogue does not wait for this one's lock.
	holdBundleLock(t, dsn, schema)
	other := open(t, dsn, pgtest.FreshSchema(t, dsn), nil)
	defer other.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id, err := catalogue.NewID()
	require.NoError(t, err)
	_, _, err = other.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "elsewhere", DisplayName: "E", IsEnabled: true})
	require.NoError(t, err, "a catalogue in another schema waited for this one's lock")
}

func newID(t *testing.T) uuid.UUID {
	t.Helper()
	id, err := catalogue.NewID()
	require.NoError(t, err)
	return id
}

// Built-ins over the PostgreSQL store keep their overlay in the database
// (catalogue.BuiltInsKeeper), not in a host's files: a built-in switched
// off through one host is off on another that shares no directory with
// it (its Watch reports the switch), usage counts of built-ins from every
// host add up, and a host started later reads them all.
func TestBuiltIns_SharedThroughTheDatabase(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bundle := newID(t)
	decl := []catalogue.BuiltInBundle{{ID: bundle, Spec: catalogue.BundleSpec{Slug: "math", DisplayName: "Math", IsEnabled: true},
		Tools: []catalogue.BuiltInTool{{Slug: "add", Version: "1", Spec: catalogue.ToolSpec{DisplayName: "Add", Description: "Adds.", IsEnabled: true,
			Type: catalogue.TypeGo, ArgSchema: json.RawMessage(`{"type":"object","properties":{}}`), GoImpl: &catalogue.GoImpl{Func: "add"}}}}}}
	host := func() *catalogue.BuiltInStore {
		s, err := catalogue.WithBuiltIns(ctx, open(t, dsn, schema, nil), catalogue.BuiltInOptions{Bundles: decl,
			Logger: slog.New(slog.DiscardHandler), FlushInterval: 20 * time.Millisecond, WatchInterval: 50 * time.Millisecond})
		require.NoError(t, err, "no overlay directory is needed")
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	a, b := host(), host()
	calls := make(chan []uuid.UUID, 16)
	go func() { _ = b.WatchBundles(ctx, func(ids []uuid.UUID) { calls <- ids }) }()

	_, err := a.SetBundleEnabled(ctx, bundle, false)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		for {
			select {
			case ids := <-calls:
				if slices.Contains(ids, bundle) {
					return true
				}
			default:
				return false
			}
		}
	}, 5*time.Second, 20*time.Millisecond, "the other host's watch reports the switch")
	got, err := b.GetBundle(ctx, bundle)
	require.NoError(t, err)
	assert.False(t, got.IsEnabled, "switched off on the other host")
	_, err = b.SetBundleEnabled(ctx, bundle, true)
	require.NoError(t, err)

	key := catalogue.ToolKey{BundleID: bundle, Slug: "add", Version: "1"}
	for range 3 {
		require.NoError(t, a.RecordUsage(ctx, key, time.Now()))
		require.NoError(t, b.RecordUsage(ctx, key, time.Now()))
	}
	require.NoError(t, a.Close())
	require.NoError(t, b.Close())
	c := host()
	tool, err := c.GetTool(ctx, key)
	require.NoError(t, err)
	assert.True(t, tool.IsEnabled, "the last switch holds")
	assert.EqualValues(t, 6, tool.CallCount, "every host's counts add up")
	assert.Equal(t, got.CreatedAt, tool.CreatedAt, "first served when the first host started (bundle and tool at once), for every host")
}

// Hosts putting the same new bundle at once: one creates it and the
// others replace it, as a PUT of an existing bundle does — never a
// conflict (which said a tool's slug and version were taken).
func TestTwoHosts_SameNewBundlePutAtOnce(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	a, b := open(t, dsn, schema, time.Now), open(t, dsn, schema, time.Now)
	defer a.Close()
	defer b.Close()
	ctx := context.Background()
	for round := range 20 {
		id, err := catalogue.NewID()
		require.NoError(t, err)
		var wg sync.WaitGroup
		var created atomic.Int32
		start := make(chan struct{})
		for i := range 4 {
			st := []*pgstore.Store{a, b}[i%2]
			wg.Go(func() {
				<-start
				_, c, err := st.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "bx", DisplayName: "B", IsEnabled: true, Description: "d"})
				assert.NoError(t, err, "round %d", round)
				if c {
					created.Add(1)
				}
			})
		}
		close(start)
		wg.Wait()
		assert.EqualValues(t, 1, created.Load(), "round %d: created once", round)
	}

	// At the bundle cap, the PUTs that find the bundle made by another
	// meanwhile replace it rather than count it as one too many.
	for round := range 5 {
		full := pgtest.FreshSchema(t, dsn)
		capped := make([]*pgstore.Store, 2)
		for i := range capped {
			st, err := pgstore.Open(ctx, dsn, pgstore.Options{Schema: full, Logger: slog.New(slog.DiscardHandler), MaxBundles: 1, ReapInterval: -1})
			require.NoError(t, err)
			defer st.Close()
			capped[i] = st
		}
		id, err := catalogue.NewID()
		require.NoError(t, err)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range 4 {
			wg.Go(func() {
				<-start
				_, _, err := capped[i%2].PutBundle(ctx, id, catalogue.BundleSpec{Slug: "bx", DisplayName: "B", IsEnabled: true, Description: "d"})
				assert.NoError(t, err, "round %d", round)
			})
		}
		close(start)
		wg.Wait()
	}
}

// Hosts flushing the usage counts of the same tools at once never
// deadlock (the rows are updated in one order), and every count is kept.
func TestTwoHosts_UsageFlushesAtOnceDoNotDeadlock(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	a, b := open(t, dsn, schema, time.Now), open(t, dsn, schema, time.Now)
	defer a.Close()
	defer b.Close()
	ctx := context.Background()
	id, err := catalogue.NewID()
	require.NoError(t, err)
	_, _, err = a.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "m", DisplayName: "M", IsEnabled: true, Description: "d"})
	require.NoError(t, err)
	var keys []catalogue.ToolKey
	for i := range 200 {
		k := catalogue.ToolKey{BundleID: id, Slug: fmt.Sprintf("t%03d", i), Version: "1"}
		_, err := a.PutTool(ctx, k, catalogue.ToolSpec{DisplayName: "T", IsEnabled: true, Type: catalogue.TypeGo,
			ArgSchema: json.RawMessage(`{"type":"object"}`), GoImpl: &catalogue.GoImpl{Func: "add"}})
		require.NoError(t, err)
		keys = append(keys, k)
	}
	const rounds = 10
	for range rounds {
		for _, k := range keys {
			require.NoError(t, a.RecordUsage(ctx, k, time.Now()))
			require.NoError(t, b.RecordUsage(ctx, k, time.Now()))
		}
		var wg sync.WaitGroup
		for _, st := range []*pgstore.Store{a, b} {
			wg.Go(func() { assert.NoError(t, st.Flush(ctx)) })
		}
		wg.Wait()
	}
	for _, k := range keys[:5] {
		got, err := b.GetTool(ctx, k)
		require.NoError(t, err)
		assert.EqualValues(t, 2*rounds, got.CallCount, k.Slug)
	}
}

// The audit's hosts on one database: H1 and H2 with a built-in bundle, H3
// without. Once a host with the built-in has started, H3 can neither PUT
// nor import a bundle with its id, nor put tools under it. A bundle H3
// made under the id before any host with the built-in started (the
// audit's repro) no longer stops H1 and H2 from starting, and each lists
// one bundle with that id, the built-in, with the built-in's tools alone.
func TestBuiltIns_IDReservedAcrossHosts(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	builtin := newID(t)
	spec := catalogue.ToolSpec{DisplayName: "Add", Description: "Adds.", IsEnabled: true, Type: catalogue.TypeGo,
		ArgSchema: json.RawMessage(`{"type":"object","properties":{}}`), GoImpl: &catalogue.GoImpl{Func: "add"}}
	decl := []catalogue.BuiltInBundle{{ID: builtin, Spec: catalogue.BundleSpec{Slug: "examples", DisplayName: "Examples", IsEnabled: true},
		Tools: []catalogue.BuiltInTool{{Slug: "add", Version: "1", Spec: spec}}}}
	host := func(schema string, bundles []catalogue.BuiltInBundle) *catalogue.BuiltInStore {
		t.Helper()
		s, err := catalogue.WithBuiltIns(ctx, open(t, dsn, schema, nil), catalogue.BuiltInOptions{Bundles: bundles,
			Logger: slog.New(slog.DiscardHandler), FlushInterval: time.Hour})
		require.NoError(t, err, "the host starts")
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	hijack := catalogue.BundleSpec{Slug: "hijack", DisplayName: "H", IsEnabled: true}

	t.Run("reserved", func(t *testing.T) {
		schema := pgtest.FreshSchema(t, dsn)
		host(schema, decl)
		h3 := host(schema, nil)
		_, _, err := h3.PutBundle(ctx, builtin, hijack)
		assert.ErrorIs(t, err, catalogue.ErrBuiltIn)
		_, err = h3.PutTool(ctx, catalogue.ToolKey{BundleID: builtin, Slug: "add", Version: "1"}, spec)
		assert.ErrorIs(t, err, catalogue.ErrBuiltIn)
		now := time.Now()
		assert.ErrorIs(t, h3.ImportBundle(ctx, catalogue.Bundle{ID: builtin, BundleSpec: hijack, CreatedAt: now, ModifiedAt: now}, nil),
			catalogue.ErrBundleExists)
	})

	t.Run("taken before any host with the built-in started", func(t *testing.T) {
		schema := pgtest.FreshSchema(t, dsn)
		h3 := host(schema, nil)
		_, _, err := h3.PutBundle(ctx, builtin, hijack)
		require.NoError(t, err)
		_, err = h3.PutTool(ctx, catalogue.ToolKey{BundleID: builtin, Slug: "add", Version: "1"}, spec)
		require.NoError(t, err)
		for _, h := range []*catalogue.BuiltInStore{host(schema, decl), host(schema, decl)} { // H1, H2 (a restart alike)
			bs, err := h.ListBundles(ctx, catalogue.BundleQuery{IncludeDisabled: true, IncludeDeleted: true})
			require.NoError(t, err)
			require.Len(t, bs, 1, "one bundle with the id")
			assert.True(t, bs[0].BuiltIn)
			assert.Equal(t, "examples", bs[0].Slug)
			tools, err := h.ListTools(ctx, catalogue.ToolQuery{IncludeDisabled: true})
			require.NoError(t, err)
			require.Len(t, tools, 1, "one add@1: the built-in's")
			assert.True(t, tools[0].BuiltIn)
		}
	})
}

// A tool the database holds from before the write rule of
// catalogue.ToolSpec.CheckCredentials, with a literal credential in a
// header, still loads, is listed and read back whole; writing it again is
// refused.
func TestStoredLiteralCredentialStillLoads(t *testing.T) {
	const literal = "S3CR3T-literal-HDR"
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	ctx := context.Background()
	s := open(t, dsn, schema, nil)
	defer s.Close()
	bid := newID(t)
	_, _, err := s.PutBundle(ctx, bid, catalogue.BundleSpec{Slug: "old", DisplayName: "Old", IsEnabled: true})
	require.NoError(t, err)
	key := catalogue.ToolKey{BundleID: bid, Slug: "lit", Version: "1.1"}
	_, err = s.PutTool(ctx, key, catalogue.ToolSpec{DisplayName: "Lit", IsEnabled: true, Type: catalogue.TypeHTTP,
		ArgSchema: json.RawMessage(`{"type":"object","properties":{}}`),
		HTTPImpl: &catalogue.HTTPImpl{Request: catalogue.HTTPRequest{Method: "GET", URLTemplate: "https://api.example.test/x",
			Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}}}})
	require.NoError(t, err)

	// What an older version wrote: the literal in the tool's spec.
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	tag, err := conn.Exec(ctx, `UPDATE `+pgx.Identifier{schema, "catalogue_tools"}.Sanitize()+` SET spec = replace(spec::text, 'Bearer ${TOKEN}', $1)::json WHERE slug = 'lit'`, "Bearer "+literal)
	require.NoError(t, err)
	require.EqualValues(t, 1, tag.RowsAffected())

	other := open(t, dsn, schema, nil) // no cache of the old record
	defer other.Close()
	got, err := other.GetTool(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, "Bearer "+literal, got.HTTPImpl.Request.Headers["Authorization"])
	list, err := other.ListTools(ctx, catalogue.ToolQuery{BundleIDs: []uuid.UUID{bid}})
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, got, list[0])
	_, err = other.PutTool(ctx, catalogue.ToolKey{BundleID: bid, Slug: "lit", Version: "1.2"}, got.ToolSpec)
	require.ErrorIs(t, err, catalogue.ErrInvalid)
	assert.NotContains(t, err.Error(), literal)
}

// A negative Options.FeedCheck is refused naming the field, before any
// connection is made, not silently taken for DefaultFeedCheck.
func TestOpen_NegativeFeedCheckRefused(t *testing.T) {
	_, err := pgstore.Open(t.Context(), "postgres://127.0.0.1:1/none", pgstore.Options{FeedCheck: -time.Second})
	require.EqualError(t, err, "pgstore: Options.FeedCheck is -1s; expected zero (DefaultFeedCheck) or a positive duration")
}
