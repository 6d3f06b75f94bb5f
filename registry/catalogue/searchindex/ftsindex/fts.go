package ftsindex

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/uuid"
	_ "modernc.org/sqlite" // the pure-Go SQLite driver, "sqlite"

	"github.com/toolpack-go/toolpack/internal/search"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/searchindex"
)

// Options configures [Wrap]. The zero value is ready to use.
type Options struct {
	// Logger receives failures to index an imported bundle (the next
	// Resync catches up). Nil means slog.Default().
	Logger *slog.Logger
}

// Store is a catalogue.Store with an SQLite FTS5 search index. Every
// method of catalogue.Store is forwarded to the wrapped store; each
// successful write also updates the index. Create one with [Wrap]; it is
// safe for concurrent use.
type Store struct {
	catalogue.Store

	log *slog.Logger

	mu        sync.RWMutex // guards db (writes take it exclusively)
	db        *sql.DB
	recording bool
	journal   []func(*sql.DB) error

	resyncMu sync.Mutex
}

var _ catalogue.Store = (*Store)(nil)
var _ searchindex.Searcher = (*Store)(nil)

const schema = `
CREATE TABLE bundles(id BLOB PRIMARY KEY, enabled INTEGER NOT NULL, deleted INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE tools(
	id INTEGER PRIMARY KEY,
	bundle BLOB NOT NULL, slug TEXT NOT NULL, version TEXT NOT NULL,
	enabled INTEGER NOT NULL, time INTEGER NOT NULL,
	display TEXT NOT NULL, description TEXT NOT NULL, tags TEXT NOT NULL,
	UNIQUE(bundle, slug, version));
-- name: the slug; text: display name, description and tags; both
-- lower-cased as the ranking does, so the trigrams compare exactly.
CREATE VIRTUAL TABLE fts USING fts5(name, text, tokenize='trigram case_sensitive 1');
`

// Wrap indexes every tool of store and returns the decorated store. Use
// the returned Store for every write so that the index follows. Close
// closes the wrapped store and the index.
func Wrap(ctx context.Context, store catalogue.Store, opts Options) (*Store, error) {
	if store == nil {
		return nil, errors.New("ftsindex: Wrap: expected a store, got nil")
	}
	s := &Store{Store: store, log: opts.Logger}
	if s.log == nil {
		s.log = slog.Default()
	}
	if err := s.Resync(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func openDB(ctx context.Context) (*sql.DB, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, fmt.Errorf("ftsindex: opening SQLite: %w", err)
	}
	// One connection: an in-memory database belongs to its connection.
	db.SetMaxOpenConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("ftsindex: creating the index: %w", err)
	}
	return db, nil
}

