package web

import (
	"net/netip"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// proxies are the trusted proxies (TANDEM_TRUSTED_PROXIES): addresses or
// CIDR ranges.
type proxies []netip.Prefix

// parseProxies reads the configured entries; bootstrap has checked them, so
// an unparsable one is skipped (trusting less, never more).
func parseProxies(entries []string) proxies {
	var out proxies
	for _, e := range entries {
		if p, err := netip.ParsePrefix(e); err == nil {
			out = append(out, p.Masked())
		} else if a, err := netip.ParseAddr(e); err == nil {
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
		}
	}
	return out
}

func (ps proxies) trusts(a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

const localClientIP = "clientIP"

// ClientKey finds who is calling, behind the trusted proxies, and keeps it
// for ClientIP. Each proxy appends the address it saw to X-Forwarded-For, so
// the header is read from the right while the hop is a trusted proxy: the
// first other entry is the client, and whatever the client wrote in front of
// it is never believed.
func ClientKey(trusted []string) fiber.Handler {
	ps := parseProxies(trusted)
	return func(c *fiber.Ctx) error {
		addr, _ := netip.AddrFromSlice(c.Context().RemoteIP())
		addr = addr.Unmap()
		if ps.trusts(addr) {
			addr = forwardedClient(ps, addr, forwardedFor(c))
		}
		c.Locals(localClientIP, clientSubject(addr))
		return c.Next()
	}
}

// forwardedFor joins every X-Forwarded-For line in order, as one list.
func forwardedFor(c *fiber.Ctx) string {
	var lines []string
	for _, v := range c.Request().Header.PeekAll(fiber.HeaderXForwardedFor) {
		lines = append(lines, string(v))
	}
	return strings.Join(lines, ",")
}

// forwardedClient walks X-Forwarded-For from the right past trusted proxies.
// An entry that is no address ends the walk at the last hop that was.
func forwardedClient(ps proxies, hop netip.Addr, header string) netip.Addr {
	entries := strings.Split(header, ",")
	for i := len(entries) - 1; i >= 0 && ps.trusts(hop); i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(entries[i]))
		if err != nil {
			break
		}
		hop = a.Unmap()
	}
	return hop
}

// clientSubject is the address the per-IP counters key on: an IPv6 client
// counts as its /64, which one host or line usually holds whole.
func clientSubject(a netip.Addr) string {
	if !a.Is6() { // checked first: Prefix(64) of an IPv4 address is an error, allocated
		return a.String()
	}
	if p, err := a.Prefix(64); err == nil {
		return p.String()
	}
	return a.String()
}

// ClientIP is the caller's address as ClientKey found it.
func ClientIP(c *fiber.Ctx) string {
	if ip, ok := c.Locals(localClientIP).(string); ok {
		return ip
	}
	return c.IP()
}
