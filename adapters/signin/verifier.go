package signin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"tandem/core"
	"tandem/modules/accounts"
)

// The providers' published key sets and issuers.
const (
	AppleKeys  = "https://appleid.apple.com/auth/keys"
	GoogleKeys = "https://www.googleapis.com/oauth2/v3/certs"
)

var issuers = map[string][]string{
	accounts.ProviderApple:  {"https://appleid.apple.com"},
	accounts.ProviderGoogle: {"https://accounts.google.com", "accounts.google.com"},
}

// DefaultKeys is each provider's key URL.
var DefaultKeys = map[string]string{accounts.ProviderApple: AppleKeys, accounts.ProviderGoogle: GoogleKeys}

// Provider is one configured provider: the audiences (client ids) its
// tokens must name, and where its keys are.
type Provider struct {
	Name    string   // accounts.ProviderApple or accounts.ProviderGoogle
	Clients []string // aud must be one of them
	KeysURL string   // "" for the provider's own
}

// iatSkew is how far in the future a token may say it was issued.
const iatSkew = time.Minute

var _ accounts.IDTokenVerifier = (*Verifier)(nil)

// Verifier checks ID tokens of the configured providers.
type Verifier struct {
	providers map[string]provider
	now       func() time.Time
}

type provider struct {
	clients []string
	keys    *KeySet
}

// NewVerifier verifies the tokens of ps, fetching keys with client.
func NewVerifier(ps []Provider, client *http.Client, now func() time.Time) *Verifier {
	v := &Verifier{providers: map[string]provider{}, now: now}
	for _, p := range ps {
		u := p.KeysURL
		if u == "" {
			u = DefaultKeys[p.Name]
		}
		v.providers[p.Name] = provider{clients: p.Clients, keys: NewKeySet(u, client, now)}
	}
	return v
}

type claims struct {
	jwt.RegisteredClaims
	Nonce         string `json:"nonce"`
	Email         string `json:"email"`
	EmailVerified any    `json:"email_verified"` // Apple sends "true", Google true
}

func errInvalid() *core.Error {
	return core.Unauthorized("invalid_token", "the ID token is not valid")
}

// Verify checks token as provider's ID token for one of its clients, and
// nonce when the request gave one. Any fault of the token is 401
// invalid_token; keys that cannot be fetched are 503 unavailable.
func (v *Verifier) Verify(ctx context.Context, providerName, token, nonce string) (accounts.IdentityClaim, error) {
	p, ok := v.providers[providerName]
	if !ok {
		return accounts.IdentityClaim{}, errInvalid().Wrap(errors.New("provider not configured"))
	}
	var c claims
	parser := jwt.NewParser(jwt.WithValidMethods([]string{"RS256"}), jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(v.now))
	_, err := parser.ParseWithClaims(token, &c, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		if kid == "" {
			return nil, errUnknownKey
		}
		return p.keys.Key(ctx, kid)
	})
	if errors.Is(err, errKeysUnavailable) {
		return accounts.IdentityClaim{}, core.Unavailable("unavailable", "the sign-in provider's keys cannot be fetched; try again").Wrap(err)
	}
	if err != nil {
		return accounts.IdentityClaim{}, errInvalid().Wrap(err)
	}
	if err := v.check(providerName, p, c, nonce); err != nil {
		return accounts.IdentityClaim{}, errInvalid().Wrap(err)
	}
	return accounts.IdentityClaim{Provider: providerName, Subject: c.Subject, Email: c.Email,
		EmailVerified: c.EmailVerified == true || c.EmailVerified == "true"}, nil
}

func (v *Verifier) check(name string, p provider, c claims, nonce string) error {
	if !slices.Contains(issuers[name], c.Issuer) {
		return errors.New("wrong issuer")
	}
	if !slices.ContainsFunc(c.Audience, func(a string) bool { return slices.Contains(p.clients, a) }) {
		return errors.New("wrong audience")
	}
	if c.Subject == "" || len(c.Subject) > accounts.MaxSubject {
		return errors.New("no subject")
	}
	if c.IssuedAt != nil && c.IssuedAt.After(v.now().Add(iatSkew)) {
		return errors.New("issued in the future")
	}
	if nonce != "" {
		sum := sha256.Sum256([]byte(nonce))
		if c.Nonce != nonce && c.Nonce != hex.EncodeToString(sum[:]) {
			return errors.New("nonce mismatch")
		}
	}
	return nil
}
