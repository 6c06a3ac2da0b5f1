// Package bootstrap is the only package that knows every other: it reads the
// configuration, picks the adapters and assembles the app with fx.
package bootstrap

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"go.uber.org/zap/zapcore"

	"tandem/adapters/console"
	"tandem/adapters/httpapi"
	"tandem/adapters/password"
	"tandem/modules/images"
	"tandem/modules/notifications"
	"tandem/modules/partners"
	"tandem/modules/premium"
)

// Config is every TANDEM_* setting, parsed and validated.
type Config struct {
	HTTP     httpapi.Config
	DB       DBConfig
	Blobs    BlobsConfig
	Mail     MailConfig
	MailFrom string
	// MailPoll is how often this process reads the mail outbox besides the
	// wake-up after each queued mail: retries, other processes' mail.
	MailPoll time.Duration
	// MailTimeout bounds the SMTP dial and each command; one mail's whole
	// delivery is bounded by mailSendSteps times it.
	MailTimeout time.Duration
	Push        []PushConfig
	Bus         BusConfig
	// Development (TANDEM_ENV=development) allows the development-only
	// adapters: trust purchases, a replaced Apple root, log and memory mail,
	// a NATS bus without TANDEM_BUS_SECRET.
	Development bool
	Purchases   PurchasesConfig
	Premium     premium.Policy // TANDEM_LIMITS_FREE/PREMIUM, TANDEM_FREE/PREMIUM_FEATURES
	APIKeys     []string
	AdminEmails []string
	RateLimitIP int
	UploadLimit int // bytes per uploaded file
	// ImageMaxPixels refuses an image declaring more pixels, before decoding;
	// ImageDecodes bounds the decodes running at once (TANDEM_IMAGE_*).
	ImageMaxPixels int
	ImageDecodes   int

	// ImageDecodePixels bounds the pixels of all images being decoded at
	// once (TANDEM_IMAGE_DECODE_PIXELS); HashSlots the password hashes
	// running at once (TANDEM_HASH_SLOTS). Both bound memory under a burst.
	ImageDecodePixels int
	HashSlots         int
	// HashParams are the argon2id costs of new password hashes: the
	// package's defaults, always, in a deployment (no variable sets them).
	// The black-box tests lower them, except where the cost is the subject.
	HashParams password.Params
	// TokenCacheTTL bounds how long a token revoked by another process may
	// still be accepted here (at most 5 s, DESIGN.md §3).
	TokenCacheTTL time.Duration
	// ReminderInterval is how often this process sends due event and daily
	// reminders and milestone pushes.
	ReminderInterval time.Duration
	// PushReceiptDelay is how long after a push its Expo receipt is first
	// read, and between two reads of one not ready yet.
	PushReceiptDelay time.Duration
	// PushTimeout bounds one push to a user's devices (TANDEM_PUSH_TIMEOUT).
	PushTimeout time.Duration
	// SweepInterval and SweepGrace: how often files without an image row
	// (and stale temporary files) are looked for, and how old they must be.
	SweepInterval time.Duration
	SweepGrace    time.Duration
	LogLevel      zapcore.Level
	LogFormat     string
	// PairingFailsUser and PairingFailsIP bound failed code attempts (link,
	// create, submit-code) per user and per client IP each hour.
	PairingFailsUser int
	PairingFailsIP   int

	// ConsoleSecret (TANDEM_CONSOLE_SECRET) keys the console's CSRF tokens;
	// empty: one is generated and kept in the database (consoleSecret).
	ConsoleSecret string

	// ConnectionCodeTTL is how long a new connection code links
	// (TANDEM_CONNECTION_CODE_TTL); the purge deletes expired codes of
	// unpaired owners.
	ConnectionCodeTTL time.Duration
}

type DBKind string

const (
	DBMemory DBKind = "memory"
	DBSQLite DBKind = "sqlite"
	DBMySQL  DBKind = "mysql"
)

// DBConfig is TANDEM_DB: the kind and, for SQL, the path or DSN.
type DBConfig struct {
	Kind DBKind
	DSN  string
}

// BlobsConfig is TANDEM_BLOBS.
type BlobsConfig struct {
	Kind     string // memory, file, s3
	Dir      string
	Bucket   string
	Endpoint string
	Region   string
	Secure   bool
}

