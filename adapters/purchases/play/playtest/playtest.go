// Package playtest is a local Google Play Developer API for tests: the
// OAuth token endpoint of a generated service account, subscriptionsv2.get,
// subscriptions.acknowledge, and Google's OIDC keys for signed Pub/Sub
// pushes. Fail and Hang simulate outages.
package playtest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/adapters/purchases/play"
)

// Package is the only application the server knows; others are 404.
const Package = "app.tandem.test"

// ClientEmail is the generated service account's address.
const ClientEmail = "tandem-play@playtest.iam.gserviceaccount.com"

// Server is the local API. Its methods are safe for concurrent use.
type Server struct {
	t       testing.TB
	srv     *httptest.Server
	saKey   *rsa.PrivateKey
	release chan struct{} // closed at clean-up: frees hanging handlers

	oidcOnce sync.Once
	oidcKey  *rsa.PrivateKey
	oidcKid  string

	mu           sync.Mutex
	subs         map[string]play.SubscriptionPurchaseV2
	acks         map[string]int
	issued       map[string]bool
	exchanges    int
	certsFetches int
	fail         int
	hang         bool
}

// New starts a server, closed when t ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{t: t, saKey: newKey(), release: make(chan struct{}),
		subs: map[string]play.SubscriptionPurchaseV2{}, acks: map[string]int{}, issued: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("GET /oauth2/v3/certs", s.certs)
	api := "/androidpublisher/v3/applications/{pkg}/purchases/"
	mux.HandleFunc("GET "+api+"subscriptionsv2/tokens/{token}", s.api(s.get))
	// {token} cannot be followed by ":acknowledge" in a pattern: ack strips it.
	mux.HandleFunc("POST "+api+"subscriptions/{product}/tokens/{action}", s.api(s.ack))
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	t.Cleanup(func() { close(s.release) }) // runs first: hanging handlers return before Close waits
	return s
}

// newKey panics rather than calling t.Fatal: the OIDC key may be made in a
// handler's goroutine. crypto/rand does not fail in practice.
func newKey() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic("playtest: generate key: " + err.Error())
	}
	return k
}

// URL is the API endpoint (play.Config.Endpoint).
func (s *Server) URL() string { return s.srv.URL }

// Credentials is a service account key file for a freshly generated key,
// whose token_uri is this server's token endpoint.
func (s *Server) Credentials() []byte {
	der, err := x509.MarshalPKCS8PrivateKey(s.saKey)
	if err != nil {
		s.t.Fatalf("playtest: marshal key: %v", err)
	}
	b, _ := json.Marshal(map[string]string{
		"type":           "service_account",
		"project_id":     "playtest",
		"private_key_id": "playtest-key",
		"private_key":    string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email":   ClientEmail,
		"client_id":      "100000000000000000001",
		"token_uri":      s.srv.URL + "/token",
	})
	return b
}

// Put sets the subscription a purchase token reads as.
func (s *Server) Put(token string, sub play.SubscriptionPurchaseV2) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub.LineItems = slices.Clone(sub.LineItems)
	s.subs[token] = sub
}

// Get is the subscription stored for token, acknowledgement included.
func (s *Server) Get(token string) (play.SubscriptionPurchaseV2, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, ok := s.subs[token]
	sub.LineItems = slices.Clone(sub.LineItems)
	return sub, ok
}

// Acks is how many times token was acknowledged.
func (s *Server) Acks(token string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acks[token]
}

// TokenExchanges is how many access tokens the token endpoint issued.
func (s *Server) TokenExchanges() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exchanges
}

// CertsFetches is how many times the OIDC keys were fetched.
func (s *Server) CertsFetches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.certsFetches
}

// Fail makes the API endpoints (not the token or key endpoints) answer
// status with Google's error shape; 0 restores them.
func (s *Server) Fail(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = status
}

// Hang makes the API endpoints never answer until the client gives up.
func (s *Server) Hang(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hang = on
}

