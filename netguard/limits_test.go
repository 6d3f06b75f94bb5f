package netguard

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sizedEnv serves /len/N (N bytes with Content-Length), /chunked/N (N
// bytes, no Content-Length) and /gzip/N (N zero bytes gzip-encoded).
func sizedEnv(t *testing.T) *env {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/len/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		w.Header().Set("Content-Length", strconv.Itoa(n))
		_, _ = w.Write(bytes.Repeat([]byte("a"), n))
	})
	mux.HandleFunc("/chunked/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		for i := 0; i < n; i += 1000 {
			_, _ = w.Write(bytes.Repeat([]byte("b"), min(1000, n-i)))
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/gzip/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = zw.Write(make([]byte, n))
		_ = zw.Close()
	})
	return newEnv(t, mux)
}

func TestResponseDeclaredTooLargeFailsAtOnce(t *testing.T) {
	e := sizedEnv(t)
	c := e.client(t, Options{MaxResponseBytes: 1000})
	_, err := get(t, c, e.url("http://public.example.test:{p}/len/1001"))
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), "1000 bytes")
}

func TestResponseAtCapIsRead(t *testing.T) {
	e := sizedEnv(t)
	c := e.client(t, Options{MaxResponseBytes: 1000})
	for _, path := range []string{"/len/1000", "/chunked/1000"} {
		resp, err := get(t, c, e.url("http://public.example.test:{p}"+path))
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err, path)
		require.NoError(t, resp.Body.Close())
		assert.Len(t, b, 1000)
	}
}

// A cap as large as an int64 holds (no practical cap, for a caller that
// cuts the body itself) reads the body without overflowing.
func TestResponseCapAtMaxInt64(t *testing.T) {
	e := sizedEnv(t)
	c := e.client(t, Options{MaxResponseBytes: math.MaxInt64})
	for _, path := range []string{"/len/5000", "/chunked/5000"} {
		resp, err := get(t, c, e.url("http://public.example.test:{p}"+path))
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err, path)
		require.NoError(t, resp.Body.Close())
		assert.Len(t, b, 5000)
	}
}

func TestResponseStreamPastCapFailsWithoutBuffering(t *testing.T) {
	e := sizedEnv(t)
	c := e.client(t, Options{MaxResponseBytes: 2500})
	resp, err := get(t, c, e.url("http://public.example.test:{p}/chunked/100000"))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Len(t, b, 2500, "the caller gets exactly the cap, never more")
	_, err = resp.Body.Read(make([]byte, 10))
	assert.ErrorIs(t, err, ErrTooLarge, "and the error sticks")
}

func TestResponseCapAppliesAfterDecompression(t *testing.T) {
	e := sizedEnv(t)
	c := e.client(t, Options{MaxResponseBytes: 64 << 10})
	resp, err := get(t, c, e.url("http://public.example.test:{p}/gzip/10000000"))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Len(t, b, 64<<10)
}

func TestRequestBodyCap(t *testing.T) {
	var received atomic.Int64 // length of the last body received whole
	e := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err == nil {
			received.Store(int64(len(b)))
		}
	}))
	c := e.client(t, Options{MaxRequestBytes: 100})
	u := e.url("http://public.example.test:{p}/")

	t.Run("known length over the cap is refused before sending", func(t *testing.T) {
		req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(strings.Repeat("x", 101)))
		require.NoError(t, err)
		_, err = c.Do(t.Context(), req)
		require.ErrorIs(t, err, ErrTooLarge)
		assert.Empty(t, e.net.dialled())
	})
	t.Run("unknown length over the cap fails while sending", func(t *testing.T) {
		req, err := http.NewRequest(http.MethodPost, u, io.NopCloser(strings.NewReader(strings.Repeat("x", 5000))))
		require.NoError(t, err)
		require.EqualValues(t, 0, req.ContentLength)
		_, err = c.Do(t.Context(), req)
		require.ErrorIs(t, err, ErrTooLarge)
	})
	t.Run("at the cap is sent", func(t *testing.T) {
		req, err := http.NewRequest(http.MethodPost, u, io.NopCloser(strings.NewReader(strings.Repeat("x", 100))))
		require.NoError(t, err)
		resp, err := c.Do(t.Context(), req)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.EqualValues(t, 100, received.Load())
	})
}

func TestRateLimitFailsFastPastDeadline(t *testing.T) {
	var hits atomic.Int32
	e := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	c := e.client(t, Options{MaxCallsPerMinute: 2, Timeout: time.Second})
	u := e.url("http://public.example.test:{p}/")
	for range 2 {
		resp, err := get(t, c, u)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
	}
	// The next token comes in 30 s, past the 1 s timeout: no wait at all.
	_, err := get(t, c, u)
	require.ErrorIs(t, err, ErrRateLimited)
	assert.EqualValues(t, 2, hits.Load())
}

