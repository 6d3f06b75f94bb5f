package netguard

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestParseHostNormalises(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Example.COM", "example.com"},
		{"example.com.", "example.com"},
		{"EXAMPLE.com.", "example.com"},
		{"bücher.example", "xn--bcher-kva.example"},
		{"ＥＸＡＭＰＬＥ.com", "example.com"},
		{"2130706433", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"0177.0.0.01", "127.0.0.1"},
		{"0X7F.0.0.1", "127.0.0.1"},
		{"1.2.3.4.", "1.2.3.4"},
		{"0x", "0.0.0.0"},
		{"00000000000000000000000000000000000000001.2.3.4", "1.2.3.4"},
		{"4294967295", "255.255.255.255"},
		{"::1", "::1"},
		{"[::1]", "::1"},
		{"::FFFF:127.0.0.1", "127.0.0.1"},
		{"2001:DB8::1", "2001:db8::1"},
		{"under_score.example", "under_score.example"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			h, err := parseHost(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, h.name)
		})
	}
}

func TestParseHostRejects(t *testing.T) {
	for _, in := range []string{
		"", ".", "a..b", "example.com..", "1.2.3.256", "1.2.3.4.5", "4294967296", "1.16777216", "0x100000000",
		"08.1.1.1", "example.1", "x.0x1", "fe80::1%eth0", "[1.2.3.4]", "::g", "a b", "a%2eb",
		strings.Repeat("a", 64) + ".com", strings.Repeat("a.", 127) + "com", "\x00", "exa\x00mple.com",
	} {
		t.Run(fmt.Sprintf("%q", in), func(t *testing.T) {
			_, err := parseHost(in)
			assert.Error(t, err)
		})
	}
}

func TestHostRuleMatching(t *testing.T) {
	for _, tc := range []struct {
		rule, host, port string
		want             bool
	}{
		{"api.example.com", "api.example.com", "443", true},
		{"api.example.com", "api.example.com", "8080", true},
		{"API.Example.com.", "api.example.com", "443", true},
		{"api.example.com:443", "api.example.com", "443", true},
		{"api.example.com:443", "api.example.com", "80", false},
		{"api.example.com", "example.com", "443", false},
		{"api.example.com", "x.api.example.com", "443", false},
		{"*.example.com", "a.example.com", "443", true},
		{"*.example.com", "a.b.example.com", "443", true},
		{"*.example.com", "example.com", "443", false},
		{"*.example.com", "badexample.com", "443", false},
		{"*.example.com", "example.com.evil", "443", false},
		{"*.example.com:8443", "a.example.com", "8443", true},
		{"*.example.com:8443", "a.example.com", "443", false},
		{"2130706433", "127.0.0.1", "80", true},
		{"[2001:db8::1]:443", "2001:db8::1", "443", true},
		{"2001:DB8::1", "2001:db8::1", "80", true},
		{"bücher.example", "xn--bcher-kva.example", "443", true},
	} {
		t.Run(tc.rule+" "+tc.host+":"+tc.port, func(t *testing.T) {
			r, err := parseHostRule(tc.rule)
			require.NoError(t, err)
			assert.Equal(t, tc.want, r.matches(tc.host, tc.port))
		})
	}
}

func TestBlockedReasonNamesTheRange(t *testing.T) {
	for in, want := range map[string]string{
		"169.254.169.254":     "link-local (cloud metadata) address",
		"::ffff:10.0.0.1":     "IPv4-mapped IPv6 form of private (RFC 1918) address",
		"64:ff9b::a9fe:a9fe":  "NAT64 form of link-local (cloud metadata) address",
		"2002:c0a8:101::":     "6to4 form of private (RFC 1918) address",
		"255.255.255.255":     "broadcast address",
		"100.127.255.255":     "shared address space (CGNAT, RFC 6598) address",
		"8.8.8.8":             "",
		"2606:4700::1111":     "",
		"64:ff9b::808:808":    "", // NAT64 to a public address is public
		"2002:808:808::1":     "",
		"fdff:ffff::1":        "unique local (ULA) address",
		"febf:ffff::1":        "link-local address",
		"64:ff9b:1::1":        "local-use NAT64 address",
		"2001:0:4136:e378::1": "Teredo tunnel address",
	} {
		t.Run(in, func(t *testing.T) {
			assert.Equal(t, want, blockedReason(netip.MustParseAddr(in)))
		})
	}
}

