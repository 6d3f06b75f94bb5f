package httptool_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/httptool"
	"github.com/toolpack-go/toolpack/result"
)

func invokeWithAuth(t *testing.T, inv *httptool.Invoker, url string, auth *catalogue.HTTPAuth, method, body string) result.Result[any] {
	t.Helper()
	tool := httpTool(t, catalogue.HTTPRequest{Method: method, URLTemplate: url, Body: body, Auth: auth,
		Query: map[string]string{"q": "${q}"}})
	res, err := inv.Invoke(context.Background(), tool, json.RawMessage(`{"q":"a b/c","v":"x"}`))
	require.NoError(t, err)
	return res
}

func TestAuthBearer(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{Secrets: map[string]string{"TOKEN": "tok-123"}})
	res := invokeWithAuth(t, inv, rec.URL+"/", &catalogue.HTTPAuth{Type: catalogue.AuthBearer, Token: "${TOKEN}"}, "GET", "")
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "Bearer tok-123", rec.last(t).Header.Get("Authorization"))
}

func TestAuthBasic(t *testing.T) {
	var user, pass string
	var ok bool
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok = r.BasicAuth()
		_, _ = io.WriteString(w, "{}")
	})
	inv := newInvoker(t, httptool.Options{Secrets: map[string]string{"USER": "alice", "PASS": "p:ss w"}})
	res := invokeWithAuth(t, inv, rec.URL+"/", &catalogue.HTTPAuth{Type: catalogue.AuthBasic, Username: "${USER}", Password: "${PASS}"}, "GET", "")
	require.True(t, res.Success, res.Error)
	require.True(t, ok)
	assert.Equal(t, "alice", user)
	assert.Equal(t, "p:ss w", pass)
}

func TestAuthAPIKeyInHeader(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{Secrets: map[string]string{"K": "key-1"}})
	res := invokeWithAuth(t, inv, rec.URL+"/", &catalogue.HTTPAuth{Type: catalogue.AuthAPIKey, In: "header", Name: "X-Api-Key", Value: "${K}"}, "GET", "")
	require.True(t, res.Success, res.Error)
	got := rec.last(t)
	assert.Equal(t, "key-1", got.Header.Get("X-Api-Key"))
	assert.Equal(t, map[string][]string{"q": {"a b/c"}}, got.Query)
}

func TestAuthAPIKeyInQuery(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{Secrets: map[string]string{"K": "key&=1"}})
	res := invokeWithAuth(t, inv, rec.URL+"/", &catalogue.HTTPAuth{Type: catalogue.AuthAPIKey, In: "query", Name: "api_key", Value: "${K}"}, "GET", "")
	require.True(t, res.Success, res.Error)
	assert.Equal(t, map[string][]string{"q": {"a b/c"}, "api_key": {"key&=1"}}, rec.last(t).Query)
}

