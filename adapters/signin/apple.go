package signin

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"tandem/core"
	"tandem/modules/accounts"
)

// AppleAPI is the base of Apple's token and revoke endpoints.
const AppleAPI = "https://appleid.apple.com"

const (
	// secretLife is how long a client secret is valid: Apple takes up to
	// six months; each call signs its own, so minutes are plenty.
	secretLife = 5 * time.Minute
	// appleTimeout bounds one call to Apple: a sign-in waits on it.
	appleTimeout    = 10 * time.Second
	maxAppleAnswer  = 64 << 10
	appleAudience   = "https://appleid.apple.com"
	appleTokenPath  = "/auth/token"
	appleRevokePath = "/auth/revoke"
)

// AppleKey is the team's Sign in with Apple key, which signs the client
// secret of every call to Apple's token and revoke endpoints.
type AppleKey struct {
	Team  string            // the 10-character team id (the secret's iss)
	KeyID string            // the key's 10-character id (the secret's kid)
	Key   *ecdsa.PrivateKey // P-256, from the key's .p8 file
	// BaseURL replaces AppleAPI: development only (tests, local work).
	BaseURL string
}

// ParseAppleKey reads the .p8 file Apple hands out for a key: a PEM
// PKCS#8 P-256 private key.
func ParseAppleKey(b []byte) (*ecdsa.PrivateKey, error) {
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, errors.New("no PEM block (Apple's .p8 key file is one)")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("not a PKCS#8 private key: %w", err)
	}
	ec, ok := k.(*ecdsa.PrivateKey)
	if !ok || ec.Curve != elliptic.P256() {
		return nil, errors.New("not a P-256 (ES256) key")
	}
	return ec, nil
}

var _ accounts.ProviderGrants = (*Apple)(nil)

// Apple redeems Sign in with Apple's authorization codes and revokes the
// refresh tokens they yield.
type Apple struct {
	key    AppleKey
	base   string
	client *http.Client
	now    func() time.Time
}

// NewApple calls Apple (or k.BaseURL) with client.
func NewApple(k AppleKey, client *http.Client, now func() time.Time) *Apple {
	base := strings.TrimRight(k.BaseURL, "/")
	if base == "" {
		base = AppleAPI
	}
	return &Apple{key: k, base: base, client: client, now: now}
}

// ClientSecret is the JWT Apple takes as the client secret of client:
// ES256 by the team key, kid its id, iss the team, sub the client, aud
// Apple, valid secretLife from now.
func (a *Apple) ClientSecret(client string) (string, error) {
	now := a.now()
	t := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.RegisteredClaims{
		Issuer: a.key.Team, Subject: client, Audience: jwt.ClaimStrings{appleAudience},
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(secretLife)),
	})
	t.Header["kid"] = a.key.KeyID
	return t.SignedString(a.key.Key)
}

// errAppleDown is a call Apple did not answer, or answered 5xx or 429: 503
// with Retry-After, the sign-in may be sent again.
func errAppleDown(cause error) error {
	e := core.Unavailable("unavailable", "signin.appleCannotReachedFinishSigning", "Apple cannot be reached to finish signing in; try again in a moment")
	e.RetryAfter = RetryAfter
	return e.Wrap(cause)
}

// appleError is Apple's error answer.
type appleError struct {
	Error string `json:"error"`
}

