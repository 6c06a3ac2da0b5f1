package bootstrap

import (
	"strings"
	"testing"
	"time"

	"tandem/adapters/sqlstore"
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