// Subscription is a subscription purchase of one product as Play returns
// it right after the purchase: acknowledgement pending.
func Subscription(productID, state string, start, expiry time.Time) play.SubscriptionPurchaseV2 {
	return play.SubscriptionPurchaseV2{
		Kind:                 "androidpublisher#subscriptionPurchaseV2",
		RegionCode:           "FR",
		StartTime:            start.UTC().Format(time.RFC3339Nano),
		SubscriptionState:    state,
		LatestOrderID:        "GPA.3300-1234-5678-90123",
		AcknowledgementState: play.AcknowledgementStatePending,
		LineItems: []play.SubscriptionPurchaseLineItem{{ProductID: productID,
			ExpiryTime:       expiry.UTC().Format(time.RFC3339Nano),
			AutoRenewingPlan: &play.AutoRenewingPlan{AutoRenewEnabled: state == play.SubscriptionStateActive}}},
	}
}

// PushBody is the body of Pub/Sub's push of n.
func (s *Server) PushBody(messageID string, n play.DeveloperNotification) []byte {
	data, err := json.Marshal(n)
	if err != nil {
		s.t.Fatalf("playtest: marshal notification: %v", err)
	}
	return PushBody(messageID, base64.StdEncoding.EncodeToString(data))
}

// PushBody is a Pub/Sub push body carrying data as it is (for malformed data).
func PushBody(messageID, data string) []byte {
	b, _ := json.Marshal(map[string]any{
		"message": map[string]string{"data": data, "messageId": messageID,
			"publishTime": time.Now().UTC().Format(time.RFC3339Nano)},
		"subscription": "projects/playtest/subscriptions/play-rtdn",
	})
	return b
}

// googleError writes Google's error shape.
func googleError(w http.ResponseWriter, code int, msg string) {
	status := map[int]string{400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
		404: "NOT_FOUND", 410: "NOT_FOUND", 500: "INTERNAL", 503: "UNAVAILABLE"}[code]
	writeJSON(w, code, map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// api wraps an API handler with the outage switches, the bearer token
// check and the package check.
func (s *Server) api(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		fail, hang := s.fail, s.hang
		authorized := s.issued[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		s.mu.Unlock()
		switch {
		case hang:
			select {
			case <-r.Context().Done():
			case <-s.release:
			}
		case fail != 0:
			googleError(w, fail, fmt.Sprintf("playtest: simulated HTTP %d", fail))
		case !authorized:
			googleError(w, http.StatusUnauthorized, "Request had invalid authentication credentials.")
		case r.PathValue("pkg") != Package:
			googleError(w, http.StatusNotFound, "No application was found for the given package name.")
		default:
			h(w, r)
		}
	}
}

func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	sub, ok := s.Get(r.PathValue("token"))
	if !ok {
		googleError(w, http.StatusNotFound, "The purchase token was not found.")
		return
	}
	writeJSON(w, http.StatusOK, sub)
}

func (s *Server) ack(w http.ResponseWriter, r *http.Request) {
	token, ok := strings.CutSuffix(r.PathValue("action"), ":acknowledge")
	var body map[string]any
	if !ok || json.NewDecoder(r.Body).Decode(&body) != nil {
		googleError(w, http.StatusBadRequest, "Invalid request.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, found := s.subs[token]
	if !found {
		googleError(w, http.StatusNotFound, "The purchase token was not found.")
		return
	}
	if !slices.ContainsFunc(sub.LineItems, func(it play.SubscriptionPurchaseLineItem) bool {
		return it.ProductID == r.PathValue("product")
	}) {
		googleError(w, http.StatusBadRequest, "The product does not match the purchase.")
		return
	}
	sub.AcknowledgementState = play.AcknowledgementStateAcknowledged
	s.subs[token] = sub
	s.acks[token]++
	writeJSON(w, http.StatusOK, struct{}{})
}
