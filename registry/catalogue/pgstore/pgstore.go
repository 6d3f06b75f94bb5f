// Package pgstore is a catalogue.Store on PostgreSQL (pgx), for several
// hosts sharing one catalogue. It passes the same conformance suite as the
// file store (package storetest).
//
//	s, err := pgstore.Open(ctx, os.Getenv("CATALOGUE_DSN"), pgstore.Options{})
//	defer s.Close()
//
// Open applies the schema migrations embedded in the binary (with
// jackc/tern, under PostgreSQL's advisory lock, so hosts starting together
// migrate once) in Options.Schema, created if absent.
//
// Integrity is the database's: <slug, version> is unique in a bundle by
// the tools table's primary key, a tool id unique in its bundle (not
// across bundles, as in the file store: a copy of a bundle keeps its
// tools' ids) by a unique constraint, and every write is one statement or one
// transaction, so a host dying mid-call leaves either the whole record or
// nothing. A write whose connection is lost before its COMMIT was sent
// runs once more on a new connection (the server rolled it back); one
// whose COMMIT reached the database but whose answer was lost is settled
// by asking the database whether it committed, so that the caller is told
// what happened (a tool version stored is not reported as failed, and
// usage counts are not added twice). Tools are listed by bundle id, then
// slug and version compared byte by byte, and a page cursor is a row
// comparison on that key, so pages never skip or repeat a tool however the
// data changes. The reaper removes due bundles in one statement, safe when
// every host runs it.
//
// Several hosts, one catalogue: every write notifies the others through
// PostgreSQL's LISTEN/NOTIFY, and Store.Watch calls a host back when
// another host changed the catalogue (and once more after a lost
// connection, for a full resync) — what cataloguehost.Catalogue.Sync and
// searchindex's Resync need to keep a registry in step. Each notification
// names the bundles the change touched, and Store.WatchBundles passes them
// on, so that a host re-reads only those (SyncBundles, ResyncBundles): with
// 100,000 tools, a tool one host puts is served by another in a fifth of a
// second rather than three to four. The store also keeps the built-ins
// overlay (catalogue.BuiltInsKeeper: the switches, first-served times and
// usage counts of the hosts' built-in bundles and tools) in the database,
// so that catalogue.WithBuiltIns over it needs no directory and every
// host sees the same built-ins, and reserves the built-in bundles' ids
// (catalogue.BuiltInReserver: a read-only row without tools each), so
// that a host started without them cannot take one.
//
// Usage counts are buffered in memory (RecordUsage never waits for the
// database) and added to the stored counts by a periodic flush — an
// increment, so the counts of every host add up. Reads through the same
// Store see its buffered counts at once.
//
// While the database cannot be reached, every error is
// catalogue.ErrUnavailable (errors.Is): the catalogue API answers 503 with
// Retry-After, the registry keeps serving the tools it has, and nothing
// has to be reopened when the database is back. A statement the database
// did not answer in time — ended at its statement or lock timeout (busy,
// a lock held elsewhere), or unanswered past the pool's own deadline — is
// also catalogue.ErrTimeout, so that the API says the database is busy
// rather than that it cannot be reached.
//
// The DSN is never logged or put in an error.
package pgstore