// MailConfig is TANDEM_MAIL.
type MailConfig struct {
	Kind     string // log, memory, smtp; "" (production's default): none, serve refuses (requireMail)
	Host     string // host:port for smtp
	Username string
	Password string
}

// BusConfig is TANDEM_BUS: "local", or NATS at URL with its subjects under
// Prefix (processes of one deployment share a prefix).
type BusConfig struct {
	Kind   string // local, nats
	URL    string // nats://HOST:PORT
	Prefix string
	// Secret (TANDEM_BUS_SECRET) signs every NATS message; empty in
	// development only, where each process makes up its own.
	Secret string
}

// busSecretMin is the shortest TANDEM_BUS_SECRET taken: 32 characters,
// so a random one carries the HMAC-SHA256 key's 256 bits or near.
const busSecretMin = 32

// PushConfig is one provider of TANDEM_PUSH.
type PushConfig struct {
	Kind        string // log, memory, expo, fcm
	URL         string
	Project     string
	Credentials string
}

// Load reads the configuration through lookup (os.LookupEnv in production, a
// map in tests). An empty variable counts as unset, except where empty means
// something (TANDEM_METRICS_ADDR: off). Every bad variable gives one line
// naming it; all are reported.
func Load(lookup func(string) (string, bool)) (Config, error) {
	l := loader{lookup: lookup}
	uploadLimit := l.bytes("TANDEM_UPLOAD_MAX_BYTES", 10<<20)
	development := l.oneOf("TANDEM_ENV", "production", "production", "development") == "development"
	c := Config{
		HTTP: httpapi.Config{
			Addr:           l.str("TANDEM_ADDR", ":8080"),
			MetricsAddr:    l.optionalAddr("TANDEM_METRICS_ADDR", "127.0.0.1:9464"),
			PublicURL:      strings.TrimRight(l.url("TANDEM_PUBLIC_URL", "http://localhost:8080"), "/"),
			JSONBodyLimit:  l.bytes("TANDEM_JSON_MAX_BYTES", 256<<10),
			ReadTimeout:    l.duration("TANDEM_READ_TIMEOUT", 30*time.Second),
			WriteTimeout:   l.duration("TANDEM_WRITE_TIMEOUT", 30*time.Second),
			IdleTimeout:    l.duration("TANDEM_IDLE_TIMEOUT", 120*time.Second),
			RequestTimeout: l.duration("TANDEM_REQUEST_TIMEOUT", 15*time.Second),
			ShutdownGrace:  l.durationOrZero("TANDEM_SHUTDOWN_GRACE", 5*time.Second),
			TrustedProxies: l.proxies("TANDEM_TRUSTED_PROXIES"),
			CORSOrigins:    l.str("TANDEM_CORS_ORIGINS", "*"),
			ImageRateLimit: l.positive("TANDEM_IMAGES_RATE_LIMIT", 10),
		},
		DB:               l.db(),
		Blobs:            l.blobs(),
		Mail:             l.mail(development),
		MailFrom:         l.str("TANDEM_MAIL_FROM", "Tandem <no-reply@localhost>"),
		MailPoll:         l.duration("TANDEM_MAIL_POLL", 5*time.Second),
		MailTimeout:      l.duration("TANDEM_MAIL_TIMEOUT", 10*time.Second),
		Push:             l.push(),
		Bus:              l.bus(development),
		Development:      development,
		Purchases:        l.purchasesConfig(development),
		Premium:          l.premium(),
		APIKeys:          l.list("TANDEM_API_KEYS"),
		AdminEmails:      l.emails("TANDEM_ADMIN_EMAILS"),
		ConsoleSecret:    l.secret("TANDEM_CONSOLE_SECRET", console.MinSecret),
		RateLimitIP:      l.positive("TANDEM_RATE_LIMIT_IP", 60),
		PairingFailsUser: l.positive("TANDEM_PAIRING_FAILS_USER", 10),
		PairingFailsIP:   l.positive("TANDEM_PAIRING_FAILS_IP", 30),
		UploadLimit:      uploadLimit,
		ImageMaxPixels:   l.positive("TANDEM_IMAGE_MAX_PIXELS", 50_000_000),
		ImageDecodes:     l.positive("TANDEM_IMAGE_DECODES", runtime.GOMAXPROCS(0)),
		TokenCacheTTL:    l.cacheTTL("TANDEM_TOKEN_CACHE_TTL", 5*time.Second),
		ReminderInterval: l.duration("TANDEM_REMINDER_INTERVAL", time.Minute),
		SweepInterval:    l.duration("TANDEM_SWEEP_INTERVAL", 10*time.Minute),
		PushTimeout:      l.duration("TANDEM_PUSH_TIMEOUT", 5*time.Second),
		SweepGrace:       l.duration("TANDEM_SWEEP_GRACE", time.Hour),
		PushReceiptDelay: l.receiptDelay("TANDEM_PUSH_RECEIPT_DELAY", notifications.DefaultReceiptDelay),
		LogLevel:         l.level("TANDEM_LOG_LEVEL", zapcore.InfoLevel),
		LogFormat:        l.oneOf("TANDEM_LOG_FORMAT", "json", "json", "console"),
	}
	c.ConnectionCodeTTL = l.duration("TANDEM_CONNECTION_CODE_TTL", partners.DefaultConnectionCodeTTL)
	// Four files per upload plus multipart framing; every other route is
	// bounded by JSONBodyLimit before parsing.
	c.HTTP.UploadLimit, c.HTTP.UploadBodyLimit = uploadLimit, images.MaxPerUpload*uploadLimit+1<<20
	c.HTTP.APIKeys, c.HTTP.RateLimitIP = c.APIKeys, c.RateLimitIP
	c.HTTP.Stream = httpapi.DefaultStreamConfig
	c.HTTP.Stream.Heartbeat = l.duration("TANDEM_STREAM_HEARTBEAT", httpapi.DefaultStreamConfig.Heartbeat)
	c.HTTP.Stream.Recheck = l.duration("TANDEM_STREAM_RECHECK", httpapi.DefaultStreamConfig.Recheck)
	// Two 48-megapixel photos decoding at once; one 19 MiB hash per core.
	c.ImageDecodePixels = l.positive("TANDEM_IMAGE_DECODE_PIXELS", 100_000_000)
	c.HashSlots = l.positive("TANDEM_HASH_SLOTS", password.DefaultSlots())
	return c, errors.Join(l.errs...)
}

