// Package fcmtest runs a local FCM HTTP v1 API for tests: the OAuth token
// exchange of a service account and messages:send, so they need no Google
// account and no network. It also writes the service-account key files that
// point the client at it.
package fcmtest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/adapters/push/fcm"
)

const (
	// Project is the Firebase project the server answers for.
	Project = "p1"
	// ClientEmail is the service account of the key files written here.
	ClientEmail = "tandem@p1.iam.gserviceaccount.com"
	// KeyID is their private_key_id, the kid of every assertion.
	KeyID = "key-1"
	// SendPath is the path of messages:send for Project.
	SendPath = "/v1/projects/" + Project + "/messages:send"
)

var (
	keyOnce sync.Once
	key     *rsa.PrivateKey
)

// Key is the RSA key of every service account written here, generated once
// per test binary (2048-bit generation is slow under -race).
func Key() *rsa.PrivateKey {
	keyOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		key = k
	})
	return key
}

// PKCS8PEM is k, any private key, as a PEM "PRIVATE KEY" block.
func PKCS8PEM(t testing.TB, k any) string {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// WriteCredentials writes fields as a JSON key file in a fresh temporary
// directory and returns its path.
func WriteCredentials(t testing.TB, fields map[string]string) string {
	t.Helper()
	b, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Credentials are the fields of a complete service-account key of Project
// with Key; tokenURI "" leaves token_uri out (the client then uses Google's).
func Credentials(t testing.TB, tokenURI string) map[string]string {
	t.Helper()
	m := map[string]string{"type": "service_account", "project_id": Project, "private_key_id": KeyID,
		"private_key": PKCS8PEM(t, Key()), "client_email": ClientEmail}
	if tokenURI != "" {
		m["token_uri"] = tokenURI
	}
	return m
}

// CredentialsFile writes Credentials(t, tokenURI) and returns the path.
func CredentialsFile(t testing.TB, tokenURI string) string {
	t.Helper()
	return WriteCredentials(t, Credentials(t, tokenURI))
}

// Server serves POST /token (the OAuth JWT-bearer exchange) and POST
// SendPath. The token endpoint checks the form and verifies the assertion:
// its RS256 signature with Key, header (kid KeyID) and claims (iss
// ClientEmail, aud URL/token, fcm.Scope, an hour from iat, iat now); it then
// hands out a new access token "at-N". A send needs one of those tokens (401
// UNAUTHENTICATED otherwise) and is answered by the message's token:
//
//	"gone..."  404 NOT_FOUND, FCM error UNREGISTERED
//	"unreg..." 400 INVALID_ARGUMENT, FCM error UNREGISTERED
//	"bad..."   400 INVALID_ARGUMENT, FCM error INVALID_ARGUMENT
//	"busy..."  503 UNAVAILABLE, FCM error UNAVAILABLE
//	otherwise  200 with the message's name
//
// Every send with a valid token is recorded. Requests FCM would refuse (an
// unknown path, a malformed token request or body, a bad assertion) fail the
// test that started the server.
type Server struct {
	// URL is the server's base, for fcm.Config.BaseURL and TANDEM_PUSH's url.
	URL string
	srv *httptest.Server
	now func() time.Time

	mu       sync.Mutex
	fetches  int
	valid    map[string]bool // access tokens handed out and not revoked
	sends    []map[string]any
	refuse   string
	reject   bool
	problems []string
}

// Start runs a server until the test ends. now is the client's clock, which
// an assertion's iat must equal; nil is the real clock (iat then within the
// last minute).
func Start(t testing.TB, now func() time.Time) *Server {
	t.Helper()
	s := &Server{now: now, valid: map[string]bool{}}
	s.srv = httptest.NewServer(s)
	s.URL = s.srv.URL
	t.Cleanup(func() {
		s.srv.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, p := range s.problems {
			t.Errorf("fcmtest: %s", p)
		}
	})
	return s
}

// Client is an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// TokenURI is the token endpoint, the token_uri of the server's key file.
func (s *Server) TokenURI() string { return s.URL + "/token" }

// CredentialsFile writes a service-account key file whose token_uri is the
// server's token endpoint and returns its path.
func (s *Server) CredentialsFile(t testing.TB) string {
	t.Helper()
	return CredentialsFile(t, s.TokenURI())
}

// Counts are the access tokens handed out and the sends accepted so far.
func (s *Server) Counts() (fetches, sends int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fetches, len(s.sends)
}

// Sends are the bodies of the sends accepted so far, in order.
func (s *Server) Sends() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.sends...)
}

