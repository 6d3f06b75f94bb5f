package pgstore

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/toolpack-go/toolpack/internal/pgpool"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

var _ catalogue.PageTokenKeeper = (*Store)(nil)

// PageTokenKey implements catalogue.PageTokenKeeper: the key is one row
// of the table catalogue_page_token_key, made by the first host that asks
// (INSERT … ON CONFLICT DO NOTHING, so that hosts asking at once all read
// the one row stored) and read by every other, and after every restart.
// The key is never put in a log or an error.
func (s *Store) PageTokenKey(ctx context.Context) ([]byte, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	fresh := make([]byte, catalogue.PageTokenKeyBytes)
	if _, err := rand.Read(fresh); err != nil {
		return nil, fmt.Errorf("pgstore: making the page token key: %w", err)
	}
	var key []byte
	// Idempotent, so run again on a new connection when one is lost: the
	// insert does nothing once a row is there, whoever stored it.
	err := pgpool.ReadRetrying(ctx, s.pool, func() error {
		err := s.pool.QueryRow(ctx, `SELECT key FROM catalogue_page_token_key WHERE id = 1`).Scan(&key)
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if _, err := s.pool.Exec(ctx, `INSERT INTO catalogue_page_token_key (id, key) VALUES (1, $1) ON CONFLICT (id) DO NOTHING`, fresh); err != nil {
			return err
		}
		return s.pool.QueryRow(ctx, `SELECT key FROM catalogue_page_token_key WHERE id = 1`).Scan(&key)
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore: the page token key: %w", classify(ctx, err))
	}
	if len(key) < catalogue.PageTokenKeyBytes {
		return nil, fmt.Errorf("pgstore: the page token key: expected at least %d bytes, got %d: %w", catalogue.PageTokenKeyBytes, len(key), catalogue.ErrCorrupt)
	}
	return key, nil
}
