package catalogue

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// PageTokenKeyBytes is the size of the page token key a store makes.
const PageTokenKeyBytes = 32

// PageTokenKeeper is a [Store] that keeps the key signing the catalogue
// API's page tokens (catalogueapi.Options.PageTokenKey): made once, by
// the first process to ask, and from then on the same for every process
// and host sharing the store and after every restart, so that a page
// token one host returned is accepted by every other. The file store and
// the PostgreSQL store are keepers.
//
// The key is a secret (whoever holds it can forge page tokens): a keeper
// never writes it in a log or an error.
type PageTokenKeeper interface {
	// PageTokenKey returns the store's page token key (at least
	// PageTokenKeyBytes bytes), making it if no process made it yet.
	PageTokenKey(ctx context.Context) ([]byte, error)
}

var _ PageTokenKeeper = (*FileStore)(nil)

// pageTokenKeyFile is the file, in the store's directory, holding the
// page token key in hexadecimal.
const pageTokenKeyFile = "pagetoken.key"

// PageTokenKey implements [PageTokenKeeper]: the key is the file
// <dir>/pagetoken.key (64 hexadecimal digits, mode 0600). The first
// process to ask makes it under the flock of <dir>/locks/pagetoken.lock,
// writing it whole (temporary file, fsync, rename), so that processes
// asking at once all read the one key written. A file that is not a key
// gives ErrCorrupt; it is never replaced (tokens signed with it would stop
// working): remove it to make a new key.
func (s *FileStore) PageTokenKey(ctx context.Context) ([]byte, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	path := filepath.Join(s.dir, pageTokenKeyFile)
	key, err := s.readPageTokenKey(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	unlock, err := s.lockFile(ctx, make(chan struct{}, 1), "pagetoken.lock", "the page token key")
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Another process may have made it while this one waited.
	key, err = s.readPageTokenKey(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	key = make([]byte, PageTokenKeyBytes)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("catalogue: making the page token key: %w", err)
	}
	// writeAtomic's temporary file is made with mode 0600, kept by the
	// rename.
	if err := s.writeAtomic(path, []byte(hex.EncodeToString(key)+"\n")); err != nil {
		return nil, fmt.Errorf("catalogue: writing the page token key %s: %w", path, err)
	}
	return key, nil
}

// readPageTokenKey reads the key file; an error wrapping fs.ErrNotExist
// when there is none. Errors never quote the file's content.
func (s *FileStore) readPageTokenKey(path string) ([]byte, error) {
	data, err := s.readCapped(path)
	if err != nil {
		if errors.Is(err, ErrCorrupt) {
			return nil, fmt.Errorf("catalogue: page token key %s: expected at least %d hexadecimal digits (remove the file to make a new key): %w", path, 2*PageTokenKeyBytes, ErrCorrupt)
		}
		return nil, fmt.Errorf("catalogue: reading the page token key: %w", err)
	}
	key, err := hex.DecodeString(string(bytes.TrimSpace(data)))
	if err != nil || len(key) < PageTokenKeyBytes {
		return nil, fmt.Errorf("catalogue: page token key %s: expected at least %d hexadecimal digits (remove the file to make a new key): %w", path, 2*PageTokenKeyBytes, ErrCorrupt)
	}
	return key, nil
}
