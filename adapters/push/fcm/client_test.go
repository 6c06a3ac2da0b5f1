package fcm_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
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
	"tandem/modules/notifications"
)

var (
	keyOnce sync.Once
	testKey *rsa.PrivateKey
)

// key is one RSA key for every test (generating is slow under -race).
func key(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	keyOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		testKey = k
	})
	return testKey
}

const clientEmail = "tandem@p1.iam.gserviceaccount.com"

// fakeFCM serves the OAuth token endpoint and FCM's messages:send. The token
// endpoint verifies the JWT assertion with the public half of the test key.
type fakeFCM struct {
	t       *testing.T
	pub     *rsa.PublicKey
	url     string
	now     func() time.Time
	mu      sync.Mutex
	fetches int
	valid   map[string]bool // access tokens handed out and not revoked
	sends   []map[string]any
	refuse  string // token endpoint answers this OAuth error when set
	// rejectAll answers 401 to every send
	rejectAll bool
}

func (f *fakeFCM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/token":
		f.token(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/projects/p1/messages:send":
		f.send(w, r)
	default:
		f.t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
		w.WriteHeader(http.StatusTeapot)
	}
}

func (f *fakeFCM) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" ||
		r.PostForm.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		f.t.Errorf("token request %v %v", r.Header, r.PostForm)
	}
	if err := f.verify(r.PostForm.Get("assertion")); err != nil {
		f.t.Errorf("assertion: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":"invalid_grant","error_description":"bad assertion"}`)
		return
	}
	if f.refuse != "" {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":"`+f.refuse+`","error_description":"refused"}`)
		return
	}
	f.fetches++
	tok := fmt.Sprintf("at-%d", f.fetches)
	f.valid[tok] = true
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"access_token":"`+tok+`","expires_in":3600,"token_type":"Bearer"}`)
}

// verify checks an RS256 JWT: signature, header and the claims FCM needs.
func (f *fakeFCM) verify(jwt string) error {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return fmt.Errorf("%d parts", len(parts))
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(f.pub, crypto.SHA256, sum[:], sig); err != nil {
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
	if header["alg"] != "RS256" || header["typ"] != "JWT" || header["kid"] != "key-1" {
		return fmt.Errorf("header %v", header)
	}
	iat, _ := claims["iat"].(float64)
	exp, _ := claims["exp"].(float64)
	if claims["iss"] != clientEmail || claims["aud"] != f.url+"/token" || claims["scope"] != fcm.Scope ||
		int64(iat) != f.now().Unix() || exp-iat != 3600 {
		return fmt.Errorf("claims %v", claims)
	}
	return nil
}

func decodeSegment(s string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func (f *fakeFCM) send(w http.ResponseWriter, r *http.Request) {
	bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || !f.valid[bearer] || f.rejectAll {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}`)
		return
	}
	var body map[string]any
	raw, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(raw, &body); err != nil || r.Header.Get("Content-Type") != "application/json" {
		f.t.Errorf("send body %s", raw)
	}
	f.sends = append(f.sends, body)
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
		_, _ = io.WriteString(w, `{"name":"projects/p1/messages/0:1"}`)
	}
}

func (f *fakeFCM) counts() (int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fetches, len(f.sends)
}

func (f *fakeFCM) revokeAll() {
	f.mu.Lock()
	f.valid = map[string]bool{}
	f.mu.Unlock()
}