import (
	"cmp"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolpack-go/toolpack/internal/pgpool"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Options configures Open. The zero value is ready to use.
type Options struct {
	// Schema holds the catalogue's tables; "" means "toolpack". It is
	// created when absent.
	Schema string
	// Now is the store's clock (timestamps, the reaper); nil means
	// time.Now.
	Now func() time.Time
	// Logger receives failed background work; nil means slog.Default().
	Logger *slog.Logger
	// FlushInterval is how often buffered usage counts are written; zero
	// means one second, negative only at Flush and Close.
	FlushInterval time.Duration
	// ReapInterval is how often the reaper runs; zero means one hour,
	// negative never (call ReapDeleted yourself).
	ReapInterval time.Duration
	// MaxToolsPerBundle caps the tool versions of one bundle (ErrLimit
	// beyond it); zero means catalogue.DefaultMaxToolsPerBundle, negative
	// no cap.
	MaxToolsPerBundle int
	// MaxBundles caps the bundles, soft-deleted ones included until
	// reaped; zero means catalogue.DefaultMaxBundles, negative no cap.
	MaxBundles int
	// MaxConns caps the connection pool; zero means pgxpool's default.
	// Open refuses a negative one, naming it.
	MaxConns int32
	// StatementTimeout bounds every statement; zero means the DSN's
	// statement_timeout when it sets one, else 30 seconds. Open refuses
	// a negative one or one under a millisecond, naming it.
	StatementTimeout time.Duration
	// FeedCheck is how long Watch's connection may stay quiet before it
	// is asked to answer (within FeedCheck, at most 5 s); zero means
	// DefaultFeedCheck, negative is refused. A connection whose other end went away without a
	// word is found dead so, and Watch reconnects and resyncs: TCP's
	// keep-alive probes (about 30 s) cannot tell when something in between
	// still answers them, such as a proxy whose database is gone, and
	// the host would stay deaf to the others' changes for good.
	FeedCheck time.Duration
}

// DefaultFeedCheck is Options.FeedCheck's zero value.
const DefaultFeedCheck = 30 * time.Second

// feedAnswer bounds the wait for a quiet feed connection's answer.
const feedAnswer = 5 * time.Second

// Store is the PostgreSQL catalogue store.
type Store struct {
	pool      *pgxpool.Pool
	connCfg   *pgx.ConnConfig // for the LISTEN connection of Watch
	channel   string          // the NOTIFY channel of this schema's catalogue
	instance  string          // this Store's id, the payload of its notifications
	now       func() time.Time
	log       *slog.Logger
	feedCheck time.Duration // Options.FeedCheck
	maxTools  int
	maxBundle int

	usage catalogue.UsageBuffer
	// flushMu: Flush holds it to move counts from the buffer to the
	// database; readers hold it shared from their read to adding the
	// buffered counts, so that no count is seen twice or not at all.
	flushMu sync.RWMutex

	closed    atomic.Bool
	maint     *catalogue.Maintenance
	closeOnce sync.Once
	closeErr  error
}

var _ catalogue.Store = (*Store)(nil)

// Open connects to the database named by dsn (a PostgreSQL URL or
// key=value string), applies the migrations and starts the background
// flush and reaper. A database that cannot be reached is
// catalogue.ErrUnavailable; a refused login or a failing migration is not.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	if opts.FeedCheck < 0 {
		return nil, fmt.Errorf("pgstore: Options.FeedCheck is %s; expected zero (DefaultFeedCheck) or a positive duration", opts.FeedCheck)
	}
	if opts.Schema == "" {
		opts.Schema = pgpool.DefaultSchema
	}
	pool, err := pgpool.Open(ctx, "pgstore", pgpool.Config{DSN: dsn, Schema: opts.Schema, MaxConns: opts.MaxConns, StatementTimeout: opts.StatementTimeout})
	if err != nil {
		return nil, classify(ctx, err)
	}
	inst, err := uuid.NewRandom()
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: instance id: %w", err)
	}
	s := &Store{pool: pool, connCfg: pool.Config().ConnConfig.Copy(), channel: channelOf(opts.Schema), instance: inst.String(),
		now: opts.Now, log: opts.Logger}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.feedCheck = cmp.Or(opts.FeedCheck, DefaultFeedCheck)
	s.maxTools, s.maxBundle = orDefault(opts.MaxToolsPerBundle, catalogue.DefaultMaxToolsPerBundle), orDefault(opts.MaxBundles, catalogue.DefaultMaxBundles)
	if err := pgpool.Migrate(ctx, "pgstore", pool, opts.Schema, "catalogue_schema_version", migrations, "migrations"); err != nil {
		pool.Close()
		return nil, classify(ctx, err)
	}
	s.maint = catalogue.StartMaintenance(opts.FlushInterval, opts.ReapInterval, s.Flush, s.ReapDeleted, s.log)
	return s, nil
}

// channelOf is the NOTIFY channel of schema's catalogue:
// toolpack_catalogue_{schema}, or for a schema too long for that to fit
// PostgreSQL's 63-byte names (pg_notify refuses a longer one; LISTEN
// would cut it), toolpack_catalogue_ and 32 hexadecimal digits of the
// schema's SHA-256.
func channelOf(schema string) string {
	const prefix = "toolpack_catalogue_"
	if len(prefix)+len(schema) <= 63 {
		return prefix + schema
	}
	sum := sha256.Sum256([]byte(schema))
	return prefix + hex.EncodeToString(sum[:16])
}

func orDefault(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

func (s *Store) checkOpen() error {
	if s.closed.Load() {
		return catalogue.ErrClosed
	}
	return nil
}

// Ping reports whether the database answers now: nil, or an error that is
// catalogue.ErrUnavailable when it cannot be reached. A host's health
// check calls it.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := pgpool.Ping(ctx, s.pool); err != nil {
		return fmt.Errorf("pgstore: ping: %w", classify(ctx, err))
	}
	return nil
}

// stamp is the store's time, as stored (UTC, microseconds).
func (s *Store) stamp() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// dbErr maps the database's refusals to the catalogue's errors; ctx is
// the call's, so that a call that ended with it matches ctx.Err() and is
// never taken for the database being away.
func dbErr(ctx context.Context, err error, what string) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505": // unique_violation
			return fmt.Errorf("%s: %w", what, catalogue.ErrConflict)
		case "23503": // foreign_key_violation
			return fmt.Errorf("%s: %w", what, catalogue.ErrNotFound)
		}
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%s: %w", what, catalogue.ErrNotFound)
	}
	return fmt.Errorf("pgstore: %s: %w", what, classify(ctx, err))
}

// bundleCols are the columns a bundle is written to; selectBundle reads
// them back (a slug_since of a row written before it was kept reads as
// the time of the bundle's id, catalogue.IDTime: not created_at, which an
// import takes from its archive, while the plain registry name went to
// the smallest id).
const (
	bundleCols   = `id, slug, display_name, description, is_enabled, built_in, created_at, modified_at, soft_deleted_at, slug_since`
	selectBundle = `SELECT ` + bundleCols + ` FROM catalogue_bundles`
)

func scanBundle(row pgx.Row) (catalogue.Bundle, error) {
	var b catalogue.Bundle
	var slugSince *time.Time
	err := row.Scan(&b.ID, &b.Slug, &b.DisplayName, &b.Description, &b.IsEnabled, &b.BuiltIn, &b.CreatedAt, &b.ModifiedAt, &b.SoftDeletedAt, &slugSince)
	if slugSince != nil {
		b.SlugSince = *slugSince
	} else {
		b.SlugSince = catalogue.IDTime(b.ID)
	}
	b.CreatedAt, b.ModifiedAt, b.SlugSince = b.CreatedAt.UTC(), b.ModifiedAt.UTC(), b.SlugSince.UTC()
	if b.SoftDeletedAt != nil {
		t := b.SoftDeletedAt.UTC()
		b.SoftDeletedAt = &t
	}
	return b, err
}

