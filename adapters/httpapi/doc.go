// Package httpapi serves a toolpack registry as HTTP/JSON, with an OpenAPI
// 3.1 document generated from the same registry.
//
//	h := httpapi.New(reg, httpapi.Options{Title: "mytools", Version: "v1"})
//	defer h.Close()                                     // ends its registry subscription
//	mux.Handle("/", h)                                  // at the root, beside /mcp and /healthz, or
//	mux.Handle("/api/", http.StripPrefix("/api", h))    // under a prefix
//	srv := &http.Server{Handler: httpapi.CanonicalPaths(mux)}
//
// # Mounting
//
// http.ServeMux answers a path with "." or ".." segments or "//" with a 307
// redirect to its cleaned form — /tools/../etc/passwd/invoke to
// /etc/passwd/invoke — before the API handler sees it. Wrap the mux with
// CanonicalPaths (as above) so that such a request gets the API's 400
// invalid_path instead; served directly, without a mux, the handler checks
// paths itself. For a listener reachable from browsers or other machines,
// put an httpguard.Guard in front (Host and Origin checks on every route)
// and set Options.Auth.
//
// # Authentication
//
// Options.Auth wraps every endpoint, unknown paths included. With
// httpguard.RequireBearer a request without a valid bearer token gets 401
// and a WWW-Authenticate challenge, and a tool reads the caller's verified
// token with httpguard.TokenInfoFromContext(ctx) — the same function that
// serves MCP calls through package mcpserver.
//
// # Endpoints
//
// Paths are relative to where the handler is mounted.
//
//	GET  /tools                list: {"tools":[{name,title,description,pack,source}]}, sorted by
//	                           name; ?pack= exact pack name ("" = tools outside packs), ?q= case-
//	                           insensitive substring of name, title or description; other, repeated
//	                           or oversized (pack > 128, q > 256 bytes) parameters are a 400
//	GET  /tools/{name}         one tool: name, title, description (it carries the argument
//	                           Markdown), pack, source, input_schema, output_schema (absent when
//	                           none), annotations {read_only,destructive,idempotent,open_world}
//	                           (absent = not stated), signature, args, returns, example
//	POST /tools/{name}/invoke  body = the arguments (JSON); answer {"ok":true,"value":…} or
//	                           {"ok":false,"error":…,"error_type":…,"details":…}; both may carry
//	                           "message" and "instruction" from the Result
//	GET  /openapi.json         the OpenAPI 3.1 document
//
// Any other path is a JSON 404 (error_type unknown_path); a known path with
// another method is a JSON 405 with an Allow header. GET endpoints answer
// HEAD. Every answer is application/json with X-Content-Type-Options:
// nosniff; GET answers and errors also carry Cache-Control: no-store.
// Strings are written as they are ("a < b & c"), not HTML-escaped
// (\u003c), as over MCP.
//
// Invoke goes through Registry.Invoke only: the registry decodes, validates
// and caps the arguments, runs middleware and the tool and checks the output.
// This package checks only HTTP matters, in this order:
//
//   - the path is canonical (no "//", "." or ".." segments, encoded or not):
//     else 400 invalid_path — http.ServeMux would redirect instead;
//   - the tool name matches [A-Za-z0-9_.-]{1,128}: else 400 invalid_name
//     (encoded slashes, NUL, unicode, 129+ bytes never reach the registry);
//   - the request has no query string: else 400 invalid_parameter;
//   - Content-Type is application/json, parameters allowed, a charset must be
//     utf-8. A MISSING Content-Type is refused (415) like any other: a browser
//     can send a body without Content-Type cross-site without a CORS
//     preflight, so accepting it would let any web page call tools;
//   - the body is at most Options.MaxBodyBytes (default 1 MiB): else 413,
//     from Content-Length before reading, or from http.MaxBytesReader.
//
// An EMPTY body means "no arguments" and reaches the registry, which reads it
// as {} (a tool with required arguments answers 400 naming them).
//
// # Status codes
//
// A failed Result (a domain failure) is answered with the status its tool
// declares for its error type (registry.Tool.Errors, set by the pack with
// ToolOptions.Errors), else the status of the result package's error type
// from one table (ErrorStatuses, StatusFor), else 422:
//
//	error_type          status  source
//	validation_error    400     result.ValidationError; details = the args.FieldErrors {field,rule,message} (≤ 100 + top level)
//	security_error      403     result.SecurityError
//	permission_denied   403     result.PermissionDenied
//	not_found           404     result.NotFound (unknown TOOLS are error_type unknown_tool, also 404)
//	conflict            409     result.Conflict
//	rate_limited        429     result.RateLimited
//	cancelled           499     result.Cancelled (nginx's "client closed request")
//	internal_error      500     result.InternalError (e.g. a recovered panic)
//	upstream_failure    502     result.UpstreamFailure
//	unavailable         503     result.Unavailable
//	timeout             504     result.Timeout
//	anything else       422     (StatusOtherDomainFailure), including "", unless the tool declares it
//
// This package holds no table of any pack's own error types: a pack that
// returns, say, invalid_query declares it with the tool
// (registry.ErrorSpec{Type: "invalid_query", Status: 400}), and the tool's
// operation in the OpenAPI document lists it.
//
// A non-nil error from Registry.Invoke (a protocol failure):
//
//	errors.Is(err, registry.ErrUnknownTool)          404 unknown_tool
//	context.Canceled, cause ErrServerStopping        503 unavailable: the server is shutting down
//	context.Canceled while the client is gone        499 cancelled (logged at DEBUG)
//	context.DeadlineExceeded                         504 timeout (logged at WARN)
//	anything else (ErrInvalidOutput, handler error)  500 internal_error with a fixed message naming
//	                                                 the tool; the error is logged at ERROR, never sent
//
// HTTP-level refusals: 400 invalid_path, invalid_name, invalid_parameter,
// bad_request (body unreadable); 404 unknown_path, unknown_tool; 405
// method_not_allowed; 413 too_large; 415 unsupported_media_type. The full set
// of statuses is therefore 200, 400, 403, 404, 405, 409, 413, 415, 422, 429,
// 499, 500, 502, 503, 504; Options.Auth adds its own (httpguard.RequireBearer:
// 401 unauthorized, 403 forbidden). Exceptions (exception_type/exception_message of
// the Result) are not sent over HTTP: they may hold internals.
//
// # Rich content
//
// A tool returning result.Contents (result.Rich) answers
// {"ok":true,"value":[…]} with each item in result.Content's JSON form:
// binary data (images, audio, blob resources) in standard base64 under
// "data" beside "mimeType"; the OpenAPI document describes it so
// ("contentEncoding":"base64"). An invalid item is a 500. Over REST there
// is no client to talk back to: registry.ClientLog, Sample and Elicit
// return an error wrapping registry.ErrUnsupported.
//
// # OpenAPI
//
// GET /openapi.json is generated from Registry.List (BuildOpenAPI) and cached;
// a Registry.Subscribe callback marks the cache stale whenever tools are
// added or removed, so the document is always in sync. Handler.Close ends
// the subscription; a closed handler builds the document on each request. It has GET /tools,
// GET /tools/{name}, GET /openapi.json, a generic POST /tools/{name}/invoke,
// and one POST /tools/<tool>/invoke per tool: operationId = the tool name,
// summary = title, description, tag = pack, requestBody = the input schema
// inlined byte for byte, 200 = {"ok":true,"value": <output schema, or {} when
// none>} and every error status above with the ErrorEnvelope schema. A
// tool schema with local references ("$ref": "#/$defs/item", as remote MCP
// servers' and catalogue tools' schemas often have) is placed under
// components/schemas instead, as "{tool}.input" or "{tool}.output", with
// its references rebased there, so that they resolve in the document. A
// schema whose references cannot be followed — one points at no schema, or
// some loop back through references alone — is described instead as "The
// tool's schema is not shown: …" with the reason, so that one remote
// tool's broken schema never makes the document unreadable for the rest
// (calls are not affected).
package httpapi
