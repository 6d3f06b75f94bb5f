package netguard

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// flaky answers the first failN requests with code (and Retry-After when
// retryAfter is not empty), then 200 "ok". It records the bodies received.
type flaky struct {
	failN      int32
	code       int
	retryAfter string
	n          atomic.Int32
	mu         sync.Mutex
	bodies     []string
}

func (f *flaky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(b))
	f.mu.Unlock()
	if f.n.Add(1) <= f.failN {
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		w.WriteHeader(f.code)
		_, _ = io.WriteString(w, "try again")
		return
	}
	_, _ = io.WriteString(w, "ok")
}

func fastRetries(n int) Options {
	return Options{MaxRetries: n, RetryBaseWait: time.Millisecond, MaxRetryWait: 10 * time.Millisecond}
}

func TestRetry503ThenSuccess(t *testing.T) {
	f := &flaky{failN: 2, code: http.StatusServiceUnavailable}
	e := newEnv(t, f)
	c := e.client(t, fastRetries(3))
	resp, err := get(t, c, e.url("http://public.example.test:{p}/"))
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.EqualValues(t, 3, f.n.Load())
}

func TestRetriesExhaustedReturnLastResponse(t *testing.T) {
	f := &flaky{failN: 100, code: http.StatusBadGateway}
	e := newEnv(t, f)
	c := e.client(t, fastRetries(2))
	resp, err := get(t, c, e.url("http://public.example.test:{p}/"))
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
	assert.Equal(t, "try again", string(body))
	assert.EqualValues(t, 3, f.n.Load(), "MaxRetries 2 means 3 attempts")
}

func TestNoRetriesByDefault(t *testing.T) {
	f := &flaky{failN: 1, code: http.StatusServiceUnavailable}
	e := newEnv(t, f)
	c := e.client(t, Options{})
	resp, err := get(t, c, e.url("http://public.example.test:{p}/"))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.EqualValues(t, 1, f.n.Load())
}

func TestNotImplementedNotRetried(t *testing.T) {
	f := &flaky{failN: 1, code: http.StatusNotImplemented}
	e := newEnv(t, f)
	c := e.client(t, fastRetries(3))
	resp, err := get(t, c, e.url("http://public.example.test:{p}/"))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusNotImplemented, resp.StatusCode)
	assert.EqualValues(t, 1, f.n.Load())
}

func TestClientErrorNotRetried(t *testing.T) {
	f := &flaky{failN: 1, code: http.StatusBadRequest}
	e := newEnv(t, f)
	c := e.client(t, fastRetries(3))
	resp, err := get(t, c, e.url("http://public.example.test:{p}/"))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.EqualValues(t, 1, f.n.Load())
}

