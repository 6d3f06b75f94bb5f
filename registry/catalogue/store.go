package catalogue

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// SoftDeleteRetention is how long a soft-deleted bundle is kept before the
// reaper may remove it (only once it holds no tool).
const SoftDeleteRetention = 48 * time.Hour

// Store keeps bundles and tools. The file store ([OpenFileStore]) is the
// default; other back-ends (PostgreSQL) implement the same interface, and
// the conformance tests of this package hold every implementation to the
// same behaviour. Every method is safe for concurrent use, and the rules
// hold across processes sharing one back-end.
//
// Errors wrap the package's sentinels: [ErrInvalid] (with a
// [*ValidationError]), [ErrNotFound], [ErrConflict], [ErrBundleDisabled],
// [ErrBundleDeleted], [ErrBuiltIn], [ErrLimit], [ErrCorrupt], [ErrClosed].
type Store interface {
	// PutBundle creates the bundle or replaces its slug, display name,
	// description and enabled flag; created reports which. ID and
	// CreatedAt never change. A soft-deleted bundle gives ErrBundleDeleted,
	// a built-in one ErrBuiltIn.
	PutBundle(ctx context.Context, id uuid.UUID, spec BundleSpec) (b Bundle, created bool, err error)
	// GetBundle returns a bundle, soft-deleted or not.
	GetBundle(ctx context.Context, id uuid.UUID) (Bundle, error)
	// ListBundles returns the bundles matching q, ordered by ID.
	ListBundles(ctx context.Context, q BundleQuery) ([]Bundle, error)
	// SetBundleEnabled switches a bundle on or off (allowed for built-in
	// bundles; ModifiedAt is kept). A soft-deleted bundle gives
	// ErrBundleDeleted.
	SetBundleEnabled(ctx context.Context, id uuid.UUID, enabled bool) (Bundle, error)
	// SoftDeleteBundle marks a bundle deleted now; deleting again keeps the
	// first mark. Built-in bundles give ErrBuiltIn.
	SoftDeleteBundle(ctx context.Context, id uuid.UUID) (Bundle, error)

	// PutTool stores a new tool version. An existing <slug, version> in the
	// bundle gives ErrConflict and leaves the stored tool untouched; a
	// missing bundle ErrNotFound; a disabled one ErrBundleDisabled; a
	// soft-deleted one ErrBundleDeleted.
	PutTool(ctx context.Context, key ToolKey, spec ToolSpec) (Tool, error)
	// GetTool returns a tool version, usage counts included.
	GetTool(ctx context.Context, key ToolKey) (Tool, error)
	// ListTools returns the tools matching q in a stable order defined by
	// the store (bundles by ID, then one fixed order within a bundle), so
	// that q.After pages through them without skipping or repeating.
	ListTools(ctx context.Context, q ToolQuery) ([]Tool, error)
	// SetToolEnabled switches a tool version on or off; inside a disabled
	// bundle it gives ErrBundleDisabled, inside a soft-deleted one
	// ErrBundleDeleted. ModifiedAt is kept.
	SetToolEnabled(ctx context.Context, key ToolKey, enabled bool) (Tool, error)
	// DeleteTool removes a tool version for good (allowed in disabled and
	// soft-deleted bundles, which is how a deleted bundle is emptied).
	DeleteTool(ctx context.Context, key ToolKey) error

	// RecordUsage counts one call of a tool at the given time. It never
	// blocks on storage: counts are buffered and written in the
	// background, and none is lost under concurrency. Reads through the
	// same Store see buffered counts at once. Calls of unknown tools are
	// dropped at the write.
	RecordUsage(ctx context.Context, key ToolKey, at time.Time) error
	// ReapDeleted removes the bundles soft-deleted at least
	// SoftDeleteRetention ago (by the store's clock) that hold no tool,
	// and returns their ids.
	ReapDeleted(ctx context.Context) ([]uuid.UUID, error)
	// Close writes buffered usage counts and stops background work.
	Close() error
}

// BundleQuery selects bundles. The zero value lists every enabled bundle
// that is not soft-deleted.
type BundleQuery struct {
	// IDs restricts the list to these bundles; empty means all.
	IDs []uuid.UUID
	// IncludeDisabled also lists disabled bundles.
	IncludeDisabled bool
	// IncludeDeleted also lists soft-deleted bundles.
	IncludeDeleted bool
	// After lists only bundles whose ID sorts after it (a page cursor);
	// uuid.Nil starts at the beginning.
	After uuid.UUID
	// Limit caps the number returned; 0 means no cap.
	Limit int
}

// ToolQuery selects tools. The zero value lists every enabled tool of every
// enabled bundle that is not soft-deleted.
type ToolQuery struct {
	// BundleIDs restricts the list to tools of these bundles; empty means
	// all.
	BundleIDs []uuid.UUID
	// Tags keeps tools carrying at least one of these tags; empty means
	// all.
	Tags []string
	// IncludeDisabled also lists disabled tools and tools of disabled
	// bundles.
	IncludeDisabled bool
	// IncludeDeleted also lists tools of soft-deleted bundles.
	IncludeDeleted bool
	// After lists only tools after this one in the store's order (a page
	// cursor: the key of the last tool of the previous page); the zero
	// ToolKey starts at the beginning. The key need not exist any more.
	After ToolKey
	// Limit caps the number returned; 0 means no cap.
	Limit int
}
