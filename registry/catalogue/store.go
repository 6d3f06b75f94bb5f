package catalogue

import (
	"context"
	"fmt"
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
// [ErrBundleDeleted], [ErrBuiltIn], [ErrLimit], [ErrCorrupt], [ErrClosed],
// and for a store on a database [ErrUnavailable] (with [ErrTimeout] when
// the database did not answer in time).
// Their texts are the same in every store: a missing bundle is "bundle
// {id}: catalogue: not found" (also from PutTool, SetToolEnabled and
// DeleteTool on a bundle that does not exist), a missing tool version
// "tool {slug}@{version} in bundle {id}: catalogue: not found", a taken
// <slug, version> "tool {slug}@{version} in bundle {id}: catalogue:
// conflict".
type Store interface {
	// PutBundle creates the bundle or replaces its slug, display name,
	// description and enabled flag; created reports which. ID and
	// CreatedAt never change; SlugSince is set now when the bundle is
	// created or its slug changes. A soft-deleted bundle gives ErrBundleDeleted,
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
	// ListTools returns the tools matching q in one order, the same in
	// every store ([ToolKey.Compare]: bundle id, then slug, then version,
	// byte by byte), so that q.After pages through them without skipping
	// or repeating.
	ListTools(ctx context.Context, q ToolQuery) ([]Tool, error)
	// SetToolEnabled switches a tool version on or off; inside a disabled
	// bundle it gives ErrBundleDisabled, inside a soft-deleted one
	// ErrBundleDeleted. ModifiedAt is kept.
	SetToolEnabled(ctx context.Context, key ToolKey, enabled bool) (Tool, error)
	// DeleteTool removes a tool version for good (allowed in disabled and
	// soft-deleted bundles, which is how a deleted bundle is emptied).
	DeleteTool(ctx context.Context, key ToolKey) error

	// ImportBundle stores a bundle and its tools exactly as given (ids,
	// timestamps, enabled flags, soft-delete mark, usage counts), as a
	// restore from an export does; tools carry the bundle's id. The
	// bundle's SlugSince alone is the store's: the time of the import. It is all
	// or nothing: on any error nothing is stored, and a crash part-way
	// never leaves part of the bundle visible. The records are checked
	// with the rules of PutBundle and PutTool (ids UUIDv7, slugs,
	// versions, specs, schemas) plus their own: createdAt and modifiedAt
	// set, callCount not negative, lastCalledAt set when callCount is
	// positive, tool ids distinct within the bundle. A tool id is unique
	// within its bundle only, so a copy of a bundle (its export given a
	// new bundle id) imports with its tools' ids. Problems give
	// ErrInvalid with fields "bundle.…" and "tools[i].…"; built-in
	// records too (an import never creates a built-in). A bundle id that
	// already exists (in any state) gives ErrBundleExists, a <slug,
	// version> given twice ErrConflict; more tools than the store allows
	// per bundle ErrLimit. Timestamps are stored in UTC at
	// microsecond precision, like every other timestamp of the store.
	ImportBundle(ctx context.Context, b Bundle, tools []Tool) error

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

// CheckBundlePut checks the arguments of [Store.PutBundle] and returns
// nil or a [*ValidationError] naming every field at fault ("bundleID" and
// the spec's fields). Every Store implementation calls it first.
func CheckBundlePut(id uuid.UUID, spec BundleSpec) error {
	var p problems
	if err := ValidateID(id); err != nil {
		p.add("bundleID", "%v", err)
	}
	p.merge(spec.Validate())
	return p.err()
}

// CheckToolPut checks the arguments of [Store.PutTool] and returns nil or
// a [*ValidationError] naming every field at fault (the key's and the
// spec's, [ToolSpec.Validate] and the rule of writes,
// [ToolSpec.CheckCredentials]). Every Store implementation calls it
// first.
func CheckToolPut(key ToolKey, spec ToolSpec) error {
	var p problems
	p.merge(key.Validate())
	p.merge(spec.Validate())
	p.mergeNew(spec.CheckCredentials())
	return p.err()
}

// CheckImport checks the records of [Store.ImportBundle] and returns
// normalised copies (timestamps in UTC at microsecond precision, the
// bundle's id on every tool). It returns a [*ValidationError] (fields
// "bundle.…" and "tools[i].…") for records breaking a rule (those of
// [ToolSpec.Validate] and [ToolSpec.CheckCredentials]), or an error
// wrapping ErrConflict for a <slug, version> given twice. Every Store
// implementation calls it first, so that all of them accept the same
// imports.
func CheckImport(b Bundle, tools []Tool) (Bundle, []Tool, error) {
	var p problems
	if err := ValidateID(b.ID); err != nil {
		p.add("bundle.id", "%v", err)
	}
	var bp problems
	bp.merge(b.BundleSpec.Validate())
	for _, f := range bp.list {
		p.add(under("bundle", f.Field), "%s", f.Problem)
	}
	if b.BuiltIn {
		p.add("bundle.builtIn", "expected false: an import never creates a built-in bundle")
	}
	b.CreatedAt = checkStamp(&p, "bundle.createdAt", b.CreatedAt)
	b.ModifiedAt = checkStamp(&p, "bundle.modifiedAt", b.ModifiedAt)
	if b.SoftDeletedAt != nil {
		at := checkStamp(&p, "bundle.softDeletedAt", *b.SoftDeletedAt)
		b.SoftDeletedAt = &at
	}
	out := make([]Tool, len(tools))
	ids := make(map[[16]byte]int, len(tools))
	pairs := make(map[[2]string]int, len(tools))
	var conflict error
	for i, t := range tools {
		path := fmt.Sprintf("tools[%d]", i)
		if err := ValidateID(t.ID); err != nil {
			p.add(child(path, "id"), "%v", err)
		} else if j, dup := ids[t.ID]; dup {
			p.add(child(path, "id"), "expected a distinct id, got the id of tools[%d]", j)
		} else {
			ids[t.ID] = i
		}
		if t.BundleID != b.ID {
			p.add(child(path, "bundleID"), "expected the bundle's id %s, got %s", b.ID, t.BundleID)
		}
		t.BundleID = b.ID
		if err := ValidateSlug(t.Slug); err != nil {
			p.add(child(path, "slug"), "%v", err)
		}
		if err := ValidateVersion(t.Version); err != nil {
			p.add(child(path, "version"), "%v", err)
		}
		var tp problems
		tp.merge(t.ToolSpec.Validate())
		tp.mergeNew(t.ToolSpec.CheckCredentials())
		for _, f := range tp.list {
			p.add(under(path, f.Field), "%s", f.Problem)
		}
		if t.BuiltIn {
			p.add(child(path, "builtIn"), "expected false: an import never creates a built-in tool")
		}
		t.CreatedAt = checkStamp(&p, child(path, "createdAt"), t.CreatedAt)
		t.ModifiedAt = checkStamp(&p, child(path, "modifiedAt"), t.ModifiedAt)
		if t.CallCount < 0 {
			p.add(child(path, "callCount"), "expected zero or more, got %d", t.CallCount)
		}
		if t.LastCalledAt != nil {
			at := checkStamp(&p, child(path, "lastCalledAt"), *t.LastCalledAt)
			t.LastCalledAt = &at
		} else if t.CallCount > 0 {
			p.add(child(path, "lastCalledAt"), "expected the time of the last call, since callCount is %d", t.CallCount)
		}
		pair := [2]string{t.Slug, t.Version}
		if j, dup := pairs[pair]; dup && conflict == nil {
			conflict = fmt.Errorf("tools[%d] and tools[%d] are both %s@%s: %w", j, i, clip(t.Slug), clip(t.Version), ErrConflict)
		} else if !dup {
			pairs[pair] = i
		}
		out[i] = t
	}
	if err := p.err(); err != nil {
		return Bundle{}, nil, err
	}
	if conflict != nil {
		return Bundle{}, nil, conflict
	}
	return b, out, nil
}

// CheckReservation checks the argument of
// [BuiltInReserver.ReserveBuiltIn] with the rules of PutBundle ("bundleID"
// and the spec's fields) and a set "createdAt", and returns the record to
// store: built-in, no soft-delete mark, timestamps in UTC at microsecond
// precision, a zero ModifiedAt or SlugSince taken as CreatedAt. Every
// BuiltInReserver calls it first.
func CheckReservation(b Bundle) (Bundle, error) {
	var p problems
	if err := ValidateID(b.ID); err != nil {
		p.add("bundleID", "%v", err)
	}
	p.merge(b.BundleSpec.Validate())
	created := checkStamp(&p, "createdAt", b.CreatedAt)
	if err := p.err(); err != nil {
		return Bundle{}, err
	}
	or := func(t time.Time) time.Time {
		if t.IsZero() {
			return created
		}
		return t.UTC().Truncate(time.Microsecond)
	}
	return Bundle{ID: b.ID, BundleSpec: b.BundleSpec, BuiltIn: true, CreatedAt: created,
		ModifiedAt: or(b.ModifiedAt), SlugSince: or(b.SlugSince)}, nil
}

// checkStamp requires a set timestamp and returns it in the store's form.
func checkStamp(p *problems, field string, t time.Time) time.Time {
	if t.IsZero() {
		p.add(field, "expected a timestamp (RFC 3339), got none")
		return t
	}
	return t.UTC().Truncate(time.Microsecond)
}

// under prefixes a field path with the record it belongs to.
func under(record, field string) string {
	if field == "" {
		return record
	}
	if field[0] == '[' {
		return record + field
	}
	return record + "." + field
}