// post sends form to path with client's secret; it returns the answer's
// status and body (read up to maxAppleAnswer), or errAppleDown when Apple
// does not answer or answers 5xx or 429.
func (a *Apple) post(ctx context.Context, path, client string, form url.Values) (int, []byte, error) {
	secret, err := a.ClientSecret(client)
	if err != nil {
		return 0, nil, core.Internal(fmt.Errorf("signin: sign Apple's client secret: %w", err))
	}
	form.Set("client_id", client)
	form.Set("client_secret", secret)
	ctx, cancel := context.WithTimeout(ctx, appleTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		return 0, nil, core.Internal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := a.client.Do(req)
	if err != nil {
		return 0, nil, errAppleDown(fmt.Errorf("POST %s: %w", path, err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAppleAnswer))
	if err != nil {
		return 0, nil, errAppleDown(fmt.Errorf("POST %s: %w", path, err))
	}
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
		return 0, nil, errAppleDown(fmt.Errorf("POST %s: %s", path, resp.Status))
	}
	return resp.StatusCode, body, nil
}

// refused reads Apple's error code of a 4xx answer.
func refused(body []byte) string {
	var e appleError
	_ = json.Unmarshal(body, &e)
	return e.Error
}

// Exchange redeems code at Apple's token endpoint (grant_type
// authorization_code). invalid_grant (a code used, expired or not issued
// to client) is accounts.ErrAuthorizationCode; any other refusal names
// our client or our key, a configuration fault: internal, with Apple's
// error in the log. The ID token of the answer came from Apple over TLS,
// which stands for its signature (OpenID Connect Core 3.1.3.7); its iss,
// aud and sub are checked.
func (a *Apple) Exchange(ctx context.Context, provider, client, code string) (accounts.Grant, error) {
	if provider != accounts.ProviderApple {
		return accounts.Grant{}, core.Internal(fmt.Errorf("signin: no code exchange for %s", provider))
	}
	status, body, err := a.post(ctx, appleTokenPath, client, url.Values{"grant_type": {"authorization_code"}, "code": {code}})
	if err != nil {
		return accounts.Grant{}, err
	}
	if status != http.StatusOK {
		if e := refused(body); status == http.StatusBadRequest && e == "invalid_grant" {
			return accounts.Grant{}, core.As(accounts.ErrAuthorizationCode()).Wrap(errors.New("apple: invalid_grant"))
		}
		return accounts.Grant{}, core.Internal(fmt.Errorf("apple token endpoint: %d %q", status, refused(body)))
	}
	var ans struct {
		RefreshToken string `json:"refresh_token"`
		IDToken      string `json:"id_token"`
	}
	if err := json.Unmarshal(body, &ans); err != nil || ans.RefreshToken == "" || ans.IDToken == "" {
		return accounts.Grant{}, core.Internal(errors.New("apple token endpoint: an answer without refresh_token and id_token"))
	}
	var c jwt.RegisteredClaims
	if _, _, err := jwt.NewParser().ParseUnverified(ans.IDToken, &c); err != nil {
		return accounts.Grant{}, core.Internal(fmt.Errorf("apple token endpoint: id_token: %w", err))
	}
	if !slices.Contains(issuers[accounts.ProviderApple], c.Issuer) || !slices.Contains(c.Audience, client) ||
		c.Subject == "" || len(c.Subject) > accounts.MaxSubject {
		return accounts.Grant{}, core.Internal(errors.New("apple token endpoint: the id_token is not Apple's for this client"))
	}
	return accounts.Grant{RefreshToken: ans.RefreshToken, Subject: c.Subject}, nil
}

// Revoke revokes a refresh token at Apple's revoke endpoint
// (token_type_hint refresh_token), which ends the user's authorization of
// the app. invalid_grant or unsupported_token_type: the token is dead
// already (accounts.ErrGrantGone, not tried again); any other refusal is
// internal and tried again (a key being fixed).
func (a *Apple) Revoke(ctx context.Context, provider, client, token string) error {
	if provider != accounts.ProviderApple {
		return core.Internal(fmt.Errorf("signin: no revocation for %s", provider))
	}
	status, body, err := a.post(ctx, appleRevokePath, client, url.Values{"token": {token}, "token_type_hint": {"refresh_token"}})
	if err != nil {
		return err
	}
	if status == http.StatusOK {
		return nil
	}
	switch e := refused(body); {
	case status == http.StatusBadRequest && (e == "invalid_grant" || e == "unsupported_token_type"):
		return fmt.Errorf("%w: apple: %s", accounts.ErrGrantGone, e)
	default:
		return core.Internal(fmt.Errorf("apple revoke endpoint: %d %q", status, e))
	}
}
