// Package results keeps tool outputs too large to return at once, and
// serves them page by page: the store behind ot.result.
//
// A model's context is small and precious; a tool that returns a
// million-line log or a 20 MB JSON document would fill it. Install the
// Store's middleware in a registry and such a result is written to disk;
// the caller gets a small handle object instead:
//
//	{"handle": "3f9c…", "total_lines": 1000000, "size_bytes": 11888895,
//	 "summary": "text: 1,000,000 lines, 11,888,895 bytes",
//	 "preview": ["line 1", "line 2", …],
//	 "query": "ot.result(handle=\"3f9c…\", offset=11, limit=100)"}
//
// and reads on with the call in query, or searches the output:
//
//	st, err := results.Open(ctx, results.Options{Dir: "/var/lib/myhost/results"})
//	if err != nil { … }
//	defer st.Close()
//	reg.Use(st.Middleware())
//	…
//	page, err := st.Query(ctx, results.Request{Handle: h, Offset: 101, Limit: 50})
//	page, err = st.Query(ctx, results.Request{Handle: h, Offset: 1, Limit: 100, Search: "error|warn"})
//
// # Options
//
// Options mirrors the host configuration's output section:
// max_inline_bytes (MaxInlineBytes, 50,000), dir (Dir, required) and ttl
// (TTL, one hour); the other fields size lines, pages, the per-output cap
// (64 MiB, counting an output's text and its line index together, so that
// a text of millions of empty lines cannot take eight times the cap) and
// the directory's budget (1 GiB), and have defaults.
//
// # Lines and pages
//
// A stored text is a sequence of lines: it is split after each '\n' (a
// line ended by "\r\n" reads, and matches a search, without its '\r'), a
// final '\n' does not start an empty line, and a line longer than
// Options.MaxLineBytes (its "\n" or "\r\n" not counted) is stored as
// several lines (pieces cut between characters), so that every byte can be
// reached page by page. Offsets are
// 1-indexed, as in Claude's Read tool. A page holds Limit lines, or fewer
// when it reaches Options.MaxPageLines or Options.MaxPageBytes or the end;
// Returned and HasMore say which.
//
// Beside each output the store writes a line index: the byte offset where
// every line starts, fixed-width. A page is therefore one read of its
// offsets and one read of its text, and costs the same on the first page
// of a 1 GiB output as on its last (BENCHMARKS.md has the figures).
//
// # Search
//
// Search keeps only the matching lines before Offset and Limit apply.
// Normally it is a regular expression (RE2 syntax, package regexp) matched
// against each line; the scan stops once the page and one more match are
// found. With Fuzzy it is a text to look for, case-insensitively, allowing
// for typos: every line is scored by the fewest edits (a character
// inserted, removed, replaced, or two neighbours swapped) that turn the
// text into some part of the line — 1 for a line holding the text, 1 − k/n
// for k edits of an n-character text, at most n/4 edits — and the best
// matches come first: fewest edits, then the line the text covers more of
// (the line "config" before "configuration loaded"), then line order; the
// MaxFuzzyResults best are kept. Options.Fuzzy replaces that scorer. Every search reads the output
// sequentially through fixed buffers, whatever its size, and stops at
// Options.SearchTimeout (ErrSearchLimit) or when ctx ends, within about
// one line's work: the scan looks at its context as often as the work
// done requires, weighing each line by its length times the matcher's
// cost per byte (for a regular expression, the size of its compiled
// program, since Go's regexp costs up to the line's length times that;
// a 16 KB line against [a-j]{1000}Z takes most of a second). A single
// line being matched is not interrupted, so a line of MaxLineBytes
// against a very large expression can overrun the limit by that line.
//
// # Lifetime and safety
//
// Outputs expire TTL after they are stored: a goroutine the Store owns
// removes them every Options.SweepInterval (and Close stops it), and a
// query finding one expired reports so. A removed output leaves a small
// tombstone for one TTL, and at least TombstoneKeep (a day), so that its
// handle is reported expired (ErrExpired) rather than unknown
// (ErrNotFound). The directory is kept
// within Options.MaxDirBytes by removing the oldest outputs first.
//
// # Where outputs are kept
//
// By default in the files of Options.Dir. Options.Backend puts them
// elsewhere: registry/results/pgresults keeps them in PostgreSQL, so that
// every host given the same database serves the handles any of them
// returned (the host configuration's output.dsn). A Backend keeps the two
// byte strings of each output — its text and its line index — and the
// Store does the rest (lines, pages, search, expiry, the budget, the
// messages), so paging costs one read of offsets and one read of text on
// every Backend.
//
// Outputs survive a restart: a new Store on the same directory serves the
// handles of the old one until they expire. Files are written under
// temporary names and renamed into place, the index last (Options.Sync
// flushes them to disk first); an output without its index, or whose index
// does not agree with its text, is never served. Handles are 128 random bits (crypto/rand) written as
// 32 hexadecimal characters, checked before any file name is built from
// them, so a handle cannot name a path. Files are created with mode 0600.
//
// # Failures
//
// Query's failures a model can act on are *Error values whose text is
// written for it — offset and limit below 1 give the seed's messages
// verbatim ("offset must be >= 1 (1-indexed), got 0", "limit must be >= 1,
// got 0") — and errors.Is tells their kind: ErrInvalidQuery, ErrNotFound,
// ErrExpired, ErrSearchLimit, ErrCorrupt.
package results
