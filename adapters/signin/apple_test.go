package signin_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"tandem/adapters/signin"
	"tandem/adapters/signin/signintest"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/accounts"
)

const (
	team  = "TEAM123456"
	keyID = "KEY1234567"
)

// apple is the adapter against a local Apple that knows its team key.
func apple(t *testing.T) (*signintest.Provider, *signin.Apple, *ecdsa.PrivateKey) {
	key, _ := signintest.Keys(t)
	p := signintest.New(t, "https://appleid.apple.com", key)
	teamKey, _ := signintest.NewTeamKey(t)
	p.ServeAppleAPI(team, keyID, &teamKey.PublicKey)
	clock := coretest.NewClock(time.Time{})
	return p, signin.NewApple(signin.AppleKey{Team: team, KeyID: keyID, Key: teamKey, BaseURL: p.Server.URL},
		http.DefaultClient, clock.Now), teamKey
}

func TestClientSecret(t *testing.T) {
	_, a, key := apple(t)
	s, err := a.ClientSecret(client)
	if err != nil {
		t.Fatal(err)
	}
	var c jwt.RegisteredClaims
	tok, err := jwt.NewParser(jwt.WithValidMethods([]string{"ES256"}), jwt.WithoutClaimsValidation()).
		ParseWithClaims(s, &c, func(*jwt.Token) (any, error) { return &key.PublicKey, nil })
	if err != nil {
		t.Fatal(err)
	}
	now := coretest.NewClock(time.Time{}).Now()
	if tok.Header["kid"] != keyID || c.Issuer != team || c.Subject != client ||
		!slices.Equal(c.Audience, jwt.ClaimStrings{"https://appleid.apple.com"}) ||
		!c.IssuedAt.Equal(now) || !c.ExpiresAt.After(now) || c.ExpiresAt.Sub(now) > 180*24*time.Hour {
		t.Fatalf("header %v, claims %+v", tok.Header, c)
	}
}

func TestAppleExchangeAndRevoke(t *testing.T) {
	ctx := context.Background()
	p, a, _ := apple(t)
	code := p.Code(client, "sub-1")
	g, err := a.Exchange(ctx, accounts.ProviderApple, client, code)
	if err != nil {
		t.Fatal(err)
	}
	if g.Subject != "sub-1" || g.RefreshToken == "" || g.RefreshToken != p.RefreshToken(code) {
		t.Fatalf("grant %+v", g)
	}
	// A code redeems once; another client's code is refused too.
	_, err = a.Exchange(ctx, accounts.ProviderApple, client, code)
	coretest.WantErr(t, err, core.KindUnauthorized, "invalid_token")
	_, err = a.Exchange(ctx, accounts.ProviderApple, client, p.Code("com.other.app", "sub-2"))
	coretest.WantErr(t, err, core.KindUnauthorized, "invalid_token")

	if err := a.Revoke(ctx, accounts.ProviderApple, client, g.RefreshToken); err != nil {
		t.Fatal(err)
	}
	if got := p.Revoked(); !slices.Equal(got, []string{g.RefreshToken}) {
		t.Fatalf("revoked %v", got)
	}
	// The refused calls were the codes', never the client secret's.
	for _, r := range p.Refusals() {
		if strings.Contains(r, "client secret") {
			t.Fatalf("refused: %s", r)
		}
	}
}

// TestAppleDown: Apple not answering, or answering 5xx, is 503 with
// Retry-After, for the sign-in to be sent again; a revocation then is
// neither done nor given up.
func TestAppleDown(t *testing.T) {
	ctx := context.Background()
	p, a, _ := apple(t)
	code := p.Code(client, "sub-1")
	p.SetAPIDown(true)
	_, err := a.Exchange(ctx, accounts.ProviderApple, client, code)
	e := core.As(err)
	if e.Kind != core.KindUnavailable || e.RetryAfter != signin.RetryAfter ||
		e.Message != "Apple cannot be reached to finish signing in; try again in a moment" {
		t.Fatalf("%+v", e)
	}
	err = a.Revoke(ctx, accounts.ProviderApple, client, "r.x")
	if !core.IsKind(err, core.KindUnavailable) || errors.Is(err, accounts.ErrGrantGone) {
		t.Fatalf("revoke while down: %v", err)
	}
	p.SetAPIDown(false)
	if _, err := a.Exchange(ctx, accounts.ProviderApple, client, code); err != nil {
		t.Fatalf("the code was not spent while Apple was down: %v", err)
	}
	p.Server.Close()
	if _, err := a.Exchange(ctx, accounts.ProviderApple, client, "c.x"); !core.IsKind(err, core.KindUnavailable) {
		t.Fatalf("unreachable: %v", err)
	}
}

// TestAppleRefusesAnotherKey: a client secret Apple does not take (another
// key: our configuration's fault) is internal, never 401 to the user nor a
// dropped revocation.
func TestAppleRefusesAnotherKey(t *testing.T) {
	ctx := context.Background()
	p, _, _ := apple(t)
	other, _ := signintest.NewTeamKey(t)
	a := signin.NewApple(signin.AppleKey{Team: team, KeyID: keyID, Key: other, BaseURL: p.Server.URL}, http.DefaultClient, time.Now)
	_, err := a.Exchange(ctx, accounts.ProviderApple, client, p.Code(client, "sub-1"))
	coretest.WantErr(t, err, core.KindInternal, "internal_error")
	err = a.Revoke(ctx, accounts.ProviderApple, client, "r.x")
	if !core.IsKind(err, core.KindInternal) || errors.Is(err, accounts.ErrGrantGone) {
		t.Fatalf("revoke: %v", err)
	}
	if len(p.Refusals()) != 2 || len(p.Revoked()) != 0 {
		t.Fatalf("refused %v, revoked %v", p.Refusals(), p.Revoked())
	}
}

func TestParseAppleKey(t *testing.T) {
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	rsaKey, _ := signintest.Keys(t)
	pemOf := func(k any) []byte {
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	}
	if k, err := signin.ParseAppleKey(pemOf(p256)); err != nil || !k.Equal(p256) {
		t.Fatalf("a P-256 key: %v", err)
	}
	for name, b := range map[string][]byte{"not PEM": []byte("garbage"), "P-384": pemOf(p384), "RSA": pemOf(rsaKey),
		"not PKCS#8": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("x")})} {
		if _, err := signin.ParseAppleKey(b); err == nil {
			t.Errorf("%s: taken", name)
		}
	}
}
