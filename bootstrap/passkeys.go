package bootstrap

import (
	"context"
	"net/url"
	"regexp"
	"strings"

	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/webauthn"
	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/passkeys"
)

// passkeysConfig parses TANDEM_PASSKEYS:
// rp=example.com&name=Tandem&origin=https://example.com&origin=android:apk-key-hash:...
// (origin repeats; name is optional). Unset: nil, passkeys off.
func (l *loader) passkeysConfig() *webauthn.Config {
	const name = "TANDEM_PASSKEYS"
	v := strings.TrimSpace(l.getenv(name))
	if v == "" {
		return nil
	}
	q, err := url.ParseQuery(v)
	if err != nil {
		l.fail(name, "not rp=DOMAIN&origin=URL...: %v", err)
		return nil
	}
	for k := range q {
		if k != "rp" && k != "name" && k != "origin" {
			l.fail(name, "unknown key %q (rp, name, origin)", k)
			return nil
		}
	}
	cfg := webauthn.Config{RPID: q.Get("rp"), DisplayName: q.Get("name"), Origins: q["origin"]}
	switch {
	case cfg.RPID == "" || strings.ContainsAny(cfg.RPID, "/:"):
		l.fail(name, "rp must be the site's domain (rp=example.com), got %q", cfg.RPID)
		return nil
	case len(cfg.Origins) == 0:
		l.fail(name, "no origin (origin=https://%s, repeated for each app)", cfg.RPID)
		return nil
	}
	if _, err := webauthn.New(cfg); err != nil {
		l.fail(name, "%s", strings.ReplaceAll(err.Error(), "\n", "; "))
		return nil
	}
	return &cfg
}

var appleAppID = regexp.MustCompile(`^[A-Z0-9]{10}\.[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$`)

// appleAppIDs parses TANDEM_APPLE_APP_IDS: TEAMID.bundle.id, comma separated.
func (l *loader) appleAppIDs() []string {
	const name = "TANDEM_APPLE_APP_IDS"
	ids := l.list(name)
	for _, id := range ids {
		if !appleAppID.MatchString(id) {
			l.fail(name, "%q is not TEAMID.bundle.id (a 10-character team id, a dot, the bundle id)", id)
			return nil
		}
	}
	return ids
}

var (
	androidPackage     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$`)
	androidFingerprint = regexp.MustCompile(`^[0-9A-F]{2}(:[0-9A-F]{2}){31}$`)
)

// androidApps parses TANDEM_ANDROID_APPS: package=NAME&sha256=FINGERPRINT
// (sha256 repeats for each signing certificate), comma separated.
func (l *loader) androidApps() []httpapi.AndroidApp {
	const name = "TANDEM_ANDROID_APPS"
	var out []httpapi.AndroidApp
	for _, item := range l.list(name) {
		q, err := url.ParseQuery(item)
		if err != nil || len(q) != 2 || len(q["package"]) != 1 || len(q["sha256"]) == 0 {
			l.fail(name, "%q is not package=NAME&sha256=FINGERPRINT", item)
			return nil
		}
		app := httpapi.AndroidApp{Package: q.Get("package")}
		if !androidPackage.MatchString(app.Package) {
			l.fail(name, "%q is not an Android package name", app.Package)
			return nil
		}
		for _, fp := range q["sha256"] {
			fp = strings.ToUpper(fp)
			if !androidFingerprint.MatchString(fp) {
				l.fail(name, "%q is not a SHA-256 certificate fingerprint (32 bytes as AA:BB:...)", fp)
				return nil
			}
			app.SHA256 = append(app.SHA256, fp)
		}
		out = append(out, app)
	}
	return out
}

// relyingParty binds passkeys.Ceremonies: the WebAuthn relying party of
// TANDEM_PASSKEYS, or nil (passkeys off: 404 passkeys_disabled).
func relyingParty(cfg *webauthn.Config) fx.Option {
	if cfg == nil {
		return fx.Provide(func() passkeys.Ceremonies { return nil })
	}
	return fx.Provide(func() (passkeys.Ceremonies, error) { return webauthn.New(*cfg) })
}

// passkeyAccounts is passkeys.Accounts on the accounts module.
type passkeyAccounts struct{ a *accounts.Service }

func (p passkeyAccounts) Holder(ctx context.Context, userID string) (passkeys.Holder, error) {
	a, err := p.a.Profile(ctx, userID)
	if err != nil {
		return passkeys.Holder{}, err
	}
	h := passkeys.Holder{UserID: a.ID, Name: a.Email, DisplayName: a.DisplayName}
	if h.DisplayName == "" {
		h.DisplayName = a.Email
	}
	return h, nil
}

func (p passkeyAccounts) RemovePasskey(ctx context.Context, userID, id string) error {
	return p.a.RemovePasskey(ctx, userID, id)
}

func (p passkeyAccounts) PasskeyAdded(ctx context.Context, userID string) error {
	return p.a.WayInAdded(ctx, userID, accounts.MethodPasskey)
}

func (p passkeyAccounts) FirstPasskeyChanges(ctx context.Context, userID string) ([]core.Change, error) {
	return p.a.FirstPasskeyChanges(ctx, userID)
}

func (p passkeyAccounts) StartSession(ctx context.Context, userID string, cl passkeys.Client) (string, error) {
	return p.a.StartSession(ctx, userID, accounts.Client{IP: cl.IP, UserAgent: cl.UserAgent})
}
