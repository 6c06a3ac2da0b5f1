package bootstrap

import (
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/adapters/purchases"
	"tandem/adapters/purchases/appstore"
	"tandem/adapters/purchases/play"
	"tandem/adapters/telemetry"
	"tandem/modules/premium"
)

// PurchasesConfig is TANDEM_PURCHASES: which verifiers vouch for premium.
type PurchasesConfig struct {
	Trust    bool
	AppStore *AppStoreConfig
	Play     *PlayConfig
}

// AppStoreConfig is appstore?bundle=ID[&env=Production|Sandbox][&plan.PRODUCT=PLAN...][&root=FILE].
type AppStoreConfig struct {
	Bundle   string
	Env      string
	Plans    map[string]string
	RootFile string // a PEM root instead of Apple's: development only (tests)
}

// PlayConfig is play?package=NAME&credentials=FILE[&endpoint=URL][&plan.PRODUCT=PLAN...]
// [&secret=S][&audience=A&email=E[&certs=URL]].
type PlayConfig struct {
	Package         string
	CredentialsFile string
	Endpoint        string
	Plans           map[string]string
	Secret          string // the push URL's ?token=
	Audience        string // or a Google-signed bearer token for this audience
	Email           string // from this service account (required with Audience)
	CertsURL        string
}

const purchasesVar = "TANDEM_PURCHASES"

// purchasesConfig parses TANDEM_PURCHASES; trust and a replaced Apple root
// need TANDEM_ENV=development, where trust is also the default.
func (l *loader) purchasesConfig(development bool) PurchasesConfig {
	def := ""
	if development {
		def = "trust"
	}
	var c PurchasesConfig
	entries := strings.Split(l.str(purchasesVar, def), ",")
	for _, e := range entries {
		e = strings.TrimSpace(e)
		kind, query, _ := strings.Cut(e, "?")
		q, err := url.ParseQuery(query)
		if err != nil {
			l.fail(purchasesVar, "%q: %v", kind, err)
			continue
		}
		switch {
		case kind == "trust" && query == "" && !c.Trust:
			c.Trust = true
		case kind == "appstore" && c.AppStore == nil:
			c.AppStore = l.appStoreConfig(q)
		case kind == "play" && c.Play == nil:
			c.Play = l.playConfig(q)
		case kind == "" && len(entries) == 1:
			// unset in production: serve refuses to start (purchaseVerifier),
			// migrate, backup and restore need no verifier
		default:
			l.fail(purchasesVar, "%q is not trust, appstore?... or play?..., or is listed twice", kind)
		}
	}
	if c.Trust && !development {
		l.fail(purchasesVar, "trust lets any client grant itself premium: it needs TANDEM_ENV=development")
	}
	if c.AppStore != nil && c.AppStore.RootFile != "" && !development {
		l.fail(purchasesVar, "appstore root= replaces Apple's root certificate: it needs TANDEM_ENV=development")
	}
	return c
}

func (l *loader) appStoreConfig(q url.Values) *AppStoreConfig {
	c := &AppStoreConfig{Bundle: q.Get("bundle"), Env: q.Get("env"), Plans: plans(q), RootFile: q.Get("root")}
	if c.Env == "" {
		c.Env = "Production"
	}
	if c.Bundle == "" {
		l.fail(purchasesVar, "appstore needs bundle=YOUR.BUNDLE.ID")
	}
	if c.Env != "Production" && c.Env != "Sandbox" {
		l.fail(purchasesVar, "appstore env=%q is not Production or Sandbox", c.Env)
	}
	l.unknownParams(q, "appstore", "bundle", "env", "root")
	return c
}

func (l *loader) playConfig(q url.Values) *PlayConfig {
	c := &PlayConfig{Package: q.Get("package"), CredentialsFile: q.Get("credentials"), Endpoint: q.Get("endpoint"),
		Plans: plans(q), Secret: q.Get("secret"), Audience: q.Get("audience"), Email: q.Get("email"),
		CertsURL: q.Get("certs")}
	if c.Package == "" || c.CredentialsFile == "" {
		l.fail(purchasesVar, "play needs package=NAME and credentials=FILE (a service account key)")
	}
	if c.Secret == "" && c.Audience == "" {
		l.fail(purchasesVar, "play needs secret=S (the push URL's ?token=) or audience=A (Google-signed push tokens) for its webhook")
	}
	if c.Audience != "" && c.Email == "" {
		// any Google service account can have Pub/Sub sign a token for any
		// audience: only the e-mail says it is the push subscription's
		l.fail(purchasesVar, "play audience= needs email=E, the service account of the Pub/Sub push subscription")
	}
	l.unknownParams(q, "play", "package", "credentials", "endpoint", "secret", "audience", "email", "certs")
	return c
}

