// Package example is the conditional example pack of seed 004: a few small
// tools that show the conventions, included by a host only when
// MCP_INCLUDE_EXAMPLE_TOOLS is exactly "true" (see Enabled and Register).
//
// Tools (undecorated names; a registry may add a prefix):
//
//	echo             returns its text, optionally upper-cased (read-only)
//	add              adds two integers in [-1000000, 1000000] (numeric bounds)
//	text_stats       counts characters, words and lines; structured result
//	                 with an output schema validated by the registry
//	create_document  stores a document; destructive, requires the consent
//	                 phrase CREATE_DOCUMENT (args.Consent), so its description
//	                 carries "REQUIRES EXPLICIT USER INSTRUCTION"
//	get_document     reads a document back; an unknown id is a not_found
//	                 domain failure
//	list_documents   lists the stored documents' ids and titles: an array
//	                 result
//	delete_document  deletes a document and returns no value (nil), with a
//	                 message; requires the consent phrase DELETE_DOCUMENT
//	is_prime         tells whether an integer is prime: a boolean result
//	lines            returns count lines "line 1" … "line N" (N up to
//	                 MaxLines): a large output on demand, to try a host's
//	                 result store (registry/results) from any client
//	count            counts to n with a delay before each number: a
//	                 long-running tool that reports progress
//	                 (registry.ReportProgress) and stops when cancelled
//
// Between them the tools return every kind of result an adapter maps: a
// string (echo), a number (add), an object (text_stats, the documents), an
// array, a boolean, no value, a domain failure and a validation failure,
// so a host serving the pack exercises all of them.
//
// Each pack built by New has its own in-memory store (at most MaxDocuments
// documents), so hosts and tests do not share state. New follows the one
// pattern every pack follows (packs/README.md): a constructor returning a
// *registry.Pack built with registry.AddFunc.
package example
