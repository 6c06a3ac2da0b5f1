package bootstrap

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"tandem/adapters/signin/signintest"
	"tandem/adapters/sqlstore"
	"tandem/modules/idempotency"
	"tandem/modules/messages"
)

// env is a lookup over kv: a key present with "" is set and empty.
func env(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := kv[k]
		return v, ok
	}
}

func TestLoadDefaults(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP.Addr != ":8080" || c.DB.Kind != DBSQLite || c.DB.DSN != "./data/tandem.db" ||
		c.Blobs.Kind != "file" || c.Push[0].Kind != "log" ||
		c.RateLimitIP != 60 || c.HTTP.PublicURL != "http://localhost:8080" || c.UploadLimit != 10<<20 ||
		c.HTTP.ReadTimeout != 30*time.Second || c.HTTP.MetricsAddr != "127.0.0.1:9464" ||
		c.HTTP.UploadLimit != 10<<20 || c.HTTP.UploadBodyLimit != 4*(10<<20)+1<<20 || c.HTTP.JSONBodyLimit != 256<<10 ||
		c.PairingFailsUser != 10 || c.PairingFailsIP != 30 || c.PushReceiptDelay != 15*time.Minute ||
		c.MailPoll != 5*time.Second || c.MailTimeout != 10*time.Second {
		t.Fatalf("defaults: %+v", c)
	}
	if c.Mail.Kind != "" || c.Development { // production: no mail until one is set (serve refuses)
		t.Fatalf("production mail default: %+v", c.Mail)
	}
	c, err = Load(env(map[string]string{"TANDEM_ENV": "development"}))
	if err != nil || c.Mail.Kind != "log" {
		t.Fatalf("development mail default: %+v %v", c.Mail, err)
	}
}

// TestLoadMetricsAddr: unset is the loopback default, set is kept, and set
// empty turns the metrics listener off.
func TestLoadMetricsAddr(t *testing.T) {
	cases := []struct {
		name string
		vars map[string]string
		want string
	}{
		{"unset", nil, "127.0.0.1:9464"},
		{"set", map[string]string{"TANDEM_METRICS_ADDR": "0.0.0.0:9100"}, "0.0.0.0:9100"},
		{"any port", map[string]string{"TANDEM_METRICS_ADDR": "127.0.0.1:0"}, "127.0.0.1:0"},
		{"empty: off", map[string]string{"TANDEM_METRICS_ADDR": ""}, ""},
		{"blank: off", map[string]string{"TANDEM_METRICS_ADDR": "  "}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(env(tc.vars))
			if err != nil || c.HTTP.MetricsAddr != tc.want {
				t.Fatalf("got %q, %v; want %q", c.HTTP.MetricsAddr, err, tc.want)
			}
		})
	}
}