// Tokens are the device tokens of the sends accepted so far, in order.
func (s *Server) Tokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.sends))
	for i, b := range s.sends {
		msg, _ := b["message"].(map[string]any)
		out[i], _ = msg["token"].(string)
	}
	return out
}

// RevokeAll revokes every access token handed out so far.
func (s *Server) RevokeAll() {
	s.mu.Lock()
	s.valid = map[string]bool{}
	s.mu.Unlock()
}

// RejectAll makes every later send 401, whatever its access token.
func (s *Server) RejectAll() {
	s.mu.Lock()
	s.reject = true
	s.mu.Unlock()
}

// Refuse makes the token endpoint answer the OAuth error code (such as
// "invalid_grant") to every later valid assertion.
func (s *Server) Refuse(code string) {
	s.mu.Lock()
	s.refuse = code
	s.mu.Unlock()
}

func (s *Server) problem(format string, args ...any) {
	s.problems = append(s.problems, fmt.Sprintf(format, args...))
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/token":
		s.token(w, r)
	case r.Method == http.MethodPost && r.URL.Path == SendPath:
		s.send(w, r)
	default:
		s.problem("unexpected %s %s", r.Method, r.URL.Path)
		w.WriteHeader(http.StatusTeapot)
	}
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" ||
		r.PostForm.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		s.problem("token request %v %v", r.Header, r.PostForm)
	}
	if err := s.verify(r.PostForm.Get("assertion")); err != nil {
		s.problem("assertion: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":"invalid_grant","error_description":"bad assertion"}`)
		return
	}
	if s.refuse != "" {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":"`+s.refuse+`","error_description":"refused"}`)
		return
	}
	s.fetches++
	tok := fmt.Sprintf("at-%d", s.fetches)
	s.valid[tok] = true
	_, _ = io.WriteString(w, `{"access_token":"`+tok+`","expires_in":3600,"token_type":"Bearer"}`)
}

// verify checks an RS256 JWT: signature, header and the claims FCM needs.
func (s *Server) verify(jwt string) error {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return fmt.Errorf("%d parts", len(parts))
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(&Key().PublicKey, crypto.SHA256, sum[:], sig); err != nil {
		return fmt.Errorf("signature: %w", err)
	}
	var header map[string]string
	var claims map[string]any
	if err := decodeSegment(parts[0], &header); err != nil {
		return err
	}
	if err := decodeSegment(parts[1], &claims); err != nil {
		return err
	}
	if header["alg"] != "RS256" || header["typ"] != "JWT" || header["kid"] != KeyID {
		return fmt.Errorf("header %v", header)
	}
	iat, _ := claims["iat"].(float64)
	exp, _ := claims["exp"].(float64)
	if claims["iss"] != ClientEmail || claims["aud"] != s.TokenURI() || claims["scope"] != fcm.Scope ||
		!s.isNow(int64(iat)) || exp-iat != 3600 {
		return fmt.Errorf("claims %v", claims)
	}
	return nil
}

func (s *Server) isNow(iat int64) bool {
	if s.now != nil {
		return iat == s.now().Unix()
	}
	now := time.Now().Unix()
	return iat <= now && iat > now-60
}

func decodeSegment(seg string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func (s *Server) send(w http.ResponseWriter, r *http.Request) {
	bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || !s.valid[bearer] || s.reject {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}`)
		return
	}
	var body map[string]any
	raw, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(raw, &body); err != nil || r.Header.Get("Content-Type") != "application/json" {
		s.problem("send body %s", raw)
	}
	s.sends = append(s.sends, body)
	msg, _ := body["message"].(map[string]any)
	token, _ := msg["token"].(string)
	fcmError := func(status int, name, code string) {
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, `{"error":{"code":%d,"message":"failed","status":"%s","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"%s"}]}}`,
			status, name, code)
	}
	switch {
	case strings.HasPrefix(token, "gone"):
		fcmError(404, "NOT_FOUND", "UNREGISTERED")
	case strings.HasPrefix(token, "unreg"):
		fcmError(400, "INVALID_ARGUMENT", "UNREGISTERED")
	case strings.HasPrefix(token, "bad"):
		fcmError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT")
	case strings.HasPrefix(token, "busy"):
		fcmError(503, "UNAVAILABLE", "UNAVAILABLE")
	default:
		_, _ = io.WriteString(w, `{"name":"projects/`+Project+`/messages/0:1"}`)
	}
}
