package bootstrap

import (
	"encoding/json"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"tandem/adapters/sealing"
	"tandem/adapters/signin"
	"tandem/adapters/sqlstore"
	"tandem/modules/accounts"
	"tandem/modules/notifications"
	"tandem/modules/premium"
)

// cacheTTL is a duration no longer than the 5 s a revoked token may still
// be accepted (docs/api.md).
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

// poolVar sizes a SQL store's connection pool (open and idle alike).
const poolVar = "TANDEM_DB_POOL"

// db parses TANDEM_DB: memory, sqlite:PATH or mysql:DSN (checked), and for
// SQL TANDEM_DB_POOL.
func (l *loader) db() DBConfig {
	const name = "TANDEM_DB"
	v := l.str(name, "sqlite:./data/tandem.db")
	kind, rest, _ := strings.Cut(v, ":")
	switch {
	case v == "memory":
		return DBConfig{Kind: DBMemory}
	case kind == "sqlite" && rest != "":
		return DBConfig{Kind: DBSQLite, DSN: rest, Pool: l.positive(poolVar, sqlstore.DefaultSQLitePool)}
	case kind == "mysql" && rest != "":
		if _, err := mysql.ParseDSN(rest); err != nil {
			l.fail(name, "bad MySQL DSN: %v", err)
		}
		return DBConfig{Kind: DBMySQL, DSN: rest, Pool: l.positive(poolVar, sqlstore.DefaultMySQLPool)}
	}
	l.fail(name, "%q is not memory, sqlite:PATH or mysql:DSN", v)
	return DBConfig{}
}

// blobs parses TANDEM_BLOBS: memory, file:DIR or s3://BUCKET?endpoint=...
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

// bus parses TANDEM_BUS and, for NATS, TANDEM_BUS_SECRET (required in
// production, at least busSecretMin characters).
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

// push parses TANDEM_PUSH: a comma list of providers, each at most once,
// log when empty.
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
		l.took(name, "log") // what `tandem config` shows: the default taken, not ""
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

const signInVar = "TANDEM_SIGNIN"

// signIn parses TANDEM_SIGNIN: a comma list of apple?client=ID[&client=ID]
// and google?client=ID[&client=ID], each provider once. jwks=URL replaces a
// provider's key URL, in development only (tests, local work): in
// production it would let whoever serves that URL sign in as anyone.
// Apple's entry may add its team key, all three of team=TEAMID&key=KEYID&
// keyfile=PATH (the .p8 file, read and checked now), which signs the client
// secret of Apple's code exchange and revocation; endpoint=URL replaces
// https://appleid.apple.com for those, in development only.
func (l *loader) signIn(development bool) []signin.Provider {
	v := strings.TrimSpace(l.str(signInVar, ""))
	if v == "" {
		return nil
	}
	var out []signin.Provider
	seen := map[string]bool{}
	for _, e := range strings.Split(v, ",") {
		name, query, _ := strings.Cut(strings.TrimSpace(e), "?")
		if (name != accounts.ProviderApple && name != accounts.ProviderGoogle) || seen[name] {
			l.fail(signInVar, "%q is not apple?client=ID or google?client=ID, or is listed twice", name)
			continue
		}
		seen[name] = true
		q, err := url.ParseQuery(query)
		if err != nil {
			l.fail(signInVar, "%s: %v", name, err)
			continue
		}
		p := signin.Provider{Name: name, KeysURL: q.Get("jwks")}
		for _, c := range q["client"] {
			if c = strings.TrimSpace(c); c != "" {
				p.Clients = append(p.Clients, c)
			}
		}
		if len(p.Clients) == 0 {
			l.fail(signInVar, "%s needs client=ID (the app's client id the tokens are issued for)", name)
		}
		for k := range q {
			if k != "client" && k != "jwks" && (name != accounts.ProviderApple || !slices.Contains(appleTeamParams, k)) {
				l.fail(signInVar, "%s has no parameter %q", name, k)
			}
		}
		if name == accounts.ProviderApple {
			p.Team = l.appleTeam(q, development)
		}
		if p.KeysURL != "" {
			if u, err := url.Parse(p.KeysURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				l.fail(signInVar, "%s jwks=%q is not an http(s) URL", name, p.KeysURL)
			}
			if !development {
				l.fail(signInVar, "%s jwks= replaces the provider's keys: it needs TANDEM_ENV=development", name)
			}
		}
		out = append(out, p)
	}
	return out
}

