package httpguard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/httpguard"
	"github.com/toolpack-go/toolpack/internal/testlog"
)

const (
	aliceToken = "alice-0123456789abcdef0123456789"
	bobToken   = "bob-fedcba9876543210fedcba987654"
)

// lockedBuffer is a log sink safe for concurrent handlers.
type lockedBuffer struct{ testlog.Buffer }

func debugLogger(buf io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func testTokens(t *testing.T) *httpguard.Tokens {
	t.Helper()
	toks, err := httpguard.ParseTokens("# team\nalice:"+aliceToken+"\n\n"+bobToken+"\n", "test")
	require.NoError(t, err)
	return toks
}

// whoAmI answers the caller's UserID and scopes, as a tool handler reads them.
var whoAmI = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	ti := httpguard.TokenInfoFromContext(r.Context())
	if ti == nil {
		_, _ = io.WriteString(w, "anonymous")
		return
	}
	_, _ = io.WriteString(w, ti.UserID+" "+strings.Join(ti.Scopes, ","))
})

type answer struct {
	status    int
	challenge string
	body      string
	errType   string
}

func call(t *testing.T, url, authz string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader("{}"))
	require.NoError(t, err)
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	a := answer{status: resp.StatusCode, challenge: resp.Header.Get("WWW-Authenticate"), body: string(b)}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			ErrorType string `json:"error_type"`
		}
		require.NoError(t, json.Unmarshal(b, &e), "a refusal is JSON: %s", b)
		a.errType = e.ErrorType
	}
	return a
}

func TestRequireBearer_StaticTokens(t *testing.T) {
	logs := &lockedBuffer{}
	mw := httpguard.RequireBearer(testTokens(t).Verify, httpguard.BearerOptions{AllowMissingExpiration: true, Logger: debugLogger(logs)})
	srv := httptest.NewServer(mw(whoAmI))
	defer srv.Close()

	t.Run("no token: 401 with a Bearer challenge", func(t *testing.T) {
		a := call(t, srv.URL, "")
		assert.Equal(t, http.StatusUnauthorized, a.status)
		assert.Equal(t, `Bearer realm="toolpack"`, a.challenge)
		assert.Equal(t, "unauthorized", a.errType)
		assert.Contains(t, a.body, "a bearer token is required")
	})
	t.Run("not a bearer scheme", func(t *testing.T) {
		a := call(t, srv.URL, "Basic "+aliceToken)
		assert.Equal(t, http.StatusUnauthorized, a.status)
	})
	t.Run("wrong token: 401 invalid_token", func(t *testing.T) {
		a := call(t, srv.URL, "Bearer "+strings.ToUpper(aliceToken))
		assert.Equal(t, http.StatusUnauthorized, a.status)
		assert.Equal(t, `Bearer realm="toolpack", error="invalid_token"`, a.challenge)
		assert.Contains(t, a.body, "the bearer token is not valid")
		assert.NotContains(t, a.body, "configured tokens", "the verifier's own text is not sent")
	})
	t.Run("each token passes and names its holder", func(t *testing.T) {
		a := call(t, srv.URL, "Bearer "+aliceToken)
		assert.Equal(t, http.StatusOK, a.status)
		assert.Equal(t, "alice ", a.body)
		a = call(t, srv.URL, "bearer "+bobToken)
		assert.Equal(t, http.StatusOK, a.status, "the scheme is case-insensitive")
		assert.Equal(t, "token-2 ", a.body, "an unnamed token is named by its position among the tokens")
	})
	t.Run("tokens never reach the log", func(t *testing.T) {
		call(t, srv.URL, "Bearer "+aliceToken+"x")
		out := logs.String()
		assert.Contains(t, out, "bearer token refused")
		assert.NotContains(t, out, aliceToken)
		assert.NotContains(t, out, bobToken)
	})
}

func TestRequireBearer_ExpirationRules(t *testing.T) {
	static := testTokens(t)
	t.Run("a token without expiration is refused unless allowed", func(t *testing.T) {
		srv := httptest.NewServer(httpguard.RequireBearer(static.Verify, httpguard.BearerOptions{Logger: quiet()})(whoAmI))
		defer srv.Close()
		a := call(t, srv.URL, "Bearer "+aliceToken)
		assert.Equal(t, http.StatusUnauthorized, a.status)
		assert.Contains(t, a.body, "token missing expiration")
	})
	t.Run("an expired token is refused; skew tolerated", func(t *testing.T) {
		expired := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
			return &auth.TokenInfo{UserID: "u", Expiration: time.Now().Add(-time.Second)}, nil
		}
		srv := httptest.NewServer(httpguard.RequireBearer(expired, httpguard.BearerOptions{Logger: quiet()})(whoAmI))
		defer srv.Close()
		a := call(t, srv.URL, "Bearer "+aliceToken)
		assert.Equal(t, http.StatusUnauthorized, a.status)
		assert.Contains(t, a.body, "token expired")

		skew := httptest.NewServer(httpguard.RequireBearer(expired, httpguard.BearerOptions{ClockSkew: time.Minute, Logger: quiet()})(whoAmI))
		defer skew.Close()
		assert.Equal(t, http.StatusOK, call(t, skew.URL, "Bearer "+aliceToken).status)
	})
}