const toolCols = `id, bundle_id, slug, version, spec, built_in, created_at, modified_at, last_called_at, call_count`

func scanTool(row pgx.Row) (catalogue.Tool, error) {
	var t catalogue.Tool
	var spec []byte
	if err := row.Scan(&t.ID, &t.BundleID, &t.Slug, &t.Version, &spec, &t.BuiltIn, &t.CreatedAt, &t.ModifiedAt, &t.LastCalledAt, &t.CallCount); err != nil {
		return t, err
	}
	if err := json.Unmarshal(spec, &t.ToolSpec); err != nil {
		return t, fmt.Errorf("tool %s@%s: %w: %v", t.Slug, t.Version, catalogue.ErrCorrupt, err)
	}
	t.CreatedAt, t.ModifiedAt = t.CreatedAt.UTC(), t.ModifiedAt.UTC()
	if t.LastCalledAt != nil {
		l := t.LastCalledAt.UTC()
		t.LastCalledAt = &l
	}
	return t, nil
}

// notify tells the hosts watching this catalogue (Watch, WatchBundles)
// that it changed, and which bundles the change touched (notifyPayload);
// inside a transaction the notification is sent at commit, and not at
// all on rollback.
func (s *Store) notify(ctx context.Context, q interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}, bundles ...uuid.UUID) error {
	_, err := q.Exec(ctx, `SELECT pg_notify($1, $2)`, s.channel, notifyPayload(s.instance, bundles))
	return err
}

// PutBundle implements catalogue.Store.
func (s *Store) PutBundle(ctx context.Context, id uuid.UUID, spec catalogue.BundleSpec) (catalogue.Bundle, bool, error) {
	if err := s.checkOpen(); err != nil {
		return catalogue.Bundle{}, false, err
	}
	if err := catalogue.CheckBundlePut(id, spec); err != nil {
		return catalogue.Bundle{}, false, err
	}
	var out catalogue.Bundle
	created := false
	err := pgpool.TxSettled(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		now := s.stamp()
		b, err := scanBundle(tx.QueryRow(ctx, selectBundle+` WHERE id = $1 FOR UPDATE`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			if err := s.reserveBundle(ctx, tx, id); err != nil {
				return err
			}
			tag, ierr := tx.Exec(ctx, `INSERT INTO catalogue_bundles (`+bundleCols+`) VALUES ($1, $2, $3, $4, $5, false, $6, $6, NULL, $6)
				ON CONFLICT (id) DO NOTHING`,
				id, spec.Slug, spec.DisplayName, spec.Description, spec.IsEnabled, now)
			if ierr != nil {
				return ierr
			}
			if tag.RowsAffected() == 1 {
				out, created = catalogue.Bundle{ID: id, BundleSpec: spec, CreatedAt: now, ModifiedAt: now, SlugSince: now}, true
				return s.notify(ctx, tx, id)
			}
			// Made by a PUT of the same id that committed meanwhile (the
			// lock above had no row to take): this PUT replaces it, as a
			// PUT of an existing bundle does, instead of failing on the key.
			b, err = scanBundle(tx.QueryRow(ctx, selectBundle+` WHERE id = $1 FOR UPDATE`, id))
		}
		switch {
		case err != nil:
			return err
		case b.SoftDeletedAt != nil:
			return fmt.Errorf("bundle %s: %w", id, catalogue.ErrBundleDeleted)
		case b.BuiltIn:
			return fmt.Errorf("bundle %s: %w", id, catalogue.ErrBuiltIn)
		}
		if spec.Slug != b.Slug {
			b.SlugSince = now
		}
		b.BundleSpec, b.ModifiedAt = spec, now
		out = b
		if _, err := tx.Exec(ctx, `UPDATE catalogue_bundles SET slug = $2, display_name = $3, description = $4, is_enabled = $5, modified_at = $6,
			slug_since = $7 WHERE id = $1`,
			id, spec.Slug, spec.DisplayName, spec.Description, spec.IsEnabled, now, b.SlugSince); err != nil {
			return err
		}
		return s.notify(ctx, tx, id)
	})
	if err != nil {
		return catalogue.Bundle{}, false, passOrWrap(ctx, err, "bundle "+id.String())
	}
	return out, created, nil
}

var _ catalogue.BuiltInReserver = (*Store)(nil)

// ReserveBuiltIn implements catalogue.BuiltInReserver: one transaction
// holding the bundle's row, so that a PutBundle or ImportBundle of the
// id on any host comes before (and the reservation finds the bundle) or
// after (and is refused).
func (s *Store) ReserveBuiltIn(ctx context.Context, b catalogue.Bundle) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	b, err := catalogue.CheckReservation(b)
	if err != nil {
		return err
	}
	err = pgpool.TxSettled(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO catalogue_bundles (`+bundleCols+`) VALUES ($1, $2, $3, $4, $5, true, $6, $7, NULL, $8)
			ON CONFLICT (id) DO NOTHING`,
			b.ID, b.Slug, b.DisplayName, b.Description, b.IsEnabled, b.CreatedAt, b.ModifiedAt, b.SlugSince)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			return s.notify(ctx, tx, b.ID)
		}
		cur, err := scanBundle(tx.QueryRow(ctx, selectBundle+` WHERE id = $1 FOR UPDATE`, b.ID))
		switch {
		case err != nil:
			return err
		case !cur.BuiltIn:
			return fmt.Errorf("bundle %s (%q): %w", b.ID, cur.Slug, catalogue.ErrBundleExists)
		case cur.Slug == b.Slug && cur.DisplayName == b.DisplayName && cur.Description == b.Description:
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE catalogue_bundles SET slug = $2, display_name = $3, description = $4 WHERE id = $1`,
			b.ID, b.Slug, b.DisplayName, b.Description); err != nil {
			return err
		}
		return s.notify(ctx, tx, b.ID)
	})
	if err != nil {
		return passOrWrap(ctx, err, "reserving built-in bundle "+b.ID.String())
	}
	return nil
}