// appleTeamParams are the parameters of Apple's team key in TANDEM_SIGNIN.
var appleTeamParams = []string{"team", "key", "keyfile", "endpoint"}

// appleID is the form of Apple's team and key ids: 10 upper-case letters
// and digits.
var appleID = regexp.MustCompile(`^[A-Z0-9]{10}$`)

// appleTeam reads Apple's team key from its TANDEM_SIGNIN entry: nil when
// none of team, key and keyfile is given.
func (l *loader) appleTeam(q url.Values, development bool) *signin.AppleKey {
	team, keyID, file, endpoint := q.Get("team"), q.Get("key"), q.Get("keyfile"), q.Get("endpoint")
	if team == "" && keyID == "" && file == "" {
		if endpoint != "" {
			l.fail(signInVar, "apple endpoint= needs the team key: team=TEAMID&key=KEYID&keyfile=PATH")
		}
		return nil
	}
	if team == "" || keyID == "" || file == "" {
		l.fail(signInVar, "apple needs all of team=TEAMID, key=KEYID and keyfile=PATH (the key's .p8 file) for Apple's token revocation, or none")
		return nil
	}
	k := &signin.AppleKey{Team: team, KeyID: keyID, BaseURL: endpoint}
	if !appleID.MatchString(team) {
		l.fail(signInVar, "apple team=%q is not a team id (10 letters and digits, in Apple's Membership details)", team)
	}
	if !appleID.MatchString(keyID) {
		l.fail(signInVar, "apple key=%q is not a key id (10 letters and digits, beside the key in Certificates, Identifiers & Profiles)", keyID)
	}
	b, err := os.ReadFile(file)
	if err == nil {
		k.Key, err = signin.ParseAppleKey(b)
	}
	if err != nil {
		l.fail(signInVar, "apple keyfile=%s: %v", file, err)
	}
	if endpoint != "" {
		if u, err := url.Parse(endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			l.fail(signInVar, "apple endpoint=%q is not an http(s) URL", endpoint)
		}
		if !development {
			l.fail(signInVar, "apple endpoint= replaces Apple's token and revoke endpoints: it needs TANDEM_ENV=development")
		}
	}
	return k
}

const encryptionKeyVar = "TANDEM_ENCRYPTION_KEY"

// encryptionKeys reads TANDEM_ENCRYPTION_KEY: a comma list of 32-byte
// keys in base64, the sealing one first. It is required when Apple's team
// key is configured (Apple's refresh tokens are kept sealed under it),
// and never repeated in an error.
func (l *loader) encryptionKeys(providers []signin.Provider) [][]byte {
	v := strings.TrimSpace(l.getenv(encryptionKeyVar))
	needed := slices.ContainsFunc(providers, func(p signin.Provider) bool { return p.Team != nil })
	if v == "" {
		if needed {
			l.fail(encryptionKeyVar, "required with Apple's team key in TANDEM_SIGNIN: Apple's refresh tokens are kept "+
				"encrypted under it (openssl rand -base64 32; keep it out of the database and its backups)")
		}
		return nil
	}
	keys, err := sealing.ParseKeys(v)
	if err == nil {
		_, err = sealing.New(keys...) // a key listed twice
	}
	if err != nil {
		l.fail(encryptionKeyVar, "%v", err)
		return nil
	}
	return keys
}