func TestRequireBearer_ScopesAndResourceMetadata(t *testing.T) {
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		switch tok {
		case "reader-token-0123456789":
			return &auth.TokenInfo{UserID: "r", Scopes: []string{"tools:read"}, Expiration: time.Now().Add(time.Hour)}, nil
		case "admin-token-0123456789":
			return &auth.TokenInfo{UserID: "a", Scopes: []string{"tools:read", "tools:call"}, Expiration: time.Now().Add(time.Hour)}, nil
		}
		return nil, auth.ErrInvalidToken
	}
	opts := httpguard.BearerOptions{Realm: "tools", Scopes: []string{"tools:call"},
		ResourceMetadataURL: "https://tools.example/.well-known/oauth-protected-resource", Logger: quiet()}
	srv := httptest.NewServer(httpguard.RequireBearer(verify, opts)(whoAmI))
	defer srv.Close()

	a := call(t, srv.URL, "")
	assert.Equal(t, http.StatusUnauthorized, a.status)
	assert.Equal(t, `Bearer realm="tools", resource_metadata="https://tools.example/.well-known/oauth-protected-resource", scope="tools:call"`, a.challenge)

	a = call(t, srv.URL, "Bearer reader-token-0123456789")
	assert.Equal(t, http.StatusForbidden, a.status)
	assert.Equal(t, "forbidden", a.errType)
	assert.Contains(t, a.challenge, `error="insufficient_scope"`)
	assert.Contains(t, a.body, "insufficient scope")

	a = call(t, srv.URL, "Bearer admin-token-0123456789")
	assert.Equal(t, http.StatusOK, a.status)
	assert.Equal(t, "a tools:read,tools:call", a.body, "the handler reads the TokenInfo")
}

func TestRequireBearer_VerifierFailuresStayOnTheServer(t *testing.T) {
	logs := &lockedBuffer{}
	verify := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
		return nil, errors.New("introspection endpoint said 500: db password hunter2")
	}
	srv := httptest.NewServer(httpguard.RequireBearer(verify, httpguard.BearerOptions{Logger: debugLogger(logs)})(whoAmI))
	defer srv.Close()
	a := call(t, srv.URL, "Bearer "+aliceToken)
	assert.Equal(t, http.StatusInternalServerError, a.status)
	assert.Empty(t, a.challenge)
	assert.NotContains(t, a.body, "hunter2")
	assert.Contains(t, a.body, "could not be checked")
	assert.Contains(t, logs.String(), "level=ERROR")
	assert.Contains(t, logs.String(), "introspection endpoint said 500", "the host's own error is logged")
	assert.NotContains(t, logs.String(), aliceToken)

	oauth := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
		return nil, errors.Join(auth.ErrOAuth, errors.New("bad audience"))
	}
	srv2 := httptest.NewServer(httpguard.RequireBearer(oauth, httpguard.BearerOptions{Logger: quiet()})(whoAmI))
	defer srv2.Close()
	a = call(t, srv2.URL, "Bearer "+aliceToken)
	assert.Equal(t, http.StatusBadRequest, a.status)
	assert.NotContains(t, a.body, "bad audience")

	none := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) { return nil, nil }
	srv3 := httptest.NewServer(httpguard.RequireBearer(none, httpguard.BearerOptions{Logger: quiet()})(whoAmI))
	defer srv3.Close()
	assert.Equal(t, http.StatusInternalServerError, call(t, srv3.URL, "Bearer "+aliceToken).status)
}

func TestRequireBearer_NilVerifierRefusesEverything(t *testing.T) {
	logs := &lockedBuffer{}
	mw := httpguard.RequireBearer(nil, httpguard.BearerOptions{Logger: debugLogger(logs)})
	assert.Contains(t, logs.String(), "no token verifier")
	srv := httptest.NewServer(mw(whoAmI))
	defer srv.Close()
	assert.Equal(t, http.StatusUnauthorized, call(t, srv.URL, "Bearer "+aliceToken).status)
}

func TestTokenInfoFromContext(t *testing.T) {
	assert.Nil(t, httpguard.TokenInfoFromContext(context.Background()))
	ti := &auth.TokenInfo{UserID: "carol"}
	assert.Same(t, ti, httpguard.TokenInfoFromContext(httpguard.ContextWithTokenInfo(context.Background(), ti)))
	assert.Nil(t, httpguard.TokenInfoFromContext(httpguard.ContextWithTokenInfo(context.Background(), nil)))

	// The SDK's own middleware stores it under its key; the accessor finds
	// it there too.
	var got *auth.TokenInfo
	h := auth.RequireBearerToken(func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: "dave", Expiration: time.Now().Add(time.Hour)}, nil
	}, nil)(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = httpguard.TokenInfoFromContext(r.Context()) }))
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Authorization", "Bearer x")
	h.ServeHTTP(httptest.NewRecorder(), r)
	require.NotNil(t, got)
	assert.Equal(t, "dave", got.UserID)
}

