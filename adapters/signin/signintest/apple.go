package signintest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Apple's token and revoke endpoints, as the signin adapter calls them
// (https://developer.apple.com/documentation/sign_in_with_apple/generate_and_validate_tokens,
// .../revoke_tokens): each call's client secret is checked as Apple would,
// an ES256 JWT by the team key (kid its id; iss the team, sub the client
// id, aud https://appleid.apple.com, iat and exp at most six months
// apart), and what it does is recorded for the test to read.

// maxSecretLife is Apple's ceiling on a client secret's exp - iat.
const maxSecretLife = 15777000 * time.Second

// appleAPI is the state of the token and revoke endpoints.
type appleAPI struct {
	team, keyID string
	pub         *ecdsa.PublicKey

	mu        sync.Mutex
	down      bool
	codes     map[string]grant // issued, not redeemed yet
	exchanged []string         // codes redeemed, in order
	order     []string         // the refresh token each of exchanged handed out
	issued    map[string]grant // refresh tokens handed out
	revoked   []string         // refresh tokens revoked, in order
	refusals  []string         // every refused call, why
	changed   *sync.Cond
}

type grant struct{ client, sub string }

// NewTeamKey makes a P-256 team key and writes it as Apple's .p8 file
// (PKCS#8 PEM) under t's temporary directory; it returns the key and the
// file's path.
func NewTeamKey(t testing.TB) (*ecdsa.PrivateKey, string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "AuthKey.p8")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return k, path
}

// ServeAppleAPI has p answer POST /auth/token and /auth/revoke for the
// team key (team, keyID) whose public half is pub. Its base URL is
// p.Server.URL.
func (p *Provider) ServeAppleAPI(team, keyID string, pub *ecdsa.PublicKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a := &appleAPI{team: team, keyID: keyID, pub: pub, codes: map[string]grant{}, issued: map[string]grant{}}
	a.changed = sync.NewCond(&a.mu)
	p.api = a
}

// Code issues an authorization code for client and sub, redeemable once.
func (p *Provider) Code(client, sub string) string {
	a := p.apiState()
	a.mu.Lock()
	defer a.mu.Unlock()
	c := "c." + randomHex()
	a.codes[c] = grant{client: client, sub: sub}
	return c
}

// SetAPIDown makes the token and revoke endpoints answer 503 (true), or
// serve again; the JWKS is not touched.
func (p *Provider) SetAPIDown(down bool) {
	a := p.apiState()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.down = down
}

// Exchanged lists the codes redeemed.
func (p *Provider) Exchanged() []string {
	a := p.apiState()
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.exchanged)
}

// Revoked lists the refresh tokens revoked.
func (p *Provider) Revoked() []string {
	a := p.apiState()
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.revoked)
}

// RefreshToken is the refresh token the code's redemption handed out, ""
// when it was not redeemed.
func (p *Provider) RefreshToken(code string) string {
	a := p.apiState()
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, c := range a.exchanged {
		if c == code {
			return a.order[i]
		}
	}
	return ""
}

// Refusals lists every call refused, and why (a bad client secret among
// them).
func (p *Provider) Refusals() []string {
	a := p.apiState()
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.refusals)
}

// WaitRevoked waits until token is revoked, for at most wait (the
// revocation runs off the request that queued it); it fails t when it
// is not.
func (p *Provider) WaitRevoked(t testing.TB, token string, wait time.Duration) {
	t.Helper()
	a := p.apiState()
	timer := time.AfterFunc(wait, func() { a.mu.Lock(); a.changed.Broadcast(); a.mu.Unlock() })
	defer timer.Stop()
	deadline := time.Now().Add(wait)
	a.mu.Lock()
	defer a.mu.Unlock()
	for !slices.Contains(a.revoked, token) {
		if !time.Now().Before(deadline) {
			t.Fatalf("%s was not revoked; revoked %v, refused %v", token, a.revoked, a.refusals)
		}
		a.changed.Wait()
	}
}

func (p *Provider) apiState() *appleAPI {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.api == nil {
		panic("signintest: ServeAppleAPI first")
	}
	return p.api
}

