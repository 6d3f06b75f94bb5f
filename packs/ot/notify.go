package ot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/toolpack-go/toolpack/internal/regfile"
	"github.com/toolpack-go/toolpack/internal/topicglob"
	"github.com/toolpack-go/toolpack/result"
)

// Answers of ot.notify.
const (
	notifySkip = "SKIP: no matching topic"
)

// lockRetry is how often a writer waiting for a notification file's lock
// tries again.
const lockRetry = time.Millisecond

// lockSuffix names the lock file beside a notification file.
const lockSuffix = ".lock"

func (p *pack) notify(ctx context.Context, a NotifyArgs) (result.Result[string], error) {
	sp := startSpan(ctx, ToolNotify, slog.String("topic", a.Topic), slog.Int("message_bytes", len(a.Message)))
	var topics []Topic
	if p.cfg.Topics != nil {
		topics = p.cfg.Topics()
	}
	for _, t := range topics {
		ok, err := topicglob.Match(t.Pattern, a.Topic)
		if err != nil {
			return sp.end(result.Failuref[string](ErrTypeConfig, "Error: the configured topic pattern %q is not a valid glob: %v", t.Pattern, err), nil)
		}
		if !ok {
			continue
		}
		limit := t.MaxFileBytes
		switch {
		case limit < 0:
			return sp.end(result.Failuref[string](ErrTypeConfig, "Error: the configured max_file_bytes of topic pattern %q is %d; expected a positive number of bytes (or 0 for the default, %d)",
				t.Pattern, limit, DefaultNotifyMaxFileBytes), nil)
		case limit == 0:
			limit = DefaultNotifyMaxFileBytes
		}
		doc, err := notificationDocument(p.now(), a.Topic, a.Message)
		if err != nil {
			return sp.end(result.Result[string]{}, err)
		}
		if err := appendDocument(ctx, t.File, doc, limit); err != nil {
			if ctx.Err() != nil {
				return sp.end(result.Result[string]{}, err)
			}
			if full, ok := errors.AsType[*fileFullError](err); ok {
				return sp.end(result.Failuref[string](ErrTypeWrite, "Error: topic %s: %s has no room for this message: it holds %d bytes and this message (%d bytes) would take it past its cap of %d bytes; nothing was written. Rotate or empty the file, or raise the cap (notify.max_file_bytes in the host configuration)",
					echoN(a.Topic, MaxPatternLen), filepath.Base(t.File), full.size, full.add, full.limit), nil, slog.String("file", t.File), slog.Bool("full", true))
			}
			if errors.Is(err, regfile.ErrNotRegular) {
				return sp.end(result.Failuref[string](ErrTypeWrite, "Error: Cannot write to '%s': %v; nothing was written. Replace it with a regular file, or route the topic to one (notify.topics in the host configuration)",
					t.File, errors.Unwrap(err)), nil, slog.String("file", t.File), slog.Bool("not_regular", true))
			}
			return sp.end(result.Failuref[string](ErrTypeWrite, "Error: Cannot write to '%s': %v", t.File, errors.Unwrap(err)), nil, slog.String("file", t.File))
		}
		// The topic is repeated escaped (a line break or a right-to-left
		// override in it came back raw), never cut: it is at most
		// MaxPatternLen characters.
		return sp.end(result.Ok("OK: "+echoN(a.Topic, MaxPatternLen)+" -> "+t.File), nil, slog.String("file", t.File))
	}
	return sp.end(result.Ok(notifySkip), nil, slog.Bool("matched", false))
}

// notificationDocument is one notification as a YAML document: a
// document start line, then timestamp (UTC, RFC 3339 with nanoseconds),
// topic and message, one key per line (a multi-line message as a literal
// block).
func notificationDocument(now time.Time, topic, message string) ([]byte, error) {
	y, err := renderYAML(blockObject{
		{"timestamp", now.UTC().Format(time.RFC3339Nano)},
		{"topic", topic},
		{"message", message},
	})
	if err != nil {
		return nil, err
	}
	return []byte("---\n" + y), nil
}

// appendDocument appends doc to the file at name in one write, with
// O_APPEND and under an exclusive lock (github.com/gofrs/flock: flock(2)
// on Unix, LockFileEx on Windows) on the sidecar file name+".lock", so
// that writers in any number of goroutines and processes never interleave
// or lose a document. The lock is taken on a file of its own because
// Windows locks bar writes through other handles, even the locker's. The
// files and their directory are created when missing. It waits for the
// lock until ctx is done. A document is appended whole on a line of its
// own, or not at all (appendWhole), and only when the file stays within
// limit bytes: the size is checked under the lock, so writers never take
// the file past it. The file and its lock file must be regular files
// (internal/regfile): a FIFO, a socket or a device in their place is
// refused at once, nothing written — a FIFO would take the document into
// a pipe nobody reads, or block for good once its buffer is full — but
// for the null device (a topic muted with a link to /dev/null), which
// takes it and keeps nothing. The path is followed through symbolic
// links. Errors wrap the underlying error (a *fileFullError past the
// limit, one wrapping regfile.ErrNotRegular).
func appendDocument(ctx context.Context, name string, doc []byte, limit int64) error {
	if discards(name) {
		return nil
	}
	if dir := filepath.Dir(name); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("ot: notify: %w", err)
		}
	}
	lk, err := regfile.Lock(ctx, name+lockSuffix, 0o644, false, lockRetry)
	if err != nil {
		return fmt.Errorf("ot: notify: lock: %w", err)
	}
	defer func() { _ = lk.Unlock() }()
	f, err := regfile.OpenFile(name, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("ot: notify: %w", err)
	}
	werr := appendWhole(f, doc, limit)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("ot: notify: %w", err)
	}
	return nil
}

// discards reports whether name is the null device (os.DevNull), itself
// or through symbolic links: a topic routed there to mute it takes the
// message and keeps nothing, as it did before special files were refused.
func discards(name string) bool {
	target, err := filepath.EvalSymlinks(name)
	return err == nil && target == os.DevNull
}

// appendTarget is the part of an *os.File appendWhole uses.
type appendTarget interface {
	io.Writer
	io.ReaderAt
	Stat() (fs.FileInfo, error)
	Truncate(size int64) error
}

// fileFullError: appending would take a notification file past its cap.
type fileFullError struct {
	size, add, limit int64 // the file's size, the bytes to append, the cap
}

func (e *fileFullError) Error() string {
	return fmt.Sprintf("the file holds %d bytes and %d more would take it past its cap of %d bytes", e.size, e.add, e.limit)
}

// appendWhole appends doc to f (opened with O_APPEND) on a line of its
// own, or not at all: a file whose last line has no newline (written by
// hand) gets one first, so that the new document does not continue it,
// and a write that fails part way (a full disk) is cut back to the size
// before it, so that the next document does not follow half of this one.
// A doc that would take the file past limit bytes is not written (a
// *fileFullError).
func appendWhole(f appendTarget, doc []byte, limit int64) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	base := st.Size()
	if base > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], base-1); err != nil {
			return err
		}
		if last[0] != '\n' {
			doc = append([]byte{'\n'}, doc...)
		}
	}
	if add := int64(len(doc)); base+add > limit {
		return &fileFullError{size: base, add: add, limit: limit}
	}
	if _, err := f.Write(doc); err != nil {
		if terr := f.Truncate(base); terr != nil {
			return errors.Join(err, fmt.Errorf("cutting back the part written: %w", terr))
		}
		return err
	}
	return nil
}