// reserveBundle refuses a new bundle past MaxBundles. The count is taken
// under a transaction-scoped advisory lock, so hosts creating bundles at
// once cannot both pass it. The lock is the schema's (its name is in the
// key): catalogues in other schemas of the database never wait for it.
func (s *Store) reserveBundle(ctx context.Context, tx pgx.Tx, id uuid.UUID) error {
	if s.maxBundle <= 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('toolpack.catalogue.bundles:' || current_schema(), 0))`); err != nil {
		return err
	}
	// The bundle itself is not counted: a PUT of the same id that
	// committed while this one waited for the lock made it, and this one
	// replaces it.
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM catalogue_bundles WHERE id <> $1`, id).Scan(&n); err != nil {
		return err
	}
	if n >= s.maxBundle {
		return fmt.Errorf("the store holds %d bundles, the most allowed: %w", n, catalogue.ErrLimit)
	}
	return nil
}

// passOrWrap returns the catalogue's own errors as they are and wraps
// the database's.
func passOrWrap(ctx context.Context, err error, what string) error {
	for _, sentinel := range []error{catalogue.ErrInvalid, catalogue.ErrNotFound, catalogue.ErrConflict, catalogue.ErrBundleDisabled,
		catalogue.ErrBundleDeleted, catalogue.ErrBuiltIn, catalogue.ErrCorrupt, catalogue.ErrLimit, catalogue.ErrClosed, catalogue.ErrUnavailable} {
		if errors.Is(err, sentinel) {
			return err
		}
	}
	return dbErr(ctx, err, what)
}

// GetBundle implements catalogue.Store.
func (s *Store) GetBundle(ctx context.Context, id uuid.UUID) (catalogue.Bundle, error) {
	if err := s.checkOpen(); err != nil {
		return catalogue.Bundle{}, err
	}
	var b catalogue.Bundle
	err := pgpool.ReadRetrying(ctx, s.pool, func() (err error) {
		b, err = scanBundle(s.pool.QueryRow(ctx, selectBundle+` WHERE id = $1`, id))
		return err
	})
	if err != nil {
		return catalogue.Bundle{}, passOrWrap(ctx, err, "bundle "+id.String())
	}
	return b, nil
}

// ListBundles implements catalogue.Store.
func (s *Store) ListBundles(ctx context.Context, q catalogue.BundleQuery) ([]catalogue.Bundle, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	limit := any(nil)
	if q.Limit > 0 {
		limit = q.Limit
	}
	var out []catalogue.Bundle
	err := pgpool.ReadRetrying(ctx, s.pool, func() error {
		rows, err := s.pool.Query(ctx, selectBundle+`
		WHERE id > $1 AND (cardinality($2::uuid[]) = 0 OR id = ANY($2))
		  AND ($3 OR is_enabled) AND ($4 OR soft_deleted_at IS NULL)
		ORDER BY id LIMIT $5`, q.After, nonNil(q.IDs), q.IncludeDisabled, q.IncludeDeleted, limit)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (catalogue.Bundle, error) { return scanBundle(r) })
		return err
	})
	if err != nil {
		return nil, passOrWrap(ctx, err, "listing bundles")
	}
	return out, nil
}

