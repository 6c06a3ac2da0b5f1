package bootstrap

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap/zapcore"
)

// loader reads the variables for Load. Each method parses one kind of
// value: the default when the variable is unset, else the value, or one
// error line naming the variable (all of them are reported at once). The
// variables with a syntax of their own are in config_sections.go.
type loader struct {
	lookup func(string) (string, bool)
	errs   []error
	// effective is each variable read, with the value taken (set, or the
	// default), for `tandem config`.
	effective map[string]string
}

func (l *loader) getenv(name string) string {
	v, set := l.lookup(name)
	if _, seen := l.effective[name]; !seen || set {
		l.took(name, v)
	}
	return v
}

// took records value as the effective setting of name.
func (l *loader) took(name string, value any) {
	if l.effective == nil {
		l.effective = map[string]string{}
	}
	l.effective[name] = fmt.Sprint(value)
}

func (l *loader) fail(name, format string, args ...any) {
	l.errs = append(l.errs, fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...)))
}

func (l *loader) str(name, def string) string {
	v := strings.TrimSpace(l.getenv(name))
	if v == "" {
		v = def
	}
	l.took(name, v)
	return v
}

// addr is a HOST:PORT (HOST may be empty: every interface), the default
// when unset.
func (l *loader) addr(name, def string) string {
	v := l.str(name, def)
	if _, port, err := net.SplitHostPort(v); err != nil || port == "" {
		l.fail(name, "%q is not HOST:PORT (such as :8080 or 127.0.0.1:8080)", v)
		return def
	}
	return v
}

// localURL is the URL of a listener on addr seen from this machine: the
// public URL's default, so that /docs and file URLs follow TANDEM_ADDR.
func localURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://localhost:8080"
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// optionalAddr is a host:port, the default when unset, or "" (off) when set empty.
func (l *loader) optionalAddr(name, def string) string {
	v, set := l.lookup(name)
	if !set {
		l.took(name, def)
		return def
	}
	v = strings.TrimSpace(v)
	l.took(name, v)
	if v == "" {
		return ""
	}
	if _, port, err := net.SplitHostPort(v); err != nil || port == "" {
		l.fail(name, "%q is not HOST:PORT (or empty: off)", v)
		return ""
	}
	return v
}

func (l *loader) list(name string) []string {
	var out []string
	for _, p := range strings.Split(l.getenv(name), ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// proxies is a list of IP addresses or CIDR ranges.
func (l *loader) proxies(name string) []string {
	out := l.list(name)
	for _, p := range out {
		if _, err := netip.ParsePrefix(p); err != nil {
			if _, err := netip.ParseAddr(p); err != nil {
				l.fail(name, "%q is not an IP address or CIDR range", p)
			}
		}
	}
	return out
}

// secret is a value of at least min bytes, or "" when unset; the error
// never repeats the value.
func (l *loader) secret(name string, min int) string {
	v := l.getenv(name)
	if v != "" && len(v) < min {
		l.fail(name, "has %d bytes, fewer than %d (e.g. openssl rand -base64 32)", len(v), min)
		return ""
	}
	return v
}

func (l *loader) emails(name string) []string {
	out := l.list(name)
	for i, e := range out {
		if !strings.Contains(e, "@") {
			l.fail(name, "%q is not an e-mail address", e)
		}
		out[i] = strings.ToLower(e)
	}
	return out
}

func (l *loader) oneOf(name, def string, allowed ...string) string {
	v := l.str(name, def)
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	l.fail(name, "%q is not one of %s", v, strings.Join(allowed, ", "))
	return def
}

func (l *loader) positive(name string, def int) int {
	v := l.getenv(name)
	if v == "" {
		l.took(name, def)
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= 0 {
		l.fail(name, "%q is not a positive whole number", v)
		return def
	}
	l.took(name, n)
	return n
}

func (l *loader) bytes(name string, def int) int { return l.positive(name, def) }

// durationOrZero is duration where 0 means "none" (0s).
func (l *loader) durationOrZero(name string, def time.Duration) time.Duration {
	if v := strings.TrimSpace(l.getenv(name)); v == "0" || v == "0s" {
		l.took(name, time.Duration(0))
		return 0
	}
	return l.duration(name, def)
}

func (l *loader) duration(name string, def time.Duration) time.Duration {
	v := l.getenv(name)
	if v == "" {
		l.took(name, def)
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		l.fail(name, "%q is not a positive duration such as 30s", v)
		return def
	}
	l.took(name, d)
	return d
}

func (l *loader) level(name string, def zapcore.Level) zapcore.Level {
	v := l.getenv(name)
	if v == "" {
		l.took(name, def)
		return def
	}
	lv, err := zapcore.ParseLevel(v)
	if err != nil {
		l.fail(name, "%q is not a log level (debug, info, warn, error)", v)
		return def
	}
	return lv
}

func (l *loader) url(name, def string) string {
	v := l.str(name, def)
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		l.fail(name, "%q is not an http(s) URL", v)
	}
	return v
}
