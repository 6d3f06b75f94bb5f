// Package ot is the pack a host serves so that a model (or a person) can
// find its way around the host: which tools, packs, aliases and snippets
// there are and how to call them, what the configuration says, whether
// the remote MCP servers are up, what the calls cost, and how to read a
// large output that was stored instead of returned.
//
//	reg := registry.New(registry.Options{})
//	… add the host's packs …
//	p, err := ot.New(ot.Config{Registry: reg})
//	if err != nil { … }
//	if err := reg.AddPack(p); err != nil { … }
//
// # Tools
//
//	ot.tools(pattern, info)     the tools; pattern keeps names containing it (case-insensitive)
//	ot.packs(pattern, info)     the packs, local or proxied (remote MCP servers)
//	ot.aliases(pattern, info)   the aliases; pattern matches name or target
//	ot.snippets(pattern, info)  the snippets; pattern matches name or description
//	ot.help(query, info)        general help, one item's documentation, or a search
//	ot.config()                 aliases, snippets and servers as configured
//	ot.health()                 version, Go version, working directory, registry, proxied servers,
//	                            databases (Config.Databases)
//	ot.version()                the version string
//	ot.reload()                 re-read the configuration (Config.Reload)
//	ot.notify(topic, message)   append a message to the topic's file
//	ot.stats(period, tool, output)                     call statistics (Config.Stats)
//	ot.result(handle, offset, limit, search, fuzzy)    a page of a stored output (Config.Results)
//
// info is list (names), min (the default: names with a short description)
// or full (everything known). Failures are failed Results: an unknown
// period or an offset below 1 is a validation_error whose text says what
// is expected and whose error data names the argument (an argument the
// result store refuses too, when it says which: QueryError), a missing
// handle is not_found. ot.stats's tool is a tool's
// name as listed, or an alias (its tool's statistics: calls are recorded
// under the tool that ran).
//
// Under a registry prefix every text of the pack that names an ot tool
// (the general help, the no-match answers, ot.stats's unknown period)
// names it as it is called (guide_ot.tools()); without one the seed's
// texts are word for word. A caller's value repeated in a message is
// never rewritten.
//
// # What the pack reads
//
// The tools, packs and aliases come from the registry in Config.Registry
// (the enabled tools: a switched-off tool is not offered). Everything the
// host's configuration decides comes through Config's functions and
// interfaces, called on every call, so that a reload is visible at once
// and the pack never imports the packages that implement them: snippets
// (SnippetSource), per-pack instructions, server states, notification
// topics, statistics (StatsSource), stored outputs (ResultStore), reload,
// and the ranking of ot.help's search (RankFunc; DefaultRank when nil).
//
// For a tool at info full, the signature is the call a model makes,
// derived from the input schema: required parameters plain, optional ones
// with their default or '...' (github.search(query: str, repo: str =
// '...')); a proxied tool's Usage.Signature, which the proxy derives the
// same way, is used with one change: under a registry prefix the proxy's
// undecorated name (remote.add) becomes the name a client calls
// (tp_remote.add), as in every signature and example call ot shows
// (ot.tools, ot.help, the Go signature at info full). args are
// "name: description" lines in the signature's order (required first),
// the proxy's Usage.Args for a proxied tool, else read from the input
// schema; ot.help lists the arguments in that order too.
// returns names the value's type the same way (str, int, list, dict), from
// the output schema — Any for a tool whose value may be any JSON — so a
// local tool and its proxied copy read alike.
//
// # Output
//
// Listings are YAML in flow style, written by go.yaml.in/yaml/v3 from
// node trees (never by joining strings), so every name and text is
// quoted or escaped as YAML needs and the output always parses back to
// the same values. That holds for YAML 1.1 readers too (PyYAML's
// safe_load): a string such a reader takes for a boolean, a number or
// null (yes, no, on, off, 0500, 1_000, 10:30, ~) is quoted. The layout:
//
//   - a list of objects is a block sequence of flow objects, one per line:
//     "- {name: ot.tools, description: "…"}";
//   - a simple object (every value a scalar or an empty collection) at the
//     top is one flow line when it fits in 120 characters:
//     {aliases: {}, snippets: {}, servers: []};
//   - other objects are block at the top, and their values are flow
//     ({key: value}, [a, b]) when they nest at most two levels and fit
//     in 120 characters, else block with the same rules inside;
//   - descriptions are double-quoted inside flow collections; multi-line
//     text in block context is a literal block (|).
//
// Documentation pages (ot.help of one tool, pack or alias, the general
// help, ot.packs(info="full")) are Markdown, with a heading per item. A
// snippet's definition is YAML followed by "# Example with defaults:", the
// $name call with every required parameter (its Example, typed as
// configured: n=3 is a number, q="3" a string, topic=Python a string
// that reads as nothing else; or the placeholder <name>, which the
// expansion shows as text), and the body as it expands.
//
// # Help
//
// ot.help(query) answers, in this order: a query starting with $ names a
// snippet; the final or undecorated name of a tool; a pack's name; an
// alias. Any other query (and any query at info list) is searched over
// the names and descriptions of all four kinds; the matches are grouped
// as tools, packs, snippets and aliases, each sorted by score, at most 25
// per group ("more" counts the rest). Documentation URLs are
// Docs.BaseURL (default https://onetool.beycom.online/reference/tools/)
// followed by the pack's slug and a slash; the slug is the pack's name
// unless Docs.Slugs or DefaultDocSlugs say otherwise (brave → brave-search,
// code → code-search, db → database, ground → grounding-search,
// llm → transform, web → web-fetch).
//
// # Notifications
//
// ot.notify appends one YAML document (---, timestamp, topic, message)
// per call to the file of the first topic whose pattern matches (a glob
// read as Python's fnmatch reads it: * and ? match any character, '/'
// included, so "notes*" routes "notes/2026" too), in a single write with
// O_APPEND under an exclusive file lock (github.com/gofrs/flock) on a
// lock file beside it (file + ".lock"): writers in many goroutines and
// processes never interleave or lose a document. It answers
// "OK: {topic} -> {file}"; no match answers "SKIP: no matching topic".
// A file is capped (Topic.MaxFileBytes, default 64 MiB): a message that
// would take it past its cap is refused as write_error naming the topic,
// the file's name and the cap, and nothing of it is written — the size is
// checked under the same lock as the append, so no number of writers
// takes the file past it. Rotate or empty a full file to take more.
//
// A topic's file and its lock file must be regular files (made when
// missing): a FIFO, a socket or a device in their place is refused at
// once as write_error naming it, and nothing is written — a FIFO would
// take the message into a pipe nobody reads, or block the topic for good
// once the pipe's buffer is full. A topic whose file is the null device
// (os.DevNull, or a link to it) is muted: it takes messages and keeps
// nothing. The file's path is the operator's own
// configuration and is followed through symbolic links (a topic may write
// to /var/log/notes.yaml through a link), unlike the report paths of
// ot.stats, which must stay under output.reports_dir.
//
// # Logging
//
// Each call logs one record at debug level through registry.Logger (so
// it carries tool={name}) whose message and span attribute are
// ot.{function}, with the call's arguments that identify it (pattern,
// info, query, topic, period, handle, offset, limit, search), its
// duration_ms and success. Message texts and stored lines are never
// logged.
package ot
