package httpguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzParseTokens: never a panic; every error wraps ErrInvalidTokens and
// quotes none of the candidate tokens of its input; an accepted set
// verifies each of its tokens.
func FuzzParseTokens(f *testing.F) {
	f.Add("alice:0123456789abcdef0123\n# comment\n\nfedcba9876543210fedcba\n")
	f.Add("short\n")
	f.Add("a:0123456789abcdef\na:fedcba9876543210\n")
	f.Add("0123456789abcdef==\r\n")
	f.Add("Bearer 0123456789abcdef0123\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		toks, err := ParseTokens(text, "fuzz")
		var candidates []string
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || line[0] == '#' {
				continue
			}
			if _, tok, ok := strings.Cut(line, ":"); ok {
				line = tok
			}
			candidates = append(candidates, line)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidTokens) {
				t.Fatalf("error does not wrap ErrInvalidTokens: %v", err)
			}
			for _, c := range candidates {
				if len(c) >= MinTokenLen && checkToken(c) == "" && strings.Contains(err.Error(), c) {
					t.Fatalf("error quotes a token: %v", err)
				}
			}
			return
		}
		if toks.Len() != len(candidates) {
			t.Fatalf("%d tokens from %d lines", toks.Len(), len(candidates))
		}
		for _, c := range candidates {
			if _, err := toks.Verify(context.Background(), c, nil); err != nil {
				t.Fatalf("an accepted token does not verify: %v", err)
			}
		}
	})
}

// FuzzHostCheck: on a loopback listener, a Host header passes only when it
// names a loopback host, whatever its bytes.
func FuzzHostCheck(f *testing.F) {
	for _, h := range []string{"localhost", "localhost:8080", "127.0.0.1:1", "[::1]:80", "[::1]", "evil.example:8080",
		"", "[", "[::1", "::1", "localhost:", "LOCALHOST", "127.0.0.1.nip.io", "[::ffff:127.0.0.1]:80", "localhost:+80"} {
		f.Add(h)
	}
	g, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	loopback := context.WithValue(context.Background(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080})
	h := g.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	f.Fuzz(func(t *testing.T, host string) {
		r := httptest.NewRequest(http.MethodGet, "/", nil).WithContext(loopback)
		r.Host = host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		name, port, ok := splitHost(host)
		allowed := w.Code == http.StatusOK
		if allowed && !(ok && IsLoopbackHost(name)) {
			t.Fatalf("Host %q passed; split %q %q %v", host, name, port, ok)
		}
		if !allowed && ok && IsLoopbackHost(name) {
			t.Fatalf("loopback Host %q refused", host)
		}
		if ok && port != "" && !validPort(port) {
			t.Fatalf("Host %q: invalid port %q accepted", host, port)
		}
	})
}