// Non-public IPv4 ranges for the properties.
var privateV4 = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("224.0.0.0/4"),
	netip.MustParsePrefix("240.0.0.0/4"),
}

func genAddrIn(p netip.Prefix) *rapid.Generator[netip.Addr] {
	return rapid.Custom(func(t *rapid.T) netip.Addr {
		b := p.Addr().As4()
		v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
		host := rapid.Uint32Range(0, 1<<(32-p.Bits())-1).Draw(t, "host")
		v |= host
		return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
	})
}

// encodeNumber writes n in decimal, octal or hex.
func encodeNumber(t *rapid.T, n uint32, label string) string {
	switch rapid.IntRange(0, 3).Draw(t, label) {
	case 0:
		return strconv.FormatUint(uint64(n), 10)
	case 1:
		return "0" + strconv.FormatUint(uint64(n), 8)
	case 2:
		return "0x" + strconv.FormatUint(uint64(n), 16)
	default:
		return "0X" + strings.ToUpper(strconv.FormatUint(uint64(n), 16))
	}
}

// encodeIPv4 writes a in one of the literal forms a URL host accepts:
// 1 to 4 parts each in any base, or an IPv6 form that embeds it (the
// NAT64 form, a different address that reaches it, only when nat64).
func encodeIPv4(t *rapid.T, a netip.Addr, nat64 bool) string {
	b := a.As4()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	var s string
	forms := 5
	if nat64 {
		forms = 6
	}
	switch rapid.IntRange(0, forms).Draw(t, "form") {
	case 0: // a
		s = encodeNumber(t, v, "p0")
	case 1: // a.b
		s = encodeNumber(t, uint32(b[0]), "p0") + "." + encodeNumber(t, v&0xffffff, "p1")
	case 2: // a.b.c
		s = encodeNumber(t, uint32(b[0]), "p0") + "." + encodeNumber(t, uint32(b[1]), "p1") + "." + encodeNumber(t, v&0xffff, "p2")
	case 3: // a.b.c.d
		parts := make([]string, 4)
		for i := range parts {
			parts[i] = encodeNumber(t, uint32(b[i]), "p"+strconv.Itoa(i))
		}
		s = strings.Join(parts, ".")
	case 4:
		return "[::ffff:" + a.String() + "]"
	case 5:
		return fmt.Sprintf("[::FFFF:%x:%x]", v>>16, v&0xffff)
	default:
		return fmt.Sprintf("[64:ff9b::%x:%x]", v>>16, v&0xffff)
	}
	if rapid.Bool().Draw(t, "trailing dot") {
		s += "."
	}
	return s
}

// TestPropertyPrivateIPv4AnyEncodingRefused: any address in a non-public
// IPv4 range, in any literal encoding, is refused by the client before
// anything is dialled.
func TestPropertyPrivateIPv4AnyEncodingRefused(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t, Options{})
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.SampledFrom(privateV4).Draw(t, "range")
		a := genAddrIn(p).Draw(t, "addr")
		host := encodeIPv4(t, a, true)
		u := &url.URL{Scheme: rapid.SampledFrom([]string{"http", "https", "HTTP"}).Draw(t, "scheme"), Host: host, Path: "/"}
		err := c.CheckURL(u)
		if err == nil {
			t.Fatalf("%s (%s) admitted", u, a)
		}
		var be *BlockedError
		if !assert.ErrorAs(t, err, &be) || !assert.ErrorIs(t, err, ErrPrivateAddress) {
			t.FailNow()
		}
		if be.Addr.Is4() {
			assert.Equal(t, a, be.Addr)
		}
	})
	assert.Empty(t, e.net.dialled())
}

