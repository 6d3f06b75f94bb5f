package httpguard

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Limits of token sources.
const (
	// MinTokenLen is the shortest token accepted: 16 characters, so that
	// "test" or "secret" cannot guard a server (generate one with
	// `openssl rand -hex 32`).
	MinTokenLen = 16
	// MaxTokenLen is the longest token accepted.
	MaxTokenLen = 4096
	// MaxTokenFileBytes caps a token file.
	MaxTokenFileBytes = 1 << 20
	// MaxTokenNameLen caps a token's name.
	MaxTokenNameLen = 64
)

// ErrInvalidTokens marks every error of ParseTokens, TokensFromFile and
// TokensFromEnv.
var ErrInvalidTokens = errors.New("invalid bearer token configuration")

// Tokens is a fixed set of bearer tokens, each with a name that becomes the
// caller's identity (TokenInfo.UserID). Only SHA-256 digests are kept, and
// (*Tokens).Verify compares them in constant time. Build it with
// ParseTokens, TokensFromFile or TokensFromEnv.
type Tokens struct {
	sums  [][sha256.Size]byte
	names []string
}

// ParseTokens reads tokens from text, one per line: "TOKEN" or
// "NAME:TOKEN". Blank lines and lines starting with '#' are skipped;
// spaces around a line are trimmed. A token is at least MinTokenLen and at
// most MaxTokenLen characters from RFC 6750's token alphabet
// ([A-Za-z0-9-._~+/] then '=' padding); a NAME is 1 to MaxTokenNameLen
// characters from [A-Za-z0-9_.@-]. A token without a name is named
// "token-N", N counting tokens from 1. Repeated tokens or names are errors.
//
// source names the text in errors (a file name, an environment variable).
// Every problem is reported, joined, each wrapping ErrInvalidTokens and
// naming the line; no error ever contains a token.
func ParseTokens(text, source string) (*Tokens, error) {
	t := &Tokens{}
	var errs []error
	bad := func(line int, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%w: %s line %d: %s", ErrInvalidTokens, source, line, fmt.Sprintf(format, a...)))
	}
	seenSum := map[[sha256.Size]byte]int{}
	seenName := map[string]int{}
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		name, tok, named := strings.Cut(line, ":")
		if !named {
			name, tok = "token-"+strconv.Itoa(len(t.names)+1), line
		} else if !validName(name) {
			bad(n, "the name before ':' must be 1 to %d characters from [A-Za-z0-9_.@-]", MaxTokenNameLen)
			continue
		}
		if why := checkToken(tok); why != "" {
			bad(n, "%s", why)
			continue
		}
		sum := sha256.Sum256([]byte(tok))
		if prev, ok := seenSum[sum]; ok {
			bad(n, "the same token as line %d", prev)
			continue
		}
		if prev, ok := seenName[name]; ok {
			bad(n, "the name before ':' is already used on line %d", prev)
			continue
		}
		seenSum[sum], seenName[name] = n, n
		t.sums = append(t.sums, sum)
		t.names = append(t.names, name)
	}
	if len(errs) == 0 && len(t.sums) == 0 {
		errs = append(errs, fmt.Errorf("%w: %s holds no token; expected one token (or NAME:TOKEN) per line", ErrInvalidTokens, source))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return t, nil
}

// checkToken returns why tok is not acceptable, without quoting it.
func checkToken(tok string) string {
	switch {
	case len(tok) < MinTokenLen:
		return fmt.Sprintf("the token is %d characters long; expected at least %d (generate one with: openssl rand -hex 32)", len(tok), MinTokenLen)
	case len(tok) > MaxTokenLen:
		return fmt.Sprintf("the token is %d characters long; expected at most %d", len(tok), MaxTokenLen)
	}
	pad := false
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		switch {
		case c == '=':
			pad = true
		case pad:
			return fmt.Sprintf("the token has a character after '=' padding at position %d; expected RFC 6750 characters [A-Za-z0-9-._~+/] then optional '='", i+1)
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == '+', c == '/':
		default:
			return fmt.Sprintf("the token has a character outside [A-Za-z0-9-._~+/=] at position %d", i+1)
		}
	}
	if tok[0] == '=' {
		return "the token starts with '='; expected RFC 6750 characters [A-Za-z0-9-._~+/] then optional '='"
	}
	return ""
}

func validName(s string) bool {
	if s == "" || len(s) > MaxTokenNameLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '@' || c == '-') {
			return false
		}
	}
	return true
}

// TokensFromFile reads tokens from the file at path (at most
// MaxTokenFileBytes), in the format of ParseTokens.
func TokensFromFile(path string) (*Tokens, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: token file: %w", ErrInvalidTokens, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxTokenFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: token file %q: %w", ErrInvalidTokens, path, err)
	}
	if len(b) > MaxTokenFileBytes {
		return nil, fmt.Errorf("%w: token file %q is over %d bytes", ErrInvalidTokens, path, MaxTokenFileBytes)
	}
	return ParseTokens(string(b), fmt.Sprintf("token file %q", path))
}

// TokensFromEnv reads tokens from the environment variable name, in the
// format of ParseTokens (usually one token, or NAME:TOKEN). An unset or
// empty variable is an error naming it.
func TokensFromEnv(name string) (*Tokens, error) {
	v, ok := os.LookupEnv(name)
	if !ok || strings.TrimSpace(v) == "" {
		return nil, fmt.Errorf("%w: environment variable %s is not set; expected a bearer token", ErrInvalidTokens, name)
	}
	if len(v) > MaxTokenFileBytes {
		return nil, fmt.Errorf("%w: environment variable %s is over %d bytes", ErrInvalidTokens, name, MaxTokenFileBytes)
	}
	return ParseTokens(v, "environment variable "+name)
}

// Len is the number of tokens.
func (t *Tokens) Len() int { return len(t.sums) }

// Verify is an auth.TokenVerifier (pass it to RequireBearer): it accepts a
// token of the set and returns a TokenInfo whose UserID is the token's name
// and which has no expiration (so RequireBearer needs
// BearerOptions.AllowMissingExpiration). Every configured token is
// compared, in constant time, whichever matches. Any other token is an
// error wrapping auth.ErrInvalidToken.
func (t *Tokens) Verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	sum := sha256.Sum256([]byte(token))
	found := -1
	for i := range t.sums {
		found = subtle.ConstantTimeSelect(subtle.ConstantTimeCompare(sum[:], t.sums[i][:]), i, found)
	}
	if found < 0 {
		return nil, fmt.Errorf("%w: not one of the configured tokens", auth.ErrInvalidToken)
	}
	return &auth.TokenInfo{UserID: t.names[found]}, nil
}
