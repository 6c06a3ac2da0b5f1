package play_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"tandem/adapters/purchases/play"
	"tandem/adapters/purchases/play/playtest"
	"tandem/core"
	"tandem/modules/premium"
)

const (
	product  = "premium_monthly"
	secret   = "push-s3cret"
	audience = "https://tandem.test/webhooks/play"
	pusher   = "pubsub-push@tandem.iam.gserviceaccount.com"
)

var (
	start  = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	expiry = time.Date(2025, 7, 1, 12, 0, 0, 0, time.UTC)
	now    = time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
)

// newVerifier is a verifier of srv's API with both push options set;
// edit changes the configuration first.
func newVerifier(t *testing.T, srv *playtest.Server, edit func(*play.Config)) *play.Verifier {
	t.Helper()
	cfg := play.Config{Package: playtest.Package, Credentials: srv.Credentials(), Endpoint: srv.URL(),
		PushSecret: secret, PushAudience: audience, PushEmail: pusher, CertsURL: srv.CertsURL(),
		Timeout: 2 * time.Second, Clock: func() time.Time { return now }}
	if edit != nil {
		edit(&cfg)
	}
	v, err := play.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return v
}

func proof(token, productID string) premium.Purchase {
	return premium.Purchase{Proof: premium.Proof{PurchaseToken: token, ProductID: productID}}
}

// ref is what StoreRef must be: the token's SHA-256 in hex.
func ref(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// code is err's core code, "" for none.
func code(err error) string {
	if err == nil {
		return ""
	}
	return core.As(err).Code
}

// paid is the purchase Verify returns for an active subscription of product.
func paid(token string) premium.Purchase {
	return premium.Purchase{Plan: product, StartDate: start, EndDate: expiry, BillingID: "GPA.3300-1234-5678-90123",
		Platform: core.PlatformAndroid, Store: premium.StorePlay, StoreRef: ref(token), ProductID: product,
		State: premium.StateActive, SignedAt: now}
}

func TestNewRefusesBadConfiguration(t *testing.T) {
	t.Parallel()
	srv := playtest.New(t)
	creds := srv.Credentials()
	edit := func(f func(m map[string]string)) []byte {
		var m map[string]string
		if err := json.Unmarshal(creds, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	tests := []struct {
		name string
		cfg  play.Config
		want string
	}{
		{"no package", play.Config{Credentials: creds}, "package"},
		{"no credentials", play.Config{Package: playtest.Package}, "credentials"},
		{"not JSON", play.Config{Package: playtest.Package, Credentials: []byte("{")}, "credentials"},
		{"user credentials", play.Config{Package: playtest.Package,
			Credentials: edit(func(m map[string]string) { m["type"] = "authorized_user" })}, "credentials"},
		{"no email", play.Config{Package: playtest.Package,
			Credentials: edit(func(m map[string]string) { delete(m, "client_email") })}, "client_email"},
		{"no key", play.Config{Package: playtest.Package,
			Credentials: edit(func(m map[string]string) { delete(m, "private_key") })}, "private_key"},
		{"key not PEM", play.Config{Package: playtest.Package,
			Credentials: edit(func(m map[string]string) { m["private_key"] = "MIIE" })}, "private_key"},
		{"key garbled", play.Config{Package: playtest.Package, Credentials: edit(func(m map[string]string) {
			m["private_key"] = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
		})}, "private_key"},
		{"empty plan", play.Config{Package: playtest.Package, Credentials: creds,
			Plans: map[string]string{product: ""}}, "empty plan"},
		{"relative endpoint", play.Config{Package: playtest.Package, Credentials: creds, Endpoint: "/api"}, "endpoint"},
		{"relative certs URL", play.Config{Package: playtest.Package, Credentials: creds, CertsURL: "certs"}, "certs"},
		{"audience without email", play.Config{Package: playtest.Package, Credentials: creds, PushAudience: audience},
			"e-mail"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := play.New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New: %v, want an error naming %q", err, tc.want)
			}
		})
	}
	if _, err := play.New(play.Config{Package: playtest.Package, Credentials: creds}); err != nil {
		t.Fatalf("no push option is not a start-up error: %v", err)
	}
}

func TestSubscriptionTypeName(t *testing.T) {
	t.Parallel()
	for typ, want := range map[int]string{0: "SUBSCRIPTION_0", 14: "SUBSCRIPTION_14", 99: "SUBSCRIPTION_99",
		play.SubscriptionRevoked: "SUBSCRIPTION_REVOKED"} {
		if got := play.SubscriptionTypeName(typ); got != want {
			t.Errorf("SubscriptionTypeName(%d) = %q, want %q", typ, got, want)
		}
	}
}