func TestParseTokens_ErrorsNameTheLineNeverTheToken(t *testing.T) {
	secretish := "s3cr3t-but-short"
	cases := map[string]struct{ text, want string }{
		"too short":        {"abc123", "line 1: the token is 6 characters long; expected at least 16"},
		"bad character":    {"# c\n" + secretish + "!!", "line 2: the token has a character outside"},
		"space inside":     {"Bearer " + aliceToken, "line 1: the token has a character outside"},
		"padding in midst": {"abcdefghijklmnop=q", "character after '=' padding"},
		"bad name":         {"al ice:" + aliceToken, "line 1: the name before ':'"},
		"repeated token":   {aliceToken + "\nx:" + aliceToken, "line 2: the same token as line 1"},
		"repeated name":    {"a:" + aliceToken + "\na:" + bobToken, "line 2: the name before ':' is already used on line 1"},
		"empty":            {"# nothing\n\n", "holds no token"},
		"too long":         {strings.Repeat("a", httpguard.MaxTokenLen+1), "expected at most 4096"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := httpguard.ParseTokens(c.text, "file x")
			require.Error(t, err)
			assert.ErrorIs(t, err, httpguard.ErrInvalidTokens)
			assert.Contains(t, err.Error(), c.want)
			assert.Contains(t, err.Error(), "file x")
			for _, s := range []string{aliceToken, bobToken, secretish} {
				assert.NotContains(t, err.Error(), s)
			}
		})
	}
	t.Run("every problem at once", func(t *testing.T) {
		_, err := httpguard.ParseTokens("short\n"+aliceToken+"\nalso-short", "f")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "line 1:")
		assert.Contains(t, err.Error(), "line 3:")
	})
}

func TestTokens_VerifyAcceptsOnlyConfiguredTokens(t *testing.T) {
	toks := testTokens(t)
	assert.Equal(t, 2, toks.Len())
	ti, err := toks.Verify(context.Background(), aliceToken, nil)
	require.NoError(t, err)
	assert.Equal(t, "alice", ti.UserID)
	assert.True(t, ti.Expiration.IsZero())
	ti.UserID = "mallory" // a caller changing its copy changes nothing
	ti, err = toks.Verify(context.Background(), aliceToken, nil)
	require.NoError(t, err)
	assert.Equal(t, "alice", ti.UserID)
	for _, bad := range []string{"", aliceToken[:len(aliceToken)-1], aliceToken + "0", " " + aliceToken, strings.ToUpper(bobToken)} {
		_, err := toks.Verify(context.Background(), bad, nil)
		assert.ErrorIs(t, err, auth.ErrInvalidToken, "%q", bad)
	}
}

func TestTokensFromFileAndEnv(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tokens")
	require.NoError(t, os.WriteFile(path, []byte("ci:"+aliceToken+"\r\n"), 0o600))
	toks, err := httpguard.TokensFromFile(path)
	require.NoError(t, err)
	ti, err := toks.Verify(context.Background(), aliceToken, nil)
	require.NoError(t, err)
	assert.Equal(t, "ci", ti.UserID, "CRLF line ends are trimmed")

	_, err = httpguard.TokensFromFile(filepath.Join(dir, "missing"))
	assert.ErrorIs(t, err, httpguard.ErrInvalidTokens)
	assert.ErrorIs(t, err, os.ErrNotExist)

	big := filepath.Join(dir, "big")
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte("#\n"), httpguard.MaxTokenFileBytes), 0o600))
	_, err = httpguard.TokensFromFile(big)
	assert.ErrorContains(t, err, "is over 1048576 bytes")

	t.Setenv("HTTPGUARD_TEST_TOKEN", bobToken)
	toks, err = httpguard.TokensFromEnv("HTTPGUARD_TEST_TOKEN")
	require.NoError(t, err)
	_, err = toks.Verify(context.Background(), bobToken, nil)
	assert.NoError(t, err)

	t.Setenv("HTTPGUARD_TEST_TOKEN", "")
	_, err = httpguard.TokensFromEnv("HTTPGUARD_TEST_TOKEN")
	assert.ErrorContains(t, err, "environment variable HTTPGUARD_TEST_TOKEN is not set")
	t.Setenv("HTTPGUARD_TEST_TOKEN", "short")
	_, err = httpguard.TokensFromEnv("HTTPGUARD_TEST_TOKEN")
	assert.ErrorContains(t, err, "environment variable HTTPGUARD_TEST_TOKEN line 1")
}
