// Package signintest is a local stand-in for Apple's and Google's sign-in:
// RSA keys made on the spot, their JWKS served by an httptest server, and
// ID tokens signed with them (or forged, for the refusals).
package signintest

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Provider serves a JWKS of its keys and signs tokens with them; with
// ServeAppleAPI, Apple's token and revoke endpoints too (apple.go).
type Provider struct {
	Server  *httptest.Server
	Issuer  string
	keys    map[string]*rsa.PrivateKey
	mu      sync.Mutex
	down    bool
	Fetches atomic.Int64
	api     *appleAPI // nil: no token and revoke endpoints
}

// keyBits: 2048, the least the verifier takes.
const keyBits = 2048

// NewKey makes an RSA key (2048 bits).
func NewKey(t testing.TB) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, keyBits)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// sharedKeys are made once per test binary: RSA generation is slow.
var (
	sharedOnce sync.Once
	shared     [2]*rsa.PrivateKey
)

// Keys returns two keys made once per test binary: the served one and a
// foreign one (never served).
func Keys(t testing.TB) (served, foreign *rsa.PrivateKey) {
	sharedOnce.Do(func() { shared = [2]*rsa.PrivateKey{NewKey(t), NewKey(t)} })
	return shared[0], shared[1]
}

// New serves key under kid "k1" for issuer, with Cache-Control max-age=3600;
// closed when t ends.
func New(t testing.TB, issuer string, key *rsa.PrivateKey) *Provider {
	p := &Provider{Issuer: issuer, keys: map[string]*rsa.PrivateKey{"k1": key}}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Server.Close)
	return p
}

// URL is the JWKS address.
func (p *Provider) URL() string { return p.Server.URL + "/keys" }

// SetDown makes the JWKS answer 500 (true) or serve again.
func (p *Provider) SetDown(down bool) { p.mu.Lock(); p.down = down; p.mu.Unlock() }

// AddKey serves key under kid too (a rotation).
func (p *Provider) AddKey(kid string, key *rsa.PrivateKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keys[kid] = key
}

func (p *Provider) serve(w http.ResponseWriter, r *http.Request) {
	if p.serveAPI(w, r) {
		return
	}
	p.Fetches.Add(1)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		http.Error(w, "down", http.StatusInternalServerError)
		return
	}
	var set struct {
		Keys []map[string]string `json:"keys"`
	}
	for kid, k := range p.keys {
		set.Keys = append(set.Keys, map[string]string{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
			"n": base64.RawURLEncoding.EncodeToString(k.N.Bytes()),
			"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(k.E)).Bytes())})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_ = json.NewEncoder(w).Encode(set)
}

// Claims are an ID token's claims for aud and sub, issued at now by p,
// valid an hour.
func (p *Provider) Claims(aud, sub string, now time.Time) jwt.MapClaims {
	return jwt.MapClaims{"iss": p.Issuer, "aud": aud, "sub": sub, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
}

// Sign signs c with the served key "k1" (RS256).
func (p *Provider) Sign(t testing.TB, c jwt.MapClaims) string {
	p.mu.Lock()
	key := p.keys["k1"]
	p.mu.Unlock()
	return SignWith(t, c, "k1", key)
}

// SignWith signs c with key under kid (RS256).
func SignWith(t testing.TB, c jwt.MapClaims, kid string, key *rsa.PrivateKey) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// HS256 signs c with an HMAC secret: the public key's bytes, the classic
// algorithm confusion.
func HS256(t testing.TB, c jwt.MapClaims, kid string, key *rsa.PrivateKey) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, c)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(key.N.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// None is c unsigned (alg none).
func None(t testing.TB, c jwt.MapClaims, kid string) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodNone, c)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