func TestLoadParsesEveryForm(t *testing.T) {
	c, err := Load(env(map[string]string{
		"TANDEM_DB":           "mysql:root@tcp(127.0.0.1:3306)/test",
		"TANDEM_BLOBS":        "s3://photos?endpoint=127.0.0.1:9000&region=eu&secure=false",
		"TANDEM_MAIL":         "smtp://u:p@mail.local:2525",
		"TANDEM_PUSH":         "expo?url=http://127.0.0.1:1/push, fcm?project=p1&credentials=/k.json",
		"TANDEM_ADMIN_EMAILS": " Boss@Example.com ,x@y.z",
		"TANDEM_API_KEYS":     "k1,k2",
		"TANDEM_BUS":          "nats://127.0.0.1:4222?prefix=blue",
		"TANDEM_BUS_SECRET":   testBusSecret,
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.DB.Kind != DBMySQL || c.Blobs.Bucket != "photos" || c.Blobs.Endpoint != "127.0.0.1:9000" || c.Blobs.Secure ||
		c.Mail.Host != "mail.local:2525" || c.Mail.Username != "u" || c.Mail.Password != "p" ||
		len(c.Push) != 2 || c.Push[0].URL != "http://127.0.0.1:1/push" || c.Push[1].Project != "p1" ||
		c.AdminEmails[0] != "boss@example.com" || len(c.APIKeys) != 2 ||
		c.Bus != (BusConfig{Kind: "nats", URL: "nats://127.0.0.1:4222", Prefix: "blue", Secret: testBusSecret}) {
		t.Fatalf("parsed: %+v", c)
	}
}

func TestLoadBus(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  BusConfig
		ok    bool
	}{
		{"", BusConfig{Kind: "local"}, true},
		{"local", BusConfig{Kind: "local"}, true},
		{"nats://127.0.0.1:4222", BusConfig{Kind: "nats", URL: "nats://127.0.0.1:4222", Prefix: "tandem", Secret: testBusSecret}, true},
		{"tls://u:p@nats.internal:4222?prefix=prod", BusConfig{Kind: "nats", URL: "tls://u:p@nats.internal:4222", Prefix: "prod",
			Secret: testBusSecret}, true},
		{"nats://127.0.0.1", BusConfig{}, false},
		{"nats://127.0.0.1:4222/x", BusConfig{}, false},
		{"nats://127.0.0.1:4222?prefix=a.b", BusConfig{}, false},
		{"nats://127.0.0.1:4222?prefix=>", BusConfig{}, false},
		{"NATS", BusConfig{}, false},
	} {
		c, err := Load(env(map[string]string{"TANDEM_BUS": tc.value, "TANDEM_BUS_SECRET": testBusSecret}))
		if tc.ok != (err == nil) || tc.ok && c.Bus != tc.want {
			t.Fatalf("%q: got %+v, %v", tc.value, c.Bus, err)
		}
		if !tc.ok && !strings.HasPrefix(err.Error(), "TANDEM_BUS: ") {
			t.Fatalf("%q: %v", tc.value, err)
		}
	}
}

const testBusSecret = "0123456789abcdef0123456789abcdef"

// TestLoadProductionRefusals: what only development may run with is one
// line naming its variable in production (TANDEM_ENV unset or production).
func TestLoadProductionRefusals(t *testing.T) {
	const nats = "nats://127.0.0.1:4222"
	for _, tc := range []struct {
		name string
		vars map[string]string
		err  string // "" when accepted
	}{
		{"log mail", map[string]string{"TANDEM_MAIL": "log"},
			"TANDEM_MAIL: log writes every sign-up and password reset code to the log: it needs TANDEM_ENV=development"},
		{"memory mail", map[string]string{"TANDEM_MAIL": "memory", "TANDEM_ENV": "production"},
			"TANDEM_MAIL: memory writes every sign-up and password reset code to memory, not sent: it needs TANDEM_ENV=development"},
		{"log mail in development", map[string]string{"TANDEM_MAIL": "log", "TANDEM_ENV": "development"}, ""},
		{"memory mail in development", map[string]string{"TANDEM_MAIL": "memory", "TANDEM_ENV": "development"}, ""},
		{"smtp mail", map[string]string{"TANDEM_MAIL": "smtp://mail.local:25"}, ""},
		{"nats without a secret", map[string]string{"TANDEM_BUS": nats},
			"TANDEM_BUS_SECRET: a nats:// or tls:// bus needs it in production"},
		{"tls without a secret", map[string]string{"TANDEM_BUS": "tls://nats.internal:4222"},
			"TANDEM_BUS_SECRET: a nats:// or tls:// bus needs it in production"},
		{"nats with a short secret", map[string]string{"TANDEM_BUS": nats, "TANDEM_BUS_SECRET": "hunter2"},
			"TANDEM_BUS_SECRET: shorter than 32 characters"},
		{"a short secret in development", map[string]string{"TANDEM_BUS": nats, "TANDEM_BUS_SECRET": "hunter2", "TANDEM_ENV": "development"},
			"TANDEM_BUS_SECRET: shorter than 32 characters"},
		{"nats with a secret", map[string]string{"TANDEM_BUS": nats, "TANDEM_BUS_SECRET": testBusSecret}, ""},
		{"nats without a secret in development", map[string]string{"TANDEM_BUS": nats, "TANDEM_ENV": "development"}, ""},
		{"a local bus needs none", map[string]string{"TANDEM_BUS": "local"}, ""},
		{"replaced sign-in keys", map[string]string{"TANDEM_SIGNIN": "apple?client=a&jwks=http://127.0.0.1:1/keys"},
			"TANDEM_SIGNIN: apple jwks= replaces the provider's keys: it needs TANDEM_ENV=development"},
		{"replaced sign-in keys in development", map[string]string{"TANDEM_ENV": "development",
			"TANDEM_SIGNIN": "apple?client=a&jwks=http://127.0.0.1:1/keys"}, ""},
		{"sign-in with the providers' keys", map[string]string{
			"TANDEM_SIGNIN": "apple?client=com.example.tandem,google?client=1.apps.googleusercontent.com&client=2"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(env(tc.vars))
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.err != "" && (err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), tc.err)):
				t.Fatalf("want one line %q..., got %v", tc.err, err)
			}
		})
	}
}

