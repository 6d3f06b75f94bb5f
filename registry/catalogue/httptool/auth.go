package httptool

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// HMACTimestampHeader carries the Unix time (seconds) an HMAC-signed
// request was signed at; it is part of the signed string.
const HMACTimestampHeader = "X-Signature-Timestamp"

// HMACCanonical returns the string an HMAC-signed request signs: five
// lines joined by "\n" —
//
//	METHOD            upper case, e.g. "POST"
//	escaped path      as sent, e.g. "/v1/items/a%2Fb" ("/" when empty)
//	raw query         as sent, without "?", e.g. "q=x&sort=asc" (may be empty)
//	timestamp         decimal Unix seconds, also sent in HMACTimestampHeader
//	body hash         lower-case hex of the Algorithm's hash (SHA-256 or
//	                  SHA-512) of the body bytes sent (of the empty string
//	                  when there is no body)
//
// The signature is the lower-case hex HMAC (with that hash and the secret
// as key) of this string, sent in the header named by HTTPAuth.Name.
// Servers recompute it the same way.
func HMACCanonical(method, escapedPath, rawQuery string, timestamp int64, bodyHashHex string) string {
	if escapedPath == "" {
		escapedPath = "/"
	}
	return method + "\n" + escapedPath + "\n" + rawQuery + "\n" + strconv.FormatInt(timestamp, 10) + "\n" + bodyHashHex
}

func hmacHash(alg string) (func() hash.Hash, error) {
	switch alg {
	case "sha256":
		return sha256.New, nil
	case "sha512":
		return sha512.New, nil
	}
	return nil, fmt.Errorf(`%w: auth.algorithm: expected "sha256" or "sha512", got %q`, ErrInvalidTool, alg)
}

// signHMAC adds the timestamp and signature headers to req, whose URL is
// final and whose body is body.
func signHMAC(req *http.Request, newHash func() hash.Hash, secret []byte, header string, now time.Time, body []byte) {
	ts := now.Unix()
	h := newHash()
	h.Write(body)
	canon := HMACCanonical(req.Method, req.URL.EscapedPath(), req.URL.RawQuery, ts, hex.EncodeToString(h.Sum(nil)))
	m := hmac.New(newHash, secret)
	m.Write([]byte(canon))
	req.Header.Set(HMACTimestampHeader, strconv.FormatInt(ts, 10))
	req.Header.Set(header, hex.EncodeToString(m.Sum(nil)))
}

// tokenCache holds one tool's OAuth2 client-credentials token. The token
// is fetched with golang.org/x/oauth2/clientcredentials (form encoding,
// client authentication, RFC 6749 error parsing) through the tool's
// guarded client; the cache itself is ours so that its clock is
// Options.Now: a token is reused until refreshSkew before it expires.
type tokenCache struct {
	mu      sync.Mutex
	cfg     clientcredentials.Config
	now     func() time.Time
	tok     *oauth2.Token
	expires time.Time // zero: the endpoint gave no lifetime
}

// invalidate drops the cached token (the upstream refused it), so that
// the next call fetches a new one.
func (c *tokenCache) invalidate(tok *oauth2.Token) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok == tok {
		c.tok = nil
	}
}

// refreshSkew is how long before expiry a token is replaced; a token with
// a shorter life is replaced at half-life.
const refreshSkew = 30 * time.Second

func (c *tokenCache) token(ctx context.Context, hc *http.Client, timeout time.Duration) (*oauth2.Token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok != nil && (c.expires.IsZero() || c.now().Before(c.expires)) {
		return c.tok, nil
	}
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, oauth2.HTTPClient, hc), timeout)
	defer cancel()
	tok, err := c.cfg.Token(ctx)
	if err != nil {
		return nil, err
	}
	var life time.Duration
	switch {
	case tok.ExpiresIn > 0:
		life = time.Duration(tok.ExpiresIn) * time.Second
	case !tok.Expiry.IsZero():
		// The library computed Expiry from the wall clock.
		life = time.Until(tok.Expiry)
	}
	c.tok, c.expires = tok, time.Time{}
	if life != 0 {
		skew := refreshSkew
		if life < 2*skew {
			skew = life / 2
		}
		c.expires = c.now().Add(life - skew)
	}
	return tok, nil
}

// authPlan is a tool's compiled authentication.
type authPlan struct {
	kind     string
	secret   string // the value of the credential's secret
	user     Template
	in, name string
	newHash  func() hash.Hash
	oauth    *tokenCache
	tokenURL URLTemplate
	clientID Template
}

