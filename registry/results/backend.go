package results

import (
	"context"
	"io"
	"time"
)

// Backend keeps the bytes of a Store's outputs. Each output is two byte
// strings under its handle: its text, exactly as stored, and its line
// index — a 64-byte header, then n+1 little-endian uint64 offsets (where
// each of the n lines starts, and the size of the text). The Store writes
// them once, reads them at any offset (a page is one read of its offsets
// and one read of its text), and removes them leaving a tombstone, so
// that a removed handle is reported expired rather than unknown.
//
// The default Backend is the files of Options.Dir. Package
// registry/results/pgresults keeps outputs in PostgreSQL, so that any host
// given the same database pages an output another host stored. A Backend
// must be safe for concurrent use; the Store checks every header and
// offset it reads, so a Backend need not. Every query reads the output
// past its index's header at least once — a page past the end reads the
// index's last entry — so a Backend whose Open answers from a cache finds
// an output removed since when that read finds its bytes gone (an error
// wrapping fs.ErrNotExist).
type Backend interface {
	// Create starts writing the output handle. Nothing of it is visible
	// to Open or Scan before its Draft commits.
	Create(ctx context.Context, handle string) (Draft, error)
	// Open opens the committed output handle. An output the backend does
	// not hold is an error wrapping fs.ErrNotExist.
	Open(ctx context.Context, handle string) (Blobs, error)
	// Remove deletes the output handle, if present, and keeps t as its
	// tombstone.
	Remove(ctx context.Context, handle string, t Tombstone) error
	// Tombstone returns the tombstone of handle, if it has one.
	Tombstone(ctx context.Context, handle string) (Tombstone, bool, error)
	// Scan calls fn with every committed output: its handle, the first
	// HeaderSize bytes of its index (fewer when the index is shorter) and
	// the index's size. It also does the backend's own housekeeping:
	// tombstones older than keep before now and drafts abandoned by a
	// crashed writer are removed.
	Scan(ctx context.Context, now time.Time, keep time.Duration, fn func(handle string, header []byte, indexSize int64)) error
	// Close releases what the backend holds; the Store calls it on Close.
	Close() error
}

// HeaderSize is the size of the header at the start of an output's index.
const HeaderSize = headerSize

// Draft is an output being written: its text and its index (without the
// header, which Commit writes) are appended to, then cut to their final
// sizes, then committed at once.
type Draft interface {
	// Text appends to the text.
	Text() io.Writer
	// Index appends to the index after its header.
	Index() io.Writer
	// Truncate cuts the text to textSize bytes and the index to
	// HeaderSize+indexSize bytes (what a cut output keeps); writing then
	// goes on at the new ends.
	Truncate(textSize, indexSize int64) error
	// Commit writes header at the start of the index and makes the output
	// visible, all at once. A Commit that fails drops the draft and
	// releases what it holds, as Abort does, so that nothing waits on a
	// failed draft whose writer never calls Abort (the backend's Close).
	Commit(ctx context.Context, header []byte) error
	// Abort drops the draft; it is a no-op after Commit, failed or not.
	Abort()
}

// Blobs is an open committed output.
type Blobs interface {
	// Text reads the text; TextSize is its size.
	Text() io.ReaderAt
	// TextSize is the size of the text.
	TextSize() int64
	// Index reads the index, header included; IndexSize is its size.
	Index() io.ReaderAt
	// IndexSize is the size of the index, header included.
	IndexSize() int64
	// Close releases the output.
	Close() error
}

// Tombstone says when and why an output was removed.
type Tombstone struct {
	// At is when it was removed.
	At time.Time
	// Evicted reports that it was removed to keep the store within its
	// size budget (Options.MaxDirBytes) rather than because it expired.
	Evicted bool
}