func TestLoadNamesEachBadVariable(t *testing.T) {
	cases := map[string]string{
		"TANDEM_DB":                 "postgres://x",
		"TANDEM_BLOBS":              "ftp://x",
		"TANDEM_MAIL":               "smtp://nohostport",
		"TANDEM_PUSH":               "fcm?project=p",
		"TANDEM_PURCHASES":          "apple",
		"TANDEM_RATE_LIMIT_IP":      "-3",
		"TANDEM_LOG_LEVEL":          "loud",
		"TANDEM_LOG_FORMAT":         "xml",
		"TANDEM_PUBLIC_URL":         "localhost",
		"TANDEM_READ_TIMEOUT":       "soon",
		"TANDEM_UPLOAD_MAX_BYTES":   "ten",
		"TANDEM_ADMIN_EMAILS":       "nobody",
		"TANDEM_REMINDER_INTERVAL":  "often",
		"TANDEM_PUSH_RECEIPT_DELAY": "soon",
		"TANDEM_MAIL_POLL":          "0s",
		"TANDEM_MAIL_TIMEOUT":       "-1s",
		"TANDEM_LIMITS_FREE":        `["projects"]`,
		"TANDEM_LIMITS_PREMIUM":     `{"projects":`,
		"TANDEM_FREE_FEATURES":      "messages,bad feature",
		"TANDEM_PREMIUM_FEATURES":   "hd_photos;custom_themes",

		"TANDEM_IMAGES_RATE_LIMIT": "0",
		"TANDEM_METRICS_ADDR":      "9464",

		"TANDEM_PAIRING_FAILS_USER": "none",
		"TANDEM_PAIRING_FAILS_IP":   "-1",
		"TANDEM_TRUSTED_PROXIES":    "10.0.0.1,proxy.local",
		"TANDEM_BUS":                "redis://127.0.0.1:6379",
		"TANDEM_SHUTDOWN_GRACE":     "-1s",
		"TANDEM_CONSOLE_SECRET":     "31-bytes-is-one-short-of-enough",
		"TANDEM_PASSKEYS":           "rp=example.com",
		"TANDEM_APPLE_APP_IDS":      "ABCDE12345.app.tandem,app.tandem",
		"TANDEM_ANDROID_APPS":       "package=app.tandem&sha256=AB:CD",
		"TANDEM_SIGNIN":             "apple",
		"TANDEM_WRITE_BUDGETS":      "messages=30",
	}
	for name, value := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Load(env(map[string]string{name: value}))
			if err == nil {
				t.Fatal("accepted")
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], name+": ") {
				t.Fatalf("want one line naming %s, got %q", name, err)
			}
		})
	}
}

func TestLoadRefusesLimitsThatCannotBeEnforced(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"TANDEM_LIMITS_FREE", `{"storage":"lots"}`},
		{"TANDEM_LIMITS_FREE", `{"memories":-1}`},
		{"TANDEM_LIMITS_PREMIUM", `{"storage":"1.5GB"}`},
		{"TANDEM_LIMITS_PREMIUM", `{"memories":"many"}`},
	} {
		_, err := Load(env(map[string]string{tc.name: tc.value}))
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), tc.name+": ") {
			t.Fatalf("%s=%s: want one line naming it, got %v", tc.name, tc.value, err)
		}
	}
}

