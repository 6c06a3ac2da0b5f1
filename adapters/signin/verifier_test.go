package signin_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"tandem/adapters/signin"
	"tandem/adapters/signin/signintest"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/accounts"
)

const client = "com.example.tandem"

func setup(t *testing.T) (*signintest.Provider, *signin.Verifier, *coretest.FixedClock) {
	key, _ := signintest.Keys(t)
	p := signintest.New(t, "https://appleid.apple.com", key)
	clock := coretest.NewClock(time.Time{})
	v := signin.NewVerifier([]signin.Provider{{Name: accounts.ProviderApple, Clients: []string{"other", client}, KeysURL: p.URL()}},
		http.DefaultClient, clock.Now)
	return p, v, clock
}

func TestVerify(t *testing.T) {
	p, v, clock := setup(t)
	served, foreign := signintest.Keys(t)
	now := clock.Now()
	good := func() jwt.MapClaims {
		c := p.Claims(client, "sub-1", now)
		c["email"], c["email_verified"] = "Ann@X.io", "true"
		return c
	}
	with := func(k string, val any) jwt.MapClaims { c := good(); c[k] = val; return c }
	without := func(k string) jwt.MapClaims { c := good(); delete(c, k); return c }
	sum := sha256.Sum256([]byte("n-1"))
	for _, tc := range []struct {
		name, token, nonce string
		ok                 bool
	}{
		{"valid", p.Sign(t, good()), "", true},
		{"an audience among several", p.Sign(t, with("aud", []string{"x", client})), "", true},
		{"nonce as sent", p.Sign(t, with("nonce", "n-1")), "n-1", true},
		{"nonce hashed", p.Sign(t, with("nonce", hex.EncodeToString(sum[:]))), "n-1", true},
		{"iat a minute ahead", p.Sign(t, with("iat", now.Add(time.Minute).Unix())), "", true},
		{"wrong nonce", p.Sign(t, with("nonce", "n-2")), "n-1", false},
		{"no nonce in the token", p.Sign(t, good()), "n-1", false},
		{"wrong audience", p.Sign(t, with("aud", "com.evil")), "", false},
		{"wrong issuer", p.Sign(t, with("iss", "https://accounts.google.com")), "", false},
		{"expired", p.Sign(t, with("exp", now.Add(-time.Second).Unix())), "", false},
		{"no expiry", p.Sign(t, without("exp")), "", false},
		{"iat too far ahead", p.Sign(t, with("iat", now.Add(2*time.Minute).Unix())), "", false},
		{"no subject", p.Sign(t, without("sub")), "", false},
		{"alg none", signintest.None(t, good(), "k1"), "", false},
		{"HS256 with the public key", signintest.HS256(t, good(), "k1", served), "", false},
		{"a foreign key", signintest.SignWith(t, good(), "k1", foreign), "", false},
		{"an unknown kid", signintest.SignWith(t, good(), "k9", served), "", false},
		{"no kid", signintest.SignWith(t, good(), "", served), "", false},
		{"garbage", "not.a.token", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := v.Verify(context.Background(), accounts.ProviderApple, tc.token, tc.nonce)
			if !tc.ok {
				if e := core.As(err); e.Kind != core.KindUnauthorized || e.Code != "invalid_token" {
					t.Fatalf("want 401 invalid_token, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Provider != accounts.ProviderApple || c.Subject != "sub-1" || c.Email != "Ann@X.io" || !c.EmailVerified {
				t.Fatalf("%+v", c)
			}
		})
	}
	if _, err := v.Verify(context.Background(), accounts.ProviderGoogle, p.Sign(t, good()), ""); !core.IsKind(err, core.KindUnauthorized) {
		t.Fatalf("a provider not configured: %v", err)
	}
}

func TestEmailVerifiedForms(t *testing.T) {
	p, v, clock := setup(t)
	for val, want := range map[any]bool{true: true, "true": true, false: false, "false": false, "yes": false} {
		c := p.Claims(client, "s", clock.Now())
		c["email"], c["email_verified"] = "a@x.io", val
		got, err := v.Verify(context.Background(), accounts.ProviderApple, p.Sign(t, c), "")
		if err != nil || got.EmailVerified != want {
			t.Errorf("email_verified %v: %v %v", val, got.EmailVerified, err)
		}
	}
}

func TestKeySetCachesAndRefetchesAtMostOnceAMinute(t *testing.T) {
	p, v, clock := setup(t)
	served, foreign := signintest.Keys(t)
	ctx := context.Background()
	verify := func(token string) error {
		_, err := v.Verify(ctx, accounts.ProviderApple, token, "")
		return err
	}
	c := func() jwt.MapClaims { return p.Claims(client, "s", clock.Now()) }
	for range 3 {
		if err := verify(p.Sign(t, c())); err != nil {
			t.Fatal(err)
		}
	}
	if n := p.Fetches.Load(); n != 1 {
		t.Fatalf("fetched %d times for one kid", n)
	}
	// An unknown kid fetches again, once a minute at most.
	p.AddKey("k2", foreign)
	clock.Advance(30 * time.Second)
	if err := verify(signintest.SignWith(t, c(), "k2", foreign)); !core.IsKind(err, core.KindUnauthorized) {
		t.Fatalf("a rotated key half a minute after the fetch: %v", err)
	}
	clock.Advance(30 * time.Second)
	if err := verify(signintest.SignWith(t, c(), "k2", foreign)); err != nil {
		t.Fatalf("a rotated key: %v", err)
	}
	for range 3 {
		if err := verify(signintest.SignWith(t, c(), "k3", served)); !core.IsKind(err, core.KindUnauthorized) {
			t.Fatalf("unknown kid: %v", err)
		}
	}
	if n := p.Fetches.Load(); n != 2 {
		t.Fatalf("fetched %d times, want 2", n)
	}
	clock.Advance(time.Minute)
	_ = verify(signintest.SignWith(t, c(), "k3", served))
	if n := p.Fetches.Load(); n != 3 {
		t.Fatalf("fetched %d times after a minute, want 3", n)
	}
	// Max-age over (an hour): fetched again; the provider down then keeps
	// the known keys, and an unknown kid is 503, never 401.
	p.SetDown(true)
	clock.Advance(2 * time.Hour)
	if err := verify(p.Sign(t, c())); err != nil {
		t.Fatalf("a known key while the provider is down: %v", err)
	}
	clock.Advance(2 * time.Minute)
	if err := verify(signintest.SignWith(t, c(), "k4", served)); !core.IsKind(err, core.KindUnavailable) {
		t.Fatalf("an unknown kid while the provider is down: %v", err)
	}
	// A failed fetch is not tried again for a few seconds: an outage
	// costs each request no wait for the provider.
	before := p.Fetches.Load()
	for range 3 {
		if err := verify(p.Sign(t, c())); err != nil {
			t.Fatalf("a known key right after a failed fetch: %v", err)
		}
		_ = verify(signintest.SignWith(t, c(), "k5", served))
	}
	if n := p.Fetches.Load(); n != before {
		t.Fatalf("fetched %d more times right after a failure", n-before)
	}
	p.SetDown(false)
	clock.Advance(6 * time.Second)
	if err := verify(p.Sign(t, c())); err != nil {
		t.Fatal(err)
	}
	if n := p.Fetches.Load(); n != before+1 {
		t.Fatalf("fetched %d more times once the provider was back, want 1", n-before)
	}
}

func TestKeysUnreachableIs503(t *testing.T) {
	p, v, clock := setup(t)
	p.SetDown(true)
	_, err := v.Verify(context.Background(), accounts.ProviderApple, p.Sign(t, p.Claims(client, "s", clock.Now())), "")
	if e := core.As(err); e.Kind != core.KindUnavailable || e.Code != "unavailable" {
		t.Fatalf("want 503 unavailable, got %v", err)
	}
}
