// Package catalogueapi serves the tools catalogue (package catalogue) over
// HTTP: bundles and versioned tools created, toggled, listed, searched and
// invoked as JSON.
//
// # Mounting
//
// A [Handler] serves its routes relative to its own root. The host mounts
// it under /tools by stripping that prefix:
//
//	api, err := catalogueapi.New(catalogueapi.Options{Store: store, Invoker: inv})
//	mux.Handle("/tools/", http.StripPrefix("/tools", api))
//
// The routes, relative to the mount point:
//
//	PUT    /bundles/{bundleID}                                      create or replace a bundle
//	PATCH  /bundles/{bundleID}                                      {"isEnabled": …}
//	DELETE /bundles/{bundleID}                                      soft-delete
//	GET    /bundles?bundleIDs&includeDisabled&pageSize&pageToken
//	GET    /bundles/{bundleID}/export                               the bundle as a ZIP (package bundlezip)
//	POST   /bundles/import                                          a ZIP export → 201 with the bundle (a new id in
//	                                                                bundle.json makes a copy; tool ids are per bundle)
//	PUT    /bundles/{bundleID}/tools/{toolSlug}/version/{version}   create a version (409 if it exists)
//	PATCH  /bundles/{bundleID}/tools/{toolSlug}/version/{version}   {"isEnabled": …}
//	DELETE /bundles/{bundleID}/tools/{toolSlug}/version/{version}   delete for good
//	GET    /bundles/{bundleID}/tools/{toolSlug}/version/{version}
//	POST   /bundles/{bundleID}/tools/{toolSlug}/version/{version}/invoke   {"args": {…}}
//	GET    /tools?tags&bundleIDs&includeDisabled&recommendedPageSize&pageToken
//	GET    /tools/search?q&includeDisabled&pageSize&pageToken
//	GET    /openapi.json                                            the OpenAPI 3.1 document
//
// [Handler.OpenAPI] returns the same document for a host that merges it
// into its own.
//
// # Input and errors
//
// Path parameters, query parameters and bodies are checked strictly and
// every problem is reported at once: a 400 answer's body is
//
//	{"ok": false, "error": "…", "errorType": "invalid_input",
//	 "fields": [{"field": "slug", "problem": "expected …"}, …]}
//
// Unknown query parameters and body fields are refused, never ignored; so
// are repeated body fields, and bodies that are not UTF-8 (named by the
// field holding the bytes and their offset; encoding/json would have made
// U+FFFD of them).
// Other answers use the same body with their own errorType:
//
//	403 built_in                 a change to a built-in bundle or tool other than isEnabled
//	404 not_found                no such bundle, tool or route
//	405 method_not_allowed       with an Allow header
//	409 conflict                 PUT of an existing <slug, version> (the stored tool is unchanged); import of an existing bundle id,
//	                             or of an archive holding one <slug, version> twice (the message says which)
//	409 bundle_disabled          a put or patch inside a disabled bundle, or a call of its tools
//	409 bundle_deleted           the same for a soft-deleted bundle
//	409 tool_disabled            a call of a disabled tool
//	413 payload_too_large        a body above the catalogue's caps (catalogue.Max*BodyBytes, MaxInvokeBodyBytes, MaxImportBodyBytes)
//	414 query_too_long           a query string above MaxQueryBytes
//	415 unsupported_media_type   a body whose Content-Type is not application/json (application/zip for an import)
//	422 limit_reached            a catalogue cap (tools per bundle) would be exceeded
//	501 not_implemented          invoke without an Invoker
//	502 upstream_failure         the Invoker returned an error
//	503 unavailable              the store is closed, its database cannot be reached or
//	                             is busy (did not answer in time: a statement or lock
//	                             timeout; both with Retry-After, the error saying which),
//	                             or the request was cancelled
//
// Bad input never answers 500; 500 means the store failed (the cause is
// logged, not sent).
//
// Credentials are never stored in clear: an http tool's auth credentials
// (auth.token, password, value, secret, clientSecret) must be a single
// "${NAME}" placeholder, and a header or query parameter whose name says it
// carries a credential (catalogue.CredentialName: Authorization,
// Proxy-Authorization, Cookie, X-API-Key, X-Auth-Token, api_key,
// access_token…, read from the name's words) must hold one ("Bearer ${TOKEN}")
// with nothing but a scheme word and separators beside it,
// in the headers and query maps and in urlTemplate's query alike. A PUT or
// an import breaking this is refused with 400 naming the field
// (httpImpl.request.headers["Authorization"]) and never echoing the value
// (catalogue.ToolSpec.CheckCredentials). Tools stored before the rule
// still load, are served and run; an export of one cannot be imported
// until the credential is replaced by a placeholder.
//
// # Paging
//
// Listings answer one page and a nextPageToken while more remain. Tokens
// are opaque and signed (HMAC-SHA256 with Options.PageTokenKey: give the
// key the store keeps, catalogue.PageTokenKeeper, so that every host on
// the catalogue accepts the others' tokens, and after a restart); they
// carry where the page ended and a digest of the listing's filters, so a
// token altered, forged, or replayed with other filters or on another
// route is refused with 400. The page size may change between pages. A
// page resumes after the last item of the previous one, so paging never
// skips or repeats an item that exists throughout, however other items
// are added or removed meanwhile. pageSize above the maximum
// (Options.MaxPageSize) is refused; recommendedPageSize, a wish, is
// lowered to it. Repeat tags (tags=a&tags=b); bundleIDs may also be
// comma-separated.
//
// # Search
//
// GET /tools/search ranks tools with the toolpack's ranked search: a
// term that starts the slug or the display name ranks above a whole word,
// which ranks above a fuzzy match (typos), over slug, display name,
// description and tags; equal scores put the recently modified first.
// Disabled tools and tools of disabled bundles are left out unless
// includeDisabled=true. Without Options.Searcher every search reads the
// whole store; give it a searchindex.Store (the store wrapped with an
// in-memory index updated on every write) to answer from memory.
//
// # Invocation
//
// POST …/invoke reads a body as strict as the PUT bodies' — exactly
// {"args": {…}}, args once, UTF-8, nested at most catalogue.MaxJSONDepth
// levels inside args, no byte order mark; each refusal (400) says which
// rule failed — checks that the tool and its bundle are enabled, validates
// args against the tool's argSchema (every violation listed, 400), calls
// the [Invoker] and answers 200 with {"ok": true, "value": …} or, for a
// failure the tool reported, {"ok": false, "error": …, "errorType": …}.
// The call is counted (lastCalledAt, callCount) by Store.RecordUsage in the
// background, never delaying the answer — unless the Invoker counts it
// (Options.InvokerRecordsUsage). A host that serves the catalogue's tools
// through a registry passes cataloguehost's Catalogue.Invoker: the call
// then runs as the registry's tool, through every middleware (statistics,
// logging, telemetry, limits), exactly as an MCP or REST call of it.
package catalogueapi
