package netguard

import (
	"errors"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ssrfCase is one request of the SSRF corpus.
type ssrfCase struct {
	name    string
	url     string   // {p} is the loopback server's port
	allowed []string // Options.AllowedHosts
	want    error    // nil: the request must succeed
	stage   string   // expected BlockedError.Stage when want != nil
	host    string   // when set, the request URL is http://<host>/ built without net/url's parser
}

var ssrfCorpus = []ssrfCase{
	// Positive controls: public destinations go through.
	{name: "public name", url: "http://public.example.test:{p}/"},
	{name: "public IPv4 literal", url: "http://198.51.100.7:{p}/"},
	{name: "public IPv4 as integer", url: "http://3325256711:{p}/"},
	{name: "allowed host mixed case and trailing dot", url: "http://API.Example.Test.:{p}/", allowed: []string{"api.example.test"}},
	{name: "allowed wildcard subdomain", url: "http://deep.api.example.test:{p}/", allowed: []string{"*.example.test"}},

	// Loopback in every spelling.
	{name: "loopback literal", url: "http://127.0.0.1:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "loopback alias 127.0.0.2", url: "http://127.0.0.2:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "loopback 127.255.255.254", url: "http://127.255.255.254/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "localhost", url: "http://localhost:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "LOCALHOST with trailing dot", url: "http://LOCALHOST.:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "subdomain of localhost", url: "http://api.localhost:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "decimal integer", url: "http://2130706433:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "hex integer", url: "http://0x7f000001:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "octal integer", url: "http://017700000001:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "hex short form", url: "http://0x7f.1:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "two-part short form", url: "http://127.1:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "three-part short form", url: "http://127.0.1:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "dotted octal", url: "http://0177.0.0.01:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "dotted hex upper case", url: "http://0X7F.0X0.0X0.0X1:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "percent-encoded host", host: "%31%32%37.0.0.1", want: ErrBadURL, stage: StageRequest},
	{name: "NUL in host", host: "127.0.0.1\x00.public.example.test", want: ErrBadURL, stage: StageRequest},
	{name: "fullwidth digits", url: "http://１２７.０.０.１:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "IPv6 loopback", url: "http://[::1]:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "IPv4-mapped IPv6 dotted", url: "http://[::ffff:127.0.0.1]:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "IPv4-mapped IPv6 hex", url: "http://[::ffff:7f00:1]:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "IPv4-mapped IPv6 long form", url: "http://[0:0:0:0:0:FFFF:7F00:0001]:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "NAT64 loopback", url: "http://[64:ff9b::7f00:1]:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "6to4 loopback", url: "http://[2002:7f00:1::]:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "IPv4-compatible IPv6", url: "http://[::127.0.0.1]:{p}/", want: ErrPrivateAddress, stage: StageRequest},

	// Metadata, private, link-local and other non-public ranges.
	{name: "metadata service", url: "http://169.254.169.254/latest/meta-data/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "metadata as integer", url: "http://2852039166/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "NAT64 metadata", url: "http://[64:ff9b::a9fe:a9fe]/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "IPv4-mapped metadata", url: "http://[::ffff:169.254.169.254]/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "RFC 1918 10/8", url: "http://10.0.0.1/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "RFC 1918 172.16/12", url: "http://172.31.255.1/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "RFC 1918 192.168/16 short form", url: "http://192.168.257/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "CGNAT", url: "http://100.64.0.1/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "unspecified", url: "http://0.0.0.0:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "zero short form", url: "http://0:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "IPv6 unspecified", url: "http://[::]:{p}/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "multicast", url: "http://224.0.0.1/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "broadcast", url: "http://255.255.255.255/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "reserved 240/4", url: "http://240.0.0.1/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "IPv6 link-local", url: "http://[fe80::1]/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "IPv6 unique local", url: "http://[fd00::1]/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "IPv6 multicast", url: "http://[ff02::1]/", want: ErrPrivateAddress, stage: StageRequest},
	{name: "IPv6 zone", url: "http://[fe80::1%25eth0]/", want: ErrBadURL, stage: StageRequest},

	// Names that resolve to refused addresses: refused at dial time.
	{name: "name resolving to 10.0.0.1", url: "http://internal.example.test/", want: ErrPrivateAddress, stage: StageDial},
	{name: "name resolving to metadata", url: "http://metadata.example.test/", want: ErrPrivateAddress, stage: StageDial},
	{name: "name resolving to 127.0.0.1", url: "http://loopback.example.test:{p}/", want: ErrPrivateAddress, stage: StageDial},
	{name: "name resolving to IPv4-mapped loopback", url: "http://mapped.example.test:{p}/", want: ErrPrivateAddress, stage: StageDial},
	{name: "name resolving to ::1", url: "http://loop6.example.test:{p}/", want: ErrPrivateAddress, stage: StageDial},
	{name: "name resolving to public and private", url: "http://mixed.example.test:{p}/", want: ErrPrivateAddress, stage: StageDial},
	{name: "name resolving to NAT64 private", url: "http://nat64.example.test/", want: ErrPrivateAddress, stage: StageDial},
	{name: "name resolving to ULA", url: "http://ula.example.test/", want: ErrPrivateAddress, stage: StageDial},
	{name: "name resolving to CGNAT", url: "http://cgnat.example.test/", want: ErrPrivateAddress, stage: StageDial},
	{name: "name resolving to IPv6 link-local", url: "http://linklocal6.example.test/", want: ErrPrivateAddress, stage: StageDial},
	{name: "allowed host resolving to private", url: "http://internal.example.test/", allowed: []string{"internal.example.test"}, want: ErrPrivateAddress, stage: StageDial},

	// Schemes and user information.
	{name: "file scheme", url: "file:///etc/passwd", want: ErrScheme, stage: StageRequest},
	{name: "gopher scheme", url: "gopher://127.0.0.1:70/_x", want: ErrScheme, stage: StageRequest},
	{name: "ftp scheme", url: "ftp://public.example.test/", want: ErrScheme, stage: StageRequest},
	{name: "userinfo", url: "http://user:pass@public.example.test:{p}/", want: ErrUserinfo, stage: StageRequest},
	{name: "userinfo hiding the real host", url: "http://public.example.test@127.0.0.1:{p}/", want: ErrUserinfo, stage: StageRequest},

	// AllowedHosts.
	{name: "host not in the list", url: "http://other.example.test:{p}/", allowed: []string{"api.example.test"}, want: ErrHostNotAllowed, stage: StageRequest},
	{name: "suffix lookalike", url: "http://api.example.test.other.example.test/", allowed: []string{"*.api.example.test"}, want: ErrHostNotAllowed, stage: StageRequest},
	{name: "wildcard does not admit the apex", url: "http://example.test:{p}/", allowed: []string{"*.example.test"}, want: ErrHostNotAllowed, stage: StageRequest},
	{name: "wrong port", url: "http://api.example.test:8080/", allowed: []string{"api.example.test:443"}, want: ErrHostNotAllowed, stage: StageRequest},
	{name: "IP literal not in the list", url: "http://198.51.100.7:{p}/", allowed: []string{"api.example.test"}, want: ErrHostNotAllowed, stage: StageRequest},

	// Malformed hosts.
	{name: "octet out of range", url: "http://1.2.3.999/", want: ErrBadURL, stage: StageRequest},
	{name: "name ending in a number", url: "http://example.0x1/", want: ErrBadURL, stage: StageRequest},
	{name: "too many parts", url: "http://1.2.3.4.5/", want: ErrBadURL, stage: StageRequest},
	{name: "empty label", url: "http://a..b/", want: ErrBadURL, stage: StageRequest},
}

func TestSSRFCorpus(t *testing.T) {
	require.GreaterOrEqual(t, len(ssrfCorpus), 40)
	e := newEnv(t, nil)
	for _, tc := range ssrfCorpus {
		t.Run(tc.name, func(t *testing.T) {
			fn := &fakeNet{}
			c := e.client(t, Options{AllowedHosts: tc.allowed})
			c.dial = fn.dial
			req, err := http.NewRequest(http.MethodGet, e.url(tc.url), nil)
			if tc.host != "" {
				req, err = http.NewRequest(http.MethodGet, "http://placeholder/", nil)
				req.URL = &url.URL{Scheme: "http", Host: tc.host, Path: "/"}
			}
			require.NoError(t, err)
			resp, err := c.Do(t.Context(), req)
			if tc.want == nil {
				require.NoError(t, err)
				body, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				require.NoError(t, resp.Body.Close())
				assert.Equal(t, "ok", string(body))
				assert.Len(t, fn.dialled(), 1)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.want)
			assert.ErrorIs(t, err, ErrBlocked)
			var be *BlockedError
			require.True(t, errors.As(err, &be), "want *BlockedError, got %T: %v", err, err)
			assert.Equal(t, tc.stage, be.Stage)
			assert.Empty(t, fn.dialled(), "a refused destination must never be dialled")
		})
	}
}

// TestDNSRebindingRefusedAtDial: a name that first resolves to a public
// address and later to loopback gets one connection, then a refusal; the
// second answer is never dialled.
func TestDNSRebindingRefusedAtDial(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t, Options{})
	resp, err := get(t, c, e.url("http://rebind.example.test:{p}/"))
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, resp.Body.Close())
	c.CloseIdleConnections() // force a new dial, hence a new lookup

	_, err = get(t, c, e.url("http://rebind.example.test:{p}/"))
	require.ErrorIs(t, err, ErrPrivateAddress)
	var be *BlockedError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, StageDial, be.Stage)
	assert.Equal(t, "127.0.0.1", be.Addr.String())
	assert.Equal(t, 2, e.res.lookups("rebind.example.test"))
	assert.Equal(t, []string{"198.51.100.7:" + e.port}, e.net.dialled())
}

// TestAllowAddrsAdmitsOnlyListedPrefix: AllowAddrs lets the test server's
// 127.0.0.1 through while other loopback addresses and private ranges stay
// refused.
func TestAllowAddrsAdmitsOnlyListedPrefix(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t, Options{AllowAddrs: mustPrefixes("127.0.0.1/32")})
	resp, err := get(t, c, e.srv.URL)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	_, err = get(t, c, e.url("http://127.0.0.2:{p}/"))
	assert.ErrorIs(t, err, ErrPrivateAddress)
	_, err = get(t, c, "http://internal.example.test/")
	assert.ErrorIs(t, err, ErrPrivateAddress)
	// A name may resolve to the admitted address too.
	resp, err = get(t, c, e.url("http://loopback.example.test:{p}/"))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
}

