// Package netguard sends outbound HTTP requests whose destinations come
// from configuration or from a model's arguments, without letting them
// reach what they should not: the machine itself, the private network, the
// cloud metadata service. It is the one outbound HTTP client of toolpack's
// packs (catalogue http tools, web.fetch, search.web, …).
//
//	c, err := netguard.New(netguard.Options{
//		AllowedHosts:      []string{"api.example.com", "*.cdn.example.com"},
//		MaxRetries:        2,
//		MaxCallsPerMinute: 60,
//		Secrets:           []string{apiKey},
//	})
//	req, _ := http.NewRequest(http.MethodGet, "https://api.example.com/v1/items?key="+apiKey, nil)
//	resp, err := c.Do(ctx, req)
//	if errors.Is(err, netguard.ErrPrivateAddress) { … }
//	defer resp.Body.Close()
//
// # Where destinations are checked
//
// Three times, because each check alone can be fooled:
//
//   - The URL, before anything is sent: http or https only; no user
//     information; the host normalised the way browsers do (case, one
//     trailing dot, IDNA, and IPv4 written as "2130706433", "0x7f.1",
//     "0177.0.0.1" or "127.1" read as the address it is) and matched
//     against Options.AllowedHosts; an IP literal checked against the
//     address policy; "localhost" names refused.
//   - Every redirect target, the same way, up to Options.MaxRedirects. A
//     Location header that does not parse is refused (ErrBadURL) without
//     being quoted: it may carry a signed query.
//   - At dial time: the host is resolved with Options.Resolver, every
//     answer is checked, and only checked addresses are dialled (and the
//     socket's address is checked once more just before connect). A name
//     that resolves to 10.0.0.1, or that answers a public address first and
//     a private one later (DNS rebinding), never gets a connection.
//
// The address policy refuses loopback, RFC 1918 private, link-local
// (169.254.0.0/16 with the 169.254.169.254 metadata service, fe80::/10),
// shared CGNAT 100.64.0.0/10, unspecified, multicast, broadcast, reserved,
// unique-local fc00::/7 and deprecated site-local addresses, including when
// written as IPv4-mapped IPv6 (::ffff:127.0.0.1), NAT64 (64:ff9b::7f00:1)
// or 6to4 (2002:7f00:1::). Options.AllowPrivate lifts the policy;
// Options.AllowAddrs lifts it for chosen prefixes only (an internal
// service, or the 127.0.0.1 of an httptest server in tests). Proxy
// environment variables are not honoured: a proxy would make the
// connection on our behalf, out of reach of these checks.
//
// # Limits
//
// Each call to Client.Do runs under Options.Timeout (the rate-limit wait,
// all attempts and back-off waits, and reading the body until it is
// closed). Request and response bodies are capped (ErrTooLarge; the
// response cap never buffers, it counts what the caller reads). Failed
// attempts — connection errors, 429 and 5xx — are retried with exponential
// back-off and jitter (github.com/cenkalti/backoff/v5), each wait at most
// Options.MaxRetryWait, honouring Retry-After (a longer one ends the
// retries), for idempotent methods with a replayable body only, unless
// Options.RetryNonIdempotent. Options.MaxCallsPerMinute is a token bucket
// (golang.org/x/time/rate) per Client: over the limit a call waits, and
// fails at once with ErrRateLimited when it could not start before its
// deadline.
//
// # Errors and secrets
//
// A refusal is a *BlockedError wrapping ErrBlocked and its reason
// (ErrScheme, ErrUserinfo, ErrBadURL, ErrHostNotAllowed, ErrPrivateAddress,
// ErrTooManyRedirects); check with errors.Is or errors.As. Error texts and
// log records show URLs without query, fragment or user information, and
// every string in Options.Secrets is replaced by "[REDACTED]" (also once
// escaped in a URL's path or query); strings shorter than MinSecretLen
// bytes only where they stand as a whole word, so that a one-letter key
// does not garble every word while a PIN in a path is still hidden.
//
// Client.HTTPClient gives the same checks and caps as an *http.Client for
// libraries that want one (an OAuth2 token source, an SDK).
package netguard
