package botauth

import "net/netip"

// specialPurpose reports whether an address is in one of the IANA
// special-purpose address registries (IPv4 and IPv6), whatever the
// registry says of its reach: a key directory has no business there. An
// IPv6 address that embeds an IPv4 one (IPv4-mapped, NAT64, 6to4,
// Teredo) is blocked with its prefix, so that no form of a private or
// metadata address (169.254.169.254, 100.100.100.200) gets through.
func specialPurpose(a netip.Addr) bool {
	if !a.IsValid() {
		return true
	}
	a = a.Unmap()
	table := specialIPv6
	if a.Is4() {
		table = specialIPv4
	}
	for _, p := range table {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// specialIPv4 is the IPv4 Special-Purpose Address Registry (RFC 6890 and
// its updates), with multicast and the reserved 240/4.
var specialIPv4 = prefixes(
	"0.0.0.0/8",          // this network
	"10.0.0.0/8",         // private
	"100.64.0.0/10",      // shared address space (carrier NAT; cloud metadata at 100.100.100.200)
	"127.0.0.0/8",        // loopback
	"169.254.0.0/16",     // link local (cloud metadata at 169.254.169.254)
	"172.16.0.0/12",      // private
	"192.0.0.0/24",       // IETF protocol assignments
	"192.0.2.0/24",       // documentation (TEST-NET-1)
	"192.31.196.0/24",    // AS112-v4
	"192.52.193.0/24",    // AMT
	"192.88.99.0/24",     // deprecated 6to4 relay anycast
	"192.168.0.0/16",     // private
	"192.175.48.0/24",    // direct delegation AS112 service
	"198.18.0.0/15",      // benchmarking
	"198.51.100.0/24",    // documentation (TEST-NET-2)
	"203.0.113.0/24",     // documentation (TEST-NET-3)
	"224.0.0.0/4",        // multicast
	"240.0.0.0/4",        // reserved
	"255.255.255.255/32", // limited broadcast
)

// specialIPv6 is the IPv6 Special-Purpose Address Registry, with
// multicast and the deprecated site-local block.
var specialIPv6 = prefixes(
	"::/128",         // unspecified
	"::1/128",        // loopback
	"::ffff:0:0/96",  // IPv4-mapped
	"64:ff9b::/96",   // IPv4-IPv6 translation (NAT64)
	"64:ff9b:1::/48", // local-use IPv4-IPv6 translation
	"100::/64",       // discard-only
	"2001::/23",      // IETF protocol assignments (Teredo, benchmarking, ORCHID, ...)
	"2001:db8::/32",  // documentation
	"2002::/16",      // 6to4
	"3fff::/20",      // documentation
	"5f00::/16",      // segment routing (SRv6) SIDs
	"fc00::/7",       // unique local
	"fe80::/10",      // link local
	"fec0::/10",      // site local (deprecated)
	"ff00::/8",       // multicast
)