// TestAllowPrivateAdmitsLoopback: AllowPrivate lifts the address policy
// (but not the scheme or AllowedHosts checks).
func TestAllowPrivateAdmitsLoopback(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t, Options{AllowPrivate: true, AllowedHosts: []string{"127.0.0.1", "localhost"}})
	for _, u := range []string{"http://127.0.0.1:{p}/", "http://2130706433:{p}/", "http://0x7f.1:{p}/"} {
		resp, err := get(t, c, e.url(u))
		require.NoError(t, err, u)
		require.NoError(t, resp.Body.Close())
	}
	_, err := get(t, c, e.url("http://127.0.0.2:{p}/"))
	assert.ErrorIs(t, err, ErrHostNotAllowed)
	_, err = get(t, c, "file:///etc/passwd")
	assert.ErrorIs(t, err, ErrScheme)
}

// TestProxyEnvironmentIgnored: HTTP_PROXY would hand the connection to a
// proxy that dials unchecked; the client never uses it.
func TestProxyEnvironmentIgnored(t *testing.T) {
	proxyHits := 0
	proxy := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxyHits++
		w.WriteHeader(http.StatusOK)
	}))
	t.Setenv("HTTP_PROXY", proxy.srv.URL)
	t.Setenv("http_proxy", proxy.srv.URL)
	e := newEnv(t, nil)
	c := e.client(t, Options{})
	assert.Nil(t, c.transport.Proxy)
	resp, err := get(t, c, e.url("http://public.example.test:{p}/"))
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, "ok", string(body))
	assert.Zero(t, proxyHits)
}