func nonNil[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

// SetBundleEnabled implements catalogue.Store.
func (s *Store) SetBundleEnabled(ctx context.Context, id uuid.UUID, enabled bool) (catalogue.Bundle, error) {
	return s.updateBundle(ctx, id, func(b *catalogue.Bundle) (string, []any, error) {
		if b.SoftDeletedAt != nil {
			return "", nil, fmt.Errorf("bundle %s: %w", id, catalogue.ErrBundleDeleted)
		}
		b.IsEnabled = enabled
		return `UPDATE catalogue_bundles SET is_enabled = $2 WHERE id = $1`, []any{id, enabled}, nil
	})
}

// SoftDeleteBundle implements catalogue.Store.
func (s *Store) SoftDeleteBundle(ctx context.Context, id uuid.UUID) (catalogue.Bundle, error) {
	return s.updateBundle(ctx, id, func(b *catalogue.Bundle) (string, []any, error) {
		if b.BuiltIn {
			return "", nil, fmt.Errorf("bundle %s: %w", id, catalogue.ErrBuiltIn)
		}
		if b.SoftDeletedAt != nil {
			return "", nil, nil
		}
		now := s.stamp()
		b.SoftDeletedAt = &now
		return `UPDATE catalogue_bundles SET soft_deleted_at = $2 WHERE id = $1`, []any{id, now}, nil
	})
}

// updateBundle changes one bundle in a transaction, the row locked.
func (s *Store) updateBundle(ctx context.Context, id uuid.UUID, change func(*catalogue.Bundle) (string, []any, error)) (catalogue.Bundle, error) {
	if err := s.checkOpen(); err != nil {
		return catalogue.Bundle{}, err
	}
	var out catalogue.Bundle
	err := pgpool.TxSettled(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		b, err := scanBundle(tx.QueryRow(ctx, selectBundle+` WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return err
		}
		sql, args, err := change(&b)
		if err != nil {
			return err
		}
		out = b
		if sql == "" {
			return nil
		}
		if _, err := tx.Exec(ctx, sql, args...); err != nil {
			return err
		}
		return s.notify(ctx, tx, id)
	})
	if err != nil {
		return catalogue.Bundle{}, passOrWrap(ctx, err, "bundle "+id.String())
	}
	return out, nil
}

// bundleForChange reads and locks a bundle (lock is "SHARE" or
// "UPDATE") and refuses changes inside a soft-deleted or disabled one.
func bundleForChange(ctx context.Context, tx pgx.Tx, id uuid.UUID, lock string) (catalogue.Bundle, error) {
	b, err := scanBundle(tx.QueryRow(ctx, selectBundle+` WHERE id = $1 FOR `+lock, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return b, fmt.Errorf("bundle %s: %w", id, catalogue.ErrNotFound)
	}
	if err != nil {
		return b, err
	}
	if b.SoftDeletedAt != nil {
		return b, fmt.Errorf("bundle %s: %w", id, catalogue.ErrBundleDeleted)
	}
	if !b.IsEnabled {
		return b, fmt.Errorf("bundle %s: %w", id, catalogue.ErrBundleDisabled)
	}
	return b, nil
}

// PutTool implements catalogue.Store.
func (s *Store) PutTool(ctx context.Context, key catalogue.ToolKey, spec catalogue.ToolSpec) (catalogue.Tool, error) {
	if err := s.checkOpen(); err != nil {
		return catalogue.Tool{}, err
	}
	if err := catalogue.CheckToolPut(key, spec); err != nil {
		return catalogue.Tool{}, err
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		return catalogue.Tool{}, fmt.Errorf("pgstore: encoding tool: %w", err)
	}
	id, err := catalogue.NewID()
	if err != nil {
		return catalogue.Tool{}, fmt.Errorf("pgstore: new tool id: %w", err)
	}
	now := s.stamp()
	t := catalogue.Tool{ID: id, BundleID: key.BundleID, Slug: key.Slug, Version: key.Version, ToolSpec: spec, CreatedAt: now, ModifiedAt: now}
	what := key.Describe()
	err = pgpool.TxSettled(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		// The bundle's row is locked for update: tool puts into one
		// bundle take turns, so the MaxToolsPerBundle count holds across
		// hosts.
		b, err := bundleForChange(ctx, tx, key.BundleID, "UPDATE")
		if b.BuiltIn { // read-only whatever its state
			return fmt.Errorf("bundle %s: %w", b.ID, catalogue.ErrBuiltIn)
		}
		if err != nil {
			return err
		}
		if s.maxTools > 0 {
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM catalogue_tools WHERE bundle_id = $1`, key.BundleID).Scan(&n); err != nil {
				return err
			}
			if n >= s.maxTools {
				return fmt.Errorf("bundle %s holds %d tool versions, the most allowed: %w", key.BundleID, n, catalogue.ErrLimit)
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO catalogue_tools (bundle_id, slug, version, id, spec, tags, is_enabled, created_at, modified_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`, key.BundleID, key.Slug, key.Version, id, string(raw), nonNil(spec.Tags), spec.IsEnabled, now); err != nil {
			return err
		}
		return s.notify(ctx, tx, key.BundleID)
	})
	if err != nil {
		return catalogue.Tool{}, passOrWrap(ctx, err, what)
	}
	return t, nil
}

// GetTool implements catalogue.Store.
func (s *Store) GetTool(ctx context.Context, key catalogue.ToolKey) (catalogue.Tool, error) {
	if err := s.checkOpen(); err != nil {
		return catalogue.Tool{}, err
	}
	if err := key.Validate(); err != nil {
		return catalogue.Tool{}, err
	}
	s.flushMu.RLock()
	defer s.flushMu.RUnlock()
	var t catalogue.Tool
	err := pgpool.ReadRetrying(ctx, s.pool, func() (err error) {
		t, err = scanTool(s.pool.QueryRow(ctx, `SELECT `+toolCols+` FROM catalogue_tools WHERE bundle_id = $1 AND slug = $2 AND version = $3`,
			key.BundleID, key.Slug, key.Version))
		return err
	})
	if err != nil {
		return catalogue.Tool{}, passOrWrap(ctx, err, key.Describe())
	}
	s.usage.Apply(&t)
	return t, nil
}

// ListTools implements catalogue.Store: bundles by id, then slug and
// version byte by byte.
func (s *Store) ListTools(ctx context.Context, q catalogue.ToolQuery) ([]catalogue.Tool, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	limit := any(nil)
	if q.Limit > 0 {
		limit = q.Limit
	}
	s.flushMu.RLock()
	defer s.flushMu.RUnlock()
	var out []catalogue.Tool
	err := pgpool.ReadRetrying(ctx, s.pool, func() error {
		rows, err := s.pool.Query(ctx, `SELECT t.id, t.bundle_id, t.slug, t.version, t.spec, t.built_in, t.created_at, t.modified_at, t.last_called_at, t.call_count
		FROM catalogue_tools t JOIN catalogue_bundles b ON b.id = t.bundle_id
		WHERE (t.bundle_id, t.slug, t.version) > ($1, $2, $3)
		  AND (cardinality($4::uuid[]) = 0 OR t.bundle_id = ANY($4))
		  AND (cardinality($5::text[]) = 0 OR t.tags && $5)
		  AND ($6 OR (t.is_enabled AND b.is_enabled)) AND ($7 OR b.soft_deleted_at IS NULL)
		ORDER BY t.bundle_id, t.slug, t.version LIMIT $8`,
			q.After.BundleID, q.After.Slug, q.After.Version, nonNil(q.BundleIDs), nonNil(q.Tags), q.IncludeDisabled, q.IncludeDeleted, limit)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (catalogue.Tool, error) { return scanTool(r) })
		return err
	})
	if err != nil {
		return nil, passOrWrap(ctx, err, "listing tools")
	}
	for i := range out {
		s.usage.Apply(&out[i])
	}
	return out, nil
}

// SetToolEnabled implements catalogue.Store.
func (s *Store) SetToolEnabled(ctx context.Context, key catalogue.ToolKey, enabled bool) (catalogue.Tool, error) {
	if err := s.checkOpen(); err != nil {
		return catalogue.Tool{}, err
	}
	if err := key.Validate(); err != nil {
		return catalogue.Tool{}, err
	}
	s.flushMu.RLock()
	defer s.flushMu.RUnlock()
	var out catalogue.Tool
	err := pgpool.TxSettled(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := bundleForChange(ctx, tx, key.BundleID, "SHARE"); err != nil {
			return err
		}
		t, err := scanTool(tx.QueryRow(ctx, `SELECT `+toolCols+` FROM catalogue_tools WHERE bundle_id = $1 AND slug = $2 AND version = $3 FOR UPDATE`,
			key.BundleID, key.Slug, key.Version))
		if err != nil {
			return err
		}
		if t.IsEnabled != enabled {
			t.IsEnabled = enabled
			raw, err := json.Marshal(t.ToolSpec)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE catalogue_tools SET is_enabled = $4, spec = $5 WHERE bundle_id = $1 AND slug = $2 AND version = $3`,
				key.BundleID, key.Slug, key.Version, enabled, string(raw)); err != nil {
				return err
			}
			if err := s.notify(ctx, tx, key.BundleID); err != nil {
				return err
			}
		}
		out = t
		return nil
	})
	if err != nil {
		return catalogue.Tool{}, passOrWrap(ctx, err, key.Describe())
	}
	s.usage.Apply(&out)
	return out, nil
}

// DeleteTool implements catalogue.Store.
func (s *Store) DeleteTool(ctx context.Context, key catalogue.ToolKey) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := key.Validate(); err != nil {
		return err
	}
	what := key.Describe()
	// One transaction, so that a delete whose connection was lost before
	// it committed runs again (never twice: the first was rolled back).
	err := pgpool.TxSettled(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		var builtIn bool
		err := tx.QueryRow(ctx, `DELETE FROM catalogue_tools WHERE bundle_id = $1 AND slug = $2 AND version = $3 AND NOT built_in RETURNING built_in`,
			key.BundleID, key.Slug, key.Version).Scan(&builtIn)
		if errors.Is(err, pgx.ErrNoRows) {
			var tool, bundle bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM catalogue_tools WHERE bundle_id = $1 AND slug = $2 AND version = $3),
				EXISTS (SELECT 1 FROM catalogue_bundles WHERE id = $1)`,
				key.BundleID, key.Slug, key.Version).Scan(&tool, &bundle); err != nil {
				return err
			}
			switch {
			case tool:
				return fmt.Errorf("%s: %w", what, catalogue.ErrBuiltIn)
			case !bundle:
				return fmt.Errorf("bundle %s: %w", key.BundleID, catalogue.ErrNotFound)
			}
			return fmt.Errorf("%s: %w", what, catalogue.ErrNotFound)
		}
		if err != nil {
			return err
		}
		return s.notify(ctx, tx, key.BundleID)
	})
	if err != nil {
		return passOrWrap(ctx, err, what)
	}
	s.usage.Forget(key)
	return nil
}

// ImportBundle implements catalogue.Store: one transaction, so a crash
// part-way leaves nothing.
func (s *Store) ImportBundle(ctx context.Context, b catalogue.Bundle, tools []catalogue.Tool) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	b, tools, err := catalogue.CheckImport(b, tools)
	if err != nil {
		return err
	}
	if s.maxTools > 0 && len(tools) > s.maxTools {
		return fmt.Errorf("bundle %s: %d tool versions, more than the %d allowed: %w", b.ID, len(tools), s.maxTools, catalogue.ErrLimit)
	}
	specs := make([]string, len(tools))
	for i := range tools {
		raw, err := json.Marshal(tools[i].ToolSpec)
		if err != nil {
			return fmt.Errorf("pgstore: encoding tools[%d]: %w", i, err)
		}
		specs[i] = string(raw)
	}
	err = pgpool.TxSettled(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if err := s.reserveBundle(ctx, tx, b.ID); err != nil {
			return err
		}
		b.SlugSince = s.stamp() // the store's: when the bundle came in
		tag, err := tx.Exec(ctx, `INSERT INTO catalogue_bundles (`+bundleCols+`) VALUES ($1, $2, $3, $4, $5, false, $6, $7, $8, $9)
			ON CONFLICT (id) DO NOTHING`,
			b.ID, b.Slug, b.DisplayName, b.Description, b.IsEnabled, b.CreatedAt, b.ModifiedAt, b.SoftDeletedAt, b.SlugSince)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("bundle %s: %w", b.ID, catalogue.ErrBundleExists)
		}
		batch := &pgx.Batch{}
		for i, t := range tools {
			batch.Queue(`INSERT INTO catalogue_tools (bundle_id, slug, version, id, spec, tags, is_enabled, created_at, modified_at, last_called_at, call_count)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
				b.ID, t.Slug, t.Version, t.ID, specs[i], nonNil(t.Tags), t.IsEnabled, t.CreatedAt, t.ModifiedAt, t.LastCalledAt, t.CallCount)
		}
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return err
		}
		return s.notify(ctx, tx, b.ID)
	})
	if err != nil {
		return passOrWrap(ctx, err, "importing bundle "+b.ID.String())
	}
	// Counts buffered for these keys were calls of tools that did not
	// exist: dropped, as RecordUsage's contract says.
	s.usage.ForgetBundle(b.ID)
	return nil
}

