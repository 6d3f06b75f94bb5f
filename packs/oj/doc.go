// Package oj is the online-judge pack: five tools that fetch competitive
// programming problems (LeetCode, Codeforces, AtCoder, Luogu) from an OJ
// backend and render them as Markdown, faithful to the oj-mcp-rs tools
// specification.
//
//	get_daily_challenge    GET /api/v1/daily?domain=…&date=…
//	get_problem            GET /api/v1/problems/{source}/{id}
//	find_similar_problems  GET /api/v1/similar/{source}/{id}?…  or  /api/v1/similar?q=…
//	resolve_problem        GET /api/v1/resolve/{query}
//	get_platform_status    GET /status (needs the token)
//
// New returns the pack for a registry; NewClient returns a Client whose
// methods (DailyChallenge, Problem, SimilarProblems, ResolveProblem,
// PlatformStatus) give the same Markdown without a registry, and whose Pack
// method builds the pack on it.
//
// # Failures
//
// A *DomainError is a failure to show to the model: an argument rule
// (checked before any request, in the specification's order), a missing
// token, an HTTP 4xx/5xx answer (RFC 7807 problems as
// "[{status}] {title}: {detail}", other bodies as "[{status}] {body}"), a
// redirect to another origin, or a 202 answer outside the daily challenge
// (type unavailable: the backend is still fetching what was asked for; the
// Instruction says when to retry). Everything else is a protocol failure:
// the backend could not be reached (ErrRequest) or sent data that is not
// what it promised (ErrMalformedResponse).
//
// # Requests and secrets
//
// Every value placed in a URL path is percent-encoded as one segment, and
// "." or ".." is refused (it would be resolved as a relative segment). Each
// request is bounded by RequestTimeout, reads at most MaxBodyBytes, and
// follows at most MaxRedirects redirects, all within the configured origin:
// a redirect to another scheme, host or port is refused, so the bearer
// token goes to Config.BaseURL's origin only.
//
// Text from the backend that reaches a failure (and so a log line) has the
// token replaced by Redacted first and is then cut to MaxErrorBodyChars
// characters: no piece of a token survives a cut. Successful Markdown is
// never searched for the token — it is the backend's data, and a short
// token would corrupt ordinary text — but every header field and table
// cell is cleaned of line breaks and control characters, so that a value
// cannot break the template, and the whole output is capped at
// MaxOutputBytes. Debug logs name the request path and its query
// parameters, never their values (nor the resolve query).
//
// # Conversion
//
// Statements are converted from HTML to Markdown with html-to-markdown v2,
// which is the most expensive step of a problem call; the Client keeps a
// bounded memo of recent conversions (Config.ConvertCacheBytes) because the
// same statements are fetched again and again.
//
// See README.md in this directory for the deliberate differences from the
// reference server.
package oj
