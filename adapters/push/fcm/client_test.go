package fcm_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/adapters/push/fcm"
	"tandem/adapters/push/fcm/fcmtest"
	"tandem/modules/notifications"
)

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

// start runs the fake and a client for it with a settable clock.
func start(t *testing.T) (*fcmtest.Server, *fcm.Client, *clock) {
	t.Helper()
	clk := &clock{t: time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)}
	f := fcmtest.Start(t, clk.now)
	c, err := fcm.New(fcm.Config{Project: fcmtest.Project, CredentialsFile: f.CredentialsFile(t), BaseURL: f.URL + "/",
		HTTPClient: f.Client(), Now: clk.now})
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
	fetches, sends := f.Counts()
	if fetches != 1 || sends != 6 {
		t.Fatalf("%d token fetches, %d sends", fetches, sends)
	}
	first, _ := json.Marshal(f.Sends()[0])
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
	if fetches, _ := f.Counts(); fetches != 1 {
		t.Fatalf("fetched %d tokens within the hour", fetches)
	}
	clk.add(time.Second) // 59 minutes: one minute left
	push()
	if fetches, _ := f.Counts(); fetches != 2 {
		t.Fatalf("fetched %d tokens, want a renewal", fetches)
	}
}

func TestARevokedTokenIsRenewedOnce(t *testing.T) {
	t.Parallel()
	f, c, _ := start(t)
	c.Push(context.Background(), msg, devices("ok"))
	f.RevokeAll()
	if got := c.Push(context.Background(), msg, devices("ok")); outcomes(got) != "D" {
		t.Fatalf("after revocation: %v", got)
	}
	if fetches, sends := f.Counts(); fetches != 2 || sends != 2 {
		t.Fatalf("%d fetches, %d accepted sends", fetches, sends)
	}

	// A server that never accepts a token: one renewal, then the delivery fails.
	f.RejectAll()
	got := c.Push(context.Background(), msg, devices("ok"))
	if outcomes(got) != "F" || !strings.Contains(got[0].Err.Error(), "HTTP 401 UNAUTHENTICATED") {
		t.Fatalf("%s %v", outcomes(got), got)
	}
	if fetches, _ := f.Counts(); fetches != 3 {
		t.Fatalf("%d fetches, want one renewal", fetches)
	}
}

func TestARefusedAssertionFailsEveryDevice(t *testing.T) {
	t.Parallel()
	f, c, _ := start(t)
	f.Refuse("invalid_grant")
	got := c.Push(context.Background(), msg, devices("ok-1", "ok-2"))
	if outcomes(got) != "FF" || !strings.Contains(got[0].Err.Error(), "invalid_grant") {
		t.Fatalf("%s %v", outcomes(got), got)
	}
	if _, sends := f.Counts(); sends != 0 {
		t.Fatalf("%d sends without a token", sends)
	}
}

func TestNewChecksTheCredentialsFile(t *testing.T) {
	t.Parallel()
	k := fcmtest.Key()
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pkcs1 := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
	good := func(edit func(m map[string]string)) string {
		m := map[string]string{"private_key": fcmtest.PKCS8PEM(t, k), "client_email": fcmtest.ClientEmail}
		if edit != nil {
			edit(m)
		}
		return fcmtest.WriteCredentials(t, m)
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
		{"EC key", fcm.Config{Project: "p1", CredentialsFile: good(func(m map[string]string) { m["private_key"] = fcmtest.PKCS8PEM(t, ec) })},
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