func TestAuthAPIKeyArgumentCannotReplaceTheSecret(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{Secrets: map[string]string{"K": "key-1"}})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: rec.URL + "/",
		Auth: &catalogue.HTTPAuth{Type: catalogue.AuthAPIKey, In: "header", Name: "X-Api-Key", Value: "${K}"}})
	res, err := inv.Invoke(context.Background(), tool, json.RawMessage(`{"K":"from-the-model"}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "key-1", rec.last(t).Header.Get("X-Api-Key"))
}

// verifyHMAC recomputes the signature the way a server would, from the
// documented canonical string.
func verifyHMAC(r *http.Request, body []byte, newHash func() hash.Hash, secret, header string) error {
	ts, err := strconv.ParseInt(r.Header.Get(httptool.HMACTimestampHeader), 10, 64)
	if err != nil {
		return fmt.Errorf("timestamp header: %v", err)
	}
	h := newHash()
	h.Write(body)
	canon := r.Method + "\n" + r.URL.EscapedPath() + "\n" + r.URL.RawQuery + "\n" + strconv.FormatInt(ts, 10) + "\n" + hex.EncodeToString(h.Sum(nil))
	m := hmac.New(newHash, []byte(secret))
	m.Write([]byte(canon))
	want := hex.EncodeToString(m.Sum(nil))
	if !hmac.Equal([]byte(want), []byte(r.Header.Get(header))) {
		return fmt.Errorf("signature mismatch")
	}
	return nil
}

func TestAuthHMACVerifiedByServer(t *testing.T) {
	for _, alg := range []struct {
		name string
		h    func() hash.Hash
	}{{"sha256", sha256.New}, {"sha512", sha512.New}} {
		t.Run(alg.name, func(t *testing.T) {
			const secret = "hmac-secret"
			var verr error
			var mu sync.Mutex
			rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				verr = verifyHMAC(r, body, alg.h, secret, "X-Signature")
				mu.Unlock()
				_, _ = io.WriteString(w, "{}")
			})
			now := time.Unix(1_700_000_000, 0)
			inv := newInvoker(t, httptool.Options{Secrets: map[string]string{"S": secret}, Now: func() time.Time { return now }})
			auth := &catalogue.HTTPAuth{Type: catalogue.AuthHMAC, Secret: "${S}", Name: "X-Signature", Algorithm: alg.name}
			res := invokeWithAuth(t, inv, rec.URL+"/v1/${v}", auth, "POST", `{"v":"${v}"}`)
			require.True(t, res.Success, res.Error)
			mu.Lock()
			require.NoError(t, verr)
			mu.Unlock()
			assert.Equal(t, "1700000000", rec.last(t).Header.Get(httptool.HMACTimestampHeader))

			// A wrong secret on the server side fails verification.
			got := rec.last(t)
			r, _ := http.NewRequest(got.Method, rec.URL+got.RequestURI, nil)
			r.Header = got.Header
			assert.Error(t, verifyHMAC(r, got.Body, alg.h, "other", "X-Signature"))
			assert.Error(t, verifyHMAC(r, append(got.Body, ' '), alg.h, secret, "X-Signature"), "body is signed")
		})
	}
}

func TestHMACCanonicalString(t *testing.T) {
	assert.Equal(t, "GET\n/\n\n5\nabc", httptool.HMACCanonical("GET", "", "", 5, "abc"))
	assert.Equal(t, "POST\n/a%2Fb\nq=1\n17\nff", httptool.HMACCanonical("POST", "/a%2Fb", "q=1", 17, "ff"))
}

// tokenServer is an OAuth2 token endpoint counting its calls.
type tokenServer struct {
	calls     atomic.Int32
	expiresIn int
}

func (ts *tokenServer) handler(t *testing.T) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "client_credentials" {
			http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
			return
		}
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		if id != "client-1" || secret != "cs-secret" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"error":"invalid_client"}`)
			return
		}
		n := ts.calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"access_token":"at-%d","token_type":"Bearer","expires_in":%d,"scope":%q}`, n, ts.expiresIn, r.PostForm.Get("scope"))
	}
}

func TestAuthOAuth2ClientCredentialsCachedAndRefreshed(t *testing.T) {
	ts := &tokenServer{expiresIn: 3600}
	mux := http.NewServeMux()
	mux.HandleFunc("/token", ts.handler(t))
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprintf(w, "%q", r.Header.Get("Authorization"))
	})
	rec := newRecorder(t, mux.ServeHTTP)
	var mu sync.Mutex
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	inv := newInvoker(t, httptool.Options{Now: clock,
		Secrets: map[string]string{"CID": "client-1", "CS": "cs-secret"}})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: rec.URL + "/api",
		Auth: &catalogue.HTTPAuth{Type: catalogue.AuthOAuth2, TokenURL: rec.URL + "/token",
			ClientID: "${CID}", ClientSecret: "${CS}", Scopes: []string{"read", "write"}}})
	call := func() string {
		res, err := inv.Invoke(context.Background(), tool, nil)
		require.NoError(t, err)
		require.True(t, res.Success, res.Error)
		return res.Value.(string)
	}
	assert.Equal(t, "Bearer at-1", call())
	assert.Equal(t, "Bearer at-1", call(), "cached")
	advance(3600*time.Second - 31*time.Second)
	assert.Equal(t, "Bearer at-1", call(), "still valid 31 s before expiry")
	assert.EqualValues(t, 1, ts.calls.Load())
	advance(2 * time.Second)
	assert.Equal(t, "Bearer at-2", call(), "refreshed within 30 s of expiry")
	assert.Equal(t, "Bearer at-2", call())
	assert.EqualValues(t, 2, ts.calls.Load())
}

func TestAuthOAuth2BadClientIsUpstreamFailure(t *testing.T) {
	ts := &tokenServer{expiresIn: 60}
	rec := newRecorder(t, ts.handler(t))
	inv := newInvoker(t, httptool.Options{Secrets: map[string]string{"CID": "client-1", "CS": "wrong-secret-value"}})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: rec.URL + "/api",
		Auth: &catalogue.HTTPAuth{Type: catalogue.AuthOAuth2, TokenURL: rec.URL + "/token", ClientID: "${CID}", ClientSecret: "${CS}"}})
	res, err := inv.Invoke(context.Background(), tool, nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, httptool.ErrTypeUpstream, res.ErrorType)
	assert.Contains(t, res.Error, "401")
	assert.Contains(t, res.Error, "invalid_client")
	assert.NotContains(t, res.Error, "wrong-secret-value")
}

func TestMissingSecretIsUnavailable(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: rec.URL + "/",
		Auth: &catalogue.HTTPAuth{Type: catalogue.AuthBearer, Token: "${TOKEN}"}})
	res, err := inv.Invoke(context.Background(), tool, nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Contains(t, res.Error, `"TOKEN"`)
	assert.Zero(t, rec.count())
}

func TestAuthOAuth2TokenDroppedAfter401(t *testing.T) {
	ts := &tokenServer{expiresIn: 3600}
	var refuse atomic.Bool
	refuse.Store(true)
	mux := http.NewServeMux()
	mux.HandleFunc("/token", ts.handler(t))
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer at-1" && refuse.Load() {
			http.Error(w, "revoked", http.StatusUnauthorized)
			return
		}
		_, _ = fmt.Fprintf(w, "%q", r.Header.Get("Authorization"))
	})
	rec := newRecorder(t, mux.ServeHTTP)
	inv := newInvoker(t, httptool.Options{Secrets: map[string]string{"CID": "client-1", "CS": "cs-secret"}})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: rec.URL + "/api",
		Auth: &catalogue.HTTPAuth{Type: catalogue.AuthOAuth2, TokenURL: rec.URL + "/token", ClientID: "${CID}", ClientSecret: "${CS}"}})
	res, err := inv.Invoke(context.Background(), tool, nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, 401, res.ErrorData.(httptool.UpstreamErrorData).Status)
	res, err = inv.Invoke(context.Background(), tool, nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "Bearer at-2", res.Value)
	assert.EqualValues(t, 2, ts.calls.Load())
}

func TestAuthOAuth2ConcurrentCallsFetchOneToken(t *testing.T) {
	ts := &tokenServer{expiresIn: 3600}
	mux := http.NewServeMux()
	mux.HandleFunc("/token", ts.handler(t))
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "{}") })
	rec := newRecorder(t, mux.ServeHTTP)
	inv := newInvoker(t, httptool.Options{Secrets: map[string]string{"CID": "client-1", "CS": "cs-secret"}})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: rec.URL + "/api",
		Auth: &catalogue.HTTPAuth{Type: catalogue.AuthOAuth2, TokenURL: rec.URL + "/token", ClientID: "${CID}", ClientSecret: "${CS}"}})
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := inv.Invoke(context.Background(), tool, nil)
			assert.NoError(t, err)
			assert.True(t, res.Success, res.Error)
		}()
	}
	wg.Wait()
	assert.EqualValues(t, 1, ts.calls.Load())
}

func TestAuthOAuth2TokenURLHostChecked(t *testing.T) {
	ts := &tokenServer{expiresIn: 3600}
	tokenSrv := newRecorder(t, ts.handler(t))
	api := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{AllowedHosts: []string{api.Listener.Addr().String()},
		Secrets: map[string]string{"CID": "client-1", "CS": "cs-secret"}})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: api.URL + "/api",
		Auth: &catalogue.HTTPAuth{Type: catalogue.AuthOAuth2, TokenURL: tokenSrv.URL + "/token", ClientID: "${CID}", ClientSecret: "${CS}"}})
	res, err := inv.Invoke(context.Background(), tool, nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, result.SecurityError, res.ErrorType)
	assert.Zero(t, tokenSrv.count())
	assert.Zero(t, api.count())
	assert.NotContains(t, res.Error, "cs-secret")
}

// A tool stored before catalogue.ToolSpec.CheckCredentials, with a literal
// credential in a header, still runs: the rule is the catalogue's on
// writes, not the invoker's.
func TestStoredLiteralCredentialHeaderStillRuns(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: rec.URL + "/",
		Headers: map[string]string{"Authorization": "Bearer literal-from-an-old-catalogue"}})
	require.Error(t, tool.ToolSpec.CheckCredentials(), "it could not be written today")
	res, err := inv.Invoke(context.Background(), tool, json.RawMessage(`{}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "Bearer literal-from-an-old-catalogue", rec.last(t).Header.Get("Authorization"))
}