// RecordUsage implements catalogue.Store; it only takes an in-memory
// lock.
func (s *Store) RecordUsage(ctx context.Context, key catalogue.ToolKey, at time.Time) error {
	return s.usage.Record(key, at)
}

// Flush adds the buffered usage counts to the stored ones now, in one
// transaction; on failure they stay buffered for the next flush. Counts
// of tools that no longer exist are dropped.
func (s *Store) Flush(ctx context.Context) error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	batch := s.usage.Take()
	if len(batch) == 0 {
		return nil
	}
	// The rows are updated in one order (hosts flushing at once lock them
	// in the same order: no deadlock), and a row another transaction holds
	// is waited for a second at most (readers wait for this flush): the
	// counts then stay buffered for the next one.
	keys := slices.SortedFunc(maps.Keys(batch), func(a, b catalogue.ToolKey) int {
		return cmp.Or(slices.Compare(a.BundleID[:], b.BundleID[:]), strings.Compare(a.Slug, b.Slug), strings.Compare(a.Version, b.Version))
	})
	err := pgpool.TxSettled(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(`SET LOCAL lock_timeout = '1s'`)
		for _, k := range keys {
			u := batch[k]
			b.Queue(`UPDATE catalogue_tools SET call_count = call_count + $4,
				last_called_at = GREATEST(COALESCE(last_called_at, $5), $5)
				WHERE bundle_id = $1 AND slug = $2 AND version = $3`, k.BundleID, k.Slug, k.Version, u.Count, u.Last)
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		s.usage.Return(batch)
		return fmt.Errorf("pgstore: writing usage counts: %w", classify(ctx, err))
	}
	return nil
}