func TestPostNotRetriedByDefault(t *testing.T) {
	f := &flaky{failN: 1, code: http.StatusServiceUnavailable}
	e := newEnv(t, f)
	c := e.client(t, fastRetries(3))
	req, err := http.NewRequest(http.MethodPost, e.url("http://public.example.test:{p}/"), strings.NewReader(`{"q":1}`))
	require.NoError(t, err)
	resp, err := c.Do(t.Context(), req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.EqualValues(t, 1, f.n.Load())
}

func TestPostRetriedWhenOptedInReplaysBody(t *testing.T) {
	f := &flaky{failN: 2, code: http.StatusServiceUnavailable}
	e := newEnv(t, f)
	o := fastRetries(3)
	o.RetryNonIdempotent = true
	c := e.client(t, o)
	req, err := http.NewRequest(http.MethodPost, e.url("http://public.example.test:{p}/"), strings.NewReader(`{"q":1}`))
	require.NoError(t, err)
	resp, err := c.Do(t.Context(), req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, []string{`{"q":1}`, `{"q":1}`, `{"q":1}`}, f.bodies)
}

func TestUnreplayableBodyNotRetried(t *testing.T) {
	f := &flaky{failN: 1, code: http.StatusServiceUnavailable}
	e := newEnv(t, f)
	c := e.client(t, fastRetries(3))
	req, err := http.NewRequest(http.MethodPut, e.url("http://public.example.test:{p}/"), io.NopCloser(strings.NewReader("data")))
	require.NoError(t, err)
	require.Nil(t, req.GetBody)
	resp, err := c.Do(t.Context(), req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.EqualValues(t, 1, f.n.Load())
}

func TestConnectionErrorsRetried(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	_, port, _ := net.SplitHostPort(l.Addr().String())
	require.NoError(t, l.Close()) // nothing listens there now
	e := newEnv(t, nil)
	c := e.client(t, fastRetries(2))
	_, err = get(t, c, "http://public.example.test:"+port+"/")
	require.Error(t, err)
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	assert.Contains(t, err.Error(), "after 3 attempts")
	assert.Len(t, e.net.dialled(), 3)
}

// retryLog returns the "wait" of each retry record in a JSON log.
func retryWaits(t *testing.T, log string) []time.Duration {
	t.Helper()
	var waits []time.Duration
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		var rec struct {
			Msg  string `json:"msg"`
			Wait int64  `json:"wait"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		if rec.Msg == "netguard: retrying" {
			waits = append(waits, time.Duration(rec.Wait))
		}
	}
	return waits
}

func TestRetryAfterSecondsHonoured(t *testing.T) {
	f := &flaky{failN: 1, code: http.StatusTooManyRequests, retryAfter: "1"}
	e := newEnv(t, f)
	var logs logBuffer
	o := fastRetries(2)
	o.MaxRetryWait = 5 * time.Second
	o.Logger = logs.logger()
	c := e.client(t, o)
	start := time.Now()
	resp, err := get(t, c, e.url("http://public.example.test:{p}/"))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.EqualValues(t, 2, f.n.Load())
	assert.Equal(t, []time.Duration{time.Second}, retryWaits(t, logs.String()))
	assert.GreaterOrEqual(t, time.Since(start), time.Second, "the client waited as asked")
}

func TestRetryAfterHTTPDateHonoured(t *testing.T) {
	f := &flaky{failN: 1, code: http.StatusServiceUnavailable,
		retryAfter: time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat)}
	e := newEnv(t, f)
	var logs logBuffer
	o := fastRetries(2)
	o.MaxRetryWait = 5 * time.Second
	o.Logger = logs.logger()
	c := e.client(t, o)
	resp, err := get(t, c, e.url("http://public.example.test:{p}/"))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	waits := retryWaits(t, logs.String())
	require.Len(t, waits, 1)
	// The date has one-second resolution: the wait is what remained of it.
	assert.Greater(t, waits[0], 500*time.Millisecond)
	assert.LessOrEqual(t, waits[0], 2*time.Second)
}

func TestRetryAfterBeyondCapNotRetried(t *testing.T) {
	f := &flaky{failN: 1, code: http.StatusTooManyRequests, retryAfter: "120"}
	e := newEnv(t, f)
	o := fastRetries(3)
	o.MaxRetryWait = 5 * time.Second
	c := e.client(t, o)
	resp, err := get(t, c, e.url("http://public.example.test:{p}/"))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "120", resp.Header.Get("Retry-After"))
	assert.EqualValues(t, 1, f.n.Load())
}

func TestRetryAfterBeyondDeadlineNotRetried(t *testing.T) {
	f := &flaky{failN: 1, code: http.StatusServiceUnavailable, retryAfter: "3"}
	e := newEnv(t, f)
	o := fastRetries(3)
	o.Timeout = time.Second
	c := e.client(t, o)
	resp, err := get(t, c, e.url("http://public.example.test:{p}/"))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.EqualValues(t, 1, f.n.Load())
}

func TestCancelDuringBackoffWait(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	f := &flaky{failN: 100, code: http.StatusServiceUnavailable, retryAfter: "10"}
	e := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.ServeHTTP(w, r)
		cancel() // the client is now about to wait 10 s
	}))
	o := fastRetries(1)
	o.MaxRetryWait = time.Minute
	c := e.client(t, o)
	req, err := http.NewRequest(http.MethodGet, e.url("http://public.example.test:{p}/"), nil)
	require.NoError(t, err)
	_, err = c.Do(ctx, req)
	require.ErrorIs(t, err, context.Canceled)
	assert.EqualValues(t, 1, f.n.Load())
}

func TestTimeoutWrapsDeadlineExceeded(t *testing.T) {
	e := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	c := e.client(t, Options{Timeout: 100 * time.Millisecond, MaxRetries: 3, RetryBaseWait: time.Millisecond})
	_, err := get(t, c, e.url("http://public.example.test:{p}/"))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Len(t, e.net.dialled(), 1, "a deadline is not retried")
}

func TestTimeoutCoversBodyRead(t *testing.T) {
	e := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	c := e.client(t, Options{Timeout: 200 * time.Millisecond})
	resp, err := get(t, c, e.url("http://public.example.test:{p}/"))
	require.NoError(t, err)
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

const maxDuration = time.Duration(math.MaxInt64)

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{" 7 ", 7 * time.Second, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"", 0, false},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"4294967296", 4294967296 * time.Second, true},
		{strconv.FormatUint(1<<40, 10), maxDuration, true},
		{"18446744073709551616", maxDuration, true}, // 2^64: saturates
		{strings.Repeat("9", 40), maxDuration, true},
		{"99999999999999999999999x", 0, false},
		{"12x", 0, false},
		{"+5", 0, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			d, ok := parseRetryAfter(tc.in, now)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, d)
		})
	}
}

// TestHugeRetryAfterNotRetried: a Retry-After too long for 32 (or 64) bits
// of seconds is a request to wait longer than MaxRetryWait, so the response
// is returned without another attempt.
func TestHugeRetryAfterNotRetried(t *testing.T) {
	for _, ra := range []string{"4294967296", "18446744073709551616", strings.Repeat("9", 40)} {
		t.Run(ra, func(t *testing.T) {
			f := &flaky{failN: 100, code: http.StatusServiceUnavailable, retryAfter: ra}
			e := newEnv(t, f)
			c := e.client(t, fastRetries(2))
			resp, err := get(t, c, e.url("http://public.example.test:{p}/"))
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
			assert.Equal(t, ra, resp.Header.Get("Retry-After"))
			assert.EqualValues(t, 1, f.n.Load(), "the server asked to wait far longer than MaxRetryWait")
		})
	}
}

// TestRetryWaitsNeverExceedMaxRetryWait: the jitter never takes a wait
// past MaxRetryWait, even once the back-off has reached it.
func TestRetryWaitsNeverExceedMaxRetryWait(t *testing.T) {
	f := &flaky{failN: 100, code: http.StatusServiceUnavailable}
	e := newEnv(t, f)
	var logs logBuffer
	const maxWait = 4 * time.Millisecond
	c := e.client(t, Options{MaxRetries: 20, RetryBaseWait: maxWait, MaxRetryWait: maxWait, Logger: logs.logger()})
	resp, err := get(t, c, e.url("http://public.example.test:{p}/"))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	waits := retryWaits(t, logs.String())
	require.Len(t, waits, 20)
	for i, w := range waits {
		assert.LessOrEqual(t, w, maxWait, "wait %d", i)
		assert.Positive(t, w, "wait %d", i)
	}
}

// TestPropertyBackOffCappedAtMaxRetryWait: whatever the base and cap, every
// wait the back-off hands out is at most the cap (and never Stop or
// negative while the deadline is far).
func TestPropertyBackOffCappedAtMaxRetryWait(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := time.Duration(rapid.Int64Range(1, int64(time.Minute)).Draw(t, "base"))
		maxWait := time.Duration(rapid.Int64Range(1, int64(time.Minute)).Draw(t, "max"))
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		b := newRetryBackOff(ctx, base, maxWait)
		for i := range 30 {
			n := b.NextBackOff()
			if n < 0 || n > maxWait {
				t.Fatalf("wait %d is %v; expected in [0, %v]", i, n, maxWait)
			}
		}
	})
}

// FuzzParseRetryAfter: no input panics; an accepted delay is never
// negative; a string of digits is always a delay (saturated when huge),
// exact when it fits.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "120", " 7 ", "4294967296", "18446744073709551616", strings.Repeat("9", 40),
		"Wed, 21 Oct 2015 07:28:00 GMT", "-1", "1.5", "+5", "12x", "soon", ""} {
		f.Add(s)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := parseRetryAfter(s, now)
		v := strings.TrimSpace(s)
		if !ok {
			if d != 0 || allDigits(v) {
				t.Fatalf("%q: refused (%v)", s, d)
			}
			return
		}
		if d < 0 {
			t.Fatalf("%q → negative %v", s, d)
		}
		if !allDigits(v) {
			return
		}
		n, err := strconv.ParseUint(v, 10, 64)
		switch {
		case err == nil && n <= uint64(maxDuration/time.Second):
			if d != time.Duration(n)*time.Second {
				t.Fatalf("%q → %v", s, d)
			}
		case d != maxDuration:
			t.Fatalf("%q → %v; expected saturation", s, d)
		}
	})
}
