package netguard

import (
	"net/netip"
)

// blockedRange is one address range refused unless Options.AllowPrivate.
type blockedRange struct {
	prefix netip.Prefix
	what   string
}

// Ranges refused by default. IPv4-mapped, NAT64 and 6to4 IPv6 forms are
// reduced to the IPv4 address they carry before these are consulted.
var blockedRanges = []blockedRange{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified (this network)"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private (RFC 1918)"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space (CGNAT, RFC 6598)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local (cloud metadata)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private (RFC 1918)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private (RFC 1918)"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking (RFC 2544)"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("255.255.255.255/32"), "broadcast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},

	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("::/96"), "IPv4-compatible IPv6 (deprecated)"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("2001::/32"), "Teredo tunnel"},
	{netip.MustParsePrefix("fc00::/7"), "unique local (ULA)"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local (deprecated)"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

// embeddedIPv4 returns the IPv4 address an IPv6 address carries by a
// translation mechanism (IPv4-mapped, NAT64 well-known prefix, 6to4), and
// the name of the form.
func embeddedIPv4(a netip.Addr) (netip.Addr, string, bool) {
	if a.Is4In6() {
		return a.Unmap(), "IPv4-mapped IPv6 form of ", true
	}
	if !a.Is6() {
		return netip.Addr{}, "", false
	}
	b := a.As16()
	if nat64Prefix.Contains(a) {
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), "NAT64 form of ", true
	}
	if sixToFour.Contains(a) {
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), "6to4 form of ", true
	}
	return netip.Addr{}, "", false
}

// blockedReason returns why an address is refused by default, or "" when it
// is a public unicast address.
func blockedReason(a netip.Addr) string {
	if !a.IsValid() {
		return "invalid address"
	}
	a = a.WithZone("")
	form := ""
	if v4, f, ok := embeddedIPv4(a); ok {
		a, form = v4, f
	}
	for _, r := range blockedRanges {
		if r.prefix.Contains(a) {
			return form + r.what + " address"
		}
	}
	return ""
}
