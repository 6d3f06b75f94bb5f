// Package ftsindex answers catalogue searches from an SQLite FTS5 index
// (modernc.org/sqlite, pure Go: no cgo) instead of the in-memory index of
// package searchindex. Use it when the in-memory index's memory (about
// 3 KB per tool) matters more than its speed and its typo tolerance.
//
// # Use
//
// Like searchindex.Wrap, wrap the catalogue store once at start and use
// the wrapped store for every write, so that every write reaches the
// index:
//
//	st, err := ftsindex.Wrap(ctx, fs, ftsindex.Options{})
//	…
//	defer st.Close() // closes fs too
//	api, err := catalogueapi.New(catalogueapi.Options{Store: st, Searcher: st})
//
// The index lives in an in-memory SQLite database, rebuilt from the store
// at every start (nothing is persisted). Each successful write through
// the returned Store (PutTool, SetToolEnabled, DeleteTool, PutBundle,
// SetBundleEnabled, SoftDeleteBundle, ImportBundle, ReapDeleted) updates
// it before the call returns; writes by other processes are seen after
// Resync.
//
// # How it ranks, and where it differs from searchindex
//
// FTS5 only retrieves candidates: the tools whose slug, display name,
// description or tags hold every query term of 3 or more characters as a
// substring (a trigram index over the text lower-cased as the ranking
// lower-cases it, so case folding is the ranking's own). The candidates
// are then scored and ordered by the same ranking as every
// searchindex.Searcher (searchindex.ScoreTool, then modifiedAt, bundle
// id, slug and version), with the same cursors.
//
// The results therefore equal searchindex.Store's (and searchindex.Scan's)
// except for one kind of match: a tool that matches some query term only
// fuzzily (by a typo: "wether" for weather) is not retrieved, since
// FTS5 finds only literal substrings. A tool that holds every term
// literally is found and ranked exactly as searchindex ranks it, so a
// page lists the same tools in the same order whenever no tool of the
// catalogue matches the query by a typo alone. Queries whose terms are
// all shorter than 3 characters cannot use the trigram index: every
// visible tool is scored, as searchindex.Scan does.
package ftsindex
