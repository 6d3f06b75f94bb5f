// Package httptool runs catalogue tools of type "http": it builds the
// request from the tool's templates and the call's arguments, sends it
// through a netguard.Client with the tool's limits, and turns the answer
// into a result.Result.
//
//	inv, err := httptool.New(httptool.Options{
//		AllowedHosts: cfg.AllowedHosts,
//		Secrets:      cfg.Catalogue.Secrets, // name → value
//		Logger:       logger,
//	})
//	res, err := inv.Invoke(ctx, tool, json.RawMessage(`{"city":"Paris"}`))
//
// # Placeholders
//
// "${name}" in the urlTemplate, query values, header values and the body
// is replaced by the top-level argument of that name or, when there is
// none, by the host's secret of that name. A name that is neither fails
// the call (validation_error) naming the placeholder. A string argument
// is used as its text; a number, boolean, null, array or object as its
// JSON text. Credentials of the auth block (token, password, value,
// secret, clientSecret), the basic-auth username and the OAuth2 clientID
// and tokenURL are filled from secrets only, so arguments can never
// replace them.
//
// Values are encoded for where they land, so that no argument can change
// the request's structure:
//
//   - URL: the scheme and host of urlTemplate must be literal text. In the
//     path, a value is percent-encoded except for ASCII letters, digits and
//     "-._~", so it adds no '/', '?' or '#'; a path segment holding a
//     placeholder must not come out as "", "." or "..". In the query and
//     fragment a value is encoded as a query value. The built URL is
//     parsed again and must keep the template's scheme and host.
//   - query map: values are encoded as query values (url.Values).
//   - headers: a value with a control character (CR, LF, NUL, …; tab
//     excepted) fails the call.
//   - body: a body whose first non-space character is '{' or '[' is a JSON
//     template. It must be valid JSON with each placeholder read as a
//     value; a placeholder standing as a value is replaced by the JSON of
//     the argument (a string is quoted and escaped), and a placeholder
//     inside a string by the argument's text escaped as string content.
//     So `{"q": ${q}, "note": "by ${user}"}` stays an object with two
//     members whatever q and user hold. Any other body is text and takes
//     values verbatim. Content-Type defaults to application/json or
//     text/plain accordingly.
//
// # Authentication
//
// bearer sends "Authorization: Bearer <token>"; basic sends HTTP basic
// authentication; apiKey puts the key in the named header or query
// parameter; hmac signs the request (see HMACCanonical for the signed
// string and HMACTimestampHeader); oauth2ClientCredentials fetches a token
// with golang.org/x/oauth2/clientcredentials through the tool's guarded
// client, caches it per tool and fetches a new one 30 s before it expires
// (at half-life for shorter tokens), on Options.Now's clock.
//
// # Limits and clients
//
// Each tool version gets one netguard.Client built from its HTTPLimits
// (timeout, maxRequestBytes, maxResponseBytes, maxRetries,
// maxCallsPerMinute), zero fields taking Options.Defaults and then
// netguard's defaults. The clients, with the compiled templates and output
// schema, are cached by tool ID, version and ModifiedAt (a version's body
// does not change after its PUT), at most Options.MaxTools, the least
// recently used dropped first. Retries happen in netguard, for idempotent
// methods only.
//
// # Responses
//
// A status outside 2xx is a failed Result of type ErrTypeUpstream whose
// ErrorData holds the status and a short excerpt of the body (at most
// MaxExcerptBytes, secrets redacted). A 2xx body is decoded by the tool's
// encoding: "json" (the default; an empty body is null, numbers are kept
// as json.Number), "text" or "sse". The extract path (see Path) narrows a
// JSON or sse answer, and the tool's outputSchema validates what is left; a mismatch
// is a failed Result of type ErrTypeOutputMismatch naming the JSON Pointer
// and keyword of each violation, never the value.
//
// # Streaming answers
//
// A tool whose response encoding is "sse" asks for text/event-stream and
// reads the server-sent events as they arrive (parsed by
// github.com/tmaxmax/go-sse): each event is reported through
// registry.ReportProgress — the event count as progress, its data
// (secrets redacted, at most MaxProgressMessageRunes) as the message — so
// an MCP client that asked for progress sees a chat answer token by
// token. When the stream ends the value is
//
//	{"events": [{"event": "token", "id": "7", "data": …}, …], "text": "…"}
//
// with each event's data as its JSON value when it is JSON, else as
// text, and "text" the data of every event concatenated. The tool's
// timeout bounds the whole stream, maxResponseBytes its size and
// MaxEventBytes one event.
//
// # Secrets
//
// Every secret value (raw, percent-encoded, query-encoded and base64, the
// form basic auth sends) is given to netguard's redaction and removed from
// this package's errors, failures and log records. Upstream excerpts are
// redacted too, and so is a successful answer (every string and member
// name, before extract): an upstream that echoes a key does not hand it to
// the model.
package httptool
