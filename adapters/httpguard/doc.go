// Package httpguard protects an HTTP listener that serves tools: one
// middleware for the whole listener (Host, Origin, slow clients) and a
// bearer-token middleware for the endpoints that need authentication.
//
//	g, err := httpguard.New(httpguard.Options{})        // zero value: safe defaults
//	tokens, err := httpguard.TokensFromFile("tokens.txt")
//	requireToken := httpguard.RequireBearer(tokens.Verify, httpguard.BearerOptions{AllowMissingExpiration: true})
//
//	mux := http.NewServeMux()
//	mux.Handle("/mcp", requireToken(mcpHandler))
//	mux.Handle("/", requireToken(restHandler))
//	srv := &http.Server{Addr: "127.0.0.1:8080", Handler: g.Handler(mux),
//		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
//
// # The guard
//
// Guard.Handler applies, in this order, to every request of the listener:
//
//   - Host (DNS rebinding). A request that arrived on a loopback address
//     must name a loopback host — localhost, 127.0.0.1 or [::1], with or
//     without a port — or one of Options.AllowedHosts. A web page whose
//     domain an attacker re-points at 127.0.0.1 sends its own name as Host
//     and is refused with 403 forbidden_host, on every route. On other
//     addresses, Options.AllowedHosts (when given) is the list of names the
//     server answers to.
//   - Origin. http.CrossOriginProtection refuses requests a browser makes
//     from another origin (Sec-Fetch-Site, else Origin against Host), with
//     403 forbidden_origin; Options.TrustedOrigins lists origins allowed
//     anyway. The guard applies it to every method, GET included (the MCP
//     specification requires the Origin check on every connection).
//     Non-browser clients send neither header and pass.
//   - Stalled readers. Each write (and flush) to the client must complete
//     within Options.WriteTimeout (30 s): the deadline is moved forward
//     before every write through http.ResponseController, so a client
//     that stops reading is cut off while long tool calls and MCP's
//     server-sent event streams live as long as the client keeps reading.
//     http.Server.WriteTimeout cannot do this: it bounds the whole
//     response.
//
// Slow senders are the http.Server's business: set ReadHeaderTimeout
// (headers) and ReadTimeout (headers and body; net/http clears the read
// deadline once the body has been read, so it does not end a long call or
// a stream), and IdleTimeout for idle keep-alive connections.
//
// Refusals are JSON, {"ok":false,"error":…,"error_type":…} (the shape of
// package httpapi's errors), and are logged at DEBUG.
//
// # Authentication
//
// RequireBearer takes an auth.TokenVerifier from the MCP Go SDK — the
// pluggable part — and wraps the SDK's auth.RequireBearerToken, so the
// rules are MCP's OAuth resource-server rules: 401 with a WWW-Authenticate
// Bearer challenge (realm, error, resource_metadata, scope) for a missing,
// invalid or expired token, 403 for a missing scope. The verified
// *auth.TokenInfo travels with the request: the SDK's streamable HTTP
// handler binds each MCP session to its UserID and passes it to every tool
// call, and TokenInfoFromContext returns it to a tool handler, whichever
// adapter the call came through.
//
// Tokens is the ready verifier for static tokens: from a file
// (TokensFromFile, one "TOKEN" or "NAME:TOKEN" per line) or an environment
// variable (TokensFromEnv). Tokens shorter than 16 characters are refused;
// only their SHA-256 digests are kept, compared in constant time
// (crypto/subtle). A token's name is the caller's UserID. No token ever
// appears in an error, a log line or a response.
package httpguard