func TestRateLimitWaitsForToken(t *testing.T) {
	e := newEnv(t, nil)
	// 600 per minute: a token every 100 ms, bucket of 600 — drain it first.
	c := e.client(t, Options{MaxCallsPerMinute: 600})
	require.True(t, c.limiter.AllowN(time.Now(), 600))
	resp, err := get(t, c, e.url("http://public.example.test:{p}/"))
	require.NoError(t, err, "a call over the limit waits for the next token")
	require.NoError(t, resp.Body.Close())
}

func TestRateLimitWaitHonoursCancel(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t, Options{MaxCallsPerMinute: 1})
	require.True(t, c.limiter.Allow())
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	req, err := http.NewRequest(http.MethodGet, e.url("http://public.example.test:{p}/"), nil)
	require.NoError(t, err)
	_, err = c.Do(ctx, req)
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, e.net.dialled())
}

// TestSecretsNeverInErrorsOrLogs: secrets in the query, the path, userinfo
// and headers stay out of every error text and log record.
func TestSecretsNeverInErrorsOrLogs(t *testing.T) {
	const (
		apiKey   = "sk-live-0123456789abcdef"
		pathTok  = "bot98765:TOKENinPATH"
		password = "hunter2-password"
		bearer   = "bearer-secret-value"
	)
	e := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	var logs logBuffer
	c := e.client(t, Options{
		Logger:       logs.logger(),
		Secrets:      []string{apiKey, pathTok, bearer},
		AllowedHosts: []string{"public.example.test", "internal.example.test"},
		MaxRetries:   1, RetryBaseWait: time.Millisecond,
	})
	urls := []string{
		"http://127.0.0.1/v1?key=" + apiKey,                                   // refused literal
		"http://internal.example.test/" + pathTok + "/send?key=" + apiKey,     // refused at dial
		"http://user:" + password + "@public.example.test/?key=" + apiKey,     // userinfo
		"http://other.example.test/x?key=" + apiKey,                           // not allowed
		"http://public.example.test:1/" + pathTok + "?key=" + apiKey,          // connection refused, retried
		"http://public.example.test:{p}/" + pathTok + "?key=" + apiKey + "#f", // 503, retried
		"gopher://public.example.test/" + apiKey,                              // scheme
	}
	var texts []string
	for _, u := range urls {
		req, err := http.NewRequest(http.MethodGet, e.url(u), nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+bearer)
		resp, err := c.Do(t.Context(), req)
		if err != nil {
			texts = append(texts, err.Error())
			for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(u) {
				if _, ok := u.(*safeError); ok {
					texts = append(texts, u.Error())
				}
			}
		} else {
			require.NoError(t, resp.Body.Close())
		}
	}
	require.GreaterOrEqual(t, len(texts), 6)
	all := strings.Join(texts, "\n") + "\n" + logs.String()
	for _, s := range []string{apiKey, pathTok, password, bearer, "key="} {
		assert.NotContains(t, all, s)
	}
	assert.Contains(t, all, redactedMark)
	assert.Contains(t, logs.String(), "netguard: retrying")
}

// A secret shorter than MinSecretLen is not redacted (a one-letter key
// would be replaced inside every word: "request bloc[REDACTED]ed"); a
// longer one is, also as escaped in the URL's path shown in the error.
func TestSecrets_MinLengthAndEscapedForms(t *testing.T) {
	const pathTok = "S3CR3T tok/en"
	c, err := New(Options{Secrets: []string{"k", "ab", "xyz", pathTok}})
	// One short secret holding another is removed whole.
	assert.Equal(t, "x "+redactedMark+" y", newRedactor([]string{"a", "a.b"}).text("x a.b y"))
	assert.Equal(t, "ba-"+redactedMark, newRedactor([]string{"a-a"}).text("ba-a-a"), "overlapping: the one that stands alone")
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:45799/"+url.PathEscape("S3CR3T tok")+"/en/v1/chat/completions?key=k", nil)
	require.NoError(t, err)
	_, err = c.Do(t.Context(), req)
	require.ErrorIs(t, err, ErrBlocked)
	msg := err.Error()
	assert.Contains(t, msg, "netguard: request blocked")
	assert.Contains(t, msg, "/"+redactedMark+"/v1/chat/completions?"+redactedMark, "the path secret, escaped, is redacted")
	assert.NotContains(t, msg, "S3CR3T")
	assert.Equal(t, "request blocked", c.red.text("request blocked"), "a secret shorter than MinSecretLen is not redacted inside a word")
	assert.Equal(t, "xyzzy_ab", c.red.text("xyzzy_ab"))
	// Where it stands as a whole word it is: a PIN in a path, a query
	// value, after an escape.
	for in, want := range map[string]string{
		"a xyz b":                "a " + redactedMark + " b",
		"/acct/xyz/balance":      "/acct/" + redactedMark + "/balance",
		"?key=k&n=1":             "?key=" + redactedMark + "&n=1",
		"/x/%2Fxyz":              "/x/%2F" + redactedMark,
		`{"m":"line\nxyz"}`:      `{"m":"line\n` + redactedMark + `"}`,
		"ab":                     redactedMark,
		"url=http://h/ab?x=1":    "url=http://h/" + redactedMark + "?x=1",
		"«ab»":                   "«" + redactedMark + "»",
		"PIN:\u00a0ab":           "PIN:\u00a0" + redactedMark,
		`{"m":"\u003cab\u003e"}`: `{"m":"\u003c` + redactedMark + `\u003e"}`,
		`\\\nab`:                 `\\\n` + redactedMark,
		`\\nab`:                  `\\nab`, // an escaped backslash, then "nab"
		"éab":                    "éab",
		"bxyz-xyz":               "bxyz-" + redactedMark, // overlapping: the second stands alone
	} {
		assert.Equal(t, want, c.red.text(in), in)
	}
}

