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
	// fetchTimeout bounds a fetch, and so the wait of the callers it holds.
	fetchTimeout = 5 * time.Second
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
// One fetch runs at a time, outside the lock: a slow key server holds up
// only the callers whose kid the set lacks, never those it already has.
type KeySet struct {
	url    string
	client *http.Client
	now    func() time.Time

	mu      sync.Mutex
	keys    map[string]*rsa.PublicKey
	expires time.Time // keys are fresh until then
	fetched time.Time // the last fetch's start, successful or not
	failed  bool      // the last fetch failed
	flight  *flight   // the fetch under way, nil when none
	onWait  func()    // tests only: a caller starts waiting on a fetch
}

// flight is one fetch; err is set before done closes.
type flight struct {
	done chan struct{}
	err  error
}

// NewKeySet caches the JWKS at url, fetched with client.
func NewKeySet(url string, client *http.Client, now func() time.Time) *KeySet {
	return &KeySet{url: url, client: client, now: now}
}

// Key returns the RSA key with kid: errUnknownKey when the set (fresh, or
// just fetched) has none, errKeysUnavailable when the set cannot be had.
// A known kid is answered at once, even from stale keys, whose refresh it
// starts behind it (so while the provider is down its last keys go on
// serving). An unknown kid waits for the fetch under way, or starts one
// unless one started within refetchGap (a failed one: retryGap), so a
// flood of made-up kids costs the provider one fetch a minute.
func (k *KeySet) Key(ctx context.Context, kid string) (*rsa.PublicKey, error) {
	k.mu.Lock()
	now := k.now()
	if key, ok := k.keys[kid]; ok {
		if !now.Before(k.expires) && k.gate(now) == nil {
			k.start(ctx, now)
		}
		k.mu.Unlock()
		return key, nil
	}
	f := k.flight
	if f == nil {
		if err := k.gate(now); err != nil {
			k.mu.Unlock()
			return nil, err
		}
		f = k.start(ctx, now)
	}
	onWait := k.onWait
	k.mu.Unlock()
	if onWait != nil {
		onWait()
	}
	return k.await(ctx, f, kid)
}

// gate says why no fetch may start at now, nil when one may.
func (k *KeySet) gate(now time.Time) error {
	if k.fetched.IsZero() {
		return nil
	}
	since := now.Sub(k.fetched)
	switch {
	case k.failed && since < retryGap:
		return errKeysUnavailable
	case !k.failed && since < refetchGap:
		return errUnknownKey
	}
	return nil
}

// start begins a fetch unless one runs; k.mu is held. The fetch outlives
// the caller's request (others may wait on it) but keeps its values.
func (k *KeySet) start(ctx context.Context, now time.Time) *flight {
	if k.flight != nil {
		return k.flight
	}
	f := &flight{done: make(chan struct{})}
	k.flight, k.fetched = f, now
	go k.run(context.WithoutCancel(ctx), f, now)
	return f
}

func (k *KeySet) run(ctx context.Context, f *flight, started time.Time) {
	keys, maxAge, err := k.fetch(ctx)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.failed, f.err = err != nil, err
	if err == nil {
		k.keys, k.expires = keys, started.Add(maxAge)
	}
	k.flight = nil
	close(f.done)
}

// await waits for f, or for the caller to give up, and looks kid up in
// what it fetched.
func (k *KeySet) await(ctx context.Context, f *flight, kid string) (*rsa.PublicKey, error) {
	select {
	case <-f.done:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %v", errKeysUnavailable, ctx.Err())
	}
	if f.err != nil {
		return nil, fmt.Errorf("%w: %v", errKeysUnavailable, f.err)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if key, ok := k.keys[kid]; ok {
		return key, nil
	}
	return nil, errUnknownKey
}

func (k *KeySet) fetch(ctx context.Context) (map[string]*rsa.PublicKey, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
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
