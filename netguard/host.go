package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// Limits on host names (RFC 1035).
const (
	maxHostLen  = 253
	maxLabelLen = 63
)

// host is a destination host in canonical form.
type host struct {
	name string     // lower-case ASCII name without a trailing dot, or the canonical IP text
	addr netip.Addr // valid when the host is an IP literal (IPv4-mapped IPv6 unmapped)
}

// parseHost normalises a URL host (without port and brackets, as
// url.URL.Hostname returns it) the way a browser's URL parser would:
// non-ASCII names go through IDNA (UTS #46 lookup mapping, so fullwidth or
// circled digits become ASCII), case is folded, one trailing dot is dropped,
// and a name whose last label is a number is an IPv4 address in any of the
// inet_aton forms (decimal, octal, hex, 1 to 4 parts: "2130706433",
// "0x7f.1", "0177.0.0.1", "127.1"). IPv6 literals are parsed by net/netip;
// zones are refused. The result is what AllowedHosts entries and the
// address policy are matched against.
func parseHost(raw string) (host, error) {
	if raw == "" {
		return host{}, errors.New("empty host")
	}
	if len(raw) > 2*maxHostLen {
		return host{}, fmt.Errorf("host longer than %d bytes", maxHostLen)
	}
	if strings.HasPrefix(raw, "[") && strings.HasSuffix(raw, "]") {
		raw = raw[1 : len(raw)-1]
		if !strings.Contains(raw, ":") {
			return host{}, errors.New("bracketed host is not an IPv6 address")
		}
	}
	if strings.Contains(raw, ":") {
		a, err := netip.ParseAddr(raw)
		if err != nil || !a.Is6() {
			return host{}, errors.New("malformed IPv6 address")
		}
		if a.Zone() != "" {
			return host{}, errors.New("IPv6 zone in host")
		}
		a = a.Unmap()
		return host{name: a.String(), addr: a}, nil
	}
	name := raw
	if !isASCII(name) {
		ascii, err := idna.Lookup.ToASCII(name)
		if err != nil {
			return host{}, errors.New("host is not a valid internationalised domain name")
		}
		name = ascii
	}
	name = strings.ToLower(name)
	name = strings.TrimSuffix(name, ".")
	if name == "" {
		return host{}, errors.New("empty host")
	}
	if len(name) > maxHostLen {
		return host{}, fmt.Errorf("host longer than %d bytes", maxHostLen)
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" {
			return host{}, errors.New("empty label in host")
		}
		if len(l) > maxLabelLen {
			return host{}, fmt.Errorf("host label longer than %d bytes", maxLabelLen)
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return host{}, fmt.Errorf("character %q not allowed in host", c)
			}
		}
	}
	if isNumericLabel(labels[len(labels)-1]) {
		a, ok := parseIPv4(labels)
		if !ok {
			return host{}, errors.New("host ends in a number but is not a valid IPv4 address")
		}
		return host{name: a.String(), addr: a}, nil
	}
	return host{name: name}, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// isNumericLabel reports whether a label is a number in the sense of the
// WHATWG URL standard ("ends in a number"): all decimal digits, or 0x
// followed by hex digits.
func isNumericLabel(l string) bool {
	if l == "" {
		return false
	}
	if len(l) >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X') {
		for i := 2; i < len(l); i++ {
			if !isHex(l[i]) {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(l); i++ {
		if l[i] < '0' || l[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// parseIPv4 parses 1 to 4 dot-separated numbers in the inet_aton style:
// each part is decimal, octal (leading 0) or hex (leading 0x); every part but
// the last is one byte and the last fills the remaining bytes.
func parseIPv4(parts []string) (netip.Addr, bool) {
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, p := range parts {
		n, ok := parseIPv4Part(p)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if n > 255 {
				return netip.Addr{}, false
			}
			v |= n << (8 * (3 - uint(i)))
			continue
		}
		bits := 8 * (4 - uint(len(parts)-1))
		if n >= 1<<bits {
			return netip.Addr{}, false
		}
		v |= n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func parseIPv4Part(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'):
		base, p = 16, p[2:]
		if p == "" {
			return 0, true // "0x" is zero, as in the WHATWG URL standard
		}
	case len(p) >= 2 && p[0] == '0':
		base, p = 8, p[1:]
	}
	// Leading zeros cannot overflow the value, but an absurd number of
	// digits can: anything beyond 32 bits is invalid anyway.
	p = strings.TrimLeft(p, "0")
	if p == "" {
		return 0, true
	}
	if len(p) > 32 {
		return 0, false
	}
	n, err := strconv.ParseUint(p, base, 64)
	if err != nil || n > 0xffffffff {
		return 0, false
	}
	return n, true
}

// isLocalhostName reports names that always mean this machine (RFC 6761):
// "localhost" and every name under it.
func isLocalhostName(name string) bool {
	return name == "localhost" || strings.HasSuffix(name, ".localhost")
}

// hostRule is one parsed AllowedHosts entry.
type hostRule struct {
	wildcard bool   // "*.suffix": any name strictly below suffix
	name     string // canonical host or suffix
	port     string // "" means any port
}

// CheckAllowedHost reports whether entry is a valid Options.AllowedHosts
// entry ("host", "host:port", "*.suffix" or "*.suffix:port"), so that a
// configuration loader can name a bad entry before any client is built.
// The error says what is wrong.
func CheckAllowedHost(entry string) error {
	_, err := parseHostRule(entry)
	return err
}

// parseHostRule parses an AllowedHosts entry: "host", "host:port",
// "*.suffix" or "*.suffix:port"; IPv6 literals in brackets when a port is
// given ("[2001:db8::1]:443"), with or without brackets otherwise.
func parseHostRule(entry string) (hostRule, error) {
	var r hostRule
	if entry == "" {
		return r, errors.New("empty entry")
	}
	rest := entry
	if strings.HasPrefix(rest, "*.") {
		r.wildcard = true
		rest = rest[2:]
	}
	hostPart := rest
	switch {
	case strings.HasPrefix(rest, "["):
		if strings.HasSuffix(rest, "]") {
			break
		}
		h, p, err := net.SplitHostPort(rest)
		if err != nil {
			return r, errors.New("malformed [IPv6]:port")
		}
		hostPart, r.port = h, p
	case strings.Count(rest, ":") == 1:
		h, p, err := net.SplitHostPort(rest)
		if err != nil {
			return r, errors.New("malformed host:port")
		}
		hostPart, r.port = h, p
	}
	if r.port != "" {
		n, err := strconv.Atoi(r.port)
		if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != r.port {
			return r, fmt.Errorf("port %q is not a number from 1 to 65535", r.port)
		}
	}
	h, err := parseHost(hostPart)
	if err != nil {
		return r, err
	}
	if r.wildcard && h.addr.IsValid() {
		return r, errors.New("wildcard suffix is an IP address")
	}
	r.name = h.name
	return r, nil
}

// matches reports whether the rule admits the canonical host name on port.
func (r hostRule) matches(name, port string) bool {
	if r.port != "" && r.port != port {
		return false
	}
	if r.wildcard {
		return len(name) > len(r.name)+1 && strings.HasSuffix(name, r.name) && name[len(name)-len(r.name)-1] == '.'
	}
	return name == r.name
}

// hostAllowed reports whether a canonical host on port is admitted by the
// rules; no rules admit every host.
func hostAllowed(rules []hostRule, name, port string) bool {
	if len(rules) == 0 {
		return true
	}
	for _, r := range rules {
		if r.matches(name, port) {
			return true
		}
	}
	return false
}