// ReapDeleted implements catalogue.Store: one statement removes every
// bundle soft-deleted at least catalogue.SoftDeleteRetention ago (by the
// store's clock) that holds no tool, so hosts reaping at once never
// remove one twice or one that just got a tool. It runs in a transaction
// with its notification, so that a reap whose connection was lost before
// it committed runs again on a new one and still reports every bundle it
// removed.
func (s *Store) ReapDeleted(ctx context.Context) ([]uuid.UUID, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	var ids []uuid.UUID
	err := pgpool.TxSettled(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `DELETE FROM catalogue_bundles b
			WHERE b.soft_deleted_at IS NOT NULL AND b.soft_deleted_at <= $1
			  AND NOT EXISTS (SELECT 1 FROM catalogue_tools t WHERE t.bundle_id = b.id)
			RETURNING b.id`, s.now().Add(-catalogue.SoftDeleteRetention))
		if err != nil {
			return err
		}
		if ids, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID]); err != nil || len(ids) == 0 {
			return err
		}
		return s.notify(ctx, tx, ids...)
	})
	if err != nil {
		return nil, passOrWrap(ctx, err, "reaping")
	}
	return ids, nil
}

var _ catalogue.BuiltInsKeeper = (*Store)(nil)

// ReadBuiltIns implements catalogue.BuiltInsKeeper: the built-ins overlay
// every host on this catalogue shares (nil before the first write).
func (s *Store) ReadBuiltIns(ctx context.Context) ([]byte, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	var doc []byte
	err := pgpool.ReadRetrying(ctx, s.pool, func() error {
		err := s.pool.QueryRow(ctx, `SELECT doc FROM catalogue_builtins WHERE id = 1`).Scan(&doc)
		if errors.Is(err, pgx.ErrNoRows) {
			doc = nil
			return nil
		}
		return err
	})
	if err != nil {
		return nil, passOrWrap(ctx, err, "the built-ins overlay")
	}
	return doc, nil
}

// UpdateBuiltIns implements catalogue.BuiltInsKeeper: change runs in a
// transaction holding the overlay's row lock, so that hosts writing at
// once (a switch, their usage counts) each see the others' writes.
func (s *Store) UpdateBuiltIns(ctx context.Context, change func(doc []byte) ([]byte, bool, error)) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	err := pgpool.TxSettled(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		var doc []byte
		err := tx.QueryRow(ctx, `SELECT doc FROM catalogue_builtins WHERE id = 1 FOR UPDATE`).Scan(&doc)
		if errors.Is(err, pgx.ErrNoRows) {
			// The first write: make the row, or wait for another host's.
			if _, err := tx.Exec(ctx, `INSERT INTO catalogue_builtins (id, doc) VALUES (1, '{}') ON CONFLICT (id) DO NOTHING`); err != nil {
				return err
			}
			err = tx.QueryRow(ctx, `SELECT doc FROM catalogue_builtins WHERE id = 1 FOR UPDATE`).Scan(&doc)
		}
		if err != nil {
			return err
		}
		updated, changed, err := change(doc)
		if err != nil || !changed {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE catalogue_builtins SET doc = $1 WHERE id = 1`, string(updated))
		return err
	})
	if err != nil {
		return passOrWrap(ctx, err, "the built-ins overlay")
	}
	return nil
}

// Analyze refreshes the planner's statistics of the catalogue's tables
// (PostgreSQL's ANALYZE), as autovacuum does on its own some time after
// a bulk load such as a large import.
func (s *Store) Analyze(ctx context.Context) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE catalogue_bundles, catalogue_tools`); err != nil {
		return fmt.Errorf("pgstore: analyze: %w", err)
	}
	return nil
}

