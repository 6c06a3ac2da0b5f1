// Package signin verifies the ID tokens of Sign in with Apple and Google:
// RS256 signatures by the provider's published keys (JWKS), kept in a small
// cache that follows the answer's Cache-Control.
package signin

import (
	"context"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	// refetchGap is how soon an unknown kid may fetch the keys again;
	// retryGap how soon after a failed fetch.
	refetchGap = time.Minute
	retryGap   = 5 * time.Second
	// defaultMaxAge holds the keys when the answer says nothing usable.
	defaultMaxAge = time.Hour
	maxMaxAge     = 24 * time.Hour
	maxJWKSBytes  = 1 << 20
)

// errKeysUnavailable: the key set could not be fetched (503, never 401).
var errKeysUnavailable = errors.New("signin: key set unavailable")

// errUnknownKey: no key of the set has the token's kid (401).
var errUnknownKey = errors.New("signin: unknown key id")

// KeySet is one provider's JWKS, fetched from url and cached: until the
// answer's Cache-Control max-age, and fetched again at most once a minute
// when a token names a kid the set does not hold (the provider rotated).
type KeySet struct {
	url    string
	client *http.Client
	now    func() time.Time

	mu      sync.Mutex
	keys    map[string]*rsa.PublicKey
	expires time.Time // keys are fresh until then
	fetched time.Time // the last fetch attempt, successful or not
	failed  bool      // the last fetch attempt failed
}

// NewKeySet caches the JWKS at url, fetched with client.
func NewKeySet(url string, client *http.Client, now func() time.Time) *KeySet {
	return &KeySet{url: url, client: client, now: now}
}

// Key returns the RSA key with kid: errUnknownKey when the set (fresh, or
// just fetched) has none, errKeysUnavailable when the set cannot be had.
// One fetch at a time; after a fetch none other for a minute (a failed one:
// retryGap), so neither unknown kids nor an outage hammer the provider,
// and while it is down the keys it served last go on serving.
func (k *KeySet) Key(ctx context.Context, kid string) (*rsa.PublicKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	key, known := k.keys[kid]
	if known && now.Before(k.expires) {
		return key, nil
	}
	if !k.fetched.IsZero() {
		since := now.Sub(k.fetched)
		switch {
		case k.failed && since < retryGap:
			if known {
				return key, nil
			}
			return nil, errKeysUnavailable
		case !k.failed && since < refetchGap:
			if known {
				return key, nil
			}
			return nil, errUnknownKey
		}
	}
	k.fetched = now
	keys, maxAge, err := k.fetch(ctx)
	k.failed = err != nil
	if err != nil {
		if known { // the provider is down: a key it served goes on serving
			return key, nil
		}
		return nil, fmt.Errorf("%w: %v", errKeysUnavailable, err)
	}
	k.keys, k.expires = keys, now.Add(maxAge)
	if key, ok := keys[kid]; ok {
		return key, nil
	}
	return nil, errUnknownKey
}

func (k *KeySet) fetch(ctx context.Context) (map[string]*rsa.PublicKey, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return nil, 0, err
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("GET %s: %s", k.url, resp.Status)
	}
	var set struct {
		Keys []struct {
			Kty string `json:"kty"`
			Kid string `json:"kid"`
			Use string `json:"use"`
			N   string `json:"n"`
			E   string `json:"e"`
		} `json:"keys"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxJWKSBytes)).Decode(&set); err != nil {
		return nil, 0, fmt.Errorf("GET %s: %w", k.url, err)
	}
	keys := make(map[string]*rsa.PublicKey, len(set.Keys))
	for _, j := range set.Keys {
		if j.Kty != "RSA" || (j.Use != "" && j.Use != "sig") || j.Kid == "" {
			continue
		}
		n, err1 := base64.RawURLEncoding.DecodeString(j.N)
		e, err2 := base64.RawURLEncoding.DecodeString(j.E)
		if err1 != nil || err2 != nil || len(e) == 0 || len(e) > 4 {
			continue
		}
		key := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		if key.N.BitLen() < 2048 {
			continue
		}
		keys[j.Kid] = key
	}
	return keys, maxAge(resp.Header.Get("Cache-Control")), nil
}

// maxAge reads max-age from a Cache-Control header (no-store and no-cache
// hold the keys for the one-minute refetch gap only).
func maxAge(cc string) time.Duration {
	for _, d := range strings.Split(cc, ",") {
		d = strings.ToLower(strings.TrimSpace(d))
		if d == "no-store" || d == "no-cache" {
			return refetchGap
		}
		if v, ok := strings.CutPrefix(d, "max-age="); ok {
			s, err := strconv.Atoi(strings.Trim(v, `"`))
			if err != nil || s < 0 {
				return defaultMaxAge
			}
			return min(max(time.Duration(s)*time.Second, refetchGap), maxMaxAge)
		}
	}
	return defaultMaxAge
}