type loader struct {
	lookup func(string) (string, bool)
	errs   []error
}

func (l *loader) getenv(name string) string {
	v, _ := l.lookup(name)
	return v
}

func (l *loader) fail(name, format string, args ...any) {
	l.errs = append(l.errs, fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...)))
}

func (l *loader) str(name, def string) string {
	if v := strings.TrimSpace(l.getenv(name)); v != "" {
		return v
	}
	return def
}

// optionalAddr is a host:port, the default when unset, or "" (off) when set empty.
func (l *loader) optionalAddr(name, def string) string {
	v, set := l.lookup(name)
	if !set {
		return def
	}
	v = strings.TrimSpace(v)
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
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= 0 {
		l.fail(name, "%q is not a positive whole number", v)
		return def
	}
	return n
}

func (l *loader) bytes(name string, def int) int { return l.positive(name, def) }

// durationOrZero is duration where 0 means "none" (0s).
func (l *loader) durationOrZero(name string, def time.Duration) time.Duration {
	if v := strings.TrimSpace(l.getenv(name)); v == "0" || v == "0s" {
		return 0
	}
	return l.duration(name, def)
}

func (l *loader) duration(name string, def time.Duration) time.Duration {
	v := l.getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		l.fail(name, "%q is not a positive duration such as 30s", v)
		return def
	}
	return d
}

func (l *loader) cacheTTL(name string, def time.Duration) time.Duration {
	d := l.duration(name, def)
	if d > 5*time.Second {
		l.fail(name, "%s is longer than the 5s a revoked token may live on", d)
		return def
	}
	return d
}

// receiptDelay is a positive duration shorter than the day a receipt stays
// readable (notifications.TicketMaxAge).
func (l *loader) receiptDelay(name string, def time.Duration) time.Duration {
	d := l.duration(name, def)
	if d >= notifications.TicketMaxAge {
		l.fail(name, "%s is not shorter than %s, after which Expo's receipts are gone", d, notifications.TicketMaxAge)
		return def
	}
	return d
}