// clock is the client's settable now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// writeCredentials writes a service-account key file and returns its path.
func writeCredentials(t *testing.T, fields map[string]string) string {
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

func pkcs8PEM(t *testing.T, k any) string {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// start runs the fake and a client for it with a settable clock.
func start(t *testing.T) (*fakeFCM, *fcm.Client, *clock) {
	t.Helper()
	k := key(t)
	clk := &clock{t: time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)}
	f := &fakeFCM{t: t, pub: &k.PublicKey, now: clk.now, valid: map[string]bool{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	f.url = srv.URL
	path := writeCredentials(t, map[string]string{"type": "service_account", "project_id": "p1", "private_key_id": "key-1",
		"private_key": pkcs8PEM(t, k), "client_email": clientEmail, "token_uri": srv.URL + "/token"})
	c, err := fcm.New(fcm.Config{Project: "p1", CredentialsFile: path, BaseURL: srv.URL + "/", HTTPClient: srv.Client(), Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	return f, c, clk
}

func devices(tokens ...string) []notifications.Device {
	out := make([]notifications.Device, len(tokens))
	for i, tok := range tokens {
		out[i] = notifications.Device{ID: fmt.Sprint(i), UserID: "u1", Token: tok, Provider: "fcm"}
	}
	return out
}

func outcomes(ds []notifications.Delivery) string {
	s := ""
	for _, d := range ds {
		s += [...]string{"F", "D", "X"}[d.Outcome]
	}
	return s
}

var msg = notifications.Message{NotificationID: "n1", Title: "Hello", Body: "World", Category: "events"}

func TestSendsWithAServiceAccountToken(t *testing.T) {
	t.Parallel()
	f, c, _ := start(t)
	got := c.Push(context.Background(), msg, devices("ok-1", "gone-1", "unreg-1", "bad-1", "busy-1", "ok-2"))
	if outcomes(got) != "DXXFFD" {
		t.Fatalf("%s %v", outcomes(got), got)
	}
	if got[3].Err == nil || !strings.Contains(got[3].Err.Error(), "HTTP 400 INVALID_ARGUMENT") ||
		!strings.Contains(got[4].Err.Error(), "HTTP 503") {
		t.Fatalf("errors %v / %v", got[3].Err, got[4].Err)
	}
	fetches, sends := f.counts()
	if fetches != 1 || sends != 6 {
		t.Fatalf("%d token fetches, %d sends", fetches, sends)
	}
	f.mu.Lock()
	first, _ := json.Marshal(f.sends[0])
	f.mu.Unlock()
	want := `{"message":{"data":{"category":"events","notificationId":"n1"},"notification":{"body":"World","title":"Hello"},"token":"ok-1"}}`
	if string(first) != want {
		t.Fatalf("send body\n got %s\nwant %s", first, want)
	}
}

func TestTheTokenIsReusedUntilAMinuteBeforeItExpires(t *testing.T) {
	t.Parallel()
	f, c, clk := start(t)
	push := func() {
		t.Helper()
		if got := c.Push(context.Background(), msg, devices("ok")); outcomes(got) != "D" {
			t.Fatalf("%v", got)
		}
	}
	push()
	clk.add(58*time.Minute + 59*time.Second)
	push()
	if fetches, _ := f.counts(); fetches != 1 {
		t.Fatalf("fetched %d tokens within the hour", fetches)
	}
	clk.add(time.Second) // 59 minutes: one minute left
	push()
	if fetches, _ := f.counts(); fetches != 2 {
		t.Fatalf("fetched %d tokens, want a renewal", fetches)
	}
}

func TestARevokedTokenIsRenewedOnce(t *testing.T) {
	t.Parallel()
	f, c, _ := start(t)
	c.Push(context.Background(), msg, devices("ok"))
	f.revokeAll()
	if got := c.Push(context.Background(), msg, devices("ok")); outcomes(got) != "D" {
		t.Fatalf("after revocation: %v", got)
	}
	if fetches, sends := f.counts(); fetches != 2 || sends != 2 {
		t.Fatalf("%d fetches, %d accepted sends", fetches, sends)
	}

	// A server that never accepts a token: one renewal, then the delivery fails.
	f.mu.Lock()
	f.rejectAll = true
	f.mu.Unlock()
	got := c.Push(context.Background(), msg, devices("ok"))
	if outcomes(got) != "F" || !strings.Contains(got[0].Err.Error(), "HTTP 401 UNAUTHENTICATED") {
		t.Fatalf("%s %v", outcomes(got), got)
	}
	if fetches, _ := f.counts(); fetches != 3 {
		t.Fatalf("%d fetches, want one renewal", fetches)
	}
}

func TestARefusedAssertionFailsEveryDevice(t *testing.T) {
	t.Parallel()
	f, c, _ := start(t)
	f.mu.Lock()
	f.refuse = "invalid_grant"
	f.mu.Unlock()
	got := c.Push(context.Background(), msg, devices("ok-1", "ok-2"))
	if outcomes(got) != "FF" || !strings.Contains(got[0].Err.Error(), "invalid_grant") {
		t.Fatalf("%s %v", outcomes(got), got)
	}
	if _, sends := f.counts(); sends != 0 {
		t.Fatalf("%d sends without a token", sends)
	}
}

func TestNewChecksTheCredentialsFile(t *testing.T) {
	t.Parallel()
	k := key(t)
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pkcs1 := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
	good := func(edit func(m map[string]string)) string {
		m := map[string]string{"private_key": pkcs8PEM(t, k), "client_email": clientEmail}
		if edit != nil {
			edit(m)
		}
		return writeCredentials(t, m)
	}
	notJSON := filepath.Join(t.TempDir(), "x.json")
	if err := os.WriteFile(notJSON, []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		cfg     fcm.Config
		errHas  string // "" for accepted
		project string
	}{
		{"PKCS#8 key, default token URI", fcm.Config{Project: "p1", CredentialsFile: good(nil)}, "", "p1"},
		{"PKCS#1 key", fcm.Config{Project: "p1", CredentialsFile: good(func(m map[string]string) { m["private_key"] = pkcs1 })}, "", "p1"},
		{"no project", fcm.Config{CredentialsFile: good(nil)}, "project is required", ""},
		{"missing file", fcm.Config{Project: "p1", CredentialsFile: filepath.Join(t.TempDir(), "none.json")}, "no such file", ""},
		{"not JSON", fcm.Config{Project: "p1", CredentialsFile: notJSON}, "not a service-account JSON key", ""},
		{"no client_email", fcm.Config{Project: "p1", CredentialsFile: good(func(m map[string]string) { delete(m, "client_email") })},
			"client_email and private_key are required", ""},
		{"key not PEM", fcm.Config{Project: "p1", CredentialsFile: good(func(m map[string]string) { m["private_key"] = "abc" })},
			"private_key is not PEM", ""},
		{"EC key", fcm.Config{Project: "p1", CredentialsFile: good(func(m map[string]string) { m["private_key"] = pkcs8PEM(t, ec) })},
			"not an RSA key", ""},
	}
	for _, tc := range cases {
		c, err := fcm.New(tc.cfg)
		if tc.errHas == "" {
			if err != nil || c == nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.errHas) {
			t.Fatalf("%s: %v", tc.name, err)
		}
	}
}