// TestLoadWriteBudgets: unset, each budget is its module's; the variable
// replaces the ones it names; a bad item is one line naming the variable.
func TestLoadWriteBudgets(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	const defaults = "messages=30/1000,events=20/200,memories=20/200,moods=10/100,idempotency_keys=120/2000"
	if got := c.WriteBudgets.String(); got != defaults || c.effective[writeBudgetsVar] != defaults ||
		c.WriteBudgets.Messages != messages.DefaultBudget || c.WriteBudgets.IdempotencyKeys != idempotency.DefaultBudget {
		t.Fatalf("defaults %s (%+v)", got, c.WriteBudgets)
	}
	c, err = Load(env(map[string]string{writeBudgetsVar: " moods=1/2, messages = 1000000/100000000 "}))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.WriteBudgets.String(); got != "messages=1000000/100000000,events=20/200,memories=20/200,moods=1/2,idempotency_keys=120/2000" ||
		c.WriteBudgets.Moods.Kind != "moods" {
		t.Fatalf("got %s (%+v)", got, c.WriteBudgets)
	}
	for _, bad := range []string{"messages=30", "messages=0/10", "messages=3/-1", "message=3/10", "moods=1/2,moods=3/4",
		"events=a/b", "events=3/10/20"} {
		_, err := Load(env(map[string]string{writeBudgetsVar: bad}))
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), writeBudgetsVar+": ") {
			t.Errorf("%s: want one line naming the variable, got %v", bad, err)
		}
	}
}

func TestLoadPremiumPolicy(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	p := c.Premium
	if fmt.Sprint(p.FreeLimits) != "map[imagesPerUpload:4 memories:100 projects:3 storage:1GB]" ||
		fmt.Sprint(p.PremiumLimits) != "map[imagesPerUpload:4 memories:10000 projects:100 storage:100GB]" ||
		strings.Join(p.FreeFeatures, ",") != "basic_memories,messages,events,daily_question" ||
		strings.Join(p.PremiumFeatures, ",") != "unlimited_memories,hd_photos,custom_themes,advanced_stats" {
		t.Fatalf("defaults: %+v", p)
	}
	c, err = Load(env(map[string]string{"TANDEM_LIMITS_FREE": `{"projects": 1}`, "TANDEM_PREMIUM_FEATURES": " a , b.c "}))
	if err != nil || fmt.Sprint(c.Premium.FreeLimits) != "map[projects:1]" || strings.Join(c.Premium.PremiumFeatures, "|") != "a|b.c" {
		t.Fatalf("parsed: %+v %v", c.Premium, err)
	}
}

func TestLoadPushReceiptDelay(t *testing.T) {
	cases := []struct {
		value string
		want  time.Duration
		err   string // "" when accepted
	}{
		{"", 15 * time.Minute, ""},
		{"30m", 30 * time.Minute, ""},
		{"23h59m", 23*time.Hour + 59*time.Minute, ""},
		{"24h", 0, `TANDEM_PUSH_RECEIPT_DELAY: 24h0m0s is not shorter than 24h0m0s, after which Expo's receipts are gone`},
		{"0s", 0, `TANDEM_PUSH_RECEIPT_DELAY: "0s" is not a positive duration such as 30s`},
		{"-5m", 0, `TANDEM_PUSH_RECEIPT_DELAY: "-5m" is not a positive duration such as 30s`},
		{"15", 0, `TANDEM_PUSH_RECEIPT_DELAY: "15" is not a positive duration such as 30s`},
	}
	for _, tc := range cases {
		c, err := Load(env(map[string]string{"TANDEM_PUSH_RECEIPT_DELAY": tc.value}))
		switch {
		case tc.err == "" && (err != nil || c.PushReceiptDelay != tc.want):
			t.Errorf("%q: %v, %v; want %v", tc.value, c.PushReceiptDelay, err, tc.want)
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%q: error %v, want %s", tc.value, err, tc.err)
		}
	}
}

// TestLoadConsoleSecret: unset is "" (generated and stored at the start),
// a set secret needs 32 bytes, and a refused one is not repeated in the
// error (it may be nearly the real one).
func TestLoadConsoleSecret(t *testing.T) {
	long := strings.Repeat("s", 32)
	cases := []struct {
		name, value, want string
		ok                bool
	}{
		{name: "unset", value: "", want: "", ok: true},
		{name: "32 bytes", value: long, want: long, ok: true},
		{name: "31 bytes", value: long[:31]},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(env(map[string]string{"TANDEM_CONSOLE_SECRET": tc.value}))
			if tc.ok != (err == nil) || c.ConsoleSecret != tc.want {
				t.Fatalf("got %q, %v", c.ConsoleSecret, err)
			}
			if err != nil && (err.Error() != "TANDEM_CONSOLE_SECRET: has 31 bytes, fewer than 32 (e.g. openssl rand -base64 32)" ||
				strings.Contains(err.Error(), tc.value)) {
				t.Fatalf("error %q", err)
			}
		})
	}
}