// plans reads plan.PRODUCT=PLAN parameters; none: each product is its own plan.
func plans(q url.Values) map[string]string {
	out := map[string]string{}
	for k, v := range q {
		if product, ok := strings.CutPrefix(k, "plan."); ok && product != "" && len(v) > 0 {
			out[product] = v[0]
		}
	}
	return out
}

func (l *loader) unknownParams(q url.Values, kind string, known ...string) {
	for k := range q {
		if !strings.HasPrefix(k, "plan.") && !slices.Contains(known, k) {
			l.fail(purchasesVar, "%s has no parameter %q", kind, k)
		}
	}
}

// requireOne refuses to serve with no verifier: production's default.
func (c PurchasesConfig) requireOne() error {
	if !c.Trust && c.AppStore == nil && c.Play == nil {
		return fmt.Errorf("%s: list appstore?bundle=ID and/or play?package=NAME&credentials=FILE&secret=S "+
			"(trust, which accepts what clients send, needs TANDEM_ENV=development)", purchasesVar)
	}
	return nil
}

// trustWarning is logged at every start with TANDEM_PURCHASES=trust.
const trustWarning = "purchases are not verified (TANDEM_PURCHASES=trust): any client can grant itself premium; use it for development only"

// purchaseVerifier binds premium.PurchaseVerifier and NotificationReader
// to one purchases.Stores.
// With none configured, premium writes are refused; serve does not start
// that way (requireOne), but migrate, backup and the admin commands may.
func purchaseVerifier(c PurchasesConfig) fx.Option {
	// The stores are built here, so a bad setting fails before the app is;
	// their transport is traced once the app's tracing is known.
	transport := &laterTransport{}
	stores, err := newStores(c, transport)
	if err != nil {
		return fx.Error(fmt.Errorf("%s: %w", purchasesVar, err))
	}
	return fx.Options(
		fx.Invoke(func(t *telemetry.Tracing) { transport.set(t.Transport(nil, "play")) }),
		fx.Supply(fx.Annotate(stores, fx.As(new(premium.PurchaseVerifier)), fx.As(new(premium.NotificationReader)))),
		fx.Invoke(func(lc fx.Lifecycle, log *zap.Logger) {
			if c.Trust {
				lc.Append(fx.StartHook(func() { log.Warn(trustWarning, zap.String("variable", purchasesVar)) }))
			}
		}),
	)
}

func newStores(c PurchasesConfig, t http.RoundTripper) (*purchases.Stores, error) {
	s := &purchases.Stores{Trust: c.Trust}
	if a := c.AppStore; a != nil {
		cfg := appstore.Config{BundleID: a.Bundle, Environment: a.Env, Plans: a.Plans}
		if a.RootFile != "" {
			roots, err := readRoots(a.RootFile)
			if err != nil {
				return nil, err
			}
			cfg.Roots = roots
		}
		v, err := appstore.New(cfg)
		if err != nil {
			return nil, fmt.Errorf("appstore: %w", err)
		}
		s.AppStore = v
	}
	if p := c.Play; p != nil {
		creds, err := os.ReadFile(p.CredentialsFile)
		if err != nil {
			return nil, fmt.Errorf("play credentials: %w", err)
		}
		v, err := play.New(play.Config{Client: &http.Client{Transport: t}, Package: p.Package, Credentials: creds, Endpoint: p.Endpoint, Plans: p.Plans,
			PushSecret: p.Secret, PushAudience: p.Audience, PushEmail: p.Email, CertsURL: p.CertsURL})
		if err != nil {
			return nil, err // names play already
		}
		s.Play = v
	}
	return s, nil
}

func readRoots(file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("appstore root: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("appstore root: %s holds no PEM certificate", file)
	}
	return pool, nil
}