// TestPropertyIPv4EncodingsNormaliseToTheAddress: every encoding of any
// IPv4 address parses back to that address.
func TestPropertyIPv4EncodingsNormaliseToTheAddress(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := netip.AddrFrom4([4]byte(rapid.SliceOfN(rapid.Byte(), 4, 4).Draw(t, "bytes")))
		host := encodeIPv4(t, a, false)
		u, err := url.Parse("http://" + host + "/")
		require.NoError(t, err)
		h, err := parseHost(u.Hostname())
		require.NoError(t, err, host)
		assert.Equal(t, a, h.addr, host)
		assert.Equal(t, a.String(), h.name)
	})
}

// TestPropertyWildcardMatchesOnlyStrictSubdomains: "*.suffix" admits any
// name ending in ".suffix" and nothing that merely ends in "suffix".
func TestPropertyWildcardMatchesOnlyStrictSubdomains(t *testing.T) {
	label := rapid.StringMatching(`[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?`)
	rapid.Check(t, func(t *rapid.T) {
		suffix := label.Draw(t, "s1") + "." + rapid.SampledFrom([]string{"com", "example", "test"}).Draw(t, "tld")
		r, err := parseHostRule("*." + suffix)
		require.NoError(t, err)
		sub := label.Draw(t, "sub")
		assert.True(t, r.matches(sub+"."+suffix, "443"))
		assert.True(t, r.matches(label.Draw(t, "sub2")+"."+sub+"."+suffix, "80"))
		assert.False(t, r.matches(suffix, "443"))
		assert.False(t, r.matches(sub+suffix, "443"))
		assert.False(t, r.matches(sub+"."+suffix+".evil", "443"))
	})
}

// TestPropertyCaseAndTrailingDotDoNotChangeTheDecision: the AllowedHosts
// decision for a host is the same in any ASCII case and with a trailing
// dot.
func TestPropertyCaseAndTrailingDotDoNotChangeTheDecision(t *testing.T) {
	name := rapid.StringMatching(`[a-zA-Z0-9]{1,8}(\.[a-zA-Z0-9]{1,8}){0,3}`)
	rapid.Check(t, func(t *rapid.T) {
		entry := name.Draw(t, "entry")
		if rapid.Bool().Draw(t, "wildcard") {
			entry = "*." + entry
		}
		r, err := parseHostRule(entry)
		if err != nil {
			t.Skip("entry is not a valid rule (e.g. a malformed number)")
		}
		host := name.Draw(t, "host")
		h1, err1 := parseHost(host)
		h2, err2 := parseHost(flipCase(host) + ".")
		require.Equal(t, err1 == nil, err2 == nil)
		if err1 != nil {
			return
		}
		assert.Equal(t, h1, h2)
		assert.Equal(t, r.matches(h1.name, "443"), r.matches(h2.name, "443"))
	})
}

func flipCase(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z':
			b.WriteRune(c - 32)
		case c >= 'A' && c <= 'Z':
			b.WriteRune(c + 32)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// FuzzParseHost: no input panics; an accepted host is canonical (parsing
// it again gives itself), lower-case ASCII, and an IP literal is the
// address's own text.
func FuzzParseHost(f *testing.F) {
	for _, s := range []string{"example.com", "EXAMPLE.com.", "2130706433", "0x7f.1", "127.1", "0177.0.0.1",
		"[::ffff:127.0.0.1]", "::1", "fe80::1%eth0", "bücher.example", "１２７.０.０.１", "a..b", "1.2.3.999", "0x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := parseHost(s)
		if err != nil {
			return
		}
		if !utf8.ValidString(h.name) || h.name != strings.ToLower(h.name) || !isASCII(h.name) {
			t.Fatalf("%q → non-canonical %q", s, h.name)
		}
		if h.addr.IsValid() && h.name != h.addr.String() {
			t.Fatalf("%q → %q but address %s", s, h.name, h.addr)
		}
		h2, err := parseHost(h.name)
		if err != nil || h2 != h {
			t.Fatalf("%q → %+v, which parses to %+v, %v", s, h, h2, err)
		}
		if strings.HasSuffix(h.name, ".") || len(h.name) > maxHostLen {
			t.Fatalf("%q → %q", s, h.name)
		}
	})
}

