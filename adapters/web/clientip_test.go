package web

import (
	"net/netip"
	"testing"
)

func TestForwardedClient(t *testing.T) {
	ps := parseProxies([]string{"127.0.0.1", "10.0.0.0/8", "::1", "not-an-ip"})
	cases := []struct {
		name, remote, header, want string
	}{
		{"the proxy's own entry", "127.0.0.1", "203.0.113.7", "203.0.113.7"},
		{"a spoofed entry in front is ignored", "127.0.0.1", "198.51.100.1, 203.0.113.7", "203.0.113.7"},
		{"garbage in front is ignored", "127.0.0.1", "garbage, 203.0.113.7", "203.0.113.7"},
		{"trusted hops are walked past", "10.1.2.3", "203.0.113.7, 10.9.9.9, 127.0.0.1", "203.0.113.7"},
		{"no header: the proxy", "127.0.0.1", "", "127.0.0.1"},
		{"garbage last: the last trusted hop", "127.0.0.1", "203.0.113.7, nonsense", "127.0.0.1"},
		{"only proxies: the farthest", "127.0.0.1", "10.0.0.1", "10.0.0.1"},
		{"an untrusted peer's header is not read", "203.0.113.9", "198.51.100.1", "203.0.113.9"},
		{"IPv4-mapped entries are IPv4", "::1", "::ffff:203.0.113.7", "203.0.113.7"},
		{"IPv6 client", "127.0.0.1", "2001:db8::1", "2001:db8::1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			remote := netip.MustParseAddr(tc.remote)
			got := remote
			if ps.trusts(remote) {
				got = forwardedClient(ps, remote, tc.header)
			}
			if got.String() != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestClientSubject(t *testing.T) {
	cases := map[string]string{
		"203.0.113.7":            "203.0.113.7",
		"2001:db8:1:2::1":        "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::abc": "2001:db8:1:2::/64",
		"::1":                    "::/64",
	}
	for in, want := range cases {
		if got := clientSubject(netip.MustParseAddr(in)); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}
