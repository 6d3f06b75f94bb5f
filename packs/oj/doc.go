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
// PlatformStatus) give the same Markdown without a registry.
//
// # Failures
//
// A *DomainError is a failure to show to the model: an argument rule (checked
// before any request, in the specification's order), a missing token, or an
// HTTP 4xx/5xx answer (RFC 7807 problems as "[{status}] {title}: {detail}",
// other bodies as "[{status}] {first 500 characters}"). Everything else is a
// protocol failure: the backend could not be reached (ErrRequest) or sent
// data that is not what it promised (ErrMalformedResponse).
//
// # Requests
//
// Path segments and query values are percent-encoded by EncodeComponent.
// Each request is bounded by RequestTimeout, follows at most MaxRedirects
// redirects and reads at most MaxBodyBytes of the body; JSON is parsed only
// for application/json and application/problem+json. The token is sent as a
// bearer token and never logged or reported.
//
// # Conversion
//
// Statements are converted from HTML to Markdown by a Converter
// (html-to-markdown v2), which keeps a bounded memo of its recent
// conversions (Config.ConvertCacheBytes): the same statements are fetched
// again and again, and conversion is the most expensive step of a call.
//
// See README.md in this directory for the invariant-to-test map and the
// deliberate differences from the reference server.
package oj
