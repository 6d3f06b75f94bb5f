package netguard_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"

	"github.com/toolpack-go/toolpack/netguard"
)

// A client for one API, with retries, a rate limit and its key kept out of
// errors and logs. AllowAddrs admits the example's own server on 127.0.0.1,
// which the address policy refuses by default.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"items":[]}`)
	}))
	defer srv.Close()

	const apiKey = "example-key-123"
	c, err := netguard.New(netguard.Options{
		AllowedHosts:      []string{"127.0.0.1"},
		AllowAddrs:        []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		MaxRetries:        2,
		MaxCallsPerMinute: 60,
		MaxResponseBytes:  1 << 20,
		Secrets:           []string{apiKey},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/items?key="+apiKey, nil)
	resp, err := c.Do(context.Background(), req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body) // fails with ErrTooLarge past 1 MiB
	fmt.Println(resp.StatusCode, string(body), err)
	// Output: 200 {"items":[]} <nil>
}

// Refusals are *BlockedError values that say why, checkable with
// errors.Is; the URL in their text has its query redacted.
func ExampleBlockedError() {
	c, _ := netguard.New(netguard.Options{})
	req, _ := http.NewRequest(http.MethodGet, "http://169.254.169.254/latest/meta-data/?token=secret", nil)
	_, err := c.Do(context.Background(), req)

	var be *netguard.BlockedError
	if errors.As(err, &be) {
		fmt.Println(be.Stage, be.Addr, errors.Is(err, netguard.ErrPrivateAddress))
	}
	fmt.Println(err)
	// Output:
	// request 169.254.169.254 true
	// netguard: request blocked: non-public address: host 169.254.169.254: link-local (cloud metadata) address [http://169.254.169.254/latest/meta-data/?[REDACTED]]
}

// CheckURL tells, without sending anything, whether a URL would be
// admitted; hosts are normalised first, so odd spellings of an address are
// recognised.
func ExampleClient_CheckURL() {
	c, _ := netguard.New(netguard.Options{AllowedHosts: []string{"*.example.com", "api.example.org:443"}})
	for _, raw := range []string{
		"https://docs.example.com/page",
		"https://EXAMPLE.com./",
		"http://api.example.org/",
		"https://api.example.org/",
		"http://0x7f.1/",
		"ftp://docs.example.com/",
		"https://user:pw@docs.example.com/",
	} {
		u, _ := url.Parse(raw)
		err := c.CheckURL(u)
		switch {
		case err == nil:
			fmt.Println(raw, "admitted")
		case errors.Is(err, netguard.ErrHostNotAllowed):
			fmt.Println(raw, "host not allowed")
		case errors.Is(err, netguard.ErrScheme):
			fmt.Println(raw, "scheme refused")
		case errors.Is(err, netguard.ErrUserinfo):
			fmt.Println(raw, "userinfo refused")
		default:
			fmt.Println(raw, err)
		}
	}
	// Output:
	// https://docs.example.com/page admitted
	// https://EXAMPLE.com./ host not allowed
	// http://api.example.org/ host not allowed
	// https://api.example.org/ admitted
	// http://0x7f.1/ host not allowed
	// ftp://docs.example.com/ scheme refused
	// https://user:pw@docs.example.com/ userinfo refused
}

// HTTPClient hands the same checks to a library that wants an
// *http.Client, such as an OAuth2 token source.
func ExampleClient_HTTPClient() {
	c, _ := netguard.New(netguard.Options{})
	hc := c.HTTPClient()
	_, err := hc.Get("http://[::ffff:10.0.0.1]/token")
	fmt.Println(errors.Is(err, netguard.ErrPrivateAddress))
	// Output: true
}