// TestSocketAddressCheckedBeforeConnect: the real dialer's Control hook
// refuses a non-public socket address even if it got past the other checks.
func TestSocketAddressCheckedBeforeConnect(t *testing.T) {
	c, err := New(Options{AllowAddrs: mustPrefixes("127.0.0.1/32")})
	require.NoError(t, err)
	for addr, want := range map[string]error{
		"127.0.0.1:80":         nil,
		"198.51.100.7:443":     nil,
		"127.0.0.2:80":         ErrPrivateAddress,
		"169.254.169.254:80":   ErrPrivateAddress,
		"[::ffff:10.0.0.1]:80": ErrPrivateAddress,
		"[fe80::1%eth0]:80":    ErrPrivateAddress,
		"garbage":              ErrBadURL,
	} {
		err := c.controlDial("tcp", addr, nil)
		if want == nil {
			assert.NoError(t, err, addr)
		} else {
			assert.ErrorIs(t, err, want, addr)
		}
	}
}

// TestRealDialerEndToEnd: with the Client's own dialer (no fake network), a
// name resolving to the admitted loopback server is reached and one
// resolving to another loopback address is refused.
func TestRealDialerEndToEnd(t *testing.T) {
	e := newEnv(t, nil)
	e.res.answers["alias.example.test"] = [][]netip.Addr{{netip.MustParseAddr("127.0.0.2")}}
	c, err := New(Options{AllowAddrs: mustPrefixes("127.0.0.1/32"), Resolver: e.res})
	require.NoError(t, err)
	defer c.CloseIdleConnections()
	resp, err := get(t, c, e.url("http://loopback.example.test:{p}/"))
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, "ok", string(body))
	_, err = get(t, c, e.url("http://alias.example.test:{p}/"))
	assert.ErrorIs(t, err, ErrPrivateAddress)
}