// Close writes buffered usage counts, stops background work and closes
// the pool. Calling it again returns the first result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		s.usage.Close()
		s.maint.Stop()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s.closeErr = s.Flush(ctx)
		s.pool.Close()
	})
	return s.closeErr
}

var _ catalogue.BundleWatcher = (*Store)(nil)

// Watch implements catalogue.Watcher: it calls changed when another Store on the same database and schema
// (another host) changes the catalogue, within moments of its commit
// (PostgreSQL's LISTEN/NOTIFY on a connection of its own; notifications of
// this Store's own writes are skipped, and a burst arrives as one call:
// the notifications that follow each other within 50 ms, for at most
// 250 ms, so that a steady stream of changes is still reported four
// times a second).
// Watch also calls changed once as soon as it listens, so that a change
// committed between the caller's first read and that moment is not
// missed. A connection quiet for Options.FeedCheck is asked to answer,
// and one that does not is taken as lost. When the connection is lost,
// Watch reconnects, with a growing wait up to five seconds, and calls
// changed once more after it is back, since notifications sent meanwhile
// were lost: the caller then re-reads the whole catalogue (a full
// resync). The loss is logged once, the attempts that keep failing only
// at the 2nd, 4th, 8th …, and the reconnection once. Watch returns when
// ctx ends; changed runs on Watch's goroutine.
func (s *Store) Watch(ctx context.Context, changed func()) error {
	return s.WatchBundles(ctx, func([]uuid.UUID) { changed() })
}

// WatchBundles implements catalogue.BundleWatcher: Watch, with the
// bundles the changes touched, which every notification names; nil (re-read
// everything) for the call once it listens, for a change touching more
// than 64 bundles (a reap), for a burst touching more than 1,024, and for
// a change made by an older version of this package, whose notifications
// did not name them.
func (s *Store) WatchBundles(ctx context.Context, changed func(bundles []uuid.UUID)) error {
	const first, most = 100 * time.Millisecond, 5 * time.Second
	wait, failures := first, 0
	for {
		listened, err := s.listen(ctx, changed, func() {
			if failures > 0 {
				s.log.Info("pgstore: the change feed is back; the catalogue is read again", "failed_tries", failures)
			}
			wait, failures = first, 0
		})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if listened {
			s.log.Warn("pgstore: the change feed's connection was lost; reconnecting", "err", err)
		}
		failures++
		if !listened && failures&(failures-1) == 0 {
			s.log.Warn("pgstore: the change feed cannot reconnect yet; trying again", "err", err, "failed_tries", failures, "wait", wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(wait*2, most)
	}
}

// nextNotification waits for conn's next notification; each time the
// connection stays quiet for s.feedCheck, it must answer a ping in time,
// or it is taken as lost.
func (s *Store) nextNotification(ctx context.Context, conn *pgx.Conn) (*pgconn.Notification, error) {
	for {
		wctx, cancel := context.WithTimeout(ctx, s.feedCheck)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		if err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return n, err
		}
		// Quiet for s.feedCheck (the timeout leaves the connection usable).
		answer := min(s.feedCheck, feedAnswer)
		pctx, cancel := context.WithTimeout(ctx, answer)
		err = conn.Ping(pctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("the connection did not answer a check within %s: %w", answer, err)
		}
	}
}

// listen holds one LISTEN connection until it fails or ctx ends, calling
// up and then changed once it listens (the resync that covers the time
// before); listened reports that it got that far.
func (s *Store) listen(ctx context.Context, changed func([]uuid.UUID), up func()) (listened bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, s.connCfg.Copy())
	if err != nil {
		return false, err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.channel}.Sanitize()); err != nil {
		return false, err
	}
	up()
	changed(nil)
	for {
		n, err := s.nextNotification(ctx, conn)
		if err != nil {
			return true, err
		}
		var g gathered
		g.add(n.Payload, s.instance)
		// Gather the rest of a burst (an import, a script of puts).
		for end := time.Now().Add(burstMost); ; {
			wait := min(burstQuiet, time.Until(end))
			if wait <= 0 {
				break
			}
			wctx, cancel := context.WithTimeout(ctx, wait)
			m, err := conn.WaitForNotification(wctx)
			cancel()
			if err != nil {
				if ctx.Err() != nil {
					return true, ctx.Err()
				}
				if errors.Is(err, context.DeadlineExceeded) {
					break
				}
				return true, err
			}
			g.add(m.Payload, s.instance)
		}
		if g.foreign {
			changed(g.bundles())
		}
	}
}

// A burst of notifications is the ones that follow each other within
// burstQuiet, for at most burstMost: reported as one change.
const (
	burstQuiet = 50 * time.Millisecond
	burstMost  = 250 * time.Millisecond
)
