package netguard

import (
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// redirectEnv serves /to?u=URL (302 to URL), /loop (302 to itself) and
// /final (counted).
func redirectEnv(t *testing.T) (*env, *atomic.Int32) {
	t.Helper()
	var finals atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/to", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("u"), http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/final", func(w http.ResponseWriter, r *http.Request) {
		finals.Add(1)
		_, _ = io.WriteString(w, "final")
	})
	return newEnv(t, mux), &finals
}

func TestRedirectFollowedAndReportsFinalURL(t *testing.T) {
	e, finals := redirectEnv(t)
	c := e.client(t, Options{})
	resp, err := get(t, c, e.url("http://public.example.test:{p}/to?u=http://other.example.test:{p}/final"))
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, "final", string(body))
	assert.Equal(t, e.url("http://other.example.test:{p}/final"), resp.Request.URL.String())
	assert.EqualValues(t, 1, finals.Load())
}

func TestRedirectToLoopbackLiteralRefused(t *testing.T) {
	e, finals := redirectEnv(t)
	c := e.client(t, Options{})
	_, err := get(t, c, e.url("http://public.example.test:{p}/to?u=http://127.0.0.1:{p}/final"))
	require.ErrorIs(t, err, ErrPrivateAddress)
	var be *BlockedError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, StageRedirect, be.Stage)
	assert.Zero(t, finals.Load())
	assert.Len(t, e.net.dialled(), 1, "only the first, public hop is dialled")
}

func TestRedirectToMetadataIntegerRefused(t *testing.T) {
	e, _ := redirectEnv(t)
	c := e.client(t, Options{})
	_, err := get(t, c, e.url("http://public.example.test:{p}/to?u=http://2852039166/latest/meta-data/"))
	require.ErrorIs(t, err, ErrPrivateAddress)
	assert.Len(t, e.net.dialled(), 1)
}

func TestRedirectToPrivateNameRefusedAtDial(t *testing.T) {
	e, _ := redirectEnv(t)
	c := e.client(t, Options{})
	_, err := get(t, c, e.url("http://public.example.test:{p}/to?u=http://internal.example.test:{p}/final"))
	require.ErrorIs(t, err, ErrPrivateAddress)
	var be *BlockedError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, StageDial, be.Stage)
	assert.Equal(t, "10.0.0.1", be.Addr.String())
	assert.Len(t, e.net.dialled(), 1)
}

func TestRedirectToHostNotAllowedRefused(t *testing.T) {
	e, finals := redirectEnv(t)
	c := e.client(t, Options{AllowedHosts: []string{"public.example.test"}})
	_, err := get(t, c, e.url("http://public.example.test:{p}/to?u=http://other.example.test:{p}/final"))
	require.ErrorIs(t, err, ErrHostNotAllowed)
	var be *BlockedError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, StageRedirect, be.Stage)
	assert.Zero(t, finals.Load())
}

func TestRedirectToOtherSchemeRefused(t *testing.T) {
	e, _ := redirectEnv(t)
	c := e.client(t, Options{})
	_, err := get(t, c, e.url("http://public.example.test:{p}/to?u=file:///etc/passwd"))
	require.ErrorIs(t, err, ErrScheme)
}

func TestRedirectLimit(t *testing.T) {
	e, _ := redirectEnv(t)
	c := e.client(t, Options{MaxRedirects: 3})
	_, err := get(t, c, e.url("http://public.example.test:{p}/loop"))
	require.ErrorIs(t, err, ErrTooManyRedirects)
	assert.Len(t, e.net.dialled(), 1, "redirects on one host reuse the connection")
}

func TestRedirectsNotFollowedWhenNegative(t *testing.T) {
	e, finals := redirectEnv(t)
	c := e.client(t, Options{MaxRedirects: -1})
	resp, err := get(t, c, e.url("http://public.example.test:{p}/to?u=/final"))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusFound, resp.StatusCode)
	assert.Equal(t, "/final", resp.Header.Get("Location"))
	assert.Zero(t, finals.Load())
}

// TestHTTPClientGuardsRedirectsAndDials: the *http.Client handed to other
// libraries refuses the same destinations.
func TestHTTPClientGuardsRedirectsAndDials(t *testing.T) {
	e, _ := redirectEnv(t)
	hc := e.client(t, Options{}).HTTPClient()
	resp, err := hc.Get(e.url("http://public.example.test:{p}/final"))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	_, err = hc.Get(e.url("http://public.example.test:{p}/to?u=http://127.0.0.1:{p}/final"))
	assert.ErrorIs(t, err, ErrPrivateAddress)
	_, err = hc.Get("http://metadata.example.test/")
	assert.ErrorIs(t, err, ErrPrivateAddress)
	_, err = hc.Get("http://[::ffff:10.0.0.1]/")
	assert.ErrorIs(t, err, ErrPrivateAddress)
	for _, a := range e.net.dialled() {
		assert.Equal(t, "198.51.100.7:"+e.port, a, "only the public address is ever dialled")
	}
}

// TestRedirectUnparsableLocationRefusedWithoutQuery: a redirect whose
// Location does not parse is refused as a *BlockedError (ErrBadURL,
// StageRedirect), not retried, and neither the error (through Do or
// HTTPClient) nor the log carries the header's value.
func TestRedirectUnparsableLocationRefusedWithoutQuery(t *testing.T) {
	const secret = "SIGNEDSECRET"
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			var hits atomic.Int32
			e := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				w.Header().Set("Location", "/next%zz?sig="+secret)
				w.WriteHeader(code)
			}))
			var logs logBuffer
			c := e.client(t, Options{Logger: logs.logger(), MaxRetries: 2, RetryBaseWait: time.Millisecond})
			_, err := get(t, c, e.url("http://public.example.test:{p}/start?token=abc"))
			require.ErrorIs(t, err, ErrBadURL)
			var be *BlockedError
			require.ErrorAs(t, err, &be)
			assert.Equal(t, StageRedirect, be.Stage)
			assert.EqualValues(t, 1, hits.Load(), "a refusal is not retried")

			_, herr := c.HTTPClient().Get(e.url("http://public.example.test:{p}/start"))
			require.ErrorIs(t, herr, ErrBadURL)

			// Not following redirects does not help: net/http parses the
			// Location first.
			nc := e.client(t, Options{MaxRedirects: -1})
			_, nerr := get(t, nc, e.url("http://public.example.test:{p}/start"))
			require.ErrorIs(t, nerr, ErrBadURL)

			all := err.Error() + "\n" + herr.Error() + "\n" + nerr.Error() + "\n" + logs.String()
			for _, s := range []string{secret, "sig=", "%zz", "token=abc"} {
				assert.NotContains(t, all, s)
			}
			assert.Contains(t, logs.String(), "netguard: request failed")
		})
	}
}