// TestLoadConnectionCodeTTL: 7 days unless set; a value that is not a
// positive duration is one error line naming the variable.
func TestLoadConnectionCodeTTL(t *testing.T) {
	for value, want := range map[string]time.Duration{"": 7 * 24 * time.Hour, "72h": 72 * time.Hour, "30m": 30 * time.Minute} {
		c, err := Load(env(map[string]string{"TANDEM_CONNECTION_CODE_TTL": value}))
		if err != nil || c.ConnectionCodeTTL != want {
			t.Fatalf("%q: %v %v, want %v", value, c.ConnectionCodeTTL, err, want)
		}
	}
	for _, value := range []string{"7d", "0s", "-1h", "soon"} {
		_, err := Load(env(map[string]string{"TANDEM_CONNECTION_CODE_TTL": value}))
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "TANDEM_CONNECTION_CODE_TTL: ") {
			t.Fatalf("%q: %v", value, err)
		}
	}
}

// TestLoadMemoryBudgets: the password hashes and the image pixels in work at
// once (issue 27); a bad value is one line naming its variable.
func TestLoadMemoryBudgets(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil || c.HashSlots != max(2, runtime.GOMAXPROCS(0)) || c.ImageDecodePixels != 100_000_000 {
		t.Fatalf("defaults: slots %d, pixels %d, %v", c.HashSlots, c.ImageDecodePixels, err)
	}
	c, err = Load(env(map[string]string{"TANDEM_HASH_SLOTS": "3", "TANDEM_IMAGE_DECODE_PIXELS": " 48000000 "}))
	if err != nil || c.HashSlots != 3 || c.ImageDecodePixels != 48_000_000 {
		t.Fatalf("set: slots %d, pixels %d, %v", c.HashSlots, c.ImageDecodePixels, err)
	}
	for _, tc := range []struct{ name, value string }{
		{"TANDEM_HASH_SLOTS", "0"},
		{"TANDEM_HASH_SLOTS", "-2"},
		{"TANDEM_HASH_SLOTS", "four"},
		{"TANDEM_IMAGE_DECODE_PIXELS", "0"},
		{"TANDEM_IMAGE_DECODE_PIXELS", "100M"},
		{"TANDEM_IMAGE_DECODE_PIXELS", "1e8"},
	} {
		_, err := Load(env(map[string]string{tc.name: tc.value}))
		want := tc.name + `: "` + tc.value + `" is not a positive whole number`
		if err == nil || err.Error() != want {
			t.Errorf("%s=%s: got %v, want %s", tc.name, tc.value, err, want)
		}
	}
}

// TestLoadStreamRecheck: 30 s unless set; a value that is not a positive
// duration is one error line naming the variable.
func TestLoadStreamRecheck(t *testing.T) {
	for value, want := range map[string]time.Duration{"": 30 * time.Second, "5s": 5 * time.Second, "2m": 2 * time.Minute} {
		c, err := Load(env(map[string]string{"TANDEM_STREAM_RECHECK": value}))
		if err != nil || c.HTTP.Stream.Recheck != want {
			t.Fatalf("%q: %v %v, want %v", value, c.HTTP.Stream.Recheck, err, want)
		}
	}
	for _, value := range []string{"0s", "-1s", "30"} {
		_, err := Load(env(map[string]string{"TANDEM_STREAM_RECHECK": value}))
		if err == nil || err.Error() != `TANDEM_STREAM_RECHECK: "`+value+`" is not a positive duration such as 30s` {
			t.Fatalf("%q: %v", value, err)
		}
	}
}