// compileAuth checks and compiles a tool's auth. Credential fields are
// single "${NAME}" placeholders naming a secret.
func compileAuth(a *catalogue.HTTPAuth, now func() time.Time, secrets map[string]string) (*authPlan, error) {
	if a == nil {
		return nil, nil
	}
	secretName := func(field, s string) (string, error) {
		t, err := Parse(s)
		if err != nil || len(t.parts) != 1 || t.parts[0].name == "" {
			return "", fmt.Errorf(`%w: auth.%s: expected a single "${NAME}" placeholder naming a secret`, ErrInvalidTool, field)
		}
		v, ok := secrets[t.parts[0].name]
		if !ok {
			return "", &MissingSecretError{Field: "auth." + field, Name: t.parts[0].name}
		}
		return v, nil
	}
	p := &authPlan{kind: a.Type}
	var err error
	switch a.Type {
	case catalogue.AuthBearer:
		p.secret, err = secretName("token", a.Token)
	case catalogue.AuthBasic:
		if p.user, err = Parse(a.Username); err != nil {
			return nil, fmt.Errorf("%w: auth.username: %w", ErrInvalidTool, err)
		}
		p.secret, err = secretName("password", a.Password)
	case catalogue.AuthAPIKey:
		if a.In != "header" && a.In != "query" {
			return nil, fmt.Errorf(`%w: auth.in: expected "header" or "query", got %q`, ErrInvalidTool, a.In)
		}
		if a.Name == "" || a.In == "header" && !isToken(a.Name) {
			return nil, fmt.Errorf("%w: auth.name: expected a header name (letters, digits and !#$%%&'*+-.^_`|~) or query parameter name", ErrInvalidTool)
		}
		p.in, p.name = a.In, a.Name
		p.secret, err = secretName("value", a.Value)
	case catalogue.AuthHMAC:
		if !isToken(a.Name) {
			return nil, fmt.Errorf("%w: auth.name: expected the signature header name (letters, digits and !#$%%&'*+-.^_`|~)", ErrInvalidTool)
		}
		p.name = a.Name
		if p.newHash, err = hmacHash(a.Algorithm); err != nil {
			return nil, err
		}
		p.secret, err = secretName("secret", a.Secret)
	case catalogue.AuthOAuth2:
		if p.tokenURL, err = ParseURL(a.TokenURL); err != nil {
			return nil, fmt.Errorf("%w: auth.tokenURL: %w", ErrInvalidTool, err)
		}
		if p.clientID, err = Parse(a.ClientID); err != nil {
			return nil, fmt.Errorf("%w: auth.clientID: %w", ErrInvalidTool, err)
		}
		p.secret, err = secretName("clientSecret", a.ClientSecret)
		p.oauth = &tokenCache{now: now}
	default:
		return nil, fmt.Errorf("%w: auth.type: expected one of %s, %s, %s, %s, %s, got %q", ErrInvalidTool,
			catalogue.AuthBearer, catalogue.AuthBasic, catalogue.AuthAPIKey, catalogue.AuthHMAC, catalogue.AuthOAuth2, a.Type)
	}
	if err != nil {
		return nil, err
	}
	if a.Type == catalogue.AuthOAuth2 {
		look := secretLookup(secrets)
		u, err := p.tokenURL.Render("auth.tokenURL", look)
		if err != nil {
			return nil, secretsOnly(err)
		}
		id, err := p.clientID.RenderHeader("auth.clientID", look)
		if err != nil {
			return nil, secretsOnly(err)
		}
		p.oauth.cfg = clientcredentials.Config{
			ClientID:     id,
			ClientSecret: p.secret,
			TokenURL:     u.String(),
			Scopes:       append([]string(nil), a.Scopes...),
		}
	}
	return p, nil
}

// MissingSecretError reports a placeholder of a tool's authentication that
// names no secret of Options.Secrets (the host's catalogue.secrets).
type MissingSecretError struct {
	// Field is the auth field, e.g. "auth.token".
	Field string
	// Name is the secret's name.
	Name string
}

// Error names the field and the secret, never a value.
func (e *MissingSecretError) Error() string {
	return fmt.Sprintf("%s: secret %q is not configured; expected it among the host's catalogue secrets", e.Field, e.Name)
}

func secretLookup(secrets map[string]string) Lookup {
	return func(name string) (Value, bool) {
		s, ok := secrets[name]
		if !ok {
			return Value{}, false
		}
		return StringValue(s), true
	}
}

// secretsOnly turns the unknown placeholder of a template filled from
// secrets alone into a MissingSecretError.
func secretsOnly(err error) error {
	var ue *UnknownError
	if errors.As(err, &ue) {
		return &MissingSecretError{Field: ue.Field, Name: ue.Names[0]}
	}
	return fmt.Errorf("%w: %w", ErrInvalidTool, err)
}
