// Package play verifies Google Play subscriptions with the Google Play
// Developer API and reads Play's real-time developer notifications (Pub/Sub
// pushes). Play signs nothing the app holds: a purchase token is only a
// handle, so every statement is read back from the API with the app's
// service account.
package play

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"golang.org/x/oauth2/jwt"

	"tandem/modules/premium"
)

var _ premium.PurchaseVerifier = (*Verifier)(nil)

// Scope is the OAuth scope of the Google Play Developer API.
const Scope = "https://www.googleapis.com/auth/androidpublisher"

const (
	DefaultEndpoint = "https://androidpublisher.googleapis.com"
	DefaultCertsURL = "https://www.googleapis.com/oauth2/v3/certs"
	DefaultTimeout  = 10 * time.Second
)

// Config configures a Verifier.
type Config struct {
	Package     string            // the app's package name, required
	Credentials []byte            // the service account's JSON key file
	Endpoint    string            // default DefaultEndpoint
	Plans       map[string]string // productId -> plan; empty: the plan is the productId, else unknown products are refused
	// The webhook accepts a push that carries PushSecret as its URL's token
	// parameter, or a Google-signed OIDC token whose aud is PushAudience
	// and whose verified email is PushEmail (required with PushAudience:
	// any Google service account can get a token for any audience). With
	// neither, every push is refused.
	PushSecret   string
	PushAudience string
	PushEmail    string
	CertsURL     string // the OIDC keys (JWKS), default DefaultCertsURL
	// Timeout bounds each store call (a token exchange and a read count as
	// one; an acknowledgement is a second). Default DefaultTimeout.
	Timeout time.Duration
	Client  *http.Client     // default: a plain client; calls are bounded by Timeout either way
	Clock   func() time.Time // default time.Now: SignedAt and the OIDC expiry check
}

// Verifier is the Google Play premium.PurchaseVerifier and notification reader.
type Verifier struct {
	pkg      string
	endpoint string
	plans    map[string]string
	secret   string
	audience string
	email    string
	timeout  time.Duration
	client   *http.Client
	now      func() time.Time

	jwt     *jwt.Config
	tokenMu sync.Mutex // one token exchange at a time: the others reuse its token
	token   *oauth2.Token

	keys *keySet
}

// New checks cfg and parses the service account key, so that a bad key
// fails at start-up rather than on the first purchase.
func New(cfg Config) (*Verifier, error) {
	if cfg.Package == "" {
		return nil, errors.New("play: the package name is required")
	}
	jc, err := credentials(cfg.Credentials)
	if err != nil {
		return nil, err
	}
	if cfg.PushAudience != "" && cfg.PushEmail == "" {
		return nil, errors.New("play: a push audience needs the push service account's e-mail")
	}
	for product, plan := range cfg.Plans {
		if plan == "" {
			return nil, fmt.Errorf("play: product %q has an empty plan", product)
		}
	}
	endpoint, err := baseURL(cfg.Endpoint, DefaultEndpoint)
	if err != nil {
		return nil, fmt.Errorf("play: endpoint: %w", err)
	}
	certs, err := baseURL(cfg.CertsURL, DefaultCertsURL)
	if err != nil {
		return nil, fmt.Errorf("play: certs URL: %w", err)
	}
	v := &Verifier{pkg: cfg.Package, endpoint: endpoint, plans: maps.Clone(cfg.Plans), secret: cfg.PushSecret,
		audience: cfg.PushAudience, email: cfg.PushEmail, timeout: cfg.Timeout, client: cfg.Client,
		now: cfg.Clock, jwt: jc}
	if v.timeout <= 0 {
		v.timeout = DefaultTimeout
	}
	if v.client == nil {
		v.client = &http.Client{}
	}
	if v.now == nil {
		v.now = time.Now
	}
	v.keys = &keySet{url: certs, get: v.fetch}
	return v, nil
}

// credentials reads a service account key file. google.JWTConfigFromJSON
// checks the type and takes token_uri from the file; the key itself is
// parsed here because oauth2 only parses it at the first exchange.
func credentials(raw []byte) (*jwt.Config, error) {
	jc, err := google.JWTConfigFromJSON(raw, Scope)
	if err != nil {
		return nil, fmt.Errorf("play: credentials: %w", err)
	}
	if jc.Email == "" {
		return nil, errors.New("play: credentials: client_email is missing")
	}
	if _, err := parseRSAKey(jc.PrivateKey); err != nil {
		return nil, fmt.Errorf("play: credentials: private_key: %w", err)
	}
	return jc, nil
}

// parseRSAKey accepts what oauth2 accepts: PKCS #8 or PKCS #1, in PEM.
func parseRSAKey(pemKey []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(pemKey)
	if block == nil {
		return nil, errors.New("not PEM")
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, errors.New("not an RSA key")
	}
	return rk, nil
}

// baseURL is raw (or def) without a trailing slash, checked to be absolute.
func baseURL(raw, def string) (string, error) {
	if raw == "" {
		raw = def
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("%q is not an absolute URL", raw)
	}
	return strings.TrimRight(raw, "/"), nil
}
