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
//
// Each pack built by New has its own in-memory store (at most MaxDocuments
// documents), so hosts and tests do not share state. New follows the one
// pattern every pack follows (packs/README.md): a constructor returning a
// *registry.Pack built with registry.AddFunc.
package example
