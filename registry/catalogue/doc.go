// Package catalogue holds tools defined as data: bundles of versioned
// tools that a client PUTs as JSON, each either a Go function registered
// with the host (type "go") or an outbound HTTP request built from
// templates (type "http").
//
// This package is the data and storage layer: the types ([Bundle],
// [Tool], [ToolSpec]), their rules and strict JSON decoders, and the
// [Store] interface with its default implementation, a directory of
// human-readable JSON files ([OpenFileStore]).
//
// # Identity and rules
//
// Bundles and tools carry UUIDv7 ids. Within a bundle a tool version is
// identified by <slug, version> ([ToolKey]); the same pair may repeat in
// other bundles. A tool id is unique within its bundle: a copy of a
// bundle, imported under a new bundle id, keeps its tools' ids. Slugs are 1 to 64 runes of Unicode letters, digits and
// the ASCII dash; versions may also hold dots. Both are case-sensitive and
// versions are opaque labels (no ordering).
//
// A version, once PUT, is never replaced: a second PUT of the same
// <slug, version> fails with [ErrConflict] and leaves the stored tool as it
// was. Only its enabled flag changes afterwards; publish a new version to
// change a tool.
//
// # Decoding client input
//
// [DecodeBundleSpec], [DecodeToolSpec] and [DecodeEnabledPatch] read a
// request body with a size cap, reject unknown and repeated fields at any
// depth, compile the argument and output schemas, and report every problem
// at once as a [*ValidationError] whose fields name the JSON path and what
// was expected:
//
//	spec, err := catalogue.DecodeToolSpec(r.Body)
//	var ve *catalogue.ValidationError
//	if errors.As(err, &ve) {
//		// 400 with ve.Fields
//	}
//
// # Credentials
//
// The catalogue serves what it stores (GET, listings, exports), so no
// credential is stored in clear. [HTTPAuth]'s credentials must be a single
// "${NAME}" placeholder ([ToolSpec.Validate]), filled from the host's
// secrets at invocation. A header or query parameter whose name says it
// carries a credential ([CredentialName], read from the name's words:
// Authorization, Proxy-Authorization, Cookie, X-API-Key, api_key,
// X-Auth-Token, access_token, client_secret, password_hash…, by the
// name's words; not keyword, author, sort_key, token_type or
// oauth_version)
// must hold a placeholder too
// ("Bearer ${TOKEN}"), in [HTTPRequest]'s Headers and Query and in the
// URL template's query and fragment (pairs joined by '&' or ';'), and
// every word of the text outside its placeholders (words being separated
// by space, tab, ':', ',', ';', '=', '&' and '"') must be a scheme word
// (Bearer, Basic, Token, Digest, ApiKey, AWS4-HMAC-SHA256, vendors' Bot,
// SSWS, DeepL-Auth-Key…, algorithms such as MD5, in any case; a scheme the
// list lacks goes inside the secret: "${DISCORD_AUTH}"), a parameter's or
// cookie's name before '=' and a value (letters, '_', '-', '.'), or a short
// plain value after '=' (up to 16 letters, '-', '.', '_', or a version such
// as 1.0) of a parameter whose name does not say it carries a credential
// (not password=, secret=): "Bearer ${TOKEN}", "${USER}:${PASS}",
// "sid=${SID}", "AWS4-HMAC-SHA256 Credential=${AK}, SignedHeaders=host,
// Signature=${SIG}" pass, while any other word beside a placeholder
// ("Bearer sk-live-abc ${X}", "dXNlcjpwYXM= ${X}", "sid=${SID};
// other=abc123") is refused like
// a literal written
// alone. That rule ([ToolSpec.CheckCredentials]) applies
// when a tool is written — [DecodeToolSpec], [CheckToolPut] and
// [CheckImport], so every store and the REST API — and not when one is
// read: a tool stored before it still loads, is listed and runs. Its
// problems name the field (httpImpl.request.headers["Authorization"]) and
// never show the value; nor do a URL template's problems quote the
// template, which may hold a key.
//
// # Storing
//
// Every store method takes a context first and returns errors wrapping the
// package's sentinels ([ErrNotFound], [ErrConflict], [ErrBundleDisabled],
// [ErrBundleDeleted], …), so an HTTP layer maps them to statuses with
// errors.Is. Nothing can be put or patched inside a disabled or
// soft-deleted bundle. A soft-deleted bundle is removed by the reaper
// [SoftDeleteRetention] (two days) later, once it holds no tool. Another
// back-end implements the same interface and proves it with the suite in
// package storetest: package pgstore keeps the catalogue in PostgreSQL,
// for several hosts sharing one catalogue.
//
// The file store makes every write atomic (temporary file, fsync, rename,
// fsync of the directory) and takes a per-bundle file lock, so several
// processes may share one directory and <slug, version> stays unique
// across all of them. A directory left by a crashed process always opens:
// temporary files are cleaned, and a file that is not a whole record is
// skipped and reported by [FileStore.Problems].
//
// A host sharing a store with others learns of their changes through
// [Watcher]: [FileStore.Watch] polls the directory's change counter, which
// every change made through a FileStore increments (within
// [DefaultWatchInterval] by default), [BuiltInStore.Watch] adds the
// switches of built-ins, and the PostgreSQL store listens to the
// database. Each reports only the changes made elsewhere; the host then
// re-reads the catalogue (cataloguehost's Sync). [BundleWatcher]'s
// WatchBundles (the file, built-in and PostgreSQL stores) also names the
// bundles the changes touched, so that a host re-reads only those
// (searchindex's ResyncBundles, cataloguehost's SyncBundles):
//
//	go store.Watch(ctx, func() {
//		if err := cat.Sync(ctx); err != nil {
//			log.Warn("catalogue: re-reading after another host's change", "err", err)
//		}
//	})
//
// Built-in bundles ([WithBuiltIns]: tools compiled into the host) are
// read-only but for their enabled switches, which, with their first-served
// times and usage counts, make up the built-ins overlay: a file in
// BuiltInOptions.Dir shared by the processes on that directory, or, over a
// store that keeps it ([BuiltInsKeeper]: the PostgreSQL store), a document
// in the store shared by every host on it. Their ids are reserved in the
// store ([BuiltInReserver]: the file and PostgreSQL stores), so that a
// host sharing it without those built-ins cannot take one; a bundle
// stored under a built-in's id before that is logged and left out by the
// hosts that have the built-in, which serve theirs in its place.
//
// The key signing the catalogue API's page tokens is kept by the store
// ([PageTokenKeeper]: a 0600 file in the file store's directory, a row in
// the PostgreSQL store), made once by the first process to ask, so that a
// page token one host returned is accepted by every host on the store and
// after a restart.
//
// Usage metrics ([Store.RecordUsage]) never block a call: counts are
// buffered in memory and written in the background and at Close.
//
// # Upgrading a shared catalogue
//
// Move every host on one catalogue to a release together. On PostgreSQL
// an older release refuses a schema a newer one migrated (the schema is
// "too new"). A file catalogue has no such mark: an older release serving
// built-ins refuses to start once a newer one has reserved the built-ins'
// ids in the directory ("the store already holds a bundle with this id");
// going back means removing those records (bundles/{id} of a built-in
// bundle, builtIn true and no tools). A page token issued before an
// upgrade that changed the listing order may skip or repeat tools when
// the key signing it is kept (the order of tools is bundle, slug, version,
// byte by byte, in every store since the stores were made to agree).
package catalogue
