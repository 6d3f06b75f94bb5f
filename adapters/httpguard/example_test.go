package httpguard_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolpack-go/toolpack/adapters/httpguard"
)

// Put the guard in front of a whole mux: a DNS-rebinding request (a foreign
// Host on a loopback listener) and a foreign page's request are refused on
// every route, a plain client passes.
func ExampleGuard_Handler() {
	g, err := httpguard.New(httpguard.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	srv := httptest.NewServer(g.Handler(mux)) // listens on 127.0.0.1
	defer srv.Close()

	show := func(host, origin string) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/healthz", nil)
		if host != "" {
			req.Host = host
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
			req.Header.Set("Sec-Fetch-Site", "cross-site")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		fmt.Println(resp.StatusCode, strings.SplitN(string(b), ",", 2)[0])
	}
	show("", "")
	show("evil.example:8080", "")
	show("", "https://evil.example")
	// Output:
	// 200 ok
	// 403 {"ok":false
	// 403 {"ok":false
}

// Require a bearer token from a fixed set; the handler learns who called.
func ExampleRequireBearer() {
	tokens, err := httpguard.ParseTokens("ci:0123456789abcdef0123456789abcdef", "example")
	if err != nil {
		panic(err)
	}
	requireToken := httpguard.RequireBearer(tokens.Verify, httpguard.BearerOptions{
		AllowMissingExpiration: true, // static tokens do not expire
		Logger:                 slog.New(slog.DiscardHandler),
	})
	srv := httptest.NewServer(requireToken(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s", httpguard.TokenInfoFromContext(r.Context()).UserID)
	})))
	defer srv.Close()

	for _, authz := range []string{"", "Bearer 0123456789abcdef0123456789abcdef"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		if authz != "" {
			req.Header.Set("Authorization", authz)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, resp.Header.Get("WWW-Authenticate"), strings.SplitN(string(b), ",", 2)[0])
	}
	// Output:
	// 401 Bearer realm="toolpack" {"ok":false
	// 200  hello ci
}
