package play

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"tandem/core"
	"tandem/modules/premium"
)

const (
	maxJWT         = 8 << 10     // a Google ID token is about 1 KB
	clockLeeway    = time.Minute // between Google's clock and ours
	keysMaxAge     = time.Hour   // Google rotates its keys over days
	keysMinRefetch = time.Minute // an unknown kid refetches no more often
	minKeyBits     = 2048        // Google's keys are 2048-bit
	issuerShort    = "accounts.google.com"
	issuerURL      = "https://" + issuerShort
)

// authenticate accepts a push that carries the configured secret, or else
// a Google-signed OIDC token for the configured audience. Without either
// configured, every push is refused.
func (v *Verifier) authenticate(ctx context.Context, n premium.Notification) error {
	if v.secret != "" && sameSecret(n.Secret, v.secret) {
		return nil
	}
	if v.audience == "" {
		return unauthorized(errors.New("no push secret matches and no OIDC audience is configured"))
	}
	err := v.checkOIDC(ctx, n.Authorization)
	if err == nil || core.IsKind(err, core.KindUnavailable) {
		return err // an unreachable key set is no verdict: Pub/Sub retries
	}
	return unauthorized(err)
}

func unauthorized(cause error) *core.Error {
	return core.Unauthorized("unauthorized", "play.pushNotAuthenticated", "the push is not authenticated").Wrap(cause)
}

// sameSecret compares digests so that the time taken says nothing about
// the secret, its length included.
func sameSecret(got, want string) bool {
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

// idClaims are the claims of the ID token Pub/Sub signs for a push.
type idClaims struct {
	Iss           string   `json:"iss"`
	Aud           audience `json:"aud"`
	Exp           int64    `json:"exp"`
	Email         string   `json:"email"`
	EmailVerified bool     `json:"email_verified"`
}

// checkOIDC verifies the Authorization header's bearer token: its RS256
// signature by one of Google's keys, then its claims.
func (v *Verifier) checkOIDC(ctx context.Context, authorization string) error {
	scheme, token, ok := strings.Cut(authorization, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || len(token) > maxJWT {
		return errors.New("no bearer token")
	}
	var c idClaims
	if err := v.verifyJWT(ctx, token, &c); err != nil {
		return err
	}
	return v.checkClaims(c)
}

// verifyJWT checks a compact RS256 JWS against the key its kid names and
// decodes its payload into claims. The algorithm is fixed, never taken
// from the token.
func (v *Verifier) verifyJWT(ctx context.Context, token string, claims any) error {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return errors.New("not a compact JWS")
	}
	var h struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	if err := decodeSegment(parts[0], &h); err != nil {
		return fmt.Errorf("header: %w", err)
	}
	if h.Alg != "RS256" || h.Kid == "" {
		return fmt.Errorf("alg %q with kid %q", h.Alg, h.Kid)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return fmt.Errorf("signature: %w", err)
	}
	key, err := v.keys.key(ctx, h.Kid, v.now())
	if err != nil {
		return err
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(key, crypto.SHA256, digest[:], sig); err != nil {
		return fmt.Errorf("signature: %w", err)
	}
	return decodeSegment(parts[1], claims)
}

func decodeSegment(seg string, dst any) error {
	raw, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, dst)
}

func (v *Verifier) checkClaims(c idClaims) error {
	switch {
	case c.Iss != issuerURL && c.Iss != issuerShort:
		return fmt.Errorf("issuer %q", c.Iss)
	case !c.Aud.has(v.audience):
		return fmt.Errorf("audience %q", []string(c.Aud))
	case c.Exp == 0 || !v.now().Before(time.Unix(c.Exp, 0).Add(clockLeeway)):
		return errors.New("expired")
	case c.Email != v.email || !c.EmailVerified: // New requires an email with an audience
		return fmt.Errorf("email %q (verified %v)", c.Email, c.EmailVerified)
	}
	return nil
}

// audience is a JWT aud: one string (as Google writes it) or a list.
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*a = audience{one}
		return nil
	}
	return json.Unmarshal(b, (*[]string)(a))
}

func (a audience) has(want string) bool {
	for _, s := range a {
		if s == want {
			return true
		}
	}
	return false
}

// keySet caches Google's OIDC signing keys. They are refreshed after
// keysMaxAge, and an unknown kid refetches at most once per keysMinRefetch,
// so forged tokens cannot make every push fetch the keys. A failed refresh
// keeps the keys already known.
type keySet struct {
	url string
	get func(ctx context.Context, url string) ([]byte, error)

	mu      sync.Mutex // held across a fetch: concurrent pushes share it
	keys    map[string]*rsa.PublicKey
	fetched time.Time // last successful fetch
	tried   time.Time // last attempt
	err     error     // of the last attempt
}

func (k *keySet) key(ctx context.Context, kid string, now time.Time) (*rsa.PublicKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	key := k.keys[kid]
	stale := now.Sub(k.fetched) >= keysMaxAge
	if (key == nil || stale) && (k.tried.IsZero() || now.Sub(k.tried) >= keysMinRefetch) {
		k.tried = now
		k.err = k.refresh(ctx, now)
		key = k.keys[kid]
	}
	switch {
	case key != nil:
		return key, nil
	case k.err != nil:
		return nil, core.Unavailable("unavailable", "play.googleSigningKeysCannotFetched", "Google's signing keys cannot be fetched").Wrap(k.err)
	}
	return nil, fmt.Errorf("unknown key id %q", kid)
}

func (k *keySet) refresh(ctx context.Context, now time.Time) error {
	data, err := k.get(ctx, k.url)
	if err != nil {
		return fmt.Errorf("fetch %s: %w", k.url, err)
	}
	keys, err := parseJWKS(data)
	if err != nil {
		return fmt.Errorf("read %s: %w", k.url, err)
	}
	k.keys, k.fetched = keys, now
	return nil
}

// parseJWKS reads the RSA signing keys of a JWK set, skipping others.
func parseJWKS(data []byte) (map[string]*rsa.PublicKey, error) {
	var set struct {
		Keys []struct {
			Kty string `json:"kty"`
			Use string `json:"use"`
			Kid string `json:"kid"`
			N   string `json:"n"`
			E   string `json:"e"`
		} `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, err
	}
	keys := map[string]*rsa.PublicKey{}
	for _, j := range set.Keys {
		if j.Kty != "RSA" || j.Kid == "" || (j.Use != "" && j.Use != "sig") {
			continue
		}
		if key, err := rsaKey(j.N, j.E); err == nil {
			keys[j.Kid] = key
		}
	}
	if len(keys) == 0 {
		return nil, errors.New("no RSA signing key")
	}
	return keys, nil
}

func rsaKey(n64, e64 string) (*rsa.PublicKey, error) {
	nb, err1 := base64.RawURLEncoding.DecodeString(n64)
	eb, err2 := base64.RawURLEncoding.DecodeString(e64)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	n, e := new(big.Int).SetBytes(nb), new(big.Int).SetBytes(eb)
	if n.BitLen() < minKeyBits || !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31-1 {
		return nil, errors.New("weak or malformed RSA key")
	}
	return &rsa.PublicKey{N: n, E: int(e.Int64())}, nil
}
