package playtest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"time"

	"tandem/adapters/purchases/play"
)

const jwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// token is the OAuth token endpoint: it exchanges a service account's
// signed assertion for an access token, as oauth2.googleapis.com does.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if r.PostFormValue("grant_type") != jwtBearer {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	if err := s.checkAssertion(r.PostFormValue("assertion")); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": err.Error()})
		return
	}
	tok := "ya29.playtest-" + randomHex()
	s.mu.Lock()
	s.issued[tok] = true
	s.exchanges++
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
}

func (s *Server) checkAssertion(assertion string) error {
	var c struct {
		Iss   string `json:"iss"`
		Scope string `json:"scope"`
		Aud   string `json:"aud"`
		Exp   int64  `json:"exp"`
	}
	if err := verifyRS256(assertion, &s.saKey.PublicKey, &c); err != nil {
		return err
	}
	switch {
	case c.Iss != ClientEmail:
		return fmt.Errorf("iss %q", c.Iss)
	case c.Scope != play.Scope:
		return fmt.Errorf("scope %q", c.Scope)
	case c.Aud != s.srv.URL+"/token":
		return fmt.Errorf("aud %q", c.Aud)
	case !time.Now().Before(time.Unix(c.Exp, 0)):
		return errors.New("expired")
	}
	return nil
}

// CertsURL serves Google's OIDC keys (play.Config.CertsURL) as a JWK set.
func (s *Server) CertsURL() string { return s.srv.URL + "/oauth2/v3/certs" }

func (s *Server) certs(w http.ResponseWriter, _ *http.Request) {
	key, kid := s.oidc()
	s.mu.Lock()
	s.certsFetches++
	s.mu.Unlock()
	b64 := base64.RawURLEncoding.EncodeToString
	writeJSON(w, http.StatusOK, map[string]any{"keys": []map[string]string{{
		"kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid,
		"n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes()),
	}}})
}

// SignOIDC is a Google-style ID token, as Pub/Sub puts in a push's
// Authorization header, signed by this server's OIDC key.
func (s *Server) SignOIDC(aud, email string, exp time.Time) string {
	return s.SignClaims(map[string]any{
		"iss": "https://accounts.google.com", "aud": aud, "azp": "100000000000000000001",
		"sub": "100000000000000000001", "email": email, "email_verified": true,
		"iat": exp.Add(-time.Hour).Unix(), "exp": exp.Unix(),
	})
}

// SignClaims signs any claims with this server's OIDC key, for tokens that
// are wrong in a way SignOIDC cannot make.
func (s *Server) SignClaims(claims map[string]any) string {
	key, kid := s.oidc()
	tok, err := signRS256(key, kid, claims)
	if err != nil {
		s.t.Fatalf("playtest: sign: %v", err)
	}
	return tok
}

// oidc generates the OIDC key on first use: most tests never need it. Its
// kid is derived from the key, so each server's kid is its own.
func (s *Server) oidc() (*rsa.PrivateKey, string) {
	s.oidcOnce.Do(func() {
		s.oidcKey = newKey()
		sum := sha256.Sum256(s.oidcKey.N.Bytes())
		s.oidcKid = hex.EncodeToString(sum[:20])
	})
	return s.oidcKey, s.oidcKid
}

func signRS256(key *rsa.PrivateKey, kid string, claims any) (string, error) {
	h, err := json.Marshal(map[string]string{"alg": "RS256", "kid": kid, "typ": "JWT"})
	if err != nil {
		return "", err
	}
	c, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c)
	digest := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	if err != nil {
		return "", err
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

func verifyRS256(token string, key *rsa.PublicKey, claims any) error {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return errors.New("not a compact JWS")
	}
	var h struct {
		Alg string `json:"alg"`
	}
	if err := decodeSegment(parts[0], &h); err != nil || h.Alg != "RS256" {
		return fmt.Errorf("header: alg %q, %v", h.Alg, err)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return err
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(key, crypto.SHA256, digest[:], sig); err != nil {
		return err
	}
	return decodeSegment(parts[1], claims)
}

func decodeSegment(seg string, dst any) error {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, dst)
}

func randomHex() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
