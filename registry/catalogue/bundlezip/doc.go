// Package bundlezip moves a catalogue bundle, with every tool version in
// it, between stores as one ZIP archive: a backup, a copy to another host,
// a bundle handed to a colleague. [Export] writes the archive; [Import]
// reads one and stores the bundle exactly as it was exported (ids,
// timestamps, enabled flags, soft-delete mark, usage counts), all or
// nothing, through [catalogue.Store.ImportBundle].
//
//	var buf bytes.Buffer
//	err := bundlezip.Export(ctx, from, bundleID, &buf)
//	…
//	b, err := bundlezip.Import(ctx, to, bytes.NewReader(buf.Bytes()), int64(buf.Len()), bundlezip.Options{})
//
// An import never overwrites: a bundle id the store already holds gives
// catalogue.ErrBundleExists (a catalogue.ErrConflict). To copy a bundle,
// give its export a new bundle id in bundle.json and import it: tool ids
// are unique within a bundle, so the copy keeps them. [Read] checks and decodes an archive without
// storing it (to show what an upload holds before accepting it).
//
// # Archive layout
//
// The archive holds JSON files only, readable and editable by hand:
//
//	bundle.json                        the manifest
//	tools/<slug>@<version>.json        one entry per tool version
//
// The manifest:
//
//	{"format": "toolpack.catalogue.bundle", "formatVersion": 1,
//	 "bundle": {"id": "<UUIDv7>", "createdAt": "<RFC 3339>", "modifiedAt": "…",
//	            "softDeletedAt": "…",                      (only when soft-deleted)
//	            "spec": {"slug": …, "displayName": …, "description": …, "isEnabled": …}},
//	 "tools": ["tools/echo@1.0.json", …]}                  every tool entry, once
//
// A tool entry:
//
//	{"id": "<UUIDv7>", "slug": "echo", "version": "1.0",
//	 "createdAt": "…", "modifiedAt": "…", "lastCalledAt": "…", (only once called)
//	 "callCount": 0,
//	 "spec": { the body of a tool PUT }}
//
// The spec objects are exactly the bodies of the REST API's PUT routes and
// are read by the same decoders ([catalogue.DecodeBundleSpec],
// [catalogue.DecodeToolSpec]), so an archive can hold nothing a PUT would
// refuse — a literal credential in a header or query parameter among them
// (catalogue.ToolSpec.CheckCredentials): the export of a tool stored
// before that rule is written as it is stored, and its import is refused
// until the credential is a "${NAME}" placeholder. Built-in bundles and
// tools are never exported or imported: they
// come with the program. A "tools/" folder entry, as zip tools add, is
// allowed; nothing else is.
//
// # Reading archives from strangers
//
// Import is written for archives uploaded by anyone. Names inside the
// archive are never used as file-system paths (the store names its own
// files); even so, a name with "..", a leading "/", a backslash, a ':',
// NUL or a control character is refused, as is a name given twice, an
// entry the layout does not have, one the manifest lists and the archive
// lacks, an encrypted or non-regular entry, an entry whose JSON is not
// UTF-8 (named by field and byte offset, the bytes never quoted), and any
// record breaking a catalogue rule. Sizes are capped by [Options]: the archive, the number
// of entries, the bytes each entry and all entries expand to, and the
// expansion ratio of each entry. Expanded bytes are counted as they are
// read, so an entry whose header understates its size (a "lying header")
// is stopped at the cap, and a damaged or truncated archive fails its
// checksum or length check. Memory use stays within a small multiple of
// Options.MaxArchiveBytes plus Options.MaxTotalBytes.
//
// Every problem is one error that wraps catalogue.ErrInvalid: a
// *catalogue.ValidationError listing each problem with the entry at fault
// and, inside an entry, the JSON field ("tools/echo@1.0.json:spec.argSchema").
// An archive above Options.MaxArchiveBytes also wraps [ErrTooLarge].
package bundlezip