// TestLoadPasskeys: each bad TANDEM_PASSKEYS, TANDEM_APPLE_APP_IDS and
// TANDEM_ANDROID_APPS value is one line naming it; good ones are parsed.
func TestLoadPasskeys(t *testing.T) {
	fp := "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
	for _, tc := range []struct {
		name string
		vars map[string]string
		err  string
	}{
		{"unset: off", map[string]string{}, ""},
		{"a web and an app origin", map[string]string{"TANDEM_PASSKEYS": "rp=example.com&name=Tandem&origin=https://example.com&origin=android:apk-key-hash:abc"}, ""},
		{"no rp", map[string]string{"TANDEM_PASSKEYS": "origin=https://example.com"}, "TANDEM_PASSKEYS: rp must be"},
		{"a URL as rp", map[string]string{"TANDEM_PASSKEYS": "rp=https://example.com&origin=https://example.com"}, "TANDEM_PASSKEYS: rp must be"},
		{"no origin", map[string]string{"TANDEM_PASSKEYS": "rp=example.com"}, "TANDEM_PASSKEYS: no origin"},
		{"an unknown key", map[string]string{"TANDEM_PASSKEYS": "rp=example.com&origin=https://example.com&timeout=5"}, "TANDEM_PASSKEYS: unknown key"},
		{"apple ids", map[string]string{"TANDEM_APPLE_APP_IDS": "ABCDE12345.app.tandem, ABCDE12345.app.tandem.beta"}, ""},
		{"an apple id without team", map[string]string{"TANDEM_APPLE_APP_IDS": "app.tandem"}, "TANDEM_APPLE_APP_IDS: \"app.tandem\""},
		{"android apps", map[string]string{"TANDEM_ANDROID_APPS": "package=app.tandem&sha256=" + fp + "&sha256=" + strings.ToLower(fp) + ",package=app.tandem.beta&sha256=" + fp}, ""},
		{"an android app without fingerprint", map[string]string{"TANDEM_ANDROID_APPS": "package=app.tandem"}, "TANDEM_ANDROID_APPS: \"package=app.tandem\""},
		{"a bad package", map[string]string{"TANDEM_ANDROID_APPS": "package=tandem&sha256=" + fp}, "TANDEM_ANDROID_APPS: \"tandem\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Load(env(tc.vars))
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.err != "" && (err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), tc.err)):
				t.Fatalf("want one line %q..., got %v", tc.err, err)
			case tc.name == "android apps":
				apps := cfg.HTTP.WellKnown.AndroidApps
				if len(apps) != 2 || apps[0].Package != "app.tandem" || len(apps[0].SHA256) != 2 || apps[0].SHA256[1] != fp {
					t.Fatalf("parsed %+v", apps)
				}
			case tc.name == "a web and an app origin":
				if cfg.Passkeys == nil || cfg.Passkeys.RPID != "example.com" || len(cfg.Passkeys.Origins) != 2 {
					t.Fatalf("parsed %+v", cfg.Passkeys)
				}
			}
		})
	}
}