func TestNewReportsEveryInvalidOption(t *testing.T) {
	_, err := New(Options{
		AllowedHosts:      []string{"ok.example.com", "*.", "bad host", "a.example.com:0", "*.10.0.0.1", "*"},
		AllowAddrs:        []netip.Prefix{{}},
		Timeout:           -1,
		MaxRequestBytes:   -1,
		MaxResponseBytes:  -1,
		MaxRetries:        -1,
		RetryBaseWait:     -1,
		MaxRetryWait:      -1,
		MaxCallsPerMinute: -1,
	})
	require.ErrorIs(t, err, ErrInvalidOptions)
	for _, field := range []string{"AllowedHosts[1]", "AllowedHosts[2]", "AllowedHosts[3]", "AllowedHosts[4]", "AllowedHosts[5]",
		"AllowAddrs[0]", "Timeout", "MaxRequestBytes", "MaxResponseBytes", "MaxRetries", "RetryBaseWait", "MaxRetryWait", "MaxCallsPerMinute"} {
		assert.Contains(t, err.Error(), "invalid options: "+field)
	}
	assert.NotContains(t, err.Error(), "AllowedHosts[0]")
}

func TestZeroOptionsDefaults(t *testing.T) {
	c, err := New(Options{})
	require.NoError(t, err)
	assert.Equal(t, DefaultTimeout, c.timeout)
	assert.EqualValues(t, DefaultMaxRequestBytes, c.maxReq)
	assert.EqualValues(t, DefaultMaxResponseBytes, c.maxResp)
	assert.Equal(t, DefaultMaxRedirects, c.maxRedirects)
	assert.Zero(t, c.maxRetries)
	assert.Nil(t, c.limiter)
	assert.False(t, c.allowPrivate)
	assert.Nil(t, c.transport.Proxy)
}

// TestHEADOfLargeResourceNotRefused: a HEAD response is not refused for
// the length it declares (it has no body); the caller still sees that
// length, and a GET of the same resource is still refused.
func TestHEADOfLargeResourceNotRefused(t *testing.T) {
	e := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "2000")
		if r.Method != http.MethodHead {
			_, _ = w.Write(bytes.Repeat([]byte("a"), 2000))
		}
	}))
	c := e.client(t, Options{MaxResponseBytes: 1000})
	u := e.url("http://public.example.test:{p}/big")

	req, err := http.NewRequest(http.MethodHead, u, nil)
	require.NoError(t, err)
	resp, err := c.Do(t.Context(), req)
	require.NoError(t, err, "HEAD has no body; the cap does not apply")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.EqualValues(t, 2000, resp.ContentLength, "the declared length reaches the caller")
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Empty(t, body)
	require.NoError(t, resp.Body.Close())

	_, err = get(t, c, u)
	require.ErrorIs(t, err, ErrTooLarge, "a GET of the same resource is still refused")
}

// ParseBaseURL accepts an absolute http(s) URL with a host and no user
// information, and its refusals never quote the URL.
func TestParseBaseURL(t *testing.T) {
	u, err := ParseBaseURL("https://gw.example/base?k=1")
	require.NoError(t, err)
	assert.Equal(t, "gw.example", u.Host)
	for raw, want := range map[string]string{
		"http://[::1/S3CR3T":          "it does not parse",
		"ftp://gw.example/S3CR3T":     "with a host",
		"/relative/S3CR3T":            "with a host",
		"https://u:S3CR3T@gw.example": "without user information",
	} {
		_, err := ParseBaseURL(raw)
		require.Error(t, err, raw)
		assert.Contains(t, err.Error(), want, raw)
		assert.NotContains(t, err.Error(), "S3CR3T")
	}
}
