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
	// Team is Apple's team key (apple only), nil when not configured:
	// authorization codes are then ignored.
	Team *AppleKey
}

// tokenLife is how long after iat we take each provider's ID tokens:
// Google's live an hour; Apple documents no life, and ten minutes is
// ample for an app that sends the token as soon as it gets it. A token
// issued longer ago than that, plus iatSkew, was kept, not just issued,
// and is refused whatever its exp says.
var tokenLife = map[string]time.Duration{accounts.ProviderApple: 10 * time.Minute, accounts.ProviderGoogle: time.Hour}

// RetryAfter is what a sign-in the provider cannot answer (its keys or its
// token endpoint unreachable) tells the app to wait: a failed key fetch is
// tried again after retryGap, and a short outage is over by then.
const RetryAfter = 10 * time.Second

// iatSkew is how far our clock and the provider's may disagree: a token
// may say it was issued that much in the future, or that much before its
// life allows.
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
	AuthorizedParty string `json:"azp"`
	Nonce           string `json:"nonce"`
	Email           string `json:"email"`
	EmailVerified   any    `json:"email_verified"` // Apple sends "true", Google true
}

func errInvalid() *core.Error {
	return core.Unauthorized("invalid_token", "signin.iDTokenNotValid", "the ID token is not valid")
}

// Verify checks token as provider's ID token for one of its clients, bound
// to nonce (see nonceMatches). Any fault of the token is 401
// invalid_token; keys that cannot be fetched are 503 unavailable. The
// claim carries the token's hash and exp, for the caller to accept each
// token once.
func (v *Verifier) Verify(ctx context.Context, providerName, token, nonce string) (accounts.IdentityClaim, error) {
	p, ok := v.providers[providerName]
	if !ok {
		return accounts.IdentityClaim{}, errInvalid().Wrap(errors.New("provider not configured"))
	}
	c, err := v.parse(ctx, p, token)
	if err != nil {
		return accounts.IdentityClaim{}, err
	}
	if err := v.check(providerName, p, c, nonce); err != nil {
		return accounts.IdentityClaim{}, errInvalid().Wrap(err)
	}
	sum := sha256.Sum256([]byte(token))
	return accounts.IdentityClaim{Provider: providerName, Subject: c.Subject, Email: c.Email,
		EmailVerified: c.EmailVerified == true || c.EmailVerified == "true", Client: client(c),
		TokenHash: hex.EncodeToString(sum[:]), ExpiresAt: c.ExpiresAt.Time}, nil
}

// client is the client of ours the checked token was issued to: azp with
// several audiences (check made it ours), else its audience of ours.
func client(c claims) string {
	if len(c.Audience) > 1 {
		return c.AuthorizedParty
	}
	return c.Audience[0]
}

// parse checks the token's signature by p's keys, its algorithm and exp.
func (v *Verifier) parse(ctx context.Context, p provider, token string) (claims, error) {
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
		e := core.Unavailable("unavailable", "signin.signProviderKeysCannotFetched", "the sign-in provider's keys cannot be fetched; try again")
		e.RetryAfter = RetryAfter
		return c, e.Wrap(err)
	}
	if err != nil {
		return c, errInvalid().Wrap(err)
	}
	return c, nil
}

func (v *Verifier) check(name string, p provider, c claims, nonce string) error {
	if !slices.Contains(issuers[name], c.Issuer) {
		return errors.New("wrong issuer")
	}
	if !slices.ContainsFunc(c.Audience, func(a string) bool { return slices.Contains(p.clients, a) }) {
		return errors.New("wrong audience")
	}
	// A token for several audiences was issued to the one azp names
	// (OpenID Connect Core 3.1.3.7): if that is not ours, another of its
	// audiences is presenting it to us. With one audience azp may be
	// another client of ours (Google's Android client beside the web one).
	if len(c.Audience) > 1 && (c.AuthorizedParty == "" || !slices.Contains(p.clients, c.AuthorizedParty)) {
		return errors.New("several audiences and azp not ours")
	}
	if c.Subject == "" || len(c.Subject) > accounts.MaxSubject {
		return errors.New("no subject")
	}
	if err := v.checkIssuedAt(name, c.IssuedAt); err != nil {
		return err
	}
	if !nonceMatches(c.Nonce, nonce) {
		return errors.New("nonce mismatch")
	}
	return nil
}

// checkIssuedAt wants iat within the provider's token life before now,
// with iatSkew either side.
func (v *Verifier) checkIssuedAt(name string, iat *jwt.NumericDate) error {
	now := v.now()
	switch {
	case iat == nil:
		return errors.New("no iat")
	case iat.After(now.Add(iatSkew)):
		return errors.New("issued in the future")
	case iat.Before(now.Add(-tokenLife[name] - iatSkew)):
		return errors.New("issued longer ago than the provider's tokens live")
	}
	return nil
}

// nonceMatches binds a token and a request both ways: a token carrying a
// nonce only with the request's (else a token taken from another sign-in
// replays), a request sending one only with a token carrying it. Apple's
// native flow carries the hex SHA-256 of the nonce the app keeps.
func nonceMatches(claimed, sent string) bool {
	if claimed == "" || sent == "" {
		return claimed == sent
	}
	sum := sha256.Sum256([]byte(sent))
	return claimed == sent || claimed == hex.EncodeToString(sum[:])
}