func TestLoadSignIn(t *testing.T) {
	for value, want := range map[string]string{
		"apple?client=a,apple?client=b":  `TANDEM_SIGNIN: "apple" is not apple?client=ID or google?client=ID, or is listed twice`,
		"facebook?client=a":              `TANDEM_SIGNIN: "facebook" is not apple?client=ID or google?client=ID, or is listed twice`,
		"google?client=a&secret=b":       `TANDEM_SIGNIN: google has no parameter "secret"`,
		"google?client=a&jwks=ftp://x/y": `TANDEM_SIGNIN: google jwks="ftp://x/y" is not an http(s) URL`,
	} {
		_, err := Load(env(map[string]string{"TANDEM_SIGNIN": value, "TANDEM_ENV": "development"}))
		if err == nil || err.Error() != want {
			t.Errorf("%s: want %q, got %v", value, want, err)
		}
	}
	cfg, err := Load(env(map[string]string{"TANDEM_SIGNIN": "apple?client=a&client=b, google?client=g"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.SignIn) != 2 || cfg.SignIn[0].Name != "apple" || len(cfg.SignIn[0].Clients) != 2 ||
		cfg.SignIn[1].Name != "google" || cfg.SignIn[1].Clients[0] != "g" || cfg.SignIn[1].KeysURL != "" {
		t.Fatalf("%+v", cfg.SignIn)
	}
}

// TestLoadAppleTeamKey: Apple's team key in TANDEM_SIGNIN is all three of
// team, key and keyfile or none, each checked (the .p8 file read and
// parsed now), endpoint= is development's, and the key needs
// TANDEM_ENCRYPTION_KEY; each fault is one line naming the variable.
func TestLoadAppleTeamKey(t *testing.T) {
	_, keyfile := signintest.NewTeamKey(t)
	notPEM := filepath.Join(t.TempDir(), "not.p8")
	if err := os.WriteFile(notPEM, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	key1 := base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	key2 := base64.RawURLEncoding.EncodeToString([]byte("fedcba9876543210fedcba9876543210"))
	team := "apple?client=com.example.tandem&team=ABCDE12345&key=KEY1234567&keyfile=" + keyfile
	for _, tc := range []struct {
		name string
		vars map[string]string
		err  string // "" when accepted
	}{
		{"the team key with an encryption key", map[string]string{"TANDEM_SIGNIN": team, "TANDEM_ENCRYPTION_KEY": key1 + "," + key2}, ""},
		{"no team key needs no encryption key", map[string]string{"TANDEM_SIGNIN": "apple?client=a"}, ""},
		{"the team key without an encryption key", map[string]string{"TANDEM_SIGNIN": team},
			"TANDEM_ENCRYPTION_KEY: required with Apple's team key in TANDEM_SIGNIN: Apple's refresh tokens are kept " +
				"encrypted under it (openssl rand -base64 32; keep it out of the database and its backups)"},
		{"a short encryption key", map[string]string{"TANDEM_SIGNIN": team, "TANDEM_ENCRYPTION_KEY": "c2hvcnQ="},
			"TANDEM_ENCRYPTION_KEY: key 1 is not 32 bytes in base64 (openssl rand -base64 32)"},
		{"an encryption key listed twice", map[string]string{"TANDEM_SIGNIN": team, "TANDEM_ENCRYPTION_KEY": key1 + "," + key1},
			"TANDEM_ENCRYPTION_KEY: sealing: key 2 is listed twice"},
		{"a team without its key", map[string]string{"TANDEM_SIGNIN": "apple?client=a&team=ABCDE12345", "TANDEM_ENCRYPTION_KEY": key1},
			"TANDEM_SIGNIN: apple needs all of team=TEAMID, key=KEYID and keyfile=PATH (the key's .p8 file) for Apple's token revocation, or none"},
		{"a bad team id", map[string]string{"TANDEM_SIGNIN": strings.Replace(team, "ABCDE12345", "abc", 1), "TANDEM_ENCRYPTION_KEY": key1},
			`TANDEM_SIGNIN: apple team="abc" is not a team id (10 letters and digits, in Apple's Membership details)`},
		{"a bad key id", map[string]string{"TANDEM_SIGNIN": strings.Replace(team, "KEY1234567", "K-1", 1), "TANDEM_ENCRYPTION_KEY": key1},
			`TANDEM_SIGNIN: apple key="K-1" is not a key id (10 letters and digits, beside the key in Certificates, Identifiers & Profiles)`},
		{"a key file that is not there", map[string]string{"TANDEM_SIGNIN": strings.Replace(team, keyfile, "/nonexistent/AuthKey.p8", 1),
			"TANDEM_ENCRYPTION_KEY": key1}, "TANDEM_SIGNIN: apple keyfile=/nonexistent/AuthKey.p8: open /nonexistent/AuthKey.p8: no such file or directory"},
		{"a key file that is not a key", map[string]string{"TANDEM_SIGNIN": strings.Replace(team, keyfile, notPEM, 1), "TANDEM_ENCRYPTION_KEY": key1},
			"TANDEM_SIGNIN: apple keyfile=" + notPEM + ": no PEM block (Apple's .p8 key file is one)"},
		{"a replaced Apple endpoint in production", map[string]string{"TANDEM_SIGNIN": team + "&endpoint=http://127.0.0.1:1", "TANDEM_ENCRYPTION_KEY": key1},
			"TANDEM_SIGNIN: apple endpoint= replaces Apple's token and revoke endpoints: it needs TANDEM_ENV=development"},
		{"a replaced Apple endpoint in development", map[string]string{"TANDEM_SIGNIN": team + "&endpoint=http://127.0.0.1:1",
			"TANDEM_ENCRYPTION_KEY": key1, "TANDEM_ENV": "development"}, ""},
		{"an endpoint that is no URL", map[string]string{"TANDEM_SIGNIN": team + "&endpoint=ftp://x", "TANDEM_ENCRYPTION_KEY": key1,
			"TANDEM_ENV": "development"}, `TANDEM_SIGNIN: apple endpoint="ftp://x" is not an http(s) URL`},
		{"an endpoint without the team key", map[string]string{"TANDEM_SIGNIN": "apple?client=a&endpoint=http://127.0.0.1:1", "TANDEM_ENV": "development"},
			"TANDEM_SIGNIN: apple endpoint= needs the team key: team=TEAMID&key=KEYID&keyfile=PATH"},
		{"google has no team key", map[string]string{"TANDEM_SIGNIN": "google?client=g&team=ABCDE12345"},
			`TANDEM_SIGNIN: google has no parameter "team"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(env(tc.vars))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("want %q, got %v", tc.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.name != "the team key with an encryption key" {
				return
			}
			if p := c.SignIn[0]; p.Team == nil || p.Team.Team != "ABCDE12345" || p.Team.KeyID != "KEY1234567" || p.Team.Key == nil ||
				p.Team.BaseURL != "" || len(c.EncryptionKeys) != 2 || string(c.EncryptionKeys[1]) != "fedcba9876543210fedcba9876543210" {
				t.Fatalf("parsed %+v, keys %d", p.Team, len(c.EncryptionKeys))
			}
			if got := masked("TANDEM_ENCRYPTION_KEY", key1); got != "***" { // tandem config
				t.Fatalf("TANDEM_ENCRYPTION_KEY printed as %q", got)
			}
		})
	}
}

func TestPublicURLFollowsTheAddress(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{":8080": "http://localhost:8080", ":9090": "http://localhost:9090",
		"127.0.0.1:7000": "http://127.0.0.1:7000", "0.0.0.0:81": "http://localhost:81", "[::1]:8443": "http://[::1]:8443"} {
		c, err := Load(env(map[string]string{"TANDEM_ADDR": addr, "TANDEM_ENV": "development"}))
		if err != nil || c.HTTP.PublicURL != want {
			t.Errorf("TANDEM_ADDR=%s: public URL %q (%v), want %q", addr, c.HTTP.PublicURL, err, want)
		}
	}
	c, _ := Load(env(map[string]string{"TANDEM_ADDR": ":9090", "TANDEM_PUBLIC_URL": "https://api.example.com/", "TANDEM_ENV": "development"}))
	if c.HTTP.PublicURL != "https://api.example.com" {
		t.Errorf("a set public URL: %q", c.HTTP.PublicURL)
	}
}

// TestLoadDBPool: TANDEM_DB_POOL sizes the SQL store's pool, the dialect's
// default unless set; a bad value is one line naming it.
func TestLoadDBPool(t *testing.T) {
	for _, tc := range []struct {
		db, pool string
		want     int
	}{
		{"sqlite:/tmp/x.db", "", sqlstore.DefaultSQLitePool},
		{"mysql:root@tcp(127.0.0.1:3306)/t", "", sqlstore.DefaultMySQLPool},
		{"mysql:root@tcp(127.0.0.1:3306)/t", "32", 32},
		{"sqlite:/tmp/x.db", " 4 ", 4},
	} {
		c, err := Load(env(map[string]string{"TANDEM_DB": tc.db, "TANDEM_DB_POOL": tc.pool}))
		if err != nil || c.DB.Pool != tc.want {
			t.Errorf("%s with %q: pool %d, %v; want %d", tc.db, tc.pool, c.DB.Pool, err, tc.want)
		}
	}
	for _, v := range []string{"0", "-1", "many"} {
		_, err := Load(env(map[string]string{"TANDEM_DB": "mysql:root@tcp(127.0.0.1:3306)/t", "TANDEM_DB_POOL": v}))
		if want := `TANDEM_DB_POOL: "` + v + `" is not a positive whole number`; err == nil || err.Error() != want {
			t.Errorf("TANDEM_DB_POOL=%s: got %v, want %s", v, err, want)
		}
	}
}
