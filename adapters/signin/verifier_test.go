package signin_test

import (
	"context"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
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
	with := func(kv map[string]any) jwt.MapClaims {
		c := good()
		for k, val := range kv {
			c[k] = val
		}
		return c
	}
	without := func(k string) jwt.MapClaims { c := good(); delete(c, k); return c }
	several := []string{"x", client}
	sum := sha256.Sum256([]byte("n-1"))
	hashed := hex.EncodeToString(sum[:])
	for _, tc := range []struct {
		name, token, nonce string
		ok                 bool
	}{
		{"valid", p.Sign(t, good()), "", true},
		{"wrong audience", p.Sign(t, with(map[string]any{"aud": "com.evil"})), "", false},
		{"several audiences, azp ours", p.Sign(t, with(map[string]any{"aud": several, "azp": client})), "", true},
		{"several audiences, azp another client of ours", p.Sign(t, with(map[string]any{"aud": several, "azp": "other"})), "", true},
		{"several audiences, no azp", p.Sign(t, with(map[string]any{"aud": several})), "", false},
		{"several audiences, azp not ours", p.Sign(t, with(map[string]any{"aud": several, "azp": "x"})), "", false},
		{"several audiences, azp empty", p.Sign(t, with(map[string]any{"aud": several, "azp": ""})), "", false},
		// Google's Android flow: aud the web client, azp the Android one.
		{"one audience, azp another client", p.Sign(t, with(map[string]any{"azp": "com.example.android"})), "", true},
		{"nonce as sent", p.Sign(t, with(map[string]any{"nonce": "n-1"})), "n-1", true},
		{"nonce hashed", p.Sign(t, with(map[string]any{"nonce": hashed})), "n-1", true},
		{"wrong nonce", p.Sign(t, with(map[string]any{"nonce": "n-2"})), "n-1", false},
		{"the hash of another nonce", p.Sign(t, with(map[string]any{"nonce": hashed})), "n-2", false},
		{"no nonce in the token", p.Sign(t, good()), "n-1", false},
		{"a nonce in the token, none sent", p.Sign(t, with(map[string]any{"nonce": "n-1"})), "", false},
		{"a hashed nonce in the token, none sent", p.Sign(t, with(map[string]any{"nonce": hashed})), "", false},
		{"wrong issuer", p.Sign(t, with(map[string]any{"iss": "https://accounts.google.com"})), "", false},
		{"expired", p.Sign(t, with(map[string]any{"exp": now.Add(-time.Second).Unix()})), "", false},
		{"no expiry", p.Sign(t, without("exp")), "", false},
		{"no iat", p.Sign(t, without("iat")), "", false},
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
			sum := sha256.Sum256([]byte(tc.token))
			if c.Provider != accounts.ProviderApple || c.Subject != "sub-1" || c.Email != "Ann@X.io" || !c.EmailVerified ||
				c.TokenHash != hex.EncodeToString(sum[:]) || !c.ExpiresAt.Equal(now.Add(time.Hour)) {
				t.Fatalf("%+v", c)
			}
			// The client an authorization code beside it was issued to: azp
			// with several audiences, else the audience.
			if want := map[bool]string{true: "other", false: client}[tc.name == "several audiences, azp another client of ours"]; c.Client != want {
				t.Fatalf("client %q, want %q", c.Client, want)
			}
		})
	}
	if _, err := v.Verify(context.Background(), accounts.ProviderGoogle, p.Sign(t, good()), ""); !core.IsKind(err, core.KindUnauthorized) {
		t.Fatalf("a provider not configured: %v", err)
	}
}