// Resync rebuilds the index from the store (a full read), for writes made
// by other processes. Searches keep answering from the previous index
// meanwhile; writes through this Store during the rebuild reach the new
// index too. On error the previous index stays.
func (s *Store) Resync(ctx context.Context) error {
	s.resyncMu.Lock()
	defer s.resyncMu.Unlock()
	s.mu.Lock()
	s.recording, s.journal = true, nil
	s.mu.Unlock()
	db, err := s.build(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recording = false
	journal := s.journal
	s.journal = nil
	if err == nil {
		for _, f := range journal {
			if err = f(db); err != nil {
				break
			}
		}
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		return err
	}
	if s.db != nil {
		s.db.Close()
	}
	s.db = db
	return nil
}

func (s *Store) build(ctx context.Context) (*sql.DB, error) {
	tools, err := s.Store.ListTools(ctx, catalogue.ToolQuery{IncludeDisabled: true, IncludeDeleted: true})
	if err != nil {
		return nil, fmt.Errorf("ftsindex: reading tools: %w", err)
	}
	bundles, err := s.Store.ListBundles(ctx, catalogue.BundleQuery{IncludeDisabled: true, IncludeDeleted: true})
	if err != nil {
		return nil, fmt.Errorf("ftsindex: reading bundles: %w", err)
	}
	db, err := openDB(ctx)
	if err != nil {
		return nil, err
	}
	err = inTx(ctx, db, func(tx *sql.Tx) error {
		for i := range bundles {
			if err := setBundle(ctx, tx, &bundles[i]); err != nil {
				return err
			}
		}
		return putTools(tools...)(ctx, tx)
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func inTx(ctx context.Context, db *sql.DB, f func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("ftsindex: %w", err)
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("ftsindex: %w", err)
	}
	return nil
}

func setBundle(ctx context.Context, tx *sql.Tx, b *catalogue.Bundle) error {
	_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO bundles(id, enabled, deleted) VALUES(?, ?, ?)`,
		b.ID[:], b.IsEnabled, b.SoftDeletedAt != nil)
	if err != nil {
		return fmt.Errorf("ftsindex: indexing bundle %s: %w", b.ID, err)
	}
	return nil
}

// writer puts tools with prepared statements.
type writer struct {
	find, del, delFTS, ins, insFTS *sql.Stmt
}

func newWriter(ctx context.Context, tx *sql.Tx) (*writer, error) {
	w := &writer{}
	var err error
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = tx.PrepareContext(ctx, q)
		return st
	}
	w.find = prep(`SELECT id FROM tools WHERE bundle = ? AND slug = ? AND version = ?`)
	w.del = prep(`DELETE FROM tools WHERE id = ?`)
	w.delFTS = prep(`DELETE FROM fts WHERE rowid = ?`)
	w.ins = prep(`INSERT INTO tools(bundle, slug, version, enabled, time, display, description, tags) VALUES(?, ?, ?, ?, ?, ?, ?, ?)`)
	w.insFTS = prep(`INSERT INTO fts(rowid, name, text) VALUES(?, ?, ?)`)
	if err != nil {
		w.close()
		return nil, fmt.Errorf("ftsindex: %w", err)
	}
	return w, nil
}

func (w *writer) close() {
	for _, st := range []*sql.Stmt{w.find, w.del, w.delFTS, w.ins, w.insFTS} {
		if st != nil {
			st.Close()
		}
	}
}

// remove drops the tool with key, if indexed.
func (w *writer) remove(ctx context.Context, key catalogue.ToolKey) error {
	var id int64
	err := w.find.QueryRowContext(ctx, key.BundleID[:], key.Slug, key.Version).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err == nil {
		_, err = w.del.ExecContext(ctx, id)
	}
	if err == nil {
		_, err = w.delFTS.ExecContext(ctx, id)
	}
	if err != nil {
		return fmt.Errorf("ftsindex: removing tool %s@%s: %w", key.Slug, key.Version, err)
	}
	return nil
}

// put adds or replaces a tool.
func (w *writer) put(ctx context.Context, t *catalogue.Tool) error {
	if err := w.remove(ctx, t.Key()); err != nil {
		return err
	}
	tags := strings.Join(t.Tags, " ")
	low := search.Prepare(search.Item{Name: t.Slug, Description: t.DisplayName + "\n" + t.Description + "\n" + tags})
	res, err := w.ins.ExecContext(ctx, t.BundleID[:], t.Slug, t.Version, t.IsEnabled, t.ModifiedAt.UnixNano(), t.DisplayName, t.Description, tags)
	if err != nil {
		return fmt.Errorf("ftsindex: indexing tool %s@%s: %w", t.Slug, t.Version, err)
	}
	id, err := res.LastInsertId()
	if err == nil {
		_, err = w.insFTS.ExecContext(ctx, id, low.Name(), low.Description())
	}
	if err != nil {
		return fmt.Errorf("ftsindex: indexing tool %s@%s: %w", t.Slug, t.Version, err)
	}
	return nil
}

// apply runs a change on the index (and records it while a resync runs).
func (s *Store) apply(ctx context.Context, f func(context.Context, *sql.Tx) error) error {
	ctx = context.WithoutCancel(ctx) // the store has changed: the index must follow
	run := func(db *sql.DB) error { return inTx(ctx, db, func(tx *sql.Tx) error { return f(ctx, tx) }) }
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.recording {
		s.journal = append(s.journal, run)
	}
	if s.db == nil {
		return errors.New("ftsindex: the index is closed")
	}
	return run(s.db)
}

func putTools(tools ...catalogue.Tool) func(context.Context, *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		w, err := newWriter(ctx, tx)
		if err != nil {
			return err
		}
		defer w.close()
		for i := range tools {
			if err := w.put(ctx, &tools[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

func putBundle(b catalogue.Bundle) func(context.Context, *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error { return setBundle(ctx, tx, &b) }
}

// indexed logs an index failure after a successful store write: the
// store's answer stands, the index catches up at the next Resync.
func (s *Store) indexed(err error) {
	if err != nil {
		s.log.Error("ftsindex: the index missed a write; it catches up at the next Resync", "err", err)
	}
}

// PutBundle implements catalogue.Store and indexes the bundle's state.
func (s *Store) PutBundle(ctx context.Context, id uuid.UUID, spec catalogue.BundleSpec) (catalogue.Bundle, bool, error) {
	b, created, err := s.Store.PutBundle(ctx, id, spec)
	if err == nil {
		s.indexed(s.apply(ctx, putBundle(b)))
	}
	return b, created, err
}

// SetBundleEnabled implements catalogue.Store and indexes the bundle's
// state.
func (s *Store) SetBundleEnabled(ctx context.Context, id uuid.UUID, enabled bool) (catalogue.Bundle, error) {
	b, err := s.Store.SetBundleEnabled(ctx, id, enabled)
	if err == nil {
		s.indexed(s.apply(ctx, putBundle(b)))
	}
	return b, err
}

// SoftDeleteBundle implements catalogue.Store; the bundle's tools leave
// the results at once.
func (s *Store) SoftDeleteBundle(ctx context.Context, id uuid.UUID) (catalogue.Bundle, error) {
	b, err := s.Store.SoftDeleteBundle(ctx, id)
	if err == nil {
		s.indexed(s.apply(ctx, putBundle(b)))
	}
	return b, err
}

// PutTool implements catalogue.Store and indexes the tool.
func (s *Store) PutTool(ctx context.Context, key catalogue.ToolKey, spec catalogue.ToolSpec) (catalogue.Tool, error) {
	t, err := s.Store.PutTool(ctx, key, spec)
	if err != nil {
		return t, err
	}
	f := putTools(t)
	if b, err := s.Store.GetBundle(ctx, key.BundleID); err == nil { // the bundle may be another process's
		g := f
		f = func(ctx context.Context, tx *sql.Tx) error {
			if err := setBundle(ctx, tx, &b); err != nil {
				return err
			}
			return g(ctx, tx)
		}
	}
	s.indexed(s.apply(ctx, f))
	return t, nil
}

// SetToolEnabled implements catalogue.Store and indexes the tool's state.
func (s *Store) SetToolEnabled(ctx context.Context, key catalogue.ToolKey, enabled bool) (catalogue.Tool, error) {
	t, err := s.Store.SetToolEnabled(ctx, key, enabled)
	if err == nil {
		s.indexed(s.apply(ctx, putTools(t)))
	}
	return t, err
}

// DeleteTool implements catalogue.Store and drops the tool from the
// index.
func (s *Store) DeleteTool(ctx context.Context, key catalogue.ToolKey) error {
	err := s.Store.DeleteTool(ctx, key)
	if err == nil || errors.Is(err, catalogue.ErrNotFound) {
		s.indexed(s.apply(ctx, func(ctx context.Context, tx *sql.Tx) error {
			w, err := newWriter(ctx, tx)
			if err != nil {
				return err
			}
			defer w.close()
			return w.remove(ctx, key)
		}))
	}
	return err
}

// ImportBundle implements catalogue.Store and indexes the imported bundle
// and its tools as stored.
func (s *Store) ImportBundle(ctx context.Context, b catalogue.Bundle, tools []catalogue.Tool) error {
	if err := s.Store.ImportBundle(ctx, b, tools); err != nil {
		return err
	}
	stored, berr := s.Store.GetBundle(ctx, b.ID)
	list, terr := s.Store.ListTools(ctx, catalogue.ToolQuery{BundleIDs: []uuid.UUID{b.ID}, IncludeDisabled: true, IncludeDeleted: true})
	if berr != nil || terr != nil {
		s.log.Warn("ftsindex: indexing an imported bundle; the next Resync catches up", "bundle", b.ID, "err", errors.Join(berr, terr))
		return nil
	}
	pb, pt := putBundle(stored), putTools(list...)
	s.indexed(s.apply(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := pb(ctx, tx); err != nil {
			return err
		}
		return pt(ctx, tx)
	}))
	return nil
}

// ReapDeleted implements catalogue.Store and forgets the reaped bundles.
func (s *Store) ReapDeleted(ctx context.Context) ([]uuid.UUID, error) {
	ids, err := s.Store.ReapDeleted(ctx)
	if len(ids) > 0 {
		s.indexed(s.apply(ctx, func(ctx context.Context, tx *sql.Tx) error {
			for _, id := range ids {
				if err := setBundle(ctx, tx, &catalogue.Bundle{ID: id, SoftDeletedAt: new(catalogue.Bundle{}.CreatedAt)}); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	return ids, err
}

// Close closes the index and the wrapped store.
func (s *Store) Close() error {
	return errors.Join(s.CloseIndex(), s.Store.Close())
}

// CloseIndex frees the index but leaves the wrapped store open (for a
// store shared with another Searcher); Search then fails. Close calls it.
func (s *Store) CloseIndex() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if s.db != nil {
		err = s.db.Close()
		s.db = nil
	}
	return err
}

// Search implements searchindex.Searcher: FTS5 retrieves the tools
// holding every term of 3 or more characters, the ranking orders them
// (see the package documentation for how this differs from searchindex).
func (s *Store) Search(ctx context.Context, q searchindex.Query) (searchindex.Page, error) {
	if err := q.Validate(); err != nil {
		return searchindex.Page{}, err
	}
	sq := search.NewQuery(q.Text)
	var match []string
	for _, t := range sq.Terms() {
		if utf8.RuneCountInString(t) >= 3 {
			match = append(match, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
		}
	}
	query := `SELECT t.bundle, t.slug, t.version, t.time, t.display, t.description, t.tags
		FROM tools t JOIN bundles b ON b.id = t.bundle
		WHERE b.deleted = 0 AND (? OR (t.enabled AND b.enabled))`
	args := []any{q.IncludeDisabled}
	if len(match) > 0 {
		query += ` AND t.id IN (SELECT rowid FROM fts WHERE fts MATCH ?)`
		args = append(args, strings.Join(match, " AND "))
	}
	type ranked struct{ at searchindex.Cursor }
	var hits []ranked
	err := func() error {
		s.mu.RLock()
		defer s.mu.RUnlock()
		if s.db == nil {
			return errors.New("ftsindex: the store is closed")
		}
		rows, err := s.db.QueryContext(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("ftsindex: searching: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var bundle []byte
			var t catalogue.Tool
			var tm int64
			var tags string
			if err := rows.Scan(&bundle, &t.Slug, &t.Version, &tm, &t.DisplayName, &t.Description, &tags); err != nil {
				return fmt.Errorf("ftsindex: searching: %w", err)
			}
			copy(t.BundleID[:], bundle)
			t.Tags = []string{tags} // joined as the ranking joins them
			sc := searchindex.ScoreTool(q.Text, &t)
			if sc <= 0 {
				continue
			}
			at := searchindex.Cursor{Score: sc, Time: tm, Key: t.Key()}
			if q.After != nil && at.Compare(*q.After) <= 0 {
				continue
			}
			hits = append(hits, ranked{at: at})
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("ftsindex: searching: %w", err)
		}
		return nil
	}()
	if err != nil {
		return searchindex.Page{}, err
	}
	slices.SortFunc(hits, func(a, b ranked) int { return a.at.Compare(b.at) })
	var page searchindex.Page
	if len(hits) > q.Limit {
		hits = hits[:q.Limit]
		last := hits[len(hits)-1].at
		page.Next = &last
	}
	page.Tools = make([]catalogue.Tool, 0, len(hits))
	for _, h := range hits {
		t, err := s.Store.GetTool(ctx, h.at.Key)
		if errors.Is(err, catalogue.ErrNotFound) {
			continue
		}
		if err != nil {
			return searchindex.Page{}, fmt.Errorf("ftsindex: reading tool %s@%s: %w", h.at.Key.Slug, h.at.Key.Version, err)
		}
		if !t.IsEnabled && !q.IncludeDisabled {
			continue
		}
		page.Tools = append(page.Tools, t)
	}
	return page, nil
}
