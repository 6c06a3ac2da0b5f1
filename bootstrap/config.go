// Package bootstrap is the only package that knows every other: it reads the
// configuration, picks the adapters and assembles the app with fx.
package bootstrap

import (
	"errors"
	"runtime"
	"strings"
	"time"

	"go.uber.org/zap/zapcore"

	"tandem/adapters/console"
	"tandem/adapters/httpapi"
	"tandem/adapters/password"
	"tandem/adapters/signin"
	"tandem/adapters/telemetry"
	"tandem/adapters/webauthn"
	"tandem/modules/changes"
	"tandem/modules/images"
	"tandem/modules/notifications"
	"tandem/modules/partners"
	"tandem/modules/premium"
)

// Config is every TANDEM_* setting, parsed and validated.
type Config struct {
	// effective is each variable read with the value taken (tandem config).
	effective map[string]string
	// unknown names the TANDEM_* variables of the environment that Tandem
	// does not read, one line each (Run fills it; development warns).
	unknown []string

	HTTP      httpapi.Config
	Telemetry telemetry.Config // OTEL_*
	DB        DBConfig
	Blobs     BlobsConfig
	Mail      MailConfig
	MailFrom  string
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
	// SignIn lists the ID token providers (TANDEM_SIGNIN); none: sign-in
	// with Apple and Google answers 401 invalid_token.
	SignIn      []signin.Provider
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
	// still be accepted here (at most 5 s, docs/api.md).
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

	// EncryptionKeys (TANDEM_ENCRYPTION_KEY) seal what is kept at rest and
	// read again (Apple's refresh tokens), the first sealing; nil: none.
	EncryptionKeys [][]byte

	// ConnectionCodeTTL is how long a new connection code links
	// (TANDEM_CONNECTION_CODE_TTL); the purge deletes expired codes of
	// unpaired owners.
	ConnectionCodeTTL time.Duration

	// ChangesRetention is how long the change feed keeps a change
	// (TANDEM_CHANGES_RETENTION); an older cursor is 410 cursor_expired.
	ChangesRetention time.Duration

	// Passkeys (TANDEM_PASSKEYS) is the WebAuthn relying party; nil: off.
	Passkeys *webauthn.Config

	// WriteBudgets bound each user's messages, events, memories, mood
	// check-ins and new Idempotency-Keys per minute and per day
	// (TANDEM_WRITE_BUDGETS).
	WriteBudgets WriteBudgets
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
	Pool int // TANDEM_DB_POOL: connections, open and idle alike (SQL only)
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
	addr := l.addr("TANDEM_ADDR", ":8080")
	c := Config{
		HTTP: httpapi.Config{
			Addr:           addr,
			MetricsAddr:    l.optionalAddr("TANDEM_METRICS_ADDR", "127.0.0.1:9464"),
			PublicURL:      strings.TrimRight(l.url("TANDEM_PUBLIC_URL", localURL(addr)), "/"),
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
		SignIn:           l.signIn(development),
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
	c.EncryptionKeys = l.encryptionKeys(c.SignIn)
	c.ConnectionCodeTTL = l.duration("TANDEM_CONNECTION_CODE_TTL", partners.DefaultConnectionCodeTTL)
	c.ChangesRetention = l.duration("TANDEM_CHANGES_RETENTION", changes.DefaultRetention)
	c.WriteBudgets = l.writeBudgets()
	// Four files per upload plus multipart framing; every other route is
	// bounded by JSONBodyLimit before parsing.
	c.HTTP.UploadLimit, c.HTTP.UploadBodyLimit = uploadLimit, images.MaxPerUpload*uploadLimit+1<<20
	c.HTTP.APIKeys, c.HTTP.RateLimitIP = c.APIKeys, c.RateLimitIP
	c.HTTP.Stream = httpapi.DefaultStreamConfig
	c.HTTP.Stream.Heartbeat = l.duration("TANDEM_STREAM_HEARTBEAT", httpapi.DefaultStreamConfig.Heartbeat)
	c.HTTP.Stream.Recheck = l.duration("TANDEM_STREAM_RECHECK", httpapi.DefaultStreamConfig.Recheck)
	c.HTTP.Stream.Max = l.positive("TANDEM_STREAMS_MAX", httpapi.DefaultStreamConfig.Max)
	// Two 48-megapixel photos decoding at once; one 19 MiB hash per core.
	c.ImageDecodePixels = l.positive("TANDEM_IMAGE_DECODE_PIXELS", 100_000_000)
	c.HashSlots = l.positive("TANDEM_HASH_SLOTS", password.DefaultSlots())
	c.Passkeys = l.passkeysConfig()
	c.HTTP.WellKnown = httpapi.WellKnown{AppleAppIDs: l.appleAppIDs(), AndroidApps: l.androidApps()}
	var terrs []error
	c.Telemetry, terrs = telemetry.LoadConfig(l.lookup) // OTEL_*: not TANDEM_* settings, not in Variables
	l.errs = append(l.errs, terrs...)
	c.effective = l.effective
	return c, errors.Join(l.errs...)
}