func randomHex() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// serveAPI answers the token and revoke endpoints; false for any other
// path (the JWKS).
func (p *Provider) serveAPI(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path != "/auth/token" && r.URL.Path != "/auth/revoke" {
		return false
	}
	p.mu.Lock()
	a := p.api
	p.mu.Unlock()
	if a == nil {
		http.NotFound(w, r)
		return true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	defer a.changed.Broadcast()
	if a.down {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return true
	}
	if r.Method != http.MethodPost || r.ParseForm() != nil {
		a.refuse(w, "invalid_request", "%s %s: not a form POST", r.Method, r.URL.Path)
		return true
	}
	client := r.PostForm.Get("client_id")
	if err := a.checkSecret(r.PostForm.Get("client_secret"), client); err != nil {
		a.refuse(w, "invalid_client", "%s: client secret: %v", r.URL.Path, err)
		return true
	}
	if r.URL.Path == "/auth/token" {
		p.token(w, a, r, client)
	} else {
		a.revoke(w, r, client)
	}
	return true
}

func (a *appleAPI) refuse(w http.ResponseWriter, code, format string, args ...any) {
	a.refusals = append(a.refusals, fmt.Sprintf(format, args...))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code})
}

// checkSecret checks a client secret as Apple does.
func (a *appleAPI) checkSecret(secret, client string) error {
	var c jwt.RegisteredClaims
	_, err := jwt.NewParser(jwt.WithValidMethods([]string{"ES256"}), jwt.WithoutClaimsValidation()).
		ParseWithClaims(secret, &c, func(t *jwt.Token) (any, error) {
			if kid, _ := t.Header["kid"].(string); kid != a.keyID {
				return nil, fmt.Errorf("kid %q, want %q", kid, a.keyID)
			}
			return a.pub, nil
		})
	switch {
	case err != nil:
		return err
	case c.Issuer != a.team:
		return fmt.Errorf("iss %q, want the team %q", c.Issuer, a.team)
	case client == "" || c.Subject != client:
		return fmt.Errorf("sub %q, want the client_id %q", c.Subject, client)
	case len(c.Audience) != 1 || c.Audience[0] != "https://appleid.apple.com":
		return fmt.Errorf("aud %v", c.Audience)
	case c.IssuedAt == nil || c.ExpiresAt == nil:
		return fmt.Errorf("no iat or exp")
	case !c.ExpiresAt.After(c.IssuedAt.Time) || c.ExpiresAt.Sub(c.IssuedAt.Time) > maxSecretLife:
		return fmt.Errorf("exp %v is not within six months after iat %v", c.ExpiresAt, c.IssuedAt)
	}
	return nil
}

// token redeems a code (grant_type authorization_code): the refresh
// token and an ID token for the code's client and subject, signed by p.
func (p *Provider) token(w http.ResponseWriter, a *appleAPI, r *http.Request, client string) {
	code := r.PostForm.Get("code")
	g, ok := a.codes[code]
	switch {
	case r.PostForm.Get("grant_type") != "authorization_code":
		a.refuse(w, "unsupported_grant_type", "grant_type %q", r.PostForm.Get("grant_type"))
		return
	case !ok || g.client != client:
		a.refuse(w, "invalid_grant", "code %q unknown, used, or another client's", code)
		return
	}
	delete(a.codes, code)
	rt := "r." + randomHex()
	a.exchanged = append(a.exchanged, code)
	a.order = append(a.order, rt)
	a.issued[rt] = g
	now := time.Now()
	p.mu.Lock()
	key := p.keys["k1"]
	p.mu.Unlock()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"iss": p.Issuer, "aud": client, "sub": g.sub,
		"iat": now.Unix(), "exp": now.Add(10 * time.Minute).Unix()})
	tok.Header["kid"] = "k1"
	idToken, err := tok.SignedString(key)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "a." + randomHex(), "token_type": "Bearer",
		"expires_in": 3600, "refresh_token": rt, "id_token": idToken})
}

// revoke revokes a refresh token of client (token_type_hint
// refresh_token); Apple answers 200 for a token it does not know too.
func (a *appleAPI) revoke(w http.ResponseWriter, r *http.Request, client string) {
	rt := r.PostForm.Get("token")
	if hint := r.PostForm.Get("token_type_hint"); hint != "refresh_token" {
		a.refuse(w, "unsupported_token_type", "token_type_hint %q", hint)
		return
	}
	if g, ok := a.issued[rt]; ok && g.client != client {
		a.refuse(w, "invalid_client", "token of client %q revoked by %q", g.client, client)
		return
	}
	a.revoked = append(a.revoked, rt)
	w.WriteHeader(http.StatusOK)
}
