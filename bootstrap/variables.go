package bootstrap

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/go-sql-driver/mysql"

	"tandem/adapters/console"
)

// Variables are every setting Tandem reads, by name. docs/configuration.md
// documents each, and a test checks both against the names the code reads,
// so a setting can neither go undocumented nor be missing here.
var Variables = []string{
	"TANDEM_ADDR", "TANDEM_ADMIN_EMAILS", "TANDEM_ANDROID_APPS", "TANDEM_API_KEYS", "TANDEM_APPLE_APP_IDS",
	"TANDEM_BLOBS", "TANDEM_BUS", "TANDEM_BUS_SECRET", "TANDEM_CHANGES_RETENTION", "TANDEM_CONNECTION_CODE_TTL", "TANDEM_CONSOLE_SECRET",
	"TANDEM_CORS_ORIGINS", "TANDEM_DB", "TANDEM_DB_POOL", "TANDEM_ENCRYPTION_KEY", "TANDEM_ENV", "TANDEM_FREE_FEATURES", "TANDEM_HASH_SLOTS",
	"TANDEM_IDLE_TIMEOUT", "TANDEM_IMAGES_RATE_LIMIT", "TANDEM_IMAGE_DECODES", "TANDEM_IMAGE_DECODE_PIXELS",
	"TANDEM_IMAGE_MAX_PIXELS", "TANDEM_JSON_MAX_BYTES", "TANDEM_LIMITS_FREE", "TANDEM_LIMITS_PREMIUM",
	"TANDEM_LOG_FORMAT", "TANDEM_LOG_LEVEL", "TANDEM_MAIL", "TANDEM_MAIL_FROM", "TANDEM_MAIL_POLL",
	"TANDEM_MAIL_TIMEOUT", "TANDEM_METRICS_ADDR", "TANDEM_PAIRING_FAILS_IP", "TANDEM_PAIRING_FAILS_USER",
	"TANDEM_PASSKEYS", "TANDEM_PREMIUM_FEATURES", "TANDEM_PUBLIC_URL", "TANDEM_PURCHASES", "TANDEM_PUSH",
	"TANDEM_PUSH_RECEIPT_DELAY", "TANDEM_PUSH_TIMEOUT", "TANDEM_RATE_LIMIT_IP", "TANDEM_READ_TIMEOUT",
	"TANDEM_REMINDER_INTERVAL", "TANDEM_REQUEST_TIMEOUT", "TANDEM_SHUTDOWN_GRACE", "TANDEM_SIGNIN", "TANDEM_STREAMS_MAX", "TANDEM_STREAM_HEARTBEAT",
	"TANDEM_STREAM_RECHECK", "TANDEM_SWEEP_GRACE", "TANDEM_SWEEP_INTERVAL", "TANDEM_TOKEN_CACHE_TTL",
	"TANDEM_TRUSTED_PROXIES", "TANDEM_UPLOAD_MAX_BYTES", "TANDEM_WRITE_BUDGETS", "TANDEM_WRITE_TIMEOUT",
}

// secretVariables are printed masked whole by `tandem config`; the others
// have only the password of a URL or DSN masked.
var secretVariables = []string{"TANDEM_API_KEYS", "TANDEM_BUS_SECRET", "TANDEM_CONSOLE_SECRET", "TANDEM_ENCRYPTION_KEY"}

// testPrefix names the test suite's own variables, which the service never reads.
const testPrefix = "TANDEM_TEST_"

// unknownVariables returns one line per TANDEM_* variable of environ
// (KEY=VALUE) that Tandem does not read, naming the closest known one: a
// typo would otherwise leave a setting at its default in silence.
func unknownVariables(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "TANDEM_") || strings.HasPrefix(name, testPrefix) || slices.Contains(Variables, name) {
			continue
		}
		line := name + ": not a Tandem setting"
		if near := closest(name); near != "" {
			line += "; did you mean " + near + "?"
		}
		out = append(out, line)
	}
	slices.Sort(out)
	return out
}

// closest is the known name at the smallest edit distance from name, when
// that distance is small enough to be a typo.
func closest(name string) string {
	best, bestD := "", 4
	for _, v := range Variables {
		if d := editDistance(name, v); d < bestD {
			best, bestD = v, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// urlPassword finds the password of a URL: scheme://user:PASSWORD@host.
var urlPassword = regexp.MustCompile(`(//[^:/@]*:)[^@/]+@`)

// masked is value as `tandem config` prints it: secrets whole, the
// password of a URL or of a MySQL DSN.
func masked(name, value string) string {
	switch {
	case value == "":
		return value
	case slices.Contains(secretVariables, name):
		return "***"
	case strings.HasPrefix(value, "mysql:"):
		c, err := mysql.ParseDSN(strings.TrimPrefix(value, "mysql:"))
		if err != nil {
			return "mysql:***"
		}
		if c.Passwd != "" {
			c.Passwd = "***"
		}
		return "mysql:" + c.FormatDSN()
	}
	return urlPassword.ReplaceAllString(value, "${1}***@")
}

// printConfig writes the effective settings: every variable with the value
// it has (set, or the default the loader took), secrets masked.
func printConfig(cfg Config, stdout io.Writer) error {
	s := effectiveSettings(cfg)
	for _, l := range s.Lines {
		if _, err := fmt.Fprintf(stdout, "%s=%s\n", l.Name, l.Value); err != nil {
			return err
		}
	}
	for _, line := range s.Unknown {
		if _, err := fmt.Fprintf(stdout, "# %s\n", line); err != nil {
			return err
		}
	}
	return nil
}

// effectiveSettings are the settings `tandem config` prints and the
// console's Settings page shows: every variable in order with the value
// taken, secrets masked here, and the lines about unknown variables.
func effectiveSettings(cfg Config) console.Settings {
	out := console.Settings{Lines: make([]console.Setting, 0, len(Variables)), Unknown: slices.Clone(cfg.unknown)}
	for _, name := range Variables {
		v, ok := cfg.effective[name]
		if !ok {
			v = "(not read: unused with these settings)"
		} else {
			v = masked(name, v)
		}
		out.Lines = append(out.Lines, console.Setting{Name: name, Value: v})
	}
	return out
}
