// Package searchindex answers catalogue searches (GET /tools/search)
// from an in-memory index instead of reading and scoring every tool per
// request, with exactly the same results.
//
// # Use
//
// Wrap the catalogue store once at start and use the wrapped store for
// everything, so that every write reaches the index:
//
//	fs, err := catalogue.OpenFileStore(ctx, dir, catalogue.FileOptions{})
//	…
//	st, err := searchindex.Wrap(ctx, fs, searchindex.Options{ResyncInterval: time.Minute})
//	…
//	defer st.Close() // closes fs too
//	api, err := catalogueapi.New(catalogueapi.Options{Store: st, Searcher: st})
//
// Wrap reads every bundle and tool once (the index is rebuilt at every
// start; nothing is persisted). Each successful PutTool, SetToolEnabled,
// DeleteTool, PutBundle, SetBundleEnabled, SoftDeleteBundle and
// ReapDeleted through the returned Store updates the index before the
// call returns, so a search made after a write sees it. Writes made by
// other processes sharing the data directory are seen after Resync (call
// it, or set Options.ResyncInterval); until then a tool deleted or
// disabled elsewhere is left out of the page it would appear on, since
// the page's tools are always read back from the store.
//
// # Ranking
//
// Every Searcher here (and ftsindex's, over SQLite FTS5) ranks alike, and the same as before the index
// existed: the toolpack's ranked search (internal/search: prefix >
// whole word > substring > fuzzy, summed over the query's terms) over the
// slug and the display name (each standing as the name) and the
// description and tags, then modifiedAt (recent first), then bundle id,
// slug and version. Disabled tools and tools of disabled bundles are left
// out unless Query.IncludeDisabled; tools of soft-deleted bundles always.
// [Scan] is that ranking without an index; the tests hold the index
// equal to it, page by page, over random catalogues, writes and queries.
//
// A page ends with a Cursor (score, modifiedAt, key): the next page holds
// the tools ranked after it, so paging neither skips nor repeats a tool
// while others are added or removed.
//
// # How it is fast
//
// A query is not scored against every tool. For each term the index
// finds candidates: tools holding the term literally (through the
// trigrams of the distinct runs of letters and digits of all tools'
// text; a run of 1 or 2 bytes by reading the distinct runs) or within the
// fuzzy edit distance of one of their words (through a trie of the
// distinct words, walked with the edit distance table) or of a whole
// name (a second trie). Each candidate gets an upper bound of its score
// from where its terms may hit (the start of a name, a name, the text,
// a name or the text fuzzily; an exact name), and candidates are scored
// with the ranking's own code best bound first and newest first: once
// the page is full, a candidate whose bound is below the page's worst
// score, or equal to it but older, is skipped unscored. A query of
// common words thus scores little more than a page of tools. Terms made
// only of separators ("--") narrow nothing: such queries score every
// tool, as the scan does, but without reading the store.
//
// The index keeps each tool's lower-cased text and word boundaries in
// memory, roughly 1 KB per tool plus the postings (about 300 MB for
// 100,000 tools with descriptions of a few dozen words). Deleted tools
// leave holes that are compacted once they outnumber the live tools; the
// vocabulary of words only grows until the next Resync.
package searchindex