// FuzzAllowedHosts: no entry or host panics; a match never depends on ASCII
// case or a trailing dot; a wildcard never admits its apex; an exact rule
// admits only its own canonical name.
func FuzzAllowedHosts(f *testing.F) {
	for _, s := range [][2]string{
		{"api.example.com", "API.example.com."}, {"*.example.com", "a.example.com"}, {"*.example.com", "example.com"},
		{"api.example.com:443", "api.example.com"}, {"[::1]:80", "::1"}, {"2130706433", "127.1"}, {"*.", "x"},
		{"*.example.com", "aexample.com"}, {"bücher.example", "xn--bcher-kva.example"},
	} {
		f.Add(s[0], s[1], "443")
	}
	f.Fuzz(func(t *testing.T, entry, host, port string) {
		r, err := parseHostRule(entry)
		if err != nil {
			return
		}
		h, err := parseHost(host)
		if err != nil {
			return
		}
		m := r.matches(h.name, port)
		if isASCII(host) && !strings.HasSuffix(host, ".") && !strings.Contains(host, ":") {
			if h2, err := parseHost(flipCase(host) + "."); err != nil || r.matches(h2.name, port) != m {
				t.Fatalf("rule %q: %q and its case-flipped, dotted form disagree", entry, host)
			}
		}
		if r.wildcard && h.name == r.name && m {
			t.Fatalf("wildcard %q admits its apex", entry)
		}
		if !r.wildcard && m && h.name != r.name {
			t.Fatalf("exact rule %q admits %q", entry, h.name)
		}
		if m && r.port != "" && port != r.port {
			t.Fatalf("rule %q admits port %q", entry, port)
		}
	})
}

// FuzzCheckURL: no URL panics the client's check; an admitted URL is
// http(s) without user information, and its host is a name or a public
// address; a refusal's text never carries the query.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"http://example.com/?k=v", "http://127.1/?secret=x", "https://[::ffff:a9fe:a9fe]/",
		"http://u:p@example.com/", "file:///etc/passwd", "http://0x7f.1:80/x?y=z", "HTTP://EXAMPLE.COM./", "http://[fe80::1%25en0]/"} {
		f.Add(s)
	}
	c, err := New(Options{Secrets: []string{"topsecret"}})
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		err = c.CheckURL(u)
		if err != nil {
			if u.RawQuery != "" && len(u.RawQuery) > 3 && strings.Contains(err.Error(), "?"+u.RawQuery) {
				t.Fatalf("query in error: %v", err)
			}
			if strings.Contains(err.Error(), "topsecret") {
				t.Fatalf("secret in error: %v", err)
			}
			return
		}
		if s := strings.ToLower(u.Scheme); s != "http" && s != "https" || u.User != nil {
			t.Fatalf("admitted %q", raw)
		}
		h, err := parseHost(u.Hostname())
		if err != nil {
			t.Fatalf("admitted unparsable host %q", raw)
		}
		if h.addr.IsValid() && blockedReason(h.addr) != "" {
			t.Fatalf("admitted non-public %q", raw)
		}
	})
}

func TestCheckAllowedHost_AcceptsTheRuleFormsAndNamesBadOnes(t *testing.T) {
	for _, ok := range []string{"api.example.test", "api.example.test:8443", "*.example.test", "*.example.test:443", "[2001:db8::1]:443", "2001:db8::1"} {
		assert.NoError(t, CheckAllowedHost(ok), ok)
	}
	for _, bad := range []string{"", "*.10.0.0.1", "host:0", "host:99999", "host:x"} {
		assert.Error(t, CheckAllowedHost(bad), bad)
	}
}
