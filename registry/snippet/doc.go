// Package snippet runs snippets: named, parameterised sequences of tool
// calls that a host declares in its configuration and serves as tools
// named snippet.{name}. A snippet saves a model from making the same
// chain of calls by hand:
//
//	snippets:
//	  brv_research:
//	    description: Search web and extract structured findings
//	    params:
//	      topic: {description: Topic to research}
//	      count: {description: Number of sources, default: 5}
//	    body: |
//	      results = brave.search(query="{{ topic }}", count={{ count }})
//	      llm.transform(input=results, prompt="Extract key findings")
//
// # The body
//
// A body is a small, safe call-sequence language, never general code:
// one tool call per line, optionally assigned to a name.
//
//	name = tool.name(arg=value, other=value)   # a comment
//	tool.name(arg=value)
//
// Blank lines and # comments are allowed; inside the parentheses (and
// inside arrays and objects) a call may span lines, and a trailing comma
// is allowed. Tool names are registry names (letters, digits, _ . -),
// resolved by the registry like any call: a final name or an alias.
// Argument names are letters, digits, _ and -, starting with a letter or
// _. A value is one of:
//
//   - a JSON literal: a string, a number (passed on as written), true,
//     false, null, an array or an object (whose elements are values too);
//   - a placeholder {{ param }} standing alone, replaced by the
//     parameter's value as JSON data ({{ count }} → 5);
//   - a string literal holding placeholders, "{{ topic }} news": each
//     placeholder is replaced by the value's text (a string's characters,
//     any other value's JSON). "{{" in a string always opens a
//     placeholder; write a literal one as "\u007b{". Object keys take no
//     placeholders;
//   - a reference to the result of an earlier line: the name (r), a field
//     (r.field, r["odd-key"]), an element (r.items[0]), or a path of them
//     (r.items[0].url). It reads the earlier Result's value as JSON data
//     (a Go struct is read through its JSON form).
//
// A reference reads text as JSON when it goes into it. Many tools answer
// JSON as text — every tool of a remote MCP server proxied by
// adapters/mcpproxy answers text, and many MCP servers put a JSON object
// there — so after
//
//	r = remote.get_user(id=1)
//	show(name=r.name)
//
// r.name is the field of the object the text holds. This holds for any
// tool and at any point of a path: a string value that a field or an
// element is taken from is read as JSON (white space around it allowed,
// numbers passed on as written, never rounded), and must hold an object
// for a field, an array for an element. A string that is not JSON, or
// JSON of the other kind, fails the run naming the snippet, the line and
// the reference, saying that the value is text that is not a JSON
// object (or array) and how many bytes it is, never quoting it (a tool's
// answer may hold what must not reach an error or a log). The name
// alone (r), or a path ending at the string, passes the text unchanged.
// A text is read once per run, and what it holds counts toward
// MaxKeptBytes beside the text.
//
// Parse refuses, with errors naming the snippet, the line and the column:
// syntax errors, an unknown {{ parameter }}, a reference to a name not
// assigned on an earlier line, a name assigned twice, an argument or
// object key given twice, and bodies over the caps (MaxBodyBytes,
// MaxLines, MaxCalls, MaxDepth).
//
// # Running
//
// Snippet.Run makes each call through an Invoker — a *registry.Registry,
// so every step passes the whole pipeline (validation, middleware,
// statistics) — and returns the last call's Result. A body names tools
// as configuration does: under a registry prefix, an undecorated name
// reaches its tool (Registry.TargetName). A failing step fails the
// snippet, naming the line and the tool: a domain failure keeps the
// step's error type (a step's invalid arguments stay a validation failure
// with the step's field errors, and the text an MCP client or agent is
// shown begins `snippet "s": line 2: add failed: invalid arguments`, so
// that nobody is asked to correct fields the snippet does not have), a tool that is not served is a failure of type
// unavailable, another protocol error is returned wrapped. Snippets may
// run snippets, MaxNesting deep (counted across servers that forward
// calls to each other), and one run starts at most MaxRunCalls tool
// calls, its snippets' steps included. Pack turns the
// definitions into pack "snippet", whose tools take the parameters as
// arguments (no default → required) and which a host swaps on every
// configuration reload with Registry.ReplacePack.
//
// # Parameters declared elsewhere
//
// A host that declares the parameters itself — a catalogue tool of type
// "steps" takes them from its argument schema — parses with ParseBody
// (the names as a list), holds each placeholder to its own rules with
// Placeholders (positions included), and runs with RunChecked, which
// takes values the host has already validated. Running, failures,
// nesting and cancellation are Run's.
//
// # Showing
//
// Expand substitutes values into the body as text; Example and Format
// give the "Example with defaults" display of seed 001.
package snippet