func (l *loader) level(name string, def zapcore.Level) zapcore.Level {
	v := l.getenv(name)
	if v == "" {
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

func (l *loader) db() DBConfig {
	const name = "TANDEM_DB"
	v := l.str(name, "sqlite:./data/tandem.db")
	kind, rest, _ := strings.Cut(v, ":")
	switch {
	case v == "memory":
		return DBConfig{Kind: DBMemory}
	case kind == "sqlite" && rest != "":
		return DBConfig{Kind: DBSQLite, DSN: rest}
	case kind == "mysql" && rest != "":
		if _, err := mysql.ParseDSN(rest); err != nil {
			l.fail(name, "bad MySQL DSN: %v", err)
		}
		return DBConfig{Kind: DBMySQL, DSN: rest}
	}
	l.fail(name, "%q is not memory, sqlite:PATH or mysql:DSN", v)
	return DBConfig{}
}

func (l *loader) blobs() BlobsConfig {
	const name = "TANDEM_BLOBS"
	v := l.str(name, "file:./data/blobs")
	switch {
	case v == "memory":
		return BlobsConfig{Kind: "memory"}
	case strings.HasPrefix(v, "file:") && len(v) > len("file:"):
		return BlobsConfig{Kind: "file", Dir: strings.TrimPrefix(v, "file:")}
	case strings.HasPrefix(v, "s3://"):
		u, err := url.Parse(v)
		if err != nil || u.Host == "" || u.Query().Get("endpoint") == "" {
			l.fail(name, "%q is not s3://BUCKET?endpoint=HOST:PORT&region=R&secure=false", v)
			return BlobsConfig{}
		}
		q := u.Query()
		return BlobsConfig{Kind: "s3", Bucket: u.Host, Endpoint: q.Get("endpoint"),
			Region: q.Get("region"), Secure: q.Get("secure") != "false"}
	}
	l.fail(name, "%q is not memory, file:DIR or s3://BUCKET?endpoint=...", v)
	return BlobsConfig{}
}

const mailVar = "TANDEM_MAIL"

// mail parses TANDEM_MAIL. log and memory keep every sign-up and reset
// code where an operator or a log shipper reads it: they need
// TANDEM_ENV=development, where log is also the default. Unset in
// production, serve refuses to start (requireMail); migrate, backup and
// the admin commands send no mail.
func (l *loader) mail(development bool) MailConfig {
	const name = mailVar
	def := ""
	if development {
		def = "log"
	}
	v := l.str(name, def)
	switch {
	case v == "":
		return MailConfig{}
	case (v == "log" || v == "memory") && !development:
		where := map[string]string{"log": "the log", "memory": "memory, not sent"}[v]
		l.fail(name, "%s writes every sign-up and password reset code to %s: it needs TANDEM_ENV=development "+
			"(production: smtp://[USER:PASS@]HOST:PORT)", v, where)
		return MailConfig{}
	case v == "log" || v == "memory":
		return MailConfig{Kind: v}
	case strings.HasPrefix(v, "smtp://"):
		u, err := url.Parse(v)
		if err != nil || u.Hostname() == "" || u.Port() == "" {
			l.fail(name, "%q is not smtp://[USER:PASS@]HOST:PORT", v)
			return MailConfig{}
		}
		pass, _ := u.User.Password()
		return MailConfig{Kind: "smtp", Host: u.Host, Username: u.User.Username(), Password: pass}
	}
	l.fail(name, "%q is not log, memory or smtp://HOST:PORT", v)
	return MailConfig{}
}

func (l *loader) bus(development bool) BusConfig {
	c := l.busURL()
	if c.Kind != "nats" {
		return c
	}
	const name = "TANDEM_BUS_SECRET"
	c.Secret = l.str(name, "")
	switch {
	case c.Secret == "" && !development:
		l.fail(name, "a nats:// or tls:// bus needs it in production, or anyone who can publish on NATS forges live events "+
			"and revocations: give every process one random secret of at least %d characters (openssl rand -hex 32)", busSecretMin)
	case c.Secret != "" && len(c.Secret) < busSecretMin:
		l.fail(name, "shorter than %d characters", busSecretMin)
		c.Secret = ""
	}
	return c
}

func (l *loader) busURL() BusConfig {
	const name = "TANDEM_BUS"
	v := l.str(name, "local")
	if v == "local" {
		return BusConfig{Kind: v}
	}
	u, err := url.Parse(v)
	if err != nil || u.Scheme != "nats" && u.Scheme != "tls" || u.Hostname() == "" || u.Port() == "" || u.Path != "" {
		l.fail(name, "%q is not local, nats://[USER:PASS@]HOST:PORT[?prefix=NAME] or tls://...", v)
		return BusConfig{}
	}
	prefix := u.Query().Get("prefix")
	if prefix == "" {
		prefix = "tandem"
	}
	if !validSubjectToken(prefix) {
		l.fail(name, "prefix %q must be letters, digits, '-' or '_'", prefix)
		return BusConfig{}
	}
	u.RawQuery = ""
	return BusConfig{Kind: "nats", URL: u.String(), Prefix: prefix}
}

func validSubjectToken(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return s != "" && len(s) <= 64
}

func (l *loader) push() []PushConfig {
	const name = "TANDEM_PUSH"
	var out []PushConfig
	for _, item := range l.list(name) {
		kind, query, _ := strings.Cut(item, "?")
		q, err := url.ParseQuery(query)
		if err != nil {
			l.fail(name, "%q: bad options: %v", item, err)
			continue
		}
		p := PushConfig{Kind: kind, URL: q.Get("url"), Project: q.Get("project"), Credentials: q.Get("credentials")}
		if u, err := url.Parse(p.URL); p.URL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
			l.fail(name, "%q: url must be an http(s) URL", item)
			continue
		}
		switch {
		case kind == "log" || kind == "memory" || kind == "expo":
		case kind == "fcm" && p.Project != "" && p.Credentials != "":
		case kind == "fcm":
			l.fail(name, "fcm needs project=... and credentials=FILE")
			continue
		default:
			l.fail(name, "%q is not log, memory, expo or fcm", kind)
			continue
		}
		out = append(out, p)
	}
	seen := map[string]bool{}
	for _, p := range out {
		if seen[p.Kind] || (p.Kind == "log" && seen["memory"]) || (p.Kind == "memory" && seen["log"]) {
			l.fail(name, "%s: give each provider once, and at most one of log and memory", p.Kind)
			break
		}
		seen[p.Kind] = true
	}
	if len(out) == 0 {
		out = []PushConfig{{Kind: "log"}}
	}
	return out
}

// premium reads the feature gates and limits of premium.
func (l *loader) premium() premium.Policy {
	return premium.Policy{
		FreeLimits:      l.limits("TANDEM_LIMITS_FREE", `{"projects":3,"storage":"1GB","imagesPerUpload":4,"memories":100}`),
		PremiumLimits:   l.limits("TANDEM_LIMITS_PREMIUM", `{"projects":100,"storage":"100GB","imagesPerUpload":4,"memories":10000}`),
		FreeFeatures:    l.names("TANDEM_FREE_FEATURES", "basic_memories,messages,events,daily_question"),
		PremiumFeatures: l.names("TANDEM_PREMIUM_FEATURES", "unlimited_memories,hd_photos,custom_themes,advanced_stats"),
	}
}

// limits parses a limits object and checks the keys that are enforced
// (memories, storage: see premium.Limits.Quota), so a bad one stops the start.
func (l *loader) limits(name, def string) premium.Limits {
	m := l.jsonObject(name, def)
	if m == nil {
		return nil
	}
	if _, err := premium.Limits(m).Quota(); err != nil {
		l.fail(name, "%v", err)
		return nil
	}
	return m
}

// jsonObject parses a JSON object; numbers keep their exact text.
func (l *loader) jsonObject(name, def string) map[string]any {
	v := l.str(name, def)
	dec := json.NewDecoder(strings.NewReader(v))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil || dec.More() {
		l.fail(name, "%q is not a JSON object", v)
		return nil
	}
	return m
}

// names is a comma list of feature names (letters, digits, _ . - :).
func (l *loader) names(name, def string) []string {
	var out []string
	for _, n := range strings.Split(l.str(name, def), ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		if len(n) > 64 || strings.IndexFunc(n, notNameRune) >= 0 {
			l.fail(name, "%q is not a feature name (letters, digits, _ . - :)", n)
			return nil
		}
		out = append(out, n)
	}
	return out
}

func notNameRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_.-:", r))
}