// TestIssuedAt: a token issued longer ago than its provider's tokens live
// (Apple 10 minutes, Google an hour), or later than now, each beyond a
// minute of clock skew, is refused even before its exp.
func TestIssuedAt(t *testing.T) {
	key, _ := signintest.Keys(t)
	apple := signintest.New(t, "https://appleid.apple.com", key)
	google := signintest.New(t, "https://accounts.google.com", key)
	clock := coretest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	v := signin.NewVerifier([]signin.Provider{
		{Name: accounts.ProviderApple, Clients: []string{client}, KeysURL: apple.URL()},
		{Name: accounts.ProviderGoogle, Clients: []string{client}, KeysURL: google.URL()},
	}, http.DefaultClient, clock.Now)
	by := map[string]*signintest.Provider{accounts.ProviderApple: apple, accounts.ProviderGoogle: google}
	now := clock.Now()
	for _, tc := range []struct {
		name, provider string
		issued         time.Duration // iat - now
		ok             bool
	}{
		{"apple, just issued", accounts.ProviderApple, 0, true},
		{"apple, its life and the skew ago", accounts.ProviderApple, -11 * time.Minute, true},
		{"apple, a second more", accounts.ProviderApple, -11*time.Minute - time.Second, false},
		{"apple, the skew ahead", accounts.ProviderApple, time.Minute, true},
		{"apple, a second more ahead", accounts.ProviderApple, time.Minute + time.Second, false},
		{"google, its life and the skew ago", accounts.ProviderGoogle, -61 * time.Minute, true},
		{"google, a second more", accounts.ProviderGoogle, -61*time.Minute - time.Second, false},
		{"google, a second more ahead than the skew", accounts.ProviderGoogle, time.Minute + time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := by[tc.provider].Claims(client, "s", now) // exp an hour ahead: only iat decides
			c["iat"] = now.Add(tc.issued).Unix()
			_, err := v.Verify(context.Background(), tc.provider, by[tc.provider].Sign(t, c), "")
			if tc.ok && err != nil {
				t.Fatal(err)
			}
			if e := core.As(err); !tc.ok && (e.Kind != core.KindUnauthorized || e.Code != "invalid_token") {
				t.Fatalf("want 401 invalid_token, got %v", err)
			}
		})
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
	v.SettleKeys() // the stale key's refresh, started behind the caller, failed
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
	v.SettleKeys()
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

// gatedKeys serves a provider's JWKS through a gate: while held, a fetch
// reaches the server (counted, first closed) and waits until open.
type gatedKeys struct {
	*httptest.Server
	held    atomic.Bool
	arrived atomic.Int64
	first   chan struct{}
	release chan struct{}
	once    sync.Once
}

func newGatedKeys(t *testing.T, p *signintest.Provider) *gatedKeys {
	g := &gatedKeys{first: make(chan struct{}), release: make(chan struct{})}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.held.Load() {
			if g.arrived.Add(1) == 1 {
				close(g.first)
			}
			<-g.release
		}
		p.Server.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(g.Close)
	t.Cleanup(g.open) // runs first: a failing test leaves no fetch stuck for Close to wait on
	return g
}

func (g *gatedKeys) open() { g.once.Do(func() { close(g.release) }) }

// TestKnownKeysServeWhileAFetchIsStuck: a key server that does not answer
// holds up only the callers whose kid the set lacks. They share one fetch,
// which outlives the caller that started it; a known kid is answered while
// that fetch is stuck. No timing: the server waits until the test opens it,
// and a known kid that waited for it would never return.
func TestKnownKeysServeWhileAFetchIsStuck(t *testing.T) {
	key, foreign := signintest.Keys(t)
	p := signintest.New(t, "https://appleid.apple.com", key)
	g := newGatedKeys(t, p)
	clock := coretest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	v := signin.NewVerifier([]signin.Provider{{Name: accounts.ProviderApple, Clients: []string{client}, KeysURL: g.URL}},
		http.DefaultClient, clock.Now)
	waiting := make(chan struct{}, 8)
	v.OnKeyWait(accounts.ProviderApple, func() { waiting <- struct{}{} })
	verify := func(ctx context.Context, kid string, k *rsa.PrivateKey) error {
		_, err := v.Verify(ctx, accounts.ProviderApple, signintest.SignWith(t, p.Claims(client, "s", clock.Now()), kid, k), "")
		return err
	}
	if err := verify(context.Background(), "k1", key); err != nil {
		t.Fatal(err)
	}
	<-waiting // the first fetch, through the open gate
	p.AddKey("k2", foreign)
	clock.Advance(time.Minute) // an unknown kid may fetch again
	g.held.Store(true)

	starterCtx, giveUp := context.WithCancel(context.Background())
	starter, joiner := make(chan error, 1), make(chan error, 1)
	go func() { starter <- verify(starterCtx, "k2", foreign) }()
	<-g.first // its fetch is at the server, stuck
	<-waiting
	go func() { joiner <- verify(context.Background(), "k2", foreign) }()
	select { // a second unknown kid waits on the same fetch
	case <-waiting:
	case err := <-joiner:
		t.Fatalf("an unknown kid did not wait for the fetch under way: %v", err)
	}
	if err := verify(context.Background(), "k1", key); err != nil {
		t.Fatalf("a known kid while a fetch is stuck: %v", err)
	}
	giveUp()
	if err := <-starter; !core.IsKind(err, core.KindUnavailable) {
		t.Fatalf("a waiting caller that gives up: want 503, got %v", err)
	}
	select {
	case err := <-joiner:
		t.Fatalf("an unknown kid answered before the fetch: %v", err)
	default:
	}
	g.open()
	if err := <-joiner; err != nil {
		t.Fatalf("the fetch, once answered, has the new key: %v", err)
	}
	if n := g.arrived.Load(); n != 1 {
		t.Fatalf("%d fetches while the server was stuck, want 1", n)
	}
}
